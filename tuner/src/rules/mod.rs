//! The update rules of SPSA tuners: how θ+ and θ− are drawn and how a pair's result
//! moves θ. `tuner spsa`'s server and `tuner simulate` drive the same rules through
//! the same loop ([`Tune`]); the only differences are where the games come from and
//! which rule sets each offers.
//!
//! - [`Fishtest`]: fishtest's server and worker (independent rounding per side, the
//!   nominal c as divisor, clipping per side, the raw last θ as result);
//! - [`Fishtest::autoselect`]: the same rules with fishtest's "Autoselect" constants
//!   (constant c and r from [`autoselect::AutoselectDesign`]);
//! - [`OpenBench`]: batches of `pairs_per` pairs, the 0.5 floor on c, one shared
//!   rounding draw per parameter;
//! - [`Occam`]: `tuner spsa`'s own (the realised difference as divisor, one rounding
//!   draw for both sides, the inward shift at a bound, the averaged result);
//! - [`OccamDesign`]: Occam's design (`design`) as the simulator plays it: a probe of
//!   what a perturbation costs, then Occam's rules with constant gains chosen from it
//!   and the budget. (A real run plays its probe before the server starts, in
//!   `tuned::probe`, and then Occam's rules with the gains it found.)
//!
//! A rule set holds the gains, θ lives in the loop's [`TuneState`]. Each iteration the
//! rule proposes the integer values θ+ and θ− for every parameter ([`Rules::perturb`]),
//! someone plays [`Rules::pairs_per_iteration`] game pairs between them, and the rule
//! moves θ by θ+'s wins minus losses ([`Rules::update`]); the loop then averages θ as
//! its [`AveragePlan`] says. Everything random comes from a [`Draws`], so a test can
//! script the draws and check a step by hand.
//!
//! [`RUN_RULE_SETS`] names the rule sets a real run can play (`tuner spsa --rules`),
//! each with what the command needs to know of it; adding one is its file and a line
//! there.
//!
//! Layer 3: uses the design's maths (`design`) and the base (`stats`).

pub mod autoselect;
pub(crate) mod fishtest;
pub(crate) mod occam;
mod occam_design;
pub mod openbench;
pub mod schedule;
mod tune;

pub use fishtest::Fishtest;
pub use occam::Occam;
pub use occam_design::{OccamDesign, ProbePlan};
pub use openbench::OpenBench;
pub use tune::{AveragePlan, Tune, TuneState, average_of};

use rand::rngs::StdRng;
use rand::{Rng, RngCore};
use rand_distr::{Bernoulli, Distribution};
use schedule::Hyper;

/// Where a rule's randomness comes from: ±1 flips and uniform numbers in [0, 1).
pub trait Draws {
    fn flip(&mut self) -> i8;
    fn unit(&mut self) -> f64;
}

impl<R: Rng> Draws for R {
    fn flip(&mut self) -> i8 {
        if self.random::<bool>() { 1 } else { -1 }
    }
    fn unit(&mut self) -> f64 {
        self.random()
    }
}

/// Draws whose flips are fair Bernoulli samples (a 64-bit word each) rather than the
/// generator's bits: the stream Occam's rules draw from in real runs, so that the
/// pairs of every journal they wrote stay reproducible.
pub struct CoinDraws<R>(pub R);

impl<R: RngCore> Draws for CoinDraws<R> {
    fn flip(&mut self) -> i8 {
        let coin = Bernoulli::new(0.5).expect("p = 0.5");
        if coin.sample(&mut self.0) { 1 } else { -1 }
    }
    fn unit(&mut self) -> f64 {
        self.0.random()
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

/// A rule set: how θ± are drawn and how a result moves θ.
pub trait Rules: Send {
    /// Iterations the run is planned for.
    fn iterations(&self) -> u64;

    /// Game pairs played at the same θ± in one iteration.
    fn pairs_per_iteration(&self) -> u64 {
        1
    }

    /// θ+ and θ− for iteration k (1-based) at `theta`.
    fn perturb(&self, k: u64, theta: &[f64], draws: &mut dyn Draws) -> Pair;

    /// Moves `theta` by the result of iteration k: θ+'s wins minus losses over the
    /// iteration's games.
    fn update(&mut self, k: u64, theta: &mut [f64], pair: &Pair, wins_minus_losses: i32);
}

/// A rule set `tuner spsa --rules` plays in real games, and what the command needs to
/// know of it.
pub struct RunRuleSet {
    /// Its `--rules` name, also written in the journal's header.
    pub name: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// The rule set for a run's parameters and schedule.
    pub build: fn(Vec<Param>, Hyper) -> Box<dyn Rules>,
    /// The draws of one iteration, from that iteration's own stream.
    pub draws: fn(StdRng) -> Box<dyn Draws>,
    /// `None` for Occam's own rules, which play the design where a file leaves out
    /// `c_end` or `r_end` and write the average. Otherwise another tuner's rules, run
    /// as a baseline to compare with.
    pub baseline: Option<Baseline>,
}

/// A baseline's rules: decaying gains from the files' `c_end`/`r_end` (Stockfish's
/// `TUNE` defaults where a file leaves them out), never the design, the last θ written.
pub struct Baseline {
    /// Its name in the plan and the reports ("fishtest's rules").
    pub title: &'static str,
    /// What sets its θ± and steps apart, as the plan says it.
    pub mechanics: &'static str,
    /// Its stability constant A for `pairs` planned pairs (when --spsa-a is not given).
    pub big_a: fn(u64) -> f64,
}

/// The rule sets a real run can play: the first is the default.
pub const RUN_RULE_SETS: &[&RunRuleSet] = &[&occam::RUN, &fishtest::RUN, &openbench::RUN];

/// The rule set of a run (`tuner spsa --rules`), named in its journal's header.
#[derive(Clone, Copy)]
pub struct RunRules(&'static RunRuleSet);

impl RunRules {
    /// Occam's own rules.
    pub const OCCAM: RunRules = RunRules(RUN_RULE_SETS[0]);

    /// The rule set called `name`.
    pub fn named(name: &str) -> Option<RunRules> {
        RUN_RULE_SETS
            .iter()
            .find(|r| r.name == name)
            .map(|&r| RunRules(r))
    }

    /// `--rules`' parser: the names of [`RUN_RULE_SETS`], with their help.
    pub fn parser() -> impl clap::builder::TypedValueParser<Value = RunRules> {
        use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
        let names = RUN_RULE_SETS
            .iter()
            .map(|r| PossibleValue::new(r.name).help(r.about));
        PossibleValuesParser::new(names)
            .map(|name: String| RunRules::named(&name).expect("a listed name"))
    }

    pub fn set(self) -> &'static RunRuleSet {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Another tuner's rules, run as a baseline; `None` for Occam's.
    pub fn baseline(self) -> Option<&'static Baseline> {
        self.0.baseline.as_ref()
    }

    pub fn is_occam(&self) -> bool {
        self.baseline().is_none()
    }
}

impl Default for RunRules {
    fn default() -> RunRules {
        RunRules::OCCAM
    }
}

impl PartialEq for RunRules {
    fn eq(&self, other: &RunRules) -> bool {
        self.name() == other.name()
    }
}

impl Eq for RunRules {}

impl std::fmt::Debug for RunRules {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "RunRules({})", self.name())
    }
}

impl std::fmt::Display for RunRules {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for RunRules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for RunRules {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RunRules, D::Error> {
        let name = String::deserialize(d)?;
        RunRules::named(&name).ok_or_else(|| {
            let known: Vec<&str> = RUN_RULE_SETS.iter().map(|r| r.name).collect();
            serde::de::Error::custom(format!(
                "unknown rules '{name}' (known: {})",
                known.join(", ")
            ))
        })
    }
}

#[cfg(test)]
pub(crate) mod scripted {
    //! Draws read from a script, so that a test can work a step out by hand, and a rule
    //! set in the update loop as a test drives it.
    use super::{AveragePlan, Draws, Pair, Param, Rules, Tune, TuneState};
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

    /// A rule set in the update loop from its parameters' start, as a test drives it.
    pub struct Run {
        pub tune: Tune,
        pub state: TuneState,
    }

    impl Run {
        /// `rules` from the start of `params`; the result is the last θ.
        pub fn new(rules: impl Rules + 'static, params: &[Param]) -> Run {
            Run::averaged(rules, params, None)
        }

        /// `rules` from the start of `params`, θ averaged as `average` says.
        pub fn averaged(
            rules: impl Rules + 'static,
            params: &[Param],
            average: Option<AveragePlan>,
        ) -> Run {
            let start = params.iter().map(|p| p.start).collect();
            Run {
                tune: Tune::new(Box::new(rules), average),
                state: TuneState::start(start),
            }
        }

        pub fn perturb(&self, k: u64, draws: &mut dyn Draws) -> Pair {
            self.tune.perturb(k, &self.state, draws)
        }

        pub fn update(&mut self, k: u64, pair: &Pair, wins_minus_losses: i32) {
            self.tune.apply(&mut self.state, k, pair, wins_minus_losses);
        }

        pub fn step(&mut self, k: u64, draws: &mut dyn Draws, play: &mut dyn FnMut(&Pair) -> i32) {
            let pair = self.perturb(k, draws);
            let result = play(&pair);
            self.update(k, &pair, result);
        }

        pub fn theta(&self) -> &[f64] {
            &self.state.theta
        }

        pub fn result(&self) -> Vec<f64> {
            self.tune.result(&self.state)
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
