//! `tuner texel POSITIONS params/pknet.json`: the pawn-king network
//! (`occam::eval::pknet`) fitted as the residual of the hand-written evaluation.
//!
//! The evaluation without the network is computed once per position (White's view)
//! with its phase and drawish scale; the network's middlegame and endgame outputs add
//! to it through the same phase shares, so the loss is the Texel loss of the whole
//! evaluation (the engine adds the network after the complexity term, which therefore
//! stays the hand-written evaluation's; the drawish scale is too, though it depends on
//! the sign of the score, which the network rarely flips). The weights are fitted as reals in the file's integer
//! units by Adam on shuffled mini-batches, with an L2 pull towards zero per --reg,
//! early-stopped on the held-out tenth. A network of zeros (or any, with --restart)
//! starts from seeded random input weights and zero outputs, so the fit starts at the
//! hand-written evaluation's loss. The rounded weights are then checked through the
//! engine's own evaluation: its held-out loss is reported beside the fit's, before
//! and after.

use std::collections::HashMap;

use anyhow::{Result, anyhow, bail};
use occam::Params;
use occam::eval::pknet::{
    self, BIAS, HIDDEN, INPUT_SCALE, MAX_ACTIVE, OUT_EG, OUT_MG, OUTPUT_SCALE, WEIGHTS,
};
use occam::eval::{Evaluator, PHASE_MAX};
use occam::position::Position;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use shakmaty::{Color, Position as _};

use super::Args;
use super::data::decode;
use super::model::{Losses, Set, golden_k, sigmoid};
use crate::param_files::ParamFile;

/// The group of a network's parameter file.
pub const GROUP: &str = "pknet";
/// Positions per Adam step.
const BATCH: usize = 4096;
/// Seed of the random start and of the batch order.
const SEED: u64 = 0x0070_6b6e_6574;
/// A zero network's input weights start uniform within ± this (file units): each
/// view has about 18 inputs on, so a unit starts near one activation.
const INIT_SPAN: f32 = 128.0;
/// Output units to centipawns.
const CP: f32 = 1.0 / (INPUT_SCALE * OUTPUT_SCALE) as f32;

/// One position as the fit sees it.
struct Sample {
    /// The evaluation without the network, White's view, cp.
    base: f32,
    /// d eval / d (network mg, eg): phase share × scale.
    share: [f32; 2],
    target: f32,
    result: f32,
    /// The inputs on in White's view and in Black's, and how many of each.
    inputs: [[u8; MAX_ACTIVE]; 2],
    counts: [u8; 2],
}

impl Sample {
    fn view(&self, v: usize) -> &[u8] {
        &self.inputs[v][..self.counts[v] as usize]
    }
}

/// The network's weights: layout index -> entry index in the file.
fn layout(file: &ParamFile) -> Result<Vec<usize>> {
    let by_name: HashMap<&str, usize> = file
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    if file.entries.len() != WEIGHTS {
        bail!(
            "{} has {} entries; the pawn-king network has {WEIGHTS} weights (scripts/gen_pknet_params.py writes them)",
            file.path.display(),
            file.entries.len()
        );
    }
    (0..WEIGHTS)
        .map(|k| {
            let name = pknet::weight_name(k);
            by_name
                .get(name.as_str())
                .copied()
                .ok_or_else(|| anyhow!("{} lacks the network weight {name}", file.path.display()))
        })
        .collect()
}

/// Fits the network of `file` (its values laid over `params`); returns the file's new
/// values.
/// Refuses what does not apply to a network's file, before any position is read.
pub fn check(args: &Args, file: &ParamFile) -> Result<()> {
    if !args.params.is_empty() {
        bail!(
            "--params picks weights of an evaluation file; a network ({}) is fitted whole",
            file.path.display()
        );
    }
    layout(file).map(|_| ())
}

pub fn fit(
    args: &Args,
    file: &ParamFile,
    params: &Params,
    train: Set,
    valid: Set,
) -> Result<Vec<i32>> {
    let entry_of = layout(file)?;
    let indices = pknet::param_indices()
        .ok_or_else(|| anyhow!("this build has no pawn-king network (params/pknet.json)"))?;
    let mut hand = params.clone();
    for &i in indices {
        hand.set(i, 0)
            .expect("0 is within every network weight's range");
    }
    let (mut train, mut valid) = (train, valid);
    let (mut train_samples, mut valid_samples) = (samples(&hand, &train), samples(&hand, &valid));
    let k = match args.k {
        Some(k) => k,
        None => golden_k(|k| base_loss(&train_samples, k)),
    };
    for (set, samples) in [
        (&mut train, &mut train_samples),
        (&mut valid, &mut valid_samples),
    ] {
        set.set_targets(k, args.lambda);
        for (s, &target) in samples.iter_mut().zip(set.targets()) {
            s.target = target;
        }
    }
    let start: Vec<f32> = entry_of
        .iter()
        .map(|&i| file.entries[i].value as f32)
        .collect();
    let bounds: Vec<(f32, f32)> = entry_of
        .iter()
        .map(|&i| (file.entries[i].min as f32, file.entries[i].max as f32))
        .collect();
    let start = if args.restart || start.iter().all(|&x| x == 0.0) {
        random_start()
    } else {
        start
    };
    let k = k as f32;
    let held_out = |w: &[f32]| {
        losses(
            if valid_samples.is_empty() {
                &train_samples
            } else {
                &valid_samples
            },
            w,
            k,
        )
    };
    let before = held_out(&start);
    eprintln!(
        "texel: network of {WEIGHTS} weights, K = {k:.6}, {} train + {} held-out positions; held-out loss at the start {:.6} (result only {:.6})",
        train_samples.len(),
        valid_samples.len(),
        before.target,
        before.result
    );
    let mut best: Option<(Vec<f32>, f64)> = None;
    for &reg in &args.reg {
        let (w, loss) = descend(
            args,
            &train_samples,
            &valid_samples,
            &start,
            &bounds,
            k,
            reg as f32,
        );
        eprintln!("texel: --reg {reg:e}: best held-out loss {loss:.6}");
        if best.as_ref().is_none_or(|b| loss < b.1) {
            best = Some((w, loss));
        }
    }
    let (w, _) = best.expect("at least one --reg value");
    let rounded: Vec<i32> = w
        .iter()
        .zip(&bounds)
        .map(|(x, (lo, hi))| x.round().clamp(*lo, *hi) as i32)
        .collect();
    let after = held_out(&rounded.iter().map(|&x| x as f32).collect::<Vec<_>>());
    let mut values: Vec<i32> = file.entries.iter().map(|e| e.value).collect();
    for (k, &i) in entry_of.iter().enumerate() {
        values[i] = rounded[k];
    }
    let mut fitted = params.clone();
    for (&i, &v) in indices.iter().zip(&rounded) {
        fitted.set(i, v)?;
    }
    let check = if valid.len() > 0 { &valid } else { &train };
    let engine = [params, &fitted].map(|p| engine_losses(p, check, k as f64));
    println!(
        "held-out loss, the fit's: start {:.6}, after {:.6} (result only {:.6}, {:.6})",
        before.target, after.target, before.result, after.result
    );
    println!(
        "held-out loss, the engine's evaluation: the file's weights {:.6}, the fitted {:.6} (result only {:.6}, {:.6})",
        engine[0].target, engine[1].target, engine[0].result, engine[1].result
    );
    println!(
        "K {k:.6}, {} train + {} held-out positions, {} weights changed",
        train.len(),
        valid.len(),
        values
            .iter()
            .zip(&file.entries)
            .filter(|(v, e)| **v != e.value)
            .count()
    );
    Ok(values)
}

/// Each position of `set` with the hand-written evaluation `hand` (targets later).
fn samples(hand: &Params, set: &Set) -> Vec<Sample> {
    let labelled: Vec<_> = set.records().iter().zip(set.results()).collect();
    labelled
        .par_chunks(4096)
        .flat_map_iter(|chunk| {
            let mut e = Evaluator::new(hand);
            chunk
                .iter()
                .map(|&(rec, &result)| sample(&mut e, &decode(rec), result))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn sample(e: &mut Evaluator, pos: &Position, result: f32) -> Sample {
    let c = e.coefficients(pos);
    let scale = c.scale as f32 / 100.0;
    let phase = c.phase as f32 / PHASE_MAX as f32;
    let own = e.evaluate(pos) as f32;
    let base = if pos.turn() == Color::White {
        own
    } else {
        -own
    };
    let board = pos.board().board();
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    let kings = [Color::White, Color::Black]
        .map(|c| board.king_of(c).expect("legal positions have kings") as u8);
    let views =
        [Color::White, Color::Black].map(|us| pknet::active_inputs(white, black, kings, us));
    Sample {
        base,
        share: [phase * scale, (1.0 - phase) * scale],
        target: result,
        result,
        inputs: [views[0].0, views[1].0],
        counts: [views[0].1 as u8, views[1].1 as u8],
    }
}

/// Mean loss of the hand-written evaluation against the results, for K.
fn base_loss(samples: &[Sample], k: f64) -> f64 {
    let (sum, n) = samples
        .par_iter()
        .map(|s| (f64::from(s.result) - sigmoid(k, f64::from(s.base))).powi(2))
        .fold(|| (0.0, 0usize), |(a, n), x| (a + x, n + 1))
        .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    sum / n.max(1) as f64
}

/// Seeded random input weights, zero biases and outputs.
fn random_start() -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(SEED);
    (0..WEIGHTS)
        .map(|k| {
            if k < BIAS {
                rng.random_range(-INIT_SPAN..=INIT_SPAN).round()
            } else {
                0.0
            }
        })
        .collect()
}

/// A view's hidden sums (file units: 1/INPUT_SCALE of an activation).
#[inline]
fn hidden(w: &[f32], inputs: &[u8]) -> [f32; HIDDEN] {
    let mut acc: [f32; HIDDEN] = w[BIAS..BIAS + HIDDEN].try_into().expect("HIDDEN biases");
    for &i in inputs {
        let row = &w[i as usize * HIDDEN..][..HIDDEN];
        for (a, x) in acc.iter_mut().zip(row) {
            *a += x;
        }
    }
    acc
}

/// The whole evaluation (White's view, cp) and both views' hidden sums.
#[inline]
fn forward(s: &Sample, w: &[f32]) -> (f32, [[f32; HIDDEN]; 2]) {
    let acc = [hidden(w, s.view(0)), hidden(w, s.view(1))];
    let (mut mg, mut eg) = (0.0, 0.0);
    for j in 0..HIDDEN {
        let dh = acc[0][j].max(0.0) - acc[1][j].max(0.0);
        mg += dh * w[OUT_MG + j];
        eg += dh * w[OUT_EG + j];
    }
    (s.base + CP * (s.share[0] * mg + s.share[1] * eg), acc)
}

/// The expected score of evaluation `e` (centipawns): model.rs's `sigmoid` in the f32
/// of the network's fit.
#[inline]
fn sigmoid_f32(k: f32, e: f32) -> f32 {
    1.0 / (1.0 + (-k * e).exp())
}

/// Adds the gradient of sample `s`'s loss to `g`; returns its loss against the target.
#[inline]
fn backward(s: &Sample, w: &[f32], k: f32, g: &mut [f32]) -> f32 {
    let (e, acc) = forward(s, w);
    let p = sigmoid_f32(k, e);
    let d = 2.0 * (p - s.target) * p * (1.0 - p) * k * CP;
    for j in 0..HIDDEN {
        let dh = acc[0][j].max(0.0) - acc[1][j].max(0.0);
        g[OUT_MG + j] += d * s.share[0] * dh;
        g[OUT_EG + j] += d * s.share[1] * dh;
        let back = d * (s.share[0] * w[OUT_MG + j] + s.share[1] * w[OUT_EG + j]);
        for (view, sign) in [(0, 1.0), (1, -1.0)] {
            if acc[view][j] > 0.0 {
                let gj = sign * back;
                g[BIAS + j] += gj;
                for &i in s.view(view) {
                    g[i as usize * HIDDEN + j] += gj;
                }
            }
        }
    }
    (s.target - p) * (s.target - p)
}

/// Mean losses of `samples` at `w`.
fn losses(samples: &[Sample], w: &[f32], k: f32) -> Losses {
    if samples.is_empty() {
        return Losses::default();
    }
    let (t, r) = samples
        .par_iter()
        .map(|s| {
            let p = f64::from(sigmoid_f32(k, forward(s, w).0));
            (
                (f64::from(s.target) - p).powi(2),
                (f64::from(s.result) - p).powi(2),
            )
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let n = samples.len() as f64;
    Losses {
        target: t / n,
        result: r / n,
    }
}

/// Adam over shuffled mini-batches for --epochs; the weights of the epoch with the
/// lowest held-out loss and that loss.
fn descend(
    args: &Args,
    train: &[Sample],
    valid: &[Sample],
    start: &[f32],
    bounds: &[(f32, f32)],
    k: f32,
    reg: f32,
) -> (Vec<f32>, f64) {
    let started = std::time::Instant::now();
    let check = |w: &[f32]| losses(if valid.is_empty() { train } else { valid }, w, k).target;
    let mut w = start.to_vec();
    let mut best = (w.clone(), check(&w), 0);
    let (mut m, mut v) = (vec![0.0f32; WEIGHTS], vec![0.0f32; WEIGHTS]);
    let (b1, b2, eps, lr) = (0.9f32, 0.999f32, 1e-8f32, args.lr as f32);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = StdRng::seed_from_u64(SEED ^ 1);
    let mut step = 0;
    for epoch in 1..=args.epochs {
        order.shuffle(&mut rng);
        let mut train_loss = 0.0f64;
        for batch in order.chunks(BATCH) {
            let (mut g, loss) = batch
                .par_chunks(256)
                .fold(
                    || (vec![0.0f32; WEIGHTS], 0.0f64),
                    |(mut g, loss), chunk| {
                        let l: f32 = chunk
                            .iter()
                            .map(|&i| backward(&train[i as usize], &w, k, &mut g))
                            .sum();
                        (g, loss + f64::from(l))
                    },
                )
                .reduce(
                    || (vec![0.0f32; WEIGHTS], 0.0),
                    |(mut a, la), (b, lb)| {
                        a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                        (a, la + lb)
                    },
                );
            train_loss += loss;
            step += 1;
            let n = batch.len() as f32;
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            for j in 0..WEIGHTS {
                let gj = g[j] / n + 2.0 * reg * w[j];
                g[j] = gj;
                m[j] = b1 * m[j] + (1.0 - b1) * gj;
                v[j] = b2 * v[j] + (1.0 - b2) * gj * gj;
                w[j] = (w[j] - lr * (m[j] / c1) / ((v[j] / c2).sqrt() + eps))
                    .clamp(bounds[j].0, bounds[j].1);
            }
        }
        let held_out = check(&w);
        if held_out < best.1 {
            best = (w.clone(), held_out, epoch);
        }
        eprintln!(
            "texel: network reg {reg:e} epoch {epoch}: train {:.6}, held out {held_out:.6} ({:.1} s)",
            train_loss / train.len().max(1) as f64,
            started.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "texel: network reg {reg:e}: lowest held-out loss at epoch {} of {}",
        best.2, args.epochs
    );
    (best.0, best.1)
}

/// Mean losses of the engine's own evaluation with `params` over `set`.
fn engine_losses(params: &Params, set: &Set, k: f64) -> Losses {
    let labelled: Vec<_> = (set.records().iter())
        .zip(set.results())
        .zip(set.targets())
        .map(|((rec, r), t)| (rec, r, t))
        .collect();
    if labelled.is_empty() {
        return Losses::default();
    }
    let (t, r) = labelled
        .par_chunks(4096)
        .map(|chunk| {
            let mut e = Evaluator::new(params);
            chunk
                .iter()
                .fold((0.0, 0.0), |(t, r), &(rec, &result, &target)| {
                    let pos = decode(rec);
                    let own = f64::from(e.evaluate(&pos));
                    let white = if pos.turn() == Color::White {
                        own
                    } else {
                        -own
                    };
                    let p = sigmoid(k, white);
                    (
                        t + (f64::from(target) - p).powi(2),
                        r + (f64::from(result) - p).powi(2),
                    )
                })
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let n = labelled.len() as f64;
    Losses {
        target: t / n,
        result: r / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The network's weights at random (seeded), as the fit holds them and as the
    /// engine's parameters.
    fn random_network(params: &Params) -> (Vec<f32>, Params) {
        let mut rng = StdRng::seed_from_u64(3);
        let w: Vec<f32> = (0..WEIGHTS)
            .map(|k| {
                let span = if k >= OUT_MG { 3000 } else { 300 };
                rng.random_range(-span..=span) as f32
            })
            .collect();
        let mut p = params.clone();
        for (&i, &x) in pknet::param_indices().unwrap().iter().zip(&w) {
            p.set(i, x as i32).unwrap();
        }
        (w, p)
    }

    /// The fit's evaluation is the engine's, up to the engine's rounding: positions
    /// with both kings sheltered, open, in the endgame, and with Black to move.
    #[test]
    fn the_fit_s_forward_pass_is_the_engine_s() {
        let mut hand = Params::default();
        for &i in pknet::param_indices().unwrap() {
            hand.set(i, 0).unwrap();
        }
        let (w, with_net) = random_network(&hand);
        let mut base = Evaluator::new(&hand);
        let mut engine = Evaluator::new(&with_net);
        let mut moved = 0.0f32;
        for fen in [
            occam::position::START_FEN,
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQ1RK1 w - - 0 1",
            "r4rk1/pp3ppp/2p1b3/4q3/2B1P1n1/2N3Q1/PPP3PP/R4RK1 b - - 0 16",
            "8/5pk1/6p1/8/3B4/6P1/5PK1/2b5 b - - 0 40",
            "4k3/pp4pp/8/3P4/8/8/P5PP/4K3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen, false).unwrap();
            let s = sample(&mut base, &pos, 0.5);
            let own = engine.evaluate(&pos) as f32;
            let exact = if pos.turn() == Color::White {
                own
            } else {
                -own
            };
            let (fit, _) = forward(&s, &w);
            assert!(
                (fit - exact).abs() < 4.0,
                "{fen}: fit {fit}, engine {exact}"
            );
            moved = moved.max((fit - s.base).abs());
        }
        assert!(moved > 20.0, "the network moved the evaluation ({moved})");
    }

    /// The gradient points downhill: a small step against it lowers the loss.
    #[test]
    fn the_gradient_points_downhill() {
        let (w, _) = random_network(&Params::default());
        let mut e = Evaluator::new(&Params::default());
        let fens = [
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQ1RK1 w - - 0 1",
            "4k3/pp4pp/8/3P4/8/8/P5PP/4K3 w - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",
        ];
        let samples: Vec<Sample> = fens
            .iter()
            .zip([1.0, 0.0, 0.5])
            .map(|(fen, r)| sample(&mut e, &Position::from_fen(fen, false).unwrap(), r))
            .collect();
        let k = 0.004;
        let mut g = vec![0.0f32; WEIGHTS];
        for s in &samples {
            backward(s, &w, k, &mut g);
        }
        let norm = g.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(norm > 0.0);
        let stepped: Vec<f32> = w.iter().zip(&g).map(|(x, d)| x - 0.5 * d / norm).collect();
        assert!(losses(&samples, &stepped, k).target < losses(&samples, &w, k).target);
    }
}
