//! "Games needed": the smallest planned budget at which a share `target` (95%) of seeds
//! ends within `precision` Elo of the optimum.
//!
//! The sweep brackets the budget by doubling or halving with a few seeds, narrows the
//! bracket by bisection (in the logarithm of the budget) with more, and confirms both
//! ends with the full number of seeds: the lower end fails and the upper end passes. The
//! figure is where a logistic curve through the points near the bracket (within a
//! factor 1.5) crosses the target: it may lie a little outside the bracket when one end
//! was unlucky. Without a fit it is interpolated between the two ends.
//!
//! Seed number i plays the same random stream at every budget, so neighbouring budgets
//! differ by the budget more than by chance.

use std::collections::BTreeMap;
use std::ops::Range;

/// How a sweep spends its seeds.
#[derive(Clone, Debug)]
pub struct Options {
    /// Share of seeds that must end within the precision.
    pub target: f64,
    pub precision: f64,
    /// Seeds per budget while bracketing (twice as many while narrowing).
    pub coarse_seeds: usize,
    /// Seeds at the two ends of the final bracket.
    pub final_seeds: usize,
    /// The final bracket's ratio of upper to lower budget.
    pub resolution: f64,
    pub min_games: u64,
    pub max_games: u64,
    /// Print every evaluated point to stderr as the sweep goes.
    pub log: bool,
}

/// The final losses of one budget's seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub games: u64,
    pub seeds: usize,
    pub successes: usize,
    pub mean_loss: f64,
    /// The loss that `target` of the seeds stay within.
    pub quantile_loss: f64,
}

impl Point {
    /// The point of one budget's final `losses`.
    pub fn new(games: u64, losses: &[f64], options: &Options) -> Point {
        let mut sorted = losses.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = ((options.target * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        Point {
            games,
            seeds: losses.len(),
            successes: losses.iter().filter(|&&l| l <= options.precision).count(),
            mean_loss: losses.iter().sum::<f64>() / losses.len() as f64,
            quantile_loss: sorted[at - 1],
        }
    }

    pub fn rate(&self) -> f64 {
        self.successes as f64 / self.seeds as f64
    }
}

/// The result of a sweep.
#[derive(Clone, Debug)]
pub struct Crossing {
    /// Games needed (the estimate).
    pub games: f64,
    /// A 95% interval of the estimate, when the logistic fit gives one.
    pub interval: Option<(f64, f64)>,
    /// The final bracket: the last failing and the first passing budget.
    pub below: Point,
    pub above: Point,
}

/// Final losses by budget, each extended with more seeds when asked for.
pub struct Evaluations<F: FnMut(u64, Range<usize>) -> Vec<f64>> {
    play: F,
    losses: BTreeMap<u64, Vec<f64>>,
    options: Options,
}

impl<F: FnMut(u64, Range<usize>) -> Vec<f64>> Evaluations<F> {
    /// `play(games, seeds)` gives the final loss of each seed number.
    pub fn new(play: F, options: Options) -> Self {
        Evaluations {
            play,
            losses: BTreeMap::new(),
            options,
        }
    }

    /// The point at `games` with at least `seeds` seeds.
    pub fn at(&mut self, games: u64, seeds: usize) -> Point {
        let losses = self.losses.entry(games).or_default();
        let extended = losses.len() < seeds;
        if extended {
            losses.extend((self.play)(games, losses.len()..seeds));
        }
        let point = Point::new(games, losses, &self.options);
        if extended && self.options.log {
            eprintln!(
                "  {games} games: {:.1}% of {} seeds within {} Elo",
                100.0 * point.rate(),
                point.seeds,
                self.options.precision
            );
        }
        point
    }

    fn passes(&mut self, games: u64, seeds: usize) -> bool {
        self.at(games, seeds).rate() >= self.options.target
    }

    /// Every budget evaluated so far, with all its seeds.
    pub fn points(&self) -> Vec<Point> {
        self.losses
            .iter()
            .map(|(&g, l)| Point::new(g, l, &self.options))
            .collect()
    }

    /// Sweeps from `start` games; `None` when even `max_games` does not pass.
    pub fn games_needed(&mut self, start: u64) -> Option<Crossing> {
        let o = self.options.clone();
        let (mut lo, mut hi) = self.bracket(even(start as f64))?;
        while hi as f64 / lo as f64 > o.resolution {
            let mid = even((lo as f64 * hi as f64).sqrt());
            if mid == lo || mid == hi {
                break;
            }
            if self.passes(mid, 2 * o.coarse_seeds) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // Both ends with every seed: move the bracket until they disagree as they should.
        loop {
            if !self.passes(hi, o.final_seeds) {
                (lo, hi) = (hi, even(hi as f64 * o.resolution));
                if hi > o.max_games {
                    return None;
                }
            } else if lo > o.min_games && self.passes(lo, o.final_seeds) {
                (lo, hi) = (even(lo as f64 / o.resolution).max(o.min_games), lo);
            } else {
                break;
            }
        }
        let (below, above) = (self.at(lo, o.final_seeds), self.at(hi, o.final_seeds));
        // The fit pools the points near the bracket, so that one unlucky end does not
        // decide the figure; it is trusted within the span of those points.
        let (from, to) = (lo as f64 / 1.5, hi as f64 * 1.5);
        let near: Vec<Point> = self
            .points()
            .into_iter()
            .filter(|p| (from..=to).contains(&(p.games as f64)))
            .collect();
        let (games, interval) = match logistic_crossing(&near, o.target) {
            Some((x, se)) if (from..=to).contains(&x.exp()) => (
                x.exp(),
                Some(((x - 1.96 * se).exp(), (x + 1.96 * se).exp())),
            ),
            _ => (interpolate(&below, &above, o.target), None),
        };
        Some(Crossing {
            games,
            interval,
            below,
            above,
        })
    }

    /// A failing and a passing budget, a factor of 2 apart, with the coarse seeds.
    fn bracket(&mut self, start: u64) -> Option<(u64, u64)> {
        let o = self.options.clone();
        let mut games = start.clamp(o.min_games, o.max_games);
        if self.passes(games, o.coarse_seeds) {
            while games > o.min_games {
                let lower = even(games as f64 / 2.0).max(o.min_games);
                if !self.passes(lower, o.coarse_seeds) {
                    return Some((lower, games));
                }
                games = lower;
            }
            Some((games, games))
        } else {
            while games < o.max_games {
                let higher = even(games as f64 * 2.0).min(o.max_games);
                if self.passes(higher, o.coarse_seeds) {
                    return Some((games, higher));
                }
                games = higher;
            }
            None
        }
    }
}

/// The nearest even number of games (a whole number of pairs), at least 2.
fn even(games: f64) -> u64 {
    ((games / 2.0).round() as u64).max(1) * 2
}

/// Between the ends of the bracket, linearly in the logarithm of the budget.
fn interpolate(below: &Point, above: &Point, target: f64) -> f64 {
    let (r0, r1) = (below.rate(), above.rate());
    let t = if r1 > r0 {
        ((target - r0) / (r1 - r0)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let (x0, x1) = ((below.games as f64).ln(), (above.games as f64).ln());
    (x0 + t * (x1 - x0)).exp()
}

/// Maximum-likelihood logistic curve of the success rate in x = ln(games): the x where
/// it crosses `target` and its standard error. `None` when the points do not pin a
/// rising curve down (fewer than two budgets, or every point all-pass or all-fail).
pub fn logistic_crossing(points: &[Point], target: f64) -> Option<(f64, f64)> {
    if points.len() < 2
        || points
            .iter()
            .all(|p| p.successes == 0 || p.successes == p.seeds)
    {
        return None;
    }
    let centre = points.iter().map(|p| (p.games as f64).ln()).sum::<f64>() / points.len() as f64;
    let data: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|p| {
            (
                (p.games as f64).ln() - centre,
                p.successes as f64,
                p.seeds as f64,
            )
        })
        .collect();
    let (mut a, mut b) = (0.0, 0.0);
    let mut information = [[0.0; 2]; 2];
    for _ in 0..100 {
        let (mut ga, mut gb) = (0.0, 0.0);
        information = [[0.0; 2]; 2];
        for &(x, s, n) in &data {
            let p = 1.0 / (1.0 + (-(a + b * x)).exp());
            let w = n * p * (1.0 - p);
            (ga, gb) = (ga + s - n * p, gb + (s - n * p) * x);
            information[0][0] += w;
            information[0][1] += w * x;
            information[1][1] += w * x * x;
        }
        let det = information[0][0] * information[1][1] - information[0][1].powi(2);
        if det <= 1e-12 {
            return None;
        }
        let da = (information[1][1] * ga - information[0][1] * gb) / det;
        let db = (information[0][0] * gb - information[0][1] * ga) / det;
        (a, b) = (a + da, b + db);
        if da.abs() + db.abs() < 1e-10 {
            break;
        }
    }
    if !(b > 0.0 && b.is_finite()) {
        return None;
    }
    let logit = (target / (1.0 - target)).ln();
    let x = (logit - a) / b;
    // Delta method: x = (logit − a)/b, ∂x/∂a = −1/b, ∂x/∂b = −x/b.
    let det = information[0][0] * information[1][1] - information[0][1].powi(2);
    let (vaa, vab, vbb) = (
        information[1][1] / det,
        -information[0][1] / det,
        information[0][0] / det,
    );
    let (ja, jb) = (-1.0 / b, -x / b);
    let variance = ja * ja * vaa + 2.0 * ja * jb * vab + jb * jb * vbb;
    Some((x + centre, variance.max(0.0).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            target: 0.95,
            precision: 0.5,
            coarse_seeds: 100,
            final_seeds: 400,
            resolution: 1.1,
            min_games: 100,
            max_games: 10_000_000,
            log: false,
        }
    }

    /// A fake tune whose loss is exponential with a mean of 100,000/games Elo: the share
    /// within 0.5 Elo is 1 − exp(−0.5·games/100,000), which reaches 95% at
    /// games = 200,000 · ln 20 = 599,146.
    fn fake(games: u64, seeds: Range<usize>) -> Vec<f64> {
        let mean = 100_000.0 / games as f64;
        seeds
            .map(|i| {
                // The seed's quantile of the exponential, spread evenly over (0, 1).
                let u = ((i * 7919) % 10_007) as f64 / 10_007.0 + 0.5 / 10_007.0;
                -mean * (1.0 - u).ln()
            })
            .collect()
    }

    #[test]
    fn the_sweep_finds_a_known_crossing() {
        for start in [1_000, 600_000, 5_000_000] {
            let mut evaluations = Evaluations::new(fake, options());
            let crossing = evaluations.games_needed(start).expect("reached");
            assert!(
                (crossing.games / 599_146.0 - 1.0).abs() < 0.05,
                "from {start}: {crossing:?}"
            );
            assert!(crossing.below.rate() < 0.95 && crossing.above.rate() >= 0.95);
            assert!(crossing.below.seeds >= 400 && crossing.above.seeds >= 400);
            assert!(crossing.above.games as f64 / crossing.below.games as f64 <= 1.11);
        }
    }

    #[test]
    fn a_budget_that_never_passes_is_reported() {
        let never = |_: u64, seeds: Range<usize>| vec![1.0; seeds.len()];
        let mut evaluations = Evaluations::new(never, options());
        assert!(evaluations.games_needed(1_000).is_none());
    }

    #[test]
    fn more_seeds_extend_a_budget_instead_of_replaying_it() {
        let mut calls = vec![];
        let mut evaluations = Evaluations::new(
            |g: u64, s: Range<usize>| {
                calls.push((g, s.clone()));
                vec![0.0; s.len()]
            },
            options(),
        );
        evaluations.at(1_000, 50);
        evaluations.at(1_000, 200);
        evaluations.at(1_000, 100);
        drop(evaluations);
        assert_eq!(calls, vec![(1_000, 0..50), (1_000, 50..200)]);
    }

    #[test]
    fn the_logistic_fit_recovers_a_logistic_curve() {
        // Success rates exactly on 1/(1 + e^−(2·(x − ln 1e5) + 1)).
        let points: Vec<Point> = [60_000u64, 80_000, 100_000, 130_000, 170_000]
            .iter()
            .map(|&g| {
                let z = 2.0 * ((g as f64).ln() - 1e5f64.ln()) + 1.0;
                let seeds = 1_000_000;
                let successes = (seeds as f64 / (1.0 + (-z).exp())).round() as usize;
                Point {
                    games: g,
                    seeds,
                    successes,
                    mean_loss: 0.0,
                    quantile_loss: 0.0,
                }
            })
            .collect();
        // 95%: z = ln 19 = 2.9444 → x = ln 1e5 + (2.9444 − 1)/2 → 1e5 · e^0.9722 = 264,384.
        let (x, se) = logistic_crossing(&points, 0.95).unwrap();
        assert!((x.exp() / 264_384.0 - 1.0).abs() < 0.001, "{}", x.exp());
        assert!(se < 0.05);
    }
}
