//! `tuner spsa` as it runs today, built from the same pieces as its server
//! (`schedule::{Gains, Hyper, realise, step}`).
//!
//! Gains as fishtest's, with A = 0.1·N. At iteration k one draw u rounds both sides of
//! every parameter, ⌊θ ± c_k·flip + u⌋; a pair that rounds to one value is widened to
//! m ± 1, and a pair past a bound is shifted inwards whole. The update divides by the
//! realised half-difference h: θ ← clip(θ + a_k/h·(W − L)·flip). The result is θ
//! averaged: over the last quarter of the run by default, or as an [`Averaging`] says.

use super::{Decay, Draws, Pair, Param, Rules};
use crate::design::Averaging;
use crate::rules::schedule::{Gains, Hyper, Realised, realise, step};

/// `tuner spsa --average-fraction`'s default.
pub const DEFAULT_AVERAGE_FRACTION: f64 = 0.25;

pub struct Occam {
    params: Vec<Param>,
    hyper: Hyper,
    gains: Vec<Gains>,
    theta: Vec<f64>,
    averaging: Averaging,
    /// Pairs applied so far (the server's `seq`).
    seq: u64,
    /// The weighted sum of θ and the sum of the weights.
    average_sum: Vec<f64>,
    average_weight: f64,
}

impl Occam {
    /// `tuner spsa`'s defaults for `pairs` planned pairs.
    pub fn new(params: Vec<Param>, pairs: u64) -> Occam {
        let hyper = Hyper::new(pairs, None, Hyper::ALPHA, Hyper::GAMMA);
        Occam::with(params, hyper, Averaging::last(DEFAULT_AVERAGE_FRACTION))
    }

    pub fn with(params: Vec<Param>, hyper: Hyper, averaging: Averaging) -> Occam {
        let gains = params
            .iter()
            .map(|p| Gains::new(p.c_end, p.r_end, &hyper))
            .collect();
        let theta: Vec<f64> = params.iter().map(|p| p.start).collect();
        Occam {
            average_sum: vec![0.0; params.len()],
            params,
            hyper,
            gains,
            theta,
            averaging,
            seq: 0,
            average_weight: 0.0,
        }
    }
}

impl Rules for Occam {
    fn iterations(&self) -> u64 {
        self.hyper.pairs
    }

    /// Draws u first, then one flip per parameter (the server's order).
    fn perturb(&self, k: u64, draws: &mut dyn Draws) -> Pair {
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
            let r = realise(self.theta[i], c_k, flip, u, p.min, p.max);
            pair.flips.push(flip);
            pair.plus.push(r.plus);
            pair.minus.push(r.minus);
        }
        pair
    }

    fn update(&mut self, k: u64, pair: &Pair, wins_minus_losses: i32) {
        let decay = Decay::at(k, &self.hyper);
        for (i, p) in self.params.iter().enumerate() {
            let a_k = decay.a_k(&self.gains[i]);
            let realised = Realised {
                plus: pair.plus[i],
                minus: pair.minus[i],
            };
            let moved = self.theta[i] + step(a_k, realised, pair.flips[i], wins_minus_losses);
            self.theta[i] = p.clamp(moved);
        }
        self.seq += 1;
        let weight = self.averaging.weight(self.seq, self.hyper.pairs);
        if weight > 0.0 {
            for (sum, t) in self.average_sum.iter_mut().zip(&self.theta) {
                *sum += weight * t;
            }
            self.average_weight += weight;
        }
    }

    fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// θ averaged; the last θ while nothing is.
    fn result(&self) -> Vec<f64> {
        if self.average_weight == 0.0 {
            return self.theta.clone();
        }
        let total = self.average_weight;
        self.average_sum.iter().map(|s| s / total).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::scripted::Script;
    use super::*;

    fn param(start: f64, c_end: f64) -> Param {
        Param::new(start, 0, 200, Some(c_end), Some(0.002))
    }

    #[test]
    fn the_realised_difference_is_the_divisor() {
        // At k = N: c_k = c_end = 2.3, a_k = r_end·c_end² = 0.002 · 5.29 = 0.01058.
        let mut rules = Occam::new(vec![param(100.0, 2.3)], 1000);
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
        let rules = Occam::new(vec![param(100.0, 2.3), param(199.6, 3.0)], 1000);
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
        let mut rules = Occam::new(vec![param(100.0, 4.0)], 8);
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
        let mut rules = Occam::with(vec![param(100.0, 4.0)], hyper, squares);
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
