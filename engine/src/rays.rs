//! Square geometry shared by the search and the evaluation, as small tables.
//!
//! - Empty-board slider lines: the squares a bishop or a rook on a square would
//!   attack with no other piece on the board, and the lone blockers on them. SEE,
//!   the pin and discovered-check tests ask them at nearly every node; shakmaty's
//!   magic lookup with an empty occupancy reads entries scattered over its 700 KB
//!   attack table (cache misses in perf's profile), this table is 1 KB in one place.
//! - Files, ranks and pawns: file masks, king distance, pawn attacks of a whole
//!   set of pawns, and the front and passed-pawn spans of a square.

use shakmaty::{Bitboard, Board, Color, Square, attacks};

/// `[0]`: the diagonals through each square, `[1]`: its rank and file (the
/// square itself excluded).
static LINES: [[u64; 64]; 2] = lines();

const fn lines() -> [[u64; 64]; 2] {
    const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    const STRAIGHT: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    let mut lines = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let mut kind = 0;
        while kind < 2 {
            let directions = if kind == 0 { DIAGONAL } else { STRAIGHT };
            let mut d = 0;
            while d < 4 {
                let (df, dr) = directions[d];
                let (mut file, mut rank) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
                while file >= 0 && file < 8 && rank >= 0 && rank < 8 {
                    lines[kind][sq] |= 1 << (rank * 8 + file);
                    file += df;
                    rank += dr;
                }
                d += 1;
            }
            kind += 1;
        }
        sq += 1;
    }
    lines
}

/// What a bishop on `sq` attacks on an empty board.
#[inline(always)]
pub fn diagonal(sq: Square) -> Bitboard {
    Bitboard(LINES[0][sq as usize])
}

/// What a rook on `sq` attacks on an empty board.
#[inline(always)]
pub fn straight(sq: Square) -> Bitboard {
    Bitboard(LINES[1][sq as usize])
}

/// The pieces (of either colour) that stand alone between `sq` and a slider of
/// `sliders` aimed at it along the slider's lines: with `sq` a king and `sliders`
/// the enemy's, the candidates for a pin; with our sliders and the enemy king, for
/// a discovered check.
#[inline(always)]
pub fn lone_blockers(board: &Board, sq: Square, sliders: Bitboard) -> Bitboard {
    let aimed = ((straight(sq) & board.rooks_and_queens())
        | (diagonal(sq) & board.bishops_and_queens()))
        & sliders;
    let mut blockers = Bitboard(0);
    for slider in aimed {
        let between = attacks::between(sq, slider) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

// Files, ranks and pawns

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
pub fn distance(a: Square, b: Square) -> i32 {
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

/// The squares the pawns `pawns` of `color` attack towards the a-file and towards
/// the h-file.
#[inline(always)]
fn pawn_attack_sides(color: Color, pawns: u64) -> (u64, u64) {
    let (west, east) = (pawns & !FILE_A, pawns & !(FILE_A << 7));
    match color {
        Color::White => (west << 7, east << 9),
        Color::Black => (west >> 9, east >> 7),
    }
}

/// Squares attacked by the pawns `pawns` of `color`.
#[inline(always)]
pub fn pawn_attacks(color: Color, pawns: u64) -> u64 {
    let (west, east) = pawn_attack_sides(color, pawns);
    west | east
}

/// Squares attacked by two of the pawns `pawns` of `color`.
#[inline(always)]
pub fn pawn_double_attacks(color: Color, pawns: u64) -> u64 {
    let (west, east) = pawn_attack_sides(color, pawns);
    west & east
}

/// Relative rank 0..=7 of `sq` for `color`.
#[inline(always)]
pub fn relative_rank(color: Color, sq: usize) -> usize {
    match color {
        Color::White => sq / 8,
        Color::Black => 7 - sq / 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_equal_shakmatys_empty_board_attacks() {
        for sq in Square::ALL {
            assert_eq!(diagonal(sq), attacks::bishop_attacks(sq, Bitboard(0)));
            assert_eq!(straight(sq), attacks::rook_attacks(sq, Bitboard(0)));
        }
    }

    /// The file and distance tables equal what they replace: shakmaty's distance,
    /// the files beside a file, the files holding some squares.
    #[test]
    fn file_and_distance_tables_equal_their_definitions() {
        for a in Square::ALL {
            for b in Square::ALL {
                assert_eq!(distance(a, b), a.distance(b) as i32, "{a} {b}");
            }
        }
        for file in 0..8usize {
            let mut beside = 0u64;
            for other in [file.wrapping_sub(1), file + 1] {
                if other < 8 {
                    beside |= FILE_A << other;
                }
            }
            assert_eq!(adjacent_files(file), beside);
        }
        for bb in [0u64, 1, 1 << 63, 0x0081_0000_0000_4200, !0] {
            let files = (0..8).filter(|f| bb & (FILE_A << f) != 0);
            assert_eq!(file_set(bb), files.fold(0, |s, f| s | 1 << f));
        }
    }
}
