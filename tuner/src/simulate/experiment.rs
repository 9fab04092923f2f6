//! One simulated tune: a rule set plays game pairs on a landscape until its planned
//! budget is spent, and the Elo its result loses against the optimum is measured.

use std::collections::VecDeque;
use std::ops::Range;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use super::landscape::{Landscape, MAX, MIN};
use super::outcome::Outcome;
use crate::design;
use crate::design::Averaging;
use crate::rules::autoselect::AutoselectDesign;
use crate::rules::occam::DEFAULT_AVERAGE_FRACTION;
use crate::rules::schedule::Hyper;
use crate::rules::{
    AveragePlan, Fishtest, Occam, OccamDesign, OpenBench, Pair, Param, ProbePlan, Tune, TuneState,
};
use crate::stats::Tally;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleSet {
    /// fishtest: decaying gains, c_end and r_end per parameter, the last θ.
    Fishtest,
    /// fishtest's Autoselect: constant c = range/6 and the r that the budget buys.
    Autoselect,
    /// OpenBench: fishtest's gains in batches of --pairs-per pairs.
    Openbench,
    /// `tuner spsa` today.
    Occam,
    /// A candidate: `tuner spsa`'s mechanics with Autoselect's constant c and
    /// --r-scale times its r for the budget, the result averaged over the last
    /// --average-fraction.
    Constant,
    /// Occam's design: c a quarter of the range unless a probe of --probe-share of the
    /// pairs shows that it costs too much, r for 0.5 Elo of noise, constant gains, θ
    /// averaged with the weights of --average-power.
    Design,
}

/// A rule set with its settings.
#[derive(Clone, Debug)]
pub struct Tuner {
    pub rules: RuleSet,
    /// c as a multiple of the rule set's default: range/20 (Stockfish's `TUNE`) for
    /// fishtest, OpenBench and Occam, range/6 for Autoselect, the design's own c for
    /// the design.
    pub c_scale: f64,
    /// r_end of every parameter (Stockfish's `TUNE` default, 0.002, when absent).
    pub r_end: Option<f64>,
    /// OpenBench's batch.
    pub pairs_per: u64,
    /// The worth per parameter that Autoselect's design assumes.
    pub design_worth: f64,
    /// The design's r as a multiple of Autoselect's.
    pub r_scale: f64,
    /// Share of the run, at its end, that the design averages (and plays gain pairs in).
    pub average_fraction: f64,
    /// The design's weights: θ after pair k weighted by k^power (0: equal weights over
    /// the `average_fraction`).
    pub average_power: f64,
    /// The probe of `design`.
    pub probe: ProbePlan,
    /// How the pairs are handed out, as a server hands them to workers.
    pub handouts: Handouts,
}

/// How a server hands out pairs: `batch` pairs at one θ± per handout (an OpenBench
/// client whose runners share one perturbation, `SINGLE`, or a `spsa_pairs_per` above
/// 1), and `in_flight` handouts out at once, each drawn at θ as it stands then and
/// applied when it comes back, after the `in_flight − 1` drawn before it: θ± are
/// that many handouts stale. 1 and 1: one pair at a time, as `tuner spsa` on one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handouts {
    pub batch: u64,
    pub in_flight: u64,
}

impl Handouts {
    pub const SERIAL: Handouts = Handouts {
        batch: 1,
        in_flight: 1,
    };
}

impl Tuner {
    /// The parameters as the rule set is given them.
    fn params(&self, start: &[f64]) -> Vec<Param> {
        let c_end = self.c_scale * f64::from(MAX - MIN) / 20.0;
        start
            .iter()
            .map(|&s| Param::new(s, MIN, MAX, Some(c_end), self.r_end))
            .collect()
    }

    /// Autoselect's design for these parameters and `precision`.
    fn design_for(&self, start: &[f64], outcome: &Outcome, precision: f64) -> AutoselectDesign {
        AutoselectDesign {
            precision,
            game_variance: outcome.game_variance(),
            worth: vec![self.design_worth; start.len()],
            c_ratio: self.c_scale / 6.0,
            ..AutoselectDesign::reference(start.len())
        }
    }

    /// The games Autoselect plans for `precision`.
    /// Occam's design plans its own (for a perturbation that costs its target).
    pub fn planned_games(&self, start: &[f64], outcome: &Outcome, precision: f64) -> f64 {
        if self.rules == RuleSet::Design {
            let variance = outcome.game_variance();
            return design::games_for(precision, start.len(), variance, design::COST_TARGET);
        }
        self.design_for(start, outcome, precision)
            .games(&self.params(start))
    }

    /// Autoselect's design at a budget: the precision that `games` buys.
    pub fn design(&self, start: &[f64], games: u64, outcome: &Outcome) -> AutoselectDesign {
        let params = self.params(start);
        self.design_for(start, outcome, 0.5)
            .for_games(&params, games as f64)
    }

    /// The rule set and how its run averages θ, ready to play `games` games from
    /// `start`.
    pub fn build(&self, start: &[f64], games: u64, outcome: &Outcome) -> Tune {
        let pairs = (games / 2).max(1);
        let params = self.params(start);
        let averaged = |averaging| AveragePlan {
            averaging,
            skipped: 0,
            pairs,
        };
        match self.rules {
            RuleSet::Fishtest => Tune::new(Box::new(Fishtest::new(params, pairs)), None),
            RuleSet::Autoselect => {
                let design = self.design(start, games, outcome);
                Tune::new(Box::new(Fishtest::autoselect(params, pairs, &design)), None)
            }
            RuleSet::Openbench => Tune::new(
                Box::new(OpenBench::new(params, pairs, self.pairs_per)),
                None,
            ),
            RuleSet::Occam => Tune::new(
                Box::new(Occam::new(params, pairs)),
                Some(averaged(Averaging::last(DEFAULT_AVERAGE_FRACTION))),
            ),
            RuleSet::Design => {
                let rules = OccamDesign::new(params, pairs, self.probe, self.c_scale, self.r_scale);
                let plan = rules.average_plan(Averaging {
                    fraction: self.average_fraction,
                    power: self.average_power,
                });
                Tune::new(Box::new(rules), Some(plan))
            }
            RuleSet::Constant => {
                let design = self.design(start, games, outcome);
                let params = params
                    .into_iter()
                    .map(|p| Param {
                        c_end: design.c(&p),
                        r_end: self.r_scale * design.r(),
                        ..p
                    })
                    .collect();
                let constant = Hyper::new(pairs, Some(0.0), 0.0, 0.0);
                let last = Averaging::last(self.average_fraction);
                Tune::new(
                    Box::new(Occam::with(params, constant)),
                    Some(averaged(last)),
                )
            }
        }
    }

    /// The handouts as a report says them; nothing for one pair at a time.
    fn handouts_text(&self) -> String {
        match self.handouts {
            Handouts::SERIAL => String::new(),
            Handouts { batch, in_flight } => {
                format!("; {batch} pairs a handout, {in_flight} handouts out at once")
            }
        }
    }

    /// One line for reports.
    pub fn describe(&self) -> String {
        let gains = format!(
            "c_end = range/20 × {}, r_end {}",
            self.c_scale,
            self.r_end.unwrap_or(Param::DEFAULT_R_END)
        );
        match self.rules {
            RuleSet::Fishtest => format!("fishtest ({gains})"),
            RuleSet::Autoselect => format!(
                "autoselect (c = range/6 × {}, r for the budget, designed for {} Elo per parameter)",
                self.c_scale, self.design_worth
            ),
            RuleSet::Design => {
                let scaled = |name: &str, scale: f64| match scale {
                    1.0 => String::new(),
                    scale => format!("; {name} × {scale}"),
                };
                let scales = scaled("c", self.c_scale) + &scaled("r", self.r_scale);
                let average = match self.average_power {
                    0.0 => format!("θ of the last {} averaged", self.average_fraction),
                    p => format!("θ after pair k weighted by k^{p}"),
                };
                format!(
                    "design (probe: {} of the pairs in {} stages{scales}; {average}{})",
                    self.probe.share,
                    self.probe.stages,
                    self.handouts_text()
                )
            }
            RuleSet::Constant => format!(
                "constant (c = range/6 × {}, r = {} × Autoselect's for the budget, designed for {} Elo per parameter, average of the last {})",
                self.c_scale, self.r_scale, self.design_worth, self.average_fraction
            ),
            RuleSet::Openbench => {
                format!("openbench ({gains}, {} pairs per batch)", self.pairs_per)
            }
            RuleSet::Occam => format!("occam ({gains})"),
        }
    }
}

/// Everything that defines a simulated tune except its budget and seed.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub landscape: Landscape,
    pub outcome: Outcome,
    pub tuner: Tuner,
    pub start: Vec<f64>,
    pub seed: u64,
}

impl Experiment {
    /// Elo lost by the result of one tune of `games` games with seed number `seed`:
    /// the result is rounded to integers, as the engine would play it.
    pub fn final_loss(&self, games: u64, seed: usize) -> f64 {
        self.landscape.loss(&self.tune(games, seed, 0).0)
    }

    /// One tune of `games` games that also plays gain pairs as `tuner spsa` does: in the
    /// last `average_fraction` of the iterations, one pair of the result so far
    /// (rounded) against the start for every `every` iterations. Returns the true gain
    /// of the final result over the start and the estimate's Elo and 95% half-width
    /// (`None` without a pair).
    pub fn gain_check(&self, games: u64, seed: usize, every: u64) -> (f64, Option<(f64, f64)>) {
        let (result, tally) = self.tune(games, seed, every);
        let gain = self.landscape.loss(&self.start) - self.landscape.loss(&result);
        (gain, tally.summary().map(|s| (s.elo, s.elo_error)))
    }

    /// One tune: its result rounded to integers, and the pentanomial counts of its gain
    /// pairs (one per `gain_every` iterations of the averaging window; 0: none).
    fn tune(&self, games: u64, seed: usize, gain_every: u64) -> (Vec<f64>, Tally) {
        // The rule's draws and the games' luck come from separate streams: their seeds
        // differ in the lowest bit, the seed number sits above it. The gain pairs have
        // their own, so that they leave the tune as it is without them.
        let stream = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((seed as u64) << 1);
        let mut draws = SmallRng::seed_from_u64(stream);
        let mut luck = SmallRng::seed_from_u64(stream ^ 1);
        let mut gain_luck = SmallRng::seed_from_u64(stream ^ 0x6741_494E);
        let mut tune = self.tuner.build(&self.start, games, &self.outcome);
        let mut state = TuneState::start(self.start.clone());
        let pairs_per = tune.rules.pairs_per_iteration();
        let iterations = tune.rules.iterations();
        let window = Averaging::last(self.tuner.average_fraction).window_start(iterations);
        let start: Vec<i32> = self.start.iter().map(|v| v.round() as i32).collect();
        let mut tally = Tally::default();
        let mut play = |pair: &Pair| -> i32 {
            let elo = self.landscape.elo_difference(&pair.plus, &pair.minus);
            (0..pairs_per)
                .map(|_| i32::from(self.outcome.pair_half_points(elo, &mut luck)) - 2)
                .sum()
        };
        let Handouts { batch, in_flight } = self.tuner.handouts;
        let mut out: VecDeque<(u64, Pair)> = VecDeque::new();
        let mut applied = 0;
        for k in (1..=iterations).step_by(batch as usize) {
            out.push_back((k, tune.perturb(k, &state, &mut draws)));
            let last_handout = k + batch > iterations;
            while out.len() as u64 >= in_flight || (last_handout && !out.is_empty()) {
                let (first, pair) = out.pop_front().expect("a handout is out");
                for k in first..(first + batch).min(iterations + 1) {
                    let result = play(&pair);
                    tune.apply(&mut state, k, &pair, result);
                    applied = k;
                    self.gain_pair(
                        &tune,
                        &state,
                        k,
                        window,
                        gain_every,
                        &start,
                        &mut gain_luck,
                        &mut tally,
                    );
                }
            }
        }
        debug_assert_eq!(applied, iterations);
        let result = tune.result(&state).iter().map(|v| v.round()).collect();
        (result, tally)
    }

    /// After iteration k of the averaging window, every `gain_every`-th: one gain pair of
    /// the result so far against the start, counted in `tally`.
    #[allow(clippy::too_many_arguments)]
    fn gain_pair(
        &self,
        tune: &Tune,
        state: &TuneState,
        k: u64,
        window: u64,
        gain_every: u64,
        start: &[i32],
        gain_luck: &mut SmallRng,
        tally: &mut Tally,
    ) {
        if gain_every == 0 || k <= window || !(k - window).is_multiple_of(gain_every) {
            return;
        }
        let so_far: Vec<i32> = tune
            .result(state)
            .iter()
            .map(|v| v.round() as i32)
            .collect();
        let elo = self.landscape.elo_difference(&so_far, start);
        let half_points = self.outcome.pair_half_points(elo, gain_luck);
        tally.penta[usize::from(half_points)] += 1;
    }

    /// [`Experiment::final_loss`] for each seed number in `seeds`, in parallel.
    pub fn final_losses(&self, games: u64, seeds: Range<usize>) -> Vec<f64> {
        seeds
            .into_par_iter()
            .map(|seed| self.final_loss(games, seed))
            .collect()
    }
}
