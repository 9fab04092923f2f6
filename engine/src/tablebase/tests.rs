//! The tables of `tests/data/syzygy` (committed fixtures, see its README): opening
//! and its errors, WDL values of textbook endings, the root move choice and the
//! fifty-move rule. A missing fixture fails these tests; nothing is skipped.

use super::textbook_endings::KNOWN;
use super::*;
use crate::score::MATE_BOUND;
use shakmaty::CastlingMode;
use shakmaty::fen::Fen;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");

fn tb() -> Tablebases {
    Tablebases::open(FIXTURES)
        .expect("the fixture tables open")
        .expect("a path was given")
}

fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// A fresh empty directory under the system's temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occam-tb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Only Kb2 wins in time: 70 half-moves are gone and it is the one move with
/// DTZ 29 (every other winning move needs 31 or more plies to the mate).
const FIFTY_MOVE_FEN: &str = "8/8/8/8/4k3/8/3R4/K7 w - - 70 1";

#[test]
fn the_fixtures_open() {
    let t = tb();
    assert_eq!(t.files(), 22, "every fixture table is found");
    assert_eq!(t.max_pieces(), 4);
    assert_eq!(t.cardinality(7), 4);
    assert_eq!(t.cardinality(3), 3);
    assert!(
        t.summary()
            .starts_with("22 Syzygy table files (up to 4 pieces) in ")
    );
}

#[test]
fn an_empty_path_means_no_tables() {
    for value in ["", "  ", EMPTY_PATH] {
        assert!(Tablebases::open(value).unwrap().is_none(), "{value:?}");
    }
    let only_separators = format!("{PATH_SEPARATOR}{PATH_SEPARATOR}");
    let e = Tablebases::open(&only_separators).unwrap_err();
    assert!(e.contains("names no directory"), "{e}");
}

#[test]
fn bad_paths_are_refused_with_their_name() {
    let missing = std::env::temp_dir().join("occam-no-such-syzygy-dir");
    let e = Tablebases::open(missing.to_str().unwrap()).unwrap_err();
    assert!(
        e.starts_with("cannot read Syzygy directory") && e.contains("occam-no-such-syzygy-dir"),
        "{e}"
    );

    // One good and one missing directory: the whole value is refused.
    let both = format!("{FIXTURES}{PATH_SEPARATOR}{}", missing.display());
    let e = Tablebases::open(&both).unwrap_err();
    assert!(e.contains("occam-no-such-syzygy-dir"), "{e}");

    let file = format!("{FIXTURES}/KQvK.rtbw");
    let e = Tablebases::open(&file).unwrap_err();
    assert!(e.contains("is not a directory"), "{e}");

    let empty = temp_dir("empty");
    std::fs::write(empty.join("notes.txt"), "no tables here").unwrap();
    let e = Tablebases::open(empty.to_str().unwrap()).unwrap_err();
    assert!(e.contains("holds no Syzygy tables"), "{e}");

    let broken = temp_dir("broken");
    std::fs::write(broken.join("KQvK.rtbw"), [0u8; 80]).unwrap();
    let e = Tablebases::open(broken.to_str().unwrap()).unwrap_err();
    assert!(
        e.contains("KQvK.rtbw") && e.contains("is not a Syzygy table"),
        "{e}"
    );

    // A truncated file with the right header is refused by its size.
    let truncated = temp_dir("truncated");
    let head = std::fs::read(format!("{FIXTURES}/KRvK.rtbz")).unwrap();
    std::fs::write(truncated.join("KRvK.rtbz"), &head[..100]).unwrap();
    let e = Tablebases::open(truncated.to_str().unwrap()).unwrap_err();
    assert!(e.contains("KRvK.rtbz") && e.contains("unusable"), "{e}");

    for dir in [empty, broken, truncated] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn several_directories_add_up() {
    let extra = temp_dir("extra");
    let mut names = Vec::new();
    for name in ["KQvK.rtbw", "KQvK.rtbz"] {
        std::fs::copy(format!("{FIXTURES}/{name}"), extra.join(name)).unwrap();
        names.push(name);
    }
    let value = format!("{}{PATH_SEPARATOR}{FIXTURES}", extra.display());
    let t = Tablebases::open(&value).unwrap().unwrap();
    assert_eq!(t.files(), 22 + names.len());
    let _ = std::fs::remove_dir_all(extra);
}

#[test]
fn textbook_endings_have_their_result() {
    let t = tb();
    for &(name, fen, wdl) in KNOWN {
        assert_eq!(t.probe_wdl(&chess(fen)), Some(wdl), "{name}: {fen}");
    }
}

#[test]
fn probes_decline_what_the_tables_cannot_tell() {
    let t = tb();
    // Castling rights, too many pieces, a material with no table (KQvKQ).
    for fen in [
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "3qk3/8/8/8/8/8/8/3QK3 w - - 0 1",
    ] {
        let pos = chess(fen);
        assert_eq!(t.probe_wdl(&pos), None, "{fen}");
        assert_eq!(t.root_probe(&pos, &ProbeSettings::default()), None, "{fen}");
    }
}

/// The move chosen at the root keeps the root's result: the position after it has
/// the opposite result for the opponent.
#[test]
fn the_root_move_keeps_the_result() {
    let t = tb();
    for &(name, fen, wdl) in KNOWN {
        let pos = chess(fen);
        let probe = t
            .root_probe(&pos, &ProbeSettings::default())
            .unwrap_or_else(|| panic!("{name}: no root probe"));
        assert_eq!(probe.wdl, wdl, "{name}");
        assert!(probe.keeping.contains(&probe.best_move), "{name}");
        let mut child = pos.clone();
        child.play_unchecked(probe.best_move);
        let after = if child.is_checkmate() {
            Wdl::Loss
        } else {
            let dtz = t.tables.probe_dtz(&child).unwrap().ignore_rounding();
            Wdl::from_dtz(dtz)
        };
        assert_eq!(
            after,
            -wdl,
            "{name}: {} gives {after:?}",
            uci(probe.best_move)
        );
        assert_eq!(probe.wdl.signum(), probe.dtz.signum(), "{name}");
    }
}

#[test]
fn a_hanging_queen_is_taken() {
    let probe = tb()
        .root_probe(&chess(KNOWN[1].1), &ProbeSettings::default())
        .unwrap();
    assert_eq!(probe.wdl, Wdl::Draw);
    assert_eq!(uci(probe.best_move), "b2b1");
    assert_eq!(probe.keeping, vec![probe.best_move], "only Kxb1 draws");
}

#[test]
fn only_one_move_wins_under_the_fifty_move_rule() {
    let t = tb();
    let late = chess(FIFTY_MOVE_FEN);
    let probe = t.root_probe(&late, &ProbeSettings::default()).unwrap();
    assert_eq!(probe.wdl, Wdl::Win);
    assert_eq!(uci(probe.best_move), "a1b2");
    assert_eq!(probe.keeping.len(), 1, "only Kb2 keeps the win");
    assert!(probe.dtz + 70 <= 100, "{}", probe.dtz);

    // The same position with a fresh clock: many moves win.
    let fresh = chess(&FIFTY_MOVE_FEN.replace(" 70 1", " 0 1"));
    let probe = t.root_probe(&fresh, &ProbeSettings::default()).unwrap();
    assert_eq!(probe.wdl, Wdl::Win);
    assert!(probe.keeping.len() > 5, "{}", probe.keeping.len());

    // Too late for any move: a cursed win under the rule, a win without it.
    let too_late = chess(&FIFTY_MOVE_FEN.replace(" 70 1", " 80 1"));
    let probe = t.root_probe(&too_late, &ProbeSettings::default()).unwrap();
    assert_eq!(probe.wdl, Wdl::CursedWin);
    assert_eq!(uci(probe.best_move), "a1b2", "still the fastest try");
    assert_eq!(root_score(&probe, true), 1);
    let ignoring = ProbeSettings {
        rule50: false,
        ..ProbeSettings::default()
    };
    let probe = t.root_probe(&too_late, &ignoring).unwrap();
    assert_eq!(probe.wdl, Wdl::Win);
    assert!(root_score(&probe, false) > TB_WIN_BOUND);
}

#[test]
fn the_probe_limit_bounds_the_root_probe() {
    let t = tb();
    let kbn = chess("8/8/8/4k3/8/8/8/KBN5 w - - 0 1");
    let limited = ProbeSettings {
        limit: 3,
        ..ProbeSettings::default()
    };
    assert!(t.root_probe(&kbn, &limited).is_none());
    let krk = chess("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    assert!(t.root_probe(&krk, &limited).is_some());
}

#[test]
fn mate_in_one_is_reported_as_mate() {
    // Qb7 is mate.
    let pos = chess("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1");
    let probe = tb().root_probe(&pos, &ProbeSettings::default()).unwrap();
    assert!(probe.mates, "{}", uci(probe.best_move));
    assert_eq!(root_score(&probe, true), MATE - 1);
}

#[test]
fn adjudication_applies_the_fifty_move_rule() {
    let t = tb();
    assert_eq!(t.adjudicate(&chess(KNOWN[0].1)), Some(Wdl::Win));
    assert_eq!(t.adjudicate(&chess(KNOWN[3].1)), Some(Wdl::Loss));
    assert_eq!(t.adjudicate(&chess(KNOWN[4].1)), Some(Wdl::Draw));
    // DTZ 29 with 80 half-moves gone: the win is too late, a draw.
    let too_late = FIFTY_MOVE_FEN.replace(" 70 1", " 80 1");
    assert_eq!(t.adjudicate(&chess(&too_late)), Some(Wdl::Draw));
    assert_eq!(t.adjudicate(&chess(FIFTY_MOVE_FEN)), Some(Wdl::Win));
    assert_eq!(
        t.adjudicate(&chess("3qk3/8/8/8/8/8/8/3QK3 w - - 0 1")),
        None
    );
}

#[test]
fn tablebase_scores_sit_between_evals_and_mates() {
    const { assert!(TB_WIN_BOUND > 20_000 && TB_WIN < MATE_BOUND) };
    assert_eq!(tb_score(Wdl::Win, 3, true), TB_WIN - 3);
    assert_eq!(tb_score(Wdl::Loss, 3, true), -TB_WIN + 3);
    assert_eq!(tb_score(Wdl::CursedWin, 3, true), 1);
    assert_eq!(tb_score(Wdl::BlessedLoss, 3, true), -1);
    assert_eq!(tb_score(Wdl::CursedWin, 3, false), TB_WIN - 3);
    assert_eq!(tb_score(Wdl::BlessedLoss, 3, false), -TB_WIN + 3);
    assert_eq!(tb_score(Wdl::Draw, 3, false), 0);
    assert!(tb_score(Wdl::Win, MAX_PLY, true) >= TB_WIN_BOUND);
}
