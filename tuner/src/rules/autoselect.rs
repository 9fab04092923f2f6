//! fishtest's "Autoselect" design (vdbergh, `spsa_simul`): constant c and r chosen so
//! that SPSA ends within `precision` Elo of the optimum with probability `confidence`,
//! for a guessed quadratic landscape in which each parameter loses `worth` Elo at half
//! its range from the optimum.
//!
//! With C = 800/ln 10 (Elo per unit of expected W − L per game, at equal strength) and
//! σ² the variance of one game's W − L at equal strength (1 − draw ratio):
//!
//!   c_j = (max_j − min_j)/6,   r = 8·precision / (C·χ²_confidence(n)·σ²),
//!   λ_j = C·h_j² / (4·r·c_j²·worth_j)  (games to divide parameter j's loss by e²),
//!   games = 3·max_j λ_j,        h_j = (max_j − min_j)/2.
//!
//! With each parameter worth 2 Elo and a draw ratio of 0.61 this gives fishtest's
//! published figures (n = 1: 152,589 games; n = 4: 376,868).

use super::Param;

pub use crate::stats::{NELO_SCALE as ELO_PER_SCORE, chi_squared_quantile};

#[derive(Clone, Debug, PartialEq)]
pub struct AutoselectDesign {
    /// Elo below the optimum to end within.
    pub precision: f64,
    /// Probability of ending within `precision`.
    pub confidence: f64,
    /// Variance of one game's W − L at equal strength: 1 − draw ratio.
    pub game_variance: f64,
    /// c as a fraction of the range.
    pub c_ratio: f64,
    /// Planned games in units of the slowest parameter's λ.
    pub lambda_ratio: f64,
    /// Guessed Elo lost at half the range from the optimum, per parameter.
    pub worth: Vec<f64>,
}

impl AutoselectDesign {
    /// fishtest's defaults for `n` parameters: 0.5 Elo at 95%, draw ratio 0.61, c a
    /// sixth of the range, 3 λ, each parameter worth 2 Elo.
    pub fn reference(n: usize) -> AutoselectDesign {
        AutoselectDesign {
            precision: 0.5,
            confidence: 0.95,
            game_variance: 1.0 - 0.61,
            c_ratio: 1.0 / 6.0,
            lambda_ratio: 3.0,
            worth: vec![2.0; n],
        }
    }

    /// The learning rate a/c², the same for every parameter.
    pub fn r(&self) -> f64 {
        let chi2 = chi_squared_quantile(self.confidence, self.worth.len());
        8.0 * self.precision / (ELO_PER_SCORE * chi2 * self.game_variance)
    }

    /// The perturbation of `param`.
    pub fn c(&self, param: &Param) -> f64 {
        self.c_ratio * f64::from(param.max - param.min)
    }

    /// The games the design plans for `params` (one per entry of `worth`).
    pub fn games(&self, params: &[Param]) -> f64 {
        let r = self.r();
        let slowest = params
            .iter()
            .zip(&self.worth)
            .map(|(p, worth)| {
                let (h, c) = (f64::from(p.max - p.min) / 2.0, self.c(p));
                ELO_PER_SCORE * h * h / (4.0 * r * c * c * worth)
            })
            .fold(0.0, f64::max);
        self.lambda_ratio * slowest
    }

    /// The design that plans `games` games: the precision that budget buys (games
    /// scale as 1/r, and r as the precision).
    pub fn for_games(&self, params: &[Param], games: f64) -> AutoselectDesign {
        AutoselectDesign {
            precision: self.precision * self.games(params) / games,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_design_gives_fishtests_published_figures() {
        let params = |n| vec![Param::new(150.0, 0, 200, None, None); n];
        // n = 4: r = 8 · 0.5 / (347.4356 · 9.487729 · 0.39) = 0.0031114,
        // λ = 347.4356 · 100² / (4 · 0.0031114 · 33.333² · 2) = 125,623, games = 3λ.
        let d = AutoselectDesign::reference(4);
        assert!((d.r() - 0.0031114).abs() < 1e-7, "{}", d.r());
        for (n, published) in [
            (1, 152_589.0),
            (2, 237_991.0),
            (4, 376_868.0),
            (6, 500_158.0),
        ] {
            let games = AutoselectDesign::reference(n).games(&params(n));
            assert!((games - published).abs() < 1.0, "n = {n}: {games}");
        }
    }

    #[test]
    fn a_budget_buys_a_precision() {
        let params = vec![Param::new(150.0, 0, 200, None, None); 4];
        let d = AutoselectDesign::reference(4).for_games(&params, 2.0 * 376_868.0);
        // Twice the games: half the precision (and half the r), same c.
        assert!((d.precision - 0.25).abs() < 1e-5, "{}", d.precision);
        assert!((d.games(&params) - 2.0 * 376_868.0).abs() < 1e-6);
    }
}
