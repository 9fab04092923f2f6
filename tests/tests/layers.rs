//! `scripts/layers.py`, the check CI runs on the tuner's layers: clean on the real
//! tree, and failing, with the line named, on a copy with a planted crossing.

use std::path::Path;
use std::process::{Command, Output};

use occam_tests::{scratch_dir, workspace_root};

fn layers(src: &Path) -> Output {
    Command::new("python3")
        .arg(workspace_root().join("scripts/layers.py"))
        .arg(src)
        .output()
        .expect("run python3 scripts/layers.py")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_tuner_imports_only_down_its_layers() {
    let out = layers(&workspace_root().join("tuner/src"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("0 import(s) up the layers"), "{text}");
}

#[test]
fn a_planted_crossing_fails_the_check_and_names_its_line() {
    let dir = scratch_dir("layers-planted");
    let src = dir.join("src");
    copy_tree(&workspace_root().join("tuner/src"), &src);
    // The statistics (the base) reaching up into a command's journal.
    let stats = src.join("stats.rs");
    let text = std::fs::read_to_string(&stats).unwrap();
    let planted =
        format!("{text}\n#[allow(unused_imports)]\nuse crate::spsa::journal::RunConfig;\n");
    std::fs::write(&stats, &planted).unwrap();
    let line = planted.lines().count();
    let out = layers(&src);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("1 import(s) up the layers"), "{report}");
    assert!(
        report.contains(&format!("stats.rs:{line} (0. base) imports"))
            && report.contains("spsa/journal.rs (5. commands)"),
        "{report}"
    );
    // A module the table leaves out is an error too.
    std::fs::write(&stats, &text).unwrap();
    let main = src.join("main.rs");
    let root = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, root.replace("mod text;", "mod text;\nmod unplaced;")).unwrap();
    std::fs::write(src.join("unplaced.rs"), "").unwrap();
    let out = layers(&src);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("module `unplaced` has no layer"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
