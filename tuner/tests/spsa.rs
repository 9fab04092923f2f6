//! `tuner spsa` through the real binary: a tiny tune writes a valid file that differs
//! only in `value`s, runs are reproducible, a killed run resumes, and bad input leaves
//! every file untouched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::sorted_book::{sorted_boards, sorted_epd};
use common::{failed, fresh_dir, param_values, root, succeeded, tuner, tuner_in, words};

const TUNER: &str = env!("CARGO_BIN_EXE_tuner");

/// A scratch directory holding a copy of params/search.json.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir("spsa", name);
    let file = dir.join("search.json");
    std::fs::copy(root().join("params/search.json"), &file).unwrap();
    (dir, file)
}

fn two_params() -> String {
    // Two parameters that certainly exist: the first two of the file.
    let text = std::fs::read_to_string(root().join("params/search.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = json["params"]
        .as_array()
        .unwrap()
        .iter()
        .take(2)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.join(",")
}

/// `spsa` of the first two parameters ([`two_params`]) with the words of `line`,
/// then `rest` as given (paths).
fn spsa_two(file: &Path, line: &str, rest: &[&str]) -> Output {
    let params = two_params();
    let mut args = vec!["--params", params.as_str()];
    args.extend(words(line));
    args.extend_from_slice(rest);
    spsa(file, &args)
}

/// `spsa FILE` with the short games of these tests.
fn spsa_command(file: &Path) -> Vec<&str> {
    let mut args = vec!["spsa", file.to_str().unwrap()];
    args.extend(words("--nodes 300 --max-plies 80"));
    args
}

fn spsa(file: &Path, extra: &[&str]) -> Output {
    let mut args = spsa_command(file);
    args.extend_from_slice(extra);
    tuner_in(file.parent().unwrap(), &args)
}

/// The file with every `"value": N` blanked, to compare everything but the values.
fn without_values(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("\"value\":") {
        out.push_str(&rest[..i + 8]);
        rest = rest[i + 8..]
            .trim_start_matches([' ', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        out.push_str(" _");
    }
    out.push_str(rest);
    out
}

#[test]
fn a_tiny_tune_changes_only_values_and_leaves_a_journal_and_table() {
    let (dir, file) = scratch("tiny");
    let before = std::fs::read_to_string(&file).unwrap();
    let params = two_params();
    let out = spsa(
        &file,
        &words(&format!(
            "--pairs 8 --params {params} --output last --threads 2"
        )),
    );
    succeeded(&out);
    let after = std::fs::read_to_string(&file).unwrap();
    assert_eq!(without_values(&before), without_values(&after));
    let (b, a) = (param_values(&before), param_values(&after));
    let tuned: Vec<&str> = params.split(',').collect();
    for ((name, vb), (_, va)) in b.iter().zip(&a) {
        if !tuned.contains(&name.as_str()) {
            assert_eq!(vb, va, "{name} was not tuned but changed");
        }
    }
    for ext in [
        "spsa.jsonl",
        "spsa.checkpoint.json",
        "spsa.csv",
        "spsa.result.json",
    ] {
        assert!(dir.join(format!("runs/search.{ext}")).exists(), "{ext}");
    }
    let csv = std::fs::read_to_string(dir.join("runs/search.spsa.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("8 pairs"), "{table}");
    // The plot of the run.
    let plot = tuner(&["plot", dir.join("runs/search.spsa.jsonl").to_str().unwrap()]);
    succeeded(&plot);
    let svg = std::fs::read_to_string(dir.join("runs/search.spsa.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains(tuned[0]));
    // Axes say pairs and the parameter's unit; the key names the averaging window.
    assert!(
        svg.contains("\npairs\n") && svg.contains("\ncentipawns\n"),
        "{svg}"
    );
    assert!(svg.contains("average over pairs 7..8"), "{svg}");
    let scaled = dir.join("scaled.svg");
    let plot = tuner(&[
        "plot",
        dir.join("runs/search.spsa.jsonl").to_str().unwrap(),
        "--scale",
        "c-end",
        "-o",
        scaled.to_str().unwrap(),
    ]);
    succeeded(&plot);
    let svg = std::fs::read_to_string(&scaled).unwrap();
    assert!(
        svg.contains("/ c_end\n") && !svg.contains("\ncentipawns\n"),
        "{svg}"
    );
    // --top 1 draws only the parameter that moved most in units of its c_end.
    let (theta, _) = journal_pairs(&dir).pop().unwrap();
    let json: serde_json::Value = serde_json::from_str(&before).unwrap();
    let moved = |i: usize| {
        let (start, c_end) = (b[i].1 as f64, json["params"][i]["c_end"].as_f64().unwrap());
        ((theta[i] - start) / c_end).abs()
    };
    let (most, least) = if moved(0) >= moved(1) { (0, 1) } else { (1, 0) };
    let top = dir.join("top.svg");
    let plot = tuner(&[
        "plot",
        dir.join("runs/search.spsa.jsonl").to_str().unwrap(),
        "--top",
        "1",
        "-o",
        top.to_str().unwrap(),
    ]);
    assert!(succeeded(&plot).contains("1 of 2 parameters"));
    let svg = std::fs::read_to_string(&top).unwrap();
    // One chart; when the two moved by different amounts, the one that moved more.
    assert!(
        svg.contains(tuned[0]) != svg.contains(tuned[1]),
        "{theta:?}"
    );
    if moved(most) > moved(least) {
        assert!(svg.contains(tuned[most]), "{theta:?}");
    }
    // A second run refuses to clobber the journal without --restart.
    let again = spsa(&file, &["--pairs", "8", "--params", &params]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_thread_at_fixed_nodes_is_reproducible() {
    let run = |name: &str| {
        let (dir, file) = scratch(name);
        succeeded(&spsa_two(
            &file,
            "--pairs 6 --threads 1 --seed 9 --output last",
            &[],
        ));
        let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        journal
            .lines()
            .skip(1)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let (a, b) = (run("det-a"), run("det-b"));
    assert_eq!(a.len(), 6);
    assert_eq!(a, b);
}

#[test]
fn a_killed_run_resumes_and_finishes() {
    let (dir, file) = scratch("kill");
    let before = std::fs::read_to_string(&file).unwrap();
    let params = two_params();
    let journal = dir.join("runs/search.spsa.jsonl");
    let mut child = Command::new(TUNER)
        .current_dir(&dir)
        .args(spsa_command(&file))
        .args(["--pairs", "400", "--params", &params, "--threads", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count());
        if lines > 6 || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done_at_kill = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!(done_at_kill >= 5, "{done_at_kill}");
    // Nothing was written to the parameter file by the killed run.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    succeeded(&spsa(
        &file,
        &["--resume", "--pairs", "400", "--params", &params],
    ));
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(
        text.lines().count(),
        401,
        "header + every planned pair exactly once"
    );
    let mut ks: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["k"]
                .as_u64()
                .unwrap()
        })
        .collect();
    ks.sort();
    assert_eq!(ks, (1..=400).collect::<Vec<_>>());
    param_values(&std::fs::read_to_string(&file).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Once, a checkpoint left behind by an earlier run (its journal removed by hand)
/// was adopted by `--resume` of a later run without a word. It is refused, and the
/// parameter file is left alone.
#[test]
fn resume_refuses_a_checkpoint_of_another_run() {
    let (dir, file) = scratch("stale");
    let journal = dir.join("runs/search.spsa.jsonl");
    let checkpoint = dir.join("runs/search.spsa.checkpoint.json");
    let run = "--pairs 4 --threads 1 --no-write";
    succeeded(&spsa_two(&file, run, &[]));
    let stale = std::fs::read_to_string(&checkpoint).unwrap();
    std::fs::remove_file(&journal).unwrap();
    succeeded(&spsa_two(&file, run, &[]));
    // The second run is killed before its own checkpoint replaces the old one.
    std::fs::write(&checkpoint, &stale).unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    let err = failed(&spsa_two(&file, run, &["--resume"]));
    assert!(
        err.contains("another run"),
        "a stale checkpoint was adopted: {err}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // Once it is removed, the journal alone replays the run.
    std::fs::remove_file(&checkpoint).unwrap();
    succeeded(&spsa_two(&file, run, &["--resume"]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Once, `--restart` overwrote an earlier `*.jsonl.old`. Every earlier run's files
/// are kept, numbered; the newest run owns the plain names.
#[test]
fn restart_keeps_every_earlier_run() {
    let (dir, file) = scratch("restart");
    let mut journals = Vec::new();
    for seed in ["1", "2", "3"] {
        let restart = if seed == "1" { "" } else { "--restart" };
        let line = format!("--pairs 2 --threads 1 --seed {seed} {restart}");
        succeeded(&spsa_two(&file, &line, &[]));
        journals.push(std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap());
    }
    for (n, journal) in journals[..2].iter().enumerate() {
        let old = |ext: &str| dir.join(format!("runs/search.spsa.{ext}.old.{}", n + 1));
        assert_eq!(&std::fs::read_to_string(old("jsonl")).unwrap(), journal);
        for ext in ["checkpoint.json", "csv", "result.json"] {
            assert!(old(ext).exists(), "{ext}.old.{}", n + 1);
        }
    }
    assert!(!dir.join("runs/search.spsa.jsonl.old.3").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Once, with a book, SPSA played the first min(pairs, 2000) positions in file
/// order, so a sorted book gave a skewed sample. The pairs now draw from the whole book,
/// shuffled by --seed.
#[test]
fn spsa_samples_the_whole_book_at_random() {
    let (dir, file) = scratch("book");
    let boards = sorted_boards();
    let book = dir.join("sorted.epd");
    std::fs::write(&book, sorted_epd()).unwrap();
    let pgn = dir.join("games.pgn");
    let (book, pgn) = (book.to_str().unwrap(), pgn.to_str().unwrap());
    succeeded(&spsa_two(
        &file,
        "--pairs 4 --threads 1",
        &["--book", book, "--pgn", pgn],
    ));
    let text = std::fs::read_to_string(pgn).unwrap();
    let started: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[FEN \""))
        .map(|fen| fen.split(' ').next().unwrap())
        .collect();
    assert_eq!(started.len(), 8, "{text}");
    let index = |b: &str| boards.iter().position(|x| x == b).expect("a book position");
    let used: Vec<usize> = started.iter().map(|b| index(b)).collect();
    assert!(
        used.iter().any(|&i| i >= 4),
        "4 pairs played only the first 4 positions of the file: {used:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The direction of tuning through the binary: a queen valued at 100 centipawns (in a
/// copy of params/eval.json) is worth far more, so SPSA must raise it within a short
/// run. Swapping θ+ and θ− in spsa/mod.rs, or the colours when a pair is scored, drives
/// it to 0 instead (checked when this test was written).
#[test]
fn a_detuned_queen_value_moves_towards_its_worth() {
    let dir = fresh_dir("spsa", "direction");
    let text = std::fs::read_to_string(root().join("params/eval.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tuned = ["material_queen_mg", "material_queen_eg"];
    for entry in doc["params"].as_array_mut().unwrap() {
        if tuned.contains(&entry["name"].as_str().unwrap()) {
            // Far from its worth, and gains large enough to cross the gap in 200 pairs.
            entry["value"] = serde_json::json!(100);
            entry["c_end"] = serde_json::json!(150);
            entry["r_end"] = serde_json::json!(0.02);
        }
    }
    let file = dir.join("eval.json");
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let out = spsa(
        &file,
        &words(&format!(
            "--params {} --pairs 200 --threads 2 --seed 1",
            tuned.join(",")
        )),
    );
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let after = param_values(&std::fs::read_to_string(&file).unwrap());
    for name in tuned {
        let (_, v) = after.iter().find(|(n, _)| n == name).unwrap();
        // A run in the wrong direction ends at the bound 0; the right one well above
        // the start (the endgame value least: 215 to 400 over repeated runs, as the
        // correction history makes up part of a misjudged queen).
        assert!(
            *v >= 150,
            "{name}: 100 -> {v}, expected a clear rise\n{}\n{log}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_named_and_nothing_is_written() {
    let (dir, file) = scratch("bad");
    let before = std::fs::read_to_string(&file).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--params", "no_such_param"], "no_such_param"),
        (vec!["--params", "nope_*"], "nope_*"),
        (vec!["--pairs", "0"], "--pairs"),
        (vec!["--resume"], "without --resume"),
        (vec!["--average-fraction", "0"], "--average-fraction"),
        // Refused before the tune, not after it (elo1=400 gave a NaN LLR).
        (
            vec![
                "--pairs",
                "2",
                "--verify",
                "--verify-sprt",
                "elo0=0",
                "elo1=400",
            ],
            "must lie within",
        ),
    ];
    for (extra, needle) in cases {
        let out = spsa(&file, &extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?}");
        assert!(err.contains(needle), "{extra:?}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
        assert!(
            !dir.join("runs/search.spsa.jsonl").exists(),
            "{extra:?} left a journal"
        );
    }
    let out = tuner_in(&dir, &["spsa", file.to_str().unwrap(), "--tc", "fast"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("'fast'"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert!(!dir.join("runs/search.spsa.jsonl").exists());
    // A broken file: the schema violation is named, the file is left as it was.
    let broken = before.replacen("\"min\":", "\"minimum\":", 1);
    std::fs::write(&file, &broken).unwrap();
    let out = spsa(&file, &["--pairs", "2"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("min"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
    let out = spsa(&dir.join("missing.json"), &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verify_gates_the_frozen_header_on_the_sprt() {
    let (dir, file) = scratch("verify");
    // Two verification pairs cannot reach a decision: the tune is kept in the file,
    // but no header is written and the exit status says so.
    let out = spsa_two(
        &file,
        "--pairs 4 --verify --verify-pairs 2 --force-write",
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("did not accept H1"), "{err}");
    assert!(!dir.join("runs/search.verified.rs").exists());
    assert!(dir.join("runs/search.spsa.result.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_gate_keeps_the_start_unless_the_gain_pairs_show_a_gain() {
    let (dir, file) = scratch("gate");
    let before = std::fs::read_to_string(&file).unwrap();
    // Four pairs play no gain pair: nothing shows the result better than the start.
    let out = spsa_two(&file, "--pairs 4 --verify", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("kept the start values") && err.contains("--force-write"),
        "{err}"
    );
    assert!(err.contains("nothing to verify"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert!(dir.join("runs/search.spsa.result.json").exists());
    // --finish follows the same rule; --force-write writes the result anyway.
    let out = spsa_two(&file, "--pairs 4 --finish", &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept the start values"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let out = spsa_two(&file, "--pairs 4 --finish --force-write", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("wrote ") && err.contains("(--force-write)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The names in `config.params` of a run's result file, and its `left_out` names.
fn tuned_and_left_out(dir: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(dir.join("runs/search.spsa.result.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|p| p["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    (
        names(&json["config"]["params"]),
        names(&json["result"]["left_out"]),
    )
}

/// The clock-only parameters of params/search.json (`"measured_by": "clock"`).
fn clock_only() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("params/search.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["params"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["measured_by"] == "clock")
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fixed_node_games_leave_the_clock_only_parameters_out() {
    let clock = clock_only();
    assert!(
        clock.len() >= 7 && clock.iter().all(|n| n.starts_with("tm_")),
        "{clock:?}"
    );
    let (dir, file) = scratch("clockless");
    let before = param_values(&std::fs::read_to_string(&file).unwrap());
    // The README's main job, on the whole file, at fixed nodes.
    let out = spsa(&file, &["--pairs", "1", "--threads", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("clock-only")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(
        notes[0].contains(&format!("leaving out {}", clock.len()))
            && notes[0].contains("tm_soft_pct")
    );
    let (tuned, left_out) = tuned_and_left_out(&dir);
    assert!(!tuned.iter().any(|n| clock.contains(n)), "{tuned:?}");
    assert_eq!(tuned.len(), before.len() - clock.len());
    assert_eq!(left_out, clock);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("left out (not tuned, values kept): tm_") && table.contains("clock-only"),
        "{table}"
    );
    let after = param_values(&std::fs::read_to_string(&file).unwrap());
    for ((name, vb), (_, va)) in before.iter().zip(&after) {
        if clock.contains(name) {
            assert_eq!(vb, va, "{name} is clock-only but changed");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn include_clock_params_forces_them_in_with_a_warning() {
    let (dir, file) = scratch("forceclock");
    let out = spsa(
        &file,
        &words("--pairs 1 --threads 1 --params rfp_margin,tm_* --include-clock-params"),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: --include-clock-params") && l.contains("random-walk")),
        "{err}"
    );
    let (tuned, left_out) = tuned_and_left_out(&dir);
    let mut expected = vec!["rfp_margin".to_string()];
    expected.extend(clock_only());
    assert_eq!(tuned, expected);
    assert!(left_out.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_clock_parameters_in_clockless_games_is_refused() {
    let (dir, file) = scratch("onlyclock");
    let before = std::fs::read_to_string(&file).unwrap();
    for games in [&["--nodes", "300"][..], &["--movetime", "5"][..]] {
        let mut args = vec!["spsa", file.to_str().unwrap(), "--params", "tm_*"];
        args.extend_from_slice(games);
        let out = tuner_in(&dir, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{games:?}");
        assert!(
            err.contains("clock-only") && err.contains("--tc") && err.contains("tm_inc_pct"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
        assert!(!dir.join("runs/search.spsa.jsonl").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every pair of the run journal in `dir`, in order: θ after it and its pentanomial index.
fn journal_pairs(dir: &Path) -> Vec<(Vec<f64>, u64)> {
    let text = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["type"] == "pair")
        .map(|pair| {
            let theta = pair["theta"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_f64().unwrap())
                .collect();
            (theta, pair["penta"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn r_end_sets_the_rate_of_the_run_not_of_the_file() {
    let (dir, file) = scratch("rend");
    let before = std::fs::read_to_string(&file).unwrap();
    let start: Vec<f64> = param_values(&before)
        .iter()
        .take(2)
        .map(|(_, v)| *v as f64)
        .collect();
    // The first pair that is not level moves θ by a step proportional to r_end: find one
    // at the file's rate, then play the same pair (same seed) at ten times the rate.
    // One pair from `seed` at rate `r_end`, started over; its θ and pentanomial index.
    let one_pair = |r_end: &str, seed: &str, extra: &str| {
        let line = format!("--pairs 1 --threads 1 --restart {extra} --r-end {r_end} --seed");
        let err = succeeded(&spsa_two(&file, &line, &[seed]));
        assert!(err.contains(&format!("r_end {r_end},")), "{err}");
        journal_pairs(&dir).remove(0)
    };
    let (seed, slow) = (1..=40)
        .map(|seed| seed.to_string())
        .find_map(|seed| match one_pair("0.002", &seed, "--no-write") {
            (theta, penta) if penta != 2 => Some((seed, theta)),
            _ => None,
        })
        .expect("40 seeds without a decisive first pair");
    let (fast, _) = one_pair("0.02", &seed, "");
    for i in 0..2 {
        let (d_slow, d_fast) = (slow[i] - start[i], fast[i] - start[i]);
        assert!(d_slow != 0.0, "{slow:?}");
        assert!((d_fast - 10.0 * d_slow).abs() < 1e-9, "{slow:?} {fast:?}");
    }
    // The run records its rate; the file keeps its own r_end (only values may change).
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs/search.spsa.result.json")).unwrap(),
    )
    .unwrap();
    for p in result["config"]["params"].as_array().unwrap() {
        assert_eq!(p["r_end"].as_f64(), Some(0.02), "{p}");
    }
    let after = std::fs::read_to_string(&file).unwrap();
    assert_eq!(without_values(&after), without_values(&before));
    // A resumed run keeps the rate it was started with, and says so.
    let out = spsa_two(
        &file,
        "--pairs 1 --threads 1 --resume --r-end 0.5 --seed",
        &[&seed],
    );
    let err = succeeded(&out);
    assert!(
        err.contains("r_end 0.02); other flags are ignored"),
        "{err}"
    );
    // Bad rates are refused before anything is touched.
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    for bad in ["0", "-0.01", "nan", "inf", "fast"] {
        let out = spsa_two(&file, "--pairs 1 --threads 1 --restart --r-end", &[bad]);
        let err = failed(&out);
        assert!(err.contains("--r-end"), "{bad}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
        assert_eq!(
            std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap(),
            journal
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// C = 800/ln 10: Elo per unit of score near an even score.
const ELO_PER_SCORE: f64 = 800.0 / std::f64::consts::LN_10;

/// The r for n parameters before any game is measured whose noise ball in θ itself is
/// 0.5 Elo, 8·0.5/(C·χ²₀.₉₅(n)·0.39), with the quantile from the tables: what an
/// OpenBench export is given (a designed run of Occam, which averages, plays 1.2 × it).
fn designed_r(chi_squared_95: f64) -> f64 {
    8.0 * 0.5 / (ELO_PER_SCORE * chi_squared_95 * 0.39)
}

/// The largest r the design plays in a run too short for its precision.
const SHORT_RUN_R_MAX: f64 = 0.02;

/// χ²₀.₉₅ for 4 degrees of freedom, and for as many as params/search.json has
/// parameters (`SEARCH_PARAMS`; a parameter added there changes both).
const CHI2_4: f64 = 9.487729;
const SEARCH_PARAMS: usize = 111;
const CHI2_SEARCH: f64 = 136.591071;

/// A scratch copy of params/search.json whose first two parameters leave `c_end` and
/// `r_end` out (the zero-configuration form); their names, and the next two's.
fn designed_scratch(name: &str) -> (PathBuf, PathBuf, Vec<String>) {
    let (dir, file) = scratch(name);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut stripped = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if stripped < 2 && line.contains("\"c_end\"") {
                stripped += 1;
                let json: serde_json::Value =
                    serde_json::from_str(line.trim().trim_end_matches(',')).unwrap();
                let ends = format!(
                    ", \"c_end\": {}, \"r_end\": {}",
                    json["c_end"], json["r_end"]
                );
                assert!(line.contains(&ends), "{line}");
                line.replacen(&ends, "", 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    std::fs::write(&file, &out).unwrap();
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names = json["params"].as_array().unwrap()[..4]
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    (dir, file, names)
}

/// The entry of `name` in an Occam parameter file's text.
fn entry<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()
}

#[test]
fn a_file_without_c_end_and_r_end_plays_the_design_and_prints_its_plan() {
    let (dir, file, names) = designed_scratch("designed");
    let before = std::fs::read_to_string(&file).unwrap();
    let file_json: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert!(entry(&file_json, &names[0]).get("c_end").is_none());
    let params = names.join(",");
    let out = spsa(
        &file,
        &words(&format!("--pairs 4 --threads 1 --params {params}")),
    );
    let all = succeeded(&out);
    // The plan: constant gains, each parameter's c and r and where they come from, and
    // the games the design expects beside the planned 8.
    assert!(
        all.contains("spsa: plan: constant gains")
            && all.contains("θ averaged over the run, θ after pair k weighted by k^2"),
        "{all}"
    );
    let row = |name: &str| {
        all.lines()
            .find(|l| l.starts_with(&format!("spsa:   {name} ")))
            .unwrap_or_else(|| panic!("no plan row for {name}: {all}"))
            .to_string()
    };
    for name in &names[..2] {
        assert!(row(name).ends_with("(designed)"), "{}", row(name));
    }
    for name in &names[2..] {
        assert!(row(name).ends_with("(file)"), "{}", row(name));
    }
    assert!(
        all.contains("shrinks by e over this run's 8 games (at most 0.02)"),
        "{all}"
    );
    assert!(
        all.contains("spsa: planned 8 games; the design expects about ")
            && all.contains(" games to end within 0.5 Elo of the optimum of a quadratic landscape"),
        "{all}"
    );
    // The journal's header: a constant schedule, the designed c and r for the two
    // parameters without them, the file's for the others, every θ averaged with
    // weights k² (gain pairs in the last half).
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(header["designed"], true, "{header}");
    assert_eq!(header["average_fraction"], 0.5, "{header}");
    assert_eq!(header["average_power"], 2.0, "{header}");
    for key in ["alpha", "gamma", "big_a"] {
        assert_eq!(header["hyper"][key].as_f64(), Some(0.0), "{header}");
    }
    let tuned = header["params"].as_array().unwrap();
    assert_eq!(tuned.len(), 4, "{header}");
    for (p, name) in tuned.iter().zip(&names) {
        assert_eq!(&p["name"], name.as_str());
        let e = entry(&file_json, name);
        let (c, r) = (p["c_end"].as_f64().unwrap(), p["r_end"].as_f64().unwrap());
        if e.get("c_end").is_none() {
            let range = (e["max"].as_f64().unwrap() - e["min"].as_f64().unwrap()) / 4.0;
            assert_eq!(c, range, "{name}: a quarter of the range");
            // 8 games are far too few for 0.5 Elo of noise (r {designed_r(CHI2_4)}): the
            // short run's r, at its largest.
            assert!(r > designed_r(CHI2_4));
            assert_eq!(r, SHORT_RUN_R_MAX, "{name}");
        } else {
            assert_eq!(
                (c, r),
                (e["c_end"].as_f64().unwrap(), e["r_end"].as_f64().unwrap())
            );
        }
    }
    // Only values changed: the absent fields stay absent, the given ones as they were.
    let after = std::fs::read_to_string(&file).unwrap();
    assert_eq!(without_values(&after), without_values(&before));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_that_gives_every_c_end_and_r_end_keeps_the_decaying_schedule() {
    let (dir, file) = scratch("decaying");
    let all = succeeded(&spsa_two(&file, "--pairs 2 --threads 1 --no-write", &[]));
    assert!(
        all.contains("spsa: plan: fishtest's decaying gains")
            && all.contains("last 25% of the pairs"),
        "{all}"
    );
    assert!(
        !all.contains("designed") && !all.contains("the design expects"),
        "{all}"
    );
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    let header = journal.lines().next().unwrap();
    // The header is what it was before runs could be designed: no `designed` key.
    assert!(!header.contains("designed"), "{header}");
    let header: serde_json::Value = serde_json::from_str(header).unwrap();
    assert_eq!(header["hyper"]["alpha"], 0.602);
    assert_eq!(header["average_fraction"], 0.25);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_designed_run_probes_the_cost_of_its_perturbation_first_and_keeps_the_stages() {
    let (dir, file, names) = designed_scratch("probe");
    let params = names.join(",");
    // --no-write: the runs below start from the same values.
    let command = format!("--pairs 30 --probe-pairs 4 --threads 1 --no-write --params {params}");
    let out = spsa(&file, &words(&command));
    let all = succeeded(&out);
    for stage in 1..=3 {
        assert!(
            all.contains(&format!("spsa: probe stage {stage}/3: 4 pairs")),
            "{all}"
        );
    }
    assert!(all.contains("the perturbation costs"), "{all}");
    // The plan names the probe's factor; the tune plays the 18 pairs the probe left.
    let plan = all.lines().find(|l| l.starts_with("spsa: plan:")).unwrap();
    let factor: f64 = plan
        .split(" times ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|f| f.parse().ok())
        .unwrap_or_else(|| panic!("no probe factor in the plan: {plan}"));
    assert!(factor > 0.0 && factor <= 1.0, "{plan}");
    assert!(plan.contains("as a probe of 12 pairs found"), "{plan}");
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(header["hyper"]["pairs"], 18);
    assert_eq!(journal.lines().count(), 1 + 18);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for p in header["params"].as_array().unwrap() {
        let e = entry(&json, p["name"].as_str().unwrap());
        if e.get("c_end").is_none() {
            let quarter = (e["max"].as_f64().unwrap() - e["min"].as_f64().unwrap()) / 4.0;
            let c = p["c_end"].as_f64().unwrap();
            assert!((c / (quarter * factor) - 1.0).abs() < 2e-3, "{p}: {factor}");
        }
    }
    // The stages are kept beside the journal; a run that lost its journal after the
    // probe (stopped before its first pair) plays no stage again.
    let probe = dir.join("runs/search.spsa.probe.json");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&probe).unwrap()).unwrap();
    assert_eq!(record["stages"].as_array().unwrap().len(), 3);
    std::fs::remove_file(dir.join("runs/search.spsa.jsonl")).unwrap();
    let out = spsa(&file, &words(&command));
    let again = succeeded(&out);
    assert_eq!(again.matches("kept from").count(), 3, "{again}");
    assert!(!again.contains("4 pairs, the start against"), "{again}");
    // --restart moves the run aside, its probe with it, and probes again.
    let out = spsa(&file, &words(&format!("{command} --seed 9 --restart")));
    let restarted = succeeded(&out);
    assert!(
        restarted.contains("probe stage 1/3: 4 pairs"),
        "{restarted}"
    );
    assert!(dir.join("runs/search.spsa.probe.json.old.1").exists());
    // Too many probe pairs for the run are refused before anything is played.
    let out = spsa(&file, &words("--pairs 30 --probe-pairs 10 --threads 1"));
    let err = failed(&out);
    assert!(
        err.contains("--probe-pairs 10") && err.contains("30 pairs"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn until_plans_the_pairs_by_a_precision_and_needs_the_design() {
    let (dir, file, names) = designed_scratch("until");
    let params = names.join(",");
    // 4 parameters within 1000 Elo: 167,492/(2000·1.2) games, 69.8, so 35 pairs (none
    // to probe).
    let out = spsa(
        &file,
        &words(&format!(
            "--until 1000 --threads 1 --no-write --params {params}"
        )),
    );
    let all = succeeded(&out);
    assert!(all.contains("spsa: planned 70 games"), "{all}");
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1 + 35);
    // Not with --pairs, and not for a run whose parameters give c_end and r_end.
    let err = failed(&spsa(&file, &words("--until 1 --pairs 50 --restart")));
    assert!(err.contains("--until") && err.contains("--pairs"), "{err}");
    let given = names[2..].join(",");
    let err = failed(&spsa(
        &file,
        &words(&format!("--until 1 --restart --params {given}")),
    ));
    assert!(
        err.contains("every parameter of this run gives both"),
        "{err}"
    );
    let err = failed(&spsa(&file, &words("--until 0 --restart")));
    assert!(err.contains("--until takes a precision"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_estimates_its_gain_with_pairs_of_the_average_against_the_start() {
    let (dir, file, names) = designed_scratch("gain");
    let params = names.join(",");
    // 60 pairs, the last 30 averaged, one gain pair per 2 of them: 15.
    let out = spsa(
        &file,
        &words(&format!(
            "--pairs 60 --probe-pairs 0 --gain-every 2 --threads 1 --no-write --params {params}"
        )),
    );
    let all = succeeded(&out);
    let line = all
        .lines()
        .find(|l| l.starts_with("spsa: gain "))
        .unwrap_or_else(|| panic!("no gain line: {all}"));
    assert!(
        line.contains("Elo (95%, 15 pairs of the average against the start)"),
        "{line}"
    );
    // They are not SPSA pairs: the journal holds the 60, and θ moved as without them.
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1 + 60);
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs/search.spsa.result.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(result["gain"]["pairs"], 15);
    let without = spsa(
        &file,
        &words(&format!(
            "--pairs 60 --probe-pairs 0 --gain-every 0 --threads 1 --no-write --restart --params {params}"
        )),
    );
    assert!(!succeeded(&without).contains("spsa: gain "));
    let again = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    let pairs = |j: &str| j.lines().skip(1).map(String::from).collect::<Vec<_>>();
    assert_eq!(pairs(&journal), pairs(&again));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--rules fishtest` in real games: fishtest's gains from the files' c_end and r_end,
/// Stockfish's TUNE defaults where a file leaves them out (no design, no probe), each
/// side clipped and rounded on its own, steps divided by the nominal c_k, and the last
/// θ written. A resume must give the run's own rules.
#[test]
fn fishtest_rules_play_fishtests_steps_and_write_the_last_theta() {
    let (dir, file, names) = designed_scratch("fishtest");
    let params = names.join(",");
    let command = format!("--rules fishtest --pairs 6 --threads 1 --seed 3 --params {params}");
    let all = succeeded(&spsa(&file, &words(&command)));
    assert!(
        all.contains("spsa: plan: fishtest's rules (a baseline)")
            && all.contains("result: the last θ"),
        "{all}"
    );
    assert!(
        !all.contains("probe stage") && !all.contains("designed"),
        "{all}"
    );
    for (i, name) in names.iter().enumerate() {
        let source = if i < 2 { "(TUNE default)" } else { "(file)" };
        let row = format!("spsa:   {name} ");
        assert!(
            all.lines()
                .any(|l| l.starts_with(&row) && l.ends_with(source)),
            "{name} {source}: {all}"
        );
    }
    let journal = std::fs::read_to_string(dir.join("runs/search.spsa.jsonl")).unwrap();
    let mut lines = journal
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    let header = lines.next().unwrap();
    assert_eq!(header["rules"], "fishtest", "{header}");
    assert!(header.get("designed").is_none(), "{header}");
    let hyper = &header["hyper"];
    // A = ⌊0.1·6⌋ = 0, α = 0.602, γ = 0.101.
    assert_eq!(
        (&hyper["big_a"], &hyper["alpha"], &hyper["gamma"]),
        (&0.0.into(), &0.602.into(), &0.101.into())
    );
    let tuned = header["params"].as_array().unwrap();
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    for p in &tuned[..2] {
        let range = f(&p["max"]) - f(&p["min"]);
        assert_eq!(
            (f(&p["c_end"]), f(&p["r_end"])),
            (range / 20.0, 0.002),
            "{p}"
        );
    }
    // Replay every pair by fishtest's formulas: θ± = ⌊clip(θ ± c_k·flip) + U⌋ with U in
    // [0, 1), then θ ← clip(θ + a_k/c_k·(W − L)·flip) with the nominal c_k.
    let n = 6.0_f64;
    let mut theta: Vec<f64> = tuned.iter().map(|p| f(&p["start"])).collect();
    let pairs: Vec<serde_json::Value> = lines.collect();
    assert_eq!(pairs.len(), 6);
    for pair in &pairs {
        let k = pair["k"].as_u64().unwrap() as f64;
        let wins_minus_losses = pair["penta"].as_i64().unwrap() as f64 - 2.0;
        for (i, p) in tuned.iter().enumerate() {
            let (min, max) = (f(&p["min"]), f(&p["max"]));
            let (c_end, r_end) = (f(&p["c_end"]), f(&p["r_end"]));
            let c_k = c_end * n.powf(0.101) / k.powf(0.101);
            let a_k = r_end * c_end * c_end * n.powf(0.602) / k.powf(0.602);
            let flip = pair["flips"][i].as_f64().unwrap();
            for (side, sign) in [("plus", 1.0), ("minus", -1.0)] {
                let sent = (theta[i] + sign * c_k * flip).clamp(min, max);
                let rounded = f(&pair[side][i]) - sent.floor();
                assert!(
                    rounded == 0.0 || rounded == 1.0,
                    "{side} {i}: {pair} {sent}"
                );
            }
            theta[i] = (theta[i] + a_k / c_k * wins_minus_losses * flip).clamp(min, max);
            let recorded = f(&pair["theta"][i]);
            assert!((recorded - theta[i]).abs() < 1e-9, "{i}: {pair} {theta:?}");
            theta[i] = recorded;
        }
    }
    // The file holds the last θ, rounded, and so does the table.
    let written = param_values(&std::fs::read_to_string(&file).unwrap());
    for (name, last) in names.iter().zip(&theta) {
        let value = written.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(value, last.round() as i64, "{name}");
    }
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("runs/search.spsa.result.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(result["result"]["output"], "last");
    // Plot and export read the run and the file as any other.
    let plot = tuner(&["plot", dir.join("runs/search.spsa.jsonl").to_str().unwrap()]);
    succeeded(&plot);
    let svg = std::fs::read_to_string(dir.join("runs/search.spsa.svg")).unwrap();
    assert!(
        svg.contains("the last one written (fishtest&apos;s rules)"),
        "{svg}"
    );
    succeeded(&tuner_in(&dir, &["export", file.to_str().unwrap()]));
    // A resume with other rules is refused and writes nothing; with its own, it goes on.
    let after = std::fs::read_to_string(&file).unwrap();
    let resume = format!("--pairs 6 --threads 1 --seed 3 --params {params} --resume");
    for rules in ["", "--rules occam"] {
        let err = failed(&spsa(&file, &words(&format!("{resume} {rules}"))));
        assert!(
            err.contains("--resume must play the run's own rules: it was started with --rules fishtest, not --rules occam"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    let again = succeeded(&spsa(&file, &words(&format!("{resume} --rules fishtest"))));
    assert!(again.contains("6 of 6 pairs done"), "{again}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // The design's flags are refused before anything is played.
    let err = failed(&spsa(&file, &words("--rules fishtest --until 1 --restart")));
    assert!(
        err.contains("--rules fishtest cannot take --until"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_to_openbench_designs_the_c_end_and_r_end_a_file_leaves_out() {
    let (dir, file, names) = designed_scratch("export");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let rounded = |x: f64| -> f64 { format!("{x:.3e}").parse().unwrap() };
    {
        let args = ["export", file.to_str().unwrap(), "--format", "openbench"];
        let out = tuner_in(&dir, &args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        succeeded(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), json["params"].as_array().unwrap().len());
        assert_eq!(
            lines.len(),
            SEARCH_PARAMS,
            "update SEARCH_PARAMS and CHI2_SEARCH"
        );
        for (line, p) in lines.iter().zip(json["params"].as_array().unwrap()) {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            let (c, r): (f64, f64) = (fields[5].parse().unwrap(), fields[6].parse().unwrap());
            if names[..2].iter().any(|n| p["name"] == n.as_str()) {
                let range = (p["max"].as_f64().unwrap() - p["min"].as_f64().unwrap()) / 4.0;
                assert_eq!(c, rounded(range), "{line}");
                // r for all the parameters of the file.
                assert!(
                    (r / rounded(designed_r(CHI2_SEARCH)) - 1.0).abs() < 1e-3,
                    "{line}"
                );
            } else {
                assert_eq!(
                    (fields[5], fields[6]),
                    (
                        p["c_end"].to_string().as_str(),
                        p["r_end"].to_string().as_str()
                    ),
                    "{line}"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
