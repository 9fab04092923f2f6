//! Static exchange evaluation with its own piece values (`see_*` parameters),
//! separate from the evaluation's material: 1/3/3/5/10 pawns by default so that
//! BxN and NxB are even trades and a queen for two rooks is equal.

use shakmaty::{Bitboard, Color, Move, Position as _, Role, Square, attacks};

use crate::params::Params;
use crate::position::{Position, en_passant_victim};
use crate::rays;

/// Piece values for SEE and MVV/LVA ordering, indexed by `Role as usize` (king = huge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeeValues {
    values: [i32; 7],
}

impl SeeValues {
    pub fn new(p: &Params) -> Self {
        SeeValues {
            values: [
                0,
                p.see_pawn(),
                p.see_knight(),
                p.see_bishop(),
                p.see_rook(),
                p.see_queen(),
                20_000,
            ],
        }
    }

    #[inline(always)]
    pub fn of(&self, role: Role) -> i32 {
        self.values[role as usize]
    }
}

/// Value of the piece a move takes (en passant takes a pawn), 0 for quiets.
#[inline(always)]
pub fn captured_value(m: &Move, v: &SeeValues) -> i32 {
    match m {
        Move::EnPassant { .. } => v.of(Role::Pawn),
        _ => m.capture().map_or(0, |r| v.of(r)),
    }
}

/// Whether `see(pos, m, v) < threshold`, playing the exchange out only when it must:
/// `known` is the SEE of `m` if the caller already has it (the move picker's
/// good/bad capture split), and an exchange never ends below the captured piece
/// minus the moving one (every later capture is one the side to move may decline;
/// a promotion's gain and loss of the new piece cancel), so a threshold at or
/// below that needs no exchange at all (most captures of an equal or bigger piece).
#[inline(always)]
pub fn see_below(
    pos: &Position,
    m: &Move,
    v: &SeeValues,
    known: Option<i32>,
    threshold: i32,
) -> bool {
    if let Some(see) = known {
        return see < threshold;
    }
    if captured_value(m, v) - v.of(m.role()) >= threshold {
        return false;
    }
    see(pos, m, v) < threshold
}

fn least_valuable(board: &shakmaty::Board, set: Bitboard) -> Option<(Square, Role)> {
    for role in Role::ALL {
        if let Some(sq) = (set & board.by_role(role)).first() {
            return Some((sq, role));
        }
    }
    None
}

/// Material balance of the exchange sequence started by `m` on its target square,
/// both sides always recapturing with their least valuable piece and free to stop.
/// Pins are ignored; castling is 0.
pub fn see(pos: &Position, m: &Move, v: &SeeValues) -> i32 {
    let (from, to, mover) = match *m {
        Move::Normal { role, from, to, .. } => (from, to, role),
        Move::EnPassant { from, to } => (from, to, Role::Pawn),
        _ => return 0,
    };
    let board = pos.board().board();
    let us: Color = pos.turn();
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    if let Move::EnPassant { .. } = m {
        occupied ^= Bitboard::from(en_passant_victim(from, to));
    }
    let mut gain = [0i32; 34];
    gain[0] = captured_value(m, v);
    let mut on_square = match m.promotion() {
        Some(p) => {
            gain[0] += v.of(p) - v.of(Role::Pawn);
            v.of(p)
        }
        None => v.of(mover),
    };
    // No enemy piece reaches the square even on an empty board: nothing can take
    // back, and the exchange is the first capture alone. Common for quiet moves.
    // The empty-board lines come from a 1 KB table (`rays`); the magic lookups with
    // the real occupancy below often miss the cache, and are only made for a kind
    // of slider that stands on the square's lines at all.
    let diagonal = rays::diagonal(to) & board.bishops_and_queens();
    let straight = rays::straight(to) & board.rooks_and_queens();
    let reach = (attacks::pawn_attacks(us, to) & board.pawns())
        | (attacks::knight_attacks(to) & board.knights())
        | (attacks::king_attacks(to) & board.kings())
        | diagonal
        | straight;
    if (reach & board.by_color(!us)).is_empty() {
        return gain[0];
    }
    let bishop_attacks = |occupied| {
        if diagonal.any() {
            attacks::bishop_attacks(to, occupied) & diagonal
        } else {
            Bitboard(0)
        }
    };
    let rook_attacks = |occupied| {
        if straight.any() {
            attacks::rook_attacks(to, occupied) & straight
        } else {
            Bitboard(0)
        }
    };
    // Both colours' attackers at once (one lookup per slider direction).
    let mut attackers = (bishop_attacks(occupied)
        | rook_attacks(occupied)
        | (attacks::knight_attacks(to) & board.knights())
        | (attacks::king_attacks(to) & board.kings())
        | (attacks::pawn_attacks(Color::Black, to) & board.pawns() & board.white())
        | (attacks::pawn_attacks(Color::White, to) & board.pawns() & board.black()))
        & occupied;
    let mut side = !us;
    let mut d = 0;
    loop {
        let ours = attackers & board.by_color(side);
        let Some((sq, role)) = least_valuable(board, ours) else {
            break;
        };
        // The king may only take last, when nothing can take it back.
        if role == Role::King && (attackers & board.by_color(!side)).any() {
            break;
        }
        d += 1;
        gain[d] = on_square - gain[d - 1];
        on_square = v.of(role);
        occupied ^= Bitboard::from(sq);
        // Sliders behind the piece just moved join in (x-rays). Only a line through
        // the square it left can open: diagonal behind a pawn or bishop, straight
        // behind a rook, either behind a queen or king, none behind a knight.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen | Role::King) {
            attackers |= bishop_attacks(occupied);
        }
        if matches!(role, Role::Rook | Role::Queen | Role::King) {
            attackers |= rook_attacks(occupied);
        }
        attackers &= occupied;
        side = !side;
        if d + 1 >= gain.len() {
            break;
        }
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SEE with the textbook piece values (100, 300, 300, 500, 1000), so the named
    /// exchanges below keep their known values whatever the tuned `see_*` are.
    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen, false).unwrap();
        let m = pos.parse_uci_move(uci).unwrap();
        let mut params = Params::default();
        (params.see_pawn, params.see_knight, params.see_bishop) = (100, 300, 300);
        (params.see_rook, params.see_queen) = (500, 1000);
        see(&pos, &m, &SeeValues::new(&params))
    }

    /// `see_below` answers `see < threshold` for every move of every perft node,
    /// given the SEE or not, at thresholds around the lower bound it skips with.
    #[test]
    fn see_below_agrees_with_see() {
        let v = SeeValues::new(&Params::default());
        let mut skipped = 0u64;
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            for m in pos.legal_moves() {
                let exact = see(pos, &m, &v);
                let bound = captured_value(&m, &v) - v.of(m.role());
                assert!(exact >= bound, "{} {m}: {exact} < {bound}", pos.fen());
                for threshold in [-1000, -300, -30, 0, 1, 100, 250] {
                    let below = exact < threshold;
                    assert_eq!(see_below(pos, &m, &v, None, threshold), below);
                    assert_eq!(see_below(pos, &m, &v, Some(exact), threshold), below);
                    skipped += u64::from(bound >= threshold);
                }
            }
        });
        assert!(skipped > 100_000, "{skipped}");
    }

    #[test]
    fn named_exchanges_have_their_known_values() {
        // Free pawn: R takes an undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn defended by a pawn: loses the knight for a pawn.
        assert_eq!(
            see_of("4k3/8/3p4/4p3/8/5N2/8/4K3 w - - 0 1", "f3e5"),
            100 - 300
        );
        // Classic: Nxe5 with x-rayed rook/queen batteries (chessprogramming wiki SEE example 2).
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            -200
        );
        // BxN is even with equal minor values.
        assert_eq!(see_of("4k3/8/3p4/4n3/8/8/1B6/4K3 w - - 0 1", "b2e5"), 0);
        // Queen takes a defended rook: +5 -10.
        assert_eq!(
            see_of("4k3/4r3/8/8/8/8/8/4QK2 w - - 0 1", "e1e7"),
            500 - 1000
        );
        // Quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/3p4/8/8/5N2/8/4K3 w - - 0 1", "f3e5"), -300);
        // En passant, undefended.
        assert_eq!(see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
        // Promotion onto an undefended square gains queen minus pawn.
        assert_eq!(see_of("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), 900);
        // King may not recapture a defended piece.
        assert_eq!(see_of("3rk3/8/8/8/8/8/3p4/3RK3 w - - 0 1", "d1d2"), 100);
        assert_eq!(
            see_of("3rk3/3r4/8/8/8/8/3p4/3RK3 w - - 0 1", "d1d2"),
            100 - 500
        );
    }
}
