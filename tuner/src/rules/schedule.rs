//! SPSA gain sequences and integer perturbations (fishtest/OpenBench conventions, so a
//! parameter's `c_end`/`r_end` mean the same here as there).
//!
//! Per parameter, for N planned pairs and A = 0.1·N:
//!   c = c_end·N^γ,  a = r_end·c_end²·(A+N)^α,  c_k = c/k^γ,  a_k = a/(A+k)^α,
//! so that at k = N the perturbation is `c_end` and `a_k/c_k² = r_end`.

/// The SPSA constants shared by every parameter.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hyper {
    /// Planned number of iterations (game pairs), N.
    pub pairs: u64,
    /// Stability constant A (fishtest: 0.1·N).
    pub big_a: f64,
    pub alpha: f64,
    pub gamma: f64,
}

impl Hyper {
    pub const ALPHA: f64 = 0.602;
    pub const GAMMA: f64 = 0.101;

    pub fn new(pairs: u64, big_a: Option<f64>, alpha: f64, gamma: f64) -> Hyper {
        Hyper {
            pairs,
            big_a: big_a.unwrap_or(0.1 * pairs as f64),
            alpha,
            gamma,
        }
    }
}

/// The gain constants of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecayingGains {
    pub c: f64,
    pub a: f64,
}

impl DecayingGains {
    pub fn new(c_end: f64, r_end: f64, hyper: &Hyper) -> DecayingGains {
        let n = hyper.pairs as f64;
        DecayingGains {
            c: c_end * n.powf(hyper.gamma),
            a: r_end * c_end * c_end * (hyper.big_a + n).powf(hyper.alpha),
        }
    }
}

/// The divisors of the gains at iteration k (1-based): c_k = c/k^γ and a_k = a/(A + k)^α
/// for every parameter, with the powers taken once per iteration rather than once per
/// parameter.
#[derive(Clone, Copy, Debug)]
pub struct Decay {
    c: f64,
    a: f64,
}

impl Decay {
    pub fn at(k: u64, hyper: &Hyper) -> Decay {
        let k = k.max(1) as f64;
        Decay {
            c: k.powf(hyper.gamma),
            a: (hyper.big_a + k).powf(hyper.alpha),
        }
    }

    pub fn c_k(&self, gains: &DecayingGains) -> f64 {
        gains.c / self.c
    }

    pub fn a_k(&self, gains: &DecayingGains) -> f64 {
        gains.a / self.a
    }
}

/// The two integer values played in one pair for one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Realised {
    pub plus: i32,
    pub minus: i32,
}

impl Realised {
    /// Half the realised distance between θ+ and θ−, signed along the flip: what the
    /// update divides by in place of the nominal c_k.
    pub fn half_difference(&self) -> f64 {
        (self.plus - self.minus) as f64 / 2.0
    }
}

/// Integer θ± for one parameter.
///
/// Both sides use the same rounding draw `u` ∈ [0, 1): `floor(θ ± c_k·Δ + u)`, so the
/// pair is centred on an unbiased stochastic rounding of θ. When c_k is so small that
/// both round to the same integer m, the pair becomes m ± Δ (a perturbation of at least
/// one unit). Near a bound the pair is shifted inwards as a whole, keeping it symmetric,
/// rather than clipping one side (which would bias the gradient).
pub fn realise(theta: f64, c_k: f64, flip: i8, u: f64, min: i32, max: i32) -> Realised {
    debug_assert!(flip == 1 || flip == -1);
    debug_assert!((0.0..1.0).contains(&u));
    let d = f64::from(flip) * c_k;
    let mut plus = (theta + d + u).floor() as i64;
    let mut minus = (theta - d + u).floor() as i64;
    if plus == minus {
        plus += i64::from(flip);
        minus -= i64::from(flip);
    }
    let (min, max) = (i64::from(min), i64::from(max));
    let (mut lo, mut hi) = (plus.min(minus), plus.max(minus));
    if hi - lo > max - min {
        // The bounds are narrower than the perturbation: use the whole range.
        lo = min;
        hi = max;
    } else if hi > max {
        lo -= hi - max;
        hi = max;
    } else if lo < min {
        hi += min - lo;
        lo = min;
    }
    if plus >= minus {
        plus = hi;
        minus = lo;
    } else {
        plus = lo;
        minus = hi;
    }
    Realised {
        plus: plus as i32,
        minus: minus as i32,
    }
}

/// The SPSA step for one parameter after a pair: `a_k / h · (W − L) · Δ`, with `h` the
/// realised half-difference (so `h·Δ > 0`), and `W − L` the pair result of θ+ in −2..=2.
/// A degenerate pair (min == max) does not move.
pub fn step(a_k: f64, realised: Realised, flip: i8, wins_minus_losses: i32) -> f64 {
    let h = realised.half_difference().abs();
    if h == 0.0 {
        return 0.0;
    }
    a_k / h * f64::from(wins_minus_losses) * f64::from(flip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_match_the_fishtest_formulas() {
        let hyper = Hyper::new(1000, None, Hyper::ALPHA, Hyper::GAMMA);
        assert_eq!(hyper.big_a, 100.0);
        let g = DecayingGains::new(4.0, 0.002, &hyper);
        // c = 4 · 1000^0.101 = 8.0364; a = 0.002 · 16 · 1100^0.602 = 2.1680
        assert!((g.c - 4.0 * 1000f64.powf(0.101)).abs() < 1e-12);
        assert!((g.c - 8.0364).abs() < 1e-3, "{}", g.c);
        assert!((g.a - 2.1680).abs() < 1e-3, "{}", g.a);
        // At k = N: c_k = c_end and a_k / c_k² = r_end.
        let at = |k| Decay::at(k, &hyper);
        assert!((at(1000).c_k(&g) - 4.0).abs() < 1e-9);
        let (a_n, c_n) = (at(1000).a_k(&g), at(1000).c_k(&g));
        assert!((a_n / (c_n * c_n) - 0.002).abs() < 1e-12);
        // Early iterations perturb more and learn faster.
        assert!(at(1).c_k(&g) > at(500).c_k(&g));
        assert!(at(1).a_k(&g) > at(500).a_k(&g));
    }

    #[test]
    fn integer_pairs_are_symmetric_at_least_one_apart_and_in_bounds() {
        let mut rng = 0x1234_5678_u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20_000 {
            let (min, max) = (-5 + (next() * 10.0) as i32, 10 + (next() * 50.0) as i32);
            let theta = min as f64 + next() * (max - min) as f64;
            let c_k = next() * 8.0;
            let flip = if next() < 0.5 { 1 } else { -1 };
            let u = next();
            let r = realise(theta, c_k, flip, u, min, max);
            assert!((min..=max).contains(&r.plus) && (min..=max).contains(&r.minus));
            assert!(r.half_difference() * f64::from(flip) >= 0.5, "{r:?}");
            // Away from the bounds the realised distance tracks 2·c_k within rounding.
            if theta - c_k - 2.0 > min as f64 && theta + c_k + 2.0 < max as f64 {
                let diff = (r.plus - r.minus).abs();
                assert!(
                    diff == 2 || (diff as f64 - 2.0 * c_k).abs() <= 1.0,
                    "{r:?} {c_k}"
                );
            }
        }
    }

    #[test]
    fn rounding_is_shared_and_unbiased() {
        // The same u moves both sides together: θ = 10.4, c_k = 2, u = 0.5 → 12 and 8.
        assert_eq!(
            realise(10.4, 2.0, 1, 0.5, 0, 100),
            Realised { plus: 12, minus: 8 }
        );
        assert_eq!(
            realise(10.4, 2.0, -1, 0.5, 0, 100),
            Realised { plus: 8, minus: 12 }
        );
        // Averaged over u, the centre of the pair is θ.
        let n = 10_000;
        let centre: f64 = (0..n)
            .map(|i| {
                let r = realise(10.3, 2.0, 1, (i as f64 + 0.5) / n as f64, 0, 100);
                f64::from(r.plus + r.minus) / 2.0
            })
            .sum::<f64>()
            / n as f64;
        assert!((centre - 10.3).abs() < 1e-3, "{centre}");
    }

    #[test]
    fn a_pair_at_a_bound_is_shifted_not_clipped() {
        let r = realise(99.6, 3.0, 1, 0.2, 0, 100);
        assert_eq!(
            r,
            Realised {
                plus: 100,
                minus: 94
            }
        );
        let r = realise(0.0, 3.0, -1, 0.9, 0, 100);
        assert_eq!(r, Realised { plus: 0, minus: 6 });
        // Bounds narrower than the perturbation: the whole range.
        assert_eq!(
            realise(1.0, 5.0, 1, 0.0, 0, 2),
            Realised { plus: 2, minus: 0 }
        );
        // Tiny c_k still perturbs by at least one unit each way.
        assert_eq!(
            realise(7.2, 0.1, 1, 0.1, 0, 100),
            Realised { plus: 8, minus: 6 }
        );
    }

    #[test]
    fn steps_follow_the_result_and_the_flip() {
        let r = Realised { plus: 12, minus: 8 };
        assert_eq!(step(1.0, r, 1, 2), 1.0);
        assert_eq!(step(1.0, r, 1, -1), -0.5);
        let r = Realised { plus: 8, minus: 12 };
        assert_eq!(step(1.0, r, -1, 2), -1.0);
        assert_eq!(step(1.0, r, -1, 0), 0.0);
    }
}
