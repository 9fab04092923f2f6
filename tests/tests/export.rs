//! `tuner export` writes the three formats, and what it writes compiles.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use occam::params::PARAM_SPECS;
use occam_tests::{Engine, binary, workspace_root};

fn export(args: &[&str]) -> Output {
    Command::new(binary("tuner"))
        .current_dir(workspace_root())
        .args([
            "export",
            "params/search.json",
            "params/eval.json",
            "params/pknet.json",
        ])
        .args(args)
        .output()
        .expect("run tuner export")
}

fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scratch_dir(name: &str) -> PathBuf {
    occam_tests::scratch_dir(&format!("export-{name}"))
}

#[test]
fn openbench_format_equals_the_engine_params_command() {
    let text = stdout_of(&export(&["--format", "openbench"]));
    let mut e = Engine::occam();
    e.send("params");
    let engine: BTreeSet<String> = e.sync().into_iter().collect();
    let exported: BTreeSet<String> = text.lines().map(str::to_string).collect();
    assert_eq!(text.lines().count(), PARAM_SPECS.len());
    assert_eq!(exported, engine);
}

#[test]
fn rust_format_written_with_o_compiles_and_carries_provenance() {
    let dir = scratch_dir("rust");
    let file = dir.join("occam_params.rs");
    let out = export(&[
        "--format",
        "rust",
        "-o",
        file.to_str().unwrap(),
        "--note",
        "SPRT: H1 accepted",
    ]);
    assert!(stdout_of(&out).is_empty(), "-o writes nothing to stdout");
    // The sidecar `.NAME.lock` of the one-writer lock stays by design (never renamed).
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.starts_with('.') && n.ends_with(".lock")))
        .collect();
    assert_eq!(names, ["occam_params.rs"], "no temporary file left behind");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("// SPRT: H1 accepted"), "{text}");
    assert!(text.contains("params/search.json"), "{text}");
    // Each declaration's text is checked by the unit tests of
    // tuner/src/exchange/export.rs; here: the binary writes one per parameter, and
    // they compile.
    assert_eq!(text.matches("pub const ").count(), PARAM_SPECS.len());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let status = Command::new(rustc)
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "lib",
            "--emit",
            "metadata",
            "-o",
        ])
        .arg(dir.join("out.rmeta"))
        .arg(&file)
        .status()
        .expect("run rustc");
    assert!(
        status.success(),
        "the exported Rust module does not compile"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn c_format_is_a_valid_header() {
    let text = stdout_of(&export(&["--format", "c"]));
    // As for Rust: one define per parameter (their text is unit-tested), and it compiles.
    assert_eq!(
        text.matches("#define OCCAM_").count(),
        PARAM_SPECS.len() + 1
    );
    // Compile it when a C compiler is around (CI machines have gcc).
    let dir = scratch_dir("c");
    std::fs::write(dir.join("occam_params.h"), &text).unwrap();
    let first = PARAM_SPECS[0].name.to_ascii_uppercase();
    let main = format!(
        "#include \"occam_params.h\"\n#include \"occam_params.h\"\nint main(void) {{ return OCCAM_{first} == {} ? 0 : 1; }}\n",
        PARAM_SPECS[0].value
    );
    std::fs::write(dir.join("main.c"), main).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    match Command::new(&cc)
        .current_dir(&dir)
        .args(["-std=c99", "-Wall", "-Werror", "-o", "main", "main.c"])
        .status()
    {
        Ok(status) => {
            assert!(status.success(), "the exported C header does not compile");
            let run = Command::new(dir.join("main")).status().unwrap();
            assert!(run.success(), "OCCAM_{first} has the wrong value");
        }
        Err(e) => eprintln!("skipping the C compile check: cannot run {cc}: {e}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_fail_with_a_message() {
    let out = Command::new(binary("tuner"))
        .current_dir(workspace_root())
        .args(["export", "params/no_such_file.json", "--format", "rust"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_file.json"));
    let out = export(&["--format", "pascal"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pascal"));
    let out = export(&["-o", Path::new("/nonexistent-dir/x.rs").to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonexistent-dir"));
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    use std::io::Read as _;
    use std::process::Stdio;
    let mut child = Command::new(binary("tuner"))
        .current_dir(workspace_root())
        .args([
            "export",
            "params/search.json",
            "params/eval.json",
            "params/pknet.json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tuner export");
    // Read one line's worth, as `| head -1` does, then close the pipe.
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
