//! Closedness (`closedness_knight_*`, `closedness_rook_*`): knights are worth more,
//! rooks less, as the pawn structure locks up.
//!
//! The structure's closedness is an index 0..=8 from the pawns alone: one per pawn,
//! three per rammed pair (a pawn blocked head-on by an enemy pawn), minus four per
//! file without pawns, over three and clamped. Each side's knights and rooks are paid
//! by the table entry of that index. Learnt from Ethereal's closedness adjustment.

use super::Tracer;
use super::features::{self as f, Section};
use crate::rays::file_set;
use crate::score::S;
use shakmaty::{Board, Color};

/// The largest closedness index.
pub(super) const CLOSEDNESS_MAX: usize = 8;

/// The closedness index of these pawns, 0 (open) ..= 8 (locked).
pub(super) fn index(white: u64, black: u64) -> u8 {
    let pawns = (white | black).count_ones() as i32;
    let rammed = (white & (black >> 8)).count_ones() as i32;
    let open_files = 8 - file_set(white | black).count_ones() as i32;
    let closedness = (pawns + 3 * rammed - 4 * open_files) / 3;
    closedness.clamp(0, CLOSEDNESS_MAX as i32) as u8
}

/// Our knights' and rooks' closedness score at index `closedness` (from [`index`]).
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    closedness: u8,
    t: &mut T,
) -> S {
    let i = usize::from(closedness).min(CLOSEDNESS_MAX);
    let own = board.by_color(us);
    let mut s = S::default();
    for (feature, pieces) in [
        (f::CLOSEDNESS_KNIGHT[i], own & board.knights()),
        (f::CLOSEDNESS_ROOK[i], own & board.rooks()),
    ] {
        let n = pieces.count() as i32;
        if n > 0 {
            s += weights[feature] * n;
            t.add(Section::Closedness, feature, us, n);
        }
    }
    s
}
