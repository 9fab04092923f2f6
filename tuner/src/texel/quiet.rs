//! The quiet filter: a position is kept for the fit when it is not in check and no
//! capture sequence changes its material balance.

use occam::position::Position;
use shakmaty::{Move, Position as _, Role};

fn role_value(material: &[i32; 5], role: Role) -> i32 {
    match role {
        Role::King => 20_000,
        r => material[r as usize - 1],
    }
}

/// Quiet: not in check, and no capture sequence changes the material balance
/// (a material-only capture search returns the static balance).
pub fn is_quiet(pos: &Position, material: &[i32; 5]) -> bool {
    if pos.is_check() {
        return false;
    }
    let stand_pat = material_balance(pos, material);
    let mut nodes = 0;
    qsearch(pos, material, -30_000, 30_000, 0, &mut nodes) == stand_pat
}

fn material_balance(pos: &Position, material: &[i32; 5]) -> i32 {
    let board = pos.board().board();
    let us = pos.turn();
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .map(|r| {
        let n = (board.by_role(r) & board.by_color(us)).count() as i32
            - (board.by_role(r) & board.by_color(!us)).count() as i32;
        n * role_value(material, r)
    })
    .sum()
}

/// Fail-hard material capture search (most valuable victim first), at most 8 plies
/// and 2000 nodes deep; its only purpose is telling quiet positions from others.
fn qsearch(
    pos: &Position,
    material: &[i32; 5],
    mut alpha: i32,
    beta: i32,
    ply: u32,
    nodes: &mut u32,
) -> i32 {
    *nodes += 1;
    let stand_pat = material_balance(pos, material);
    if stand_pat >= beta {
        return beta;
    }
    alpha = alpha.max(stand_pat);
    if ply >= 8 || *nodes > 2000 {
        return alpha;
    }
    let mut captures: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.is_capture() || m.is_promotion())
        .collect();
    let victim = |m: &Move| m.capture().map_or(0, |r| role_value(material, r));
    captures.sort_by_key(|m| std::cmp::Reverse(victim(m) * 16 - m.role() as i32));
    for m in captures {
        let score = -qsearch(&pos.play(m), material, -beta, -alpha, ply + 1, nodes);
        if score >= beta {
            return beta;
        }
        alpha = alpha.max(score);
    }
    alpha
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_filter_drops_hanging_pieces_and_checks() {
        let m = [82, 337, 365, 477, 1025];
        let quiet = Position::from_fen(occam::position::START_FEN, false).unwrap();
        assert!(is_quiet(&quiet, &m));
        // White can take a free queen on d5.
        let hanging = Position::from_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", false).unwrap();
        assert!(!hanging.is_check() && !is_quiet(&hanging, &m));
        let check = Position::from_fen("4k3/8/8/8/8/8/8/R3K2r w - - 0 1", false).unwrap();
        assert!(!is_quiet(&check, &m));
    }
}
