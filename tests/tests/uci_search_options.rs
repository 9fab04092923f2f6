//! A GUI-style session through the real binary with the search options Threads,
//! MultiPV, searchmoves and go mate: `Threads 2`, `MultiPV 3`, `go searchmoves`,
//! `go mate 3`, and their bad inputs.

use std::time::Duration;

use occam_tests::Engine;

const LONG: Duration = Duration::from_secs(120);

fn ready() -> Engine {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", Duration::from_secs(30));
    e.send("setoption name Hash value 8");
    assert!(e.sync().is_empty());
    e
}

/// The value after `key` in an `info` line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    it.position(|t| t == key)?;
    it.next()
}

fn bestmove(lines: &[String]) -> &str {
    field(lines.last().unwrap(), "bestmove").unwrap()
}

#[test]
fn threads_two_searches_and_counts_nodes_of_both() {
    let mut e = ready();
    e.send("setoption name Threads value 2");
    assert!(e.sync().is_empty());
    let lines = search(&mut e, "startpos moves e2e4 e7e5", "go depth 9");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!infos.is_empty());
    let nodes: Vec<u64> = infos
        .iter()
        .map(|l| field(l, "nodes").unwrap().parse().unwrap())
        .collect();
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    assert!(!bestmove(&lines).is_empty() && bestmove(&lines) != "0000");
    // go nodes counts both threads: the search stops close to the limit.
    let lines = e.ask("go nodes 20000", "bestmove", LONG);
    let last = lines.iter().rev().find(|l| l.starts_with("info depth"));
    if let Some(l) = last {
        let n: u64 = field(l, "nodes").unwrap().parse().unwrap();
        assert!(n <= 21_000, "{l}");
    }
    // Back to one thread, and the mate is still found.
    e.send("setoption name Threads value 1");
    let lines = search(&mut e, "fen k7/8/8/8/8/8/6R1/5R1K w - - 0 1", "go depth 6");
    assert!(
        lines.iter().any(|l| l.contains("score mate 2")),
        "{lines:?}"
    );
}

/// Sets up `position …` and returns the lines of `go …` up to its bestmove.
fn search(e: &mut Engine, position: &str, go: &str) -> Vec<String> {
    e.send(&format!("position {position}"));
    e.ask(go, "bestmove", LONG)
}

/// The info lines of one iteration (one per MultiPV line).
fn at_depth(lines: &[String], depth: u32) -> Vec<&String> {
    let depth = depth.to_string();
    lines
        .iter()
        .filter(|l| field(l, "depth") == Some(depth.as_str()))
        .collect()
}

#[test]
fn multipv_three_reports_three_ordered_distinct_lines() {
    let mut e = ready();
    e.send("setoption name MultiPV value 3");
    let lines = search(&mut e, "startpos", "go depth 7");
    let last = at_depth(&lines, 7);
    assert_eq!(last.len(), 3, "{lines:?}");
    let ks: Vec<&str> = last.iter().map(|l| field(l, "multipv").unwrap()).collect();
    assert_eq!(ks, ["1", "2", "3"]);
    let scores: Vec<i32> = last
        .iter()
        .map(|l| field(l, "cp").unwrap().parse().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let firsts: Vec<&str> = last.iter().map(|l| field(l, "pv").unwrap()).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(bestmove(&lines), firsts[0]);
    // More lines than legal moves: one per legal move (black king, two moves).
    let lines = search(&mut e, "fen 7k/8/8/8/8/8/8/K6R b - - 0 1", "go depth 4");
    assert_eq!(at_depth(&lines, 4).len(), 2, "{lines:?}");
    // MultiPV 1: no multipv field at all.
    e.send("setoption name MultiPV value 1");
    let lines = search(&mut e, "startpos", "go depth 4");
    assert!(lines.iter().all(|l| !l.contains("multipv")));
}

#[test]
fn searchmoves_restrict_the_root() {
    let mut e = ready();
    let lines = search(&mut e, "startpos", "go depth 6 searchmoves a2a3 h2h3");
    assert!(["a2a3", "h2h3"].contains(&bestmove(&lines)), "{lines:?}");
    for l in lines.iter().filter(|l| l.starts_with("info depth")) {
        assert!(["a2a3", "h2h3"].contains(&field(l, "pv").unwrap()), "{l}");
    }
    // With MultiPV 3 over two search moves: two lines, both among them.
    e.send("setoption name MultiPV value 3");
    let lines = e.ask("go depth 5 searchmoves g1f3 b1c3", "bestmove", LONG);
    assert_eq!(at_depth(&lines, 5).len(), 2, "{lines:?}");
    // A mate the restriction leaves out is not found: only Rb1-b2 is allowed.
    e.send("setoption name MultiPV value 1");
    let lines = search(
        &mut e,
        "fen k7/8/8/8/8/8/6R1/5R1K w - - 0 1",
        "go depth 5 searchmoves g2b2",
    );
    assert_eq!(bestmove(&lines), "g2b2");
}

#[test]
fn go_mate_three_stops_when_the_mate_is_proven() {
    let mut e = ready();
    e.send("position fen 2k5/8/1K6/8/8/8/8/7R w - - 0 1");
    // No other limit: only the proven mate ends the search.
    let lines = e.ask("go mate 3", "bestmove", LONG);
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert_eq!(field(last, "mate"), Some("2"), "{lines:?}");
    assert_eq!(bestmove(&lines), field(last, "pv").unwrap());
}

#[test]
fn bad_search_options_are_refused_with_one_line_and_change_nothing() {
    let mut e = ready();
    e.send("position startpos");
    for command in [
        "setoption name Threads value 0",
        "setoption name Threads value 257",
        "setoption name MultiPV value 0",
        "setoption name MultiPV value 257",
        "setoption name MultiPV value x",
        "go searchmoves",
        "go searchmoves e2e5",
        "go searchmoves e2e4 zz",
        "go searchmoves e2e4 e7e5",
        "go mate",
        "go mate 0",
        "go mate -2",
        "go mate x",
    ] {
        e.send(command);
        let reply = e.sync();
        assert_eq!(reply.len(), 1, "'{command}' -> {reply:?}");
        assert!(
            reply[0].starts_with("info string error: "),
            "'{command}' -> {reply:?}"
        );
    }
    // Nothing changed: one line per iteration, all moves allowed.
    let lines = e.ask("go depth 3", "bestmove", LONG);
    assert!(lines.iter().all(|l| !l.contains("multipv")));
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("info depth")).count(),
        3
    );
}

/// The lines of the last completed iteration of a MultiPV search, in `multipv` order.
fn last_iteration(lines: &[String]) -> Vec<&String> {
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
        .collect();
    let depth = field(infos.last().expect("no info line"), "depth");
    infos
        .into_iter()
        .filter(|l| field(l, "depth") == depth)
        .collect()
}

/// One session as a GUI drives it, every one of these options set at once: two threads,
/// three lines, tablebases; then a normal move, a restricted root, a tablebase ending
/// and `go mate` in the same process, and back to one thread.
#[test]
fn a_gui_session_with_threads_multipv_tablebases_searchmoves_and_go_mate() {
    use occam::tablebase::{TB_WIN_BOUND, Tablebases, Wdl};
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess, Position as _};

    let tables = occam_tests::workspace_root().join("tests/data/syzygy");
    assert!(tables.join("KQvK.rtbw").exists(), "fixture tables missing");
    let tables = tables.to_str().unwrap().to_string();
    let mut e = Engine::occam();
    e.ask("uci", "uciok", Duration::from_secs(30));
    e.send("setoption name Threads value 2");
    e.send("setoption name MultiPV value 3");
    e.send("setoption name Hash value 8");
    e.send(&format!("setoption name SyzygyPath value {tables}"));
    let reply = e.sync();
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert!(
        reply[0].starts_with("info string 22 Syzygy table files"),
        "{reply:?}"
    );
    e.send("ucinewgame");

    // An opening move: three ordered lines with distinct first moves, the best one played.
    let lines = search(&mut e, "startpos moves e2e4", "go depth 7");
    let last = last_iteration(&lines);
    let ks: Vec<&str> = last.iter().map(|l| field(l, "multipv").unwrap()).collect();
    assert_eq!(ks, ["1", "2", "3"], "{lines:?}");
    let firsts: Vec<&str> = last.iter().map(|l| field(l, "pv").unwrap()).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(bestmove(&lines), firsts[0]);

    // searchmoves with MultiPV 3 over two moves: two lines, both among them.
    let lines = e.ask("go depth 6 searchmoves e7e5 c7c5", "bestmove", LONG);
    let last = last_iteration(&lines);
    assert_eq!(last.len(), 2, "{lines:?}");
    for l in &last {
        assert!(["e7e5", "c7c5"].contains(&field(l, "pv").unwrap()), "{l}");
    }
    assert!(["e7e5", "c7c5"].contains(&bestmove(&lines)));

    // KQvKR, the queen's side to move wins by taking the rook: the first line says a
    // tablebase win, the tables were probed, and the move played keeps the win.
    let fen = "8/8/8/3k4/8/8/2q5/K2R4 b - - 0 1";
    e.send(&format!("position fen {fen}"));
    let lines = e.ask("go depth 8", "bestmove", LONG);
    let first = last_iteration(&lines)[0].clone();
    let score: i32 = field(&first, "cp").map_or(0, |cp| cp.parse().unwrap());
    assert!(
        score > TB_WIN_BOUND || first.contains("score mate "),
        "{first}"
    );
    assert!(
        field(&first, "tbhits").unwrap().parse::<u64>().unwrap() > 0,
        "{first}"
    );
    let referee = Tablebases::open(&tables).unwrap().unwrap();
    let mut pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let played = bestmove(&lines).parse::<UciMove>().unwrap();
    pos.play_unchecked(played.to_move(&pos).unwrap());
    assert!(
        pos.is_checkmate() || referee.adjudicate(&pos) == Some(Wdl::Loss),
        "{fen}: {played} gives the win away"
    );

    // go mate 3 with all of the above still set: the mate in two is proven and played.
    let lines = search(&mut e, "fen 2k5/8/1K6/8/8/8/8/7R w - - 0 1", "go mate 3");
    let first = last_iteration(&lines)[0].clone();
    assert_eq!(field(&first, "mate"), Some("2"), "{lines:?}");
    assert_eq!(bestmove(&lines), field(&first, "pv").unwrap());

    // Back to one thread and one line in the same process.
    e.send("setoption name Threads value 1");
    e.send("setoption name MultiPV value 1");
    assert!(e.sync().is_empty());
    let lines = search(&mut e, "startpos", "go depth 5");
    assert!(lines.iter().all(|l| !l.contains("multipv")), "{lines:?}");
    e.send("quit");
    assert!(e.exited_within(Duration::from_secs(5)));
}
