//! Copy-make position wrapper: a shakmaty [`Chess`] plus its incrementally
//! updated Zobrist hash, and [`Game`], which adds the hash history needed for
//! repetition detection. The search, perft, UCI and the tuner's games all move
//! pieces through this one path.

use std::sync::atomic::{AtomicU32, Ordering};

use shakmaty::attacks;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Piece,
    Position as _, Rank, Role, Square,
};

use crate::score::S;

/// Why a FEN or a move was refused. The message names what was wrong and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error(
        "malformed FEN '{fen}': {reason} (expected 'board side castling ep halfmove fullmove', e.g. '{}')",
        START_FEN
    )]
    MalformedFen { fen: String, reason: String },
    #[error("illegal position in FEN '{fen}': {reason}")]
    IllegalPosition { fen: String, reason: String },
    #[error(
        "malformed move '{0}' (expected UCI long algebraic notation such as e2e4, e7e8q or 0000)"
    )]
    MalformedMove(String),
    #[error("illegal move '{mv}' in position '{fen}'")]
    IllegalMove { mv: String, fen: String },
}

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position with its Zobrist hash kept up to date on every move, the pieces
/// giving check, and the material + piece-square sum of the evaluation when moved
/// with [`Position::play_psq`].
#[derive(Clone, Debug)]
pub struct Position {
    board: Chess,
    hash: u64,
    /// The enemy pieces attacking our king, found once per move: shakmaty recomputes
    /// them on every `is_check()`, which the search asks several times per node.
    checkers: Bitboard,
    /// Material + piece-square sum (White minus Black) under the table of generation
    /// `psq_gen`; meaningless when `psq_gen` is 0.
    psq: S,
    psq_gen: u32,
}

// Material + PST, incremental
//
// The evaluation's material and piece-square values change only with the pieces a
// move touches, so copy-make updates their sum on the copied position instead of the
// evaluation summing ~32 pieces at every call. The values come from the current
// parameters: the evaluator builds a [`PsqTable`] on every parameter change, each
// build with a new generation number, and a position's sum is only used under the
// table generation it was summed with.

/// Source of table generations; 0 is never handed out (it marks "no sum").
static PSQ_GENERATION: AtomicU32 = AtomicU32::new(1);

/// Signed material + piece-square value of every piece on every square: White's
/// values as they are, Black's negated and read from the mirrored square, so a
/// position's sum is White's score minus Black's.
#[derive(Clone, Debug)]
pub struct PsqTable {
    generation: u32,
    values: [[[S; 64]; 6]; 2],
}

impl PsqTable {
    /// Builds the table from White's view: `white(role, square)` for a white piece;
    /// a black piece on `sq` counts `-white(role, sq mirrored)`.
    pub fn new(white: impl Fn(Role, Square) -> S) -> Self {
        let mut values = [[[S::default(); 64]; 6]; 2];
        for role in Role::ALL {
            for sq in Square::ALL {
                values[Color::White as usize][role as usize - 1][sq as usize] = white(role, sq);
                values[Color::Black as usize][role as usize - 1][sq as usize] =
                    -white(role, sq.flip_vertical());
            }
        }
        PsqTable {
            generation: PSQ_GENERATION.fetch_add(1, Ordering::Relaxed),
            values,
        }
    }

    /// Identifies this build of the table (a rebuilt table gets a new one).
    #[inline(always)]
    pub fn generation(&self) -> u32 {
        self.generation
    }

    #[inline(always)]
    fn get(&self, color: Color, role: Role, sq: Square) -> S {
        self.values[color as usize][role as usize - 1][sq as usize]
    }

    /// The sum over every piece of the board, from scratch.
    pub fn full_sum(&self, board: &Chess) -> S {
        let mut sum = S::default();
        for (sq, piece) in board.board() {
            sum += self.get(piece.color, piece.role, sq);
        }
        sum
    }
}

#[inline(always)]
fn piece_key(sq: Square, color: Color, role: Role) -> u64 {
    Zobrist64::zobrist_for_piece(sq, Piece { color, role }).0
}

/// The square of the pawn an en passant capture from `from` to `to` takes: beside
/// the capturing pawn, on the target's file.
#[inline(always)]
pub fn en_passant_victim(from: Square, to: Square) -> Square {
    Square::from_coords(to.file(), from.rank())
}

/// Where the king and the rook of a castling move (king takes rook) land.
#[inline(always)]
fn castle_targets(king: Square, rook: Square) -> (Square, Square) {
    let side = if rook.file() > king.file() {
        CastlingSide::KingSide
    } else {
        CastlingSide::QueenSide
    };
    let rank = king.rank();
    (
        Square::from_coords(side.king_to_file(), rank),
        Square::from_coords(side.rook_to_file(), rank),
    )
}

impl Default for Position {
    fn default() -> Self {
        Position::from_chess(Chess::default())
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.board == other.board
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Self {
        Self::default()
    }

    /// Wraps a shakmaty position, computing its hash from scratch.
    pub fn from_chess(board: Chess) -> Self {
        let hash = full_hash(&board);
        Position {
            checkers: board.checkers(),
            board,
            hash,
            psq: S::default(),
            psq_gen: 0,
        }
    }

    /// Parses a FEN. `chess960` selects Shredder/X-FEN castling semantics.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Self, PositionError> {
        Self::parse_fen(fen, chess960, false)
    }

    /// [`Position::from_fen`] for what a GUI or match runner sends: castling rights
    /// without their king or rook and an en passant square no pawn could use are
    /// dropped, as other engines do. Opening books carry them, and refusing the
    /// position would leave the next `go` answered for the previous one. (A book
    /// reader keeps the strict parse: it tells Chess960 castling rights from stale
    /// ones by the standard reading's refusal.)
    pub fn from_fen_lenient(fen: &str, chess960: bool) -> Result<Self, PositionError> {
        Self::parse_fen(fen, chess960, true)
    }

    fn parse_fen(fen: &str, chess960: bool, lenient: bool) -> Result<Self, PositionError> {
        let fen = fen.trim();
        let parsed: Fen =
            fen.parse().map_err(
                |e: shakmaty::fen::ParseFenError| PositionError::MalformedFen {
                    fen: fen.to_string(),
                    reason: e.to_string(),
                },
            )?;
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut board = parsed.into_position(mode);
        if lenient {
            board = board
                .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
                .or_else(shakmaty::PositionError::ignore_invalid_ep_square);
        }
        let board: Chess = board.map_err(|e| PositionError::IllegalPosition {
            fen: fen.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Self::from_chess(board))
    }

    /// The underlying shakmaty position (for move generation and queries).
    #[inline(always)]
    pub fn board(&self) -> &Chess {
        &self.board
    }

    /// Zobrist hash (shakmaty's keys, pseudo-legal en passant), updated incrementally.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.board.turn()
    }

    #[inline(always)]
    pub fn legal_moves(&self) -> MoveList {
        self.board.legal_moves()
    }

    #[inline(always)]
    pub fn is_check(&self) -> bool {
        self.checkers.any()
    }

    /// The enemy pieces giving check.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.board.halfmoves()
    }

    /// FEN of the position (legal en passant square, as GUIs expect).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.board, EnPassantMode::Legal).to_string()
    }

    /// Material + piece-square sum (White minus Black) under the table `table`, if this
    /// position carries one for that table (see [`Position::play_psq`]).
    #[inline(always)]
    pub fn psq(&self, table: &PsqTable) -> Option<S> {
        (self.psq_gen == table.generation()).then_some(self.psq)
    }

    /// Copy-make: the position after the legal move `m`, with the hash updated incrementally.
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        let mut next = self.clone();
        next.play_in_place(m);
        next
    }

    /// [`Position::play`] that also keeps the material + piece-square sum under
    /// `table`: updated from the moved pieces, or summed from scratch when this
    /// position has none for `table` (the first move after the root).
    #[inline]
    pub fn play_psq(&self, m: Move, table: &PsqTable) -> Position {
        let mut next = self.copy();
        next.make_psq_keyed(m, table, self.child_hash(m));
        next
    }

    /// This position carrying its material + piece-square sum under `table`: the
    /// search gives it to the root, so that the root's children update the sum
    /// instead of summing every piece from scratch.
    pub fn with_psq(&self, table: &PsqTable) -> Position {
        let mut p = self.clone();
        p.psq = table.full_sum(&p.board);
        p.psq_gen = table.generation();
        p
    }

    /// The same as `clone()`, copied in 16-byte moves written out: the compiler
    /// turns the field-wise clone of a position this size (more than 128 bytes)
    /// into a call to the C library's `memcpy`, about 40 instructions and a call
    /// on every move the search makes.
    #[inline(always)]
    pub fn copy(&self) -> Position {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__m128i;
            use std::mem::{MaybeUninit, size_of};
            const CHUNKS: usize = size_of::<Position>() / 16;
            const TAIL: usize = size_of::<Position>() % 16;
            const _: () = assert!(CHUNKS == 10 && TAIL == 8 && !std::mem::needs_drop::<Position>());
            let mut out = MaybeUninit::<Position>::uninit();
            let src = self as *const Position as *const u8;
            let dst = out.as_mut_ptr() as *mut u8;
            // SAFETY: `Position` owns nothing (no heap data, no `Drop`: asserted
            // above), so a bitwise copy is a valid clone; every byte of `out` is
            // written from `self` (the chunks, then the 8-byte tail) before it is
            // read; the bytes move as `MaybeUninit` (padding included), and
            // unaligned reads and writes accept any address.
            unsafe {
                // Written out, not a loop: the compiler turns a copy loop back into
                // `memcpy`.
                macro_rules! chunks {
                    ($($i:literal)*) => {$(
                        let v = (src as *const MaybeUninit<__m128i>).add($i).read_unaligned();
                        (dst as *mut MaybeUninit<__m128i>).add($i).write_unaligned(v);
                    )*};
                }
                chunks!(0 1 2 3 4 5 6 7 8 9);
                let at = CHUNKS * 16;
                let tail = (src.add(at) as *const MaybeUninit<u64>).read_unaligned();
                (dst.add(at) as *mut MaybeUninit<u64>).write_unaligned(tail);
                out.assume_init()
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.clone()
    }

    /// [`Position::play_psq`] in place, given `child_hash`, which must be
    /// `self.child_hash(m)` (already computed to prefetch the child's TT bucket):
    /// this position (a [`Position::copy`] of the parent) becomes the one after `m`.
    /// The search makes the child in its own variable this way: returned from a
    /// function, the 168-byte position was moved once more by a `memcpy` call.
    #[inline(never)]
    pub fn make_psq_keyed(&mut self, m: Move, table: &PsqTable, child_hash: u64) {
        debug_assert_eq!(child_hash, self.child_hash(m), "child_hash of another move");
        // The delta reads the side to move and the pieces before the move.
        let carried =
            (self.psq_gen == table.generation()).then(|| self.psq + self.psq_delta(m, table));
        self.board.play_unchecked(m);
        self.hash = child_hash;
        self.checkers = self.board.checkers();
        self.psq = carried.unwrap_or_else(|| table.full_sum(&self.board));
        self.psq_gen = table.generation();
    }

    /// The change of the material + piece-square sum by the legal move `m`.
    #[inline(always)]
    fn psq_delta(&self, m: Move, t: &PsqTable) -> S {
        let us = self.board.turn();
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                let mut d = t.get(us, promotion.unwrap_or(role), to) - t.get(us, role, from);
                if let Some(captured) = capture {
                    d -= t.get(!us, captured, to);
                }
                d
            }
            Move::EnPassant { from, to } => {
                let victim = en_passant_victim(from, to);
                t.get(us, Role::Pawn, to)
                    - t.get(us, Role::Pawn, from)
                    - t.get(!us, Role::Pawn, victim)
            }
            Move::Castle { king, rook } => {
                let (king_to, rook_to) = castle_targets(king, rook);
                t.get(us, Role::King, king_to) - t.get(us, Role::King, king)
                    + t.get(us, Role::Rook, rook_to)
                    - t.get(us, Role::Rook, rook)
            }
            Move::Put { .. } => unreachable!("drops do not exist in standard chess"),
        }
    }

    /// The hash of the position after the legal move `m`, without making it: lets the
    /// search prefetch the child's TT bucket while the move is being made.
    #[inline]
    pub fn child_hash(&self, m: Move) -> u64 {
        let us = self.board.turn();
        let them = !us;
        let mut h = self.hash ^ Zobrist64::zobrist_for_white_turn().0;
        if let Some(ep) = self.board.pseudo_legal_ep_square() {
            h ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
        }
        // Squares whose castling rook moves or is taken, and whether our king moves.
        let (touched, king_moves) = match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                h ^= piece_key(from, us, role) ^ piece_key(to, us, promotion.unwrap_or(role));
                if let Some(captured) = capture {
                    h ^= piece_key(to, them, captured);
                }
                // A double push leaves an en passant square when an enemy pawn could use it
                // (a pawn move of 16 squares is a double push: one step is 8, a capture 7 or 9).
                if role == Role::Pawn && (from as u32).abs_diff(to as u32) == 16 {
                    let ep = Square::from_coords(from.file(), us.fold_wb(Rank::Third, Rank::Sixth));
                    let board = self.board.board();
                    if (attacks::pawn_attacks(us, ep) & board.pawns() & board.by_color(them)).any()
                    {
                        h ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
                    }
                }
                (
                    Bitboard::from(from) | Bitboard::from(to),
                    role == Role::King,
                )
            }
            Move::EnPassant { from, to } => {
                h ^= piece_key(from, us, Role::Pawn) ^ piece_key(to, us, Role::Pawn);
                h ^= piece_key(en_passant_victim(from, to), them, Role::Pawn);
                (Bitboard(0), false)
            }
            Move::Castle { king, rook } => {
                let (king_to, rook_to) = castle_targets(king, rook);
                h ^= piece_key(king, us, Role::King) ^ piece_key(rook, us, Role::Rook);
                h ^= piece_key(king_to, us, Role::King) ^ piece_key(rook_to, us, Role::Rook);
                (Bitboard(0), true)
            }
            Move::Put { .. } => unreachable!("drops do not exist in standard chess"),
        };
        // Rights are only lost when a move touches a rook square that has one, or our
        // king moves while we have one: most moves do neither, and skip the loop.
        let castles = self.board.castles();
        if (castles.castling_rights() & touched).any() || (king_moves && castles.has_color(us)) {
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    if let Some(rook) = castles.rook(color, side)
                        && (touched.contains(rook) || (king_moves && color == us))
                    {
                        h ^= Zobrist64::zobrist_for_castling_right(color, side).0;
                    }
                }
            }
        }
        h
    }

    /// Plays the legal move `m` in place, updating the hash incrementally (the
    /// material + PST sum is dropped: see [`Position::play_psq`]).
    #[inline]
    pub fn play_in_place(&mut self, m: Move) {
        self.hash = self.child_hash(m);
        self.board.play_unchecked(m);
        self.checkers = self.board.checkers();
        self.psq_gen = 0;
    }

    /// The position with the side to move passed (null move), or `None` in check.
    pub fn play_null(&self) -> Option<Position> {
        if self.is_check() {
            return None;
        }
        let board = self.board.clone().swap_turn().ok()?;
        // The side that just moved is never in check in a legal position.
        debug_assert!(board.checkers().is_empty());
        let mut h = self.hash ^ Zobrist64::zobrist_for_white_turn().0;
        if let Some(ep) = self.board.pseudo_legal_ep_square() {
            h ^= Zobrist64::zobrist_for_en_passant_file(ep.file()).0;
        }
        // Same pieces: the material + PST sum carries over.
        Some(Position {
            board,
            hash: h,
            checkers: Bitboard(0),
            psq: self.psq,
            psq_gen: self.psq_gen,
        })
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`, castling as king-to-rook in Chess960) and checks it is legal.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, PositionError> {
        let uci: UciMove = text
            .parse()
            .map_err(|_| PositionError::MalformedMove(text.to_string()))?;
        uci.to_move(&self.board)
            .map_err(|_| PositionError::IllegalMove {
                mv: text.to_string(),
                fen: self.fen(),
            })
    }

    /// UCI notation of a move in this position (respects Chess960 castling notation).
    pub fn move_to_uci(&self, m: Move) -> String {
        m.to_uci(self.board.castles().mode()).to_string()
    }

    /// Mirrors the position vertically and swaps colours (for eval symmetry tests).
    pub fn mirrored(&self) -> Position {
        let mut setup = self.board.to_setup(EnPassantMode::Legal);
        setup.mirror();
        let board: Chess = setup
            .position(self.board.castles().mode())
            .expect("the mirror of a legal position is legal");
        Position::from_chess(board)
    }

    /// Whether a quiet `Normal` move (no capture, no promotion) gives check, without
    /// playing it. Other kinds of moves (castling) report `false`. For many moves of
    /// one position, build [`Position::check_squares`] once instead.
    pub fn quiet_gives_check(&self, m: &Move) -> bool {
        self.check_squares().quiet_gives_check(m)
    }

    /// The squares from which each of our pieces would check their king, and our
    /// pieces whose departure uncovers a check (see [`CheckSquares`]).
    pub fn check_squares(&self) -> CheckSquares {
        let board = self.board.board();
        let us = self.board.turn();
        let Some(king) = board.king_of(!us) else {
            return CheckSquares {
                by_role: [Bitboard(0); 6],
                discoverers: Bitboard(0),
                king: Square::A1,
            };
        };
        let occupied = board.occupied();
        let diagonal = attacks::bishop_attacks(king, occupied);
        let straight = attacks::rook_attacks(king, occupied);
        let ours = board.by_color(us);
        // A piece of ours alone between the king and one of our sliders aimed at it
        // discovers check when it moves off the line.
        let discoverers = crate::rays::lone_blockers(board, king, ours);
        CheckSquares {
            by_role: [
                // Our pawn on s attacks the king exactly when the king, as one of
                // theirs, would attack s.
                attacks::pawn_attacks(!us, king),
                attacks::knight_attacks(king),
                diagonal,
                straight,
                diagonal | straight,
                // Kings never give check.
                Bitboard(0),
            ],
            discoverers: discoverers & ours,
            king,
        }
    }

    /// Neither side can ever mate (K vs K, K+minor vs K, same-coloured bishops...).
    pub fn is_insufficient_material(&self) -> bool {
        self.board.is_insufficient_material()
    }
}

// Check squares
//
// The search asks whether a quiet move gives check for every quiet that late move
// pruning or futility would drop (checks are kept), often for all remaining quiets
// of a node. Per node, the squares from which each of our piece types attacks their
// king and our pieces that alone block one of our sliders' lines to it are found
// once (Stockfish's check squares and blockers); each move is then two bit tests.
// The current occupancy is exact for direct checks: a slider whose origin lay on its
// own line to the king would already be giving check, which is illegal with us to
// move.

/// Check squares of one position for the side to move (see the section above).
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    /// Target squares that give direct check, by `Role as usize - 1`.
    by_role: [Bitboard; 6],
    /// Our pieces standing alone between their king and one of our sliders.
    discoverers: Bitboard,
    /// Their king (any square when there is none: then nothing gives check).
    king: Square,
}

impl CheckSquares {
    /// Whether the `Normal` move `m` (of the position these squares were built for)
    /// gives check, directly or by uncovering a slider; meant for quiet moves.
    /// Castling reports `false`.
    #[inline]
    pub fn quiet_gives_check(&self, m: &Move) -> bool {
        let Move::Normal { role, from, to, .. } = *m else {
            return false;
        };
        self.by_role[role as usize - 1].contains(to)
            || (self.discoverers.contains(from) && !attacks::aligned(from, to, self.king))
    }
}

/// Hash computed from scratch; the incremental update must always equal this.
pub fn full_hash(board: &Chess) -> u64 {
    board
        .zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal)
        .0
}

/// How a game ended, by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    Checkmate { winner: Color },
    Stalemate,
    FiftyMoves,
    ThreefoldRepetition,
    InsufficientMaterial,
}

impl GameEnd {
    pub fn winner(self) -> Option<Color> {
        match self {
            GameEnd::Checkmate { winner } => Some(winner),
            _ => None,
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            GameEnd::Checkmate { .. } => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::FiftyMoves => "fifty-move rule",
            GameEnd::ThreefoldRepetition => "threefold repetition",
            GameEnd::InsufficientMaterial => "insufficient material",
        }
    }
}

/// A position together with the hashes of the positions before it, for repetition detection.
#[derive(Clone, Debug, Default)]
pub struct Game {
    /// The position at the start of the move list (startpos or a FEN).
    pub start: Position,
    /// The current position.
    pub position: Position,
    /// Hashes of every earlier position in the game, oldest first (the current one excluded).
    pub history: Vec<u64>,
    /// Moves played from `start`.
    pub moves: Vec<Move>,
}

impl Game {
    pub fn new(start: Position) -> Self {
        Game {
            position: start.clone(),
            start,
            history: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        self.history.push(self.position.hash());
        self.position.play_in_place(m);
        self.moves.push(m);
    }

    /// Parses and plays a UCI move; on error the game is unchanged.
    pub fn play_uci(&mut self, text: &str) -> Result<Move, PositionError> {
        let m = self.position.parse_uci_move(text)?;
        self.play(m);
        Ok(m)
    }

    /// How often the current position occurred before (same side to move, within the
    /// reversible stretch of the game).
    pub fn repetitions(&self) -> usize {
        let reversible = self.position.halfmoves() as usize;
        let h = self.position.hash();
        self.history
            .iter()
            .rev()
            .take(reversible)
            .skip(1)
            .step_by(2)
            .filter(|&&x| x == h)
            .count()
    }

    /// The game's end by the rules, if it has ended.
    pub fn end(&self) -> Option<GameEnd> {
        let board = self.position.board();
        if board.legal_moves().is_empty() {
            return Some(if board.is_check() {
                GameEnd::Checkmate {
                    winner: !board.turn(),
                }
            } else {
                GameEnd::Stalemate
            });
        }
        if self.position.is_insufficient_material() {
            return Some(GameEnd::InsufficientMaterial);
        }
        if self.position.halfmoves() >= 100 {
            return Some(GameEnd::FiftyMoves);
        }
        if self.repetitions() >= 2 {
            return Some(GameEnd::ThreefoldRepetition);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_fens_and_moves_are_refused_with_reasons() {
        assert!(matches!(
            Position::from_fen("not a fen", false),
            Err(PositionError::MalformedFen { .. })
        ));
        assert!(matches!(
            Position::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", false),
            Err(PositionError::IllegalPosition { .. })
        ));
        let p = Position::startpos();
        assert!(matches!(
            p.parse_uci_move("e2e5"),
            Err(PositionError::IllegalMove { .. })
        ));
        assert!(matches!(
            p.parse_uci_move("zz"),
            Err(PositionError::MalformedMove(_))
        ));
        assert_eq!(p.move_to_uci(p.parse_uci_move("g1f3").unwrap()), "g1f3");
    }

    #[test]
    fn a_lenient_parse_drops_stale_castling_rights_and_en_passant_squares() {
        for (fen, cleaned) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            ),
        ] {
            assert!(Position::from_fen(fen, false).is_err(), "{fen}");
            let p = Position::from_fen_lenient(fen, false).unwrap();
            assert_eq!(p.fen(), cleaned);
            assert_eq!(p.hash(), Position::from_fen(cleaned, false).unwrap().hash());
        }
    }

    #[test]
    fn threefold_repetition_and_fifty_moves() {
        let mut g = Game::new(Position::startpos());
        for _ in 0..2 {
            for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                assert_eq!(g.end(), None);
                g.play_uci(m).unwrap();
            }
        }
        assert_eq!(g.repetitions(), 2);
        assert_eq!(g.end(), Some(GameEnd::ThreefoldRepetition));
        let g = Game::new(Position::from_fen("3k4/8/8/8/8/8/4R3/4K3 w - - 100 80", false).unwrap());
        assert_eq!(g.end(), Some(GameEnd::FiftyMoves));
        let g = Game::new(Position::from_fen("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", false).unwrap());
        assert_eq!(g.end(), Some(GameEnd::InsufficientMaterial));
    }

    #[test]
    fn quiet_gives_check_matches_playing_the_move() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/8/8/8/8/4B3/4R3/4K3 w - - 0 1",
            "2k5/8/1K6/8/8/8/8/7R w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "3k4/8/8/8/8/3N4/8/3QK3 w - - 0 1",
        ] {
            let p = Position::from_fen(fen, false).unwrap();
            for m in p.legal_moves() {
                if m.is_capture() || m.is_promotion() || m.is_castle() {
                    continue;
                }
                assert_eq!(p.quiet_gives_check(&m), p.play(m).is_check(), "{fen} {m}");
            }
        }
    }

    #[test]
    fn null_move_hash_matches_full_recompute() {
        let p = Position::from_fen(
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            false,
        )
        .unwrap();
        let n = p.play_null().unwrap();
        assert_eq!(n.hash(), full_hash(n.board()));
    }
}
