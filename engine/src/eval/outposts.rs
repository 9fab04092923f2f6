//! Outposts (`outpost_*`): a knight or bishop on relative rank 4..=6, defended by an
//! own pawn, on a square no enemy pawn can ever attack (no enemy pawn on an adjacent
//! file in front of it). Such a piece cannot be chased away by pawns, only traded.
//! Knights, short-ranged, gain most; a knight that can jump to an empty outpost
//! square gets a smaller bonus. PeSTO's knight table already pays for central
//! advanced squares, so these weights pay only for the pawn structure around them.

use super::Tracer;
use super::features::{self as f, Section};
use crate::score::S;
use shakmaty::attacks::knight_attacks;
use shakmaty::{Board, Color, Square};

/// Our outpost score; `outposts` are our outpost squares (from the pawn
/// table, [`super::pawns::outpost_squares`]).
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    outposts: u64,
    t: &mut T,
) -> S {
    let mut s = S::default();
    if outposts == 0 {
        return s;
    }
    let own = board.by_color(us).0;
    let knights = own & board.knights().0;
    let bishops = own & board.bishops().0;
    let mut add = |feature: usize, n: i32, t: &mut T| {
        s += weights[feature] * n;
        t.add(Section::Outposts, feature, us, n);
    };
    let n = (knights & outposts).count_ones() as i32;
    if n > 0 {
        add(f::OUTPOST_KNIGHT, n, t);
    }
    let n = (bishops & outposts).count_ones() as i32;
    if n > 0 {
        add(f::OUTPOST_BISHOP, n, t);
    }
    // Knights one jump from an outpost square that no own piece occupies.
    let mut bb = knights & !outposts;
    let mut reach = 0;
    while bb != 0 {
        let sq = Square::new(bb.trailing_zeros());
        bb &= bb - 1;
        if knight_attacks(sq).0 & outposts & !own != 0 {
            reach += 1;
        }
    }
    if reach > 0 {
        add(f::OUTPOST_KNIGHT_REACHABLE, reach, t);
    }
    s
}
