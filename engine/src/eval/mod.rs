//! Static evaluation: a pure function of the position and the parameters.
//! (Placeholder: material only, until the tapered evaluation lands.)

use crate::params::Params;
use crate::position::Position;
use shakmaty::{Color, Position as _, Role};

/// Evaluates positions with tables derived from a [`Params`]; call [`Evaluator::refresh`]
/// after the parameters change.
#[derive(Clone, Debug)]
pub struct Evaluator {
    material: [i32; 6],
}

/// Per-term breakdown of an evaluation, for the `eval` command and tuning.
#[derive(Clone, Debug, Default)]
pub struct EvalTrace {
    /// (term, white mg, white eg, black mg, black eg)
    pub terms: Vec<(String, i32, i32, i32, i32)>,
    /// Game phase, 0 (bare kings) ..= 24 (all pieces).
    pub phase: i32,
    /// Final score from the side to move's point of view, in centipawns.
    pub score: i32,
}

impl Evaluator {
    pub fn new(params: &Params) -> Self {
        let mut e = Evaluator { material: [0; 6] };
        e.refresh(params);
        e
    }

    /// Rebuilds the derived tables from the parameters.
    pub fn refresh(&mut self, params: &Params) {
        self.material = [params.material_pawn_mg(), 320, 330, 500, 900, 0];
    }

    /// Score in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let board = pos.board().board();
        let mut score = 0;
        for (i, role) in Role::ALL.iter().enumerate() {
            let w = (board.by_role(*role) & board.by_color(Color::White)).count() as i32;
            let b = (board.by_role(*role) & board.by_color(Color::Black)).count() as i32;
            score += (w - b) * self.material[i];
        }
        if pos.board().turn() == Color::White {
            score
        } else {
            -score
        }
    }

    pub fn trace(&mut self, pos: &Position) -> EvalTrace {
        EvalTrace {
            terms: Vec::new(),
            phase: 24,
            score: self.evaluate(pos),
        }
    }
}

impl std::fmt::Display for EvalTrace {
    /// A table of the terms (White, Black, total; mg and eg), the phase and the final score.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{:<20} {:>13} {:>13} {:>13}",
            "term", "white mg/eg", "black mg/eg", "total mg/eg"
        )?;
        for (name, wm, we, bm, be) in &self.terms {
            writeln!(
                f,
                "{name:<20} {wm:>6} {we:>6} {bm:>6} {be:>6} {:>6} {:>6}",
                wm - bm,
                we - be
            )?;
        }
        writeln!(f, "phase {} (24 = opening, 0 = bare kings)", self.phase)?;
        write!(f, "score {} cp (side to move)", self.score)
    }
}
