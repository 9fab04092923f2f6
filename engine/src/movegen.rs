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
//! The moves come out in the order in which `legal_moves()` lists them (a fixed
//! order, so that the search is reproducible and the tests can compare with
//! shakmaty move for move): en passant first; then (not in check) pawn captures
//! towards the a-file side, pawn captures towards the h-file side, push
//! promotions, knight, bishop, rook, queen and king captures, each by ascending
//! square; in check the king's captures come right after en passant. The quiets
//! come pieces first, see "Quiet-move generation".

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

/// True for the moves the q-search and the capture stages of the move picker look
/// at: captures and promotions.
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
///
/// One copy for both colours, the side to move read at run time: a copy per colour
/// (the colour a const generic, every pawn direction folded) ran 0.4% fewer
/// instructions but doubled the generators' code, and the search alternates the
/// colours every ply, so both copies competed for the instruction cache.
#[inline(always)]
fn push_noisy_with_checkers(pos: &Chess, checkers: Bitboard, moves: &mut MoveList) {
    debug_assert_eq!(checkers, pos.checkers());
    let board = pos.board();
    let us = pos.turn();
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

/// The noisy moves of `pos` (not in check) without `tt_move`, in `legal_moves()`
/// order (see the module's documentation).
pub fn noisy_moves_for_picker(pos: &Chess, tt_move: Option<Move>, moves: &mut MoveList) {
    debug_assert!(!pos.is_check(), "in check the picker uses every evasion");
    push_noisy_with_checkers(pos, Bitboard(0), moves);
    if let Some(tt) = tt_move.filter(is_noisy)
        && let Some(i) = moves.iter().position(|m| *m == tt)
    {
        moves.remove(i);
    }
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
// Only the quiets (not promotions: those are noisy), with legality per move as in
// the noisy generator (not in check: a pinned piece moves along its pin, the king
// onto unattacked squares, castling by the rules above). The order is the tie-break
// among quiets of equal history (at a fresh node, all of them): knight, bishop, rook
// and queen moves first, then pawn single and double pushes, king steps, castling
// king side then queen side; within a piece type, `legal_moves()` order. Pieces
// before pawns searched fewer nodes to the same depth than `legal_moves()`'s pawns
// first (`occam bench 14`: 6.19 M against 6.65 M).

/// Appends the legal quiet moves of `pos` (not in check) but `tt_move` to `moves`
/// (which holds the node's noisy moves), pieces first (see above).
pub fn quiets_for_picker(pos: &Chess, tt_move: Option<Move>, moves: &mut MoveList) {
    debug_assert!(!pos.is_check(), "in check the picker uses every evasion");
    let tt = tt_move.filter(|m| !is_noisy(m));
    push_quiets(pos, tt, moves);
}

/// A quiet's group in [`quiets_for_picker`]'s order (0 knights, bishops, rooks and
/// queens; 1 pawns; 2 king steps and castling): a stable sort of `legal_moves()`'s
/// quiets by it gives that order (the reference of the tests).
pub fn quiet_group(m: &Move) -> u8 {
    match m.role() {
        Role::Pawn => 1,
        Role::King => 2,
        _ => 0,
    }
}

/// [`quiets_for_picker`] with `tt` a quiet or `None` (one copy for both colours, as
/// [`push_noisy_with_checkers`]).
#[inline(always)]
fn push_quiets(pos: &Chess, tt: Option<Move>, moves: &mut MoveList) {
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let occupied = board.occupied();
    let king = board.king_of(us).expect("legal positions have a king");
    let pinned = pinned(pos, king);
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);
    // At most 218 legal moves in any position, so the list never overflows.
    let mut push = |m: Move| {
        if Some(m) != tt {
            moves.push(m);
        }
    };

    // Pieces onto empty squares; a pinned knight never moves, a pinned slider only
    // along its pin.
    for from in board.knights() & ours & !pinned {
        for to in attacks::knight_attacks(from) & !occupied {
            push(normal(Role::Knight, from, None, to, None));
        }
    }
    for_each_slider!(role, attack => {
        for from in board.by_role(role) & ours {
            let mut reach = attack(from, occupied) & !occupied;
            if pinned.contains(from) {
                reach &= attacks::ray(king, from);
            }
            for to in reach {
                push(normal(role, from, None, to, None));
            }
        }
    });

    // Pawn pushes: single steps (not onto the last rank), then double steps.
    let forward = us.fold_wb(8, -8);
    let single = (board.pawns() & ours).shift(forward) & !occupied;
    for to in single & !Bitboard::BACKRANKS {
        let from = to.offset(-forward).expect("the pawn came from the board");
        if legal(from, to) {
            push(normal(Role::Pawn, from, None, to, None));
        }
    }
    let double = single.shift(forward) & us.fold_wb(Bitboard::SOUTH, Bitboard::NORTH) & !occupied;
    for to in double {
        let from = to
            .offset(-2 * forward)
            .expect("the pawn came from the board");
        if legal(from, to) {
            push(normal(Role::Pawn, from, None, to, None));
        }
    }

    // King steps onto unattacked empty squares, then castling.
    for to in attacks::king_attacks(king) & !occupied {
        if board.attacks_to(to, !us, occupied).is_empty() {
            push(normal(Role::King, king, None, to, None));
        }
    }
    if pos.castles().has_color(us) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if let Some(m) = castle(pos, side) {
                push(m);
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

    /// The picker's noisy moves and quiets: `legal_moves()` split in two, order
    /// kept, the TT move (every noisy and quiet one in turn at some nodes, a few at
    /// the others) left out; the captures already in the list stay untouched.
    #[test]
    fn picker_lists_are_the_legal_moves_in_order_without_the_tt_move() {
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
            let every = nodes.is_multiple_of(5);
            let candidates = legal
                .iter()
                .enumerate()
                .filter(|&(i, _)| every || i % 7 == 0 || i + 1 == legal.len())
                .map(|(_, m)| Some(*m));
            for tt in std::iter::once(None).chain(candidates) {
                check_picker_lists(pos, tt);
                if let Some(tt) = tt {
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

    /// `noisy_moves_for_picker` and `quiets_for_picker` in `pos` (not in check) with
    /// `tt` against `legal_moves()`.
    fn check_picker_lists(pos: &Chess, tt: Option<Move>) {
        let (noisy, mut quiets): (Vec<Move>, Vec<Move>) = pos
            .legal_moves()
            .into_iter()
            .filter(|m| Some(*m) != tt)
            .partition(is_noisy);
        quiets.sort_by_key(quiet_group);
        let mut got = MoveList::new();
        noisy_moves_for_picker(pos, tt, &mut got);
        assert_eq!(got.as_slice(), noisy, "{} tt {tt:?}", fen(pos));
        let n = got.len();
        quiets_for_picker(pos, tt, &mut got);
        assert_eq!(&got[..n], noisy, "{} tt {tt:?}", fen(pos));
        assert_eq!(&got[n..], quiets, "{} tt {tt:?}", fen(pos));
    }

    /// `is_legal` agrees with shakmaty's on every legal move of every perft node and
    /// on the previous node's moves (collisions of a TT entry: wrong piece, blocked,
    /// pinned, in check, stale en passant and castling). The TT's tests add every
    /// move an entry could decode to.
    #[test]
    fn is_legal_agrees_with_shakmaty() {
        let (mut legal, mut illegal) = (0u64, 0u64);
        // [illegal, legal] x [en passant, castling, promotion, in check]
        let mut special = [[0u64; 4]; 2];
        let mut previous: Vec<Move> = Vec::new();
        walk(&mut |pos| {
            let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            let mut candidates: Vec<Move> = moves.clone();
            candidates.extend(previous.iter().copied());
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

    /// Random games from the suite's positions: at every position not in check the
    /// picker's lists are `legal_moves()` in order, with no TT move and with a random one.
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
                        check_picker_lists(board, None);
                        check_picker_lists(board, Some(legal[random(legal.len())]));
                        positions += 1;
                    }
                    let m = legal[random(legal.len())];
                    pos = pos.play(m);
                }
            }
        }
        assert!(positions > 100_000, "{positions}");
    }

    fn fen(pos: &Chess) -> String {
        Position::from_chess(pos.clone()).fen()
    }
}
