//! How a game pair between θ+ and θ− ends, given the Elo difference between them.
//!
//! Two models:
//! - [`Outcome::DrawRatio`], the reference (vdbergh's `spsa_simul`): the two games are
//!   independent, each drawn with a fixed probability d, and won with L(x) − d/2, where
//!   L(x) = 1/(1 + 10^(−x/400)) is θ+'s expected score;
//! - [`Outcome::Pentanomial`]: the frequencies of the five pair results at equal
//!   strength as measured (an SPSA journal's `penta` counts), tilted exponentially so
//!   that θ+ scores L(x) per game — the least change to the measured shape that gives
//!   the right expected score.

use rand::Rng;

/// θ+'s expected score per game at an Elo difference of `elo`.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Independent games with this draw probability.
    DrawRatio(f64),
    /// Frequencies of θ+ scoring 0, ½, 1, 1½ and 2 points over a pair, at equal
    /// strength (symmetric, summing to 1).
    Pentanomial([f64; 5]),
}

impl Outcome {
    /// The and fishtest's reference: a draw ratio of 0.61.
    pub const REFERENCE_DRAW_RATIO: f64 = 0.61;

    /// A pentanomial model from counts or frequencies (LL, LD, DD+WL, WD, WW); made
    /// symmetric, since at equal strength either side is as likely to score.
    pub fn pentanomial(counts: [f64; 5]) -> Outcome {
        let total: f64 = counts.iter().sum();
        let mut p = [0.0; 5];
        for i in 0..5 {
            p[i] = (counts[i] + counts[4 - i]) / (2.0 * total);
        }
        Outcome::Pentanomial(p)
    }

    /// Variance of one game's W − L at equal strength (a pair's W − L has twice this
    /// when its games are independent; a measured pair variance is halved).
    pub fn game_variance(&self) -> f64 {
        match self {
            Outcome::DrawRatio(d) => 1.0 - d,
            Outcome::Pentanomial(p) => {
                let pair: f64 = (0..5).map(|i| p[i] * (i as f64 - 2.0).powi(2)).sum();
                pair / 2.0
            }
        }
    }

    /// Half points θ+ scores over one pair (0..=4) at an Elo difference of `elo`.
    pub fn pair_half_points(&self, elo: f64, rng: &mut impl Rng) -> u8 {
        let score = expected_score(elo);
        match self {
            Outcome::DrawRatio(d) => {
                let win = (score - d / 2.0).clamp(0.0, 1.0 - d);
                game_half_points(win, *d, rng) + game_half_points(win, *d, rng)
            }
            Outcome::Pentanomial(at_equal) => {
                let p = tilted(at_equal, 4.0 * score);
                let x: f64 = rng.random();
                let mut below = 0.0;
                for (half_points, q) in p.iter().enumerate().take(4) {
                    below += q;
                    if x < below {
                        return half_points as u8;
                    }
                }
                4
            }
        }
    }
}

/// Half points of one game won with probability `win` and drawn with `draw`.
fn game_half_points(win: f64, draw: f64, rng: &mut impl Rng) -> u8 {
    let x: f64 = rng.random();
    if x < win {
        2
    } else if x < win + draw {
        1
    } else {
        0
    }
}

/// p_i ∝ q_i·e^(λ·i) with λ such that the mean of i (half points) is `mean`.
fn tilted(q: &[f64; 5], mean: f64) -> [f64; 5] {
    let mean = mean.clamp(1e-6, 4.0 - 1e-6);
    let at = |lambda: f64| {
        let mut p = [0.0; 5];
        for i in 0..5 {
            p[i] = q[i] * (lambda * (i as f64 - 2.0)).exp();
        }
        let total: f64 = p.iter().sum();
        p.iter_mut().for_each(|v| *v /= total);
        p
    };
    let moments = |p: &[f64; 5]| {
        let m: f64 = (0..5).map(|i| p[i] * i as f64).sum();
        let v: f64 = (0..5).map(|i| p[i] * (i as f64 - m).powi(2)).sum();
        (m, v)
    };
    // Newton on λ: d(mean)/dλ is the variance of the tilted distribution.
    let mut lambda = 0.0;
    for _ in 0..50 {
        let (m, v) = moments(&at(lambda));
        let change = (mean - m) / v.max(1e-12);
        lambda += change.clamp(-2.0, 2.0);
        if change.abs() < 1e-12 {
            break;
        }
    }
    at(lambda)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn mean_and_variance(outcome: &Outcome, elo: f64) -> (f64, f64) {
        let mut rng = SmallRng::seed_from_u64(1);
        let n = 400_000;
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for _ in 0..n {
            let w_minus_l = f64::from(outcome.pair_half_points(elo, &mut rng)) - 2.0;
            sum += w_minus_l;
            sum_sq += w_minus_l * w_minus_l;
        }
        let mean = sum / n as f64;
        (mean, sum_sq / n as f64 - mean * mean)
    }

    #[test]
    fn the_reference_model_scores_by_the_logistic_with_fixed_draws() {
        // At +50 Elo: L = 0.571463; a pair's W − L has mean 2·(2L − 1) = 0.285852.
        // Variance: per game (1 − d) − (2L − 1)² = 0.39 − 0.020427, twice per pair.
        let model = Outcome::DrawRatio(0.61);
        assert!((expected_score(50.0) - 0.571463).abs() < 1e-6);
        let (mean, var) = mean_and_variance(&model, 50.0);
        assert!((mean - 0.285852).abs() < 0.005, "{mean}");
        assert!((var - 2.0 * (0.39 - 0.020427)).abs() < 0.01, "{var}");
        assert!((model.game_variance() - 0.39).abs() < 1e-12);
    }

    #[test]
    fn a_measured_pentanomial_keeps_its_shape_and_scores_by_the_logistic() {
        // Counts as a journal gives them; symmetrised: (0.05, 0.2, 0.5, 0.2, 0.05).
        let model = Outcome::pentanomial([40.0, 190.0, 500.0, 210.0, 60.0]);
        assert_eq!(model, Outcome::Pentanomial([0.05, 0.2, 0.5, 0.2, 0.05]));
        // Pair variance 0.05·4·2 + 0.2·1·2 = 0.8, so 0.4 per game.
        assert!((model.game_variance() - 0.4).abs() < 1e-12);
        let (mean, var) = mean_and_variance(&model, 0.0);
        assert!(
            mean.abs() < 0.005 && (var - 0.8).abs() < 0.01,
            "{mean} {var}"
        );
        let (mean, _) = mean_and_variance(&model, 50.0);
        assert!((mean - 0.285852).abs() < 0.005, "{mean}");
    }
}
