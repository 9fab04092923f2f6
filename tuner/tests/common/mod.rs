//! Helpers shared by the tuner's integration tests (each test file is its own crate
//! and uses only some of them, hence the `dead_code` allowance).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod sorted_book;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs the tuner binary in the workspace root.
pub fn tuner(args: &[&str]) -> Output {
    tuner_in(&root(), args)
}

/// Runs the tuner binary in `dir` (where a run's files go, under `runs/`).
pub fn tuner_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tuner"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run tuner")
}

/// A command line of literal words, split at blanks: `words("match --nodes 300")`.
/// Paths (which may hold blanks) are passed as arguments of their own.
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// `words(line)` followed by `rest` as they are.
pub fn with<'a>(line: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut all = words(line);
    all.extend_from_slice(rest);
    all
}

/// The stdout and stderr of a run that must have succeeded (shown if it did not).
#[track_caller]
pub fn succeeded(out: &Output) -> String {
    let all = text(out);
    assert!(out.status.success(), "{all}");
    all
}

/// The stdout and stderr of a run that must have failed (shown if it did not).
#[track_caller]
pub fn failed(out: &Output) -> String {
    let all = text(out);
    assert!(!out.status.success(), "{all}");
    all
}

/// A command's stdout and stderr, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A fresh, empty scratch directory named after the test file (`tag`) and test.
pub fn fresh_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occam-{tag}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// (name, value) of every entry of an Occam parameter file's text.
pub fn param_values(json_text: &str) -> Vec<(String, i64)> {
    let json: serde_json::Value = serde_json::from_str(json_text).unwrap();
    json["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["value"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The `occam` binary of this profile, built once (as tests/src/lib.rs does).
pub fn occam_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let bin_dir = Path::new(env!("CARGO_BIN_EXE_tuner")).parent().unwrap();
            let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
            cmd.current_dir(root())
                .args(["build", "--quiet", "-p", "occam", "--bins"]);
            if bin_dir.file_name().is_some_and(|n| n == "release") {
                cmd.arg("--release");
            }
            assert!(
                cmd.status().unwrap().success(),
                "cargo build -p occam failed"
            );
            bin_dir.join(format!("occam{}", std::env::consts::EXE_SUFFIX))
        })
        .clone()
}
