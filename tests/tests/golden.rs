//! Golden runs: small `tuner spsa` runs under each of its rule sets and `tuner simulate`
//! runs on fixed seeds, compared byte for byte with the copies committed in
//! `tests/data/golden/`.
//!
//! They pin what the tuner does, not how it is written: a change to the tuner's code
//! that is meant to keep its behaviour keeps every file here. A change that alters
//! the behaviour on purpose writes them again with
//!
//! ```sh
//! GOLDEN_WRITE=1 cargo test -p occam-tests --test golden
//! ```
//!
//! and says in its commit message what moved and why.
//!
//! A `tuner spsa` run is kept whole: every line of its journal (the header's nonce
//! blanked: it differs from run to run by design), its checkpoint, table, result and
//! probe files, the parameter file it wrote back, the table it printed and the plan
//! it printed before its first pair. A `tuner simulate` run is kept as it prints.

use std::path::{Path, PathBuf};
use std::process::Command;

use occam_params::ParamFile;
use occam_tests::{binary, scratch_dir, workspace_root};

/// The committed copy of one golden file.
fn golden_path(case: &str, file: &str) -> PathBuf {
    workspace_root()
        .join("tests/data/golden")
        .join(case)
        .join(file)
}

/// Compares `text` with the committed copy (or writes it, under `GOLDEN_WRITE=1`).
/// Returns a description of the difference, if any.
fn check(case: &str, file: &str, text: &str) -> Option<String> {
    let path = golden_path(case, file);
    if std::env::var_os("GOLDEN_WRITE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return None;
    }
    let Ok(expected) = std::fs::read_to_string(&path) else {
        return Some(format!(
            "{}: no golden copy (write it with GOLDEN_WRITE=1)",
            path.display()
        ));
    };
    if expected == text {
        return None;
    }
    let (line, want, got) = expected
        .lines()
        .zip(text.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i + 1, a.to_string(), b.to_string()))
        .unwrap_or_else(|| {
            let n = expected.lines().count().min(text.lines().count());
            (n + 1, "(end of file)".into(), "(end of file)".into())
        });
    Some(format!(
        "{case}/{file} differs from its golden copy at line {line}:\n  golden: {}\n  now:    {}",
        shorten(&want),
        shorten(&got)
    ))
}

fn shorten(line: &str) -> String {
    const MAX: usize = 300;
    match line.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// Panics with every difference found.
fn assert_all_same(differences: Vec<Option<String>>) {
    let differences: Vec<String> = differences.into_iter().flatten().collect();
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

/// `"nonce":123` → `"nonce":0`, and the checkpoint's `"journal":"<id>"`, the header's
/// hash: the fields of a run that differ between runs by design.
fn blank_nonce(text: &str) -> String {
    let nonce = regex::Regex::new(r#""nonce": ?\d+"#).unwrap();
    let id = regex::Regex::new(r#""journal": ?"[0-9a-f]+""#).unwrap();
    let text = nonce.replace_all(text, |c: &regex::Captures| {
        if c[0].contains(": ") {
            "\"nonce\": 0"
        } else {
            "\"nonce\":0"
        }
    });
    id.replace_all(&text, "\"journal\":\"…\"").into_owned()
}

/// A parameter file without any `c_end` and `r_end`: every gain left to the design.
fn without_gains(text: &str) -> String {
    let gains = regex::Regex::new(r#",?\s*"[cr]_end"\s*:\s*[-0-9.eE+]+"#).unwrap();
    gains.replace_all(text, "").into_owned()
}

/// The lines of the tuner's standard error that are its plan and its probe, decided
/// before the first pair, with the times they give at the measured rate blanked.
fn plan_lines(stderr: &str) -> String {
    let times = regex::Regex::new(r"\(≈ [^)]*\)").unwrap();
    let rate = regex::Regex::new(r"at the [0-9.]+ games/s").unwrap();
    stderr
        .lines()
        .filter(|l| {
            ["spsa: plan", "spsa: probe", "spsa:   ", "spsa: planned"]
                .iter()
                .any(|start| l.starts_with(start))
        })
        .map(|l| {
            let l = times.replace_all(l, "(≈ …)");
            format!("{}\n", rate.replace_all(&l, "at the … games/s"))
        })
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()))
}

/// Runs `tuner spsa` on a copy of `search.start.json` (`params/search.json` as the
/// golden runs were made from it: the main job rewrites the real one) with `edit`
/// applied, in a scratch folder, with the golden settings and `flags`, and compares every file it
/// wrote with the golden copies of `case`.
fn spsa_case(case: &str, edit: fn(&str) -> String, flags: &[&str], files: &[&str]) {
    let dir = scratch_dir(&format!("golden-{case}"));
    let params = std::fs::read_to_string(golden_path("", "search.start.json")).unwrap();
    std::fs::write(dir.join("search.json"), edit(&params)).unwrap();
    let out = Command::new(binary("tuner"))
        .current_dir(&dir)
        .args(["spsa", "search.json", "--journal", "run/spsa.jsonl"])
        .args([
            "--threads",
            "1",
            "--nodes",
            "200",
            "--pairs",
            "20",
            "--seed",
            "1",
        ])
        // Written whatever the write-back gate says (20 pairs show no gain), so that
        // the golden file pins the values and the format of a write-back.
        .arg("--force-write")
        .args(flags)
        .output()
        .expect("run tuner spsa");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tuner spsa failed:\n{stderr}");
    let run = dir.join("run");
    let mut differences = vec![
        check(case, "stdout.txt", &String::from_utf8_lossy(&out.stdout)),
        check(case, "plan.txt", &plan_lines(&stderr)),
        check(case, "search.json", &read(&dir, "search.json")),
    ];
    for file in files {
        differences.push(check(case, file, &blank_nonce(&read(&run, file))));
    }
    assert_all_same(differences);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A search parameter missing from the golden start would take its value from
/// `params/search.json` as built, which the main job rewrites: the golden runs would
/// then change with every tune. A new search parameter therefore joins the start file
/// (at its start value) and the golden copies are written again.
#[test]
fn the_golden_start_names_every_search_parameter() {
    let load = |path: PathBuf| ParamFile::load(&path).unwrap();
    let golden = load(golden_path("", "search.start.json"));
    let golden = golden.names();
    let current = load(workspace_root().join("params/search.json"));
    let missing: Vec<&str> = current
        .names()
        .into_iter()
        .filter(|name| !golden.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/data/golden/search.start.json lacks {}: add each from params/search.json \
         and write the golden copies again (GOLDEN_WRITE=1)",
        missing.join(", ")
    );
}

const RUN_FILES: &[&str] = &[
    "spsa.jsonl",
    "spsa.checkpoint.json",
    "spsa.csv",
    "spsa.result.json",
];

#[test]
fn spsa_under_fishtests_rules_is_unchanged() {
    spsa_case(
        "spsa-fishtest",
        str::to_string,
        &["--rules", "fishtest"],
        RUN_FILES,
    );
}

#[test]
fn spsa_under_openbenchs_rules_is_unchanged() {
    spsa_case(
        "spsa-openbench",
        str::to_string,
        &["--rules", "openbench"],
        RUN_FILES,
    );
}

#[test]
fn spsa_with_the_files_gains_is_unchanged() {
    spsa_case("spsa-occam", str::to_string, &[], RUN_FILES);
}

#[test]
fn spsa_playing_the_design_with_its_probe_is_unchanged() {
    let files: Vec<&str> = RUN_FILES
        .iter()
        .copied()
        .chain(["spsa.probe.json"])
        .collect();
    spsa_case(
        "spsa-design",
        without_gains,
        &["--probe-pairs", "2"],
        &files,
    );
}

/// What `tuner simulate` printed, without the line that says how long it took.
fn simulate(args: &[&str]) -> String {
    let out = Command::new(binary("tuner"))
        .arg("simulate")
        .args(args)
        .args(["--seed", "1", "--threads", "2"])
        .output()
        .expect("run tuner simulate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tuner simulate failed:\n{stderr}");
    let took = regex::Regex::new(r"^\(\d+ s\)$").unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !took.is_match(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `tuner simulate` of every rule set at one budget with gain pairs, a few seeds each,
/// and one sweep for the games needed.
#[test]
fn simulate_of_every_rule_set_is_unchanged() {
    let rules = [
        "fishtest",
        "autoselect",
        "openbench",
        "occam",
        "constant",
        "design",
    ];
    let mut differences = vec![];
    for rule in rules {
        let text = simulate(&[
            "--rules",
            rule,
            "--params",
            "4",
            "--games",
            "6000",
            "--seeds",
            "16",
            "--gain-every",
            "4",
        ]);
        differences.push(check("simulate", &format!("{rule}.txt"), &text));
    }
    let sweep = simulate(&[
        "--rules",
        "design",
        "--params",
        "2",
        "--precision",
        "1.5",
        "--coarse-seeds",
        "8",
        "--seeds",
        "16",
        "--resolution",
        "1.5",
        "--max-games",
        "200000",
    ]);
    differences.push(check("simulate", "design-sweep.txt", &sweep));
    assert_all_same(differences);
}
