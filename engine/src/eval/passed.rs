//! Passed pawns: the terms that depend on more than the pawns (the pawn-only rank
//! bonus is cached in `pawns.rs`). By relative rank: whether the pawn can advance
//! (stop square empty) and advance safely (stop square also not attacked by the
//! enemy), or, blocked, whether the enemy leaves its stop square uncovered (an own
//! piece that can step aside, an unguarded blockader: the fourth case of Ethereal
//! 12.75's `[can advance][safe advance]` table), and the distance of each king to the
//! stop square, which matters more the closer the pawn is to promotion. Plus a bonus
//! when no enemy piece stands on or attacks any square of the path to promotion.
//!
//! PeSTO's pawn tables already pay for advanced pawns (on ranks 6 and 7 nearly every
//! pawn is passed), so the rank bonus is small and these tables tell a dangerous
//! passer from a blockaded one.

use super::features::{self as f, Section};
use super::{AttackMap, Tracer};
use crate::rays::{FRONT, distance, relative_rank};
use crate::score::S;
use shakmaty::{Board, Color, Square};

/// Our passed pawns' score; `passed` are our passed pawns (from the pawn cache).
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    passed: u64,
    maps: &[AttackMap; 2],
    t: &mut T,
) -> S {
    let mut s = S::default();
    if passed == 0 {
        return s;
    }
    let mut add = |feature: usize, n: i32, t: &mut T| {
        s += weights[feature] * n;
        t.add(Section::PassedPawns, feature, us, n);
    };
    let them = !us;
    let attacked = maps[them as usize].all;
    let occupied = board.occupied().0;
    let enemy = board.by_color(them).0;
    let king = board.king_of(us).expect("legal positions have kings");
    let enemy_king = board.king_of(them).expect("legal positions have kings");
    let ci = us as usize ^ 1; // shakmaty: Black = 0, White = 1; FRONT: White = 0
    let mut bb = passed;
    while bb != 0 {
        let sq = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        // Passed pawns stand on relative ranks 2..=7: table index 0..=5.
        let r = relative_rank(us, sq) - 1;
        let stop = if us == Color::White { sq + 8 } else { sq - 8 };
        let stop_bb = 1u64 << stop;
        if stop_bb & occupied == 0 {
            add(f::PAWN_PASSED_ADVANCE_RANK[r], 1, t);
            if stop_bb & attacked == 0 {
                add(f::PAWN_PASSED_SAFE_ADVANCE_RANK[r], 1, t);
            }
        } else if stop_bb & attacked == 0 {
            add(f::PAWN_PASSED_BLOCKED_SAFE_RANK[r], 1, t);
        }
        let stop = Square::new(stop as u32);
        add(f::PAWN_PASSED_KING_OWN_RANK[r], distance(stop, king), t);
        add(
            f::PAWN_PASSED_KING_ENEMY_RANK[r],
            distance(stop, enemy_king),
            t,
        );
        if FRONT[ci][sq] & (enemy | attacked) == 0 {
            add(f::PAWN_PASSED_SAFE_PATH, 1, t);
        }
    }
    s
}
