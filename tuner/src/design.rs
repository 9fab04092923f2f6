//! Occam's SPSA design: the c and r of every parameter from what a perturbation costs,
//! the number of parameters and the budget, instead of hand-set `c_end`/`r_end`.
//!
//! The model is the one behind fishtest's Autoselect: near its optimum, parameter j
//! loses E_j·(d/h_j)² Elo at a distance d (h_j half its range). Call
//! cost_j = E_j·(c_j/h_j)² the Elo a perturbation of c_j costs. With a constant gain
//! a = r·c², the start's offset shrinks by e per C/(4·r·cost_j) games, and the noise
//! left around the optimum does not depend on c; averaging θ then shrinks that noise
//! as 1/c². So:
//!
//! - **c** is as large as the landscape allows: the change that costs
//!   [`COST_TARGET`] Elo. Larger c is faster on quadratic bowls but biased where the
//!   landscape is not quadratic (a cliff beyond the optimum); the target is where the
//!   simulator's bowls and cliffs (`tuner simulate --landscape asymmetric`) balance.
//! - **r** leaves a noise ball around the optimum of [`PRECISION`] Elo (95%, all
//!   parameters together): r = 8·precision/(C·χ²₀.₉₅(n)·σ²) with C = 800/ln 10,
//!   Autoselect's formula. A longer run keeps it, averages longer and recovers
//!   directions flatter than the model assumes (where an r that shrinks with the
//!   budget never catches up). A run too short for the precision (under a third of
//!   the games below) plays instead the r under which the start's offset would
//!   shrink by e over its games ([`r_for_budget`]): with the precision's r such a run
//!   barely moves its values.
//! - **the games it needs**: with that r the start's offset shrinks by e per
//!   C/(4·r·cost) games; the plan is three of those, 3·C²·χ²·σ²/(32·precision·cost).
//! - the gains are **constant** and the result is θ **averaged over the whole run, the
//!   θ after pair k weighted by k²** ([`AVERAGING`]): the last half carries seven
//!   eighths of the weight. The average shrinks the noise ball, so r may leave a
//!   noise ball [`AVERAGED_R`] times the precision's before averaging.
//!
//! What a perturbation costs is not known before playing. Where the file gives a
//! `c_end`, it is used as it is. Elsewhere the prior trusts the range as fishtest's
//! Autoselect does: its edge is taken to cost about 2 Elo, so that a quarter of the
//! range costs [`COST_TARGET`]. Ranges are often far wider than that; a probe
//! ([`ProbeStage`]) plays the start moved by the designed perturbations against the start,
//! and shrinks every designed c by one factor while the games show that it costs more
//! than the target. A run too short for its precision can only end as far from the
//! optimum as its games reach ([`short_run_reach`] times the precision), and lets the
//! perturbation cost that much, all parameters together, where it is more than the
//! target: a large c is what makes a short run fast, and its bias matters only against
//! the precision the run can reach ([`cost_target`]).
//!
//! Layer 2, the design's maths: uses only the base (`stats`). The update rules
//! (`rules`), the probe (`tuned`) and the commands build on it.

use crate::stats::{NELO_SCALE as ELO_PER_SCORE, chi_squared_quantile};

/// How a run turns its θ into its result: an average over its pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Averaging {
    /// The run's last share, its averaging window: where gain pairs play, and under a
    /// `power` of 0 the θ averaged.
    pub fraction: f64,
    /// 0: θ over the window, equally weighted. p > 0: θ after every pair of the run,
    /// the one after pair k weighted by k^p, so that later θ, nearer the optimum, count
    /// more without a window's sharp edge (polynomial-decay averaging).
    pub power: f64,
}

impl Averaging {
    /// θ of the run's last `fraction`, equally weighted.
    pub const fn last(fraction: f64) -> Averaging {
        Averaging {
            fraction,
            power: 0.0,
        }
    }

    /// The pairs before the averaging window of a run of `pairs` planned pairs, its
    /// last `fraction`: θ is averaged from the pair after this.
    pub fn window_start(&self, pairs: u64) -> u64 {
        ((1.0 - self.fraction) * pairs as f64).floor() as u64
    }

    /// The weight of θ after pair `seq` (from 1) in a run of `pairs` planned pairs.
    pub fn weight(&self, seq: u64, pairs: u64) -> f64 {
        if self.power > 0.0 {
            (seq as f64).powf(self.power)
        } else if seq > self.window_start(pairs) {
            1.0
        } else {
            0.0
        }
    }
}

/// Elo a perturbation of c should cost, per parameter.
pub const COST_TARGET: f64 = 0.5;
/// The precision (Elo, 95%, all parameters together) the noise of a run may cost.
pub const PRECISION: f64 = 0.5;
/// Variance of one game's W − L at equal strength before any game is measured: a draw
/// ratio of 0.61, fishtest's reference.
pub const PRIOR_GAME_VARIANCE: f64 = 0.39;
/// How a designed run averages: every θ, the one after pair k weighted by k², and
/// gain pairs in its last half.
///
/// In the simulator (4 parameters, 1,000 seeds on the same streams, a budget a little
/// below the games needed; share within 0.5 Elo) against θ equally weighted over the
/// last half: bowls at 118,000 games 90.5% against 89.8%, quartic at 74,000 91.3%
/// against 90.4%, unequal worths at 116,000 94.7% against 94.0%, asymmetric at 218,000
/// 93.2% against 92.9%, the correlated valley at 508,000 91.5% against 89.3%. Equal
/// weights over the last 30–80% or a window chosen by the run (MSER) did worse.
pub const AVERAGING: Averaging = Averaging {
    fraction: 0.5,
    power: 2.0,
};
/// The designed r over Autoselect's r for the precision ([`r_within`]), which leaves a
/// noise ball of the precision in θ itself: the average shrinks it. With the
/// [`AVERAGING`] above and 1 / 1.1 / 1.2 / 1.3 times the r (same runs): bowls 90.5 /
/// 92.2 / 92.6 / 92.8%, quartic 91.3 / 92.8 / 93.4 / 94.3%, unequal 94.7 / 94.2 / 93.8
/// / 93.3%, asymmetric 93.2 / 92.8 / 92.6 / 92.1%, correlated 91.5 / 93.9 / 96.0 /
/// 97.3%. 1.2 is the largest at which no landscape does worse than the equally weighted
/// half at 1 (unequal 94.0%, asymmetric 92.9%) by more than 0.3 points.
pub const AVERAGED_R: f64 = 1.2;
/// Standard errors by which a probe stage's cost must exceed its target before c
/// shrinks. With two (a 95% bound), stages on ranges whose perturbation costs just the
/// target shrank c by chance in about 7% of runs and slowed those runs: on 4 equal
/// bowls at 130,000 games, 92.2% of 400 seeds end within 0.5 Elo with three against
/// 89.5% with two, and steep ranges (worth 50 Elo at the edge) are shrunk as before.
pub const PROBE_EVIDENCE: f64 = 3.0;
/// c as a share of the range when neither the file nor a probe says better.
pub const PRIOR_RANGE_FRACTION: f64 = 1.0 / 4.0;
/// Offsets shrink by e^LIFETIMES over the budget.
const LIFETIMES: f64 = 3.0;
/// The least share of a lifetime (the games in which the start's offset shrinks by e
/// when every c costs [`COST_TARGET`]) that a run's games span, whatever its precision.
pub const SHORT_RUN_LIFETIMES: f64 = 1.0;
/// The largest r a short run plays (a pair moves θ by at most a 25th of c): the
/// largest measured in real games. Runs of fewer than about 8,700 games play it.
pub const SHORT_RUN_R_MAX: f64 = 0.02;

/// One parameter as the design sees it; `c_end`/`r_end` are the file's, if given.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub min: f64,
    pub max: f64,
    pub c_end: Option<f64>,
    pub r_end: Option<f64>,
}

impl Request {
    /// The prior c: the file's `c_end`, else a quarter of the range.
    pub fn prior_c(&self) -> f64 {
        self.c_end
            .unwrap_or((self.max - self.min) * PRIOR_RANGE_FRACTION)
    }
}

/// The r whose noise ball around the optimum of `n` parameters is `precision` Elo
/// (95%): 8·precision/(C·χ²₀.₉₅(n)·σ²).
pub fn r_within(precision: f64, n: usize, game_variance: f64) -> f64 {
    let chi2 = chi_squared_quantile(0.95, n.max(1));
    8.0 * precision / (ELO_PER_SCORE * chi2 * game_variance)
}

/// The designed r of a run long enough for `precision`: [`AVERAGED_R`] × [`r_within`].
pub fn precision_r(precision: f64, n: usize, game_variance: f64) -> f64 {
    AVERAGED_R * r_within(precision, n, game_variance)
}

/// The least r of a run of `games` tuning games: the one under which the start's
/// offset shrinks by e^[`SHORT_RUN_LIFETIMES`] over them, SHORT_RUN_LIFETIMES·C/(4·
/// COST_TARGET·games), at most [`SHORT_RUN_R_MAX`]; 0 for an unbounded run.
///
/// In real games (the tuning benchmark's 16 detuned parameters, seed 1, 2,820 tuning
/// games, against fishtest's best of two grid points at 12,000): the precision's r,
/// 0.00063, −79.0 ± 4.7 Elo head-to-head; 0.0064, +6.6 ± 7.1; 0.02, +29.3 ± 7.4. In the
/// simulator (16 bowls worth 50 Elo, 40 Elo lost at the start, measured pair
/// outcomes, the probe's target of long runs) the mean loss left after 3,000 / 12,000 /
/// 48,000 games is 22.7 / 21.9 / 22.3 Elo with a third of a lifetime and 22.8 / 11.8 /
/// 8.3 with one.
pub fn r_for_budget(games: f64) -> f64 {
    lifetime_r(games).min(SHORT_RUN_R_MAX)
}

/// [`r_for_budget`] without its cap.
fn lifetime_r(games: f64) -> f64 {
    if !games.is_finite() {
        return 0.0;
    }
    SHORT_RUN_LIFETIMES * ELO_PER_SCORE / (4.0 * COST_TARGET * games.max(1.0))
}

/// How many times coarser than `precision` a run of `games` tuning games can end, at
/// least 1: the short run's r (uncapped) over Autoselect's for the precision
/// ([`r_within`], not the designed [`precision_r`]: measured against that, the target
/// of short runs fell by 1.2 and their probes shrank c more, which cost quartic shapes
/// at 12,000 and 48,000 games, 16 parameters worth 50, 0.44 → 0.64 and 3.9 → 5.2 Elo
/// left). The probe lets the perturbation cost that many times the precision, all
/// parameters together, where that is more than its target ([`cost_target`]).
///
/// When the target was this factor times the long run's (n times 0.5 Elo), in the
/// simulator (measured pair outcomes, 200 seeds, mean loss left), where ranges
/// are steep (each parameter worth 50 Elo at its edge) and the target would shrink c:
/// 16 bowls from 40 Elo lost, 22.8 → 4.3 at 3,000 games and 11.9 → 1.5 at 12,000;
/// quartic 29.9 → 0.3 at 3,000; asymmetric 28.0 → 24.8 at 3,000 and 12.5 → 4.1 at
/// 48,000; 4 bowls from 20 Elo lost, 4.2 → 0.7 at 5,000. Where the prior c already
/// costs about its target (worth 2 Elo) the runs are the same within 0.04 Elo.
/// [`cost_target`] says why the factor no longer multiplies n.
pub fn short_run_reach(precision: f64, n: usize, game_variance: f64, games: f64) -> f64 {
    (lifetime_r(games) / r_within(precision, n, game_variance)).max(1.0)
}

/// The designed r of `n` parameters in a run of `games` tuning games: the
/// precision's, or the short run's where that is larger.
pub fn designed_r(precision: f64, n: usize, game_variance: f64, games: f64) -> f64 {
    precision_r(precision, n, game_variance).max(r_for_budget(games))
}

/// Whether a run of `games` tuning games is too short for `precision`, and so plays
/// the short run's r ([`designed_r`]).
pub fn is_short_run(precision: f64, n: usize, game_variance: f64, games: f64) -> bool {
    r_for_budget(games) > precision_r(precision, n, game_variance)
}

/// The games the design needs to end within `precision` Elo (95%) when every c costs
/// `cost` Elo: three lifetimes of its r ([`precision_r`]),
/// 3·C²·χ²₀.₉₅(n)·σ²/(32·[`AVERAGED_R`]·precision·cost).
pub fn games_for(precision: f64, n: usize, game_variance: f64, cost: f64) -> f64 {
    LIFETIMES * ELO_PER_SCORE / (4.0 * cost * precision_r(precision, n, game_variance))
}

/// `x` to four significant digits: a designed c or r as it is shown and exported.
pub fn rounded(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.3e}").parse().unwrap_or(x)
}

/// The gains of one parameter: constant c and r.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DesignedGains {
    pub c: f64,
    pub r: f64,
    /// c came from the design (not the file's `c_end`).
    pub designed_c: bool,
    /// r came from the design (not the file's `r_end`).
    pub designed_r: bool,
}

/// The gains of every parameter: the file's values where given, the design's elsewhere,
/// every designed c the prior times `c_scale` (a probe's answer; 1 without one) and
/// every designed r `r` (a run's [`designed_r`]).
pub fn gains(requests: &[Request], c_scale: f64, r: f64) -> Vec<DesignedGains> {
    requests
        .iter()
        .map(|q| DesignedGains {
            c: q.c_end.unwrap_or(q.prior_c() * c_scale),
            r: q.r_end.unwrap_or(r),
            designed_c: q.c_end.is_none(),
            designed_r: q.r_end.is_none(),
        })
        .collect()
}

/// One parameter's values in a probe pair: the start moved by `shift`, and the start,
/// both rounded by the same uniform draw `u` and kept within [min, max].
pub fn probe_values(start: f64, shift: f64, u: f64, min: i32, max: i32) -> (i32, i32) {
    let round = |v: f64| (v + u).floor().clamp(f64::from(min), f64::from(max)) as i32;
    (round(start + shift), round(start))
}

/// The Elo that a perturbation of `n` designed parameters may cost, all together: the
/// target of each, or in a run that can only end `reach` times its precision from the
/// optimum ([`short_run_reach`]), that distance where it is more.
///
/// The reach already grows with n (it is measured against Autoselect's r, which
/// shrinks as 1/χ²(n)), so it is not multiplied by n again. Multiplied, it let 28
/// parameters in 3,000 games cost about 1,100 Elo, which no probe can measure: on the
/// tuning benchmark's held-out pilot (14 search parameters and 14 evaluation weights
/// detuned by 66 Elo, ranges up to 40 times the detune's moves; 2026-11-28, seeds
/// 101–102) the probe measured 324 ± 45 and 255 ± 79 Elo, kept c at a quarter of each
/// range, and the tunes ended 139.8 ± 21.6 and 103.3 ± 20.2 Elo below the detuned
/// start. With this target the probe shrank c to 0.40 and 0.29 of that, and the same
/// tunes won back +84.7 ± 18.8 and +46.8 ± 18.6 (with half an Elo a parameter alone,
/// +50.0 ± 18.0 and +50.4 ± 17.8). The simulator's quadratic landscapes
/// do not show that failure: on steep ones (worth 50 at the edge) they prefer the
/// larger c (16 bowls from 40 Elo lost, 3,000 games: 3.8 Elo left with the product,
/// 7.5 with this target; quartic 0.25 and 10.2; the asymmetric cliff 24.6 and 13.7),
/// and where each parameter is worth 2 Elo they are the same (docs/SIMULATOR.md).
pub fn cost_target(n: usize, reach: f64) -> f64 {
    (COST_TARGET * n as f64).max(PRECISION * reach)
}

/// Fewer pairs than this, all stages together, measure no variance.
pub const MIN_VARIANCE_PAIRS: u64 = 30;
/// A pair's W − L varies by at least this much in any real match: a probe whose pairs
/// all ended alike has measured too few of them, not a noiseless engine (which would
/// make r unbounded).
const MIN_PAIR_VARIANCE: f64 = 0.1;

/// The variance of one game's W − L that finished probe stages measured: their pairs
/// pooled, each about its own stage's mean (the stages play different c); at least
/// [`MIN_VARIANCE_PAIRS`] pairs in all, else [`PRIOR_GAME_VARIANCE`].
pub fn pooled_game_variance(stages: &[ProbeStage]) -> f64 {
    let pairs: u64 = stages.iter().map(|s| s.pairs).sum();
    if pairs < MIN_VARIANCE_PAIRS {
        return PRIOR_GAME_VARIANCE;
    }
    let spread: f64 = stages.iter().map(|s| s.pair_spread()).sum();
    (spread / pairs as f64).max(MIN_PAIR_VARIANCE) / 2.0
}

/// A probe stage: pairs in which one side plays the start and the other the start
/// moved by the designed perturbations times `scale` (random signs). Near the optimum of
/// a quadratic landscape the mean of f(θ + s·c·Δ) − f(θ) over the signs is
/// −s²·Σ cost_j, whatever the gradient, so the stage measures what the perturbation
/// costs, all parameters together.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeStage {
    /// The perturbation played, as a multiple of the prior c.
    pub scale: f64,
    /// Pairs played, the perturbed side's summed W − L and summed (W − L)².
    pub pairs: u64,
    pub wins_minus_losses: i64,
    pub squares: i64,
}

impl ProbeStage {
    pub fn at(scale: f64) -> ProbeStage {
        ProbeStage {
            scale,
            pairs: 0,
            wins_minus_losses: 0,
            squares: 0,
        }
    }

    pub fn record(&mut self, wins_minus_losses: i32) {
        self.pairs += 1;
        self.wins_minus_losses += i64::from(wins_minus_losses);
        self.squares += i64::from(wins_minus_losses).pow(2);
    }

    /// The measured Elo cost of the perturbation (all parameters) and its standard
    /// error, from the pairs' W − L (C/2 Elo per unit of mean W − L per pair) and their
    /// sample variance.
    pub fn cost(&self) -> (f64, f64) {
        let (mean, variance) = self.pair_mean_and_variance();
        let n = self.pairs.max(1) as f64;
        let variance = variance.max(MIN_PAIR_VARIANCE);
        let per_unit = ELO_PER_SCORE / 2.0;
        (-mean * per_unit, per_unit * (variance / n).sqrt())
    }

    /// The mean and the sample variance of the pairs' W − L.
    fn pair_mean_and_variance(&self) -> (f64, f64) {
        let n = self.pairs.max(1) as f64;
        let mean = self.wins_minus_losses as f64 / n;
        (mean, self.squares as f64 / n - mean * mean)
    }

    /// The sum of the pairs' squared deviations from the stage's mean W − L.
    fn pair_spread(&self) -> f64 {
        let (_, variance) = self.pair_mean_and_variance();
        variance * self.pairs as f64
    }

    /// The scale for the next stage: smaller when the cost less [`PROBE_EVIDENCE`]
    /// standard errors exceeds the target for `n` parameters, by the square root of
    /// the ratio (the quadratic model); the same scale otherwise. A probe that cannot
    /// tell the cost from the target keeps the prior.
    ///
    /// `reach` ([`short_run_reach`], at least 1) raises the target of a short run.
    pub fn next_scale(&self, n: usize, reach: f64) -> f64 {
        let (cost, error) = self.cost();
        let lower = cost - PROBE_EVIDENCE * error;
        let target = cost_target(n, reach);
        if lower > target {
            self.scale * (target / lower).sqrt()
        } else {
            self.scale
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_and_the_games_follow_autoselects_formulas() {
        // Autoselect's r for 4 parameters at 0.5 Elo: 0.0031114; its plan at its cost
        // of 2/9 Elo (worth 2 Elo at the edge, c a sixth of the range): 376,868 games.
        // The design plays AVERAGED_R times that r, so its plan is shorter by as much.
        assert!((r_within(0.5, 4, 0.39) - 0.0031114).abs() < 1e-6);
        let autoselect_plan = AVERAGED_R * games_for(0.5, 4, 0.39, 2.0 / 9.0);
        assert!(
            (autoselect_plan - 376_868.0).abs() < 2.0,
            "{autoselect_plan}"
        );
        // With r the start's offset shrinks by e per C/(4·r·cost) games: the plan
        // holds three such lifetimes, whatever n.
        for n in [1, 4, 16, 77] {
            let r = precision_r(0.5, n, 0.39);
            let lifetime = ELO_PER_SCORE / (4.0 * r * 0.5);
            let games = games_for(0.5, n, 0.39, 0.5);
            assert!((games / lifetime - 3.0).abs() < 1e-9, "n = {n}");
        }
        // More parameters: a smaller r, so that their noise adds up to the same.
        assert!(r_within(PRECISION, 77, 0.39) < r_within(PRECISION, 4, 0.39) / 8.0);
        // Noisier games: a smaller r for the same noise ball.
        assert!((r_within(PRECISION, 4, 0.78) - r_within(PRECISION, 4, 0.39) / 2.0).abs() < 1e-15);
    }

    #[test]
    fn a_run_too_short_for_the_precision_plays_the_short_runs_r() {
        // 20,000 games: r = 347.4355/(4·0.5·20000) = 0.0086859.
        let short = r_for_budget(20_000.0);
        assert!((short - 0.0086859).abs() < 1e-6, "{short}");
        // Under it the start's offset shrinks by e over the run.
        let lifetime = ELO_PER_SCORE / (4.0 * short * COST_TARGET);
        assert!((20_000.0 / lifetime - SHORT_RUN_LIFETIMES).abs() < 1e-9);
        let q = Request {
            min: 0.0,
            max: 400.0,
            c_end: None,
            r_end: None,
        };
        let r_of = |games: f64| designed_r(PRECISION, 16, 0.69, games);
        assert_eq!(r_of(20_000.0), short);
        // The precision's r where it is larger: a long run, an unbounded one, and from
        // a third of the games the precision needs (one lifetime of the three the plan
        // holds) on.
        let precise = precision_r(PRECISION, 16, 0.69);
        assert_eq!(r_of(f64::INFINITY), precise);
        let needed = games_for(PRECISION, 16, 0.69, COST_TARGET);
        assert_eq!(r_of(needed), precise);
        assert!((r_for_budget(needed / 3.0) - precise).abs() < 1e-12);
        assert!(r_of(needed / 3.1) > precise);
        // A very short run: the largest r measured, a 25th of c per pair.
        assert_eq!(r_for_budget(2820.0), SHORT_RUN_R_MAX);
        assert!(r_for_budget(8700.0) < SHORT_RUN_R_MAX);
        assert_eq!(r_for_budget(8600.0), SHORT_RUN_R_MAX);
        // A file's r_end still wins.
        let given = Request {
            r_end: Some(0.001),
            ..q
        };
        assert_eq!(gains(&[given], 1.0, r_of(2820.0))[0].r, 0.001);
    }

    #[test]
    fn rounded_keeps_four_significant_digits() {
        assert_eq!(rounded(0.130_288_34), 0.1303);
        assert_eq!(rounded(36.25), 36.25);
        assert_eq!(rounded(123_456.0), 123_500.0);
        assert_eq!(rounded(0.0), 0.0);
    }

    #[test]
    fn given_values_override_the_design() {
        let q = |c_end, r_end| Request {
            min: 0.0,
            max: 200.0,
            c_end,
            r_end,
        };
        let r = designed_r(PRECISION, 3, PRIOR_GAME_VARIANCE, f64::INFINITY);
        let g = gains(
            &[q(None, None), q(Some(3.0), None), q(Some(3.0), Some(0.01))],
            2.0,
            r,
        );
        assert_eq!(
            (g[0].c, g[0].designed_c, g[0].designed_r),
            (100.0, true, true)
        );
        assert_eq!(
            (g[1].c, g[1].designed_c, g[1].designed_r),
            (3.0, false, true)
        );
        assert_eq!((g[2].c, g[2].r), (3.0, 0.01));
        assert_eq!((g[0].r, g[1].r), (r, r));
    }

    #[test]
    fn short_stages_pool_their_pairs_to_measure_the_variance() {
        // Stages of 20 pairs: W − L alternating −2 and 0 in the first (mean −1, pair
        // variance 1), +2 and 0 in the second (mean +1, variance 1).
        let stage = |w: i32| {
            let mut probe = ProbeStage::at(1.0);
            (0..20).for_each(|i| probe.record(if i % 2 == 0 { w } else { 0 }));
            probe
        };
        let (first, second) = (stage(-2), stage(2));
        // 20 pairs measure nothing yet: fishtest's reference.
        assert_eq!(
            pooled_game_variance(std::slice::from_ref(&first)),
            PRIOR_GAME_VARIANCE
        );
        // 40 pairs do, each about its own stage's mean: a game's variance is half a
        // pair's (not the 2.0 of the pairs pooled about their common mean, 0).
        let pooled = pooled_game_variance(&[first, second]);
        assert!((pooled - 0.5).abs() < 1e-12, "{pooled}");
        // Pairs that all ended alike measure no noise: the floor, not an unbounded r.
        let mut alike = ProbeStage::at(1.0);
        (0..40).for_each(|_| alike.record(0));
        assert_eq!(pooled_game_variance(&[alike]), MIN_PAIR_VARIANCE / 2.0);
    }

    #[test]
    fn a_probe_shrinks_c_only_when_the_cost_is_clearly_above_the_target() {
        // 4 parameters, target 2 Elo in all. The perturbed side scores −0.046 per pair
        // (8 Elo) in 100,000 pairs, varying by 1: c halves (less the 3σ margin).
        let mut probe = ProbeStage::at(1.0);
        for i in 0..100_000 {
            probe.record(if i % 1000 < 523 { -1 } else { 1 });
        }
        let (cost, error) = probe.cost();
        assert!((cost - 8.0).abs() < 0.01, "{cost}");
        assert!((error - 0.55).abs() < 0.01, "{error}");
        let expected = (2.0 / (cost - 3.0 * error)).sqrt();
        assert!((probe.next_scale(4, 1.0) - expected).abs() < 1e-12);
        // A run whose games reach 16 times its precision lets it cost 8 Elo: c stays.
        assert_eq!(probe.next_scale(4, 16.0), 1.0);
        let at_twelve = (6.0 / (cost - 3.0 * error)).sqrt();
        assert!((probe.next_scale(4, 12.0) - at_twelve).abs() < 1e-12);
        // A reach below n leaves the target of 0.5 Elo a parameter.
        assert!((probe.next_scale(4, 3.0) - expected).abs() < 1e-12);
        assert!(expected > 0.5 && expected < 0.6);
        // The same mean in 100 pairs cannot be told from the target: c stays.
        let mut short = ProbeStage::at(1.0);
        for i in 0..100 {
            short.record(if i % 100 < 52 { -1 } else { 1 });
        }
        assert_eq!(short.next_scale(4, 1.0), 1.0);
    }
}
