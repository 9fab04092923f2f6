//! The update rules of SPSA tuners, as pure step functions that `tuner simulate` drives:
//!
//! - [`Fishtest`]: fishtest's server and worker (independent rounding per side, the
//!   nominal c as divisor, clipping per side, the raw last θ as result);
//! - [`Fishtest::autoselect`]: the same rules with fishtest's "Autoselect" constants
//!   (constant c and r from [`autoselect::Design`]);
//! - [`OpenBench`]: batches of `pairs_per` pairs, the 0.5 floor on c, one shared
//!   rounding draw per parameter;
//! - [`Occam`]: `tuner spsa` as `schedule` and `server` run it (the realised
//!   difference as divisor, one rounding draw for both sides, the inward shift at a
//!   bound, the averaged result);
//! - [`Designed`]: Occam's design (`design`): a probe of what a perturbation
//!   costs, then constant gains chosen from it and the budget, every θ averaged with
//!   weights growing as the square of its pair's index.
//!
//! A rule owns θ. Each iteration it proposes the integer values θ+ and θ− for every
//! parameter ([`Rules::perturb`]), someone plays [`Rules::pairs_per_iteration`] game
//! pairs between them, and the rule moves θ by θ+'s wins minus losses
//! ([`Rules::update`]). Everything random comes from a [`Draws`], so a test can script
//! the draws and check a step by hand.

pub mod autoselect;
mod designed;
pub(crate) mod fishtest;
pub(crate) mod occam;
pub mod openbench;
pub mod schedule;

pub use designed::{Designed, ProbePlan};
pub use fishtest::Fishtest;
pub use occam::Occam;
pub use openbench::OpenBench;

use schedule::{Gains, Hyper};

/// Where a rule's randomness comes from: ±1 flips and uniform numbers in [0, 1).
pub trait Draws {
    fn flip(&mut self) -> i8;
    fn unit(&mut self) -> f64;
}

impl<R: rand::Rng> Draws for R {
    fn flip(&mut self) -> i8 {
        if self.random::<bool>() { 1 } else { -1 }
    }
    fn unit(&mut self) -> f64 {
        self.random()
    }
}

/// The divisors of the gains at iteration k: c_k = c/k^γ and a_k = a/(A + k)^α for
/// every parameter, with the powers taken once per iteration rather than once per
/// parameter (the same arithmetic as [`Gains::c_k`] and [`Gains::a_k`]).
#[derive(Clone, Copy, Debug)]
struct Decay {
    c: f64,
    a: f64,
}

impl Decay {
    fn at(k: u64, hyper: &Hyper) -> Decay {
        let k = k.max(1) as f64;
        Decay {
            c: k.powf(hyper.gamma),
            a: (hyper.big_a + k).powf(hyper.alpha),
        }
    }

    fn c_k(&self, gains: &Gains) -> f64 {
        gains.c / self.c
    }

    fn a_k(&self, gains: &Gains) -> f64 {
        gains.a / self.a
    }
}

/// One tuned integer parameter (a UCI spin option) as every rule set sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub start: f64,
    pub min: i32,
    pub max: i32,
    /// The perturbation at the end of the run (fishtest's and OpenBench's `c_end`).
    pub c_end: f64,
    /// The learning rate a_k/c_k² at the end of the run (`r_end`).
    pub r_end: f64,
}

impl Param {
    /// Stockfish's `TUNE` default for a missing `r_end`.
    pub const DEFAULT_R_END: f64 = 0.002;

    /// A parameter with `c_end`/`r_end` where given, else Stockfish's `TUNE` defaults:
    /// c_end = (max − min)/20 and r_end = 0.002.
    pub fn new(start: f64, min: i32, max: i32, c_end: Option<f64>, r_end: Option<f64>) -> Param {
        Param {
            start,
            min,
            max,
            c_end: c_end.unwrap_or(f64::from(max - min) / 20.0),
            r_end: r_end.unwrap_or(Param::DEFAULT_R_END),
        }
    }

    fn clamp(&self, v: f64) -> f64 {
        v.clamp(f64::from(self.min), f64::from(self.max))
    }
}

/// The values played in one iteration: θ+ for the first player, θ− for the second, and
/// the flip (the sign of θ+ − θ− as planned) of every parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub flips: Vec<i8>,
    pub plus: Vec<i32>,
    pub minus: Vec<i32>,
}

/// A rule set: how θ± are drawn, how a result moves θ, and what the run returns.
pub trait Rules {
    /// Iterations the run is planned for.
    fn iterations(&self) -> u64;

    /// Game pairs played at the same θ± in one iteration.
    fn pairs_per_iteration(&self) -> u64 {
        1
    }

    /// θ+ and θ− for iteration k (1-based).
    fn perturb(&self, k: u64, draws: &mut dyn Draws) -> Pair;

    /// Moves θ by the result of iteration k: θ+'s wins minus losses over the
    /// iteration's games.
    fn update(&mut self, k: u64, pair: &Pair, wins_minus_losses: i32);

    /// θ now.
    fn theta(&self) -> &[f64];

    /// What the run hands back once every iteration is done.
    fn result(&self) -> Vec<f64> {
        self.theta().to_vec()
    }

    /// One whole iteration: perturb, let `play` score θ+ against θ− (wins minus losses
    /// over [`Rules::pairs_per_iteration`] pairs), update.
    fn step(&mut self, k: u64, draws: &mut dyn Draws, play: &mut dyn FnMut(&Pair) -> i32) {
        let pair = self.perturb(k, draws);
        let result = play(&pair);
        self.update(k, &pair, result);
    }
}

#[cfg(test)]
pub(crate) mod scripted {
    //! Draws read from a script, so that a test can work a step out by hand.
    use super::Draws;
    use std::collections::VecDeque;

    #[derive(Default)]
    pub struct Script {
        flips: VecDeque<i8>,
        units: VecDeque<f64>,
    }

    impl Script {
        pub fn new(flips: &[i8], units: &[f64]) -> Script {
            Script {
                flips: flips.iter().copied().collect(),
                units: units.iter().copied().collect(),
            }
        }

        /// Every scripted draw was used (the rule drew what the test says it does).
        pub fn is_spent(&self) -> bool {
            self.flips.is_empty() && self.units.is_empty()
        }
    }

    impl Draws for Script {
        fn flip(&mut self) -> i8 {
            self.flips.pop_front().expect("a scripted flip")
        }
        fn unit(&mut self) -> f64 {
            self.units.pop_front().expect("a scripted uniform")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_gains_fall_back_to_stockfish_tune_defaults() {
        let p = Param::new(50.0, 0, 200, None, None);
        assert_eq!((p.c_end, p.r_end), (10.0, 0.002));
        let p = Param::new(50.0, 0, 200, Some(3.0), Some(0.01));
        assert_eq!((p.c_end, p.r_end), (3.0, 0.01));
    }
}
