//! Sequential probability ratio test on pentanomial pair counts: the generalised
//! SPRT of fishtest and fastchess (Michel Van den Bergh, "Comments on Normalized
//! Elo"). Under each hypothesis the pentanomial distribution is replaced by its
//! maximum-likelihood estimate constrained to that hypothesis' Elo; the LLR is
//! `N · Σ p̂ᵢ ln(p₁ᵢ / p₀ᵢ)` with p̂ the observed frequencies. The test stops at
//! `ln(β/(1−α))` (H0 accepted) or `ln((1−β)/α)` (H1 accepted).

use std::fmt;

use anyhow::{Result, bail};

use crate::stats::{NELO_SCALE, PAIR_SCORES, elo_to_score, mean_and_variance};

/// The largest |elo0|, |elo1| of the normalized model (see [`Sprt::new`]).
pub const MAX_NORMALIZED_ELO: f64 = 200.0;

/// Which Elo the bounds elo0/elo1 are expressed in.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Normalized Elo (fishtest's and fastchess's default): independent of the draw rate.
    Normalized,
    /// Logistic Elo (the classic score-based Elo).
    Logistic,
}

/// A configured test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: Model,
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// The lower bound was crossed: the change is not worth elo1 (likely ≤ elo0).
    AcceptH0,
    /// The upper bound was crossed: the change is worth at least elo0 (likely ≥ elo1).
    AcceptH1,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Continue => "running",
            Decision::AcceptH0 => "H0 accepted",
            Decision::AcceptH1 => "H1 accepted",
        })
    }
}

impl Sprt {
    /// Checks the configuration; the message names what is wrong and what is allowed.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: Model) -> Result<Sprt> {
        if !(elo0.is_finite() && elo1.is_finite()) || elo0 >= elo1 {
            bail!("SPRT: elo0 ({elo0}) must be a number smaller than elo1 ({elo1})");
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 1.0) {
                bail!("SPRT: {name} ({v}) must lie strictly between 0 and 1");
            }
        }
        if alpha + beta >= 1.0 {
            bail!("SPRT: alpha + beta ({}) must be less than 1", alpha + beta);
        }
        if model == Model::Logistic && (elo0 <= -800.0 || elo1 >= 800.0) {
            bail!("SPRT: logistic bounds must lie within (-800, 800) Elo, got [{elo0}, {elo1}]");
        }
        // The normalized model's constrained estimate exists only while the bound is a
        // reachable normalized score; past about ±230 nElo the LLR becomes NaN, which
        // would read as "continue" for ever. Real tests use bounds of a few nElo.
        if model == Model::Normalized
            && (elo0.abs() > MAX_NORMALIZED_ELO || elo1.abs() > MAX_NORMALIZED_ELO)
        {
            bail!(
                "SPRT: normalized bounds must lie within [-{MAX_NORMALIZED_ELO}, {MAX_NORMALIZED_ELO}] nElo, got [{elo0}, {elo1}] (use model=logistic for larger Elo differences)"
            );
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// Parses `elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized]` (any order;
    /// alpha and beta default to 0.05, the model to `model`).
    pub fn parse(words: &[String], model: Model) -> Result<Sprt> {
        let (mut elo0, mut elo1, mut alpha, mut beta, mut model) = (None, None, 0.05, 0.05, model);
        for word in words.iter().flat_map(|w| w.split_whitespace()) {
            let Some((key, value)) = word.split_once('=') else {
                bail!("--sprt: '{word}' is not KEY=VALUE (keys: elo0, elo1, alpha, beta, model)");
            };
            let number = || -> Result<f64> {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| anyhow::anyhow!("--sprt: {key}='{value}' is not a number"))
            };
            match key {
                "elo0" => elo0 = Some(number()?),
                "elo1" => elo1 = Some(number()?),
                "alpha" => alpha = number()?,
                "beta" => beta = number()?,
                "model" => {
                    model = match value {
                        "normalized" => Model::Normalized,
                        "logistic" => Model::Logistic,
                        _ => bail!("--sprt: model '{value}' is not normalized or logistic"),
                    }
                }
                _ => bail!("--sprt: unknown key '{key}' (keys: elo0, elo1, alpha, beta, model)"),
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            bail!("--sprt needs elo0=… and elo1=…, e.g. --sprt elo0=0 elo1=5");
        };
        Sprt::new(elo0, elo1, alpha, beta, model)
    }

    /// The H0 bound, ln(β/(1−α)).
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The H1 bound, ln((1−β)/α).
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Log-likelihood ratio of H1 against H0 for pentanomial counts [LL, LD, WL+DD, WD, WW].
    pub fn llr(&self, penta: &[u64; 5]) -> f64 {
        if penta.iter().sum::<u64>() == 0 {
            return 0.0;
        }
        // Empty categories get a tiny weight (as fastchess does) so that every
        // probability in the logarithms stays positive.
        let counts = penta.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let total: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / total);
        let (p0, p1) = match self.model {
            Model::Normalized => {
                // A pair's standard deviation is 1/√2 of a game's, so a normalized Elo
                // is √2 times larger in pair units.
                let t = |elo: f64| std::f64::consts::SQRT_2 * elo / NELO_SCALE;
                (
                    mle_normalized(&freq, t(self.elo0)),
                    mle_normalized(&freq, t(self.elo1)),
                )
            }
            Model::Logistic => (
                mle_mean(&freq, elo_to_score(self.elo0)),
                mle_mean(&freq, elo_to_score(self.elo1)),
            ),
        };
        total
            * (0..5)
                .map(|i| freq[i] * (p1[i].ln() - p0[i].ln()))
                .sum::<f64>()
    }

    /// [`Sprt::llr`], refusing a value that is not a number (which no bound would ever
    /// stop): the test cannot go on, and saying so beats running for ever.
    pub fn checked_llr(&self, penta: &[u64; 5]) -> Result<f64> {
        let llr = self.llr(penta);
        if !llr.is_finite() {
            bail!(
                "SPRT: the LLR of pentanomial {penta:?} under bounds [{}, {}] {:?} is not a number; the test cannot decide",
                self.elo0,
                self.elo1,
                self.model
            );
        }
        Ok(llr)
    }

    pub fn decide(&self, llr: f64) -> Decision {
        if llr >= self.upper() {
            Decision::AcceptH1
        } else if llr <= self.lower() {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }

    /// `LLR: 1.23 (41.9%) (-2.94, 2.94) [0.00, 5.00] normalized`.
    pub fn status(&self, llr: f64) -> String {
        let fraction = if llr >= 0.0 {
            llr / self.upper()
        } else {
            -llr / self.lower()
        };
        format!(
            "LLR: {llr:.2} ({:.1}%) ({:.2}, {:.2}) [{:.2}, {:.2}] {}",
            fraction * 100.0,
            self.lower(),
            self.upper(),
            self.elo0,
            self.elo1,
            match self.model {
                Model::Normalized => "normalized",
                Model::Logistic => "logistic",
            }
        )
    }
}

/// Root of a strictly decreasing function on the open interval (lo, hi), where it goes
/// from +∞ to −∞, by bisection (robust; 200 halvings reach machine precision).
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The distribution closest (max likelihood) to `freq` whose mean pair score is `s`:
/// pᵢ = p̂ᵢ / (1 + θ(aᵢ − s)) with θ solving Σ p̂ᵢ(aᵢ − s)/(1 + θ(aᵢ − s)) = 0
/// (Van den Bergh, proposition 1.1).
fn mle_mean(freq: &[f64; 5], s: f64) -> [f64; 5] {
    let a = PAIR_SCORES;
    let g = |theta: f64| {
        (0..5)
            .map(|i| freq[i] * (a[i] - s) / (1.0 + theta * (a[i] - s)))
            .sum::<f64>()
    };
    // 1 + θ(aᵢ − s) > 0 for every i bounds θ to (−1/(a_max − s), −1/(a_min − s)).
    let theta = bisect(g, -1.0 / (a[4] - s), -1.0 / (a[0] - s));
    std::array::from_fn(|i| freq[i] / (1.0 + theta * (a[i] - s)))
}

/// The distribution closest to `freq` whose normalized score (μ − ½)/σ equals `t`, by the
/// fixed-point iteration of Van den Bergh section 4.1, starting from the uniform law.
fn mle_normalized(freq: &[f64; 5], t: f64) -> [f64; 5] {
    let a = PAIR_SCORES;
    let mut p = [0.2; 5];
    for _ in 0..100 {
        let (mu, var) = mean_and_variance(&a, &p);
        let sigma = var.sqrt();
        let phi: [f64; 5] = std::array::from_fn(|i| {
            let z = (a[i] - mu) / sigma;
            a[i] - 0.5 - 0.5 * t * sigma * (1.0 + z * z)
        });
        let u = phi.iter().copied().fold(f64::INFINITY, f64::min);
        let v = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let g = |theta: f64| {
            (0..5)
                .map(|i| freq[i] * phi[i] / (1.0 + theta * phi[i]))
                .sum::<f64>()
        };
        let theta = bisect(g, -1.0 / v, -1.0 / u);
        let mut change: f64 = 0.0;
        for i in 0..5 {
            let next = freq[i] / (1.0 + theta * phi[i]);
            change = change.max((next - p[i]).abs());
            p[i] = next;
        }
        if change < 1e-10 {
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: Model) -> Sprt {
        Sprt::new(elo0, elo1, alpha, beta, model).unwrap()
    }

    /// Published fastchess runs (pentanomial):
    /// cinder PR 727 (normalized, the default): [50, 287, 610, 387, 73], [0, 5],
    /// α = β = 0.05 -> LLR 2.97 (-2.94, 2.94);
    /// Lynx PR 1899 (its Elo bounds are logistic: only that model reproduces the figure):
    /// [235, 1384, 2521, 1341, 239], [-5, 0], α = 0.05, β = 0.1 -> 1.69 (-2.25, 2.89).
    #[test]
    fn llr_matches_published_fastchess_runs() {
        let s = sprt(0.0, 5.0, 0.05, 0.05, Model::Normalized);
        assert!((s.lower() + 2.944).abs() < 1e-3 && (s.upper() - 2.944).abs() < 1e-3);
        let llr = s.llr(&[50, 287, 610, 387, 73]);
        assert!((llr - 2.97).abs() < 0.006, "{llr}");
        assert_eq!(s.decide(llr), Decision::AcceptH1);
        let s = sprt(-5.0, 0.0, 0.05, 0.1, Model::Logistic);
        assert!((s.lower() + 2.25).abs() < 0.005 && (s.upper() - 2.89).abs() < 0.005);
        let llr = s.llr(&[235, 1384, 2521, 1341, 239]);
        assert!((llr - 1.69).abs() < 0.006, "{llr}");
        assert_eq!(s.decide(llr), Decision::Continue);
        // The same counts under the normalized model: nElo -1.67 is much less
        // significant, hence a smaller LLR.
        let normalized = Sprt {
            model: Model::Normalized,
            ..s
        };
        let llr_n = normalized.llr(&[235, 1384, 2521, 1341, 239]);
        assert!(llr_n > 0.0 && llr_n < 1.0, "{llr_n}");
    }

    /// The constrained MLEs really satisfy their constraints and stay distributions.
    #[test]
    fn constrained_estimates_meet_their_constraints() {
        let freq = [0.05, 0.2, 0.45, 0.22, 0.08];
        for s in [0.45, 0.5, 0.56] {
            let p = mle_mean(&freq, s);
            let (mu, _) = mean_and_variance(&PAIR_SCORES, &p);
            assert!((mu - s).abs() < 1e-9 && (p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        for t in [-0.1, 0.0, 0.05] {
            let p = mle_normalized(&freq, t);
            let (mu, var) = mean_and_variance(&PAIR_SCORES, &p);
            assert!(((mu - 0.5) / var.sqrt() - t).abs() < 1e-6, "{p:?}");
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        }
    }

    /// Hand check of the logistic model in its small-difference limit: with
    /// elo0 = -elo1 and an observed mean of ½, the LLR is 0 by symmetry; a count whose
    /// mean equals the H1 score gives the maximal positive LLR = N·KL(p̂ ‖ p₀).
    #[test]
    fn logistic_llr_properties() {
        let s = sprt(-10.0, 10.0, 0.05, 0.05, Model::Logistic);
        assert!(s.llr(&[10, 20, 40, 20, 10]).abs() < 1e-9);
        let up = s.llr(&[5, 20, 40, 25, 10]);
        let down = s.llr(&[10, 25, 40, 20, 5]);
        assert!(up > 0.0 && (up + down).abs() < 1e-9, "{up} {down}");
        // More pairs with the same frequencies: the LLR grows in proportion.
        let double = s.llr(&[10, 40, 80, 50, 20]);
        assert!((double - 2.0 * up).abs() < 1e-9);
        assert_eq!(s.llr(&[0; 5]), 0.0);
    }

    /// One-sided and degenerate counts give a finite LLR of the right sign (fastchess
    /// gave NaN here: github.com/Disservin/fastchess, its issue 879).
    #[test]
    fn extreme_counts_stay_finite() {
        for model in [Model::Normalized, Model::Logistic] {
            let s = sprt(0.0, 5.0, 0.05, 0.05, model);
            for (penta, sign) in [
                ([5, 0, 0, 0, 0], -1.0),
                ([0, 0, 0, 0, 7], 1.0),
                ([0, 0, 73, 0, 0], -1.0),
                ([77, 1, 0, 0, 0], -1.0),
                ([0, 0, 1, 0, 0], -1.0),
            ] {
                let llr = s.llr(&penta);
                assert!(
                    llr.is_finite() && llr * sign > 0.0,
                    "{model:?} {penta:?}: {llr}"
                );
            }
        }
    }

    /// Every accepted configuration gives a finite LLR, over a deterministic sweep of
    /// pentanomials (empty, one-sided, lopsided, large) and bounds out to the limits;
    /// a NaN that slips through is refused by `checked_llr`.
    #[test]
    fn accepted_bounds_always_give_a_finite_llr() {
        let mut x: u64 = 12345;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        };
        let pentas: Vec<[u64; 5]> = (0..400)
            .map(|_| {
                std::array::from_fn(|_| {
                    let r = next();
                    if r % 3 == 0 {
                        0
                    } else {
                        r % 10u64.pow((r % 5) as u32)
                    }
                })
            })
            .collect();
        for (model, limit) in [
            (Model::Normalized, MAX_NORMALIZED_ELO),
            (Model::Logistic, 799.0),
        ] {
            for (e0, e1) in [(0.0, limit), (-limit, 0.0), (-limit, limit), (0.0, 2.0)] {
                let s = sprt(e0, e1, 0.05, 0.05, model);
                for p in &pentas {
                    let llr = s.checked_llr(p).unwrap();
                    assert!(llr.is_finite(), "{model:?} [{e0}, {e1}] {p:?}");
                }
            }
        }
        let beyond = Sprt {
            elo1: 400.0,
            ..sprt(0.0, 5.0, 0.05, 0.05, Model::Normalized)
        };
        assert!(beyond.llr(&[50, 287, 610, 387, 73]).is_nan());
        let err = beyond.checked_llr(&[50, 287, 610, 387, 73]).unwrap_err();
        assert!(err.to_string().contains("not a number"), "{err}");
    }

    #[test]
    fn configurations_are_checked_and_parsed() {
        let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let s = Sprt::parse(
            &words("elo0=0 elo1=5 alpha=0.05 beta=0.1"),
            Model::Normalized,
        )
        .unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.1));
        let s = Sprt::parse(&words("elo1=5 elo0=-1 model=logistic"), Model::Normalized).unwrap();
        assert_eq!((s.elo0, s.beta, s.model), (-1.0, 0.05, Model::Logistic));
        for bad in [
            "elo0=5 elo1=0",
            "elo0=0",
            "elo0=0 elo1=5 alpha=1",
            "elo0=0 elo1=5 alpha=0.6 beta=0.5",
            "elo0=0 elo1=x",
            "elo0=0 elo1=5 gamma=1",
            "elo0=0 elo1=5 model=bayes",
            "elo0 0",
        ] {
            let err = Sprt::parse(&words(bad), Model::Normalized);
            assert!(err.is_err(), "{bad}");
        }
        // Bounds whose LLR is NaN (elo1=400 once ran for ever) are refused.
        for (bounds, model) in [
            ("elo0=0 elo1=400", Model::Normalized),
            ("elo0=-300 elo1=0", Model::Normalized),
            ("elo0=0 elo1=800", Model::Logistic),
        ] {
            let err = Sprt::parse(&words(bounds), model).unwrap_err().to_string();
            assert!(err.contains("must lie within"), "{bounds}: {err}");
        }
        assert!(
            sprt(0.0, 5.0, 0.05, 0.05, Model::Normalized)
                .status(1.0)
                .starts_with("LLR: 1.00 (34.0%) (-2.94, 2.94) [0.00, 5.00]")
        );
    }
}
