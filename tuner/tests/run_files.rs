//! The files of a run, through the real binary: they go to `runs/`, never beside the
//! parameter files; one run writes a file at a time; Ctrl-C stops a run cleanly, and a
//! run stopped and resumed any number of times is the run that was never stopped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{failed, fresh_dir, root, succeeded, text, tuner_in, words};

const TUNER: &str = env!("CARGO_BIN_EXE_tuner");

/// A scratch folder holding a copy of the shipped `params/` (the files the build reads).
fn project(name: &str) -> PathBuf {
    let dir = fresh_dir("run-files", name);
    std::fs::create_dir_all(dir.join("params")).unwrap();
    for file in ["schema.json", "search.json", "eval.json"] {
        std::fs::copy(
            root().join("params").join(file),
            dir.join("params").join(file),
        )
        .unwrap();
    }
    dir
}

/// A short, deterministic tune of four search parameters (one thread, fixed nodes),
/// with a rate that makes θ move within it, written whatever the write-back gate says:
/// these tests are about what a stopped, resumed or finished run writes.
const TUNE: &str = "spsa params/search.json --params asp_delta,rfp_margin,lmr_base,fp_base \
                    --threads 1 --nodes 300 --max-plies 80 --seed 7 --r-end 0.05 --force-write";

fn tune_args(pairs: u64, extra: &str) -> Vec<String> {
    let line = format!("{TUNE} --pairs {pairs} {extra}");
    words(&line).into_iter().map(String::from).collect()
}

fn spawn(dir: &Path, args: &[String]) -> Child {
    Command::new(TUNER)
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Finished pairs in a journal (its lines after the header).
fn pairs_in(journal: &Path) -> usize {
    std::fs::read_to_string(journal).map_or(0, |t| t.lines().count().saturating_sub(1))
}

/// Waits until the journal holds at least `pairs` pairs (a minute at most).
fn wait_for_pairs(journal: &Path, pairs: usize) {
    let started = Instant::now();
    while pairs_in(journal) < pairs {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} never reached {pairs} pairs",
            journal.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends SIGINT, as a Ctrl-C at the terminal does, and collects the output.
fn interrupt(child: Child) -> Output {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

/// A journal's header as JSON without its per-run nonce, and its pair lines as written.
fn journal_parts(journal: &Path) -> (serde_json::Value, Vec<String>) {
    let text = std::fs::read_to_string(journal).unwrap();
    let mut lines = text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header.as_object_mut().unwrap().remove("nonce");
    (header, lines.map(String::from).collect())
}

#[test]
fn a_run_stopped_by_ctrl_c_three_times_and_resumed_is_the_run_never_stopped() {
    const PAIRS: u64 = 120;
    let whole = project("whole");
    succeeded(&tuner_in(&whole, &strs(&tune_args(PAIRS, ""))));

    let stopped = project("stopped");
    let journal = stopped.join("runs/search.spsa.jsonl");
    for (leg, at) in [10, 40, 80].into_iter().enumerate() {
        let extra = if leg == 0 { "" } else { "--resume" };
        let child = spawn(&stopped, &tune_args(PAIRS, extra));
        wait_for_pairs(&journal, at);
        let out = interrupt(child);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(130), "{all}");
        let done = pairs_in(&journal);
        assert!(
            done < PAIRS as usize,
            "the run ended before the stop: {all}"
        );
        assert!(
            all.contains(&format!("stopped after {done} of {PAIRS} pairs")),
            "{all}"
        );
        assert!(
            all.contains("--resume") && all.contains("--finish"),
            "{all}"
        );
        assert!(!all.contains("error"), "{all}");
    }
    succeeded(&tuner_in(&stopped, &strs(&tune_args(PAIRS, "--resume"))));

    let (header_whole, pairs_whole) = journal_parts(&whole.join("runs/search.spsa.jsonl"));
    let (header_stopped, pairs_stopped) = journal_parts(&journal);
    assert_eq!(header_whole, header_stopped);
    assert_eq!(pairs_whole.len(), PAIRS as usize);
    assert_eq!(pairs_whole, pairs_stopped, "pair lines differ");
    let values = |dir: &Path| std::fs::read(dir.join("params/search.json")).unwrap();
    assert_eq!(values(&whole), values(&stopped), "written values differ");
    assert_ne!(
        values(&whole),
        std::fs::read(root().join("params/search.json")).unwrap(),
        "the run moved nothing: the comparison proves little"
    );
    for dir in [whole, stopped] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn finish_writes_what_a_stopped_run_reached_and_the_run_goes_on() {
    let dir = project("finish");
    let journal = dir.join("runs/search.spsa.jsonl");
    let before = std::fs::read_to_string(dir.join("params/search.json")).unwrap();
    let child = spawn(&dir, &tune_args(200, ""));
    wait_for_pairs(&journal, 20);
    assert_eq!(interrupt(child).status.code(), Some(130));
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    // Before the averaging window (the last quarter, from pair 151) the last θ.
    let all = succeeded(&tuner_in(&dir, &strs(&tune_args(200, "--finish"))));
    assert!(all.contains("the last θ") && all.contains("151"), "{all}");
    let after = std::fs::read_to_string(dir.join("params/search.json")).unwrap();
    assert_ne!(before, after, "{all}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), journal_text);
    // The run continues from its journal, and at its end writes the average.
    let all = succeeded(&tuner_in(&dir, &strs(&tune_args(200, "--resume"))));
    assert!(
        all.contains("the average of θ over pairs 151..200"),
        "{all}"
    );
    assert_eq!(pairs_in(&journal), 200);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_second_writer_is_refused_and_the_first_run_stays_resumable() {
    let dir = project("second");
    let journal = dir.join("runs/search.spsa.jsonl");
    let first = spawn(&dir, &tune_args(400, ""));
    wait_for_pairs(&journal, 5);
    // Every other writer of the journal or the parameter file is refused at once.
    for extra in ["--resume", "--restart", "--finish"] {
        let all = failed(&tuner_in(&dir, &strs(&tune_args(400, extra))));
        assert!(
            all.contains("is being written by another run")
                && all.contains(&format!("pid {}", first.id())),
            "{extra}: {all}"
        );
        assert_eq!(all.matches("error:").count(), 1, "{all}");
    }
    let other_journal = "--journal elsewhere.jsonl --pairs 4";
    let all = failed(&tuner_in(&dir, &words(&format!("{TUNE} {other_journal}"))));
    assert!(all.contains("params/search.json is being written"), "{all}");
    let values = dir.join("values.txt");
    std::fs::write(&values, "asp_delta, 30\n").unwrap();
    let all = failed(&tuner_in(
        &dir,
        &["import", "values.txt", "params/search.json"],
    ));
    assert!(all.contains("is being written by another run"), "{all}");
    assert!(!dir.join("runs/search.spsa.jsonl.old.1").exists());
    // The first run was not disturbed: stopped, it resumes from a valid journal.
    assert_eq!(interrupt(first).status.code(), Some(130));
    succeeded(&tuner_in(&dir, &strs(&tune_args(400, "--finish"))));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn run_files_never_land_beside_the_parameter_files() {
    let dir = project("placement");
    let listing = |sub: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        names
    };
    let params = ["eval.json", "schema.json", "search.json"];
    let run = |line: &str| tuner_in(&dir, &words(line));
    succeeded(&tuner_in(&dir, &strs(&tune_args(4, ""))));
    succeeded(&run("plot runs/search.spsa.jsonl"));
    succeeded(&run(
        "verify params/search.json --pairs 1 --nodes 200 --force",
    ));
    succeeded(&run(
        "match --a compiled --b name=B,compiled --nodes 200 --pairs 1 --results runs/m.jsonl",
    ));
    assert_eq!(listing("params"), params);
    assert_eq!(
        listing("runs"),
        [
            "m.jsonl",
            "occam_params.verified.h",
            "search.spsa.checkpoint.json",
            "search.spsa.csv",
            "search.spsa.jsonl",
            "search.spsa.result.json",
            "search.spsa.svg"
        ]
    );
    // A run file pointed into the parameter folder is refused, and nothing is written.
    for line in [
        format!("{TUNE} --pairs 4 --restart --journal params/x.jsonl"),
        format!("{TUNE} --pairs 4 --restart --verify --header params/x.rs"),
        format!("{TUNE} --pairs 4 --restart --pgn params/games.pgn"),
        "match --a compiled --b name=B,compiled --nodes 200 --pairs 1 --results params/m.jsonl"
            .to_string(),
        "plot runs/search.spsa.jsonl -o params/plot.svg".to_string(),
        "verify params/search.json --pairs 1 --header params/h.rs".to_string(),
        "datagen -o params/positions.bin --games 1 --nodes 200".to_string(),
        "texel positions.txt params/eval.json -o params/eval.tuned.json".to_string(),
        "export params/search.json -o params/search.h".to_string(),
    ] {
        let all = failed(&run(&line));
        assert!(all.contains("holds parameter files"), "{line}: {all}");
        assert_eq!(all.matches("error:").count(), 1, "{line}: {all}");
        assert_eq!(listing("params"), params, "{line}");
    }
    // A run whose files an older version left beside the parameter files is pointed to
    // the run folder, and resumes once moved there as told.
    for name in listing("runs")
        .iter()
        .filter(|n| n.starts_with("search.spsa."))
    {
        std::fs::rename(dir.join("runs").join(name), dir.join("params").join(name)).unwrap();
    }
    let all = failed(&tuner_in(&dir, &strs(&tune_args(4, "--resume"))));
    let hint = "mkdir -p runs && mv params/search.spsa.* runs/";
    assert!(all.contains(hint), "{all}");
    let moved = Command::new("sh")
        .current_dir(&dir)
        .args(["-c", hint])
        .status()
        .unwrap();
    assert!(moved.success());
    succeeded(&tuner_in(&dir, &strs(&tune_args(4, "--resume"))));
    assert_eq!(listing("params"), params);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_the_journal_still_resumes() {
    let dir = project("twice");
    let journal = dir.join("runs/search.spsa.jsonl");
    let child = spawn(&dir, &tune_args(60, ""));
    wait_for_pairs(&journal, 3);
    let pid = child.id().to_string();
    let kill = || Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(kill().success());
    assert!(kill().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    succeeded(&tuner_in(&dir, &strs(&tune_args(60, "--resume"))));
    assert_eq!(pairs_in(&journal), 60);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_match_and_datagen_stop_cleanly_and_continue() {
    let dir = project("match-stop");
    // The run folder does not exist yet: a file given there creates it.
    let results = dir.join("runs/m.jsonl");
    let line = "match --a compiled --b name=B,compiled --nodes 300 --max-plies 80 --pairs 60 --results runs/m.jsonl";
    let args: Vec<String> = words(line).into_iter().map(String::from).collect();
    let child = spawn(&dir, &args);
    wait_for_pairs(&results, 3);
    let out = interrupt(child);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert!(
        all.contains("to continue") && all.contains("--resume"),
        "{all}"
    );
    assert!(
        all.contains("W-D-L") || all.contains("Games:"),
        "the result so far: {all}"
    );
    let all = succeeded(&tuner_in(&dir, &words(&format!("{line} --resume"))));
    assert!(all.contains("Games: 120,"), "{all}");

    // datagen: the same command continues the file.
    let data = dir.join("runs/data.bin");
    let line = "datagen -o runs/data.bin --games 200 --nodes 300 --threads 1";
    let args: Vec<String> = words(line).into_iter().map(String::from).collect();
    let child = spawn(&dir, &args);
    let started = Instant::now();
    while std::fs::metadata(&data).map_or(0, |m| m.len()) < 2_000 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "datagen wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = interrupt(child);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert!(
        all.contains("to continue") && all.contains("datagen"),
        "{all}"
    );
    let held = std::fs::metadata(&data).unwrap().len();
    let other = "datagen -o runs/data.bin --games 200 --nodes 301 --threads 1";
    let all = failed(&tuner_in(&dir, &words(other)));
    assert!(all.contains("other settings"), "{all}");
    assert_eq!(std::fs::metadata(&data).unwrap().len(), held);
    let all = succeeded(&tuner_in(&dir, &words(line)));
    assert!(all.contains("holds 200 games"), "{all}");
    std::fs::remove_dir_all(dir).unwrap();
}
