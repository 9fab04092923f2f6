//! Helpers for the tuner's unit tests.

use std::path::PathBuf;

#[path = "../tests/common/sorted_book.rs"]
pub mod sorted_book;

/// A fresh, empty scratch directory for one test (`name` tells the tests apart).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occam-tuner-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The repository's parameter file `name` (e.g. `eval.json`).
pub fn repo_params(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../params")
        .join(name)
}
