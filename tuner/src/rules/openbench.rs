//! OpenBench's SPSA (`OpenBench/spsa_utils.py`, `Client/worker.py`, `utils.py`).
//!
//! An iteration is a batch of `pairs_per` game pairs at the same θ±; N counts batches
//! and A = 0.1·N. At batch k, an integer parameter's c_k is floored at 0.5, one draw U
//! per parameter rounds both sides, ⌊θ ± c_k·flip + U⌋, and each side is then clipped.
//! The update sums W − L over the batch: θ ← clip(θ + R_k·c_k·(W − L)·flip) with
//! R_k = a_k/c_k² and the floored c_k. The run's result is the last θ.
//! `tuner spsa --rules openbench` plays these rules in real games ([`RUN`]), one pair
//! per iteration.

use super::{Baseline, Draws, Pair, Param, Rules, RunRuleSet};
use crate::rules::schedule::{Decay, DecayingGains, Hyper};

/// `tuner spsa --rules openbench`: OpenBench's rules as a baseline, one pair per
/// iteration (a tune's `pairs_per` of 1 on OpenBench; `tuner simulate --pairs-per`
/// plays its batches). A = 0.1·N, as OpenBench's default `spsa_A_ratio` gives it.
pub const RUN: RunRuleSet = RunRuleSet {
    name: "openbench",
    about: "OpenBench's, as a baseline, one pair per iteration: an integer c floored at 0.5, one rounding draw per parameter for both sides, each side then clipped, the last θ written; Stockfish's TUNE defaults where a file leaves out c_end or r_end",
    build: |params, hyper| Box::new(OpenBench::with_hyper(params, hyper, 1)),
    draws: |rng| Box::new(rng),
    baseline: Some(Baseline {
        title: "OpenBench's rules",
        mechanics: "an integer c floored at 0.5, one rounding draw per parameter for both sides, each side then clipped, steps divided by the floored c_k",
        big_a: |pairs| 0.1 * pairs as f64,
    }),
};

/// OpenBench's default batch.
pub const DEFAULT_PAIRS_PER: u64 = 8;

/// The smallest perturbation OpenBench sends for an integer parameter.
const MIN_INTEGER_C: f64 = 0.5;

pub struct OpenBench {
    params: Vec<Param>,
    pairs_per: u64,
    hyper: Hyper,
    gains: Vec<DecayingGains>,
}

impl OpenBench {
    /// OpenBench's defaults for `pairs` planned pairs in batches of `pairs_per`.
    pub fn new(params: Vec<Param>, pairs: u64, pairs_per: u64) -> OpenBench {
        let iterations = (pairs / pairs_per.max(1)).max(1);
        let hyper = Hyper::new(iterations, None, Hyper::ALPHA, Hyper::GAMMA);
        OpenBench::with_hyper(params, hyper, pairs_per)
    }

    /// OpenBench's rules on the schedule `hyper` (N counting batches).
    pub fn with_hyper(params: Vec<Param>, hyper: Hyper, pairs_per: u64) -> OpenBench {
        let gains = params
            .iter()
            .map(|p| DecayingGains::new(p.c_end, p.r_end, &hyper))
            .collect();
        OpenBench {
            params,
            pairs_per: pairs_per.max(1),
            hyper,
            gains,
        }
    }

    fn c_k(&self, i: usize, decay: &Decay) -> f64 {
        decay.c_k(&self.gains[i]).max(MIN_INTEGER_C)
    }
}

impl Rules for OpenBench {
    fn iterations(&self) -> u64 {
        self.hyper.pairs
    }

    fn pairs_per_iteration(&self) -> u64 {
        self.pairs_per
    }

    /// Draws every flip first, then one U per parameter.
    fn perturb(&self, k: u64, theta: &[f64], draws: &mut dyn Draws) -> Pair {
        let flips: Vec<i8> = self.params.iter().map(|_| draws.flip()).collect();
        let decay = Decay::at(k, &self.hyper);
        let (mut plus, mut minus) = (Vec::new(), Vec::new());
        for (i, p) in self.params.iter().enumerate() {
            let d = self.c_k(i, &decay) * f64::from(flips[i]);
            let u = draws.unit();
            let round_and_clip = |v: f64| p.clamp((v + u).floor()) as i32;
            plus.push(round_and_clip(theta[i] + d));
            minus.push(round_and_clip(theta[i] - d));
        }
        Pair { flips, plus, minus }
    }

    fn update(&mut self, k: u64, theta: &mut [f64], pair: &Pair, wins_minus_losses: i32) {
        let decay = Decay::at(k, &self.hyper);
        for (i, t) in theta.iter_mut().enumerate() {
            let c_k = self.c_k(i, &decay);
            let r_k = decay.a_k(&self.gains[i]) / (c_k * c_k);
            let step = r_k * c_k * f64::from(wins_minus_losses) * f64::from(pair.flips[i]);
            *t = self.params[i].clamp(*t + step);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scripted::{Run, Script};
    use super::*;

    fn rules(start: f64) -> Run {
        // 80 pairs in batches of 8: N = 10 iterations, A = 1.
        let params = vec![Param::new(start, 0, 200, Some(0.3), Some(0.002))];
        Run::new(OpenBench::new(params.clone(), 80, 8), &params)
    }

    #[test]
    fn batches_count_as_iterations() {
        let r = rules(10.2).tune.rules;
        assert_eq!((r.iterations(), r.pairs_per_iteration()), (10, 8));
    }

    #[test]
    fn a_small_integer_c_is_floored_and_one_draw_rounds_both_sides() {
        // At k = N, c_k = c_end = 0.3, floored to 0.5.
        let mut r = rules(10.2);
        let pair = r.perturb(10, &mut Script::new(&[1], &[0.4]));
        // ⌊10.2 + 0.5 + 0.4⌋ = 11, ⌊10.2 − 0.5 + 0.4⌋ = 10.
        assert_eq!((pair.plus[0], pair.minus[0]), (11, 10));
        let pair2 = r.perturb(10, &mut Script::new(&[1], &[0.1]));
        // ⌊10.8⌋ = 10, ⌊9.8⌋ = 9: with one shared U the two sides are always 1 apart.
        assert_eq!((pair2.plus[0], pair2.minus[0]), (10, 9));
        // a_N = r_end·c_end² = 0.002 · 0.09 = 0.00018; R = a_N/0.5² = 0.00072;
        // a batch scoring W − L = +5 with flip 1: θ += 0.00072 · 0.5 · 5 = 0.0018.
        r.update(10, &pair, 5);
        assert!((r.theta()[0] - 10.2018).abs() < 1e-12, "{:?}", r.theta());
    }

    #[test]
    fn each_side_is_clipped_after_rounding() {
        let r = rules(0.2);
        let pair = r.perturb(10, &mut Script::new(&[-1], &[0.1]));
        // θ+ = ⌊0.2 − 0.5 + 0.1⌋ = −1 → clipped to 0; θ− = ⌊0.2 + 0.5 + 0.1⌋ = 0: both
        // sides play the same value.
        assert_eq!((pair.plus[0], pair.minus[0]), (0, 0));
    }

    #[test]
    fn the_first_batch_uses_the_full_gains() {
        // N = 10, A = 1, c_end = 0.3, r_end = 0.002:
        //   c_1 = 0.3 · 10^0.101 = 0.378548 < 0.5, so c_1 = 0.5
        //   a = 0.002 · 0.3² · 11^0.602 = 0.000762414; a_1 = a / 2^0.602 = 0.000502309
        //   step for W − L = 8, flip −1: a_1 / 0.5 · 8 · (−1) = −0.008037.
        let mut r = rules(100.0);
        let pair = r.perturb(1, &mut Script::new(&[-1], &[0.0]));
        assert_eq!((pair.plus[0], pair.minus[0]), (99, 100));
        r.update(1, &pair, 8);
        assert!(
            (r.theta()[0] - (100.0 - 0.008037)).abs() < 1e-6,
            "{:?}",
            r.theta()
        );
    }
}
