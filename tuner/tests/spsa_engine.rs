//! `tuner spsa --engine`: tuning an external UCI engine through the real binaries.
//! Occam over UCI and Occam in-process write the same journal; faults of the engine are
//! scored and the run goes on; a killed run resumes; parameter lists in every format are
//! checked against the engine and written back in their own format.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{failed, fresh_dir, occam_binary, root, text};

const TUNER: &str = env!("CARGO_BIN_EXE_tuner");

fn scratch(name: &str) -> PathBuf {
    fresh_dir("spsa-engine", name)
}

/// Runs the tuner in `dir`, where the run's files go (under `runs/`).
fn tuner(dir: &Path, args: &[String], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(TUNER);
    cmd.current_dir(dir).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// The pair lines of a journal (its header differs between runs: nonce, engine).
fn pairs(journal: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const TUNED: &str = "asp_delta,rfp_margin,lmr_base,fp_base";

/// The strongest evidence that both paths are one algorithm: with one thread, fixed
/// nodes and one seed, tuning Occam over UCI (`--engine cmd=occam`, θ± sent by
/// `setoption`, `ucinewgame` between games) and in-process give the same journal, θ
/// after every pair included.
#[test]
fn occam_over_uci_and_in_process_write_the_same_journal() {
    let dir = scratch("same");
    let common = strings(&[
        "--params",
        TUNED,
        "--threads",
        "1",
        "--nodes",
        "400",
        "--max-plies",
        "100",
        "--pairs",
        "12",
        "--seed",
        "5",
        "--output",
        "last",
    ]);
    let mut journals = Vec::new();
    for external in [false, true] {
        let sub = dir.join(if external { "uci" } else { "in-process" });
        std::fs::create_dir_all(&sub).unwrap();
        let file = sub.join("search.json");
        std::fs::copy(root().join("params/search.json"), &file).unwrap();
        let mut args = vec!["spsa".to_string(), file.display().to_string()];
        args.extend(common.clone());
        if external {
            args.extend([
                "--engine".into(),
                format!("cmd={}", occam_binary().display()),
            ]);
        }
        let out = tuner(&sub, &args, &[]);
        assert!(out.status.success(), "{}", text(&out));
        journals.push((
            pairs(&sub.join("runs/search.spsa.jsonl")),
            std::fs::read_to_string(&file).unwrap(),
        ));
    }
    let (in_process, uci) = (&journals[0], &journals[1]);
    assert_eq!(in_process.0.len(), 12);
    // Not a degenerate run: games were won and lost and θ moved.
    let pentas: Vec<u64> = in_process
        .0
        .iter()
        .map(|p| p["penta"].as_u64().unwrap())
        .collect();
    assert!(pentas.iter().any(|&p| p != 2), "{pentas:?}");
    for (a, b) in in_process.0.iter().zip(&uci.0) {
        assert_eq!(a, b, "pair {} differs", a["seq"]);
    }
    assert_eq!(in_process.1, uci.1, "the same values written back");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The fake engine relays to Occam and crashes, plays an illegal move, hangs and (on a
/// clock) loses on time at chosen moves: each fault is scored as the faulting side's
/// loss and reported, the engine is restarted with its θ, and the run finishes.
#[test]
fn engine_faults_are_scored_and_the_tune_goes_on() {
    let dir = scratch("faults");
    let file = dir.join("search.json");
    std::fs::copy(root().join("params/search.json"), &file).unwrap();
    let log = dir.join("fake.log");
    let script = root().join("scripts/fake_engine.py");
    let run = |faults: &str, limit: &[&str], pairs: &str| {
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_file(dir.join("runs/search.spsa.jsonl"));
        let mut args = vec![
            "spsa".to_string(),
            file.display().to_string(),
            "--engine".into(),
            format!("cmd={}", script.display()),
            format!("args=proxy {} {faults}", occam_binary().display()),
            "timeout=1".into(),
            "--restart".into(),
        ];
        args.extend(strings(&[
            "--params",
            TUNED,
            "--threads",
            "1",
            "--max-plies",
            "40",
            "--pairs",
            pairs,
        ]));
        args.extend(strings(limit));
        let out = tuner(&dir, &args, &[("FAKE_ENGINE_LOG", &log)]);
        let all = text(&out);
        assert!(out.status.success(), "{all}");
        assert_eq!(
            pairs_in(&dir.join("runs/search.spsa.jsonl")),
            pairs.parse::<usize>().unwrap(),
            "{all}"
        );
        let starts = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("start"))
            .count();
        (all, starts)
    };
    let (all, starts) = run("crash@3,illegal@12,hang@25", &["--nodes", "300"], "4");
    assert!(
        all.contains("crashed or stopped answering: exited"),
        "{all}"
    );
    assert!(all.contains("played an illegal move 'a1a1'"), "{all}");
    assert!(all.contains("no bestmove within 1.0 s"), "{all}");
    let counted: u64 = all
        .lines()
        .filter_map(|l| l.strip_prefix("spsa: faults of "))
        .map(|l| {
            l.split(": ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, 3, "{all}");
    // The probe, θ+ and θ−, and one restart after the crash and one after the hang.
    assert_eq!(starts, 5, "{all}");
    // One move sleeps past the whole clock; the clock is long enough that no other
    // move loses on time even on a loaded machine (at 1+0.01 a starved proxy did).
    let (all, _) = run("slow@2:4", &["--tc", "3+0.03"], "1");
    assert!(all.contains("lost on time"), "{all}");
    assert!(all.contains("time forfeit 1"), "{all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn pairs_in(journal: &Path) -> usize {
    std::fs::read_to_string(journal).map_or(0, |t| t.lines().count().saturating_sub(1))
}

/// kill -9 of an external-engine tune, then --resume: every planned pair exactly once,
/// the parameter file untouched until the end and then written.
#[test]
fn a_killed_external_tune_resumes_and_finishes() {
    let dir = scratch("kill");
    let list = dir.join("occam.spsa");
    // An OpenBench list of four of Occam's parameters.
    let all = Command::new(occam_binary())
        .args(["params", "quit"])
        .output()
        .unwrap();
    let lines: Vec<String> = String::from_utf8_lossy(&all.stdout)
        .lines()
        .filter(|l| TUNED.split(',').any(|n| l.starts_with(&format!("{n},"))))
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    let before = lines.join("\n");
    std::fs::write(&list, &before).unwrap();
    let journal = dir.join("runs/occam.spsa.jsonl");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "spsa".to_string(),
            "--engine".into(),
            format!("cmd={}", occam_binary().display()),
            "--params-file".into(),
            list.display().to_string(),
        ];
        a.extend(strings(&[
            "--nodes",
            "300",
            "--max-plies",
            "60",
            "--pairs",
            "100",
            "--threads",
            "2",
        ]));
        a.extend(strings(extra));
        a
    };
    let mut child = Command::new(TUNER)
        .current_dir(&dir)
        .args(args(&[]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while pairs_in(&journal) < 6 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = pairs_in(&journal);
    assert!((6..100).contains(&at_kill), "{at_kill}");
    assert_eq!(std::fs::read_to_string(&list).unwrap(), before);
    let out = tuner(&dir, &args(&["--resume"]), &[]);
    assert!(out.status.success(), "{}", text(&out));
    let mut ks: Vec<u64> = pairs(&journal)
        .iter()
        .map(|p| p["k"].as_u64().unwrap())
        .collect();
    ks.sort_unstable();
    assert_eq!(ks, (1..=100).collect::<Vec<_>>());
    // Written back as OpenBench text: only the value field of each line may change.
    let after = std::fs::read_to_string(&list).unwrap();
    assert!(!after.ends_with('\n'));
    for (a, b) in before.lines().zip(after.lines()) {
        let (fa, fb): (Vec<&str>, Vec<&str>) = (a.split(", ").collect(), b.split(", ").collect());
        assert_eq!(
            (fa.len(), &fa[..2], &fa[3..]),
            (fb.len(), &fb[..2], &fb[3..]),
            "{b}"
        );
        fb[2].parse::<i32>().unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Names the engine does not have and bounds beyond its spins are refused before any
/// game, in one message, and nothing is written. A weather-factory config is tuned and
/// written back in its own format; --verify plays the engine tuned against start.
#[test]
fn parameter_lists_are_checked_and_written_in_their_format() {
    let dir = scratch("lists");
    let engine = format!("cmd={}", occam_binary().display());
    // `tuner spsa FILE --engine cmd=occam` and the words of `line`.
    let tune = |file: &Path, line: &str| {
        let mut args = strings(&["spsa", file.to_str().unwrap(), "--engine", &engine]);
        args.extend(line.split_whitespace().map(String::from));
        tuner(&dir, &args, &[])
    };
    let bad = dir.join("bad.spsa");
    let text_bad = "asp_delta, int, 20, 5, 60, 2, 0.002\nNoSuchThing, int, 1, 0, 9, 1, 0.002\nrfp_margin, int, 80, -100000, 100, 5, 0.002";
    std::fs::write(&bad, text_bad).unwrap();
    let all = failed(&tune(&bad, "--pairs 2"));
    assert!(
        all.contains("'NoSuchThing' is not one of its options"),
        "{all}"
    );
    assert!(
        all.contains("'rfp_margin' may range over [-100000, 100]"),
        "{all}"
    );
    assert_eq!(all.matches("error:").count(), 1, "one message: {all}");
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), text_bad);
    assert!(!dir.join("runs/bad.spsa.jsonl").exists());

    let wf = dir.join("config.json");
    let config = "{\n    \"asp_delta\": {\"value\": 20, \"min_value\": 5, \"max_value\": 60, \"step\": 4},\n    \"lmr_base\": {\n        \"value\": 75,\n        \"min_value\": 0,\n        \"max_value\": 200,\n        \"step\": 10\n    }\n}\n";
    std::fs::write(&wf, config).unwrap();
    // Three pairs cannot accept H1: the verification fails after writing the values
    // (written whatever the write-back gate says, so that the format is checked).
    let all = failed(&tune(
        &wf,
        "option.Hash=4 --pairs 6 --nodes 300 --max-plies 60 --threads 2 --output last --verify --verify-pairs 3 --force-write",
    ));
    assert!(all.contains("Results of tuned vs start"), "{all}");
    assert!(all.contains("verification did not accept H1"), "{all}");
    let after = std::fs::read_to_string(&wf).unwrap();
    let json: serde_json::Value = serde_json::from_str(&after).unwrap();
    let value = |n: &str| json[n]["value"].as_i64().unwrap();
    // Only the two numbers may differ from the original text.
    let expected = config
        .replace(
            "\"value\": 20",
            &format!("\"value\": {}", value("asp_delta")),
        )
        .replace(
            "\"value\": 75",
            &format!("\"value\": {}", value("lmr_base")),
        );
    assert_eq!(after, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An OpenBench line of five fields (`name, int, value, min, max`) leaves c_end and
/// r_end to the design: the run plays it, and the list is written back in its layout.
#[test]
fn an_openbench_list_may_leave_c_end_and_r_end_to_the_design() {
    let dir = scratch("designed");
    let list = dir.join("e.spsa");
    let start = "asp_delta, int, 20, 5, 61\nrfp_margin, int, 80, 20, 200, 5, 0.002\n";
    std::fs::write(&list, start).unwrap();
    let mut args = strings(&["spsa", list.to_str().unwrap(), "--engine"]);
    args.push(format!("cmd={}", occam_binary().display()));
    args.extend(strings(&[
        "--pairs",
        "2",
        "--nodes",
        "300",
        "--max-plies",
        "60",
        "--threads",
        "1",
    ]));
    let out = tuner(&dir, &args, &[]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("spsa: plan: constant gains"), "{all}");
    let journal = std::fs::read_to_string(dir.join("runs/e.spsa.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(header["designed"], true, "{header}");
    let ends = |i: usize| {
        let p = &header["params"][i];
        (p["c_end"].as_f64().unwrap(), p["r_end"].as_f64().unwrap())
    };
    // A quarter of [5, 61]; the other line's own c_end and r_end.
    assert_eq!(ends(0).0, 14.0);
    assert_eq!(ends(1), (5.0, 0.002));
    let after = std::fs::read_to_string(&list).unwrap();
    let values: Vec<&str> = after
        .lines()
        .map(|l| l.split(", ").nth(2).unwrap())
        .collect();
    assert_eq!(
        after,
        format!(
            "asp_delta, int, {}, 5, 61\nrfp_margin, int, {}, 20, 200, 5, 0.002\n",
            values[0], values[1]
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
