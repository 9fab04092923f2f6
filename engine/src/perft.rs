//! Perft through the engine's own position wrapper (copy-make + incremental hash).

use crate::position::{Position, full_hash};

/// Counts leaf nodes at `depth`. With `check_hash`, asserts at every node that the
/// incremental hash equals a full recompute.
pub fn perft(pos: &Position, depth: u32, check_hash: bool) -> u64 {
    if check_hash {
        assert_eq!(
            pos.hash(),
            full_hash(pos.board()),
            "incremental hash diverged at {}",
            pos.fen()
        );
    }
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 && !check_hash {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&m| perft(&pos.play(m), depth - 1, check_hash))
        .sum()
}

/// Per-move counts at the root (`go perft` / `divide`).
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    pos.legal_moves()
        .iter()
        .map(|&m| {
            (
                pos.move_to_uci(m),
                if depth <= 1 {
                    1
                } else {
                    perft(&pos.play(m), depth - 1, false)
                },
            )
        })
        .collect()
}

/// The perft suite's positions (FEN, Chess960) with a depth that keeps a walk over
/// every node quick, for tests that check something at every node.
#[cfg(test)]
pub(crate) const SUITE: &[(&str, bool, u32)] = &[
    (crate::position::START_FEN, false, 4),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
        3,
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false, 4),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        false,
        3,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        false,
        3,
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        false,
        3,
    ),
    ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", false, 4),
    ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", false, 4),
    ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", false, 4),
    ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", false, 4),
    ("r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", false, 3),
    ("r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", false, 3),
    ("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", false, 4),
    ("8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", false, 4),
    ("4k3/1P6/8/8/8/8/K7/8 w - - 0 1", false, 4),
    ("8/P1k5/K7/8/8/8/8/8 w - - 0 1", false, 4),
    ("K1k5/8/P7/8/8/8/8/8 w - - 0 1", false, 4),
    ("8/k1P5/8/1K6/8/8/8/8 w - - 0 1", false, 4),
    ("8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", false, 4),
    (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        true,
        3,
    ),
];

/// Calls `visit` on every node of the perft tree of every [`SUITE`] position, the
/// positions made by `play(parent, move)`.
#[cfg(test)]
pub(crate) fn walk_suite(
    play: &dyn Fn(&Position, shakmaty::Move) -> Position,
    visit: &mut dyn FnMut(&Position),
) {
    fn go(
        pos: &Position,
        depth: u32,
        play: &dyn Fn(&Position, shakmaty::Move) -> Position,
        visit: &mut dyn FnMut(&Position),
    ) {
        visit(pos);
        if depth > 0 {
            for m in pos.legal_moves() {
                go(&play(pos, m), depth - 1, play, visit);
            }
        }
    }
    for &(fen, chess960, depth) in SUITE {
        go(
            &Position::from_fen(fen, chess960).unwrap(),
            depth,
            play,
            visit,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PsqTable;
    use crate::score::S;
    use shakmaty::Position as _;

    /// The child's hash computed from the move alone (which `play` also uses) equals
    /// the hash of the child from scratch, for every move at every perft node.
    #[test]
    fn child_hash_equals_the_full_hash_after_the_move() {
        let mut moves = 0u64;
        walk_suite(&|p, m| p.play(m), &mut |pos| {
            for m in pos.legal_moves() {
                let mut child = pos.board().clone();
                child.play_unchecked(m);
                assert_eq!(pos.child_hash(m), full_hash(&child), "{} {m}", pos.fen());
                moves += 1;
            }
        });
        assert!(moves > 1_000_000, "{moves}");
    }

    /// The written-out copy equals `clone()` in every field, with and without a
    /// material + PST sum, and the root's `with_psq` sum is the full sum.
    #[test]
    fn copy_equals_clone_and_the_root_sum_is_the_full_sum() {
        // Any values do: distinct by role and square, so a mirroring slip shows.
        let table = &PsqTable::new(|role, sq| S::new(role as i32 * 100 + sq as i32, sq as i32));
        let mut nodes = 0u64;
        walk_suite(&|p, m| p.play_psq(m, table), &mut |pos| {
            assert_eq!(format!("{:?}", pos.copy()), format!("{pos:?}"));
            let root = pos.with_psq(table);
            assert_eq!(root.psq(table), Some(table.full_sum(pos.board())));
            assert_eq!(format!("{:?}", root.copy()), format!("{root:?}"));
            nodes += 1;
        });
        assert!(nodes > 100_000, "{nodes}");
    }

    /// `quiet_gives_check` agrees with playing the move for every quiet move at every
    /// node of the suite walk.
    #[test]
    fn quiet_gives_check_matches_playing_the_move_at_every_node() {
        let (mut quiets, mut checks) = (0u64, 0u64);
        walk_suite(&|p, m| p.play(m), &mut |p| {
            for m in p.legal_moves() {
                if m.is_capture() || m.is_promotion() || m.is_castle() {
                    continue;
                }
                let check = p.play(m).is_check();
                assert_eq!(p.quiet_gives_check(&m), check, "{} {m}", p.fen());
                quiets += 1;
                checks += u64::from(check);
            }
        });
        assert!(
            quiets > 1_000_000 && checks > 10_000,
            "{quiets} quiets, {checks} checks"
        );
    }

    #[test]
    fn checkers_are_kept_through_every_move() {
        // Through `play_psq` (the search's path); `play` is what perft itself uses.
        let table = PsqTable::new(|_, _| S::default());
        let mut checks = 0u64;
        walk_suite(&|p, m| p.play_psq(m, &table), &mut |p| {
            assert_eq!(p.checkers(), p.board().checkers(), "{}", p.fen());
            for m in p.legal_moves().into_iter().take(3) {
                assert_eq!(p.play(m).checkers(), p.play(m).board().checkers());
            }
            checks += u64::from(p.is_check());
            if let Some(n) = p.play_null() {
                assert_eq!(n.checkers(), n.board().checkers(), "{}", p.fen());
            }
        });
        assert!(checks > 1_000, "{checks} positions in check");
    }

    fn check(fen: &str, chess960: bool, counts: &[u64], hashed_depth: u32) {
        let pos = Position::from_fen(fen, chess960).unwrap();
        for (i, &expected) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(
                perft(&pos, depth, depth <= hashed_depth),
                expected,
                "{fen} depth {depth}"
            );
        }
    }

    // The standard six positions (chessprogramming wiki "Perft Results").
    #[test]
    fn startpos() {
        check(
            crate::position::START_FEN,
            false,
            &[20, 400, 8_902, 197_281, 4_865_609],
            4,
        );
    }
    #[test]
    fn kiwipete() {
        check(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
            &[48, 2_039, 97_862, 4_085_603],
            3,
        );
    }
    #[test]
    fn position3_en_passant_and_pins() {
        check(
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            false,
            &[14, 191, 2_812, 43_238, 674_624],
            5,
        );
    }
    #[test]
    fn position4_promotions_and_castling() {
        check(
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            false,
            &[6, 264, 9_467, 422_333],
            3,
        );
    }
    #[test]
    fn position5() {
        check(
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            false,
            &[44, 1_486, 62_379, 2_103_487],
            3,
        );
    }
    #[test]
    fn position6() {
        check(
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            false,
            &[46, 2_079, 89_890, 3_894_594],
            3,
        );
    }

    // Named edge cases (Martin Sedlak's set).
    #[test]
    fn illegal_en_passant_move_exposes_king() {
        check(
            "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
            false,
            &[18, 92, 1_670, 10_138, 185_429, 1_134_888],
            6,
        );
    }
    #[test]
    fn en_passant_capture_checks_opponent() {
        check(
            "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
            false,
            &[15, 126, 1_928, 13_931, 206_379, 1_440_467],
            6,
        );
    }
    #[test]
    fn short_castling_gives_check() {
        check(
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            false,
            &[15, 66, 1_198, 6_399, 120_330, 661_072],
            6,
        );
    }
    #[test]
    fn long_castling_gives_check() {
        check(
            "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
            false,
            &[16, 71, 1_286, 7_418, 141_077, 803_711],
            6,
        );
    }
    #[test]
    fn castle_rights_lost_by_capture() {
        check(
            "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
            false,
            &[26, 1_141, 27_826, 1_274_206],
            3,
        );
    }
    #[test]
    fn castling_prevented() {
        check(
            "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
            false,
            &[44, 1_494, 50_509, 1_720_476],
            3,
        );
    }
    #[test]
    fn promote_out_of_check() {
        check(
            "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1",
            false,
            &[11, 133, 1_442, 19_174, 266_199, 3_821_001],
            5,
        );
    }
    #[test]
    fn discovered_check() {
        check(
            "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1",
            false,
            &[29, 165, 5_160, 31_961, 1_004_658],
            5,
        );
    }
    #[test]
    fn promote_to_give_check() {
        check(
            "4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
            false,
            &[9, 40, 472, 2_661, 38_983, 217_342],
            6,
        );
    }
    #[test]
    fn under_promote_to_give_check() {
        check(
            "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
            false,
            &[6, 27, 273, 1_329, 18_135, 92_683],
            6,
        );
    }
    #[test]
    fn self_stalemate() {
        check(
            "K1k5/8/P7/8/8/8/8/8 w - - 0 1",
            false,
            &[2, 6, 13, 63, 382, 2_217],
            6,
        );
    }
    #[test]
    fn stalemate_and_checkmate() {
        check(
            "8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
            false,
            &[10, 25, 268, 926, 10_857, 43_261, 567_584],
            7,
        );
    }
    #[test]
    fn double_check() {
        check(
            "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
            false,
            &[37, 183, 6_559, 23_527, 811_573],
            5,
        );
    }
    #[test]
    fn chess960_castling() {
        // Chess960 position #1 of the chessprogramming wiki list.
        check(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            true,
            &[21, 528, 12_189, 326_672],
            3,
        );
    }
}
