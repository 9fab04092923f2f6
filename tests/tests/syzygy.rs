//! Syzygy tablebases through the real `occam` binary: the options, the root move
//! and score in textbook endings (tables of `tests/data/syzygy`; a missing fixture
//! fails, nothing is skipped), the fifty-move rule, probes inside the search, and
//! bad paths or values (one error line, the engine plays on).
//!
//! The referee is `occam::tablebase::Tablebases::adjudicate` on the position after
//! the engine's move: the WDL under the fifty-move rule, probed afresh.

use std::time::Duration;

use occam::tablebase::{TB_WIN_BOUND, Tablebases, Wdl};
use occam_tests::{Engine, workspace_root};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

const LONG: Duration = Duration::from_secs(60);

fn tables_dir() -> String {
    let dir = workspace_root().join("tests/data/syzygy");
    assert!(
        dir.join("KQvK.rtbw").exists(),
        "fixture tables missing in {}",
        dir.display()
    );
    dir.to_str().unwrap().to_string()
}

fn referee() -> Tablebases {
    Tablebases::open(&tables_dir()).unwrap().unwrap()
}

fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// An engine with the fixture tables loaded; checks the one summary line.
fn engine_with_tables() -> Engine {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", LONG);
    e.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string 22 Syzygy table files (up to 4 pieces) in "),
        "{lines:?}"
    );
    e
}

/// What one search said: the last `info` line's score (centipawns, mates as ±30000
/// minus the distance), its `tbhits`, and the best move.
struct Answer {
    score: i32,
    tbhits: u64,
    bestmove: String,
    lines: Vec<String>,
}

fn search(e: &mut Engine, fen: &str, go: &str) -> Answer {
    e.send(&format!("position fen {fen}"));
    let lines = e.ask(go, "bestmove", LONG);
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line: {lines:?}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let after = |key: &str| -> &str {
        let i = words
            .iter()
            .position(|w| *w == key)
            .unwrap_or_else(|| panic!("no {key}: {info}"));
        words[i + 1]
    };
    let score = match after("score") {
        "cp" => after("cp").parse().unwrap(),
        "mate" => {
            let n: i32 = after("mate").parse().unwrap();
            if n > 0 { 30_000 - n } else { -30_000 - n }
        }
        other => panic!("score {other}: {info}"),
    };
    Answer {
        score,
        tbhits: after("tbhits").parse().unwrap(),
        bestmove: lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string(),
        lines,
    }
}

/// The result for the side to move after `mv` (the opponent's view negated).
fn result_after(tables: &Tablebases, fen: &str, mv: &str) -> Wdl {
    let mut pos = chess(fen);
    let m = mv.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
    pos.play_unchecked(m);
    if pos.is_checkmate() {
        return Wdl::Win;
    }
    -tables
        .adjudicate(&pos)
        .unwrap_or_else(|| panic!("{fen} {mv}: not in the tables"))
}

// Textbook endings with their result for the side to move, shared with the engine's
// tablebase unit tests.
#[path = "../../engine/src/tablebase/textbook_endings.rs"]
mod textbook_endings;
use textbook_endings::KNOWN;

#[test]
fn the_options_are_listed() {
    let mut e = Engine::occam();
    let lines = e.ask("uci", "uciok", LONG);
    for option in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 128",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
        "option name Syzygy50MoveRule type check default true",
    ] {
        assert!(
            lines.iter().any(|l| l == option),
            "{option} missing: {lines:?}"
        );
    }
}

#[test]
fn textbook_endings_get_the_tablebase_result_and_a_move_that_keeps_it() {
    let tables = referee();
    let mut e = engine_with_tables();
    for &(name, fen, wdl) in KNOWN {
        let a = search(&mut e, fen, "go depth 3");
        match wdl {
            Wdl::Win => assert!(a.score >= TB_WIN_BOUND, "{name}: {:?}", a.lines),
            Wdl::Loss => assert!(a.score <= -TB_WIN_BOUND, "{name}: {:?}", a.lines),
            _ => assert_eq!(a.score, 0, "{name}: {:?}", a.lines),
        }
        assert!(a.tbhits > 0, "{name}: {:?}", a.lines);
        assert_eq!(
            result_after(&tables, fen, &a.bestmove),
            wdl,
            "{name}: {} does not keep the result",
            a.bestmove
        );
    }
}

/// Searches `fen` with `go` and checks that it plays `mv` with a tablebase win score.
fn wins_with(e: &mut Engine, fen: &str, go: &str, mv: &str) -> Answer {
    let a = search(e, fen, go);
    assert_eq!(a.bestmove, mv, "{:?}", a.lines);
    assert!(a.score >= TB_WIN_BOUND, "{:?}", a.lines);
    a
}

#[test]
fn only_the_move_that_wins_in_time_is_played() {
    // 70 half-moves gone: Kb2 (DTZ 29) is the one move that mates before the
    // fifty-move rule draws; many moves win with a fresh clock.
    let fen = "8/8/8/8/4k3/8/3R4/K7 w - - 70 1";
    let mut e = engine_with_tables();
    wins_with(&mut e, fen, "go depth 5", "a1b2");
    assert_eq!(result_after(&referee(), fen, "a1b2"), Wdl::Win);

    // Ten half-moves later no move wins in time: a draw under the rule (scored just
    // above 0), a win when the rule is switched off.
    let late = "8/8/8/8/4k3/8/3R4/K7 w - - 80 1";
    let a = search(&mut e, late, "go depth 5");
    assert_eq!(a.score, 1, "{:?}", a.lines);
    e.send("setoption name Syzygy50MoveRule value false");
    let a = search(&mut e, late, "go depth 5");
    assert!(a.score >= TB_WIN_BOUND, "{:?}", a.lines);
}

#[test]
fn captures_into_the_tables_are_scored_inside_the_search() {
    // KRvKRP, a position the tables do not hold: Rxa8+ enters KRvKP, won.
    let fen = "r3k3/7p/8/8/8/8/8/R3K3 w - - 0 1";
    let mut e = engine_with_tables();
    let a = wins_with(&mut e, fen, "go depth 6", "a1a8");
    assert!(a.tbhits > 0, "{:?}", a.lines);

    // Lazy SMP: every thread probes the one shared set of tables.
    e.send("setoption name Threads value 2");
    let a = wins_with(&mut e, fen, "go depth 6", "a1a8");
    assert!(a.tbhits > 0, "{:?}", a.lines);
    e.send("setoption name Threads value 1");

    // SyzygyProbeLimit 0 switches probing off: the same search scores by the eval.
    e.send("setoption name SyzygyProbeLimit value 0");
    let a = search(&mut e, fen, "go depth 6");
    assert_eq!(a.tbhits, 0, "{:?}", a.lines);
    assert!(a.score < TB_WIN_BOUND, "{:?}", a.lines);
}

#[test]
fn bad_paths_give_one_error_and_the_engine_plays_on() {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", LONG);
    e.send("setoption name SyzygyPath value /no/such/tables");
    let lines = e.sync();
    assert_eq!(
        lines,
        vec![
            "info string error: SyzygyPath: cannot read Syzygy directory '/no/such/tables': No such file or directory (os error 2); no tablebases are in use"
        ]
    );
    let a = search(&mut e, KNOWN[0].1, "go depth 4");
    assert_eq!(a.tbhits, 0, "{:?}", a.lines);
    assert_eq!(result_after(&referee(), KNOWN[0].1, &a.bestmove), Wdl::Win);

    // A broken table file: refused when set; the tables in use stay.
    let dir = occam_tests::scratch_dir("syzygy-broken");
    std::fs::write(dir.join("KQvK.rtbw"), [0u8; 80]).unwrap();
    e.send(&format!("setoption name SyzygyPath value {}", tables_dir()));
    e.sync();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        dir.display()
    ));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: SyzygyPath: '")
            && lines[0].contains("KQvK.rtbw' is not a Syzygy table")
            && lines[0].contains("the tables in use stay (22 Syzygy table files"),
        "{lines:?}"
    );
    let a = search(&mut e, KNOWN[0].1, "go depth 4");
    assert!(a.tbhits > 0, "{:?}", a.lines);
    let _ = std::fs::remove_dir_all(dir);

    // <empty> switches the tables off.
    e.send("setoption name SyzygyPath value <empty>");
    assert!(e.sync().is_empty());
    let a = search(&mut e, KNOWN[0].1, "go depth 4");
    assert_eq!(a.tbhits, 0, "{:?}", a.lines);
}

#[test]
fn bad_option_values_are_refused() {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", LONG);
    for (line, expected) in [
        (
            "setoption name SyzygyProbeLimit value 8",
            "info string error: option 'SyzygyProbeLimit' takes an integer from 0 to 7, got '8'",
        ),
        (
            "setoption name SyzygyProbeLimit value -1",
            "info string error: option 'SyzygyProbeLimit' takes an integer from 0 to 7, got '-1'",
        ),
        (
            "setoption name SyzygyProbeDepth value 0",
            "info string error: option 'SyzygyProbeDepth' takes an integer from 1 to 128, got '0'",
        ),
        (
            "setoption name SyzygyProbeDepth value deep",
            "info string error: option 'SyzygyProbeDepth' takes an integer from 1 to 128, got 'deep'",
        ),
        (
            "setoption name Syzygy50MoveRule value maybe",
            "info string error: option 'Syzygy50MoveRule' takes true or false, got 'maybe'",
        ),
    ] {
        e.send(line);
        assert_eq!(e.sync(), vec![expected.to_string()], "{line}");
    }
    // The separator alone names no directory.
    e.send("setoption name SyzygyPath value :");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("names no directory"), "{lines:?}");
}
