//! Threats: what the enemy attacks of ours, judged by the attacker's kind and by our
//! defence, and the enemy pieces one safe pawn push of ours would attack.
//!
//! Scored from the victim's side after both attack maps are complete (they are built
//! once per evaluation in `side_terms`). A piece attacked by a lesser piece is lost
//! or must move whatever defends it, so those terms ignore defence; attacks by equal
//! or greater pieces (rook or queen on a minor, king on a minor or rook) count only
//! when the piece is poorly defended. The queen is penalised for any attack, and for
//! standing on an enemy bishop's or rook's line with one piece between them (a
//! discovered attack or a pin waiting to happen; learnt from Ethereal).

use super::features::{self as f, Section};
use super::{AttackMap, Tracer};
use crate::rays::{lone_blockers, pawn_attacks};
use crate::score::S;
use shakmaty::{Bitboard, Board, Color, Role};

const PAWN: usize = Role::Pawn as usize - 1;
const KNIGHT: usize = Role::Knight as usize - 1;
const BISHOP: usize = Role::Bishop as usize - 1;
const ROOK: usize = Role::Rook as usize - 1;
const QUEEN: usize = Role::Queen as usize - 1;
const KING: usize = Role::King as usize - 1;

/// Our threat score (penalties for what the enemy attacks, a bonus for pawn-push
/// threats); the queen's discovered attacks only with `discovered`.
#[inline(always)]
pub(super) fn evaluate<T: Tracer>(
    weights: &[S; f::COUNT],
    board: &Board,
    us: Color,
    maps: &[AttackMap; 2],
    discovered: bool,
    t: &mut T,
) -> S {
    let them = !us;
    let (ours, theirs) = (&maps[us as usize], &maps[them as usize]);
    let own = board.by_color(us).0;
    let pawns = own & board.pawns().0;
    let minors = own & (board.knights() | board.bishops()).0;
    let rooks = own & board.rooks().0;
    let queens = own & board.queens().0;

    let by_pawns = theirs.by[PAWN];
    let by_minors = theirs.by[KNIGHT] | theirs.by[BISHOP];
    let by_majors = theirs.by[ROOK] | theirs.by[QUEEN];
    let by_king = theirs.by[KING];

    // Poorly defended: attacked and undefended, or attacked twice and defended at
    // most once and not by a pawn.
    let poorly_defended = (theirs.all & !ours.all) | (theirs.twice & !ours.twice & !ours.by[PAWN]);
    let weak_minors = minors & poorly_defended;
    // Overloaded: attacked once and defended once, so its one defender is tied to it.
    let overloaded =
        (minors | rooks | queens) & ours.all & !ours.twice & theirs.all & !theirs.twice;

    // Pawn-push threats: squares our pawns can reach in one move (single push, or a
    // double push through an empty 3rd rank) that no enemy pawn attacks and that we
    // defend or they do not attack, then the enemy pieces a pawn there would hit.
    let empty = !board.occupied().0;
    let push = |b: u64| if us == Color::White { b << 8 } else { b >> 8 };
    let third_rank = if us == Color::White {
        0xFFu64 << 16
    } else {
        0xFFu64 << 40
    };
    let mut pushes = push(pawns) & empty;
    pushes |= push(pushes & !by_pawns & third_rank) & empty;
    pushes &= !by_pawns & (ours.all | !theirs.all);
    let targets = board.by_color(them).0 & !(board.pawns() | board.kings()).0 & !ours.by[PAWN];

    let counts = [
        (f::THREAT_WEAK_PAWN, pawns & !by_pawns & poorly_defended),
        (f::THREAT_MINOR_BY_PAWN, minors & by_pawns),
        (f::THREAT_MINOR_BY_MINOR, minors & by_minors),
        (f::THREAT_MINOR_BY_MAJOR, weak_minors & by_majors),
        (f::THREAT_ROOK_BY_LESSER, rooks & (by_pawns | by_minors)),
        (f::THREAT_MINOR_BY_KING, weak_minors & by_king),
        (f::THREAT_ROOK_BY_KING, rooks & poorly_defended & by_king),
        (f::THREAT_QUEEN_ATTACKED, queens & theirs.all),
        (f::THREAT_OVERLOADED, overloaded),
        (f::THREAT_PAWN_PUSH, pawn_attacks(us, pushes) & targets),
    ];
    let mut s = S::default();
    for (feature, squares) in counts {
        let n = squares.count_ones() as i32;
        if n > 0 {
            s += weights[feature] * n;
            t.add(Section::Threats, feature, us, n);
        }
    }
    if discovered && queens != 0 {
        let n = discovered_queens(board, them, queens).count_ones() as i32;
        if n > 0 {
            s += weights[f::THREAT_QUEEN_DISCOVERED] * n;
            t.add(Section::Threats, f::THREAT_QUEEN_DISCOVERED, us, n);
        }
    }
    s
}

/// Those of `queens` that stand on a line of a bishop or rook of `them` with exactly
/// one piece (of either colour) between them: a lone blocker (`rays::lone_blockers`,
/// the pin finder) with the enemy's bishops and rooks, not its queens, as the sliders.
#[inline(always)]
fn discovered_queens(board: &Board, them: Color, queens: u64) -> u64 {
    let sliders = board.by_color(them) & (board.bishops() | board.rooks());
    Bitboard(queens)
        .into_iter()
        .filter(|&queen| lone_blockers(board, queen, sliders).any())
        .fold(0, |found, queen| found | 1u64 << queen as u32)
}
