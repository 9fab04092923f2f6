//! Space (`space_*`): squares where the enemy's attack outnumbers ours, and the
//! wide centre we hold unopposed.
//!
//! A square we attack once, the enemy at least twice, and no pawn of ours guards is
//! contested on their terms: a piece on it (of either side) is fought over at a
//! loss, and an empty one is of no use to us (`space_restrict_piece`,
//! `space_restrict_empty`, per square). Sliders see through nothing here (Ethereal's
//! see through their own batteries). A square of the wide centre (c3..f6) that we
//! attack or occupy and the enemy does not attack is room for our pieces
//! (`space_center_control`), but only while enough pieces are left for room to
//! matter: in an endgame one rook controls many unopposed squares and means little
//! by it. Learnt from Ethereal's space terms.

use super::features::{self as f, Section};
use super::{AttackMap, Tracer};
use crate::score::S;
use shakmaty::{Board, Color, Role};

const PAWN: usize = Role::Pawn as usize - 1;

/// Files c..f of ranks 3..6.
const WIDE_CENTRE: u64 = 0x0000_3C3C_3C3C_0000;

/// Knights and bishops plus twice the rooks and queens (both sides) above which the
/// centre term counts.
const CENTRE_PIECES_MIN: u32 = 12;

/// Our space score.
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    maps: &[AttackMap; 2],
    t: &mut T,
) -> S {
    let (ours, theirs) = (&maps[us as usize], &maps[!us as usize]);
    let occupied = board.occupied().0;
    let outnumbered = theirs.twice & ours.all & !ours.twice & !ours.by[PAWN];
    let mut counts = [
        (
            f::SPACE_RESTRICT_PIECE,
            (outnumbered & occupied).count_ones(),
        ),
        (
            f::SPACE_RESTRICT_EMPTY,
            (outnumbered & !occupied).count_ones(),
        ),
        (f::SPACE_CENTER_CONTROL, 0),
    ];
    let pieces = (board.knights() | board.bishops()).count() as u32
        + 2 * board.rooks_and_queens().count() as u32;
    if pieces > CENTRE_PIECES_MIN {
        let held = (ours.all | board.by_color(us).0) & !theirs.all & WIDE_CENTRE;
        counts[2].1 = held.count_ones();
    }
    let mut s = S::default();
    for (feature, n) in counts {
        if n > 0 {
            s += weights[feature] * n as i32;
            t.add(Section::Space, feature, us, n as i32);
        }
    }
    s
}
