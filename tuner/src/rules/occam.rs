//! Occam's own rules, as `tuner spsa` plays them (its default `--rules occam`) and
//! `tuner simulate --rules occam` models them.
//!
//! Gains as fishtest's, with A = 0.1·N by default. At iteration k one draw u rounds
//! both sides of every parameter, ⌊θ ± c_k·flip + u⌋; a pair that rounds to one value
//! is widened to m ± 1, and a pair past a bound is shifted inwards whole. The update
//! divides by the realised half-difference h: θ ← clip(θ + a_k/h·(W − L)·flip). The
//! result is θ averaged: over the last quarter of the run by default, or as the run's
//! [`AveragePlan`](super::AveragePlan) says. With constant gains (α = γ = A = 0) these
//! are the rules the design plays.

use super::{Baseline, CoinDraws, Draws, Pair, Param, Rules, RunRuleSet};
use crate::rules::schedule::{Decay, DecayingGains, Hyper, Realised, realise, step};

/// `tuner spsa --average-fraction`'s default.
pub const DEFAULT_AVERAGE_FRACTION: f64 = 0.25;

/// `tuner spsa --rules occam`: the default.
pub const RUN: RunRuleSet = RunRuleSet {
    name: "occam",
    about: "Occam's: one rounding draw for both sides, the pair shifted inwards at a bound, steps divided by the realised difference, the average written; the design where a file leaves out c_end or r_end",
    build: |params, hyper| Box::new(Occam::with(params, hyper)),
    draws: |rng| Box::new(CoinDraws(rng)),
    baseline: None::<Baseline>,
};

pub struct Occam {
    params: Vec<Param>,
    hyper: Hyper,
    gains: Vec<DecayingGains>,
}

impl Occam {
    /// `tuner spsa`'s default schedule for `pairs` planned pairs.
    pub fn new(params: Vec<Param>, pairs: u64) -> Occam {
        Occam::with(params, Hyper::new(pairs, None, Hyper::ALPHA, Hyper::GAMMA))
    }

    pub fn with(params: Vec<Param>, hyper: Hyper) -> Occam {
        let gains = params
            .iter()
            .map(|p| DecayingGains::new(p.c_end, p.r_end, &hyper))
            .collect();
        Occam {
            params,
            hyper,
            gains,
        }
    }
}

impl Rules for Occam {
    fn iterations(&self) -> u64 {
        self.hyper.pairs
    }

    /// Draws u first, then one flip per parameter.
    fn perturb(&self, k: u64, theta: &[f64], draws: &mut dyn Draws) -> Pair {
        let u = draws.unit();
        let decay = Decay::at(k, &self.hyper);
        let mut pair = Pair {
            flips: Vec::with_capacity(self.params.len()),
            plus: Vec::with_capacity(self.params.len()),
            minus: Vec::with_capacity(self.params.len()),
        };
        for (i, p) in self.params.iter().enumerate() {
            let flip = draws.flip();
            let c_k = decay.c_k(&self.gains[i]);
            let r = realise(theta[i], c_k, flip, u, p.min, p.max);
            pair.flips.push(flip);
            pair.plus.push(r.plus);
            pair.minus.push(r.minus);
        }
        pair
    }

    fn update(&mut self, k: u64, theta: &mut [f64], pair: &Pair, wins_minus_losses: i32) {
        let decay = Decay::at(k, &self.hyper);
        for (i, p) in self.params.iter().enumerate() {
            let a_k = decay.a_k(&self.gains[i]);
            let realised = Realised {
                plus: pair.plus[i],
                minus: pair.minus[i],
            };
            let moved = theta[i] + step(a_k, realised, pair.flips[i], wins_minus_losses);
            theta[i] = p.clamp(moved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scripted::{Run, Script};
    use super::*;
    use crate::design::Averaging;
    use crate::rules::AveragePlan;

    fn param(start: f64, c_end: f64) -> Param {
        Param::new(start, 0, 200, Some(c_end), Some(0.002))
    }

    #[test]
    fn the_realised_difference_is_the_divisor() {
        // At k = N: c_k = c_end = 2.3, a_k = r_end·c_end² = 0.002 · 5.29 = 0.01058.
        let params = vec![param(100.0, 2.3)];
        let mut rules = Run::new(Occam::new(params.clone(), 1000), &params);
        let pair = rules.perturb(1000, &mut Script::new(&[1], &[0.5]));
        // One u for both sides: ⌊100 + 2.3 + 0.5⌋ = 102, ⌊100 − 2.3 + 0.5⌋ = 98; h = 2.
        assert_eq!((pair.plus[0], pair.minus[0]), (102, 98));
        // W − L = 2: θ += a_k/h · 2 = 0.01058 / 2 · 2 = 0.01058 (fishtest's rules would
        // add 0.01058 / 2.3 · 2 = 0.0092).
        rules.update(1000, &pair, 2);
        assert!(
            (rules.theta()[0] - 100.01058).abs() < 1e-12,
            "{:?}",
            rules.theta()
        );
        // Another u: ⌊103.1⌋ = 103, ⌊98.5⌋ = 98; h = 2.5.
        let pair = rules.perturb(1000, &mut Script::new(&[1], &[0.79]));
        assert_eq!((pair.plus[0], pair.minus[0]), (103, 98));
    }

    #[test]
    fn one_draw_rounds_every_parameter_and_bounds_shift_the_pair() {
        let params = vec![param(100.0, 2.3), param(199.6, 3.0)];
        let rules = Run::new(Occam::new(params.clone(), 1000), &params);
        // u = 0.2 first, then the flips 1 and 1.
        let mut draws = Script::new(&[1, 1], &[0.2]);
        let pair = rules.perturb(1000, &mut draws);
        assert!(draws.is_spent());
        // First: ⌊102.5⌋ = 102, ⌊97.9⌋ = 97. Second: ⌊202.8⌋ = 202, ⌊196.8⌋ = 196,
        // shifted inwards by 2 as a whole: 200 and 194.
        assert_eq!(pair.plus, vec![102, 200]);
        assert_eq!(pair.minus, vec![97, 194]);
    }

    #[test]
    fn the_result_is_the_average_over_the_last_quarter() {
        // 8 pairs: the window holds θ after pairs 7 and 8.
        let params = vec![param(100.0, 4.0)];
        let quarter = AveragePlan {
            averaging: Averaging::last(DEFAULT_AVERAGE_FRACTION),
            skipped: 0,
            pairs: 8,
        };
        let mut rules = Run::averaged(Occam::new(params.clone(), 8), &params, Some(quarter));
        let mut after = vec![];
        for k in 1..=8 {
            let mut draws = Script::new(&[1], &[0.5]);
            rules.step(k, &mut draws, &mut |_| 2);
            after.push(rules.theta()[0]);
        }
        let expected = (after[6] + after[7]) / 2.0;
        assert!((rules.result()[0] - expected).abs() < 1e-12);
        assert!(after[7] > after[6] && after[6] > after[5]);
    }

    #[test]
    fn a_power_weights_every_theta_by_its_pairs_index() {
        // Power 2 over 3 pairs: θ after pairs 1, 2, 3 weighted 1, 4, 9.
        let squares = Averaging {
            fraction: 0.5,
            power: 2.0,
        };
        let hyper = Hyper::new(3, Some(0.0), 0.0, 0.0);
        let params = vec![param(100.0, 4.0)];
        let plan = AveragePlan {
            averaging: squares,
            skipped: 0,
            pairs: 3,
        };
        let mut rules = Run::averaged(Occam::with(params.clone(), hyper), &params, Some(plan));
        let mut after = vec![];
        for k in 1..=3 {
            let mut draws = Script::new(&[1], &[0.5]);
            rules.step(k, &mut draws, &mut |_| 2);
            after.push(rules.theta()[0]);
        }
        let expected = (after[0] + 4.0 * after[1] + 9.0 * after[2]) / 14.0;
        assert!((rules.result()[0] - expected).abs() < 1e-12);
        assert!(after[2] > after[1] && after[1] > after[0]);
    }
}
