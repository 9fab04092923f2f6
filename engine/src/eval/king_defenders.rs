//! King defenders (`king_defenders_*`): our pawns, knights and bishops inside our
//! king's area, scored by their number from a table.
//!
//! The area is Ethereal's three files by four ranks (`super::king_zone` with its
//! extra rank in front and its extra file on the edge), whatever shape king danger
//! counts the attack on. A table rather than a weight per defender: the first
//! defenders matter most, and a king buried under its own pieces may be short of
//! squares. Learnt from Ethereal's king defenders.

use super::Tracer;
use super::features::{self as f, Section};
use crate::score::S;
use shakmaty::{Board, Color};

/// Our king-defenders score.
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    t: &mut T,
) -> S {
    let king = board.king_of(us).expect("legal positions have kings");
    let area = super::king_zone(king, us, true);
    let defenders = (board.pawns() | board.knights() | board.bishops()).0 & board.by_color(us).0;
    let n = (defenders & area).count_ones() as usize;
    let feature = f::KING_DEFENDERS[n.min(f::KING_DEFENDERS.len() - 1)];
    t.add(Section::KingSafety, feature, us, 1);
    weights[feature]
}
