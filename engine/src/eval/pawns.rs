//! Pawn structure: isolated, doubled, backward, connected (defended), phalanx and
//! passed pawns by rank. These depend on the pawns alone, so the result is cached
//! in a small pawn hash table keyed by both pawn bitboards (an exact key: no
//! collisions). Passed-pawn terms that depend on other pieces (advance, king
//! distance, path) are scored each time from the cached passed-pawn sets (`passed.rs`).

use super::features::{self as f, Section};
use super::{S, Tracer};
use shakmaty::Color;

pub const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Squares strictly in front of `sq` on its file, from `color`'s point of view.
const fn front_span(color: usize, sq: usize) -> u64 {
    let file = FILE_A << (sq % 8);
    if color == 0 {
        if sq >= 56 {
            0
        } else {
            file & (!0u64 << (sq + 8))
        }
    } else if sq < 8 {
        0
    } else {
        file & (!0u64 >> (64 - sq))
    }
}

pub const fn adjacent_files_of(file: usize) -> u64 {
    let mut m = 0;
    if file > 0 {
        m |= FILE_A << (file - 1);
    }
    if file < 7 {
        m |= FILE_A << (file + 1);
    }
    m
}

/// `ADJACENT_FILES[file]`: the files beside `file` (one or two).
static ADJACENT_FILES: [u64; 8] = {
    let mut t = [0; 8];
    let mut file = 0;
    while file < 8 {
        t[file] = adjacent_files_of(file);
        file += 1;
    }
    t
};

/// The files beside `file` (a table lookup: the evaluation asks for every pawn).
#[inline(always)]
pub fn adjacent_files(file: usize) -> u64 {
    ADJACENT_FILES[file & 7]
}

/// The files holding any of `squares`, one bit per file (bit 0 = file a).
#[inline(always)]
pub const fn file_set(squares: u64) -> u32 {
    let mut b = squares;
    b |= b >> 32;
    b |= b >> 16;
    b |= b >> 8;
    (b & 0xFF) as u32
}

/// Chebyshev distance between two squares (king moves), by table: the evaluation
/// asks it for every knight and passed pawn.
#[inline(always)]
pub fn distance(a: shakmaty::Square, b: shakmaty::Square) -> i32 {
    DISTANCE[a as usize][b as usize] as i32
}

static DISTANCE: [[u8; 64]; 64] = {
    let mut t = [[0; 64]; 64];
    let mut a: usize = 0;
    while a < 64 {
        let mut b: usize = 0;
        while b < 64 {
            let files = (a % 8).abs_diff(b % 8);
            let ranks = (a / 8).abs_diff(b / 8);
            t[a][b] = if files > ranks { files } else { ranks } as u8;
            b += 1;
        }
        a += 1;
    }
    t
};

/// Squares whose enemy pawns stop a pawn on `sq` from being passed: the front span on
/// its own and the adjacent files.
const fn passed_span(color: usize, sq: usize) -> u64 {
    let own = front_span(color, sq);
    let mut m = own;
    if !sq.is_multiple_of(8) {
        m |= own >> 1;
    }
    if sq % 8 < 7 {
        m |= own << 1;
    }
    m
}

const fn build(span: bool) -> [[u64; 64]; 2] {
    let mut t = [[0; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            t[c][sq] = if span {
                passed_span(c, sq)
            } else {
                front_span(c, sq)
            };
            sq += 1;
        }
        c += 1;
    }
    t
}

/// `FRONT[color][sq]`: squares in front of sq on its file.
pub static FRONT: [[u64; 64]; 2] = build(false);
/// `PASSED[color][sq]`: front span on its file and the adjacent files.
pub static PASSED: [[u64; 64]; 2] = build(true);

/// Squares attacked by the pawns `pawns` of `color`.
#[inline(always)]
pub fn pawn_attacks(color: Color, pawns: u64) -> u64 {
    let (west, east) = (pawns & !FILE_A, pawns & !(FILE_A << 7));
    match color {
        Color::White => (west << 7) | (east << 9),
        Color::Black => (west >> 9) | (east >> 7),
    }
}

/// Relative rank 0..=7 of `sq` for `color`.
#[inline(always)]
pub fn relative_rank(color: Color, sq: usize) -> usize {
    match color {
        Color::White => sq / 8,
        Color::Black => 7 - sq / 8,
    }
}

/// Pawn-only score (White minus Black) and the passed pawns of each side.
#[derive(Clone, Copy, Debug, Default)]
pub struct PawnEntry {
    white: u64,
    black: u64,
    pub score: S,
    /// Passed pawns of White and Black.
    pub passed: [u64; 2],
    /// Outpost squares of White and Black (`outposts.rs`).
    pub outposts: [u64; 2],
    /// King squares (64: none yet) for which `shelter` holds each side's king shelter
    /// and storm score (`shelter.rs`): they depend on the pawns and that king only,
    /// and kings move rarely, so the entry keeps the last one.
    pub king: [u8; 2],
    pub shelter: [S; 2],
}

impl PawnEntry {
    /// The entry of no pawns at all, valid as it stands (no king shelter cached yet).
    fn empty() -> PawnEntry {
        PawnEntry {
            king: [64; 2],
            ..PawnEntry::default()
        }
    }
}

/// Direct-mapped pawn hash table.
#[derive(Clone, Debug)]
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

const PAWN_TABLE_BITS: u32 = 13;

impl PawnTable {
    pub fn new() -> Self {
        PawnTable {
            entries: vec![PawnEntry::empty(); 1 << PAWN_TABLE_BITS],
        }
    }

    /// Forgets every entry (the weights changed).
    pub fn clear(&mut self) {
        self.entries.fill(PawnEntry::empty());
    }

    /// The slot of these pawns.
    #[inline(always)]
    fn slot(white: u64, black: u64) -> usize {
        let key =
            (white ^ black.rotate_left(32) ^ (black >> 7)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (key >> (64 - PAWN_TABLE_BITS)) as usize
    }

    /// Hints the CPU to load the entry of these pawns (its first cache line, which
    /// holds the pawns compared by the probe).
    #[inline(always)]
    pub fn prefetch(&self, white: u64, black: u64) {
        crate::prefetch::prefetch(&self.entries[Self::slot(white, black)]);
    }

    /// The entry for these pawns, computing and storing it on a miss.
    #[inline]
    pub fn probe(&mut self, weights: &[S], white: u64, black: u64) -> &mut PawnEntry {
        let e = &mut self.entries[Self::slot(white, black)];
        // The empty entry (no pawns) is valid: its score is zero.
        if e.white != white || e.black != black {
            let (score, passed) = evaluate(weights, white, black, &mut super::NoTrace);
            *e = PawnEntry {
                white,
                black,
                score,
                passed,
                outposts: super::outposts::squares(white, black),
                ..PawnEntry::empty()
            };
        }
        e
    }
}

/// Scores both sides' pawn structures (White minus Black) and finds the passed pawns.
pub fn evaluate<T: Tracer>(weights: &[S], white: u64, black: u64, t: &mut T) -> (S, [u64; 2]) {
    let mut score = S::default();
    let mut passed = [0u64; 2];
    for color in Color::ALL {
        let (own, opp) = match color {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let ci = color as usize ^ 1; // shakmaty: Black = 0, White = 1; tables: White = 0
        let opp_attacks = pawn_attacks(!color, opp);
        let defended = pawn_attacks(color, own);
        let mut side = S::default();
        let mut add = |section: Section, feature: usize, t: &mut T| {
            side += weights[feature];
            t.add(section, feature, color, 1);
        };
        let mut bb = own;
        while bb != 0 {
            let sq = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            let file = sq % 8;
            let bit = 1u64 << sq;
            let rr = relative_rank(color, sq);
            let doubled = FRONT[ci][sq] & own != 0;
            let isolated = adjacent_files(file) & own == 0;
            let is_passed = !doubled && PASSED[ci][sq] & opp == 0;
            if doubled {
                add(Section::PawnStructure, f::PAWN_DOUBLED, t);
            }
            if isolated {
                add(Section::PawnStructure, f::PAWN_ISOLATED, t);
            }
            if defended & bit != 0 {
                add(Section::PawnStructure, f::PAWN_CONNECTED, t);
            }
            let beside = ((bit & !(FILE_A << 7)) << 1) | ((bit & !FILE_A) >> 1);
            if beside & own != 0 {
                add(Section::PawnStructure, f::PAWN_PHALANX, t);
            }
            // Backward: every own pawn on the adjacent files is in front of it, and the
            // stop square is attacked by an enemy pawn, so it cannot advance safely.
            if !isolated && !is_passed {
                let stop = match color {
                    Color::White => bit << 8,
                    Color::Black => bit >> 8,
                };
                let behind_or_level = adjacent_files(file) & !PASSED[ci][sq] & own;
                if behind_or_level == 0 && stop & opp_attacks != 0 {
                    add(Section::PawnStructure, f::PAWN_BACKWARD, t);
                }
            }
            if is_passed && (1..=6).contains(&rr) {
                passed[color as usize] |= bit;
                add(Section::PassedPawns, f::PAWN_PASSED_RANK[rr - 1], t);
            }
        }
        match color {
            Color::White => score += side,
            Color::Black => score -= side,
        }
    }
    // Report passed pawns White first.
    (
        score,
        [passed[Color::White as usize], passed[Color::Black as usize]],
    )
}
