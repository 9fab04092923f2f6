//! True Elo landscapes: the Elo that parameter values lose against the optimum.
//!
//! Every parameter is an integer on [0, 200] with its optimum at 100. With
//! u_j = (θ_j − 100)/100, a parameter's worth E_j is the Elo lost at the edge of its
//! range (|u_j| = 1) with the others at their optimum (vdbergh's convention). Families:
//!
//! - `bowls`: Σ E·u_j², every parameter worth the same;
//! - `unequal`: Σ E_j·u_j², E_j log-uniform on [0.5, 8] Elo (at the quantiles
//!   (j + ½)/n, so the spread is the same in every run);
//! - `quartic`: Σ E·u_j⁴, flat near the optimum and steep at the edges;
//! - `asymmetric`: E·u_j² on the side the start lies on, 4·E·u_j² beyond the optimum
//!   (a cliff: a wide perturbation is pushed away from it);
//! - `correlated`: pairs of parameters with E·(u² + v² + 2ρ·u·v), a valley along
//!   u = −v when ρ > 0.
//!
//! The start lies on the line from the optimum towards a corner (u_j = +1 for even j,
//! −1 for odd j: along the valley of `correlated`, on the gentle side of `asymmetric`),
//! where the loss is the start loss.

/// Bounds of every parameter.
pub const MIN: i32 = 0;
pub const MAX: i32 = 200;
const OPTIMUM: f64 = 100.0;
const HALF_RANGE: f64 = 100.0;
/// How much steeper `asymmetric` is beyond the optimum than on the start's side.
const CLIFF: f64 = 4.0;
/// The range of worths of `unequal`.
const UNEQUAL_WORTH: (f64, f64) = (0.5, 8.0);

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Bowls,
    Unequal,
    Quartic,
    Asymmetric,
    Correlated,
}

#[derive(Clone, Debug)]
pub struct Landscape {
    family: Family,
    worth: Vec<f64>,
    correlation: f64,
}

impl Landscape {
    /// `n` parameters of `family`, each worth `worth` Elo (`unequal` spreads its own).
    pub fn new(family: Family, n: usize, worth: f64, correlation: f64) -> Landscape {
        assert!(correlation.abs() < 1.0, "|correlation| must be below 1");
        let worth = match family {
            Family::Unequal => {
                let (lo, hi) = UNEQUAL_WORTH;
                (0..n)
                    .map(|j| lo * (hi / lo).powf((j as f64 + 0.5) / n as f64))
                    .collect()
            }
            _ => vec![worth; n],
        };
        Landscape {
            family,
            worth,
            correlation,
        }
    }

    pub fn dimension(&self) -> usize {
        self.worth.len()
    }

    /// The direction of the start from the optimum for parameter j.
    fn side(j: usize) -> f64 {
        if j.is_multiple_of(2) { 1.0 } else { -1.0 }
    }

    /// Elo lost at the values `value(j)`.
    fn loss_at(&self, value: impl Fn(usize) -> f64) -> f64 {
        let u = |j: usize| (value(j) - OPTIMUM) / HALF_RANGE;
        let e = &self.worth;
        match self.family {
            Family::Bowls | Family::Unequal => (0..e.len()).map(|j| e[j] * u(j).powi(2)).sum(),
            Family::Quartic => (0..e.len()).map(|j| e[j] * u(j).powi(4)).sum(),
            Family::Asymmetric => (0..e.len())
                .map(|j| {
                    let beyond = u(j) * Landscape::side(j) < 0.0;
                    e[j] * u(j).powi(2) * if beyond { CLIFF } else { 1.0 }
                })
                .sum(),
            Family::Correlated => (0..e.len())
                .step_by(2)
                .map(|j| {
                    if j + 1 < e.len() {
                        let (a, b) = (u(j), u(j + 1));
                        e[j] * (a * a + b * b + 2.0 * self.correlation * a * b)
                    } else {
                        e[j] * u(j).powi(2)
                    }
                })
                .sum(),
        }
    }

    /// Elo lost at θ.
    pub fn loss(&self, theta: &[f64]) -> f64 {
        self.loss_at(|j| theta[j])
    }

    /// Elo of θ+ minus Elo of θ−.
    pub fn elo_difference(&self, plus: &[i32], minus: &[i32]) -> f64 {
        self.loss_at(|j| f64::from(minus[j])) - self.loss_at(|j| f64::from(plus[j]))
    }

    /// The point on the line towards the start corner that loses `start_loss` Elo (the
    /// corner itself if even that loses less).
    pub fn start(&self, start_loss: f64) -> Vec<f64> {
        let at = |l: f64| -> Vec<f64> {
            (0..self.dimension())
                .map(|j| OPTIMUM + l * Landscape::side(j) * HALF_RANGE)
                .collect()
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        if self.loss(&at(hi)) <= start_loss {
            return at(hi);
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if self.loss(&at(mid)) < start_loss {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        at(0.5 * (lo + hi))
    }

    /// One line for reports.
    pub fn describe(&self) -> String {
        let n = self.dimension();
        let name = format!("{:?}", self.family).to_lowercase();
        match self.family {
            Family::Unequal => {
                let (lo, hi) = UNEQUAL_WORTH;
                format!("{name}, {n} parameters worth {lo}..{hi} Elo (log-uniform)")
            }
            Family::Correlated => format!(
                "{name}, {n} parameters worth {} Elo, pairs correlated {}",
                self.worth[0], self.correlation
            ),
            _ => format!("{name}, {n} parameters worth {} Elo", self.worth[0]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worth_is_the_loss_at_the_edge_of_the_range() {
        let bowls = Landscape::new(Family::Bowls, 4, 2.0, 0.0);
        assert_eq!(bowls.loss(&[100.0; 4]), 0.0);
        // One parameter at its edge: 2 Elo; at half way: 2 · 0.5² = 0.5.
        assert_eq!(bowls.loss(&[200.0, 100.0, 100.0, 100.0]), 2.0);
        assert_eq!(bowls.loss(&[100.0, 150.0, 100.0, 100.0]), 0.5);
        // Quartic: 2 · 0.5⁴ = 0.125 at half way.
        let quartic = Landscape::new(Family::Quartic, 1, 2.0, 0.0);
        assert_eq!(quartic.loss(&[50.0]), 0.125);
        // Asymmetric: the first parameter starts above 100; below it is 4× steeper.
        let cliff = Landscape::new(Family::Asymmetric, 1, 2.0, 0.0);
        assert_eq!((cliff.loss(&[150.0]), cliff.loss(&[50.0])), (0.5, 2.0));
    }

    #[test]
    fn unequal_worths_spread_log_uniformly() {
        let l = Landscape::new(Family::Unequal, 4, 2.0, 0.0);
        // 0.5 · 16^((j + ½)/4) = 2^(j − ½): 1/√2, √2, 2√2, 4√2.
        let root2 = std::f64::consts::SQRT_2;
        let expected = [root2 / 2.0, root2, 2.0 * root2, 4.0 * root2];
        for (w, e) in l.worth.iter().zip(expected) {
            assert!((w - e).abs() < 1e-6, "{:?}", l.worth);
        }
        assert_eq!(Landscape::new(Family::Unequal, 1, 2.0, 0.0).worth, [2.0]);
    }

    #[test]
    fn correlated_pairs_have_a_valley_along_the_start() {
        let l = Landscape::new(Family::Correlated, 2, 2.0, 0.8);
        // u = 0.5, v = −0.5: 2 · (0.25 + 0.25 − 2 · 0.8 · 0.25) = 0.2; v = +0.5: 1.8.
        assert!((l.loss(&[150.0, 50.0]) - 0.2).abs() < 1e-12);
        assert!((l.loss(&[150.0, 150.0]) - 1.8).abs() < 1e-12);
    }

    #[test]
    fn the_start_loses_the_start_loss() {
        // vdbergh's start for 4 bowls worth 2 Elo, losing 2 Elo: 150, 50, 150, 50.
        let bowls = Landscape::new(Family::Bowls, 4, 2.0, 0.0);
        let start = bowls.start(2.0);
        for (s, e) in start.iter().zip([150.0, 50.0, 150.0, 50.0]) {
            assert!((s - e).abs() < 1e-9, "{start:?}");
        }
        for family in [Family::Quartic, Family::Asymmetric, Family::Correlated] {
            let l = Landscape::new(family, 3, 2.0, 0.5);
            assert!((l.loss(&l.start(1.0)) - 1.0).abs() < 1e-9, "{family:?}");
        }
        // More than the corner loses: the corner.
        assert_eq!(bowls.start(100.0), vec![200.0, 0.0, 200.0, 0.0]);
    }

    #[test]
    fn the_elo_difference_favours_the_side_nearer_the_optimum() {
        let bowls = Landscape::new(Family::Bowls, 2, 2.0, 0.0);
        // θ+ = (110, 100) loses 0.02; θ− = (130, 100) loses 0.18: θ+ is 0.16 Elo better.
        let d = bowls.elo_difference(&[110, 100], &[130, 100]);
        assert!((d - 0.16).abs() < 1e-12);
    }
}
