//! The update loop every rule set runs in, real or simulated: draw θ±, play, move θ by
//! the rule set, average θ as the run's [`AveragePlan`] says.

use super::{Draws, Pair, Rules};
use crate::design::Averaging;

/// How a run's θ are averaged into its result: with `averaging`'s weights over `pairs`
/// planned pairs, counted after the first `skipped` pairs (a probe's), which move
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AveragePlan {
    pub averaging: Averaging,
    pub skipped: u64,
    pub pairs: u64,
}

impl AveragePlan {
    /// The weight of θ after the run's `seq`-th applied pair.
    pub fn weight(&self, seq: u64) -> f64 {
        if seq <= self.skipped {
            return 0.0;
        }
        self.averaging.weight(seq - self.skipped, self.pairs)
    }
}

/// θ, the pairs applied so far and θ's weighted sum: what a run's pairs move.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneState {
    pub seq: u64,
    pub theta: Vec<f64>,
    pub average_sum: Vec<f64>,
    pub average_weight: f64,
}

impl TuneState {
    /// A run before its first pair.
    pub fn start(theta: Vec<f64>) -> TuneState {
        TuneState {
            seq: 0,
            average_sum: vec![0.0; theta.len()],
            theta,
            average_weight: 0.0,
        }
    }

    /// θ averaged; the last θ while nothing is.
    pub fn average(&self) -> Vec<f64> {
        average_of(&self.average_sum, self.average_weight, &self.theta)
    }
}

/// The weighted sum of θ divided by the sum of its weights; `theta` while the weights
/// sum to nothing.
pub fn average_of(sum: &[f64], weight: f64, theta: &[f64]) -> Vec<f64> {
    if weight == 0.0 {
        return theta.to_vec();
    }
    sum.iter().map(|s| s / weight).collect()
}

/// A rule set and how its run averages θ (`None`: the result is the last θ).
pub struct Tune {
    pub rules: Box<dyn Rules>,
    pub average: Option<AveragePlan>,
}

impl Tune {
    pub fn new(rules: Box<dyn Rules>, average: Option<AveragePlan>) -> Tune {
        Tune { rules, average }
    }

    /// θ+ and θ− for iteration k at the state's θ.
    pub fn perturb(&self, k: u64, state: &TuneState, draws: &mut dyn Draws) -> Pair {
        self.rules.perturb(k, &state.theta, draws)
    }

    /// Applies the result of iteration k: θ moved by the rule set, the pair counted,
    /// θ added to the average with its weight.
    pub fn apply(&mut self, state: &mut TuneState, k: u64, pair: &Pair, wins_minus_losses: i32) {
        self.rules
            .update(k, &mut state.theta, pair, wins_minus_losses);
        state.seq += 1;
        let weight = self.average.map_or(0.0, |plan| plan.weight(state.seq));
        if weight > 0.0 {
            for (sum, t) in state.average_sum.iter_mut().zip(&state.theta) {
                *sum += weight * t;
            }
            state.average_weight += weight;
        }
    }

    /// What the run hands back: θ averaged when it averages, else the last θ.
    pub fn result(&self, state: &TuneState) -> Vec<f64> {
        match self.average {
            Some(_) => state.average(),
            None => state.theta.clone(),
        }
    }
}
