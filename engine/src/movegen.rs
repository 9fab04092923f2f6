//! Move generation for the move picker on shakmaty's bitboards and attack tables:
//! the legal captures (en passant included) and promotions of a position (the
//! q-search and the picker's capture stage), and the legal quiet moves (the picker's
//! quiet stage, see "Quiet-move generation" below).
//!
//! shakmaty only offers the full `legal_moves()` (its `capture_moves()` is that list
//! filtered), yet the q-search uses about 3 of the ~33 legal moves of a node. This
//! generator produces only the noisy ones and checks legality per move: a pinned
//! piece moves only along its pin, in check a piece must capture or block the single
//! checker, the king must not step onto an attacked square, and en passant is
//! checked by the attacks on the king after the move (it empties two squares of a
//! rank at once).
//!
//! The moves come out in exactly the order in which `legal_moves()` lists them, so a
//! picker that sorts by score breaks ties as before and the search is unchanged:
//! en passant first; then (not in check) pawn captures towards the a-file side, pawn
//! captures towards the h-file side, push promotions, knight, bishop, rook, queen
//! and king captures, each by ascending square; in check the king's captures come
//! right after en passant.

use shakmaty::attacks;
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, Move, MoveList, Piece, Position as _, Role, Square,
};

/// Runs `$body` once for bishops, rooks and queens, in that order (shakmaty's), with
/// `$role` and `$attack` (the role's attack function) bound to constants: written
/// out per role, the attack lookup is not chosen by a branch for every piece.
macro_rules! for_each_slider {
    ($role:ident, $attack:ident => $body:block) => {{
        {
            let ($role, $attack) = (Role::Bishop, attacks::bishop_attacks);
            $body
        }
        {
            let ($role, $attack) = (Role::Rook, attacks::rook_attacks);
            $body
        }
        {
            let ($role, $attack) = (Role::Queen, attacks::queen_attacks);
            $body
        }
    }};
}

/// Promotion pieces, in the order shakmaty generates them.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);

/// True for the moves the q-search looks at: captures and promotions.
#[inline(always)]
pub fn is_noisy(m: &Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Our pieces standing alone between our king and an enemy slider aimed at it.
#[inline]
fn pinned(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    crate::rays::lone_blockers(board, king, board.by_color(!pos.turn()))
        & board.by_color(pos.turn())
}

/// Appends every legal capture and promotion of `pos` to `moves`, in `legal_moves()` order.
pub fn push_noisy(pos: &Chess, moves: &mut MoveList) {
    push_noisy_with_checkers(pos, pos.checkers(), moves);
}

/// [`push_noisy`] given `checkers`, which must be `pos.checkers()` (the caller may
/// know them already).
#[inline(always)]
fn push_noisy_with_checkers(pos: &Chess, checkers: Bitboard, moves: &mut MoveList) {
    match pos.turn() {
        Color::White => push_noisy_for::<true>(pos, checkers, moves),
        Color::Black => push_noisy_for::<false>(pos, checkers, moves),
    }
}

/// The side to move as a compile-time constant: one copy of a generator per colour,
/// in which every pawn direction and rank folds instead of being branched on.
#[inline(always)]
fn side<const WHITE: bool>() -> Color {
    if WHITE { Color::White } else { Color::Black }
}

/// [`push_noisy_with_checkers`] for White (`WHITE`) or Black to move.
#[inline(always)]
fn push_noisy_for<const WHITE: bool>(pos: &Chess, checkers: Bitboard, moves: &mut MoveList) {
    debug_assert_eq!(checkers, pos.checkers());
    let board = pos.board();
    let us = side::<WHITE>();
    debug_assert_eq!(us, pos.turn());
    let their = board.by_color(!us);
    let occupied = board.occupied();
    let king = board.king_of(us).expect("legal positions have a king");
    let pinned = pinned(pos, king);
    // A pinned piece may only move along the line through its king.
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);

    // En passant: legal when no enemy piece attacks the king once the two pawns have gone.
    if let Some(to) = pos.pseudo_legal_ep_square() {
        let victim = Square::from_coords(to.file(), ep_victim_rank(us));
        for from in board.pawns() & board.by_color(us) & attacks::pawn_attacks(!us, to) {
            let after = occupied.without(from).without(victim).with(to);
            if board
                .attacks_to(king, !us, after)
                .without(victim)
                .is_empty()
            {
                moves.push(Move::EnPassant { from, to });
            }
        }
    }

    // Where non-king pieces may capture and push-promote: anything, or, in single
    // check, only the checker / the squares between it and the king.
    let (capture_target, block_target) = match checkers.single_square() {
        _ if checkers.is_empty() => (their, !occupied),
        Some(checker) => (Bitboard::from(checker), attacks::between(king, checker)),
        None => {
            push_king_captures(pos, king, moves);
            return;
        }
    };
    if checkers.any() {
        push_king_captures(pos, king, moves);
    }

    // Pawn captures, one diagonal after the other; onto the last rank as four promotions.
    let pawns = board.pawns() & board.by_color(us);
    let (west, east) = match us {
        Color::White => ((pawns & !FILE_A).shift(7), (pawns & !FILE_H).shift(9)),
        Color::Black => ((pawns & !FILE_A).shift(-9), (pawns & !FILE_H).shift(-7)),
    };
    let (west_back, east_back) = match us {
        Color::White => (7, 9),
        Color::Black => (-9, -7),
    };
    for (targets, offset) in [(west, west_back), (east, east_back)] {
        let captures = targets & their & capture_target;
        for to in captures & !Bitboard::BACKRANKS {
            let from = to.offset(-offset).expect("the pawn came from the board");
            if legal(from, to) {
                moves.push(normal(Role::Pawn, from, board.role_at(to), to, None));
            }
        }
        for to in captures & Bitboard::BACKRANKS {
            let from = to.offset(-offset).expect("the pawn came from the board");
            if legal(from, to) {
                push_promotions(moves, from, board.role_at(to), to);
            }
        }
    }

    // Promotions by a push.
    let forward = us.fold_wb(8, -8);
    let pushes = pawns.shift(forward) & !occupied & block_target & Bitboard::BACKRANKS;
    for to in pushes {
        let from = to.offset(-forward).expect("the pawn came from the board");
        if legal(from, to) {
            push_promotions(moves, from, None, to);
        }
    }

    // Piece captures.
    let targets = their & capture_target;
    for from in board.knights() & board.by_color(us) & !pinned {
        for to in attacks::knight_attacks(from) & targets {
            moves.push(normal(Role::Knight, from, board.role_at(to), to, None));
        }
    }
    // One loop per slider (`for_each_slider`): the attack lookup is fixed at compile
    // time, not chosen per piece.
    for_each_slider!(role, attack => {
        for from in board.by_role(role) & board.by_color(us) {
            for to in attack(from, occupied) & targets {
                if legal(from, to) {
                    moves.push(normal(role, from, board.role_at(to), to, None));
                }
            }
        }
    });

    if checkers.is_empty() {
        push_king_captures(pos, king, moves);
    }
}

/// The rank of the pawn taken en passant (the one our pawns capture from).
#[inline(always)]
fn ep_victim_rank(us: Color) -> shakmaty::Rank {
    us.fold_wb(shakmaty::Rank::Fifth, shakmaty::Rank::Fourth)
}

/// King captures of pieces no enemy defends (seen through the king's own square,
/// which it leaves).
#[inline]
fn push_king_captures(pos: &Chess, king: Square, moves: &mut MoveList) {
    let board = pos.board();
    let them = !pos.turn();
    let occupied = board.occupied().without(king);
    for to in attacks::king_attacks(king) & board.by_color(them) {
        if board.attacks_to(to, them, occupied).is_empty() {
            moves.push(normal(Role::King, king, board.role_at(to), to, None));
        }
    }
}

#[inline(always)]
fn normal(
    role: Role,
    from: Square,
    capture: Option<Role>,
    to: Square,
    promotion: Option<Role>,
) -> Move {
    Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    }
}

#[inline(always)]
fn push_promotions(moves: &mut MoveList, from: Square, capture: Option<Role>, to: Square) {
    for p in PROMOTIONS {
        moves.push(normal(Role::Pawn, from, capture, to, Some(p)));
    }
}

/// The noisy moves of `pos` (not in check) without `tt_move`, in the order the
/// move picker's full-list path leaves them: `legal_moves()`, the TT move taken out
/// by `swap_remove` (which moves the last legal move into its slot), then the noisy
/// moves kept in order. Reproducing that order keeps every tie between equal
/// scores, and so the whole search, identical to generating the full list.
pub fn noisy_moves_for_picker(pos: &Chess, tt_move: Option<Move>, moves: &mut MoveList) {
    debug_assert!(!pos.is_check(), "in check the picker uses every evasion");
    push_noisy_with_checkers(pos, Bitboard(0), moves);
    let Some(tt) = tt_move else { return };
    let Some(i) = moves.iter().position(|m| *m == tt) else {
        return;
    };
    if i + 1 == moves.len() || last_legal_move_is_noisy(pos) {
        // The last legal move is our last noisy one: it took the TT move's slot.
        moves.swap_remove(i);
    } else {
        moves.remove(i);
    }
}

/// Whether the last move of `legal_moves()` (not in check) is a capture or promotion.
pub fn last_legal_move_is_noisy(pos: &Chess) -> bool {
    last_legal_move(pos).is_some_and(|m| is_noisy(&m))
}

/// The last move of `legal_moves()` (not in check), mostly without generating the
/// list: it ends with castling (king side, then queen side), before it the king's
/// moves by ascending target.
fn last_legal_move(pos: &Chess) -> Option<Move> {
    debug_assert!(!pos.is_check());
    let us = pos.turn();
    if pos.castles().has_color(us) {
        for side in [CastlingSide::QueenSide, CastlingSide::KingSide] {
            if let Some(m) = castle(pos, side) {
                return Some(m);
            }
        }
    }
    let board = pos.board();
    let king = board.king_of(us).expect("legal positions have a king");
    let mut targets = attacks::king_attacks(king) & !board.by_color(us);
    while let Some(to) = targets.last() {
        if board.attacks_to(to, !us, board.occupied()).is_empty() {
            return Some(normal(Role::King, king, board.role_at(to), to, None));
        }
        targets.discard(to);
    }
    // The king cannot move (rare): ask the full generator.
    pos.legal_moves().last().copied()
}

/// The castling move of the side to move on `side`, if legal: the rook still has
/// its right, the squares between are empty, and neither the king's path (its own
/// square included, so never in check) nor its target is attacked (the target with
/// king and rook already moved, which matters in Chess960). The same test as
/// shakmaty's generator, without its move list (`castling_moves` returns 1.3 KB by
/// value).
#[inline]
fn castle(pos: &Chess, side: CastlingSide) -> Option<Move> {
    let us = pos.turn();
    let castles = pos.castles();
    let rook = castles.rook(us, side)?;
    let board = pos.board();
    let occupied = board.occupied();
    if (castles.path(us, side) & occupied).any() {
        return None;
    }
    let king = board.king_of(us)?;
    let king_to = side.king_to(us);
    let after = occupied ^ Bitboard::from(king) ^ Bitboard::from(rook) ^ side.rook_to(us);
    if board.attacks_to(king_to, !us, after).any() {
        return None;
    }
    let without_king = occupied ^ Bitboard::from(king);
    for sq in attacks::between(king, king_to).with(king) {
        if board.attacks_to(sq, !us, without_king).any() {
            return None;
        }
    }
    Some(Move::Castle { king, rook })
}

// Quiet-move generation
//
// The picker's quiet stage used to call `legal_moves()` (every move, ~33 on
// average) for the ~25 quiets, after the captures had already been generated and
// searched. Here only the quiets are generated, with legality per move as in the
// noisy generator (not in check: a pinned piece moves along its pin, the king onto
// unattacked squares, castling by the rules above).
//
// The search must not change, so the quiets must come out exactly as the full-list
// path leaves them: `legal_moves()`, the TT move swap-removed (the last legal move
// takes its slot), then the captures swapped to the front one by one. That swap
// loop keeps the quiets seen so far as a block; every capture it meets moves the
// block's first quiet to the block's end. So the quiets are generated in
// `legal_moves()` order and every capture in between is replayed as that rotation
// ([`Rotation`]): one copied move per capture, no capture stored. The captures
// before the first quiet (en passant, pawn captures) rotate an empty block and are
// not generated at all.

/// Receives the moves in `legal_moves()` order: quiets, and the captures and
/// promotions that fall between them.
trait QuietSink {
    fn quiet(&mut self, m: Move);
    fn noisy(&mut self, m: Move);
}

/// The quiets after the picker's captures in `moves[start..]`, built as the swap
/// loop of the full-list path leaves them (see the section above).
struct Rotation<'a> {
    moves: &'a mut MoveList,
    start: usize,
    /// The block of quiets is `moves[head..]`.
    head: usize,
}

impl<'a> Rotation<'a> {
    fn new(moves: &'a mut MoveList) -> Self {
        let start = moves.len();
        Rotation {
            moves,
            start,
            head: start,
        }
    }

    #[inline(always)]
    fn push(&mut self, m: Move) {
        if self.moves.is_full() {
            self.compact();
        }
        self.moves.push(m);
    }

    /// Moves the block down to `start`, freeing the slots rotated away from.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        self.moves.drain(self.start..self.head);
        self.head = self.start;
    }

    /// The block's first quiet goes to its end.
    #[inline(always)]
    fn rotate(&mut self) {
        if self.head < self.moves.len() {
            if self.moves.is_full() {
                self.compact();
            }
            let first = self.moves[self.head];
            self.head += 1;
            self.moves.push(first);
        }
    }

    fn finish(mut self) {
        if self.head > self.start {
            self.compact();
        }
    }
}

impl QuietSink for Rotation<'_> {
    #[inline(always)]
    fn quiet(&mut self, m: Move) {
        self.push(m);
    }
    #[inline(always)]
    fn noisy(&mut self, _: Move) {
        self.rotate();
    }
}

/// [`Rotation`] of a list with the TT move swap-removed: the last legal move stands
/// in the TT move's place, and its own place at the end is gone.
struct WithoutTt<'a> {
    rotation: Rotation<'a>,
    tt: Move,
    last: Move,
}

impl WithoutTt<'_> {
    #[inline(always)]
    fn event(&mut self, m: Move, noisy: bool) {
        if m == self.tt {
            if self.tt != self.last {
                self.replay_last();
            }
        } else if m != self.last {
            if noisy {
                self.rotation.rotate();
            } else {
                self.rotation.push(m);
            }
        }
    }

    #[inline(always)]
    fn replay_last(&mut self) {
        if is_noisy(&self.last) {
            self.rotation.rotate();
        } else {
            self.rotation.push(self.last);
        }
    }
}

impl QuietSink for WithoutTt<'_> {
    #[inline(always)]
    fn quiet(&mut self, m: Move) {
        self.event(m, false);
    }
    #[inline(always)]
    fn noisy(&mut self, m: Move) {
        self.event(m, true);
    }
}

/// Appends the legal quiet moves of `pos` (not in check) to `moves`, which holds the
/// noisy moves of the node, in the order the picker's full-list path gives them
/// with `tt_move` (legal, or `None`) taken out: see "Quiet-move generation".
pub fn quiets_for_picker(pos: &Chess, tt_move: Option<Move>, moves: &mut MoveList) {
    debug_assert!(!pos.is_check(), "in check the picker uses every evasion");
    let Some(tt) = tt_move else {
        let mut rotation = Rotation::new(moves);
        gen_quiets(pos, &mut rotation);
        rotation.finish();
        return;
    };
    let last = last_legal_move(pos).expect("the TT move is legal");
    let mut sink = WithoutTt {
        rotation: Rotation::new(moves),
        tt,
        last,
    };
    // A TT move among the captures before the first quiet (en passant, pawn
    // captures, which are not generated here) hands its slot to the last move now.
    let early = match tt {
        Move::EnPassant { .. } => true,
        Move::Normal {
            role: Role::Pawn,
            from,
            to,
            ..
        } => from.file() != to.file(),
        _ => false,
    };
    if early && tt != last {
        sink.replay_last();
    }
    gen_quiets(pos, &mut sink);
    sink.rotation.finish();
}

/// Every legal quiet move of `pos` (not in check) in `legal_moves()` order, and the
/// captures and promotions between them (all but en passant and pawn captures).
#[inline(always)]
fn gen_quiets<S: QuietSink>(pos: &Chess, sink: &mut S) {
    match pos.turn() {
        Color::White => gen_quiets_for::<S, true>(pos, sink),
        Color::Black => gen_quiets_for::<S, false>(pos, sink),
    }
}

/// [`gen_quiets`] for White (`WHITE`) or Black to move.
#[inline(always)]
fn gen_quiets_for<S: QuietSink, const WHITE: bool>(pos: &Chess, sink: &mut S) {
    let board = pos.board();
    let us = side::<WHITE>();
    debug_assert_eq!(us, pos.turn());
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    let king = board.king_of(us).expect("legal positions have a king");
    let pinned = pinned(pos, king);
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);

    // Pawn pushes: single steps, promotions by a push, double steps.
    let forward = us.fold_wb(8, -8);
    let single = (board.pawns() & ours).shift(forward) & !occupied;
    for to in single & !Bitboard::BACKRANKS {
        let from = to.offset(-forward).expect("the pawn came from the board");
        if legal(from, to) {
            sink.quiet(normal(Role::Pawn, from, None, to, None));
        }
    }
    for to in single & Bitboard::BACKRANKS {
        let from = to.offset(-forward).expect("the pawn came from the board");
        if legal(from, to) {
            for p in PROMOTIONS {
                sink.noisy(normal(Role::Pawn, from, None, to, Some(p)));
            }
        }
    }
    let double = single.shift(forward) & us.fold_wb(Bitboard::SOUTH, Bitboard::NORTH) & !occupied;
    for to in double {
        let from = to
            .offset(-2 * forward)
            .expect("the pawn came from the board");
        if legal(from, to) {
            sink.quiet(normal(Role::Pawn, from, None, to, None));
        }
    }

    // Pieces; a pinned knight never moves, a pinned slider only along its pin.
    let mut piece_moves = |role: Role, from: Square, reach: Bitboard| {
        for to in reach & !ours {
            if theirs.contains(to) {
                sink.noisy(normal(role, from, board.role_at(to), to, None));
            } else {
                sink.quiet(normal(role, from, None, to, None));
            }
        }
    };
    for from in board.knights() & ours & !pinned {
        piece_moves(Role::Knight, from, attacks::knight_attacks(from));
    }
    for_each_slider!(role, attack => {
        for from in board.by_role(role) & ours {
            let mut reach = attack(from, occupied);
            if pinned.contains(from) {
                reach &= attacks::ray(king, from);
            }
            piece_moves(role, from, reach);
        }
    });

    // King steps onto unattacked squares, then castling.
    for to in attacks::king_attacks(king) & !ours {
        if board.attacks_to(to, !us, occupied).is_empty() {
            if theirs.contains(to) {
                sink.noisy(normal(Role::King, king, board.role_at(to), to, None));
            } else {
                sink.quiet(normal(Role::King, king, None, to, None));
            }
        }
    }
    if pos.castles().has_color(us) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if let Some(m) = castle(pos, side) {
                sink.quiet(m);
            }
        }
    }
}

// Legality of a given move
//
// A TT move comes from a 16-bit entry that may belong to another position (a key
// collision) and must be proven legal before it is played. shakmaty's `is_legal`
// generates the candidate moves to the target square (`san_candidates`, a move
// list returned by value); here the move is checked directly: the piece stands on
// its origin, it can reach the target on this board, and no enemy piece attacks our
// king once it has moved (captured pieces no longer attack). Castling asks
// shakmaty, which knows the rights and the squares that must be free and safe.

/// Whether `m` is legal in `pos`: exactly `pos.is_legal(m)`, for any move.
pub fn is_legal(pos: &Chess, m: Move) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return false;
    };
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            if board.piece_at(from) != Some(Piece { color: us, role })
                || board.by_color(us).contains(to)
                || board.role_at(to) != capture
            {
                return false;
            }
            // A pawn promotes exactly when it reaches the last rank, to a piece.
            let promotes = role == Role::Pawn && Bitboard::BACKRANKS.contains(to);
            match promotion {
                None if promotes => return false,
                Some(_) if !promotes => return false,
                Some(Role::Pawn | Role::King) => return false,
                _ => {}
            }
            let reach = match role {
                Role::Pawn if capture.is_some() => attacks::pawn_attacks(us, from),
                Role::Pawn => pawn_pushes(us, from, occupied),
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                Role::Queen => attacks::queen_attacks(from, occupied),
                Role::King => attacks::king_attacks(from),
            };
            if !reach.contains(to) {
                return false;
            }
            if role == Role::King {
                return board.attacks_to(to, !us, occupied.without(from)).is_empty();
            }
            let after = occupied.without(from).with(to);
            board.attacks_to(king, !us, after).without(to).is_empty()
        }
        Move::EnPassant { from, to } => {
            if pos.maybe_ep_square() != Some(to)
                || board.piece_at(from)
                    != Some(Piece {
                        color: us,
                        role: Role::Pawn,
                    })
                || !attacks::pawn_attacks(us, from).contains(to)
            {
                return false;
            }
            let victim = Square::from_coords(to.file(), ep_victim_rank(us));
            let after = occupied.without(from).without(victim).with(to);
            board
                .attacks_to(king, !us, after)
                .without(victim)
                .is_empty()
        }
        Move::Castle { king, rook } => {
            let side = if king.file() < rook.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            castle(pos, side) == Some(m)
        }
        Move::Put { .. } => false,
    }
}

/// Squares a pawn on `from` can push to: one step onto an empty square, two from
/// its starting rank when both are empty.
#[inline(always)]
fn pawn_pushes(us: Color, from: Square, occupied: Bitboard) -> Bitboard {
    let forward = us.fold_wb(8, -8);
    let Some(one) = from.offset(forward).filter(|sq| !occupied.contains(*sq)) else {
        return Bitboard(0);
    };
    let mut pushes = Bitboard::from(one);
    if from.rank() == us.fold_wb(shakmaty::Rank::Second, shakmaty::Rank::Seventh)
        && let Some(two) = one.offset(forward).filter(|sq| !occupied.contains(*sq))
    {
        pushes |= Bitboard::from(two);
    }
    pushes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    /// Calls `visit` on every node of the perft suite's trees.
    fn walk(visit: &mut dyn FnMut(&Chess)) {
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |p| visit(p.board()));
    }

    #[test]
    fn noisy_moves_equal_the_filtered_legal_moves_at_every_perft_node() {
        let (mut nodes, mut noisy, mut in_check, mut ep) = (0u64, 0u64, 0u64, 0u64);
        walk(&mut |pos| {
            let expected: Vec<Move> = pos.legal_moves().into_iter().filter(is_noisy).collect();
            let mut got = MoveList::new();
            push_noisy(pos, &mut got);
            // Same moves in the same order (so also equal as sets).
            assert_eq!(got.as_slice(), expected.as_slice(), "{}", fen(pos));
            nodes += 1;
            noisy += got.len() as u64;
            in_check += u64::from(pos.is_check() && !got.is_empty());
            ep += got.iter().filter(|m| m.is_en_passant()).count() as u64;
        });
        // The suite must exercise what it claims to.
        assert!(
            nodes > 100_000 && noisy > 100_000,
            "{nodes} nodes, {noisy} noisy"
        );
        assert!(
            in_check > 1_000 && ep > 100,
            "{in_check} in check, {ep} en passant"
        );
    }

    #[test]
    fn picker_order_equals_the_full_list_path_at_every_perft_node() {
        let mut with_tt = 0u64;
        walk(&mut |pos| {
            if pos.is_check() {
                return;
            }
            let legal = pos.legal_moves();
            let candidates = legal.iter().copied().filter(is_noisy).map(Some);
            for tt in std::iter::once(None).chain(candidates) {
                // The picker's full-list path.
                let mut full = legal.clone();
                if let Some(i) = full.iter().position(|m| Some(*m) == tt) {
                    full.swap_remove(i);
                }
                let expected: Vec<Move> = full.into_iter().filter(is_noisy).collect();
                let mut got = MoveList::new();
                noisy_moves_for_picker(pos, tt, &mut got);
                assert_eq!(
                    got.as_slice(),
                    expected.as_slice(),
                    "{} tt {tt:?}",
                    fen(pos)
                );
                with_tt += u64::from(tt.is_some());
            }
        });
        assert!(with_tt > 100_000, "{with_tt}");
    }

    /// `is_legal` agrees with shakmaty's on every legal move of every perft node and
    /// on moves built as a TT entry would be from other nodes' moves and from every
    /// origin-target pair of a few squares (collisions: wrong piece, blocked, pinned,
    /// in check, stale en passant and castling).
    #[test]
    fn is_legal_agrees_with_shakmaty() {
        let (mut legal, mut illegal) = (0u64, 0u64);
        // [illegal, legal] x [en passant, castling, promotion, in check]
        let mut special = [[0u64; 4]; 2];
        let mut previous: Vec<Move> = Vec::new();
        let mut node = 0u64;
        walk(&mut |pos| {
            node += 1;
            let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            let mut candidates: Vec<Move> = moves.clone();
            candidates.extend(previous.iter().copied());
            if node.is_multiple_of(16) {
                // Every move a TT entry could decode to from a few origins.
                let origins = pos.board().by_color(pos.turn());
                for from in origins.into_iter().take(4) {
                    for to in Square::ALL {
                        for promo in [0, Role::Queen as u16, Role::King as u16] {
                            let packed = from as u16 | (to as u16) << 6 | promo << 12;
                            if let Some(m) = crate::search::tt::decode(packed, pos) {
                                candidates.push(m);
                            }
                        }
                    }
                }
            }
            for m in candidates {
                let expected = pos.is_legal(m);
                assert_eq!(is_legal(pos, m), expected, "{} {m:?}", fen(pos));
                legal += u64::from(expected);
                illegal += u64::from(!expected);
                let special = &mut special[usize::from(expected)];
                special[0] += u64::from(m.is_en_passant());
                special[1] += u64::from(m.is_castle());
                special[2] += u64::from(m.is_promotion());
                special[3] += u64::from(pos.is_check());
            }
            previous = moves;
        });
        assert!(
            legal > 100_000 && illegal > 100_000,
            "{legal} legal, {illegal} illegal"
        );
        assert!(special.iter().flatten().all(|&n| n > 100), "{special:?}");
    }

    /// The quiets as the picker's full-list path leaves them behind its captures:
    /// `legal_moves()`, `tt` swap-removed, the noisy moves swapped to the front one
    /// by one. Returns (number of noisy moves, the quiets).
    fn full_list_quiets(pos: &Chess, tt: Option<Move>) -> (usize, Vec<Move>) {
        let mut full = pos.legal_moves();
        if let Some(i) = full.iter().position(|m| Some(*m) == tt) {
            full.swap_remove(i);
        }
        let mut n = 0;
        for i in 0..full.len() {
            if is_noisy(&full[i]) {
                full.swap(n, i);
                n += 1;
            }
        }
        (n, full[n..].to_vec())
    }

    /// `quiets_for_picker` against the full-list path in `pos` with `tt`: the same
    /// quiets in the same order, appended after the captures already in the list.
    fn check_quiets(pos: &Chess, tt: Option<Move>) {
        let (n, expected) = full_list_quiets(pos, tt);
        let mut got = MoveList::new();
        for _ in 0..n {
            // Stand-ins for the captures the picker holds; they must stay untouched.
            got.push(Move::Put {
                role: Role::Pawn,
                to: Square::A1,
            });
        }
        quiets_for_picker(pos, tt, &mut got);
        assert!(got[..n].iter().all(|m| matches!(m, Move::Put { .. })));
        assert_eq!(&got[n..], expected.as_slice(), "{} tt {tt:?}", fen(pos));
    }

    #[test]
    fn quiets_equal_the_full_list_path_at_every_perft_node() {
        let (mut nodes, mut quiets, mut tts) = (0u64, 0u64, 0u64);
        // [TT noisy, TT castling, TT by a pinned piece, castling generated]
        let mut seen = [0u64; 4];
        walk(&mut |pos| {
            if pos.is_check() {
                return;
            }
            nodes += 1;
            let legal = pos.legal_moves();
            let king = pos.board().king_of(pos.turn()).unwrap();
            let pins = pinned(pos, king);
            check_quiets(pos, None);
            // Every legal move as the TT move at some nodes, a few at the others.
            let every = nodes.is_multiple_of(5);
            for (i, &tt) in legal.iter().enumerate() {
                if every || i % 7 == 0 || i + 1 == legal.len() {
                    check_quiets(pos, Some(tt));
                    tts += 1;
                    seen[0] += u64::from(is_noisy(&tt));
                    seen[1] += u64::from(tt.is_castle());
                    seen[2] += u64::from(tt.from().is_some_and(|f| pins.contains(f)));
                }
            }
            quiets += legal.iter().filter(|m| !is_noisy(m)).count() as u64;
            seen[3] += legal.iter().filter(|m| m.is_castle()).count() as u64;
        });
        assert!(
            nodes > 100_000 && quiets > 1_000_000,
            "{nodes} nodes, {quiets} quiets"
        );
        assert!(tts > 1_000_000, "{tts}");
        assert!(seen.iter().all(|&n| n > 1_000), "{seen:?}");
    }

    /// Random games from the suite's positions: at every position not in check the
    /// noisy and quiet generators together give exactly `legal_moves()` (as sets) and
    /// the quiets the full-list order, with no TT move and with a random one.
    #[test]
    fn random_games_agree_with_legal_moves() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut random = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut positions = 0u64;
        for &(fen, chess960, _) in crate::perft::SUITE {
            for _game in 0..100 {
                let mut pos = Position::from_fen(fen, chess960).unwrap();
                for _ply in 0..120 {
                    let board = pos.board();
                    let legal = board.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    if !board.is_check() {
                        let mut ours = MoveList::new();
                        push_noisy(board, &mut ours);
                        quiets_for_picker(board, None, &mut ours);
                        let mut a: Vec<Move> = ours.to_vec();
                        let mut b: Vec<Move> = legal.to_vec();
                        let key = |m: &Move| {
                            let from = m.from().map_or(64, |s| s as u32);
                            (from, m.to() as u32, m.promotion(), m.is_castle())
                        };
                        a.sort_by_key(key);
                        b.sort_by_key(key);
                        assert_eq!(a, b, "{}", fen_of(&pos));
                        check_quiets(board, Some(legal[random(legal.len())]));
                        positions += 1;
                    }
                    let m = legal[random(legal.len())];
                    pos = pos.play(m);
                }
            }
        }
        assert!(positions > 100_000, "{positions}");
    }

    fn fen_of(pos: &Position) -> String {
        pos.fen()
    }

    fn fen(pos: &Chess) -> String {
        Position::from_chess(pos.clone()).fen()
    }
}
