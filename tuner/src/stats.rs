//! Match statistics: W-D-L, pentanomial counts and the figures fastchess prints
//! (score, logistic Elo and normalized Elo with 95% intervals, LOS, draw ratio,
//! pairs ratio, WL/DD ratio), computed the way fastchess computes them.
//!
//! All figures are pentanomial: the unit of observation is a game pair (same
//! opening, colours swapped), whose score for the first engine is 0, ¼, ½, ¾ or 1.
//! Using pairs rather than single games removes the opening's bias from the
//! variance, which is why both fastchess and fishtest do it.
//!
//! A base module: uses nothing of the crate.

/// Two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;
/// Slope of the logistic Elo curve at score ½, in Elo per unit of score: 800 / ln 10.
pub const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// The write-back gate's threshold, in standard errors of the gain pairs' estimate.
///
/// The gate decides what to write, not whether a gain is proven: a 95% interval
/// above 0 kept the start even where a tune gained (the design from 20 Elo off on the
/// main job's budget gains 2.7 Elo on average, which 1,000 gain pairs cannot prove),
/// and an estimate merely above 0 lets a tuned start lose 0.3 Elo on average. A
/// quarter of a standard error was chosen on the simulator's streams of `--seed 1`
/// (docs/data/gate-study.txt) and judged on those of `--seed 2`.
pub const GATE_Z: f64 = 0.25;

/// Whether a gain estimated as `elo` ± `error95` (95%) opens the write-back gate: the
/// estimate lies more than [`GATE_Z`] standard errors above 0 (an infinite or
/// undefined half-width never does). The gate of `tuner spsa` and of the tunes
/// `tuner simulate` models.
pub fn gate_opens(elo: f64, error95: f64) -> bool {
    opens_at(GATE_Z, elo, error95)
}

/// Whether `elo` ± `error95` (95%) lies more than `z` standard errors above 0: the
/// write-back gate's test at any threshold (an infinite or undefined half-width never
/// does).
pub fn opens_at(z: f64, elo: f64, error95: f64) -> bool {
    error95.is_finite() && elo > z * error95 / Z95
}

/// The Elo a gain estimate with this 95% half-width must exceed to open the gate.
pub fn gate_threshold(error95: f64) -> f64 {
    GATE_Z * error95 / Z95
}

/// Pair scores of the pentanomial categories (index = half points over the pair / 4).
pub const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Counts of one match from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Pairs by half points scored: [LL, LD, WL+DD, WD, WW].
    pub penta: [u64; 5],
    /// How many of the `penta[2]` pairs were a win and a loss (the rest were two draws).
    pub penta_wl: u64,
}

impl Tally {
    /// Adds one finished pair: the half points (0, 1 or 2) the first engine scored in
    /// each of its two games (`play::game::pair_points` reads them off the outcomes).
    pub fn add_pair(&mut self, points: [u8; 2]) {
        for p in points {
            match p {
                2 => self.wins += 1,
                1 => self.draws += 1,
                _ => self.losses += 1,
            }
        }
        let sum = usize::from(points[0] + points[1]);
        self.penta[sum] += 1;
        if sum == 2 && points[0] != 1 {
            self.penta_wl += 1;
        }
    }

    pub fn merge(&mut self, other: &Tally) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        for (a, b) in self.penta.iter_mut().zip(other.penta) {
            *a += b;
        }
        self.penta_wl += other.penta_wl;
    }

    pub fn pairs(&self) -> u64 {
        self.penta.iter().sum()
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored by the first engine (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Every figure fastchess prints; `None` before the first pair.
    pub fn summary(&self) -> Option<Summary> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let n = n as f64;
        let freq = self.penta.map(|c| c as f64 / n);
        let (score, variance) = mean_and_variance(&PAIR_SCORES, &freq);
        // Standard error of the mean pair score.
        let se = (variance / n).sqrt();
        let (low, high) = (score - Z95 * se, score + Z95 * se);
        let nelo = |s: f64| (s - 0.5) / (2.0 * variance).sqrt() * NELO_SCALE;
        let dd = (self.penta[2] - self.penta_wl) as f64;
        Some(Summary {
            pairs: self.pairs(),
            games: self.games(),
            score,
            elo: score_to_elo(score),
            elo_error: (score_to_elo(high) - score_to_elo(low)) / 2.0,
            elo_low: score_to_elo(low),
            elo_high: score_to_elo(high),
            nelo: nelo(score),
            nelo_error: (nelo(high) - nelo(low)) / 2.0,
            los: 0.5 * (1.0 + erf((score - 0.5) / (2.0 * se * se).sqrt())),
            draw_ratio: freq[2],
            pairs_ratio: (self.penta[3] + self.penta[4]) as f64
                / (self.penta[0] + self.penta[1]) as f64,
            wl_dd_ratio: self.penta_wl as f64 / dd,
        })
    }
}

/// The figures of one match, first engine's point of view. Undefined figures (a
/// perfect score, no variance) come out as ±inf or NaN and print as such.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub pairs: u64,
    pub games: u64,
    /// Mean score per game, 0..=1.
    pub score: f64,
    /// Logistic Elo difference and the half-width of its 95% interval (fastchess: the
    /// mean of the distances to the interval's ends, which are `elo_low`/`elo_high`).
    pub elo: f64,
    pub elo_error: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// Normalized Elo (score excess over its standard deviation, Elo-scaled) and its
    /// 95% half-width.
    pub nelo: f64,
    pub nelo_error: f64,
    /// Likelihood of superiority: probability that the first engine is the stronger.
    pub los: f64,
    /// Fraction of pairs that were balanced (WL or DD), as fastchess's DrawRatio.
    pub draw_ratio: f64,
    /// (WW + WD) / (LD + LL).
    pub pairs_ratio: f64,
    /// WL pairs / DD pairs: above 1 hints at unbalanced openings.
    pub wl_dd_ratio: f64,
}

/// Logistic Elo difference of a mean score.
pub fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Mean score of a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance of the discrete distribution `p` over the values `x`.
pub fn mean_and_variance(x: &[f64], p: &[f64]) -> (f64, f64) {
    let mean: f64 = x.iter().zip(p).map(|(x, p)| x * p).sum();
    let var = x.iter().zip(p).map(|(x, p)| p * (x - mean).powi(2)).sum();
    (mean, var)
}

/// The error function: Maclaurin series near zero, Abramowitz–Stegun 7.1.26 beyond
/// (absolute error below 3e-7, plenty for a percentage printed with two decimals).
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    if x < 0.5 {
        // Maclaurin series converges fast near zero, where the fit is weakest.
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        for n in 1..30 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        return sign * sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Number formatting that keeps inf/NaN readable.
pub fn fmt2(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else {
        // `+ 0.0` turns -0.0 into 0.0 so a zero never prints as "-0.00".
        format!("{:.2}", v + 0.0)
    }
}

impl Summary {
    /// Elo, its 95% error, normalized Elo and its error, as the reports print them.
    pub fn elo_texts(&self) -> [String; 4] {
        [self.elo, self.elo_error, self.nelo, self.nelo_error].map(fmt2)
    }

    /// The fastchess result block (without the SPRT line), first engine named first.
    pub fn report(&self, tally: &Tally) -> String {
        let p = &tally.penta;
        format!(
            "Elo: {} +/- {} [{}, {}], nElo: {} +/- {}\n\
             LOS: {} %, DrawRatio: {} %, PairsRatio: {}\n\
             Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({} %)\n\
             Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
            fmt2(self.elo),
            fmt2(self.elo_error),
            fmt2(self.elo_low),
            fmt2(self.elo_high),
            fmt2(self.nelo),
            fmt2(self.nelo_error),
            fmt2(self.los * 100.0),
            fmt2(self.draw_ratio * 100.0),
            fmt2(self.pairs_ratio),
            self.games,
            tally.wins,
            tally.losses,
            tally.draws,
            tally.points(),
            fmt2(self.score * 100.0),
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            fmt2(self.wl_dd_ratio),
        )
    }
}

/// The `p`-quantile of the χ² distribution with `dof` degrees of freedom (bisection on
/// the regularised incomplete gamma function).
pub fn chi_squared_quantile(p: f64, dof: usize) -> f64 {
    assert!(dof > 0 && p > 0.0 && p < 1.0);
    let a = dof as f64 / 2.0;
    let (mut lo, mut hi) = (0.0, 2.0 * a + 50.0 * (2.0 * a).sqrt() + 50.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if lower_gamma_regularised(a, mid / 2.0) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// P(a, x) = γ(a, x)/Γ(a) for a half-integer a > 0: a power series below x = a + 1,
/// a continued fraction for 1 − P above.
fn lower_gamma_regularised(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let prefix = (-x + a * x.ln() - ln_gamma_half_integer(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut denominator) = (1.0 / a, 1.0 / a, a);
        while term > sum * 1e-16 {
            denominator += 1.0;
            term *= x / denominator;
            sum += term;
        }
        return sum * prefix;
    }
    // Modified Lentz evaluation of the continued fraction for Q(a, x).
    let tiny = 1e-300;
    let mut b = x + 1.0 - a;
    let (mut c, mut d) = (1.0 / tiny, 1.0 / b);
    let mut fraction = d;
    for i in 1..10_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        d = if d.abs() < tiny { tiny } else { d };
        c = b + an / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        fraction *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    1.0 - prefix * fraction
}

/// ln Γ(a) for a = m/2, m ≥ 1: up from Γ(1/2) = √π or Γ(1) = 1 by Γ(x + 1) = x·Γ(x).
fn ln_gamma_half_integer(a: f64) -> f64 {
    let twice = (2.0 * a).round();
    debug_assert!(twice >= 1.0 && (2.0 * a - twice).abs() < 1e-9);
    let (mut x, mut sum) = if twice as u64 % 2 == 1 {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    } else {
        (1.0, 0.0)
    };
    while x < a - 0.25 {
        sum += x.ln();
        x += 1.0;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_opens_a_quarter_standard_error_above_zero() {
        // ± 19.6 (95%) is a standard error of 10 Elo: the gate sits at +2.5.
        assert!((gate_threshold(19.6 * Z95 / 1.96) - 2.5).abs() < 1e-9);
        assert!(!gate_opens(2.4, 19.6 * Z95 / 1.96));
        assert!(gate_opens(2.6, 19.6 * Z95 / 1.96));
        assert!(
            !gate_opens(0.0, 0.0),
            "a zero-width interval at 0 is no gain"
        );
        assert!(!gate_opens(50.0, f64::INFINITY));
        assert!(!gate_opens(50.0, f64::NAN));
    }

    #[test]
    fn chi_squared_quantiles_match_the_tables() {
        // 95% points: 3.841459 (1), 5.991465 (2), 9.487729 (4), 12.591587 (6),
        // 18.307038 (10), 98.484383 (77).
        for (dof, expected) in [
            (1, 3.841459),
            (2, 5.991465),
            (4, 9.487729),
            (6, 12.591587),
            (10, 18.307038),
            (77, 98.484383),
        ] {
            let q = chi_squared_quantile(0.95, dof);
            assert!((q - expected).abs() < 1e-5, "dof {dof}: {q}");
        }
        // The median with 2 degrees of freedom is 2·ln 2.
        assert!((chi_squared_quantile(0.5, 2) - 2.0 * 2f64.ln()).abs() < 1e-9);
    }

    fn tally(penta: [u64; 5]) -> Tally {
        // W/D/L are not needed by the pentanomial figures; fill them consistently
        // assuming the balanced pairs were draws.
        Tally {
            wins: 2 * penta[4] + penta[3],
            draws: penta[3] + 2 * penta[2] + penta[1],
            losses: penta[1] + 2 * penta[0],
            penta,
            penta_wl: 0,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Figures fastchess printed for three real matches, to its two decimals:
    /// pentanomial counts and Elo, ± error, nElo, ± error, LOS %, draw ratio %, pairs
    /// ratio (`None`: not quoted in the source).
    #[allow(clippy::type_complexity)]
    const PUBLISHED: [([u64; 5], [f64; 6], Option<f64>); 3] = [
        // brunocodutra/cinder PR 727.
        (
            [50, 287, 610, 387, 73],
            [18.04, 8.23, 28.19, 12.84, 100.0, 43.35],
            Some(1.36),
        ),
        // lynx-chess/Lynx PR 1899.
        (
            [235, 1384, 2521, 1341, 239],
            [-1.06, 4.05, -1.67, 6.37, 30.33, 44.07],
            None,
        ),
        // princesslana/princhess PR 343 (draw ratio not quoted: 52 of 100 pairs, by hand).
        (
            [1, 22, 52, 21, 4],
            [8.69, 27.04, 15.51, 48.15, 73.60, 52.0],
            None,
        ),
    ];

    #[test]
    fn matches_published_fastchess_figures() {
        for (penta, figures, pairs_ratio) in PUBLISHED {
            let s = tally(penta).summary().unwrap();
            let ours = [
                s.elo,
                s.elo_error,
                s.nelo,
                s.nelo_error,
                s.los * 100.0,
                s.draw_ratio * 100.0,
            ];
            for (got, want) in ours.into_iter().zip(figures) {
                assert!(close(got, want, 0.005), "{penta:?}: {got} vs {want}: {s:?}");
            }
            if let Some(r) = pairs_ratio {
                assert!(close(s.pairs_ratio, r, 0.005), "{s:?}");
            }
        }
    }

    /// By hand: 10 pairs [1, 2, 4, 2, 1] is symmetric: score ½, Elo 0, LOS 50 %.
    /// Variance = (1·¼ + 2·1/16 + 0 + 2·1/16 + 1·¼)/10 = 0.075; se = √0.0075;
    /// nElo error = 1.96·se/√(2·0.075)·800/ln10 = 1.96/√20·347.44 = 152.27.
    #[test]
    fn a_symmetric_count_by_hand() {
        let s = tally([1, 2, 4, 2, 1]).summary().unwrap();
        assert!(close(s.score, 0.5, 1e-12));
        assert!(close(s.elo, 0.0, 1e-9) && close(s.nelo, 0.0, 1e-9));
        assert!(close(s.los, 0.5, 1e-9));
        let se = (0.075f64 / 10.0).sqrt();
        let expected = (score_to_elo(0.5 + Z95 * se) - score_to_elo(0.5 - Z95 * se)) / 2.0;
        assert!(close(s.elo_error, expected, 1e-9));
        assert!(close(s.nelo_error, 152.27, 0.01), "{}", s.nelo_error);
        assert!(close(s.elo_high, -s.elo_low, 1e-9));
    }

    #[test]
    fn pairs_are_counted_from_the_first_engine() {
        let mut t = Tally::default();
        t.add_pair([2, 0]); // W then L: WL
        t.add_pair([2, 2]); // WW
        t.add_pair([1, 0]); // DL
        t.add_pair([1, 1]); // DD
        assert_eq!(t.penta, [0, 1, 2, 0, 1]);
        assert_eq!((t.wins, t.draws, t.losses, t.penta_wl), (3, 3, 2, 1));
        let s = t.summary().unwrap();
        assert!(close(s.wl_dd_ratio, 1.0, 1e-12));
        assert!(close(s.score, t.points() / t.games() as f64, 1e-12));
        assert!(Tally::default().summary().is_none());
        // A perfect score is infinite Elo, not a panic.
        let s = tally([0, 0, 0, 0, 3]).summary().unwrap();
        assert!(s.elo.is_infinite() && s.elo > 0.0);
    }

    #[test]
    fn erf_against_known_values() {
        for (x, v) in [
            (0.0, 0.0),
            (0.1, 0.112_462_916),
            (0.5, 0.520_499_878),
            (1.0, 0.842_700_793),
            (2.0, 0.995_322_265),
            (-1.5, -0.966_105_146),
        ] {
            assert!(close(erf(x), v, 3e-7), "erf({x}) = {}", erf(x));
        }
    }
}
