//! `tuner match` and `tuner verify` driven through the real binary: SPRT decisions on
//! clearly different and identical parameter sets, broken external engines, resume,
//! and occam against occam over UCI.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

mod common;
use common::{failed, fresh_dir, occam_binary, root, succeeded, text, tuner, with, words};

/// A fresh scratch directory per test.
fn scratch(name: &str) -> PathBuf {
    fresh_dir("match", name)
}

/// A copy of params/eval.json where `field` of every entry is moved to the bound
/// farthest from its value: an evaluation wrecked in every term.
fn crippled_eval(dir: &Path, field: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("params/eval.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for entry in doc["params"].as_array_mut().unwrap() {
        let (v, lo, hi) = (
            entry["value"].as_i64().unwrap(),
            entry["min"].as_i64().unwrap(),
            entry["max"].as_i64().unwrap(),
        );
        entry[field] = serde_json::json!(if hi - v > v - lo { hi } else { lo });
    }
    let path = dir.join("eval.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

#[test]
fn sprt_accepts_h1_for_defaults_against_a_crippled_eval() {
    let dir = scratch("h1");
    let crippled = crippled_eval(&dir, "value");
    let b = format!("name=crippled,{}", crippled.display());
    // A small beta: a wrecked eval must practically never be judged no better.
    let all = succeeded(&tuner(&with(
        "match --a name=default,compiled --sprt elo0=0 elo1=50 beta=0.01 --nodes 1000 --pairs 300 --concurrency 2 --b",
        &[&b],
    )));
    assert!(all.contains("Results of default vs crippled"), "{all}");
    assert!(all.contains("H1 accepted"), "{all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_does_not_accept_h1_for_identical_sets() {
    // A tiny alpha: identical engines must practically never pass, even if the games
    // stop being exact mirrors (time checks, threads).
    let all = succeeded(&tuner(&words(
        "match --a params/search.json,params/eval.json --b name=same,compiled --sprt elo0=0 elo1=50 alpha=0.001 --nodes 1000 --pairs 150 --concurrency 2",
    )));
    assert!(all.contains("LLR: "), "{all}");
    assert!(!all.contains("H1 accepted"), "{all}");
}

/// The fake engine in `mode` plays 2 pairs against the compiled engine: the match
/// finishes, every game is the fake engine's loss, the fault kind is reported, and the
/// engine was started `starts` times (a dead or hung engine is replaced for each game).
fn against_fake(mode: &str, limit: &[&str], fault: &str, starts: usize) {
    let log = std::env::temp_dir().join(format!("occam-fake-{mode}-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let script = root().join("scripts/fake_engine.py");
    let cmd = format!("cmd={}", script.display());
    let args = format!("args={mode} 0.6");
    let mut argv = with("match --a compiled --pairs 2 --engine", &[&cmd, &args]);
    argv.extend(["name=fake", "timeout=1"]);
    argv.extend_from_slice(limit);
    let out = Command::new(env!("CARGO_BIN_EXE_tuner"))
        .args(&argv)
        .current_dir(root())
        .env("FAKE_ENGINE_LOG", &log)
        .output()
        .expect("run tuner");
    let all = text(&out);
    assert!(out.status.success(), "{mode}: {all}");
    let started = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    assert_eq!(started, starts, "{mode}: engine starts\n{all}");
    let _ = std::fs::remove_file(&log);
    assert!(
        all.contains("Games: 4, Wins: 4, Losses: 0, Draws: 0"),
        "{mode}: {all}"
    );
    assert!(
        all.contains(&format!("Faults of fake: 4 ({fault}")),
        "{mode}: {all}"
    );
}

#[test]
fn broken_engines_lose_their_games_and_the_match_goes_on() {
    against_fake("crash", &["--nodes", "300"], "crash/hang 4", 4);
    let illegal = "crash/hang 0, illegal move 4";
    against_fake("illegal", &["--nodes", "300"], illegal, 1);
    against_fake("hang", &["--nodes", "300"], "crash/hang 4", 4);
    let forfeit = "crash/hang 0, illegal move 0, time forfeit 4";
    against_fake("slow", &["--tc", "0.5+0"], forfeit, 1);
    // An engine that cannot even start fails the match up front, with a reason.
    let cmd = format!("cmd={}", root().join("scripts/fake_engine.py").display());
    let all = failed(&tuner(&with(
        "match --a compiled --engine",
        &[&cmd, "args=nostart"],
    )));
    assert!(all.contains("uci handshake"), "{all}");
    assert!(!all.contains("panicked"), "{all}");
}

#[test]
fn a_match_resumes_from_its_results_file() {
    let dir = scratch("resume");
    let results = dir.join("m.jsonl");
    let r = results.to_str().unwrap();
    let run = |nodes_and_pairs: &str, extra: &[&str]| {
        let mut argv = words("match --a compiled --b name=B,compiled --results");
        argv.push(r);
        argv.extend(words(nodes_and_pairs));
        argv.extend_from_slice(extra);
        tuner(&argv)
    };
    succeeded(&run("--nodes 300 --pairs 3", &[]));
    // The same file without --resume is refused rather than overwritten.
    assert!(failed(&run("--nodes 300 --pairs 3", &[])).contains("--resume"));
    // A torn last line (a killed run) is ignored.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&results)
        .unwrap();
    f.write_all(b"{\"pair\": 9, \"resu").unwrap();
    drop(f);
    let all = succeeded(&run("--nodes 300 --pairs 5", &["--resume"]));
    assert!(all.contains("3 pairs already played, 2 to go"), "{all}");
    assert!(all.contains("Games: 10,"), "{all}");
    assert_eq!(
        std::fs::read_to_string(&results).unwrap().lines().count(),
        6
    );
    // Other settings are another match.
    let all = failed(&run("--nodes 400 --pairs 5", &["--resume"]));
    assert!(all.contains("different match"), "{all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_clock_match_reports_how_each_side_spent_its_clock() {
    let dir = scratch("clock");
    let (results, pgn) = (dir.join("m.jsonl"), dir.join("m.pgn"));
    let files = [
        "--results",
        results.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ];
    let run = |pairs: &str, resume: bool| {
        let mut argv =
            words("match --a compiled --b name=B,compiled --tc 0.4+0.01 --max-plies 40 --pairs");
        argv.push(pairs);
        argv.extend_from_slice(&files);
        if resume {
            argv.push("--resume");
        }
        succeeded(&tuner(&argv))
    };
    let all = run("1", false);
    assert!(all.contains("Clock use over 2 games (mean per game; games adjudicated early end with time unspent): A "), "{all}");
    // The resumed pair's clock use is counted with the new one's.
    let all = run("2", true);
    assert!(all.contains("Clock use over 4 games (mean per game; games adjudicated early end with time unspent): A "), "{all}");
    assert!(all.contains("% of base + increments used; B "), "{all}");
    let lines = std::fs::read_to_string(&results).unwrap();
    assert_eq!(lines.matches("\"used_ms\"").count(), 8, "{lines}");
    // A file written before the clock was recorded resumes, and the line says which
    // games it covers.
    let stripped: Vec<String> = lines
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("clock");
            v.to_string()
        })
        .collect();
    std::fs::write(&results, stripped.join("\n") + "\n").unwrap();
    let all = run("3", true);
    assert!(all.contains("Clock use over 2 of the 6 games "), "{all}");
    std::fs::write(&results, lines).unwrap();
    // Every move past the opening carries its score and time, cutechess's way.
    let games = std::fs::read_to_string(&pgn).unwrap();
    assert!(games.contains("{end of opening}"), "{games}");
    let timed = games.matches("s}").count();
    assert!(timed > 0, "no timed moves in\n{games}");
    // scripts/clock_use.py finds every timed move of both players in that PGN.
    let out = Command::new("python3")
        .arg(root().join("scripts/clock_use.py"))
        .arg(&pgn)
        .output()
        .expect("run python3");
    let profile = text(&out);
    assert!(out.status.success(), "{profile}");
    let counted: usize = profile
        .lines()
        .filter_map(|l| {
            l.split(" games, ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert_eq!(counted, timed, "{profile}");
    assert!(
        profile.contains("\nA: 6 games, ") && profile.contains("\nB: 6 games, "),
        "{profile}"
    );
    // A match at fixed nodes has no clock to report.
    let all = succeeded(&tuner(&words(
        "match --a compiled --b name=B,compiled --nodes 300 --pairs 1",
    )));
    assert!(!all.contains("Clock use"), "{all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clock_use_script_follows_the_mover_through_comments_variations_and_annotations() {
    let dir = scratch("clock-script");
    let pgn = dir.join("g.pgn");
    // Black moves first; cutechess's comments carry the depth; a variation, NAGs, a
    // glued move number and CRLF line ends must not shift who moved.
    let game = "[Event \"x\"]\r\n[White \"w\"]\r\n[Black \"b\"]\r\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\r\n\r\n\
                1... Kd7 {+0.10/9 1.000s} (1... Kf7 {0.5s} 2. e4) 2.Kd2 $1 {-0.20/9 2.000s} Kd6! {3.000s} 3. e4 {4.000s} 1/2-1/2\r\n";
    std::fs::write(&pgn, game).unwrap();
    let clock_use = |extra: &[&str]| {
        let out = Command::new("python3")
            .arg(root().join("scripts/clock_use.py"))
            .arg(&pgn)
            .args(extra)
            .output()
            .expect("run python3");
        (out.status.success(), text(&out))
    };
    let (ok, profile) = clock_use(&["1"]);
    assert!(ok, "{profile}");
    assert!(
        profile.contains("\nb: 1 games, 2 moves, 2000 ms a move; by stage   1000   3000;"),
        "{profile}"
    );
    assert!(
        profile.contains("\nw: 1 games, 2 moves, 3000 ms a move; by stage   2000   4000;"),
        "{profile}"
    );
    // A file without timed moves, or a bad stage, is refused with a reason.
    std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 e5 *\n").unwrap();
    for (extra, reason) in [(&[][..], "no timed moves"), (&["x"][..], "STAGE must be")] {
        let (ok, out) = clock_use(extra);
        assert!(!ok && out.contains(reason), "{out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verify_writes_a_stamped_header_only_after_h1() {
    let dir = scratch("verify");
    // Tuned values are the real ones; the "starting" values are wrecked.
    let file = crippled_eval(&dir, "start");
    let header = dir.join("occam_params.h");
    let verify = |file: &Path, pairs: &str, header: &Path| {
        let mut argv = words("verify --sprt elo0=0 elo1=50 --nodes 1000 --concurrency 2");
        argv.extend(["--pairs", pairs]);
        argv.extend([file.to_str().unwrap(), "--header", header.to_str().unwrap()]);
        tuner(&argv)
    };
    succeeded(&verify(&file, "300", &header));
    let h = std::fs::read_to_string(&header).unwrap();
    for needle in [
        "SPRT [0, 50]",
        "H1 accepted",
        "bench: ",
        "games: ",
        "date: ",
        "#define OCCAM_",
    ] {
        assert!(h.contains(needle), "{needle} missing in\n{h}");
    }
    // Unchanged values (every start equal to its value): no H1, nothing written.
    let same = dir.join("same.json");
    let text = std::fs::read_to_string(root().join("params/eval.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for entry in doc["params"].as_array_mut().unwrap() {
        entry["start"] = entry["value"].clone();
    }
    std::fs::write(&same, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let header2 = dir.join("same.rs");
    let all = failed(&verify(&same, "150", &header2));
    assert!(all.contains("not written"), "{all}");
    assert!(!header2.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether `engine` answers `go nodes` with a bestmove within a few seconds.
fn plays_over_uci(engine: &Path) -> bool {
    let Ok(mut child) = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("bestmove") {
                let _ = tx.send(());
                break;
            }
        }
    });
    let _ = stdin.write_all(b"uci\nisready\nposition startpos\ngo nodes 200\n");
    let _ = stdin.flush();
    let ok = rx.recv_timeout(Duration::from_secs(5)).is_ok();
    let _ = stdin.write_all(b"quit\n");
    let _ = child.kill();
    let _ = child.wait();
    ok
}

#[test]
fn occam_against_occam_over_uci() {
    let occam = occam_binary();
    if !plays_over_uci(&occam) {
        // The UCI loop lands on its own branch; until then there is nothing to drive.
        eprintln!("SKIPPED: {} does not answer `go` yet", occam.display());
        return;
    }
    let cmd = format!("cmd={}", occam.display());
    let two_occams = [
        "--engine",
        &cmd,
        "name=occam-1",
        "option.Hash=8",
        "--engine",
        &cmd,
        "name=occam-2",
    ];
    // Both over UCI, then in-process against the same engine over UCI.
    for argv in [
        with("match --pairs 2 --nodes 500 --concurrency 2", &two_occams),
        with(
            "match --a compiled --pairs 2 --nodes 500 --engine",
            &[&cmd, "name=uci"],
        ),
    ] {
        let all = succeeded(&tuner(&argv));
        assert!(all.contains("Games: 4,"), "{all}");
        assert!(!all.contains("Faults of"), "{all}");
    }
}

/// The UCI client against a real, strict engine when one is installed (Debian's
/// `stockfish` package): fixed nodes and a game clock, no faults either way.
#[test]
fn stockfish_over_uci_when_installed() {
    let stockfish = Path::new("/usr/games/stockfish");
    if !stockfish.exists() {
        eprintln!("SKIPPED: {} is not installed", stockfish.display());
        return;
    }
    let cmd = format!("cmd={}", stockfish.display());
    for limit in [["--nodes", "500"], ["--tc", "1+0.01"]] {
        let mut argv = with("match --a compiled --pairs 1 --engine", &[&cmd]);
        argv.extend(["name=sf", "option.Hash=16", "option.Threads=1"]);
        argv.extend(limit);
        let all = succeeded(&tuner(&argv));
        assert!(all.contains("Games: 2,"), "{all}");
        // On a clock a loaded machine (six jobs on two cores) can cost either side a
        // time forfeit; the protocol itself must never fail: no crash, hang or illegal move.
        for line in all.lines().filter(|l| l.starts_with("Faults of")) {
            assert!(
                limit[0] == "--tc" && line.contains("(crash/hang 0, illegal move 0,"),
                "{all}"
            );
        }
    }
}

/// `--syzygy DIR`: games in the tables are adjudicated by them and the report counts
/// them apart; a bad directory is one clear error before any game.
#[test]
fn syzygy_adjudication_is_counted_apart() {
    let dir = scratch("syzygy");
    let book = dir.join("tb.epd");
    // KRvK (White wins whoever moves) and a drawn KRvKP.
    std::fs::write(
        &book,
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1\n7K/8/8/8/8/8/1pk5/4R3 w - - 0 1\n",
    )
    .unwrap();
    let tables = root().join("tests/data/syzygy");
    let report = succeeded(&tuner(&with(
        "match --a name=x,compiled --b name=y,compiled --pairs 2 --nodes 200 --book",
        &[book.to_str().unwrap(), "--syzygy", tables.to_str().unwrap()],
    )));
    // Pair 1 (KRvK): x wins as White, loses as Black; pair 2: two draws.
    assert!(
        report.contains("Tablebase adjudications: 4 games (x W, 1-2-1 W-D-L)"),
        "{report}"
    );

    let report = failed(&tuner(&words(
        "match --a compiled --b name=y,compiled --pairs 1 --syzygy /no/such/tables",
    )));
    assert!(
        report.contains("--syzygy: cannot read Syzygy directory '/no/such/tables'"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
