//! Correction history (`corr_*`): what searches have found the static evaluation
//! to be wrong by, remembered per side to move under a key of the position's pawn
//! structure, under a key of each side's other pieces and under a key of both
//! sides' minor pieces (knights, bishops) and kings, under a key of the two moves
//! that led here (piece and destination of each), and added to the static eval
//! that the pruning reads. A hand-crafted evaluation misjudges whole families
//! of positions the same way (a pawn structure it does not understand, a piece
//! configuration it over-rates); the search corrects that family once, and every
//! later node of it starts from a better guess.
//!
//! Entries are in 1/[`GRAIN`] centipawns. A search of depth `d` that found its node
//! worth `error` more than the *corrected* eval adds `error · d · corr_rate / 1000`
//! to each of the node's entries, with gravity towards ±`corr_max` centipawns (as
//! the history tables): the update chases the error left after the correction, so
//! the tables together, not each one, converge to the evaluation's bias. The
//! correction is their sum weighted by `corr_pawn_weight`, `corr_pieces_weight`,
//! `corr_minor_weight` and `corr_cont_weight` (percent; 0 turns a table off). The
//! evaluator, the transposition table and the eval cache only ever see the raw
//! evaluation; the correction is applied on top at every node, with the tables as
//! they are then (Stockfish's scheme, its minor-piece and continuation keys
//! included; Ethereal and Alexandria use pawn-keyed tables alike). The continuation
//! key learns what a static eval misses right after a given exchange of moves: a
//! threat the last move made, a recapture due.

use shakmaty::{Board, Color, Position as _};

use crate::params::Params;
use crate::position::Position;
use crate::score::EVAL_MAX;

/// Fixed-point scale of the entries: 1/256 of a centipawn.
const GRAIN: i32 = 256;
/// Entries per side to move in each table (a power of two).
const SIZE: usize = 16384;

/// The table indices of one position, computed once per node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CorrectionKeys {
    side: usize,
    pawns: usize,
    /// Non-pawn pieces (king included) of White, of Black.
    pieces: [usize; 2],
    /// Knights and bishops of both sides, with both kings.
    minor: usize,
    /// corr_cont_: the previous two moves (`None`: a null move among them, the
    /// root's first plies, or the table off).
    cont: Option<usize>,
}

/// One table: `[side to move][key]`. Fixed-size rows: indexed with `side & 1` and
/// `key % SIZE` (no-ops on the keys [`CorrectionHistory::keys`] makes), every
/// lookup compiles without a bounds check.
type Table = [[i32; SIZE]; 2];

pub struct CorrectionHistory {
    /// corr_pawn_: `[side to move][pawn key]`.
    pawn: Table,
    /// corr_pieces_: `[colour of the pieces][side to move][pieces key]`.
    pieces: [Table; 2],
    /// corr_minor_: `[side to move][minor-piece key]`.
    minor: Table,
    /// corr_cont_: `[side to move][key of the previous two moves]`.
    cont: Table,
}

impl CorrectionHistory {
    /// All entries zero, allocated on the heap (640 KB, too large for a stack).
    pub fn new_boxed() -> Box<Self> {
        // SAFETY: the tables are integers only, and all-zero integers are valid.
        unsafe { Box::<Self>::new_zeroed().assume_init() }
    }

    /// All entries zero, in place (see `History::clear`).
    pub fn clear(&mut self) {
        let tables = [&mut self.pawn, &mut self.minor, &mut self.cont]
            .into_iter()
            .chain(&mut self.pieces);
        for table in tables {
            for row in table.iter_mut() {
                row.fill(0);
            }
        }
    }
}

/// A multiplicative hash of a set of bitboards into `SIZE` slots.
#[inline(always)]
fn slot(h: u64) -> usize {
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SIZE.trailing_zeros())) as usize
}

/// Key of one side's pieces other than pawns: each role's squares mixed by its own
/// odd multiplier, so the same squares under another role hash elsewhere.
#[inline(always)]
fn pieces_key(board: &Board, color: Color) -> usize {
    let own = board.by_color(color);
    let h = (board.knights() & own)
        .0
        .wrapping_mul(0xD6E8_FEB8_6659_FD93)
        ^ (board.bishops() & own)
            .0
            .wrapping_mul(0xA076_1D64_78BD_642F)
        ^ (board.rooks() & own).0.wrapping_mul(0xE703_7ED1_A0B4_28DB)
        ^ (board.queens() & own).0.wrapping_mul(0x8EBC_6AF0_9C88_C6E3)
        ^ (board.kings() & own).0.wrapping_mul(0x5899_65CC_7537_4CC3);
    slot(h)
}

/// Key of both sides' knights and bishops, with the kings: each (colour, role)'s
/// squares mixed by its own odd multiplier.
#[inline(always)]
fn minor_key(board: &Board) -> usize {
    let (white, black) = (board.white(), board.black());
    let (knights, bishops) = (board.knights(), board.bishops());
    let h = (knights & white).0.wrapping_mul(0xD6E8_FEB8_6659_FD93)
        ^ (bishops & white).0.wrapping_mul(0xA076_1D64_78BD_642F)
        ^ (knights & black).0.wrapping_mul(0xE703_7ED1_A0B4_28DB)
        ^ (bishops & black).0.wrapping_mul(0x8EBC_6AF0_9C88_C6E3)
        ^ (board.kings() & white)
            .0
            .wrapping_mul(0x5899_65CC_7537_4CC3)
        ^ (board.kings() & black)
            .0
            .wrapping_mul(0x9FB2_1C65_1E98_DF25);
    slot(h)
}

/// corr_cont_: key of the previous two moves, each a piece-to slot of the
/// continuation histories (its colour included).
#[inline(always)]
fn cont_key(last: usize, before: usize) -> usize {
    slot(((last as u64) << 32 | before as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
}

impl CorrectionHistory {
    /// Whether any correction table is read or written with these parameters.
    #[inline(always)]
    pub fn enabled(p: &Params) -> bool {
        p.corr_pawn_weight() != 0
            || p.corr_pieces_weight() != 0
            || p.corr_minor_weight() != 0
            || p.corr_cont_weight() != 0
    }

    /// The keys of `pos`, reached by the piece-to slots `moves` (the last move
    /// first; `None` for a null move or before the root).
    #[inline(always)]
    pub fn keys(p: &Params, pos: &Position, moves: [Option<usize>; 2]) -> CorrectionKeys {
        let board = pos.board().board();
        let pawns = board.pawns();
        let white_pawns = (pawns & board.white()).0;
        let black_pawns = (pawns & board.black()).0;
        CorrectionKeys {
            side: pos.turn() as usize,
            pawns: slot(
                white_pawns
                    ^ black_pawns
                        .rotate_left(29)
                        .wrapping_mul(0xFF51_AFD7_ED55_8CCD),
            ),
            pieces: [
                pieces_key(board, Color::White),
                pieces_key(board, Color::Black),
            ],
            minor: minor_key(board),
            cont: match moves {
                [Some(last), Some(before)] if p.corr_cont_weight() != 0 => {
                    Some(cont_key(last, before))
                }
                _ => None,
            },
        }
    }

    /// Hints the CPU to load the entries of these keys.
    #[inline(always)]
    pub fn prefetch(&self, k: CorrectionKeys) {
        let side = k.side & 1;
        crate::prefetch::prefetch(&self.pawn[side][k.pawns % SIZE]);
        crate::prefetch::prefetch(&self.pieces[0][side][k.pieces[0] % SIZE]);
        crate::prefetch::prefetch(&self.pieces[1][side][k.pieces[1] % SIZE]);
        crate::prefetch::prefetch(&self.minor[side][k.minor % SIZE]);
        if let Some(cont) = k.cont {
            crate::prefetch::prefetch(&self.cont[side][cont % SIZE]);
        }
    }

    /// The correction in centipawns for a position with these keys.
    #[inline(always)]
    pub fn correction(&self, p: &Params, k: CorrectionKeys) -> i32 {
        let side = k.side & 1;
        let pawn = self.pawn[side][k.pawns % SIZE];
        let pieces =
            self.pieces[0][side][k.pieces[0] % SIZE] + self.pieces[1][side][k.pieces[1] % SIZE];
        let minor = self.minor[side][k.minor % SIZE];
        let cont = k.cont.map_or(0, |c| self.cont[side][c % SIZE]);
        (pawn * p.corr_pawn_weight()
            + pieces * p.corr_pieces_weight()
            + minor * p.corr_minor_weight()
            + cont * p.corr_cont_weight())
            / (100 * GRAIN)
    }

    /// `raw` static eval plus the correction, kept below the tablebase-win and mate
    /// band as the evaluation itself is.
    #[inline(always)]
    pub fn corrected(&self, p: &Params, k: CorrectionKeys, raw: i32) -> i32 {
        (raw + self.correction(p, k)).clamp(-EVAL_MAX, EVAL_MAX)
    }

    /// A search of `depth` found the node worth `error` centipawns more than its
    /// corrected static eval said: move each of its entries towards it.
    pub fn update(&mut self, p: &Params, k: CorrectionKeys, depth: i32, error: i32) {
        let cap = p.corr_max() * GRAIN;
        let bonus = (error as i64 * (GRAIN * depth * p.corr_rate()) as i64 / 1000)
            .clamp(-cap as i64 / 4, cap as i64 / 4) as i32;
        // In i64: an entry times a bonus passes i32 once corr_max exceeds 362.
        let gravity =
            |e: &mut i32| *e += bonus - (*e as i64 * bonus.abs() as i64 / cap as i64) as i32;
        let side = k.side & 1;
        gravity(&mut self.pawn[side][k.pawns % SIZE]);
        gravity(&mut self.pieces[0][side][k.pieces[0] % SIZE]);
        gravity(&mut self.pieces[1][side][k.pieces[1] % SIZE]);
        gravity(&mut self.minor[side][k.minor % SIZE]);
        if let Some(cont) = k.cont {
            gravity(&mut self.cont[side][cont % SIZE]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pawn: i32, pieces: i32, minor: i32) -> Params {
        with_cont(pawn, pieces, minor, 0)
    }

    fn with_cont(pawn: i32, pieces: i32, minor: i32, cont: i32) -> Params {
        let mut p = Params::default();
        p.set_by_name("corr_cont_weight", &cont.to_string())
            .unwrap();
        p.set_by_name("corr_pawn_weight", &pawn.to_string())
            .unwrap();
        p.set_by_name("corr_pieces_weight", &pieces.to_string())
            .unwrap();
        p.set_by_name("corr_minor_weight", &minor.to_string())
            .unwrap();
        p
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, false).unwrap()
    }

    #[test]
    fn off_at_zero_weights_and_learns_a_steady_error_when_on() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let k = CorrectionHistory::keys(&off_cont(), &start, [Some(1), Some(2)]);
        let mut ch = CorrectionHistory::new_boxed();
        let off = params(0, 0, 0);
        assert!(!CorrectionHistory::enabled(&off));
        ch.update(&off, k, 10, 300);
        assert_eq!(ch.corrected(&off, k, 17), 17, "zero weights read nothing");

        // A steady error of +40 cp: the summed correction approaches it from below
        // and never passes corr_max per table.
        let p = params(100, 100, 100);
        let mut ch = CorrectionHistory::new_boxed();
        for _ in 0..200 {
            let error = 40 - ch.correction(&p, k);
            ch.update(&p, k, 8, error);
        }
        let c = ch.correction(&p, k);
        assert!((35..=40).contains(&c), "converged to {c}");
        for _ in 0..200 {
            ch.update(&p, k, 30, 5000);
        }
        assert!(ch.correction(&p, k) <= 4 * p.corr_max(), "saturates");
        assert_eq!(ch.corrected(&p, k, EVAL_MAX - 2), EVAL_MAX);
    }

    /// The gravity step multiplies an entry (up to corr_max * GRAIN) by a bonus (up to
    /// a quarter of that): at the parameters' largest values the product passes i32
    /// and must not wrap (a debug build panics on overflow).
    #[test]
    fn the_largest_corr_max_saturates_without_overflow() {
        let mut p = params(100, 100, 100);
        for name in ["corr_max", "corr_rate"] {
            let max = crate::params::PARAM_SPECS[crate::params::index_of(name).unwrap()].max;
            p.set_by_name(name, &max.to_string()).unwrap();
        }
        let k = keys(&pos("4k3/pp6/8/8/8/8/PP6/4K1N1 w - - 0 1"));
        let mut ch = CorrectionHistory::new_boxed();
        for error in [30_000, -30_000, 30_000, 30_000, -30_000] {
            for _ in 0..50 {
                ch.update(&p, k, 60, error);
            }
            let c = ch.correction(&p, k);
            assert!(c.abs() <= 4 * p.corr_max(), "saturates: {c}");
        }
    }

    #[test]
    fn clear_zeroes_every_table() {
        let p = params(100, 100, 100);
        let k = keys(&pos("4k3/pp6/8/8/8/8/PP6/4K1N1 b - - 0 1"));
        let mut ch = CorrectionHistory::new_boxed();
        ch.update(&p, k, 10, 300);
        assert_ne!(ch.correction(&p, k), 0);
        ch.clear();
        let fresh = CorrectionHistory::new_boxed();
        assert!(
            ch.pawn == fresh.pawn
                && ch.pieces == fresh.pieces
                && ch.minor == fresh.minor
                && ch.cont == fresh.cont
        );
    }

    fn off_cont() -> Params {
        params(100, 100, 100)
    }

    fn keys(pos: &Position) -> CorrectionKeys {
        CorrectionHistory::keys(&off_cont(), pos, [Some(1), Some(2)])
    }

    #[test]
    fn the_previous_two_moves_key_their_own_table_only_when_it_is_on() {
        let fen = pos("4k3/pp6/8/8/8/8/PP6/4K1N1 w - - 0 1");
        let on = with_cont(0, 0, 0, 100);
        assert!(CorrectionHistory::enabled(&on));
        assert_eq!(keys(&fen).cont, None, "weight 0: no key");
        let k = CorrectionHistory::keys(&on, &fen, [Some(5), Some(900)]);
        let swapped = CorrectionHistory::keys(&on, &fen, [Some(900), Some(5)]);
        let null = CorrectionHistory::keys(&on, &fen, [None, Some(900)]);
        assert!(
            k.cont.is_some() && k.cont != swapped.cont,
            "the order counts"
        );
        assert_eq!(null.cont, None, "a null move leaves no key");

        // Only the continuation table is read: another pair of moves starts at 0.
        let mut ch = CorrectionHistory::new_boxed();
        ch.update(&on, k, 10, 300);
        assert!(ch.correction(&on, k) > 0);
        assert_eq!(ch.correction(&on, swapped), 0);
        assert_eq!(ch.correction(&on, null), 0);
        ch.clear();
        assert_eq!(ch.correction(&on, k), 0);
    }

    #[test]
    fn keys_separate_side_to_move_pawns_and_pieces() {
        let a = keys(&pos("4k3/pp6/8/8/8/8/PP6/4K1N1 w - - 0 1"));
        let black = keys(&pos("4k3/pp6/8/8/8/8/PP6/4K1N1 b - - 0 1"));
        let pawn_moved = keys(&pos("4k3/pp6/8/8/8/P7/1P6/4K1N1 w - - 0 1"));
        let knight_moved = keys(&pos("4k3/pp6/8/8/8/5N2/PP6/4K3 w - - 0 1"));
        let knight_black = keys(&pos("4k3/pp6/8/8/8/8/PP6/4K1n1 w - - 0 1"));
        let rook_added = keys(&pos("r3k3/pp6/8/8/8/8/PP6/4K1N1 w - - 0 1"));
        assert_ne!(a.side, black.side);
        assert_eq!(
            (a.pawns, a.pieces, a.minor),
            (black.pawns, black.pieces, black.minor)
        );
        assert_ne!(a.pawns, pawn_moved.pawns);
        assert_eq!((a.pieces, a.minor), (pawn_moved.pieces, pawn_moved.minor));
        assert_eq!(a.pawns, knight_moved.pawns);
        assert_ne!(a.pieces[0], knight_moved.pieces[0]);
        assert_eq!(a.pieces[1], knight_moved.pieces[1]);
        assert_ne!(a.minor, knight_moved.minor);
        assert_ne!(a.minor, knight_black.minor, "the knight's colour counts");
        assert_eq!(a.minor, rook_added.minor, "rooks are no minor pieces");
        assert_ne!(a.pieces[1], rook_added.pieces[1]);
    }
}
