//! King shelter and pawn storm: tables by file and distance of the pawns in front of
//! the king (`king_shelter_*`, `king_storm_*`).
//!
//! On each of the three files around the king (the centre file clamped to b..g, so a
//! king on the edge still looks at three files) we look at the nearest own pawn and
//! the nearest enemy pawn on or in front of the king's rank, and score their distance
//! in ranks (7 = no such pawn). The tables are indexed by the file folded to a..d
//! (a/h, b/g, c/f, d/e): a missing g-pawn weakens a king on g1 differently from a
//! missing d-pawn. The king's own file has an extra table, since an open file right
//! in front of the king is the worst hole. An enemy pawn that stands right in front
//! of our nearest pawn is blocked: it cannot advance, only open a lever, so it has
//! its own, smaller table. Pawns behind the king protect nothing and are ignored.
//!
//! This replaces the earlier shield/open-file counts (pawns one or two ranks ahead,
//! files without pawns): the distance tables express both and the storm besides.

use super::features::{self as f, Section};
use super::pawns::{FILE_A, relative_rank};
use super::{S, Tracer};
use shakmaty::{Board, Color};

/// Shelter by folded file (a/h, b/g, c/f, d/e), then distance.
const SHELTER: [[usize; 8]; 4] = [
    f::KING_SHELTER_FILE_A,
    f::KING_SHELTER_FILE_B,
    f::KING_SHELTER_FILE_C,
    f::KING_SHELTER_FILE_D,
];
/// Unblocked storm by folded file, then distance.
const STORM: [[usize; 8]; 4] = [
    f::KING_STORM_FILE_A,
    f::KING_STORM_FILE_B,
    f::KING_STORM_FILE_C,
    f::KING_STORM_FILE_D,
];

/// Distance bucket of a file without the pawn in question.
const NONE: usize = 7;

/// Our king's shelter and the enemy's pawn storm against it.
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    t: &mut T,
) -> S {
    let mut s = S::default();
    let mut add = |section: Section, feature: usize, t: &mut T| {
        s += weights[feature];
        t.add(section, feature, us, 1);
    };
    let king = board.king_of(us).expect("legal positions have kings") as usize;
    let king_file = king % 8;
    let king_rank = relative_rank(us, king);
    // The king's rank and every rank in front of it (from our side).
    let ahead = match us {
        Color::White => !0u64 << (8 * (king / 8)),
        Color::Black => !0u64 >> (8 * (7 - king / 8)),
    };
    let own = (board.pawns() & board.by_color(us)).0 & ahead;
    let enemy = (board.pawns() & board.by_color(!us)).0 & ahead;
    // The pawn of `pawns` nearest to our king along a file: distance in ranks.
    let distance = |pawns: u64| -> usize {
        if pawns == 0 {
            return NONE;
        }
        let sq = match us {
            Color::White => pawns.trailing_zeros() as usize,
            Color::Black => 63 - pawns.leading_zeros() as usize,
        };
        relative_rank(us, sq) - king_rank
    };
    let centre = king_file.clamp(1, 6);
    for file in centre - 1..=centre + 1 {
        let mask = FILE_A << file;
        let folded = file.min(7 - file);
        let ours = distance(own & mask);
        let theirs = distance(enemy & mask);
        add(Section::KingShelter, SHELTER[folded][ours], t);
        if file == king_file {
            add(Section::KingShelter, f::KING_SHELTER_FRONT[ours], t);
        }
        // Blocked: an enemy pawn right in front of our nearest pawn, so 1..=6 ranks
        // ahead (table index 0 = distance 1); `ours` is then a real pawn (< 6).
        if theirs != NONE && theirs == ours + 1 {
            add(Section::KingStorm, f::KING_STORM_BLOCKED[theirs - 1], t);
        } else {
            add(Section::KingStorm, STORM[folded][theirs], t);
        }
    }
    s
}
