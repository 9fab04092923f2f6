//! Complexity (`complexity_*`): how winnable the endgame part of the score is, after
//! Stockfish 11's "initiative" and Ethereal's complexity. A count of what keeps an
//! endgame alive (pawns, pawns on both wings, no pieces left but pawns) minus a
//! constant moves the endgame score away from zero when positive and towards zero when
//! negative, but never past zero: a lead with few pawns, all on one wing, is worth less
//! than the same lead with pawns everywhere.

use super::Tracer;
use super::features::Section;
use crate::params::Params;
use crate::score::S;
use shakmaty::{Board, Color};

/// Files a to d.
const QUEENSIDE: u64 = 0x0F0F_0F0F_0F0F_0F0F;
/// Files e to h.
const KINGSIDE: u64 = !QUEENSIDE;

/// The `complexity_*` weights, in endgame centipawns.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Complexity {
    pawns: i32,
    pawn_flanks: i32,
    pawn_endgame: i32,
    offset: i32,
}

impl Complexity {
    pub(super) fn new(params: &Params) -> Complexity {
        Complexity {
            pawns: params.complexity_pawns(),
            pawn_flanks: params.complexity_pawn_flanks(),
            pawn_endgame: params.complexity_pawn_endgame(),
            offset: params.complexity_offset(),
        }
    }

    /// What to add to the endgame score `eg` (White's view).
    #[inline(always)]
    pub(super) fn adjust<T: Tracer>(&self, board: &Board, eg: i32, t: &mut T) -> i32 {
        // Level: no side to move towards or away from.
        if eg == 0 {
            return 0;
        }
        let pawns = board.pawns().0;
        let both_flanks = pawns & QUEENSIDE != 0 && pawns & KINGSIDE != 0;
        let pawns_only = (board.knights() | board.bishops() | board.rooks_and_queens()).is_empty();
        let complexity = self.pawns * pawns.count_ones() as i32
            + self.pawn_flanks * i32::from(both_flanks)
            + self.pawn_endgame * i32::from(pawns_only)
            + self.offset;
        // Towards the side ahead when positive; never more than the lead when negative.
        let floor = -eg.abs();
        let change = complexity.max(floor);
        if T::ON && complexity < floor {
            t.endgame_floored();
        }
        let leader = if eg > 0 { Color::White } else { Color::Black };
        t.offset(Section::Complexity, leader, S::new(0, change));
        match leader {
            Color::White => change,
            Color::Black => -change,
        }
    }
}
