//! Outposts (`outpost_*`): a knight or bishop on relative rank 4..=6, on a square no
//! enemy pawn can ever attack (no enemy pawn on an adjacent file in front of it). Such
//! a piece cannot be chased away by pawns, only traded. Defended by an own pawn it is
//! an outpost proper; undefended it still stands, as Ethereal 12.75 pays it, for less
//! (`outpost_*_undefended`). Knights, short-ranged, gain most; a knight that can jump
//! to an empty defended outpost square gets a smaller bonus. PeSTO's knight table
//! already pays for central advanced squares, so these weights pay only for the pawn
//! structure around them.

use super::Tracer;
use super::features::{self as f, Section};
use crate::score::S;
use shakmaty::attacks::knight_attacks;
use shakmaty::{Board, Color, Square};

/// Our outpost score; `holes` are the squares of our relative ranks 4..=6 no enemy
/// pawn can attack (from the pawn table, [`super::pawns::enemy_pawn_holes`]),
/// `guarded` the squares our pawns attack.
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    holes: u64,
    guarded: u64,
    t: &mut T,
) -> S {
    let mut s = S::default();
    if holes == 0 {
        return s;
    }
    let own = board.by_color(us).0;
    let knights = own & board.knights().0;
    let bishops = own & board.bishops().0;
    let mut add = |feature: usize, n: i32, t: &mut T| {
        if n > 0 {
            s += weights[feature] * n;
            t.add(Section::Outposts, feature, us, n);
        }
    };
    let outposts = holes & guarded;
    let undefended = holes & !guarded;
    for (feature, pieces) in [
        (f::OUTPOST_KNIGHT, knights & outposts),
        (f::OUTPOST_BISHOP, bishops & outposts),
        (f::OUTPOST_KNIGHT_UNDEFENDED, knights & undefended),
        (f::OUTPOST_BISHOP_UNDEFENDED, bishops & undefended),
    ] {
        add(feature, pieces.count_ones() as i32, t);
    }
    // Knights one jump from an outpost square that no own piece occupies.
    let mut bb = if outposts == 0 {
        0
    } else {
        knights & !outposts
    };
    let mut reach = 0;
    while bb != 0 {
        let sq = Square::new(bb.trailing_zeros());
        bb &= bb - 1;
        if knight_attacks(sq).0 & outposts & !own != 0 {
            reach += 1;
        }
    }
    add(f::OUTPOST_KNIGHT_REACHABLE, reach, t);
    s
}
