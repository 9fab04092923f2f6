//! `occam genfens` through the real binary, as OpenBench's datagen workloads run it:
//! `occam "genfens N seed S book <path|None> [extra]" "quit"`, reading the lines
//! `info string genfens <FEN>`. Positions are checked with shakmaty as the referee.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use occam_tests::{Engine, binary};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

const LONG: Duration = Duration::from_secs(60);
const PREFIX: &str = "info string genfens ";

/// Every stdout line of `occam <args…>` (the process must exit successfully).
fn occam(args: &[&str]) -> Vec<String> {
    let out = Command::new(binary("occam"))
        .args(args)
        .output()
        .expect("run occam");
    assert!(out.status.success(), "occam {args:?}: {:?}", out.status);
    String::from_utf8(out.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The FENs of a genfens output, which must hold nothing but genfens lines.
fn fens(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l.strip_prefix(PREFIX)
                .unwrap_or_else(|| panic!("not a genfens line: '{l}' in {lines:#?}"))
                .to_string()
        })
        .collect()
}

/// A legal position with a move to play, as shakmaty reads it.
fn referee(fen: &str) -> Chess {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("'{fen}': {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("'{fen}' is not a legal position: {e}"));
    assert!(!pos.legal_moves().is_empty(), "'{fen}' has no legal move");
    assert!(!pos.is_insufficient_material(), "'{fen}' is a dead draw");
    pos
}

/// The board, side to move, castling and en passant fields: what makes an opening.
fn opening(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    assert_eq!(
        fields.len(),
        6,
        "'{fen}' must have six FEN fields (OpenBench reads the counters)"
    );
    fields[..4].join(" ")
}

fn assert_legal_and_distinct(fens: &[String]) {
    let mut seen = HashSet::new();
    for fen in fens {
        referee(fen);
        assert!(seen.insert(opening(fen)), "'{fen}' is printed twice");
    }
}

fn scratch_dir(name: &str) -> PathBuf {
    occam_tests::scratch_dir(&format!("genfens-{name}"))
}

#[test]
fn a_hundred_legal_distinct_positions_from_the_start_position() {
    let lines = occam(&["genfens", "100", "seed", "1", "book", "None"]);
    let fens = fens(&lines);
    assert_eq!(fens.len(), 100);
    assert_legal_and_distinct(&fens);
    // Varied: both sides to move, and not all from the same first move.
    let white = fens.iter().filter(|f| f.contains(" w ")).count();
    assert!(
        (10..=90).contains(&white),
        "{white} of 100 with White to move"
    );
    let boards: HashSet<&str> = fens.iter().map(|f| &f[..f.find(' ').unwrap()]).collect();
    assert_eq!(boards.len(), 100);
}

#[test]
fn the_seed_fixes_the_positions() {
    // OpenBench's shape: the command in one argument (with the trailing space of an
    // empty extra), then "quit", which must wait for every line.
    let a = occam(&["genfens 100 seed 1 book None ", "quit"]);
    let b = occam(&["genfens", "100", "seed", "1", "book", "None"]);
    assert_eq!(a, b);
    assert_eq!(fens(&a).len(), 100);
    let c = occam(&["genfens 100 seed 2 book None", "quit"]);
    assert_legal_and_distinct(&fens(&c));
    let shared = a.iter().filter(|l| c.contains(l)).count();
    assert!(shared < 10, "seeds 1 and 2 share {shared} of 100 positions");
    // The count only says where to stop.
    let first = occam(&["genfens 30 seed 1 book None", "quit"]);
    assert_eq!(first[..], a[..30]);
}

#[test]
fn positions_come_from_the_book_plus_two_or_three_random_plies() {
    let dir = scratch_dir("book");
    let book = dir.join("book.epd");
    let entries = [
        // EPD with operations, FEN with counters, a blank line between.
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - hmvc 2; fmvn 3;",
        "",
        "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    ];
    std::fs::write(&book, entries.join("\n") + "\n").unwrap();
    let path = book.to_str().unwrap();
    let lines = occam(&[&format!("genfens 40 seed 5 book {path}"), "quit"]);
    let fens = fens(&lines);
    assert_eq!(fens.len(), 40);
    assert_legal_and_distinct(&fens);
    // Every position is 2 or 3 plies from a book position.
    let mut reachable = HashSet::new();
    for entry in [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    ] {
        let mut frontier = vec![referee(entry)];
        for ply in 1..=3 {
            let mut next = Vec::new();
            for pos in &frontier {
                for m in pos.legal_moves() {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    if ply >= 2 {
                        reachable
                            .insert(Fen::from_position(&child, EnPassantMode::Legal).to_string());
                    }
                    next.push(child);
                }
            }
            frontier = next;
        }
    }
    for fen in &fens {
        assert!(
            reachable.contains(fen),
            "'{fen}' is not 2-3 plies from the book"
        );
    }
    let again = occam(&[&format!("genfens 40 seed 5 book {path}"), "quit"]);
    assert_eq!(lines, again);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_get_one_error_line_and_nothing_else() {
    let dir = scratch_dir("bad");
    let empty = dir.join("empty.epd");
    std::fs::write(&empty, "\n  \n").unwrap();
    let bad_line = dir.join("bad.epd");
    std::fs::write(
        &bad_line,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\nnot a position\n",
    )
    .unwrap();
    let missing = dir.join("missing.epd");
    let cases = [
        ("genfens".to_string(), "number of positions is missing"),
        (
            "genfens seed 1 book None".into(),
            "'seed' is not a number of positions",
        ),
        (
            "genfens x seed 1 book None".into(),
            "'x' is not a number of positions",
        ),
        (
            "genfens 0 seed 1 book None".into(),
            "'0' is not a number of positions",
        ),
        (
            "genfens 10 seed -1 book None".into(),
            "'seed -1' is not a number",
        ),
        (
            "genfens 10 seed 1 book".into(),
            "'book' needs a file path or None",
        ),
        (
            "genfens 10 seed 1 book None depth 3".into(),
            "unknown argument 'depth'",
        ),
        (
            format!("genfens 10 seed 1 book {}", missing.display()),
            "cannot read book",
        ),
        (
            format!("genfens 10 seed 1 book {}", empty.display()),
            "holds no positions",
        ),
        (
            format!("genfens 10 seed 1 book {}", bad_line.display()),
            "line 2",
        ),
    ];
    for (command, needle) in &cases {
        // One argument: the whole command (a lone "genfens" followed by "quit" would
        // read as "genfens quit").
        let lines = occam(&[command]);
        assert_eq!(lines.len(), 1, "{command}: {lines:#?}");
        let line = &lines[0];
        assert!(
            line.starts_with("info string error: genfens: "),
            "{command}: {line}"
        );
        assert!(
            line.contains(needle),
            "{command}: '{line}' lacks '{needle}'"
        );
        assert!(
            line.contains("expected 'genfens <N>")
                || line.contains("one FEN or EPD position per line"),
            "{command}: '{line}' does not say what is allowed"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_book_or_seed_without_enough_new_positions_ends_with_an_error() {
    // The start position and one random ply give 21 positions, not 100.
    let lines = occam(&["genfens 100 seed 1 book None plies 0", "quit"]);
    let (last, positions) = lines.split_last().unwrap();
    assert_eq!(fens(positions).len(), 21);
    assert!(last.starts_with("info string error: genfens: "), "{last}");
    assert!(last.contains("after 21 of 100 positions"), "{last}");
}

#[test]
fn in_the_uci_shell_genfens_waits_for_a_search_and_stop_ends_it() {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", LONG);
    // Queued behind a running search, as bench is.
    e.send("go infinite");
    e.send("genfens 5 seed 9 book None");
    let early = e.sync();
    assert!(
        early.iter().all(|l| !l.starts_with(PREFIX)),
        "genfens ran during the search: {early:?}"
    );
    e.send("stop");
    let lines = e.read_until(LONG, |l| l.starts_with("bestmove"));
    assert!(lines.iter().all(|l| !l.starts_with(PREFIX)), "{lines:?}");
    let mut after = Vec::new();
    while after.len() < 5 {
        after.extend(
            e.read_until(LONG, |l| l.starts_with(PREFIX))
                .into_iter()
                .filter(|l| l.starts_with(PREFIX)),
        );
    }
    let expected = occam(&["genfens 5 seed 9 book None", "quit"]);
    assert_eq!(after, expected);
    // A long run: isready is answered while it runs, stop ends it with a note.
    e.send("genfens 10000000 seed 1 book None");
    e.read_until(LONG, |l| l.starts_with(PREFIX));
    e.send("isready");
    e.read_until(LONG, |l| l == "readyok");
    e.send("stop");
    let end = e.read_until(LONG, |l| l.starts_with("info string genfens stopped after"));
    assert!(
        end.iter()
            .all(|l| l.starts_with(PREFIX) || l.starts_with("info string genfens stopped"))
    );
    assert!(e.sync().is_empty());
    e.send("quit");
    assert!(e.exited_within(Duration::from_secs(10)));
}
