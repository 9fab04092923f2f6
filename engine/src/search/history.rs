//! Move-ordering memory: butterfly history (side, from, to) with gravity, killer
//! moves per ply and counter moves indexed by the opponent's last move (`hist_*`).

use shakmaty::{Color, Move, Square};

use super::MAX_PLY;
use crate::params::Params;

/// Butterfly history: how often a quiet move caused a cut-off, signed and bounded.
pub struct History {
    butterfly: Vec<i32>,
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    counters: Vec<Option<Move>>,
}

#[inline(always)]
fn from_to(m: &Move) -> (Square, Square) {
    match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    }
}

#[inline(always)]
fn butterfly_index(color: Color, m: &Move) -> usize {
    let (from, to) = from_to(m);
    (color as usize) * 4096 + (from as usize) * 64 + to as usize
}

/// Counter-move slot: the piece (colour, role) and target square of the previous move.
#[inline(always)]
fn counter_index(color: Color, prev: &Move) -> usize {
    ((color as usize) * 8 + prev.role() as usize) * 64 + prev.to() as usize
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: vec![0; 2 * 64 * 64],
            killers: [[None; 2]; MAX_PLY + 2],
            counters: vec![None; 2 * 8 * 64],
        }
    }
}

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Killers are only meaningful within one search.
    pub fn clear_killers(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 2];
    }

    #[inline(always)]
    pub fn score(&self, color: Color, m: &Move) -> i32 {
        self.butterfly[butterfly_index(color, m)]
    }

    /// Gravity update: the entry moves towards ±hist_max and saturates there.
    fn update(&mut self, color: Color, m: &Move, delta: i32, max: i32) {
        let e = &mut self.butterfly[butterfly_index(color, m)];
        let delta = delta.clamp(-max, max);
        *e += delta - *e * delta.abs() / max;
    }

    /// A quiet move caused a cut-off at `depth`: reward it, penalise the quiets tried before it.
    #[allow(clippy::too_many_arguments)]
    pub fn on_quiet_cutoff(
        &mut self,
        p: &Params,
        color: Color,
        ply: usize,
        depth: i32,
        best: Move,
        tried: &[Move],
        prev: Option<Move>,
    ) {
        let max = p.hist_max();
        let bonus = (p.hist_bonus_mult() * depth).min(p.hist_bonus_max());
        let malus = (p.hist_malus_mult() * depth).min(p.hist_malus_max());
        self.update(color, &best, bonus, max);
        for m in tried {
            if *m != best {
                self.update(color, m, -malus, max);
            }
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
        if let Some(prev) = prev {
            self.counters[counter_index(!color, &prev)] = Some(best);
        }
    }

    #[inline(always)]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply]
    }

    /// The reply that last refuted `prev` (played by `!color`).
    #[inline(always)]
    pub fn counter(&self, color: Color, prev: Option<Move>) -> Option<Move> {
        prev.and_then(|p| self.counters[counter_index(!color, &p)])
    }
}
