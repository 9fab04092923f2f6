//! Empty-board slider lines: the squares a bishop or a rook on a square would
//! attack with no other piece on the board, and the lone blockers on them. SEE,
//! the pin and discovered-check tests ask them at nearly every node; shakmaty's
//! magic lookup with an empty occupancy reads entries scattered over its 700 KB
//! attack table (cache misses in perf's profile), this table is 1 KB in one place.

use shakmaty::{Bitboard, Board, Square, attacks};

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
}
