//! Each term on hand-built positions, the exact colour symmetry, the phase taper,
//! the linear structure used by Texel tuning, and the parameter plumbing.

use super::features as f;
use super::trace::Counts;
use super::*;
use crate::params::{PARAM_SPECS, index_of};
use shakmaty::Square::{B1, E4};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, false).unwrap()
}

/// (White count, Black count) of a feature in a position.
fn count(fen: &str, feature: usize) -> (i32, i32) {
    let mut e = Evaluator::new(&Params::default());
    let mut c = Counts::new(false);
    e.white_score(pos(fen).board(), &mut c);
    (c.white[feature], c.black[feature])
}

fn eval_with(params: &Params, fen: &str) -> i32 {
    Evaluator::new(params).evaluate(&pos(fen))
}

/// Params with the `phase` weight (`f::MG` or `f::EG`) of `feature` moved by `delta`.
fn nudged(feature: usize, phase: usize, delta: i32) -> Params {
    let mut p = Params::default();
    let i = f::PARAMS[feature][phase].expect("the feature has a weight in this phase");
    p.set(i, p.get(i) + delta).unwrap();
    p
}

/// How far nudging `feature`'s `phase` weight by `delta` moves the evaluation of
/// `fen`, with king danger taking no share of the shelter (king_danger.rs reads the
/// shelter score otherwise, so a shelter weight would not be linear).
fn linear_shelter_gain(feature: usize, phase: usize, delta: i32, fen: &str) -> i32 {
    let linear = |mut p: Params| {
        p.king_danger_shelter_pct = 0;
        eval_with(&p, fen)
    };
    linear(nudged(feature, phase, delta)) - linear(Params::default())
}

/// Lone kings plus pawns: phase 0, so eval changes are the endgame weights exactly.
#[test]
fn isolated_pawn_scores_exactly_its_parameter() {
    let fen = "4k3/8/8/8/8/8/P7/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_ISOLATED), (1, 0));
    let base = eval_with(&Params::default(), fen);
    assert_eq!(
        eval_with(&nudged(f::PAWN_ISOLATED, f::EG, 7), fen) - base,
        7
    );
    // Middlegame weight has no effect at phase 0.
    assert_eq!(eval_with(&nudged(f::PAWN_ISOLATED, f::MG, 7), fen), base);
    // The trace shows the isolated weights, the single one and the a file's, as the
    // whole pawn-structure term.
    let tr = Evaluator::new(&Params::default()).trace(&pos(fen));
    let ps = tr.terms.iter().find(|t| t.0 == "pawn structure").unwrap();
    let p = Params::default();
    assert_eq!(
        (ps.1, ps.2, ps.3, ps.4),
        (
            p.pawn_isolated_mg() + p.pawn_isolated_file_1_mg(),
            p.pawn_isolated_eg() + p.pawn_isolated_file_1_eg(),
            0,
            0
        )
    );
}

#[test]
fn pawn_structure_terms() {
    // Doubled on c (c2 behind c3), both isolated; e4/d4 phalanx, f3 defends e4.
    let fen = "4k3/8/8/8/3PP3/2P2P2/2P5/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_DOUBLED), (1, 0));
    assert_eq!(count(fen, f::PAWN_PHALANX), (2, 0));
    assert_eq!(count(fen, f::PAWN_CONNECTED), (2, 0)); // d4 by c3, e4 by f3
    assert_eq!(count(fen, f::PAWN_ISOLATED), (0, 0));
    // Backward: Black d6 has its only neighbour c5 in front, and d5 is covered by c4/e4.
    let fen = "4k3/8/3p4/2p5/2P1P3/8/8/4K3 b - - 0 1";
    assert_eq!(count(fen, f::PAWN_BACKWARD), (0, 1));
    // Passed pawns by rank.
    let fen = "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1";
    // g2 is Black's relative rank 7 too.
    assert_eq!(count(fen, f::PAWN_PASSED_RANK[5]), (1, 1));
    let fen = "4k3/8/2p5/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_RANK[3]), (0, 0));
}

#[test]
fn passed_pawns_advance_king_distance_and_path() {
    // b7 and g2 (both relative rank 7, index 5): stop squares b8 and g1 empty and
    // unattacked, paths clear.
    let fen = "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_ADVANCE_RANK[5]), (1, 1));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_ADVANCE_RANK[5]), (1, 1));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_PATH), (1, 1));
    // b7 stop square b8: own king e1 is 7 away, enemy king e8 is 3 away.
    // g2 stop square g1: own king e8 is 7 away, enemy king e1 is 2 away.
    assert_eq!(count(fen, f::PAWN_PASSED_KING_OWN_RANK[5]), (7, 7));
    assert_eq!(count(fen, f::PAWN_PASSED_KING_ENEMY_RANK[5]), (3, 2));
    assert_eq!(count(fen, f::PAWN_PASSED_KING_ENEMY_RANK[4]), (0, 0));
    // Blockaded b5 (relative rank 5, index 3): counted by rank, cannot advance.
    let fen = "4k3/8/1n6/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_RANK[3]), (1, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_ADVANCE_RANK[3]), (0, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_PATH), (0, 0));
    // Blocked by an own knight on b6 that no enemy piece covers: the blocked-safe
    // entry; with the black knight a8 covering b6, neither.
    let fen = "4k3/8/1N6/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_BLOCKED_SAFE_RANK[3]), (1, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_ADVANCE_RANK[3]), (0, 0));
    let fen = "n3k3/8/1N6/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_BLOCKED_SAFE_RANK[3]), (0, 0));
    // A free stop square is never the blocked entry.
    let fen = "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_BLOCKED_SAFE_RANK[5]), (0, 0));
    // Stop square b6 empty but covered by the knight a8: can advance, not safely,
    // and the path is not safe.
    let fen = "n3k3/8/8/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_ADVANCE_RANK[3]), (1, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_ADVANCE_RANK[3]), (0, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_PATH), (0, 0));
    // Without the knight all three count; a rank-7 king-distance nudge moves the
    // endgame score by exactly distance * nudge.
    let fen = "4k3/8/8/1P6/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_ADVANCE_RANK[3]), (1, 0));
    assert_eq!(count(fen, f::PAWN_PASSED_SAFE_PATH), (1, 0));
    let base = eval_with(&Params::default(), fen);
    // b6 to the black king e8: 3 squares; phase 0.
    let gain = eval_with(&nudged(f::PAWN_PASSED_KING_ENEMY_RANK[3], f::EG, 5), fen) - base;
    assert_eq!(gain, 15);
}

#[test]
fn rooks_majors_tropism_and_bishop_pair() {
    // The a file is open for both; the h file is semi-open for Black only.
    let fen = "r3k2r/1pppppp1/8/8/8/8/1PPPPPPP/R3K2R w - - 0 1";
    assert_eq!(count(fen, f::ROOK_OPEN_FILE), (1, 1));
    assert_eq!(count(fen, f::ROOK_SEMI_OPEN_FILE), (0, 1));
    // Rb7 and Rg7 defend each other along the 7th, black king on h8.
    let fen = "7k/1R4R1/8/8/8/8/8/K7 w - - 0 1";
    assert_eq!(count(fen, f::MAJOR_SEVENTH), (2, 0));
    assert_eq!(count(fen, f::MAJOR_SEVENTH_CONNECTED), (1, 0));
    // A piece between them breaks the connection; king off the back rank: no bonus.
    let fen = "7k/1R1n2R1/8/8/8/8/8/K7 w - - 0 1";
    assert_eq!(count(fen, f::MAJOR_SEVENTH), (2, 0));
    assert_eq!(count(fen, f::MAJOR_SEVENTH_CONNECTED), (0, 0));
    let fen = "8/1R4R1/7k/8/8/8/8/K7 w - - 0 1";
    assert_eq!(count(fen, f::MAJOR_SEVENTH), (0, 0));
    // Knight tropism: Nb1 is 7 from the king on h8 (Chebyshev), penalty counted negative.
    let fen = "7k/p7/8/8/8/8/7P/KN6 w - - 0 1";
    assert_eq!(count(fen, f::KNIGHT_TROPISM), (-7, 0));
    let base = eval_with(&Params::default(), fen);
    // Phase 1 (the knight): the eg weight counts 23/24, so 12 cp more penalty per
    // square costs 7 * 12 * 23/24 = 80.5 cp, give or take the rounding.
    let drop = base - eval_with(&nudged(f::KNIGHT_TROPISM, f::EG, 12), fen);
    assert!((80..=81).contains(&drop), "{drop}");
    let fen = "2b1kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1";
    assert_eq!(count(fen, f::BISHOP_PAIR), (1, 1));
    let fen = "2b1k3/8/8/8/8/8/8/2B1KB2 w - - 0 1";
    assert_eq!(count(fen, f::BISHOP_PAIR), (1, 0));
}

#[test]
fn bad_bishop_counts_rammed_pawns_on_its_colour() {
    // White's d4 and e3 are blocked by d5 and e4, all four on the colour of their
    // side's bishop when Black's stands on c8 (light) and White's on c1 (dark).
    let both = "2b3k1/8/8/3p4/3Pp3/4P3/8/2B3K1 w - - 0 1";
    assert_eq!(count(both, f::BISHOP_RAMMED_PAWNS), (2, 2));
    // Black's bishop on f8 (dark) is not hindered by its light-squared pawns.
    let white_only = "5bk1/8/8/3p4/3Pp3/4P3/8/2B3K1 w - - 0 1";
    assert_eq!(count(white_only, f::BISHOP_RAMMED_PAWNS), (2, 0));
    // A pawn that can still move does not count.
    let free = "5bk1/8/8/8/3Pp3/4P3/8/2B3K1 w - - 0 1";
    assert_eq!(count(free, f::BISHOP_RAMMED_PAWNS), (1, 0));
}

#[test]
fn king_safety_terms() {
    // White king g1 with pawns f2 g2 (near) and h3 (far). Black king on e8 with the
    // d and e files bare of pawns, f7 own pawn.
    let fen = "4k3/5p2/8/8/8/7P/5PP1/6K1 w - - 0 1";
    assert_eq!(count(fen, f::KING_SHIELD_NEAR), (2, 1));
    assert_eq!(count(fen, f::KING_SHIELD_FAR), (1, 0));
    // White: f, g, h files all have own pawns. Black e8: d, e open; f own pawn.
    assert_eq!(count(fen, f::KING_OPEN_FILE), (0, 2));
    let fen = "4k3/4P3/8/8/8/8/8/4K3 w - - 0 1";
    // e7 is White's: Black's e file is semi-open; d and f open.
    assert_eq!(count(fen, f::KING_SEMI_OPEN_FILE), (0, 1));
    assert_eq!(count(fen, f::KING_OPEN_FILE).1, 2);
}

/// (White, Black) count of one shelter/storm table entry.
fn shelter_count(fen: &str, table: &[usize], distance: usize) -> (i32, i32) {
    count(fen, table[distance])
}

#[test]
fn king_shelter_by_file_and_distance() {
    // White king g1 with pawns f2, g3 and none on h; Black king b8 with a7, b7 and c5
    // (the a, b, c files: a king on the edge file b looks at a, b and c).
    let fen = "1k6/pp6/8/2p5/8/6P1/5P2/6K1 w - - 0 1";
    // f2: c/f file, 1 rank ahead; g3: b/g, 2 ahead, also the king's own file; h: none.
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_C, 1), (1, 0));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_B, 2), (1, 0));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_A, 7), (1, 0));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FRONT, 2), (1, 0));
    // Black: a7 and b7 one rank ahead of b8 (the b7 pawn on the king's file), c5 three.
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_A, 1), (0, 1));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_B, 1), (0, 1));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_C, 3), (0, 1));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FRONT, 1), (0, 1));
    // No enemy pawns near either king: every storm entry is "none".
    assert_eq!(shelter_count(fen, &f::KING_STORM_FILE_A, 7), (1, 1));
    assert_eq!(shelter_count(fen, &f::KING_STORM_FILE_B, 7), (1, 1));
    assert_eq!(shelter_count(fen, &f::KING_STORM_FILE_C, 7), (1, 1));
    // The trace shows them on their own lines.
    let tr = Evaluator::new(&Params::default()).trace(&pos(fen));
    assert!(tr.terms.iter().any(|t| t.0 == "king shelter"));
    assert!(tr.terms.iter().any(|t| t.0 == "king storm"));
}

#[test]
fn queenside_files_add_their_own_shelter_and_storm_entries() {
    // White king b1 behind a2 b2 c2, Black king g8 behind f7 g7 h7: the same folded
    // entries, but only White's files are on the queen's wing.
    let fen = "6k1/5ppp/8/8/8/8/PPP5/1K6 w - - 0 1";
    for (table, folded) in [
        (&f::KING_SHELTER_QUEENSIDE_FILE_A, &f::KING_SHELTER_FILE_A),
        (&f::KING_SHELTER_QUEENSIDE_FILE_B, &f::KING_SHELTER_FILE_B),
        (&f::KING_SHELTER_QUEENSIDE_FILE_C, &f::KING_SHELTER_FILE_C),
    ] {
        assert_eq!(shelter_count(fen, folded, 1), (1, 1));
        assert_eq!(shelter_count(fen, table, 1), (1, 0));
    }
    assert_eq!(
        shelter_count(fen, &f::KING_STORM_QUEENSIDE_FILE_B, 7),
        (1, 0)
    );
    assert_eq!(
        shelter_count(fen, &f::KING_SHELTER_QUEENSIDE_FILE_D, 1),
        (0, 0)
    );
    // A king on e1 looks at d, e and f: only d is on the queen's wing.
    let fen = "4k3/8/8/8/8/8/3PPP2/4K3 w - - 0 1";
    assert_eq!(
        shelter_count(fen, &f::KING_SHELTER_QUEENSIDE_FILE_D, 1),
        (1, 0)
    );
    // Black's king e8 has no pawn at all on d.
    assert_eq!(
        shelter_count(fen, &f::KING_SHELTER_QUEENSIDE_FILE_D, 7),
        (0, 1)
    );
    // White's d2 is a storm pawn six ranks in front of the black king.
    assert_eq!(
        shelter_count(fen, &f::KING_STORM_QUEENSIDE_FILE_D, 7),
        (1, 0)
    );
    assert_eq!(
        shelter_count(fen, &f::KING_STORM_QUEENSIDE_FILE_D, 6),
        (0, 1)
    );
    // A blocked storm pawn has its one table, on either wing.
    let fen = "4k3/8/8/8/8/p7/P7/1K6 w - - 0 1";
    assert_eq!(shelter_count(fen, &f::KING_STORM_BLOCKED, 1), (1, 0));
    assert_eq!(
        shelter_count(fen, &f::KING_STORM_QUEENSIDE_FILE_A, 2),
        (0, 0)
    );
    // A nudge moves the middlegame score by exactly that much, for White alone.
    let fen = "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PP1/R1BQ1RK1 w - - 0 1";
    let queenside_a = f::KING_SHELTER_QUEENSIDE_FILE_A[1];
    assert_eq!(linear_shelter_gain(queenside_a, f::MG, 10, fen), 0);
    // White castled long (king c1 behind a2 b2 c2): the b file's entry counts for
    // White alone, and moves the middlegame score (phase 24) by the nudge.
    let fen = "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NQ1N2/PPPB1PPP/2KR3R w - - 0 1";
    assert_eq!(
        shelter_count(fen, &f::KING_SHELTER_QUEENSIDE_FILE_B, 1),
        (1, 0)
    );
    let queenside_b = f::KING_SHELTER_QUEENSIDE_FILE_B[1];
    assert_eq!(linear_shelter_gain(queenside_b, f::MG, 10, fen), 10);
}

#[test]
fn king_storm_blocked_and_unblocked() {
    // White king g1, own pawns g2 and h2. Black pawns h3 (blocked by h2), g4 (two
    // ranks beyond g2: not blocked) and f4 (storming the open f file).
    let fen = "4k3/8/8/8/5pp1/7p/6PP/6K1 w - - 0 1";
    assert_eq!(shelter_count(fen, &f::KING_STORM_BLOCKED, 1), (1, 0)); // h3: distance 2
    assert_eq!(shelter_count(fen, &f::KING_STORM_FILE_B, 3), (1, 0)); // g4
    assert_eq!(shelter_count(fen, &f::KING_STORM_FILE_C, 3), (1, 0)); // f4
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_C, 7), (1, 0)); // no f pawn
    // Pawns behind the king do not shelter it: king on g3, pawn g2.
    // (Black's king e8 has no pawns at all.)
    let fen = "4k3/8/8/8/8/6K1/6P1/8 w - - 0 1";
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FRONT, 7), (1, 1));
    // A pawn beside the king (h3 next to Kg3) is distance 0.
    let fen = "4k3/8/8/8/8/6KP/8/8 w - - 0 1";
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_A, 0), (1, 0));
    // A nudge of one entry moves the middlegame score by exactly that much (phase
    // 24) while king danger takes no share of the shelter (king_danger.rs reads it
    // otherwise): White castled without its h pawn, Black with f7 g7 h7.
    let fen = "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PP1/R1BQ1RK1 w - - 0 1";
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_A, 7), (1, 0));
    assert_eq!(shelter_count(fen, &f::KING_SHELTER_FILE_A, 1), (0, 1));
    let hole = f::KING_SHELTER_FILE_A[7];
    assert_eq!(linear_shelter_gain(hole, f::MG, 10, fen), 10);
    assert_eq!(linear_shelter_gain(hole, f::EG, 10, fen), 0);
}

#[test]
fn a_knight_far_from_both_kings_is_counted_by_the_nearer_distance() {
    // Knight a8: 4 from the white king e4 (files a..e), 7 from the black king h1.
    let fen = "N7/8/8/8/4K3/8/8/7k w - - 0 1";
    assert_eq!(count(fen, f::KNIGHT_FAR_FROM_KINGS[0]), (1, 0));
    // Knight a1 against kings h8 and h1: 7 from both.
    let fen = "7k/8/8/8/8/8/8/N6K w - - 0 1";
    assert_eq!(count(fen, f::KNIGHT_FAR_FROM_KINGS[3]), (1, 0));
    let fen = "7k/8/8/8/8/8/8/N5K1 w - - 0 1";
    assert_eq!(count(fen, f::KNIGHT_FAR_FROM_KINGS[2]), (1, 0));
    // Three squares from a king is near: no entry.
    let fen = "7k/8/8/8/8/8/8/N2K4 w - - 0 1";
    assert!(
        f::KNIGHT_FAR_FROM_KINGS
            .iter()
            .all(|&x| count(fen, x) == (0, 0))
    );
}

#[test]
fn outposts_need_pawn_support_and_no_enemy_pawn_that_can_attack() {
    // Knight e5 defended by d4, no black pawn on d or f: an outpost. Bishop c5
    // defended by b4, but b7 can still advance to b6 and attack it.
    let fen = "4k3/1p6/8/2B1N3/1P1P4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (1, 0));
    assert_eq!(count(fen, f::OUTPOST_BISHOP), (0, 0));
    // Without the b7 pawn the bishop is on an outpost too.
    let fen = "4k3/8/8/2B1N3/1P1P4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_BISHOP), (1, 0));
    // Not defended by a pawn: no outpost, but the undefended entry. An enemy f-pawn
    // behind the square (f4) cannot attack it any more.
    let fen = "4k3/8/8/4N3/5p2/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (0, 0));
    assert_eq!(count(fen, f::OUTPOST_KNIGHT_UNDEFENDED), (1, 0));
    // A square an enemy pawn can still reach is neither (d7 can go to d6 and hit e5);
    // a defended outpost is not undefended.
    let fen = "4k3/3p4/8/4N3/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT_UNDEFENDED), (0, 0));
    let fen = "4k3/8/8/2B1N3/1P1P4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT_UNDEFENDED), (0, 0));
    assert_eq!(count(fen, f::OUTPOST_BISHOP_UNDEFENDED), (0, 0));
    let fen = "4k3/8/8/2B5/8/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_BISHOP_UNDEFENDED), (1, 0));
    let fen = "4k3/8/8/4N3/3P1p2/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (1, 0));
    // Rank 3 is too far back, rank 7 too far forward.
    let fen = "4k3/8/8/8/8/4N3/3P4/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (0, 0));
    // Black: knight d4 defended by e5, no white pawn on c or e below it.
    let fen = "4k3/8/8/4p3/3n4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (0, 1));
    // A black knight on c3 jumps to the empty outpost e4 (Black's relative rank 5,
    // defended by d5, no white pawn on d or f).
    let fen = "4k3/8/8/3p4/8/2n5/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::OUTPOST_KNIGHT_REACHABLE), (0, 1));
    assert_eq!(count(fen, f::OUTPOST_KNIGHT), (0, 0));
    // The bonus is the weight (phase 1: the knight; eg counts 23/24).
    let fen = "4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1";
    let base = eval_with(&Params::default(), fen);
    assert_eq!(
        eval_with(&nudged(f::OUTPOST_KNIGHT, f::EG, 24), fen) - base,
        23
    );
    let tr = Evaluator::new(&Params::default()).trace(&pos(fen));
    let line = tr.terms.iter().find(|t| t.0 == "outposts").unwrap();
    let p = Params::default();
    assert_eq!(
        (line.1, line.2, line.3, line.4),
        (p.outpost_knight_mg(), p.outpost_knight_eg(), 0, 0)
    );
}

/// The king-safety line of the trace: (White mg, White eg, Black mg, Black eg).
fn king_safety_line(p: &Params, fen: &str) -> (i32, i32, i32, i32) {
    let tr = Evaluator::new(p).trace(&pos(fen));
    let l = tr.terms.iter().find(|t| t.0 == "king safety").unwrap();
    (l.1, l.2, l.3, l.4)
}

/// Params with every king-danger input zero except those `set` gives (divisors kept),
/// and no complexity (the other score outside the linear weights).
fn only_danger(set: impl Fn(&mut Params)) -> Params {
    let mut p = Params::default();
    for (field, v) in [
        (&mut p.king_danger_weight_knight, 0),
        (&mut p.king_danger_weight_bishop, 0),
        (&mut p.king_danger_weight_rook, 0),
        (&mut p.king_danger_weight_queen, 0),
        (&mut p.king_danger_zone_attack, 0),
        (&mut p.king_danger_weak_square, 0),
        (&mut p.king_danger_friendly_pawn, 0),
        (&mut p.king_danger_no_queen, 0),
        (&mut p.king_danger_shelter_pct, 0),
        (&mut p.king_danger_check_knight, 0),
        (&mut p.king_danger_check_bishop, 0),
        (&mut p.king_danger_check_rook, 0),
        (&mut p.king_danger_check_queen, 0),
        (&mut p.king_danger_base, 0),
        (&mut p.king_shield_near_mg, 0),
        (&mut p.king_shield_far_mg, 0),
        (&mut p.king_open_file_mg, 0),
        (&mut p.king_semi_open_file_mg, 0),
        (&mut p.complexity_pawns, 0),
        (&mut p.complexity_pawn_flanks, 0),
        (&mut p.complexity_pawn_endgame, 0),
        (&mut p.complexity_offset, 0),
    ] {
        *field = v;
    }
    // The king's file distance to the pawns is traced on the shelter line, but it is
    // no part of the shelter score king danger reads; the king's defenders are traced
    // on the king-safety line, but are no part of the danger count; the pawn-king
    // network adds to the linear form's offset, as king danger does.
    for (i, spec) in crate::params::PARAM_SPECS.iter().enumerate() {
        if spec.name.starts_with("king_pawn_file_distance_")
            || spec.name.starts_with("king_defenders_")
            || spec.name.starts_with("pknet_out_")
        {
            p.set(i, 0).unwrap();
        }
    }
    p.king_danger_quadratic_div = 100;
    p.king_danger_linear_div = 10;
    set(&mut p);
    p
}

/// Every king-danger weight at the top of its range and the steepest divisors: the
/// count squares past i32 in i64, and the evaluation stays below the tablebase-win
/// and mate scores, which the search would take for a proven result.
#[test]
fn king_danger_at_the_ends_of_its_ranges_stays_below_the_mate_band() {
    let mut p = Params::default();
    for (i, spec) in PARAM_SPECS.iter().enumerate() {
        let divisor = spec.name.ends_with("_div");
        if spec.name.starts_with("king_danger_") && spec.name != "king_danger_no_queen" {
            p.set(i, if divisor { spec.min } else { spec.max }).unwrap();
        }
    }
    // Three queens, rooks and minors around a bare black king in the corner.
    for fen in [
        "k7/8/1QQ5/1Q6/2RR4/2BB4/2NN4/6K1 b - - 0 1",
        "6k1/5p1p/4QNQ1/5Q2/8/8/5PPP/3RR1K1 b - - 0 1",
    ] {
        let score = eval_with(&p, fen);
        assert!(score.abs() <= crate::score::EVAL_MAX, "{fen}: {score}");
        assert!(
            score.abs() > 10_000,
            "{fen}: the danger is not steep: {score}"
        );
    }
}

#[test]
fn king_danger_counts_attackers_zone_weak_squares_and_checks() {
    // Queen h5 and knight g5 against a king on g8 behind f7 g7 h7. White king far.
    let fen = "6k1/5ppp/8/6NQ/8/8/8/K7 w - - 0 1";
    // Two attackers (knight 3, queen 5 in these units): 2 * (3 + 5) = 16 danger,
    // 16² / 100 = 2 mg and 16 / 10 = 1 eg for Black to lose.
    let p = only_danger(|p| {
        p.king_danger_weight_knight = 3;
        p.king_danger_weight_queen = 5;
    });
    assert_eq!(king_safety_line(&p, fen), (0, 0, -2, -1));
    // One attacker without a queen is no attack: the knight alone scores nothing.
    let lone = "6k1/5ppp/8/6N1/8/8/8/K7 w - - 0 1";
    assert_eq!(king_safety_line(&p, lone), (0, 0, 0, 0));
    // A lone queen counts (one attacker and a queen): 1 * 5 = 5 danger, 25 / 100 = 0.
    let p_base = only_danger(|p| {
        p.king_danger_weight_queen = 5;
        p.king_danger_base = 15;
    });
    let queen = "6k1/5ppp/8/7Q/8/8/8/K7 w - - 0 1";
    assert_eq!(king_safety_line(&p_base, queen), (0, 0, -4, -2)); // 20² / 100, 20 / 10
    // Zone hits: Qh5 and Ng5 each hit f7 and h7 (counted per piece): 4 * 10 = 40.
    let p = only_danger(|p| p.king_danger_zone_attack = 10);
    assert_eq!(king_safety_line(&p, fen), (0, 0, -16, -4));
    // Weak zone squares: f7 and h7 are attacked and defended by the king alone.
    let p = only_danger(|p| p.king_danger_weak_square = 10);
    assert_eq!(king_safety_line(&p, fen), (0, 0, -4, -2));
    // Own pawns in the zone on squares that are not weak (g7 only): 2 * 20 - 5 = 35.
    let p = only_danger(|p| {
        p.king_danger_weight_knight = 10;
        p.king_danger_weight_queen = 10;
        p.king_danger_friendly_pawn = -5;
    });
    assert_eq!(king_safety_line(&p, fen), (0, 0, -12, -3));
    // Safe checks: Qxf7+ and Qxh7+ (weak squares attacked twice); the knight has no
    // check square. 2 * 1 + 2 * 20 = 42.
    let p = only_danger(|p| {
        p.king_danger_weight_knight = 1;
        p.king_danger_check_queen = 20;
        p.king_danger_check_knight = 50;
    });
    assert_eq!(king_safety_line(&p, fen), (0, 0, -17, -4));
    // A missing enemy queen lowers the danger (negative weight): rook + knight attack.
    let no_queen = "6k1/5ppp/8/6N1/8/8/8/K6R w - - 0 1";
    let p = only_danger(|p| {
        p.king_danger_weight_knight = 10;
        p.king_danger_weight_rook = 10;
    });
    let with_penalty = only_danger(|p| {
        p.king_danger_weight_knight = 10;
        p.king_danger_weight_rook = 10;
        p.king_danger_no_queen = -30;
    });
    assert_eq!(king_safety_line(&p, no_queen).2, -(40 * 40) / 100);
    assert_eq!(
        king_safety_line(&with_penalty, no_queen).2,
        -(10 * 10) / 100
    );
    // The penalty goes into `Coefficients::offset` (not linear in its parameters).
    let c = Evaluator::new(&p).coefficients(&pos(no_queen));
    assert_eq!(c.offset, S::new(16, 4));
}

/// Black's middlegame shelter score (king shelter and king storm lines of the trace).
fn black_shelter_mg(p: &Params, fen: &str) -> i32 {
    let tr = Evaluator::new(p).trace(&pos(fen));
    let line = |name: &str| tr.terms.iter().find(|t| t.0 == name).map_or(0, |l| l.3);
    line("king shelter") + line("king storm")
}

#[test]
fn a_broken_shelter_raises_the_danger_by_its_share() {
    // Queen h5 and knight g5 against a king on g8: behind f7 g7 h7, and with no pawns.
    let sheltered = "6k1/5ppp/8/6NQ/8/8/8/K7 w - - 0 1";
    let open = "6k1/8/8/6NQ/8/8/8/K7 w - - 0 1";
    let danger = |pct: i32, fen: &str| {
        let p = only_danger(|p| {
            p.king_danger_weight_knight = 10;
            p.king_danger_weight_queen = 10;
            p.king_danger_shelter_pct = pct;
        });
        // The reference board is symmetric: Black's shelter there is White's.
        let reference = black_shelter_mg(&p, &format!("{} w - - 0 1", shelter::SHELTER_REFERENCE));
        let d = 40 + pct * (reference - black_shelter_mg(&p, fen)) / 100;
        assert_eq!(
            king_safety_line(&p, fen).2,
            -(d.max(0) * d.max(0)) / 100,
            "{pct} {fen}"
        );
        d
    };
    // At 0 the shelter is kept apart: the two attackers' 2 * (10 + 10) alone.
    assert_eq!(danger(0, sheltered), 40);
    assert_eq!(danger(0, open), 40);
    // With a share, the open king (a worse shelter score) is in more danger.
    let p = Params::default();
    assert!(black_shelter_mg(&p, open) < black_shelter_mg(&p, sheltered));
    assert!(danger(50, open) > danger(50, sheltered));
    assert!(danger(100, open) > danger(50, open));
    // A king behind an intact f7 g7 h7, the enemy's f2 g2 h2 at home, is the share's
    // zero: its danger stays.
    let intact = "6k1/5ppp/8/6NQ/8/8/5PPP/K7 w - - 0 1";
    assert_eq!(danger(50, intact), 40);
    assert_eq!(danger(200, intact), 40);
}

/// What a fit needs to follow the shelter into king danger: each side's danger count
/// among the coefficients (the one its king-safety offset squares), and the shelter
/// sum as feature counts that add up to the shelter score.
#[test]
fn the_coefficients_give_the_danger_count_and_the_shelter_sum() {
    let e = Evaluator::new(&Params::default());
    let weighted = |counts: &[(u16, i16)]| {
        let w = e.weights();
        counts.iter().fold(S::default(), |s, &(f, n)| {
            s + w[usize::from(f)] * i32::from(n)
        })
    };
    let shelter_of =
        |board: &Board, color| shelter::evaluate(&e.weights, board, color, &mut NoTrace);
    let reference: Board = shelter::SHELTER_REFERENCE.parse().unwrap();
    assert_eq!(
        weighted(&e.shelter_reference_counts()),
        shelter_of(&reference, Color::White)
    );
    let p = only_danger(|p| {
        p.king_danger_weight_knight = 10;
        p.king_danger_weight_queen = 10;
        p.king_danger_shelter_pct = 50;
    });
    for (fen, attacked) in [
        ("6k1/5ppp/8/6NQ/8/8/8/K7 w - - 0 1", true),
        ("6k1/8/6p1/6NQ/8/8/8/K7 w - - 0 1", true),
        ("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1", false),
    ] {
        let board = pos(fen).board().board().clone();
        for color in Color::ALL {
            let counts = e.shelter_counts(&board, color);
            assert_eq!(weighted(&counts), shelter_of(&board, color), "{fen}");
        }
        let c = Evaluator::new(&p).coefficients(&pos(fen));
        assert_eq!(c.danger[0], 0, "{fen}: White's king is not attacked");
        let d = c.danger[1];
        assert_eq!(d > 0, attacked, "{fen}");
        let quadratic = -(d * d) / p.king_danger_quadratic_div;
        assert_eq!(king_safety_line(&p, fen).2, quadratic, "{fen}");
    }
}

#[test]
fn the_deep_zone_and_the_pawn_filter_count_their_squares() {
    // Queen h5 and knight g5 against a king on g8 behind f7 g7 h7: zone hits only.
    let fen = "6k1/5ppp/8/6NQ/8/8/8/K7 w - - 0 1";
    let hits = |deep: i32, filter: i32| {
        let p = only_danger(|p| {
            p.king_danger_zone_attack = 10;
            p.king_danger_zone_deep = deep;
            p.king_danger_zone_pawn_filter = filter;
        });
        // 10 danger a hit, (10 n)² / 100 = n² in the middlegame.
        let mg = -king_safety_line(&p, fen).2;
        (1..=20).find(|n| n * n == mg).unwrap()
    };
    // The king and its neighbours: f7 and h7, by both pieces.
    assert_eq!(hits(0, 0), 4);
    // Three files by four ranks adds g6 and h6, which the queen hits.
    assert_eq!(hits(1, 0), 6);
    // g6 is guarded by the f7 and h7 pawns: the filter drops it.
    assert_eq!(hits(1, 1), 5);
    assert_eq!(hits(0, 1), 4);
    // A pawn's hit on g6 (from f5) counts in the deep zone, and is dropped with it.
    let with_pawn = |deep: i32, filter: i32| {
        let p = only_danger(|p| {
            p.king_danger_zone_attack = 10;
            p.king_danger_zone_deep = deep;
            p.king_danger_zone_pawn_filter = filter;
        });
        let mg = -king_safety_line(&p, "6k1/5ppp/8/5PNQ/8/8/8/K7 w - - 0 1").2;
        (1..=20).find(|n| n * n == mg).unwrap()
    };
    assert_eq!(with_pawn(1, 0), 7);
    // The filter spares the pawns' hits, as Ethereal counts them on the whole zone.
    assert_eq!(with_pawn(1, 1), 6);
    // A king on g7 has a deep zone of twelve squares (f5 to h8): the queen's six hits
    // and the knight's two count as 8 * 9 / 12 = 6; its ring (f6 to h8) sees seven.
    let in_the_open = |deep: i32| {
        let p = only_danger(|p| {
            p.king_danger_zone_attack = 10;
            p.king_danger_zone_deep = deep;
        });
        let mg = -king_safety_line(&p, "8/6k1/8/6NQ/8/8/8/K7 w - - 0 1").2;
        (1..=20).find(|n| n * n == mg).unwrap()
    };
    assert_eq!(in_the_open(0), 7);
    assert_eq!(in_the_open(1), 6);
    // Both on, the evaluation stays exactly colour-symmetric, edge kings included.
    let p = Params {
        king_danger_zone_deep: 1,
        king_danger_zone_pawn_filter: 1,
        ..Params::default()
    };
    let mut e = Evaluator::new(&p);
    let mut positions = random_positions(500, 11);
    for fen in [
        "7k/6pp/8/6NQ/8/8/8/K7 w - - 0 1",
        "k7/pp6/8/NQ6/8/8/8/7K w - - 0 1",
        "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PP1/R1BQ1RK1 w - - 0 1",
    ] {
        positions.push(pos(fen));
    }
    for x in &positions {
        let m = x.mirrored();
        assert_eq!(e.evaluate(x), e.evaluate(&m), "{}", x.fen());
    }
}

#[test]
fn the_xray_switch_lets_sliders_see_through_their_batteries() {
    let mobility = |xray: i32, fen: &str, table: &[usize]| -> Vec<usize> {
        let p = Params {
            mobility_xray: xray,
            ..Params::default()
        };
        let c = Evaluator::new(&p).coefficients(&pos(fen));
        (0..table.len())
            .filter(|&n| coefficient(&c, table[n]) > 0) // White's pieces
            .collect()
    };
    // Rooks a1 and a2: the rear rook reaches a2, b1, c1, d1 (not its king's e1), and
    // through a2 the rest of the file, a3..a8; the front rook its rank and file either way.
    let rooks = "4k3/8/8/8/8/8/R7/R3K3 w - - 0 1";
    assert_eq!(mobility(0, rooks, &f::MOBILITY_ROOK), [4, 14]);
    assert_eq!(mobility(1, rooks, &f::MOBILITY_ROOK), [10, 14]);
    // A rook looks through its queen; the queen does not look through the rook.
    let queen = "4k3/8/8/8/8/8/Q7/R3K3 w - - 0 1";
    assert_eq!(mobility(1, queen, &f::MOBILITY_ROOK), [10]);
    assert_eq!(
        mobility(1, queen, &f::MOBILITY_QUEEN),
        mobility(0, queen, &f::MOBILITY_QUEEN)
    );
    // Bishops b1 and c2: the rear one sees d3..h7 through c2; an enemy bishop blocks.
    let (bishops, blocked) = (
        "4k3/8/8/8/8/8/2B5/1B2K3 w - - 0 1",
        "4k3/8/8/8/8/8/2b5/1B2K3 w - - 0 1",
    );
    assert_eq!(mobility(0, bishops, &f::MOBILITY_BISHOP), [2, 9]);
    assert_eq!(mobility(1, bishops, &f::MOBILITY_BISHOP), [7, 9]);
    assert_eq!(mobility(1, blocked, &f::MOBILITY_BISHOP), [2]);
    // On, the evaluation stays exactly colour-symmetric.
    let p = Params {
        mobility_xray: 1,
        ..Params::default()
    };
    let mut e = Evaluator::new(&p);
    let mut positions = random_positions(500, 12);
    positions.push(pos(rooks));
    positions.push(pos(queen));
    for x in &positions {
        assert_eq!(e.evaluate(x), e.evaluate(&x.mirrored()), "{}", x.fen());
    }
}

#[test]
fn threats_by_attacker_and_defence() {
    // Pawn d4 attacks the bishop c5 and the knight e5.
    let fen = "4k3/8/8/2b1n3/3P4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_MINOR_BY_PAWN), (0, 2));
    // Bishop a5 attacks the knight c3 (the knight does not attack back).
    let fen = "4k3/8/8/b7/8/2N5/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_MINOR_BY_MINOR), (1, 0));
    // Rook d8 attacks the undefended knight d4; a pawn on e3 defends it (not weak),
    // which leaves it attacked once and defended once: overloaded.
    let fen = "3rk3/8/8/8/3N4/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_MINOR_BY_MAJOR), (1, 0));
    assert_eq!(count(fen, f::THREAT_OVERLOADED), (0, 0));
    let fen = "3rk3/8/8/8/3N4/4P3/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_MINOR_BY_MAJOR), (0, 0));
    assert_eq!(count(fen, f::THREAT_OVERLOADED), (1, 0));
    // Knight c3 attacks the rook d1 (a lesser attacker: defence does not matter).
    let fen = "4k3/8/8/8/8/2n5/8/3RK3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_ROOK_BY_LESSER), (1, 0));
    // The black king attacks the undefended bishop d7, then the undefended rook d7.
    let fen = "4k3/3B4/8/8/8/8/8/4K3 b - - 0 1";
    assert_eq!(count(fen, f::THREAT_MINOR_BY_KING), (1, 0));
    let fen = "4k3/3R4/8/8/8/8/8/4K3 b - - 0 1";
    assert_eq!(count(fen, f::THREAT_ROOK_BY_KING), (1, 0));
    let fen = "4k3/3R4/8/8/8/8/8/3RK3 b - - 0 1";
    assert_eq!(count(fen, f::THREAT_ROOK_BY_KING), (0, 0));
    // Rook h1 attacks the queen h5 (and the queen the rook, which no term counts).
    let fen = "4k3/8/8/7q/8/8/8/4K2R w - - 0 1";
    assert_eq!(count(fen, f::THREAT_QUEEN_ATTACKED), (0, 1));
    assert_eq!(count(fen, f::THREAT_ROOK_BY_LESSER), (0, 0));
    // Knight d6 attacks the undefended pawn e4: weak; defended by d3: not weak.
    let fen = "4k3/8/3n4/8/4P3/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_WEAK_PAWN), (1, 0));
    let fen = "4k3/8/3n4/8/4P3/3P4/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_WEAK_PAWN), (0, 0));
    // e4-e5 would attack the knight d6 (e5 is safe): a push threat for White.
    let fen = "4k3/8/3n4/8/4P3/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_PAWN_PUSH), (1, 0));
    // A black pawn on f6 guards e5: no push threat.
    let fen = "4k3/8/3n1p2/8/4P3/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_PAWN_PUSH), (0, 0));
    // Double push d2-d4 hits the knight e5 (d3, attacked by the knight, is no safe
    // stop but may be passed); blocked on d3, nothing.
    let fen = "4k3/8/8/4n3/8/8/3P4/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_PAWN_PUSH), (1, 0));
    let fen = "4k3/8/8/4n3/8/3N4/3P4/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_PAWN_PUSH), (0, 0));
    // Black's push threats mirror White's.
    let fen = "4k3/3p4/8/8/4N3/8/8/4K3 b - - 0 1";
    assert_eq!(count(fen, f::THREAT_PAWN_PUSH), (0, 1));
    // A threat scores exactly its weight: with one knight (phase 1) the eg weight
    // counts 23/24, so 24 cp more penalty costs 23 cp (pawns on a2/a7: no
    // drawish-endgame scaling).
    let fen = "4k3/p7/3n4/8/4P3/8/P7/4K3 w - - 0 1";
    assert_eq!(count(fen, f::THREAT_WEAK_PAWN), (1, 0));
    let base = eval_with(&Params::default(), fen);
    let drop = base - eval_with(&nudged(f::THREAT_WEAK_PAWN, f::EG, -24), fen);
    assert_eq!(drop, 23);
}

#[test]
fn mobility_and_tempo() {
    // A knight in the corner sees 2 squares: counted from the typical 4.
    let fen = "4k3/8/8/8/8/8/8/N3K3 w - - 0 1";
    assert_eq!(count(fen, f::MOBILITY[0][2]), (1, 0));
    // Enemy pawn attacks shrink it: b3 is covered by the a4 pawn.
    let fen = "4k3/8/8/8/p7/8/8/N3K3 w - - 0 1";
    assert_eq!(count(fen, f::MOBILITY[0][1]), (1, 0));
    // Own pieces count (the knight defends them), an own blocked pawn does not.
    // Knight a1 sees c2 (own pawn, free to push) but not b3 (own pawn blocked by b4).
    let fen = "4k3/8/8/8/1p6/1P6/2P5/N3K3 w - - 0 1";
    assert_eq!(count(fen, f::MOBILITY_KNIGHT[1]), (1, 0));
    // A rook boxed in on h1 by its king and pawn sees one square.
    let fen = "4k3/8/8/8/8/8/6PP/6KR w - - 0 1";
    assert_eq!(count(fen, f::MOBILITY_ROOK[1]), (1, 0)); // h2 only (g1 is the king)
    let p = Params::default();
    assert!(p.mobility_rook_1_mg < p.mobility_rook_7_mg);
    assert_eq!(count(fen, f::TEMPO), (1, 0));
    let black = "4k3/8/8/8/p7/8/8/N3K3 b - - 0 1";
    assert_eq!(count(black, f::TEMPO), (0, 1));
}

#[test]
fn drawish_endgames_are_scaled() {
    let mut e = Evaluator::new(&Params::default());
    let p = Params::default();
    // Opposite-coloured bishops (c1 dark, c8 light) with White a pawn up.
    let tr = e.trace(&pos("2b1k3/8/8/8/8/P7/1P6/2B1K3 w - - 0 1"));
    assert_eq!(tr.scale, p.scale_opposite_bishops_pct());
    let tr = e.trace(&pos("3bk3/8/8/8/8/P7/1P6/2B1K3 w - - 0 1"));
    assert_eq!(tr.scale, 100);
    // Rook vs bishop without pawns; queen vs rook is not scaled.
    let tr = e.trace(&pos("3bk3/8/8/8/8/8/8/3RK3 w - - 0 1"));
    assert_eq!(tr.scale, p.scale_no_pawns_pct());
    let tr = e.trace(&pos("3rk3/8/8/8/8/8/8/3QK3 w - - 0 1"));
    assert_eq!(tr.scale, 100);
    // Insufficient material is a dead draw.
    assert_eq!(e.evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")), 0);
    assert_eq!(e.evaluate(&pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1")), 0);
}

/// Params with the complexity weights (per pawn, both wings, pawns only, offset), and
/// the pawn-king network off (it adds to the endgame score after complexity).
fn complexity(pawns: i32, flanks: i32, pawns_only: i32, offset: i32) -> Params {
    let mut p = network_params(None);
    for (name, v) in [
        ("complexity_pawns", pawns),
        ("complexity_pawn_flanks", flanks),
        ("complexity_pawn_endgame", pawns_only),
        ("complexity_offset", offset),
    ] {
        p.set(index_of(name).unwrap(), v).unwrap();
    }
    p
}

#[test]
fn complexity_moves_the_endgame_score_but_never_past_a_draw() {
    let eg_line = |p: &Params, fen: &str| {
        let tr = Evaluator::new(p).trace(&pos(fen));
        let line = tr.terms.iter().find(|t| t.0 == "complexity").unwrap();
        (line.2, line.4, tr.score)
    };
    let off = complexity(0, 0, 0, 0);
    // Four pawns on both wings, White a pawn up, pawns only: 4·7 + 30 + 20 − 60 = 18,
    // credited to the side ahead, and the phase-0 score moves by exactly that.
    let both_wings = "4k3/p7/8/8/8/8/P5PP/4K3 w - - 0 1";
    let on = complexity(7, 30, 20, -60);
    let (white, black, score) = eg_line(&on, both_wings);
    assert_eq!((white, black), (18, 0));
    assert_eq!(score - eg_line(&off, both_wings).2, 18);
    // The same material, Black to move and Black a pawn up (colours swapped): Black's line.
    let mirrored = "4k3/p5pp/8/8/8/8/P7/4K3 b - - 0 1";
    let (white, black, score_black) = eg_line(&on, mirrored);
    assert_eq!((white, black, score_black), (0, 18, score));
    // A large negative complexity takes the lead away, and no more: the endgame score
    // is then 0, and only the tempo (added after) remains.
    let drawn = complexity(0, 0, 0, -400);
    let (white, _, score) = eg_line(&drawn, both_wings);
    let lead = eg_line(&off, both_wings).2 - Params::default().tempo_eg();
    assert!(lead > 0, "White is ahead without the term: {lead}");
    assert_eq!(white, -lead);
    assert_eq!(score, Params::default().tempo_eg());
}

#[test]
fn phase_tapers_between_middlegame_and_endgame() {
    let mut e = Evaluator::new(&Params::default());
    for (fen, phase) in [
        (crate::position::START_FEN, 24),
        ("4k3/8/8/8/8/8/8/R2QK3 w - - 0 1", 6),
        ("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1", 4),
        ("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", 0),
    ] {
        let tr = e.trace(&pos(fen));
        assert_eq!(tr.phase, phase, "{fen}");
        let mg: i32 = tr.terms.iter().map(|t| t.1 - t.3).sum();
        let eg: i32 = tr.terms.iter().map(|t| t.2 - t.4).sum();
        let expect = (mg * phase + eg * (24 - phase)) / 24 * tr.scale / 100;
        assert_eq!(tr.score, expect, "{fen}");
    }
    // The pure middlegame ignores eg weights and vice versa.
    let start = crate::position::START_FEN;
    let base = eval_with(&Params::default(), start);
    assert_eq!(
        eval_with(&nudged(f::PST_KNIGHT[B1 as usize], f::EG, 20), start),
        base
    );
    assert_eq!(
        eval_with(&nudged(f::PST_KNIGHT[B1 as usize], f::MG, 20), start),
        base
    );
    assert_eq!(
        eval_with(&nudged(f::PST_KNIGHT[E4 as usize], f::MG, 20), start),
        base
    );
    assert_eq!(eval_with(&nudged(f::TEMPO, f::MG, 5), start), base + 5);
    // A table entry counts by the phase: knight + queen is phase 5.
    let fen = "4k3/8/8/8/4N3/8/8/Q3K3 w - - 0 1";
    let before = eval_with(&Params::default(), fen);
    assert_eq!(
        eval_with(&nudged(f::PST_KNIGHT[E4 as usize], f::MG, 24), fen) - before,
        5
    );
    assert_eq!(
        eval_with(&nudged(f::PST_KNIGHT[E4 as usize], f::EG, 24), fen) - before,
        19
    );
    // A weight counts by phase / 24 in the middlegame.
    let fen = "r3k3/8/8/8/8/8/8/RQ2K3 w - - 0 1"; // phase 2 + 2 + 4 = 8
    let before = eval_with(&Params::default(), fen);
    let after = eval_with(&nudged(f::TEMPO, f::MG, 24), fen);
    assert_eq!(after - before, 8);
}

/// Positions from random legal playouts (seeded), mixing openings, middlegames and endgames.
fn random_positions(n: usize, seed: u64) -> Vec<Position> {
    // xorshift64*: deterministic and dependency-free.
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: usize| -> usize {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut p = Position::startpos();
        let plies = 1 + next(160);
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures now and then so that endgames appear.
            let caps: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !caps.is_empty() && next(2) == 0 {
                *caps[next(caps.len())]
            } else {
                moves[next(moves.len())]
            };
            p = p.play(m);
            if next(8) == 0 {
                out.push(p.clone());
            }
        }
    }
    out.truncate(n);
    out
}

#[test]
fn evaluation_is_exactly_colour_symmetric() {
    let mut e = Evaluator::new(&Params::default());
    let mut positions = random_positions(3000, 7);
    // Hand-built positions of the mobility tables: the mobility area's blocked pawns
    // and own king are the rank-direction-dependent parts.
    for fen in [
        "4k3/8/8/8/1p6/1P6/2P5/N3K3 w - - 0 1",
        "4k3/8/8/8/8/8/6PP/6KR w - - 0 1",
        "r3k3/pp6/1p6/8/8/8/8/4K3 b - - 0 1",
        "4k3/8/8/3p4/3P4/2B5/8/4K3 w - - 0 1",
        "q3k3/1p6/8/8/8/8/6P1/4K2Q w - - 0 1",
        // Threats: pawn pushes (single and double), weak pawns, overloaded pieces.
        "4k3/8/8/4n3/8/8/3P4/4K3 w - - 0 1",
        "4k3/8/3n4/8/4P3/3P4/8/4K3 b - - 0 1",
        "3rk3/8/8/8/3N4/4P3/8/4K3 w - - 0 1",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        // Passed pawns: blockaded, unsafe stop square, clear path.
        "4k3/8/1n6/1P6/8/8/6p1/4K3 w - - 0 1",
        "n3k3/8/8/1P6/4p3/8/8/4K3 b - - 0 1",
        "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
        // King shelter and storm: edge kings (the clamped centre file), blocked and
        // unblocked storms, pawns beside and behind the king.
        "1k6/pp6/8/2p5/8/6P1/5P2/6K1 w - - 0 1",
        "4k3/8/8/8/5pp1/7p/6PP/6K1 w - - 0 1",
        "7k/6pp/5P2/6P1/8/8/8/K7 b - - 0 1",
        "4k3/8/8/8/8/6KP/6P1/8 w - - 0 1",
        "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PP1/R1BQ1RK1 w - - 0 1",
        // Outposts: supported, attackable later, reachable.
        "4k3/1p6/8/2B1N3/1P1P4/8/8/4K3 w - - 0 1",
        "4k3/8/8/3p4/8/2n5/8/4K3 b - - 0 1",
        "r2qkb1r/pp3ppp/2n1b3/3pP3/3n4/2N2N2/PP3PPP/R1BQKB1R w KQkq - 0 1",
    ] {
        positions.push(pos(fen));
    }
    let mut phases = [0usize; 25];
    for p in &positions {
        let m = p.mirrored();
        assert_eq!(e.evaluate(p), e.evaluate(&m), "{} vs {}", p.fen(), m.fen());
        // Term by term, too: White's share of each section is Black's in the mirror.
        let (a, b) = (e.trace(p), e.trace(&m));
        for (x, y) in a.terms.iter().zip(&b.terms) {
            assert_eq!(
                (&x.0, x.1, x.2, x.3, x.4),
                (&y.0, y.3, y.4, y.1, y.2),
                "{}",
                p.fen()
            );
        }
        phases[e.trace(p).phase as usize] += 1;
    }
    // The sample covers the whole phase range.
    assert!(
        phases[24] > 0 && phases[..8].iter().sum::<usize>() > 100,
        "{phases:?}"
    );
}

/// White's score as Texel tuning sees it: the coefficients times the weights, plus
/// the non-linear offset, tapered and scaled.
fn linear_white_score(c: &Coefficients, weights: &[S]) -> f64 {
    let (mut mg, mut eg) = (i64::from(c.offset.mg), i64::from(c.offset.eg));
    for &(feat, n) in &c.features {
        mg += i64::from(n) * i64::from(weights[feat as usize].mg);
        eg += i64::from(n) * i64::from(weights[feat as usize].eg);
    }
    (mg * i64::from(c.phase) + eg * i64::from(24 - c.phase)) as f64 / 24.0 * f64::from(c.scale)
        / 100.0
}

/// The White-minus-Black count of `feature` in `c` (0 when absent).
fn coefficient(c: &Coefficients, feature: usize) -> i32 {
    c.features
        .iter()
        .find(|x| usize::from(x.0) == feature)
        .map_or(0, |x| i32::from(x.1))
}

#[test]
fn coefficients_reproduce_the_evaluation() {
    let mut e = Evaluator::new(&Params::default());
    for p in random_positions(1500, 11) {
        let c = e.coefficients(&p);
        let linear = linear_white_score(&c, e.weights());
        let white = if p.turn() == Color::White {
            e.evaluate(&p)
        } else {
            -e.evaluate(&p)
        };
        assert!(
            (linear - f64::from(white)).abs() < 2.0,
            "{}: linear {linear} eval {white}",
            p.fen()
        );
    }
}

/// The shelter, storm and outpost weights reach Texel tuning as linear features: the
/// coefficients of a hand-built position name them with their White-minus-Black counts.
#[test]
fn shelter_storm_and_outposts_are_texel_coefficients() {
    // White castled without its h pawn, knight on the e5 outpost (d4); Black's h pawn
    // has advanced to h3, storming White's king.
    // (No Black pawn on d or f that could chase the knight.)
    let fen = "r1bq1rk1/ppp3p1/2n2n2/4N3/3P4/7p/PPP2PP1/R1BQ1RK1 w - - 0 1";
    let c = Evaluator::new(&Params::default()).coefficients(&pos(fen));
    let coef = |feature: usize| coefficient(&c, feature);
    // White: h file without own pawn, enemy pawn h3 two ranks ahead of g1.
    // Black: g8 with g7 one rank ahead, its h pawn (h3) five ranks ahead, and no
    // White pawn on the h file.
    assert_eq!(coef(f::KING_SHELTER_FILE_A[7]), 1);
    assert_eq!(coef(f::KING_SHELTER_FILE_A[5]), -1);
    assert_eq!(coef(f::KING_SHELTER_FILE_B[1]), 0); // g2 and g7
    assert_eq!(coef(f::KING_STORM_FILE_A[2]), 1);
    assert_eq!(coef(f::KING_STORM_FILE_A[7]), -1);
    assert_eq!(coef(f::OUTPOST_KNIGHT), 1);
}

#[test]
fn pawn_cache_agrees_with_a_fresh_evaluation() {
    // The cache also keeps the outposts and each side's king shelter (for the last
    // king square seen): give every shelter and storm weight a distinct value so a
    // stale shelter would show.
    let mut params = Params::default();
    for (k, spec) in PARAM_SPECS.iter().enumerate() {
        if spec.name.starts_with("king_shelter_") || spec.name.starts_with("king_storm_") {
            params.set(k, (k % 23) as i32 - 11).unwrap();
        }
    }
    let mut cached = Evaluator::new(&params);
    for p in random_positions(1000, 3) {
        let fresh = Evaluator::new(&params).evaluate(&p);
        assert_eq!(cached.evaluate(&p), fresh, "{}", p.fen());
        // The trace (never cached) agrees too.
        assert_eq!(cached.trace(&p).score, fresh, "{}", p.fen());
    }
}

/// A position without pawns hits the pawn cache's empty entry without computing it:
/// its outposts (every minor on ranks 4 to 6 is on a hole no pawn guards) score as a
/// fresh evaluation's and the trace's do.
#[test]
fn pawnless_outposts_score_from_a_fresh_cache() {
    let mut params = Params::default();
    for name in [
        "outpost_knight_undefended_mg",
        "outpost_knight_undefended_eg",
        "outpost_bishop_undefended_mg",
        "outpost_bishop_undefended_eg",
    ] {
        params.set_by_name(name, "40").unwrap();
    }
    // A knight on e5 beside the rooks (alone it could not win: scaled to zero).
    let p = pos("r3k3/8/8/4N3/8/8/8/R3K3 w - - 0 1");
    let base = Evaluator::new(&Params::default()).evaluate(&p);
    let mut fresh = Evaluator::new(&params);
    let score = fresh.evaluate(&p);
    assert!(score > base, "the outpost scores: {score} against {base}");
    assert_eq!(score, fresh.trace(&p).score);
}

#[test]
fn every_eval_weight_changes_the_evaluation_somewhere() {
    let mut positions = random_positions(400, 5);
    // Pawns on the 7th and 2nd ranks are rare in playouts.
    positions.push(pos("7q/PPPPPPPP/8/7k/K7/8/8/Q7 w - - 0 1"));
    positions.push(pos("6k1/1R3R2/8/8/8/8/8/Q3K3 w - - 0 1"));
    // Bishops on outposts are rare too.
    positions.push(pos("4k3/8/8/2B1N3/1P1P4/8/8/4K3 w - - 0 1"));
    let mut a = Evaluator::new(&Params::default());
    for feature in 0..f::COUNT {
        // Tables (some entries rare in playouts) are covered by
        // `coefficients_reproduce_the_evaluation`, the taper, mobility and shelter tests.
        let in_table = |t: &[usize]| t.contains(&feature);
        let shelter = [
            &f::KING_SHELTER_FILE_A[..],
            &f::KING_SHELTER_FILE_B,
            &f::KING_SHELTER_FILE_C,
            &f::KING_SHELTER_FILE_D,
            &f::KING_SHELTER_FRONT,
            &f::KING_STORM_FILE_A,
            &f::KING_STORM_FILE_B,
            &f::KING_STORM_FILE_C,
            &f::KING_STORM_FILE_D,
            &f::KING_STORM_BLOCKED,
            &f::KING_SHELTER_QUEENSIDE_FILE_A,
            &f::KING_SHELTER_QUEENSIDE_FILE_B,
            &f::KING_SHELTER_QUEENSIDE_FILE_C,
            &f::KING_SHELTER_QUEENSIDE_FILE_D,
            &f::KING_STORM_QUEENSIDE_FILE_A,
            &f::KING_STORM_QUEENSIDE_FILE_B,
            &f::KING_STORM_QUEENSIDE_FILE_C,
            &f::KING_STORM_QUEENSIDE_FILE_D,
            // The learnt terms' tables: `learnt_terms_*` and the tests after it.
            &f::KING_DEFENDERS,
            &f::KING_PAWN_FILE_DISTANCE,
            &f::CLOSEDNESS_KNIGHT,
            &f::CLOSEDNESS_ROOK,
            &f::PAWN_CANDIDATE_RANK,
            &f::PAWN_CANDIDATE_SUPPORTED_RANK,
        ];
        // The pawn-structure tables: `pawn_tables_index_by_file_rank_and_square`.
        if f::PST.iter().any(|t| in_table(t))
            || pawns::TABLES.iter().any(|t| in_table(t))
            || f::MOBILITY.iter().any(|t| in_table(t))
            || shelter.iter().any(|t| in_table(t))
        {
            continue;
        }
        for &i in f::PARAMS[feature].iter().flatten() {
            let spec = &PARAM_SPECS[i];
            let mut p = Params::default();
            let v = p.get(i);
            // A step large enough to survive the taper's rounding in the test
            // positions' phases (a 10-unit step of a middlegame weight can vanish in
            // a late endgame, depending on the other weights' remainder).
            let changed = [v + 50, v - 50, v + 10, v - 10]
                .into_iter()
                .find(|&x| (spec.min..=spec.max).contains(&x))
                .unwrap();
            p.set(i, changed).unwrap();
            let mut b = Evaluator::new(&p);
            assert!(
                positions.iter().any(|x| a.evaluate(x) != b.evaluate(x)),
                "{} changes no evaluation",
                spec.name
            );
        }
    }
}

#[test]
fn setting_a_parameter_by_name_changes_eval_after_refresh() {
    let p0 = Params::default();
    let mut e = Evaluator::new(&p0);
    let fen = "4k3/8/8/8/8/8/P7/4K3 w - - 0 1";
    let before = e.evaluate(&pos(fen));
    let mut p = p0.clone();
    let pawn_eg = f::PARAMS[f::MATERIAL_PAWN][f::EG].unwrap();
    p.set_by_name(
        PARAM_SPECS[pawn_eg].name,
        &(p0.get(pawn_eg) + 13).to_string(),
    )
    .unwrap();
    e.refresh(&p);
    assert_eq!(e.evaluate(&pos(fen)), before + 13);
}

#[test]
fn material_only_variant_has_the_same_names_and_zero_extras() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../params");
    let read = |p: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(p)).unwrap()).unwrap()
    };
    let full = read("eval.json");
    let mo = read("variants/material_only.json");
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    // eval.json's names, then the network's outputs (zero: the network off).
    let outputs: Vec<String> = (pknet::OUT_MG..pknet::WEIGHTS)
        .map(pknet::weight_name)
        .collect();
    assert_eq!([names(&full), outputs].concat(), names(&mo));
    let weight_of = |features: &[usize], i: usize| {
        features
            .iter()
            .any(|&feature| f::PARAMS[feature].contains(&Some(i)))
    };
    let all: Vec<usize> = (0..f::COUNT).collect();
    let mut p = Params::default();
    for e in mo["params"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let v = e["value"].as_i64().unwrap() as i32;
        let i = index_of(name).unwrap();
        // Weights other than material are zero (the plain parameters are checked by
        // the evaluations below).
        if !weight_of(&f::MATERIAL, i) && weight_of(&all, i) || name.starts_with("pknet_") {
            assert_eq!(v, 0, "{name}");
        }
        p.set(i, v).unwrap();
    }
    // Material only: the start position and its mirror-image pawn moves are all 0.
    let mut e = Evaluator::new(&p);
    assert_eq!(e.evaluate(&Position::startpos()), 0);
    assert_eq!(
        e.evaluate(&pos(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        )),
        0
    );
    assert_eq!(
        e.evaluate(&pos("4k3/8/8/8/8/8/PP6/4K3 w - - 0 1")),
        2 * p.material_pawn_eg()
    );
    // No king danger, no scaling: a queen and knight on the king count as material
    // (phase 5 of 24).
    let attack = pos("6k1/5ppp/8/6NQ/8/8/5PPP/6K1 w - - 0 1");
    let mg = p.material_knight_mg() + p.material_queen_mg();
    let eg = p.material_knight_eg() + p.material_queen_eg();
    assert_eq!(e.evaluate(&attack), (mg * 5 + eg * 19) / 24);
    let tr = e.trace(&attack);
    assert!(
        tr.terms
            .iter()
            .all(|l| l.0 == "material" || l.1 == 0 && l.3 == 0)
    );
}

#[test]
fn shipped_eval_json_validates_against_the_schema() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../params");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for file in ["eval.json", "variants/material_only.json"] {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{file}: {errors:?}");
    }
}

/// The king-shield masks equal their definition: pawns one and two ranks ahead on
/// the king's file and beside it.
#[test]
fn king_shield_masks_equal_their_definition() {
    for color in Color::ALL {
        for king in Square::ALL {
            let file = king as usize % 8;
            let files = rays::adjacent_files(file) | rays::FILE_A << file;
            let rank = rays::relative_rank(color, king as usize);
            let ahead = |n: usize| -> u64 {
                (0..64)
                    .filter(|&sq| rays::relative_rank(color, sq) == rank + n)
                    .fold(0, |m, sq| m | 1 << sq)
            };
            let shield = &shelter::KING_SHIELD[color as usize][king as usize];
            assert_eq!(shield.near, files & ahead(1), "{color:?} {king}");
            assert_eq!(shield.far, files & ahead(2), "{color:?} {king}");
            assert_eq!(shield.files, rays::file_set(files));
        }
    }
}

/// The incremental material + PST sum equals the sum from scratch at every perft
/// node, and the evaluation with it equals the evaluation without it.
#[test]
fn incremental_material_psq_matches_full_recompute() {
    let mut params = Params::default();
    // Break the symmetry of the default tables so a mirroring slip shows.
    params
        .set(index_of("pst_knight_mg_a1").unwrap(), 77)
        .unwrap();
    params
        .set(index_of("pst_king_eg_g8").unwrap(), -55)
        .unwrap();
    let mut eval = Evaluator::new(&params);
    let table = eval.psq_table().clone();
    let (mut nodes, mut roots) = (0u64, 0);
    crate::perft::walk_suite(&|p, m| p.play_psq(m, &table), &mut |pos| {
        match pos.psq(&table) {
            Some(sum) => assert_eq!(sum, table.full_sum(pos.board()), "{}", pos.fen()),
            None => roots += 1,
        }
        if nodes % 7 == 0 {
            let plain = Position::from_chess(pos.board().clone());
            assert_eq!(eval.evaluate(pos), eval.evaluate(&plain), "{}", pos.fen());
        }
        nodes += 1;
    });
    assert!(nodes > 100_000, "{nodes}");
    assert_eq!(
        roots,
        crate::perft::SUITE.len(),
        "only the roots carry no sum"
    );
}

/// A sum kept under an older table is never used once the parameters changed.
#[test]
fn material_psq_of_an_older_table_is_ignored() {
    let mut eval = Evaluator::new(&Params::default());
    let root = Position::startpos();
    let pos = root.play_psq(root.parse_uci_move("g1f3").unwrap(), eval.psq_table());
    assert!(pos.psq(eval.psq_table()).is_some());
    let before = eval.evaluate(&pos);
    let mut params = Params::default();
    params
        .set(index_of("pst_knight_mg_f3").unwrap(), 290)
        .unwrap();
    eval.refresh(&params);
    assert_eq!(pos.psq(eval.psq_table()), None);
    let after = eval.evaluate(&pos);
    assert_eq!(
        after,
        eval.evaluate(&Position::from_chess(pos.board().clone()))
    );
    assert!(
        after < before,
        "the white knight on f3 is worth more: {after} vs {before}"
    );
    // The null move keeps the pieces and so the sum.
    let fresh = root.play_psq(root.parse_uci_move("g1f3").unwrap(), eval.psq_table());
    let null = fresh.play_null().unwrap();
    assert_eq!(null.psq(eval.psq_table()), fresh.psq(eval.psq_table()));
}

// Space, closedness, king defenders, king-pawn file distance, candidate passers, the
// queen's discovered attack and the pawn-structure tables: shipped at 0, so the tests
// give them weights.

/// The families of these terms' weights.
const LEARNT_TERMS: [&str; 12] = [
    "space_",
    "closedness_",
    "king_defenders_",
    "king_pawn_file_distance_",
    "pawn_candidate_rank_",
    "pawn_candidate_supported_rank_",
    "threat_queen_discovered",
    "pawn_isolated_file_",
    "pawn_doubled_file_",
    "pawn_backward_rank_",
    "pawn_backward_open_rank_",
    "pawn_connected_file_",
];

/// Default params with every weight of [`LEARNT_TERMS`] set to a distinct non-zero value.
fn learnt_terms_on() -> Params {
    let mut p = Params::default();
    for (k, spec) in PARAM_SPECS.iter().enumerate() {
        let learnt = LEARNT_TERMS
            .iter()
            .any(|prefix| spec.name.starts_with(prefix));
        if learnt {
            let v = (k * 7 % 37) as i32 - 18;
            p.set(k, if v == 0 { 11 } else { v }).unwrap();
        }
    }
    p
}

#[test]
fn learnt_terms_are_colour_symmetric_linear_and_cached() {
    let params = learnt_terms_on();
    let mut cached = Evaluator::new(&params);
    let mut moved = 0;
    for p in random_positions(1500, 13) {
        let fresh = Evaluator::new(&params).evaluate(&p);
        assert_eq!(cached.evaluate(&p), fresh, "cache: {}", p.fen());
        assert_eq!(cached.evaluate(&p.mirrored()), fresh, "mirror: {}", p.fen());
        let linear = linear_white_score(&cached.coefficients(&p), cached.weights());
        let white = if p.turn() == Color::White {
            fresh
        } else {
            -fresh
        };
        assert!((linear - f64::from(white)).abs() < 2.0, "{}", p.fen());
        moved += i32::from(fresh != Evaluator::new(&Params::default()).evaluate(&p));
    }
    // The terms act on most positions.
    assert!(moved > 1000, "{moved}");
}

/// Attackers of `sq` by `color` counted as the attack maps count them: each piece
/// once, all pawns together once.
fn attack_count(board: &Board, color: Color, sq: Square) -> u32 {
    let attackers = board.attacks_to(sq, color, board.occupied());
    let pawns = attackers & board.pawns();
    (attackers & !board.pawns()).count() as u32 + u32::from(pawns.any())
}

#[test]
fn space_and_king_terms_match_their_definitions_square_by_square() {
    let wide_centre =
        |sq: Square| (2..=5).contains(&(sq as usize % 8)) && (2..=5).contains(&(sq as usize / 8));
    let mut e = Evaluator::new(&Params::default());
    for p in random_positions(400, 17) {
        let board = p.board().board();
        let c = e.coefficients(&p);
        let coef = |feature: usize| coefficient(&c, feature);
        let pieces =
            (board.knights() | board.bishops()).count() + 2 * board.rooks_and_queens().count();
        let mut expected = [0i32; 3];
        let mut defenders = [0usize; 2];
        for color in Color::ALL {
            let sign = if color == Color::White { 1 } else { -1 };
            let king = board.king_of(color).unwrap();
            for sq in Square::ALL {
                let (ours, theirs) = (
                    attack_count(board, color, sq),
                    attack_count(board, !color, sq),
                );
                let own_pawn_guard =
                    (board.attacks_to(sq, color, board.occupied()) & board.pawns()).any();
                if theirs >= 2 && ours == 1 && !own_pawn_guard {
                    expected[usize::from(!board.occupied().contains(sq))] += sign;
                }
                let holds = ours > 0 || board.by_color(color).contains(sq);
                if pieces > 12 && wide_centre(sq) && theirs == 0 && holds {
                    expected[2] += sign;
                }
                // The area: three files by four ranks, one behind the king to two in front.
                let (kf, kr) = (
                    king.file() as i32,
                    rays::relative_rank(color, king as usize) as i32,
                );
                let centre_file = kf.clamp(1, 6);
                let (f, r) = (
                    sq.file() as i32,
                    rays::relative_rank(color, sq as usize) as i32,
                );
                let defender =
                    board.by_color(color) & (board.pawns() | board.knights() | board.bishops());
                if (f - centre_file).abs() <= 1
                    && (r - kr) >= -1
                    && (r - kr) <= 2
                    && defender.contains(sq)
                {
                    defenders[color as usize ^ 1] += 1;
                }
            }
        }
        let found = [
            f::SPACE_RESTRICT_PIECE,
            f::SPACE_RESTRICT_EMPTY,
            f::SPACE_CENTER_CONTROL,
        ]
        .map(coef);
        assert_eq!(found, expected, "space: {}", p.fen());
        let [white, black] = defenders;
        let mut table = [0; 12];
        table[white] += 1;
        table[black] -= 1;
        assert_eq!(f::KING_DEFENDERS.map(coef), table, "defenders: {}", p.fen());
    }
}

#[test]
fn closedness_and_king_pawn_file_distance_match_their_definitions() {
    let mut e = Evaluator::new(&Params::default());
    for p in random_positions(400, 19) {
        let board = p.board().board();
        // The trace counts every term, whatever its weight.
        let mut c = Counts::new(false);
        e.white_score(p.board(), &mut c);
        let fen = p.fen();
        let files: Vec<i32> = (0..8)
            .filter(|&f| (board.pawns() & Bitboard::from_file(File::new(f as u32))).any())
            .collect();
        let rammed = Square::ALL
            .into_iter()
            .filter(|&sq| {
                (board.pawns() & board.white()).contains(sq)
                    && sq
                        .offset(8)
                        .is_some_and(|up| (board.pawns() & board.black()).contains(up))
            })
            .count() as i32;
        let pawns = board.pawns().count() as i32;
        let open = 8 - files.len() as i32;
        let index = ((pawns + 3 * rammed - 4 * open) / 3).clamp(0, 8) as usize;
        for (table, role) in [
            (&f::CLOSEDNESS_KNIGHT, Role::Knight),
            (&f::CLOSEDNESS_ROOK, Role::Rook),
        ] {
            for (i, &feature) in table.iter().enumerate() {
                let n = |color: Color| {
                    if i == index {
                        board.by_piece(role.of(color)).count() as i32
                    } else {
                        0
                    }
                };
                assert_eq!(
                    (c.white[feature], c.black[feature]),
                    (n(Color::White), n(Color::Black)),
                    "{fen} {i}"
                );
            }
        }
        for color in Color::ALL {
            let king = board.king_of(color).unwrap().file() as i32;
            let expected = files
                .iter()
                .map(|f| (f - king).unsigned_abs() as usize)
                .min();
            let counts = if color == Color::White {
                &c.white
            } else {
                &c.black
            };
            for (d, &feature) in f::KING_PAWN_FILE_DISTANCE.iter().enumerate() {
                assert_eq!(
                    counts[feature],
                    i32::from(expected == Some(d)),
                    "{fen} {color:?} {d}"
                );
            }
        }
    }
}

/// The learnt terms' switches follow the weights through `refresh`: an evaluator
/// refreshed to weights that turn them on evaluates as a fresh one, and back.
#[test]
fn learnt_terms_follow_refresh() {
    let (off, on) = (Params::default(), learnt_terms_on());
    let mut e = Evaluator::new(&off);
    let positions = random_positions(300, 23);
    for (round, params) in [&on, &off, &on].into_iter().enumerate() {
        e.refresh(params);
        let mut fresh = Evaluator::new(params);
        for p in &positions {
            assert_eq!(
                e.evaluate(p),
                fresh.evaluate(p),
                "round {round} {}",
                p.fen()
            );
        }
    }
}

#[test]
fn pawn_tables_index_by_file_rank_and_square() {
    // Isolated: White a2 and h4; Black's doubled c7/c6 (c7 the rear) and isolated both.
    let fen = "4k3/2p5/2p5/8/7P/8/P7/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_ISOLATED_FILE[0]), (1, 0));
    assert_eq!(count(fen, f::PAWN_ISOLATED_FILE[7]), (1, 0));
    assert_eq!(count(fen, f::PAWN_ISOLATED_FILE[2]), (0, 2));
    assert_eq!(count(fen, f::PAWN_DOUBLED_FILE[2]), (0, 1));
    // Backward (as in `pawn_structure_terms`): Black's d6, relative rank 3; its file
    // holds no White pawn in front of it (open), and with d2 it is closed.
    let open = "4k3/8/3p4/2p5/2P1P3/8/8/4K3 b - - 0 1";
    assert_eq!(count(open, f::PAWN_BACKWARD_OPEN_RANK[1]), (0, 1));
    assert_eq!(count(open, f::PAWN_BACKWARD_RANK[1]), (0, 0));
    let closed = "4k3/8/3p4/2p5/2P1P3/8/3P4/4K3 b - - 0 1";
    assert_eq!(count(closed, f::PAWN_BACKWARD_RANK[1]), (0, 1));
    assert_eq!(count(closed, f::PAWN_BACKWARD_OPEN_RANK[1]), (0, 0));
    // Connected: d4 and e4 side by side (d/e folded, rank 4), f3 defends e4 and stands
    // beside nothing (it counts only as a defender); g6 defends Black's h5 (a/h, rank 4
    // for Black).
    let fen = "4k3/8/6p1/7p/3PP3/5P2/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_CONNECTED_FILE_D_RANK[2]), (2, 0));
    assert_eq!(count(fen, f::PAWN_CONNECTED_FILE_C_RANK[1]), (0, 0));
    assert_eq!(count(fen, f::PAWN_CONNECTED_FILE_A_RANK[2]), (0, 1));
    // Every table entry is some pawn's, each counted with its single weight.
    for p in random_positions(300, 29) {
        let fen = p.fen();
        let total = |features: &[usize]| {
            features.iter().fold((0, 0), |acc, &x| {
                let c = count(&fen, x);
                (acc.0 + c.0, acc.1 + c.1)
            })
        };
        let backward = [f::PAWN_BACKWARD_RANK, f::PAWN_BACKWARD_OPEN_RANK].concat();
        for (tables, single) in [
            (&f::PAWN_ISOLATED_FILE[..], f::PAWN_ISOLATED),
            (&f::PAWN_DOUBLED_FILE, f::PAWN_DOUBLED),
            (&backward, f::PAWN_BACKWARD),
        ] {
            assert_eq!(total(tables), count(&fen, single), "{fen}");
        }
    }
}

#[test]
fn candidate_passers_need_every_stopper_tradeable() {
    // b5 (a4 behind it) against c6: one push, the trade, and b-pawn is through;
    // Black's c6 is a candidate too, but nothing of its own defends it.
    let fen = "4k3/8/2p5/1P6/P7/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_CANDIDATE_SUPPORTED_RANK[3]), (1, 0));
    assert_eq!(count(fen, f::PAWN_CANDIDATE_RANK[1]), (0, 1));
    // b4 pushed to b5 meets a6, which c4 answers: a candidate the push makes (its
    // push square is guarded as often as attacked); a6 against b4 is none (b4 is
    // attacked-by nothing of Black's, and nothing guards a5).
    let fen = "4k3/8/p7/8/1PP5/8/8/4K3 w - - 0 1";
    assert_eq!(count(fen, f::PAWN_CANDIDATE_SUPPORTED_RANK[2]), (1, 0));
    assert_eq!(count(fen, f::PAWN_CANDIDATE_RANK[3]), (0, 0));
    // Without c4 the push square is attacked and unguarded: no candidate.
    assert_eq!(
        count(
            "4k3/8/p7/8/1P6/8/8/4K3 w - - 0 1",
            f::PAWN_CANDIDATE_SUPPORTED_RANK[2]
        ),
        (0, 0)
    );
    // A pawn blocked head-on is no candidate; nor is one with two stoppers on one
    // side and no support for its push.
    for fen in [
        "4k3/8/8/1p6/1P6/8/8/4K3 w - - 0 1",
        "4k3/2p5/2p5/1P6/8/8/8/4K3 w - - 0 1",
    ] {
        for family in [&f::PAWN_CANDIDATE_RANK, &f::PAWN_CANDIDATE_SUPPORTED_RANK] {
            for &feature in family.iter() {
                assert_eq!(count(fen, feature).0, 0, "{fen}");
            }
        }
    }
}

#[test]
fn a_queen_with_one_piece_before_an_enemy_bishop_or_rook_is_in_danger() {
    let on = |fen: &str| count(fen, f::THREAT_QUEEN_DISCOVERED);
    assert_eq!(on("3rk3/8/8/8/3N4/8/8/3QK3 w - - 0 1"), (1, 0));
    assert_eq!(on("7k/8/8/b7/8/2p5/8/4Q1K1 w - - 0 1"), (1, 0));
    // Two pieces between, none, or a queen (not a bishop or rook) at the end: no term.
    assert_eq!(on("3rk3/8/8/8/3N4/3P4/8/3QK3 w - - 0 1"), (0, 0));
    assert_eq!(on("3rk3/8/8/8/8/8/8/3QK3 w - - 0 1"), (0, 0));
    assert_eq!(on("3qk3/8/8/8/3N4/8/8/3QK3 w - - 0 1"), (0, 0));
    // A bishop on the queen's file, a rook on its diagonal: not their lines.
    assert_eq!(on("3bk3/8/8/8/3N4/8/8/3QK3 w - - 0 1"), (0, 0));
    assert_eq!(on("7k/8/8/r7/8/2p5/8/4Q1K1 w - - 0 1"), (0, 0));
}

// Pawn-king network

/// The parameters with the network's weights all zero, or drawn at random (seeded):
/// inputs and biases within ±300, outputs within ±3000.
fn network_params(seed: Option<u64>) -> Params {
    let mut params = Params::default();
    let indices = pknet::param_indices().expect("params/pknet.json is built in");
    let mut x = seed.unwrap_or(0).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for (k, &i) in indices.iter().enumerate() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let span: u64 = if k >= pknet::OUT_MG { 3000 } else { 300 };
        let v = (x % (2 * span + 1)) as i32 - span as i32;
        params.set(i, if seed.is_some() { v } else { 0 }).unwrap();
    }
    params
}

#[test]
fn the_network_weights_are_parameters_in_layout_order() {
    let indices = pknet::param_indices().expect("params/pknet.json is built in");
    assert_eq!(indices.len(), pknet::WEIGHTS);
    for (k, pair) in indices.windows(2).enumerate() {
        assert_eq!(pair[1], pair[0] + 1, "{}", pknet::weight_name(k + 1));
    }
    let name = |k: usize| PARAM_SPECS[indices[k]].name;
    assert_eq!(name(0), "pknet_our_pawn_a2_0");
    assert_eq!(name(pknet::HIDDEN * 47 + 5), "pknet_our_pawn_h7_5");
    assert_eq!(name(pknet::HIDDEN * 48), "pknet_their_pawn_a2_0");
    assert_eq!(name(pknet::HIDDEN * (96 + 6) + 1), "pknet_our_king_g1_1");
    assert_eq!(
        name(pknet::HIDDEN * (160 + 63) + 15),
        "pknet_their_king_h8_15"
    );
    assert_eq!(name(pknet::BIAS + 2), "pknet_bias_2");
    assert_eq!(name(pknet::OUT_MG), "pknet_out_mg_0");
    assert_eq!(name(pknet::OUT_EG + 15), "pknet_out_eg_15");
    // All zero, the network is off; any output weight on, it is on.
    assert!(!Evaluator::new(&network_params(None)).pknet.on);
    let mut one = network_params(None);
    one.set(indices[pknet::OUT_EG + 3], 1).unwrap();
    assert!(Evaluator::new(&one).pknet.on);
}

#[test]
fn the_network_sees_each_side_s_pawns_and_kings_as_that_side_does() {
    // White: pawns e2 and d5, king g1; Black: pawn e7, king g8.
    let p = pos("6k1/4p3/8/3P4/8/8/4P3/6K1 w - - 0 1");
    let b = p.board().board();
    let (white, black) = ((b.pawns() & b.white()).0, (b.pawns() & b.black()).0);
    let kings = [6, 62];
    let view = |us: Color| {
        let (inputs, n) = pknet::active_inputs(white, black, kings, us);
        let mut v = inputs[..n].to_vec();
        v.sort();
        v
    };
    // Ours e2 (4) and d5 (27), theirs e7 (48 + 44), our king g1 (96 + 6), theirs g8 (160 + 62).
    assert_eq!(view(Color::White), [4, 27, 92, 102, 222]);
    // Black, mirrored: ours e7 as e2 (4); theirs e2 as e7 (92) and d5 as d4 (48 + 19);
    // our king g8 as g1 (102), theirs g1 as g8 (222).
    assert_eq!(view(Color::Black), [4, 67, 92, 102, 222]);
}

#[test]
fn the_network_is_colour_symmetric_and_traced() {
    let mut e = Evaluator::new(&network_params(Some(21)));
    let mut off = Evaluator::new(&network_params(None));
    let mut moved = 0;
    let positions = random_positions(1500, 17);
    for p in &positions {
        assert_eq!(e.evaluate(p), e.evaluate(&p.mirrored()), "{}", p.fen());
        let b = p.board().board();
        let kings = [Color::White, Color::Black].map(|c| b.king_of(c).unwrap() as u8);
        let network = e
            .pknet
            .evaluate((b.pawns() & b.white()).0, (b.pawns() & b.black()).0, kings);
        let t = e.trace(p);
        let line = t.terms.iter().find(|x| x.0 == "pawn-king network").unwrap();
        assert_eq!(
            S::new(line.1 - line.3, line.2 - line.4),
            network,
            "{}",
            p.fen()
        );
        // The linear form's offset carries it: the rest of the evaluation is unchanged.
        let (with, without) = (e.coefficients(p), off.coefficients(p));
        assert_eq!(with.features, without.features);
        assert_eq!(with.offset - without.offset, network, "{}", p.fen());
        moved += usize::from(network != S::default());
    }
    assert!(moved > positions.len() * 9 / 10, "{moved}");
}

/// The pawn table keeps the network's score per pair of king squares: along the
/// perft walk (kings moving over unchanged pawns) the cached evaluation is the one the
/// trace computes afresh, every table bypassed.
#[test]
fn the_pawn_table_keeps_the_network_score_per_pair_of_kings() {
    let params = network_params(Some(5));
    let mut cached = Evaluator::new(&params);
    let mut fresh = Evaluator::new(&params);
    let (mut n, mut king_moves) = (0, 0);
    let mut last: Option<(u64, [u8; 2])> = None;
    crate::perft::walk_suite(&|p, m| p.play(m), &mut |p| {
        if n < 20_000 {
            n += 1;
            let b = p.board().board();
            let kings = [Color::White, Color::Black].map(|c| b.king_of(c).unwrap() as u8);
            let now = (b.pawns().0, kings);
            king_moves += usize::from(last.is_some_and(|(pawns, k)| pawns == now.0 && k != kings));
            last = Some(now);
            assert_eq!(cached.evaluate(p), fresh.trace(p).score, "{}", p.fen());
        }
    });
    assert!(king_moves > 100, "{king_moves}");
}
