//! The real `occam` binary over UCI: options, setoption, position, every `go` limit,
//! stop/ponder, errors on bad input, the non-standard commands and the command line.
//! Assertions hold for any correct search (legal moves, limits honoured), never on
//! strength or speed.

use std::collections::BTreeSet;
use std::process::Command;
use std::time::{Duration, Instant};

use occam::params::PARAM_SPECS;
use occam_tests::{Engine, binary, workspace_root};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

const LONG: Duration = Duration::from_secs(60);
/// How long an answer that must not wait for a search may take.
const PROMPT: Duration = Duration::from_secs(5);
const MATED: &str = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// Chess960: White's only legal move is castling with the h-rook (king g1 stays, rook to f1).
const ONLY_CASTLING_960: &str = "2k2r2/8/8/8/8/7b/r6P/6KR w H - 0 1";

fn ready_engine() -> Engine {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", LONG);
    e.sync();
    e
}

/// Sends `go …` and returns the lines up to and including `bestmove`.
fn go(e: &mut Engine, args: &str) -> Vec<String> {
    e.ask(&format!("go {args}"), "bestmove", LONG)
}

fn bestmove(lines: &[String]) -> String {
    let last = lines.last().expect("lines");
    assert!(last.starts_with("bestmove "), "{lines:?}");
    last.split_whitespace().nth(1).unwrap().to_string()
}

/// A chess position from FEN plus UCI moves, with shakmaty as the independent referee.
fn referee(fen: Option<&str>, moves: &[&str], mode: CastlingMode) -> Chess {
    let mut pos: Chess = match fen {
        Some(f) => f.parse::<Fen>().unwrap().into_position(mode).unwrap(),
        None => Chess::default(),
    };
    for m in moves {
        let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
    }
    pos
}

fn assert_legal(pos: &Chess, uci: &str, context: &[String]) {
    let ok = uci
        .parse::<UciMove>()
        .ok()
        .is_some_and(|u| u.to_move(pos).is_ok());
    assert!(ok, "'{uci}' is not legal here; engine said {context:?}");
}

/// The numbers after `key` in the `info depth` lines.
fn info_values(lines: &[String], key: &str) -> Vec<u64> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.iter()
                .position(|x| *x == key)
                .and_then(|i| t.get(i + 1))
                .and_then(|v| v.parse().ok())
        })
        .collect()
}

fn fen_of(e: &mut Engine) -> String {
    e.send("d");
    let lines = e.sync();
    lines
        .iter()
        .find_map(|l| l.strip_prefix("Fen: "))
        .unwrap_or_else(|| panic!("no Fen line in {lines:?}"))
        .to_string()
}

fn params_of(e: &mut Engine) -> Vec<String> {
    e.send("params");
    e.sync()
}

// ---------------------------------------------------------------------------
// uci, options, setoption
// ---------------------------------------------------------------------------

/// Names and values of every parameter in the top-level `params/*.json` files, read
/// independently of the engine's generated table.
fn params_in_files() -> Vec<(String, i64, i64, i64)> {
    let dir = workspace_root().join("params");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") || path.ends_with("schema.json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for p in doc["params"].as_array().unwrap() {
            out.push((
                p["name"].as_str().unwrap().to_string(),
                p["value"].as_i64().unwrap(),
                p["min"].as_i64().unwrap(),
                p["max"].as_i64().unwrap(),
            ));
        }
    }
    out
}

#[test]
fn option_list_equals_the_parameter_files_plus_standard_options() {
    let mut e = Engine::occam();
    let lines = e.ask("uci", "uciok", LONG);
    assert!(lines.iter().any(|l| l.starts_with("id name Occam")));
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    let options: BTreeSet<&str> = lines
        .iter()
        .filter(|l| l.starts_with("option name "))
        .map(String::as_str)
        .collect();
    for standard in [
        "option name Hash type spin default 16 min 1 max 65536",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name Clear Hash type button",
        "option name UCI_Chess960 type check default false",
        "option name SearchStats type check default false",
    ] {
        assert!(options.contains(standard), "missing '{standard}'");
    }
    assert!(
        options
            .iter()
            .any(|o| o.starts_with("option name Move Overhead type spin default "))
    );
    let from_files = params_in_files();
    assert_eq!(from_files.len(), PARAM_SPECS.len());
    for (name, value, min, max) in &from_files {
        let line = format!("option name {name} type spin default {value} min {min} max {max}");
        assert!(options.contains(line.as_str()), "missing '{line}'");
    }
    let spins_beyond_standard = options
        .iter()
        .filter(|o| o.contains(" type spin "))
        .filter(|o| {
            ![
                "Hash",
                "Threads",
                "MultiPV",
                "Move Overhead",
                "SyzygyProbeDepth",
                "SyzygyProbeLimit",
            ]
            .iter()
            .any(|s| o.starts_with(&format!("option name {s} ")))
        })
        .count();
    assert_eq!(
        spins_beyond_standard,
        from_files.len(),
        "exactly one spin per parameter"
    );
}

#[test]
fn setoption_of_a_parameter_changes_params_output() {
    let mut e = ready_engine();
    let before = params_of(&mut e);
    assert_eq!(before.len(), PARAM_SPECS.len(), "{before:?}");
    let spec = &PARAM_SPECS[PARAM_SPECS.len() / 2];
    let new_value = if spec.value == spec.max {
        spec.min
    } else {
        spec.max
    };
    // Option names are case-insensitive.
    e.send(&format!(
        "setoption name {} value {new_value}",
        spec.name.to_ascii_uppercase()
    ));
    let after = params_of(&mut e);
    let changed: Vec<(&String, &String)> =
        before.iter().zip(&after).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(
        changed[0].1,
        &format!(
            "{}, int, {new_value}, {}, {}, {}, {}",
            spec.name,
            spec.min,
            spec.max,
            spec.c_end.unwrap(),
            spec.r_end.unwrap()
        )
    );
}

#[test]
fn an_old_parameter_name_still_sets_the_renamed_one_with_a_note() {
    let mut e = ready_engine();
    let before = params_of(&mut e);
    for &(old, current) in occam_params::RENAMED {
        let spec = PARAM_SPECS.iter().find(|s| s.name == current).unwrap();
        e.send(&format!("setoption name {old} value {}", spec.min));
        let lines = e.sync();
        assert_eq!(
            lines,
            vec![format!(
                "info string note: parameter '{old}' is now called '{current}'; the old name is still read for now"
            )]
        );
        let row = params_of(&mut e)
            .into_iter()
            .find(|l| l.starts_with(&format!("{current},")))
            .unwrap();
        assert!(
            row.starts_with(&format!("{current}, int, {},", spec.min)),
            "{row}"
        );
        // The old name is not an option of its own.
        assert!(!before.iter().any(|l| l.starts_with(&format!("{old},"))));
    }
}

/// Final (nodes, score text, bestmove) of a fixed-depth search from a fresh process.
fn fixed_search(setoptions: &[String]) -> (u64, String, String) {
    let mut e = ready_engine();
    for s in setoptions {
        e.send(s);
    }
    let errors = e.sync();
    assert!(errors.is_empty(), "{errors:?}");
    e.send("position startpos moves e2e4 e7e5 g1f3");
    let lines = go(&mut e, "depth 4");
    let nodes = *info_values(&lines, "nodes").last().unwrap();
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    let score = last_info
        .split(" score ")
        .nth(1)
        .unwrap()
        .split(" nodes")
        .next()
        .unwrap()
        .to_string();
    (nodes, score, bestmove(&lines))
}

#[test]
fn setoption_takes_effect_for_the_next_search() {
    let default = fixed_search(&[]);
    assert_eq!(
        default,
        fixed_search(&[]),
        "fixed-depth search is deterministic"
    );
    // Every parameter at its maximum, then at its minimum: both must be searchable,
    // and such a change must show in the search.
    for pick in [
        |s: &occam::params::ParamSpec| s.max,
        |s: &occam::params::ParamSpec| s.min,
    ] {
        let sets: Vec<String> = PARAM_SPECS
            .iter()
            .map(|s| format!("setoption name {} value {}", s.name, pick(s)))
            .collect();
        let changed = fixed_search(&sets);
        assert_ne!(
            default, changed,
            "the search ignored the new parameter values"
        );
    }
}

#[test]
fn setoption_during_a_search_is_kept_for_the_next_go() {
    let mut e = ready_engine();
    let spec = &PARAM_SPECS[0];
    let new_value = if spec.value == spec.min {
        spec.max
    } else {
        spec.min
    };
    e.send("go infinite");
    e.send(&format!("setoption name {} value {new_value}", spec.name));
    e.send("setoption name Hash value 2");
    e.send("ucinewgame");
    let during = e.sync();
    assert!(during.iter().all(|l| !l.contains("error")), "{during:?}");
    e.ask("stop", "bestmove", LONG);
    let line = format!("{}, int, {new_value}, ", spec.name);
    assert!(params_of(&mut e).iter().any(|l| l.starts_with(&line)));
    let lines = go(&mut e, "depth 2");
    assert_legal(&Chess::default(), &bestmove(&lines), &lines);
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

#[test]
fn every_bad_input_gets_one_error_line_and_changes_nothing() {
    let mut e = ready_engine();
    e.send("position startpos moves e2e4 c7c5");
    let fen = fen_of(&mut e);
    let params = params_of(&mut e);
    let p = &PARAM_SPECS[0];
    let bad: Vec<String> = [
        "foo",
        "Position startpos",
        "position",
        "position foo",
        "position fen",
        "position startpos e2e4",
        "position fen 8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position startpos moves e2e4 e2e4",
        "position startpos moves e2e9",
        "position startpos moves e2e4 zz",
        "setoption",
        "setoption value 3",
        "setoption name",
        "setoption name NoSuchOption value 1",
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999999",
        "setoption name Hash",
        "setoption name Threads value 257",
        "setoption name Threads value 0",
        "setoption name Move Overhead value -1",
        "setoption name UCI_Chess960 value maybe",
        "go depth -1",
        "go depth 0",
        "go depth x",
        "go depth",
        "go nodes 0",
        "go movetime -5",
        "go wtime x btime 100",
        "go wtime 100 btime 1.5",
        "go winc -1 wtime 100",
        "go movestogo 0 wtime 100",
        "go foo",
        "go perft 0",
        "go perft x",
        "go perft",
        "go searchmoves e2e5",
        "bench x",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("setoption name {} value {}", p.name, p.max as i64 + 1),
        format!("setoption name {} value {}", p.name, p.min as i64 - 1),
        format!("setoption name {} value 1.5", p.name),
        format!("setoption name {} value", p.name),
        format!("setoption name {}", p.name),
    ])
    .collect();
    for command in &bad {
        e.send(command);
        let reply = e.sync();
        assert_eq!(reply.len(), 1, "'{command}' -> {reply:?}");
        assert!(
            reply[0].starts_with("info string error: ") && reply[0].len() > 30,
            "'{command}' -> {reply:?}"
        );
    }
    assert_eq!(fen_of(&mut e), fen);
    assert_eq!(params_of(&mut e), params);
    // Still a working engine in the same position.
    let lines = go(&mut e, "depth 2");
    assert_legal(
        &referee(None, &["e2e4", "c7c5"], CastlingMode::Standard),
        &bestmove(&lines),
        &lines,
    );
}

#[test]
fn error_messages_name_the_problem_and_what_is_allowed() {
    let mut e = ready_engine();
    let p = &PARAM_SPECS[0];
    e.send(&format!(
        "setoption name {} value {}",
        p.name,
        p.max as i64 + 1
    ));
    let reply = e.sync().join("\n");
    assert!(
        reply.contains(p.name) && reply.contains(&p.max.to_string()),
        "{reply}"
    );
    e.send("position startpos moves e2e4 e2e4");
    let reply = e.sync().join("\n");
    assert!(
        reply.contains("e2e4") && reply.contains("illegal"),
        "{reply}"
    );
    e.send("go winc -1 wtime 100");
    let reply = e.sync().join("\n");
    assert!(
        reply.contains("winc") && reply.contains("non-negative"),
        "{reply}"
    );
}

/// cutechess with a time margin sends a clock below zero once a side has used part of
/// the margin: the engine still answers, at once, with a legal move.
#[test]
fn an_overdrawn_clock_still_gets_a_legal_move_at_once() {
    let mut e = ready_engine();
    // White to move: overdrawn, then with 5 s left against an overdrawn opponent.
    for (args, budget_ms) in [
        ("wtime -37 btime 5000 winc 100 binc 100", 1_000),
        ("wtime 5000 btime -37", 6_000),
    ] {
        let start = Instant::now();
        let lines = go(&mut e, args);
        assert_legal(&Chess::default(), &bestmove(&lines), &lines);
        let elapsed = start.elapsed().as_millis();
        assert!(elapsed < budget_ms, "go {args} took {elapsed} ms");
    }
}

// ---------------------------------------------------------------------------
// go limits
// ---------------------------------------------------------------------------

#[test]
fn go_depth_is_honoured_with_a_legal_move_and_full_info_lines() {
    let mut e = ready_engine();
    e.send("position startpos moves d2d4 g8f6");
    let lines = go(&mut e, "depth 4");
    assert_legal(
        &referee(None, &["d2d4", "g8f6"], CastlingMode::Standard),
        &bestmove(&lines),
        &lines,
    );
    let depths = info_values(&lines, "depth");
    assert_eq!(depths.iter().max(), Some(&4), "{lines:?}");
    let info = lines.iter().rfind(|l| l.starts_with("info depth")).unwrap();
    for key in [
        " seldepth ",
        " score ",
        " nodes ",
        " nps ",
        " hashfull ",
        " time ",
        " pv ",
    ] {
        assert!(info.contains(key), "'{key}' missing in {info}");
    }
    assert!(
        info.contains(" score cp ") || info.contains(" score mate "),
        "{info}"
    );
}

#[test]
fn go_nodes_is_honoured() {
    let mut e = ready_engine();
    let limit = 20_000;
    let lines = go(&mut e, &format!("nodes {limit}"));
    assert_legal(&Chess::default(), &bestmove(&lines), &lines);
    let nodes = info_values(&lines, "nodes");
    // Node limits are checked every few thousand nodes at most.
    assert!(
        nodes.iter().all(|&n| n <= limit + 4_096),
        "{nodes:?} exceeds {limit}"
    );
}

#[test]
fn go_movetime_and_clock_are_honoured() {
    let mut e = ready_engine();
    for (args, budget_ms) in [
        ("movetime 300", 300),
        ("wtime 1000 btime 1000", 1000),
        ("wtime 2000 btime 2000 winc 100 binc 100 movestogo 5", 2000),
    ] {
        let start = Instant::now();
        let lines = go(&mut e, args);
        let elapsed = start.elapsed().as_millis();
        assert_legal(&Chess::default(), &bestmove(&lines), &lines);
        // Generous lag allowance: this runs on a shared machine in a debug-ish build.
        assert!(elapsed < budget_ms + 1_000, "go {args} took {elapsed} ms");
    }
}

#[test]
fn stop_ends_an_infinite_search_promptly_and_isready_is_answered_meanwhile() {
    let mut e = ready_engine();
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    let meanwhile = e.lines_within(Duration::from_millis(300));
    assert!(
        meanwhile.iter().all(|l| !l.starts_with("bestmove")),
        "bestmove before stop: {meanwhile:?}"
    );
    let before_ready = e.sync();
    assert!(before_ready.iter().all(|l| !l.starts_with("bestmove")));
    let start = Instant::now();
    let lines = e.ask("stop", "bestmove", PROMPT);
    assert!(
        start.elapsed() < Duration::from_millis(1_000),
        "stop took {:?}",
        start.elapsed()
    );
    assert_legal(
        &referee(None, &["e2e4"], CastlingMode::Standard),
        &bestmove(&lines),
        &lines,
    );
}

#[test]
fn infinite_search_that_ends_by_itself_waits_for_stop() {
    let mut e = ready_engine();
    e.send(&format!("position fen {STALEMATE}"));
    e.send("go infinite");
    let meanwhile = e.lines_within(Duration::from_millis(300));
    assert!(
        meanwhile.iter().all(|l| !l.starts_with("bestmove")),
        "{meanwhile:?}"
    );
    let lines = e.ask("stop", "bestmove", PROMPT);
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
}

#[test]
fn ponder_then_ponderhit_and_ponder_then_stop() {
    let mut e = ready_engine();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 2000 btime 2000");
    let meanwhile = e.lines_within(Duration::from_millis(400));
    assert!(
        meanwhile.iter().all(|l| !l.starts_with("bestmove")),
        "bestmove while pondering: {meanwhile:?}"
    );
    e.send("ponderhit");
    let lines = e.read_until(Duration::from_millis(2_000 + 2_000), |l| {
        l.starts_with("bestmove")
    });
    let pos = referee(None, &["e2e4", "e7e5"], CastlingMode::Standard);
    assert_legal(&pos, &bestmove(&lines), &lines);
    // A ponder move, if given, must be legal after the best move.
    let tokens: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    if let Some(i) = tokens.iter().position(|t| *t == "ponder") {
        let after = referee(None, &["e2e4", "e7e5", tokens[1]], CastlingMode::Standard);
        assert_legal(&after, tokens[i + 1], &lines);
    }

    // Ponder miss: the GUI stops the ponder search and expects a bestmove at once.
    e.send("go ponder wtime 60000 btime 60000");
    let meanwhile = e.lines_within(Duration::from_millis(300));
    assert!(meanwhile.iter().all(|l| !l.starts_with("bestmove")));
    let start = Instant::now();
    e.ask("stop", "bestmove", PROMPT);
    assert!(start.elapsed() < Duration::from_millis(1_000));
}

#[test]
fn mated_or_stalemated_root_gives_bestmove_0000() {
    let mut e = ready_engine();
    for fen in [MATED, STALEMATE] {
        e.send(&format!("position fen {fen}"));
        for args in ["depth 3", "movetime 100", "nodes 1000"] {
            let lines = go(&mut e, args);
            assert_eq!(lines.last().unwrap(), "bestmove 0000", "{fen} go {args}");
        }
    }
}

#[test]
fn quit_during_a_search_exits_promptly() {
    let mut e = ready_engine();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("quit");
    assert!(e.exited_within(Duration::from_secs(2)));
}

// ---------------------------------------------------------------------------
// Chess960
// ---------------------------------------------------------------------------

#[test]
fn castling_notation_follows_uci_chess960() {
    let mut e = ready_engine();
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go perft 1");
    let standard = e.read_until(LONG, |l| l.starts_with("Nodes searched"));
    assert!(standard.contains(&"e1g1: 1".to_string()) && standard.contains(&"e1c1: 1".to_string()));
    assert!(!standard.iter().any(|l| l.starts_with("e1h1:")));

    e.send("setoption name UCI_Chess960 value true");
    e.send(&format!("position fen {fen}"));
    e.send("go perft 1");
    let chess960 = e.read_until(LONG, |l| l.starts_with("Nodes searched"));
    assert!(chess960.contains(&"e1h1: 1".to_string()) && chess960.contains(&"e1a1: 1".to_string()));
    assert!(!chess960.iter().any(|l| l.starts_with("e1g1:")));
    assert_eq!(standard.last(), chess960.last(), "same move count");

    // Switching the option re-reads the current position in the new mode.
    e.send("setoption name UCI_Chess960 value false");
    e.send("go perft 1");
    let again = e.read_until(LONG, |l| l.starts_with("Nodes searched"));
    assert!(again.contains(&"e1g1: 1".to_string()), "{again:?}");
}

#[test]
fn chess960_castling_round_trip_through_search_and_position() {
    let mut e = ready_engine();
    e.send("setoption name UCI_Chess960 value true");
    e.send(&format!("position fen {ONLY_CASTLING_960}"));
    let lines = go(&mut e, "depth 3");
    assert_eq!(
        bestmove(&lines),
        "g1h1",
        "king takes own rook is castling in 960 notation"
    );
    e.send(&format!("position fen {ONLY_CASTLING_960} moves g1h1"));
    let fen = fen_of(&mut e);
    assert!(fen.starts_with("2k2r2/8/8/8/8/7b/r6P/5RK1 b"), "{fen}");
    // A Shredder-FEN start position and a king move that is not castling.
    e.send(
        "position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 moves g1g1",
    );
    let reply = e.sync();
    assert_eq!(reply.len(), 1, "{reply:?}");
    e.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    e.send("go perft 3");
    let perft = e.read_until(LONG, |l| l.starts_with("Nodes searched"));
    assert_eq!(perft.last().unwrap(), "Nodes searched: 12189");
}

// ---------------------------------------------------------------------------
// Non-standard commands
// ---------------------------------------------------------------------------

#[test]
fn d_eval_and_go_perft() {
    let mut e = ready_engine();
    e.send("position startpos moves e2e4");
    e.send("d");
    let d = e.sync();
    assert!(
        d.iter()
            .any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        "{d:?}"
    );
    assert!(
        d.iter()
            .any(|l| l.starts_with("Key: ") && l.len() == 5 + 16),
        "{d:?}"
    );
    assert!(d.iter().any(|l| l.contains("| P |")), "{d:?}");

    e.send("eval");
    let eval = e.sync();
    assert!(eval.iter().any(|l| l.starts_with("score ")), "{eval:?}");

    e.send("position startpos");
    e.send("go perft 3");
    let perft = e.read_until(LONG, |l| l.starts_with("Nodes searched"));
    assert_eq!(perft.last().unwrap(), "Nodes searched: 8902");
    assert_eq!(
        perft
            .iter()
            .filter(|l| l.contains(": ") && !l.starts_with("Nodes"))
            .count(),
        20
    );
}

#[test]
fn search_stats_option_prints_stats_before_bestmove() {
    let mut e = ready_engine();
    e.send("setoption name SearchStats value true");
    let lines = go(&mut e, "depth 3");
    let n = lines.len();
    assert!(
        n >= 2 && lines[n - 2].starts_with("info string stats "),
        "{lines:?}"
    );
    e.send("setoption name SearchStats value false");
    let lines = go(&mut e, "depth 3");
    assert!(!lines.iter().any(|l| l.starts_with("info string stats")));
}

#[test]
fn uci_bench_prints_the_openbench_signature() {
    let mut e = ready_engine();
    e.send("bench 2");
    let lines = e.read_until(LONG, |l| l.ends_with(" nps"));
    let t: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    assert!(
        t.len() == 4
            && t[1] == "nodes"
            && t[0].parse::<u64>().is_ok()
            && t[2].parse::<u64>().is_ok(),
        "{lines:?}"
    );
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

fn run_occam(args: &[&str]) -> (bool, String) {
    let out = Command::new(binary("occam")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn commands_as_arguments() {
    let (ok, out) = run_occam(&["go", "perft", "2"]);
    assert!(
        ok && out.trim_end().ends_with("Nodes searched: 400"),
        "{out}"
    );
    let (ok, out) = run_occam(&["position startpos moves e2e4 e7e5", "go depth 3"]);
    assert!(ok, "{out}");
    let best = out
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    assert_legal(
        &referee(None, &["e2e4", "e7e5"], CastlingMode::Standard),
        &best,
        std::slice::from_ref(&out),
    );
    let (ok, out) = run_occam(&["bench", "2"]);
    let last = out.lines().last().unwrap_or("");
    assert!(
        ok && last.contains(" nodes ") && last.ends_with(" nps"),
        "{out}"
    );
    let (ok, _) = run_occam(&["bench", "nonsense"]);
    assert!(!ok, "bad bench arguments give a failing exit status");
}

#[test]
fn end_of_input_lets_a_finite_search_finish() {
    let text = piped("position startpos\ngo depth 3\n");
    assert!(
        text.lines().last().unwrap_or("").starts_with("bestmove "),
        "{text}"
    );
}

// ---------------------------------------------------------------------------
// Commands during a search: the reader never blocks
// ---------------------------------------------------------------------------

/// Lines up to `readyok`, which must come within a few seconds.
fn until_ready(e: &mut Engine) -> Vec<String> {
    e.read_until(PROMPT, |l| l == "readyok")
}

/// Sends `quit` and returns the lines up to the one `last` accepts; the process must
/// then exit within a few seconds.
fn quit_after(e: &mut Engine, last: impl Fn(&str) -> bool) -> Vec<String> {
    e.send("quit");
    let lines = e.read_until(PROMPT, last);
    assert!(e.exited_within(PROMPT), "{lines:?}");
    lines
}

/// What `occam` prints for `script` on stdin, read to the end (the engine exits at
/// end of input).
fn piped(script: &str) -> String {
    let mut child = Command::new(binary("occam"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(script.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.starts_with("bestmove"))
        .cloned()
        .collect()
}

#[test]
fn malformed_go_during_a_search_without_our_clock_does_not_block() {
    // Black to move, only wtime: the search has no time limit; the malformed go
    // arriving meanwhile used to block the reader, so stop was never read.
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mut e = ready_engine();
    e.send(&format!("position fen {fen}"));
    e.send("go wtime 0");
    e.send("go \t 2");
    e.send("stop");
    e.send("isready");
    let lines = until_ready(&mut e);
    let best = bestmoves(&lines);
    assert_eq!(best.len(), 1, "{lines:?}");
    assert_legal(
        &referee(Some(fen), &[], CastlingMode::Standard),
        &bestmove(&best),
        &lines,
    );
    // The stopped search's bestmove comes first, then the error of the bad go.
    let at_best = lines
        .iter()
        .position(|l| l.starts_with("bestmove"))
        .unwrap();
    let at_error = lines.iter().position(|l| l.contains("error")).unwrap();
    assert!(
        at_best < at_error && lines[at_error].contains("'2'"),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("info string no btime")));
}

#[test]
fn bench_during_a_search_does_not_block_stop() {
    let mut e = ready_engine();
    e.send("go");
    e.send("bench 0");
    e.send("stop");
    e.send("isready");
    let lines = until_ready(&mut e);
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
    assert_legal(&Chess::default(), &bestmove(&bestmoves(&lines)), &lines);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("error") && l.contains("bench")),
        "{lines:?}"
    );
}

#[test]
fn commands_during_a_search_are_applied_in_order_when_it_ends() {
    let mut e = ready_engine();
    e.send("go infinite");
    e.send("position startpos moves e2e4");
    e.send("go depth 2");
    e.send("d");
    // isready is answered at once: no bestmove yet, nothing queued has run.
    let meanwhile = e.sync();
    assert!(bestmoves(&meanwhile).is_empty(), "{meanwhile:?}");
    assert!(!meanwhile.iter().any(|l| l.starts_with("Fen:")));
    e.send("stop");
    let first = e.read_until(LONG, |l| l.starts_with("bestmove"));
    assert_legal(&Chess::default(), &bestmove(&first), &first);
    // Then the queued position and go: a move for Black.
    let second = e.read_until(LONG, |l| l.starts_with("bestmove"));
    assert_legal(
        &referee(None, &["e2e4"], CastlingMode::Standard),
        &bestmove(&second),
        &second,
    );
    let after = e.sync();
    assert!(
        after
            .iter()
            .any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        "{after:?}"
    );
}

#[test]
fn unknown_commands_during_a_search_are_refused_at_once() {
    let mut e = ready_engine();
    e.send("go infinite");
    e.send("frobnicate");
    // The search's own info lines may come in between.
    let reply: Vec<String> = e
        .sync()
        .into_iter()
        .filter(|l| !l.starts_with("info depth"))
        .collect();
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert!(reply[0].starts_with("info string error: unknown command 'frobnicate'"));
    e.send("uci");
    let uci = e.read_until(LONG, |l| l == "uciok");
    assert!(bestmoves(&uci).is_empty());
    e.ask("stop", "bestmove", LONG);
}

#[test]
fn quit_during_a_search_sends_its_bestmove_first() {
    let mut e = ready_engine();
    e.send("go infinite");
    e.send("position startpos moves e2e4");
    e.sync();
    let lines = quit_after(&mut e, |l| l.starts_with("bestmove"));
    assert_legal(&Chess::default(), &bestmove(&lines), &lines);
}

#[test]
fn stop_isready_quit_sends_bestmove_then_readyok() {
    // The pre-stop check and a GUI closing down: `isready` queued behind a stopping
    // search is still answered when `quit` follows at once.
    let mut e = ready_engine();
    e.send("go");
    e.send("bench 0");
    e.send("stop");
    e.send("isready");
    let lines = quit_after(&mut e, |l| l == "readyok");
    let best = lines.iter().position(|l| l.starts_with("bestmove"));
    let ready = lines.iter().position(|l| l == "readyok");
    assert!(best.is_some() && best < ready, "{lines:?}");
}

#[test]
fn isready_and_quit_are_answered_while_bench_runs() {
    let mut e = ready_engine();
    // Depth 30 would take far longer than this test.
    e.send("bench 30");
    e.send("go depth 1");
    let meanwhile = e.sync();
    assert!(
        !meanwhile.iter().any(|l| l.ends_with(" nps")),
        "{meanwhile:?}"
    );
    assert!(bestmoves(&meanwhile).is_empty(), "go waits for bench");
    e.send("quit");
    assert!(e.exited_within(PROMPT));
}

#[test]
fn end_of_input_stops_a_search_without_limits() {
    // Only the opponent's clock, or no limit at all: like `go infinite` at end of
    // input, the search is stopped, and the queued search after it still runs.
    for script in [
        "position startpos moves e2e4\ngo wtime 1000\n",
        "go\n",
        "go ponder\n",
        "go infinite\ngo depth 2\n",
    ] {
        let start = Instant::now();
        let text = piped(script);
        let expected = script.matches("go").count();
        assert_eq!(
            text.lines().filter(|l| l.starts_with("bestmove")).count(),
            expected,
            "{script:?}: {text}"
        );
        assert!(start.elapsed() < Duration::from_secs(30), "{script:?}");
    }
}

#[test]
fn several_piped_searches_all_give_their_bestmove() {
    let (ok, out) = run_occam(&[
        "go depth 3",
        "go nodes 2000",
        "go movetime 50",
        "go depth 2",
    ]);
    assert!(ok, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("bestmove")).count(),
        4,
        "{out}"
    );
}

#[test]
fn a_ponder_search_that_ends_by_itself_answers_at_ponderhit() {
    let mut e = ready_engine();
    e.send("go ponder depth 1");
    e.send("position startpos moves e2e4");
    let meanwhile = e.lines_within(Duration::from_millis(300));
    assert!(bestmoves(&meanwhile).is_empty(), "{meanwhile:?}");
    // The search is over but its bestmove waits; commands still get answers.
    e.send("uci");
    e.read_until(LONG, |l| l == "uciok");
    e.send("ponderhit");
    let lines = e.read_until(PROMPT, |l| l.starts_with("bestmove"));
    assert_legal(&Chess::default(), &bestmove(&lines), &lines);
    // The queued position was applied after it.
    assert_eq!(
        fen_of(&mut e),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

#[test]
fn an_overlong_line_is_skipped_with_one_error() {
    let mut e = ready_engine();
    e.send(&format!("go depth 2 {}", "x".repeat(3 << 20)));
    let reply = e.sync();
    assert_eq!(reply.len(), 1, "{:?}", &reply);
    assert!(
        reply[0].starts_with("info string error: a line longer than"),
        "{reply:?}"
    );
    let lines = go(&mut e, "depth 2");
    assert_legal(&Chess::default(), &bestmove(&lines), &lines);
}
