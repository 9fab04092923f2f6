//! Occam's design (`design`) as a rule set: a probe, then constant gains.
//!
//! The first `share` of the pairs probe, in `stages` equal stages: they play the start
//! against the start moved by the designed perturbations (random signs, one rounding
//! draw), and after each stage every designed c shrinks if the games show that the
//! perturbation costs clearly more than [`COST_TARGET`](crate::design::COST_TARGET)
//! Elo a parameter. The probe's pairs also measure how much a pair's result varies,
//! which sets r. The pairs left run Occam's mechanics with the design's constant
//! gains, the result their θ averaged as [`design::AVERAGING`] weighs them (the run's
//! [`OccamDesign::average_plan`]).

use super::{AveragePlan, Draws, Occam, Pair, Param, Rules};
use crate::design::Averaging;
use crate::design::{self, ProbeStage, Request};
use crate::rules::schedule::Hyper;

/// The probe's share of the pairs and its number of stages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbePlan {
    pub share: f64,
    pub stages: u64,
}

impl ProbePlan {
    /// 3% of the budget in three stages: each stage can shrink c by what it measured,
    /// so a range ten times too wide (a perturbation costing a hundred times the
    /// target, where Elo is no longer quadratic) is corrected in steps. Such a cost
    /// shows in a few dozen pairs, while a cost a few times the target does not show
    /// within any share a run can spare (`docs/spsa.md`), so a larger probe buys little
    /// and costs its games: on 4 equal bowls at 130,000 games, 94.5% of 400 seeds end
    /// within 0.5 Elo with 3% against 92.2% with 6%.
    pub const DEFAULT: ProbePlan = ProbePlan {
        share: 0.03,
        stages: 3,
    };
}

pub struct OccamDesign {
    params: Vec<Param>,
    requests: Vec<Request>,
    pairs: u64,
    probe_pairs: u64,
    stage_pairs: u64,
    probe: ProbeStage,
    /// The finished stages.
    finished: Vec<ProbeStage>,
    /// A factor on the designed r (1 plays the design).
    r_scale: f64,
    /// The constant-gain run after the probe.
    tune: Option<Occam>,
}

impl OccamDesign {
    /// `params`' c_end/r_end are ignored: the design chooses both. `c_scale` and
    /// `r_scale` multiply the designed c (before the probe) and r: the simulator's
    /// `--c-scale` and `--r-scale`; 1 and 1 play the design.
    pub fn new(
        params: Vec<Param>,
        pairs: u64,
        probe: ProbePlan,
        c_scale: f64,
        r_scale: f64,
    ) -> OccamDesign {
        let requests = params
            .iter()
            .map(|p| Request {
                min: f64::from(p.min),
                max: f64::from(p.max),
                c_end: None,
                r_end: None,
            })
            .collect();
        let stages = probe.stages.max(1);
        let stage_pairs = (probe.share * pairs as f64 / stages as f64).floor() as u64;
        let probe_pairs = stage_pairs * stages;
        let mut rules = OccamDesign {
            params,
            requests,
            pairs,
            probe_pairs,
            stage_pairs,
            probe: ProbeStage::at(c_scale),
            finished: vec![],
            r_scale,
            tune: None,
        };
        if probe_pairs == 0 {
            rules.begin_tune(c_scale);
        }
        rules
    }

    /// How the run averages θ with `averaging`'s weights: over the pairs after the
    /// probe, which move nothing.
    pub fn average_plan(&self, averaging: Averaging) -> AveragePlan {
        AveragePlan {
            averaging,
            skipped: self.probe_pairs,
            pairs: (self.pairs - self.probe_pairs).max(1),
        }
    }

    /// The factor on the prior c that the probe chose, once the tune has begun.
    #[cfg(test)]
    fn c_scale(&self) -> Option<f64> {
        self.tune.as_ref().map(|_| self.probe.scale)
    }

    /// How far the pairs after the probe can reach ([`design::short_run_reach`]), by
    /// the variance the stages measured so far.
    fn reach(&self) -> f64 {
        let games = 2.0 * (self.pairs - self.probe_pairs).max(1) as f64;
        let variance = design::pooled_game_variance(&self.finished);
        design::short_run_reach(design::PRECISION, self.params.len(), variance, games)
    }

    fn begin_tune(&mut self, c_scale: f64) {
        let left = (self.pairs - self.probe_pairs).max(1);
        let variance = design::pooled_game_variance(&self.finished);
        let n = self.params.len();
        let r = design::designed_r(design::PRECISION, n, variance, 2.0 * left as f64);
        let gains = design::gains(&self.requests, c_scale, r);
        let params = self
            .params
            .iter()
            .zip(&gains)
            .map(|(p, g)| Param {
                c_end: g.c,
                r_end: self.r_scale * g.r,
                ..p.clone()
            })
            .collect();
        let constant = Hyper::new(left, Some(0.0), 0.0, 0.0);
        self.tune = Some(Occam::with(params, constant));
    }
}

impl Rules for OccamDesign {
    fn iterations(&self) -> u64 {
        self.pairs
    }

    fn perturb(&self, k: u64, theta: &[f64], draws: &mut dyn Draws) -> Pair {
        if let Some(tune) = &self.tune {
            return tune.perturb(k - self.probe_pairs, theta, draws);
        }
        // θ+ is the start moved by the probe's perturbation, θ− the start; one u rounds
        // both.
        let u = draws.unit();
        let mut pair = Pair {
            flips: vec![],
            plus: vec![],
            minus: vec![],
        };
        for (p, q) in self.params.iter().zip(&self.requests) {
            let flip = draws.flip();
            let shift = f64::from(flip) * self.probe.scale * q.prior_c();
            let (moved, start) = design::probe_values(p.start, shift, u, p.min, p.max);
            pair.flips.push(flip);
            pair.plus.push(moved);
            pair.minus.push(start);
        }
        pair
    }

    /// During the probe θ stays at the start; the pairs only measure.
    fn update(&mut self, k: u64, theta: &mut [f64], pair: &Pair, wins_minus_losses: i32) {
        if let Some(tune) = &mut self.tune {
            tune.update(k - self.probe_pairs, theta, pair, wins_minus_losses);
            return;
        }
        self.probe.record(wins_minus_losses);
        if self.probe.pairs == self.stage_pairs {
            let finished = std::mem::replace(&mut self.probe, ProbeStage::at(1.0));
            self.finished.push(finished);
            let last = self.finished.last().expect("just pushed");
            self.probe = ProbeStage::at(last.next_scale(self.params.len(), self.reach()));
            if k >= self.probe_pairs {
                self.begin_tune(self.probe.scale);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scripted::Script;
    use super::*;

    #[test]
    fn the_probe_plays_the_start_against_the_perturbation_then_shrinks_c() {
        let params = vec![Param::new(150.0, 0, 200, None, None); 2];
        let mut theta = vec![150.0; 2];
        let probe = ProbePlan {
            share: 0.2,
            stages: 2,
        };
        let mut rules = OccamDesign::new(params, 100, probe, 1.0, 1.0);
        // Prior c = 50; u = 0.5, flips +1, −1: 200.5 (clamped to 200) and 100.5.
        let pair = rules.perturb(1, &theta, &mut Script::new(&[1, -1], &[0.5]));
        assert_eq!(pair.plus, vec![200, 100]);
        assert_eq!(pair.minus, vec![150, 150]);
        // Two stages of ten pairs, the perturbed side losing every game: a cost above
        // the target, so c shrinks after each by the same ratio. The target is raised
        // by the reach of the 160 games left, a short run.
        for k in 1..=20 {
            assert!(rules.c_scale().is_none());
            rules.update(k, &mut theta, &pair, -2);
        }
        let scale = rules.c_scale().unwrap();
        let reach =
            design::short_run_reach(design::PRECISION, 2, design::PRIOR_GAME_VARIANCE, 160.0);
        assert!(reach > 100.0, "{reach}");
        let mut stage = ProbeStage::at(1.0);
        (0..10).for_each(|_| stage.record(-2));
        let (cost, error) = stage.cost();
        let ratio =
            (design::cost_target(2, reach) / (cost - design::PROBE_EVIDENCE * error)).sqrt();
        assert!(ratio < 0.9, "{ratio}");
        assert!((scale - ratio * ratio).abs() < 1e-9, "{scale} {ratio}");
        // The tune's pairs are centred on the start, c = 50 × the scale apart.
        let tuned = rules.perturb(21, &theta, &mut Script::new(&[1, 1], &[0.0]));
        let half = f64::from(tuned.plus[0] - tuned.minus[0]) / 2.0;
        assert!((half - 50.0 * scale).abs() <= 1.0, "{tuned:?} {scale}");
    }

    #[test]
    fn a_c_scale_moves_the_probe_and_the_tune_by_that_share_of_the_designed_c() {
        let params = vec![Param::new(100.0, 0, 200, None, None); 2];
        let theta = vec![100.0; 2];
        let probe = ProbePlan {
            share: 0.2,
            stages: 2,
        };
        // Prior c = 50, halved: the probe moves the start by 25.
        let rules = OccamDesign::new(params.clone(), 100, probe, 0.5, 1.0);
        let pair = rules.perturb(1, &theta, &mut Script::new(&[1, -1], &[0.0]));
        assert_eq!((pair.plus, pair.minus), (vec![125, 75], vec![100, 100]));
        // Without a probe the tune begins at once, its pairs 2 × 25 apart.
        let none = ProbePlan {
            share: 0.0,
            stages: 1,
        };
        let rules = OccamDesign::new(params, 100, none, 0.5, 1.0);
        let pair = rules.perturb(1, &theta, &mut Script::new(&[1, 1], &[0.0]));
        assert_eq!((pair.plus[0], pair.minus[0]), (125, 75));
    }
}
