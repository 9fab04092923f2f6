//! King shelter and pawn storm: tables by file and distance of the pawns in front of
//! the king (`king_shelter_*`, `king_storm_*`).
//!
//! On each of the three files around the king (the centre file clamped to b..g, so a
//! king on the edge still looks at three files) we look at the nearest own pawn and
//! the nearest enemy pawn on or in front of the king's rank, and score their distance
//! in ranks (7 = no such pawn). The tables are indexed by the file folded to a..d
//! (a/h, b/g, c/f, d/e): a missing g-pawn weakens a king on g1 differently from a
//! missing d-pawn. A file of the queen's wing (a..d) adds its own table on top
//! (`king_shelter_queenside_*`, `king_storm_queenside_*`), so the sum is a table per
//! real file, as Ethereal 12.75 has: a long-castled king's shelter on a b c need not
//! be worth what a short-castled king's on h g f is. The king's own file has an extra
//! table, since an open file right in front of the king is the worst hole. An enemy
//! pawn that stands right in front of our nearest pawn is blocked: it cannot advance,
//! only open a lever, so it has its own, smaller table. Pawns behind the king protect
//! nothing and are ignored.
//!
//! The king's distance in files to the nearest file with any pawn
//! (`king_pawn_file_distance_*`) is scored here too, apart from the shelter sum: a
//! king far from every pawn is out of play in an endgame. The older king-safety
//! counts live here as well: own pawns one and two ranks ahead of
//! the king on its file and the files beside it (`king_shield_near/far`), and those
//! files without any pawn or without ours (`king_open_file`, `king_semi_open_file`).
//!
//! Everything here depends on the pawns and that king's square alone, so the
//! evaluation caches the sum in the pawn-hash entry per king square and recomputes
//! it only when the king or the pawns changed.

use super::features::{self as f, Section};
use super::{Evaluator, Tracer};
use crate::rays::{self, FILE_A, relative_rank};
use crate::score::S;
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

/// Shelter on a file of the queen's wing (a..d), on top of its folded entry.
const SHELTER_QUEENSIDE: [[usize; 8]; 4] = [
    f::KING_SHELTER_QUEENSIDE_FILE_A,
    f::KING_SHELTER_QUEENSIDE_FILE_B,
    f::KING_SHELTER_QUEENSIDE_FILE_C,
    f::KING_SHELTER_QUEENSIDE_FILE_D,
];
/// Unblocked storm on a file of the queen's wing, on top of its folded entry.
const STORM_QUEENSIDE: [[usize; 8]; 4] = [
    f::KING_STORM_QUEENSIDE_FILE_A,
    f::KING_STORM_QUEENSIDE_FILE_B,
    f::KING_STORM_QUEENSIDE_FILE_C,
    f::KING_STORM_QUEENSIDE_FILE_D,
];

/// An intact castled king, the zero of `king_danger_shelter_pct`: the shelter tables'
/// level is free (the fit moves them together), so the share counts a shortfall.
pub(super) const SHELTER_REFERENCE: &str = "6k1/5ppp/8/8/8/8/5PPP/6K1";

/// Distance bucket of a file without the pawn in question.
const NONE: usize = 7;

/// Our king's shelter and the enemy's pawn storm against it, plus the pawn shield and
/// open files around it ([`shield`]).
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
        let queenside = file < 4;
        add(Section::KingShelter, SHELTER[folded][ours], t);
        if queenside {
            add(Section::KingShelter, SHELTER_QUEENSIDE[file][ours], t);
        }
        if file == king_file {
            add(Section::KingShelter, f::KING_SHELTER_FRONT[ours], t);
        }
        // Blocked: an enemy pawn right in front of our nearest pawn, so 1..=6 ranks
        // ahead (table index 0 = distance 1); `ours` is then a real pawn (< 6).
        if theirs != NONE && theirs == ours + 1 {
            add(Section::KingStorm, f::KING_STORM_BLOCKED[theirs - 1], t);
        } else {
            add(Section::KingStorm, STORM[folded][theirs], t);
            if queenside {
                add(Section::KingStorm, STORM_QUEENSIDE[file][theirs], t);
            }
        }
    }
    s + shield(weights, board, us, king, t)
}

impl Evaluator {
    /// The features of `color`'s shelter sum ([`evaluate`]: the score
    /// `king_danger_shelter_pct` feeds into king danger) with their counts, so that a
    /// fit of these weights can follow them into king danger.
    pub fn shelter_counts(&self, board: &Board, color: Color) -> Vec<(u16, i16)> {
        let mut list = FeatureList(Vec::with_capacity(16));
        evaluate(&self.weights, board, color, &mut list);
        list.0
    }

    /// [`Evaluator::shelter_counts`] of the intact castled king whose shelter is the
    /// zero of `king_danger_shelter_pct` (the count takes a share of the shortfall
    /// from it).
    pub fn shelter_reference_counts(&self) -> Vec<(u16, i16)> {
        let board: Board = SHELTER_REFERENCE.parse().expect("a valid board");
        self.shelter_counts(&board, Color::White)
    }
}

/// A tracer that keeps only the feature counts, in the order reported.
struct FeatureList(Vec<(u16, i16)>);

impl Tracer for FeatureList {
    const ON: bool = true;
    fn add(&mut self, _: Section, feature: usize, _: Color, count: i32) {
        self.0.push((feature as u16, count as i16));
    }
    fn offset(&mut self, _: Section, _: Color, _: S) {}
}

/// Our king's distance in files to the nearest file with any pawn, scored from a
/// table (`king_pawn_file_distance_*`; no term without pawns, the same for both
/// kings). Apart from [`evaluate`]: king danger reads the shelter sum, this is not
/// part of it.
#[inline(always)]
pub(super) fn pawn_file_distance<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    t: &mut T,
) -> S {
    let files = rays::file_set(board.pawns().0);
    if files == 0 {
        return S::default();
    }
    let king_file = board.king_of(us).expect("legal positions have kings") as usize % 8;
    // The nearest pawn file at or right of the king's, and at or left of it.
    let right = (files >> king_file).trailing_zeros();
    let left = ((files << (7 - king_file)) as u8).leading_zeros();
    let feature = f::KING_PAWN_FILE_DISTANCE[right.min(left) as usize];
    t.add(Section::KingShelter, feature, us, 1);
    weights[feature]
}

/// Pawn shield and open files around our king (its file and the files beside it;
/// the masks come from a table by colour and square).
#[inline(always)]
fn shield<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    king: usize,
    t: &mut T,
) -> S {
    let mut s = S::default();
    let mut add = |feature: usize, n: i32, t: &mut T| {
        if n > 0 {
            s += weights[feature] * n;
            t.add(Section::KingSafety, feature, us, n);
        }
    };
    let own_pawns = (board.pawns() & board.by_color(us)).0;
    let shield = &KING_SHIELD[us as usize][king];
    add(
        f::KING_SHIELD_NEAR,
        (shield.near & own_pawns).count_ones() as i32,
        t,
    );
    add(
        f::KING_SHIELD_FAR,
        (shield.far & own_pawns).count_ones() as i32,
        t,
    );
    // The same files as a file set: without any pawn, or without ours.
    let pawn_files = rays::file_set(board.pawns().0);
    let open = (shield.files & !pawn_files).count_ones() as i32;
    add(f::KING_OPEN_FILE, open, t);
    let semi_open = shield.files & pawn_files & !rays::file_set(own_pawns);
    add(f::KING_SEMI_OPEN_FILE, semi_open.count_ones() as i32, t);
    s
}

/// The squares and files the king-safety terms look at for one king.
#[derive(Clone, Copy)]
pub(super) struct KingShield {
    /// Pawns one and two ranks ahead of the king (its file and the ones beside it).
    pub(super) near: u64,
    pub(super) far: u64,
    /// Those files as a file set (bit 0 = file a).
    pub(super) files: u32,
}

/// `KING_SHIELD[color as usize][king square]` (shakmaty's colour order).
pub(super) static KING_SHIELD: [[KingShield; 64]; 2] = {
    const EMPTY: KingShield = KingShield {
        near: 0,
        far: 0,
        files: 0,
    };
    let mut t = [[EMPTY; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let white = c == Color::White as usize;
        let mut sq = 0;
        while sq < 64 {
            let file = sq % 8;
            let files_bb = rays::adjacent_files_of(file) | FILE_A << file;
            let king_rank = if white { sq / 8 } else { 7 - sq / 8 };
            let mut masks = [0u64; 2];
            let mut ahead = 1;
            while ahead <= 2 {
                let r = king_rank + ahead;
                if r <= 7 {
                    let absolute = if white { r } else { 7 - r };
                    masks[ahead - 1] = files_bb & (0xFFu64 << (8 * absolute));
                }
                ahead += 1;
            }
            t[c][sq] = KingShield {
                near: masks[0],
                far: masks[1],
                files: rays::file_set(files_bb),
            };
            sq += 1;
        }
        c += 1;
    }
    t
};
