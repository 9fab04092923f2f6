//! fishtest's SPSA: the server (`spsa_handler.py`, `spsa_workflow.py`) and the worker
//! (`games.py`), one game pair per iteration.
//!
//! For N planned pairs, A = ⌊0.1·N⌋, and at iteration k the server sends
//! θ ± c_k·flip, each side clipped to the bounds on its own; the worker rounds each
//! side with its own draw, ⌊v + U⌋. The update divides by the nominal c_k whatever
//! the rounding did: θ ← clip(θ + R_k·c_k·(W − L)·flip), R_k = a_k/c_k². The run's
//! result is θ after the last pair. `tuner spsa --rules fishtest` plays these rules in
//! real games ([`RUN`]).

use super::autoselect::AutoselectDesign;
use super::{Baseline, Draws, Pair, Param, Rules, RunRuleSet};
use crate::rules::schedule::{Decay, DecayingGains, Hyper};

/// `tuner spsa --rules fishtest`: fishtest's rules as a baseline.
pub const RUN: RunRuleSet = RunRuleSet {
    name: "fishtest",
    about: "fishtest's, as a baseline: each side clipped and rounded on its own, steps divided by the nominal c_k, the last θ written; Stockfish's TUNE defaults where a file leaves out c_end or r_end",
    build: |params, hyper| Box::new(Fishtest::with_hyper(params, hyper)),
    draws: |rng| Box::new(rng),
    baseline: Some(Baseline {
        title: "fishtest's rules",
        mechanics: "each side clipped and rounded on its own, steps divided by the nominal c_k",
        big_a: Fishtest::default_big_a,
    }),
};

pub struct Fishtest {
    params: Vec<Param>,
    hyper: Hyper,
    gains: Vec<DecayingGains>,
}

impl Fishtest {
    /// fishtest's defaults for `pairs` planned pairs: A = ⌊0.1·N⌋, α = 0.602,
    /// γ = 0.101, each parameter with its own `c_end` and `r_end`.
    pub fn new(params: Vec<Param>, pairs: u64) -> Fishtest {
        let big_a = Fishtest::default_big_a(pairs);
        let hyper = Hyper::new(pairs, Some(big_a), Hyper::ALPHA, Hyper::GAMMA);
        Fishtest::with_hyper(params, hyper)
    }

    /// fishtest's stability constant for `pairs` planned pairs: ⌊0.1·N⌋ (the server
    /// takes the integer part of its A ratio times the pairs).
    pub fn default_big_a(pairs: u64) -> f64 {
        (0.1 * pairs as f64).floor()
    }

    /// fishtest with Autoselect checked: A = α = γ = 0, so that c and r stay constant,
    /// at the values `design` gives (each parameter's own c, one r for all).
    pub fn autoselect(params: Vec<Param>, pairs: u64, design: &AutoselectDesign) -> Fishtest {
        let r = design.r();
        let params = params
            .into_iter()
            .map(|p| Param {
                c_end: design.c(&p),
                r_end: r,
                ..p
            })
            .collect();
        Fishtest::with_hyper(params, Hyper::new(pairs, Some(0.0), 0.0, 0.0))
    }

    pub fn with_hyper(params: Vec<Param>, hyper: Hyper) -> Fishtest {
        let gains = params
            .iter()
            .map(|p| DecayingGains::new(p.c_end, p.r_end, &hyper))
            .collect();
        Fishtest {
            params,
            hyper,
            gains,
        }
    }

    /// Parameter i at `theta` as the server sends it at the iteration of `decay`.
    fn sending(&self, theta: &[f64], i: usize, decay: &Decay) -> Sending {
        let p = &self.params[i];
        Sending {
            theta: theta[i],
            c_k: decay.c_k(&self.gains[i]),
            min: p.min,
            max: p.max,
        }
    }
}

/// One parameter as fishtest's server sends an iteration: θ, the nominal c_k and the
/// bounds. `tuner simulate`'s rule and `tuner spsa --rules fishtest`'s server both
/// build θ± and the step from it, with [`perturb`] and [`step`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sending {
    pub theta: f64,
    pub c_k: f64,
    pub min: i32,
    pub max: i32,
}

impl Sending {
    fn clamp(&self, v: f64) -> f64 {
        v.clamp(f64::from(self.min), f64::from(self.max))
    }
}

/// θ+ and θ− of `n` parameters, parameter i as `at(i)`: every flip first (the server),
/// then one U per parameter for θ+ and then one per parameter for θ− (the worker builds
/// the two command lines in turn). Each side is θ ± c_k·flip clipped to the bounds on
/// its own, then rounded with its own draw, ⌊v + U⌋.
pub(crate) fn perturb(n: usize, draws: &mut dyn Draws, at: impl Fn(usize) -> Sending) -> Pair {
    let flips: Vec<i8> = (0..n).map(|_| draws.flip()).collect();
    let mut side = |sign: f64| -> Vec<i32> {
        (0..n)
            .map(|i| {
                let s = at(i);
                let sent = s.clamp(s.theta + sign * s.c_k * f64::from(flips[i]));
                (sent + draws.unit()).floor() as i32
            })
            .collect()
    };
    let plus = side(1.0);
    let minus = side(-1.0);
    Pair { flips, plus, minus }
}

/// θ of one parameter after its iteration: clip(θ + (a_k/c_k)·(W − L)·flip), W − L
/// being θ+'s wins minus losses.
pub(crate) fn step(at: Sending, a_k: f64, flip: i8, wins_minus_losses: i32) -> f64 {
    // R_k·c_k = a_k/c_k: the nominal perturbation, not the one played.
    let step = a_k / at.c_k * f64::from(wins_minus_losses) * f64::from(flip);
    at.clamp(at.theta + step)
}

impl Rules for Fishtest {
    fn iterations(&self) -> u64 {
        self.hyper.pairs
    }

    /// [`perturb`] at θ.
    fn perturb(&self, k: u64, theta: &[f64], draws: &mut dyn Draws) -> Pair {
        let decay = Decay::at(k, &self.hyper);
        perturb(self.params.len(), draws, |i| self.sending(theta, i, &decay))
    }

    fn update(&mut self, k: u64, theta: &mut [f64], pair: &Pair, wins_minus_losses: i32) {
        let decay = Decay::at(k, &self.hyper);
        for i in 0..self.params.len() {
            let a_k = decay.a_k(&self.gains[i]);
            let sending = self.sending(theta, i, &decay);
            theta[i] = step(sending, a_k, pair.flips[i], wins_minus_losses);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scripted::{Run, Script};
    use super::*;

    fn param(start: f64) -> Param {
        Param::new(start, 0, 200, Some(10.0), Some(0.002))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn each_side_is_rounded_with_its_own_draw() {
        // At k = N the perturbation is c_end = 10 and a_k/c_k² = r_end = 0.002.
        let mut rules = Run::new(Fishtest::new(vec![param(100.3)], 1000), &[param(100.3)]);
        let mut draws = Script::new(&[1], &[0.8, 0.6]);
        let pair = rules.perturb(1000, &mut draws);
        assert!(draws.is_spent());
        // θ+ = ⌊100.3 + 10 + 0.8⌋ = ⌊111.1⌋ = 111; θ− = ⌊100.3 − 10 + 0.6⌋ = ⌊90.9⌋ = 90:
        // 21 apart although 2·c_k = 20.
        assert_eq!(
            pair,
            Pair {
                flips: vec![1],
                plus: vec![111],
                minus: vec![90]
            }
        );
        // One win: θ += R·c·(W − L)·flip = 0.002 · 10 · 1 · 1 = 0.02 (the nominal 10, not
        // the realised 10.5).
        rules.update(1000, &pair, 1);
        assert!(close(rules.theta()[0], 100.32), "{:?}", rules.theta());
    }

    #[test]
    fn each_side_is_clipped_on_its_own() {
        let mut rules = Run::new(Fishtest::new(vec![param(195.0)], 1000), &[param(195.0)]);
        let mut draws = Script::new(&[-1], &[0.5, 0.5]);
        let pair = rules.perturb(1000, &mut draws);
        // θ+ = clip(195 − 10) = 185 → ⌊185.5⌋ = 185; θ− = clip(195 + 10) = 200 → ⌊200.5⌋
        // = 200: θ− lies 5 from θ, θ+ lies 10.
        assert_eq!((pair.plus[0], pair.minus[0]), (185, 200));
        // Two losses of θ+ with flip −1: θ += 0.002 · 10 · (−2) · (−1) = 0.04.
        rules.update(1000, &pair, -2);
        assert!(close(rules.theta()[0], 195.04));
        // θ itself is clipped: 199.99 + 0.04 → 200.
        let mut rules = Run::new(Fishtest::new(vec![param(199.99)], 1000), &[param(199.99)]);
        rules.update(1000, &pair, -2);
        assert_eq!(rules.theta()[0], 200.0);
    }

    #[test]
    fn the_first_iteration_uses_the_full_gains() {
        // N = 1000, A = 100, c_end = 10, r_end = 0.002:
        //   c = 10 · 1000^0.101 = 20.090928; a = 0.002 · 10² · 1100^0.602 = 13.550284
        //   at k = 1: c_1 = c = 20.090928, a_1 = a / 101^0.602 = 0.842068
        //   step for W − L = 1, flip 1: a_1 / c_1 = 0.041913.
        let mut rules = Run::new(Fishtest::new(vec![param(100.0)], 1000), &[param(100.0)]);
        let mut draws = Script::new(&[1], &[0.0, 0.0]);
        let pair = rules.perturb(1, &mut draws);
        // θ+ = ⌊120.0909⌋ = 120, θ− = ⌊79.9091⌋ = 79.
        assert_eq!((pair.plus[0], pair.minus[0]), (120, 79));
        rules.update(1, &pair, 1);
        assert!(
            (rules.theta()[0] - 100.041913).abs() < 1e-6,
            "{:?}",
            rules.theta()
        );
    }

    #[test]
    fn flips_are_drawn_before_any_rounding() {
        let params = vec![param(50.0), param(150.0)];
        let rules = Run::new(Fishtest::new(params.clone(), 1000), &params);
        // Flips +1, −1; then U for θ+ of both, then U for θ− of both.
        let mut draws = Script::new(&[1, -1], &[0.0, 0.0, 0.99, 0.99]);
        let pair = rules.perturb(1000, &mut draws);
        assert!(draws.is_spent());
        // θ+ = (⌊60.0⌋, ⌊140.0⌋); θ− = (⌊40.99⌋, ⌊160.99⌋).
        assert_eq!(pair.plus, vec![60, 140]);
        assert_eq!(pair.minus, vec![40, 160]);
    }

    #[test]
    fn autoselect_keeps_c_and_r_constant() {
        // One parameter on [0, 200]: c = 200/6 = 33.3333; r for one parameter, precision
        // 0.5 Elo, draw ratio 0.61: 8 · 0.5 / (347.4356 · 3.841459 · 0.39) = 0.0076847.
        // A step for W − L = 1 is r·c = 0.256155 at any k.
        let design = AutoselectDesign::reference(1);
        let mut rules = Run::new(
            Fishtest::autoselect(vec![param(150.0)], 50_000, &design),
            &[param(150.0)],
        );
        for k in [1, 25_000, 50_000] {
            let mut draws = Script::new(&[1], &[0.0, 0.0]);
            let pair = rules.perturb(k, &mut draws);
            // θ ± 33.333: ⌊183.33⌋ = 183, ⌊116.67⌋ = 116 (θ has moved by less than 1).
            assert_eq!((pair.plus[0], pair.minus[0]), (183, 116), "k = {k}");
        }
        let mut draws = Script::new(&[1], &[0.0, 0.0]);
        rules.step(7, &mut draws, &mut |_| 1);
        rules.step(40_000, &mut draws_with_flip(-1), &mut |_| -1);
        // +0.256155 twice (W − L = 1 with flip 1, then −1 with flip −1).
        assert!(
            (rules.theta()[0] - 150.512311).abs() < 1e-5,
            "{:?}",
            rules.theta()
        );
    }

    fn draws_with_flip(flip: i8) -> Script {
        Script::new(&[flip], &[0.0, 0.0])
    }
}
