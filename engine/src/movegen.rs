//! Noisy-move generation: the legal captures (en passant included) and promotions
//! of a position, built on shakmaty's bitboards and attack tables.
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
    let them = board.by_color(!pos.turn());
    let snipers = ((attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens()))
        & them;
    let mut pinned = Bitboard(0);
    for sniper in snipers {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    pinned & board.by_color(pos.turn())
}

/// Appends every legal capture and promotion of `pos` to `moves`, in `legal_moves()` order.
pub fn push_noisy(pos: &Chess, moves: &mut MoveList) {
    push_noisy_with_checkers(pos, pos.checkers(), moves);
}

/// [`push_noisy`] given `checkers`, which must be `pos.checkers()` (the caller may
/// know them already).
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
    for role in [Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_role(role) & board.by_color(us) {
            let reach = match role {
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in reach & targets {
                if legal(from, to) {
                    moves.push(normal(role, from, board.role_at(to), to, None));
                }
            }
        }
    }

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
/// That list ends with castling, before it the king's moves by ascending target.
pub fn last_legal_move_is_noisy(pos: &Chess) -> bool {
    let us = pos.turn();
    if pos.castles().has_color(us)
        && CastlingSide::ALL
            .into_iter()
            .any(|side| pos.castles().has(us, side) && !pos.castling_moves(side).is_empty())
    {
        return false;
    }
    let board = pos.board();
    let king = board.king_of(us).expect("legal positions have a king");
    let mut targets = attacks::king_attacks(king) & !board.by_color(us);
    while let Some(to) = targets.last() {
        if board.attacks_to(to, !us, board.occupied()).is_empty() {
            return board.by_color(!us).contains(to);
        }
        targets.discard(to);
    }
    // The king cannot move (rare): ask the full generator.
    pos.legal_moves().last().is_some_and(is_noisy)
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
            pos.castling_moves(side).contains(&m)
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

    fn fen(pos: &Chess) -> String {
        Position::from_chess(pos.clone()).fen()
    }
}
