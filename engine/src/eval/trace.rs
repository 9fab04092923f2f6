//! Tracing: the evaluation seen term by term. The evaluation reports every
//! feature occurrence to a [`Tracer`]; the normal one ([`NoTrace`]) compiles to
//! nothing, [`Counts`] records them for the `eval` command's per-term table
//! ([`Evaluator::trace`]) and for Texel tuning's per-position coefficients
//! ([`Evaluator::coefficients`]).

use shakmaty::Color;

use super::features::{self as f, Section};
use super::{Evaluator, signed, white_first};
use crate::position::Position;
use crate::score::S;

/// Receives every feature occurrence during an evaluation (for the trace and for
/// Texel coefficients). [`NoTrace`] compiles to nothing.
pub trait Tracer {
    const ON: bool;
    /// `count` occurrences of `feature` for `color`, shown under `section` in the trace.
    fn add(&mut self, section: Section, feature: usize, color: Color, count: i32);
    /// A score of `color` that is not linear in the feature weights (king danger).
    fn offset(&mut self, section: Section, color: Color, s: S);
    /// `color`'s king-danger count, when it scores (positive): the slope of that
    /// score in the shelter sum king danger takes its share of.
    fn king_danger(&mut self, _color: Color, _danger: i32) {}
    /// Complexity has just floored the endgame sum at zero (a negative complexity
    /// larger than the lead): the endgame weights counted so far no longer move the
    /// score, nearby.
    fn endgame_floored(&mut self) {}
}

/// The tracer of the normal, fast evaluation.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn add(&mut self, _: Section, _: usize, _: Color, _: i32) {}
    #[inline(always)]
    fn offset(&mut self, _: Section, _: Color, _: S) {}
}

/// Per-feature counts of each side, and for the trace every occurrence with its section.
pub(super) struct Counts {
    pub(super) white: Vec<i32>,
    pub(super) black: Vec<i32>,
    /// (section, feature, colour, count) when recording for the trace.
    occurrences: Option<Vec<(Section, usize, Color, i32)>>,
    /// Non-linear scores (White minus Black), and by section for the trace.
    offset: S,
    offsets: Vec<(Section, Color, S)>,
    /// Each side's king-danger count when it scores (White first), else 0.
    danger: [i32; 2],
    /// The counts (White minus Black) when complexity floored the endgame sum.
    floored_eg: Option<Vec<(u16, i16)>>,
}

impl Counts {
    pub(super) fn new(record: bool) -> Counts {
        Counts {
            white: vec![0; f::COUNT],
            black: vec![0; f::COUNT],
            occurrences: record.then(Vec::new),
            offset: S::default(),
            offsets: Vec::new(),
            danger: [0; 2],
            floored_eg: None,
        }
    }

    /// Each feature's count, White minus Black, where non-zero.
    fn net(&self) -> Vec<(u16, i16)> {
        (0..f::COUNT)
            .filter_map(|i| {
                let c = self.white[i] - self.black[i];
                (c != 0).then_some((i as u16, c as i16))
            })
            .collect()
    }
}

impl Tracer for Counts {
    const ON: bool = true;
    fn add(&mut self, section: Section, feature: usize, color: Color, count: i32) {
        match color {
            Color::White => self.white[feature] += count,
            Color::Black => self.black[feature] += count,
        }
        if let Some(o) = &mut self.occurrences {
            o.push((section, feature, color, count));
        }
    }
    fn offset(&mut self, section: Section, color: Color, s: S) {
        self.offset += signed(color, s);
        self.offsets.push((section, color, s));
    }
    fn king_danger(&mut self, color: Color, danger: i32) {
        self.danger[white_first(color)] = danger;
    }
    fn endgame_floored(&mut self) {
        self.floored_eg = Some(self.net());
    }
}

/// A position's evaluation as a linear function of the weights (White's view):
/// `white_score = scale/100 * (mg * phase + eg * (24 - phase)) / 24` with
/// `mg = offset.mg + Σ coef * weight_mg` and `eg = offset.eg + Σ coef * weight_eg`
/// over `features`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coefficients {
    /// (feature, White count minus Black count), only non-zero ones.
    pub features: Vec<(u16, i16)>,
    /// Game phase, 0..=24.
    pub phase: i32,
    /// Drawish-endgame scale in percent (100 = no scaling).
    pub scale: i32,
    /// The part not linear in the feature weights (king danger), White minus Black.
    pub offset: S,
    /// Each side's king-danger count when it scores (White first), else 0: the
    /// score is `-danger² / king_danger_quadratic_div` in the middlegame and
    /// `-danger / king_danger_linear_div` in the endgame, and `king_danger_shelter_pct`
    /// of the king's shelter shortfall is part of the count
    /// ([`Evaluator::shelter_counts`]).
    pub danger: [i32; 2],
    /// When complexity floored the endgame sum at zero: the features counted before
    /// it (White minus Black), whose endgame weights then do not move the score (the
    /// slope of the endgame part is `features − floored_eg`).
    pub floored_eg: Option<Vec<(u16, i16)>>,
}

/// Per-term breakdown of an evaluation, for the `eval` command and tuning.
#[derive(Clone, Debug, Default)]
pub struct EvalTrace {
    /// (term, white mg, white eg, black mg, black eg)
    pub terms: Vec<(String, i32, i32, i32, i32)>,
    /// Game phase, 0 (bare kings) ..= 24 (all pieces).
    pub phase: i32,
    /// Drawish-endgame scale in percent (100 = none).
    pub scale: i32,
    /// Final score from the side to move's point of view, in centipawns.
    pub score: i32,
}

impl Evaluator {
    /// The per-term breakdown printed by the `eval` command.
    pub fn trace(&mut self, pos: &Position) -> EvalTrace {
        let mut counts = Counts::new(true);
        let (score, phase, scale) = self.white_score(pos.board(), &mut counts);
        let mut terms: Vec<(String, i32, i32, i32, i32)> = Section::ALL
            .iter()
            .map(|s| (s.name().to_string(), 0, 0, 0, 0))
            .collect();
        let linear = counts.occurrences.unwrap_or_default().into_iter();
        let linear =
            linear.map(|(section, feature, color, n)| (section, color, self.weights[feature] * n));
        for (section, color, s) in linear.chain(counts.offsets) {
            let line = Section::ALL
                .iter()
                .position(|s| *s == section)
                .expect("every section is listed");
            let t = &mut terms[line];
            match color {
                Color::White => (t.1, t.2) = (t.1 + s.mg, t.2 + s.eg),
                Color::Black => (t.3, t.4) = (t.3 + s.mg, t.4 + s.eg),
            }
        }
        EvalTrace {
            terms,
            phase,
            scale,
            score: if pos.turn() == Color::White {
                score
            } else {
                -score
            },
        }
    }

    /// The evaluation as per-feature counts (White minus Black), phase and scale.
    pub fn coefficients(&mut self, pos: &Position) -> Coefficients {
        let mut counts = Counts::new(false);
        let (_, phase, scale) = self.white_score(pos.board(), &mut counts);
        Coefficients {
            features: counts.net(),
            phase,
            scale,
            offset: counts.offset,
            danger: counts.danger,
            floored_eg: counts.floored_eg,
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
        writeln!(f, "scale {}% (drawish endgames below 100)", self.scale)?;
        write!(f, "score {} cp (side to move)", self.score)
    }
}
