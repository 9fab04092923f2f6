//! The fit itself: each position stored once in linear form (its feature counts and
//! phase shares, plus the gradients of the non-linear weights), the loss and its
//! gradient over a set, Adam with early stopping on the held-out set, and K.

use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use occam::Params;
use occam::eval::{Coefficients, Evaluator, PHASE_MAX, S, features};
use occam::params::PARAM_SPECS;
use occam::position::Position;
use rayon::prelude::*;
use shakmaty::{Color, Position as _};

use super::Args;
use super::data::{Merged, decode};
use crate::datagen_file::RECORD;
use crate::param_files::{ParamFile, Selector};

/// Epochs between held-out checkpoints.
const CHECK_EVERY: u32 = 10;

/// A set of positions (train or held out) in linear form, stored flat.
#[derive(Default)]
pub struct Set {
    recs: Vec<[u8; RECORD]>,
    result: Vec<f32>,
    /// Search score (cp, White's view), NaN when none.
    pub score: Vec<f32>,
    /// The fitted target (`set_targets`).
    target: Vec<f32>,
    /// Evaluation part that does not move with the tuned weights at the linearisation
    /// point (White's view, cp).
    constant: Vec<f32>,
    /// d eval / d (mg weight, eg weight) per unit of feature count: phase share × scale.
    share: Vec<[f32; 2]>,
    /// Position i's features are `terms[start[i]..start[i + 1]]`: (feature, count).
    start: Vec<u32>,
    terms: Vec<(u16, i16)>,
    /// Position i's non-linear gradients: `nl[nl_start[i]..nl_start[i + 1]]`, (slot, d eval / d weight).
    nl_start: Vec<u32>,
    nl: Vec<(u32, f32)>,
    /// The rounded weights of the last linearisation (none yet: empty).
    at: Vec<f64>,
}

impl Set {
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    pub fn push(&mut self, m: Merged) {
        self.recs.push(m.rec);
        self.result.push(m.result);
        self.score.push(m.score);
    }

    /// `λ·result + (1−λ)·sigmoid(K·score)`; the result alone without a score.
    pub fn set_targets(&mut self, k: f64, lambda: f64) {
        self.target = self
            .result
            .iter()
            .zip(&self.score)
            .map(|(&r, &s)| {
                if s.is_nan() {
                    r
                } else {
                    (lambda * f64::from(r) + (1.0 - lambda) * sigmoid(k, f64::from(s))) as f32
                }
            })
            .collect();
    }

    /// Each position's record.
    pub fn records(&self) -> &[[u8; RECORD]] {
        &self.recs
    }

    /// Each position's mean game result (White's view).
    pub fn results(&self) -> &[f32] {
        &self.result
    }

    /// Each position's fitted target (empty before `set_targets`).
    pub fn targets(&self) -> &[f32] {
        &self.target
    }

    /// Position `i`'s non-linear gradients: (slot, d eval / d weight).
    fn nonlinear_of(&self, i: usize) -> &[(u32, f32)] {
        &self.nl[self.nl_start[i] as usize..self.nl_start[i + 1] as usize]
    }

    /// Heap bytes of the linear form (for the report).
    pub fn bytes(&self) -> usize {
        self.len() * (RECORD + 4 * 4 + 8 + 8) + self.terms.len() * 4 + self.nl.len() * 8
    }
}

/// The linear form of a run of positions, built in parallel and appended.
#[derive(Default)]
struct Linear {
    constant: Vec<f32>,
    share: Vec<[f32; 2]>,
    counts: Vec<u32>,
    terms: Vec<(u16, i16)>,
    nl_counts: Vec<u32>,
    nl: Vec<(u32, f32)>,
}

/// A non-linear parameter: its tuned slot, engine index, bounds and difference step.
#[derive(Clone, Copy)]
pub struct NonLinear {
    slot: u32,
    param: usize,
    min: i32,
    max: i32,
    step: i32,
}

/// The tuned weights and how the evaluation reads them.
pub struct Model {
    /// Entry index in the file, per tuned slot.
    pub tuned: Vec<usize>,
    /// Engine parameter index per tuned slot.
    param_of_slot: Vec<usize>,
    /// Per feature: the tuned slot of its (mg, eg) weight, if tuned.
    feature_slot: Vec<[Option<u32>; 2]>,
    /// Per feature: its (mg, eg) weight when not tuned.
    fixed: Vec<[f64; 2]>,
    pub nonlinear: Vec<NonLinear>,
    pub start: Vec<f64>,
    bounds: Vec<(f64, f64)>,
    /// The file's values laid over the compiled ones.
    params: Params,
    /// The features of the intact castled king's shelter sum, the zero of
    /// `king_danger_shelter_pct` (`Evaluator::shelter_reference_counts`).
    shelter_reference: Vec<(u16, i16)>,
}

/// The shelter weights' path into king danger at a linearisation point:
/// `king_danger_shelter_pct` of the shortfall of each king's shelter sum from an
/// intact castled king's joins its danger count, which scores `-danger² / quadratic_div`
/// (middlegame) and `-danger / linear_div` (endgame) when positive.
#[derive(Clone, Copy)]
struct ShelterPath {
    /// `king_danger_shelter_pct` / 100.
    share: f64,
    quadratic_div: f64,
    linear_div: f64,
}

impl ShelterPath {
    /// The path at the parameters `p`, or `None` when king danger takes no share of
    /// the shelter (the shelter weights are then linear alone).
    fn at(p: &Params) -> Option<ShelterPath> {
        (p.king_danger_shelter_pct() != 0).then(|| ShelterPath {
            share: f64::from(p.king_danger_shelter_pct()) / 100.0,
            quadratic_div: f64::from(p.king_danger_quadratic_div().max(1)),
            linear_div: f64::from(p.king_danger_linear_div().max(1)),
        })
    }

    /// d (White's evaluation) / d (one point of `side`'s shelter shortfall) for a
    /// position whose `side` (0 White, 1 Black) has king-danger count `danger` > 0,
    /// with phase-and-scale shares `share` (mg, eg).
    fn slope(&self, side: usize, danger: i32, share: [f64; 2]) -> f64 {
        let sign = if side == 0 { 1.0 } else { -1.0 };
        let d = f64::from(danger);
        let per_danger = -2.0 * d / self.quadratic_div * share[0] - share[1] / self.linear_div;
        sign * per_danger * self.share
    }
}

impl Model {
    pub fn new(file: &ParamFile, params: &Params, wanted: &[String], path: &Path) -> Result<Model> {
        let engine_index = file.bind::<Params>()?;
        let selected = Selector::parse(wanted).pick(&file.names())?;
        let read_by_features: std::collections::HashSet<usize> = features::params()
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        let mut slot_of_param = vec![None; PARAM_SPECS.len()];
        let (mut tuned, mut param_of_slot, mut nonlinear) = (Vec::new(), Vec::new(), Vec::new());
        for i in selected {
            let spec = engine_index[i];
            let e = &file.entries[i];
            if e.unit == "flag" {
                // A flag switches the evaluation's form: no gradient says which form
                // is better, a match does.
                continue;
            }
            let slot = tuned.len() as u32;
            if !read_by_features.contains(&spec) {
                if file.group != "eval" {
                    continue;
                }
                // A weight the evaluation reads outside the features: gradient by
                // central differences, step 1/64 of its range.
                nonlinear.push(NonLinear {
                    slot,
                    param: spec,
                    min: e.min,
                    max: e.max,
                    step: ((e.max - e.min) / 64).max(1),
                });
            }
            slot_of_param[spec] = Some(slot);
            tuned.push(i);
            param_of_slot.push(spec);
        }
        if tuned.is_empty() {
            bail!(
                "no evaluation weight of {} matches --params '{}' (only weights of an eval file are tuned)",
                path.display(),
                wanted.join(",")
            );
        }
        let feature_slot: Vec<[Option<u32>; 2]> = features::params()
            .iter()
            .map(|pair| pair.map(|p| p.and_then(|p| slot_of_param[p])))
            .collect();
        let shelter_reference = Evaluator::new(params).shelter_reference_counts();
        let fixed = features::params()
            .iter()
            .map(|pair| pair.map(|p| p.map_or(0.0, |p| f64::from(params.get(p)))))
            .collect();
        let start = tuned
            .iter()
            .map(|&i| f64::from(file.entries[i].value))
            .collect();
        let bounds = tuned
            .iter()
            .map(|&i| {
                let e = &file.entries[i];
                (f64::from(e.min), f64::from(e.max))
            })
            .collect();
        Ok(Model {
            tuned,
            param_of_slot,
            feature_slot,
            fixed,
            nonlinear,
            start,
            bounds,
            params: params.clone(),
            shelter_reference,
        })
    }

    /// The engine parameters with the tuned slots at `w` (rounded, within bounds).
    fn params_at(&self, w: &[f64]) -> Params {
        let mut p = self.params.clone();
        for (slot, &param) in self.param_of_slot.iter().enumerate() {
            let (lo, hi) = self.bounds[slot];
            p.set(param, w[slot].round().clamp(lo, hi) as i32)
                .expect("within the file's bounds");
        }
        p
    }

    /// Each feature's current (mg, eg) weight.
    fn feature_weights(&self, w: &[f64]) -> Vec<[f64; 2]> {
        self.feature_slot
            .iter()
            .zip(&self.fixed)
            .map(|(slots, fixed)| [0, 1].map(|ph| slots[ph].map_or(fixed[ph], |s| w[s as usize])))
            .collect()
    }

    /// Rebuilds the linear form of every position of `set` at the weights `w`.
    pub fn linearise(&self, set: &mut Set, w: &[f64]) {
        let rounded: Vec<f64> = w.iter().map(|x| x.round()).collect();
        if set.at == rounded && set.start.len() == set.len() + 1 {
            return;
        }
        set.at = rounded;
        let at = self.params_at(w);
        // Evaluators with each non-linear weight stepped down and up, and with all of
        // them stepped together (a position that none of them moves is skipped).
        let stepped = |sign: i32, only: Option<usize>| {
            let mut p = at.clone();
            for (i, n) in self.nonlinear.iter().enumerate() {
                if only.is_none_or(|o| o == i) {
                    let v = (p.get(n.param) + sign * n.step).clamp(n.min, n.max);
                    p.set(n.param, v).expect("clamped to bounds");
                }
            }
            p
        };
        let variants: Vec<Params> = std::iter::once(at.clone())
            .chain([stepped(-1, None), stepped(1, None)])
            .chain(
                (0..self.nonlinear.len()).flat_map(|i| [stepped(-1, Some(i)), stepped(1, Some(i))]),
            )
            .collect();
        let deltas: Vec<f64> = self
            .nonlinear
            .iter()
            .map(|n| {
                let v = at.get(n.param);
                f64::from((v + n.step).clamp(n.min, n.max) - (v - n.step).clamp(n.min, n.max))
            })
            .collect();
        let path = ShelterPath::at(&at);
        let parts: Vec<Linear> = set
            .recs
            .par_chunks(4096)
            .map(|chunk| {
                let mut evals: Vec<Evaluator> = variants.iter().map(Evaluator::new).collect();
                let mut lin = Linear::default();
                for rec in chunk {
                    self.linearise_one(&mut evals, &deltas, path, w, &decode(rec), &mut lin);
                }
                lin
            })
            .collect();
        set.constant.clear();
        set.share.clear();
        set.terms.clear();
        set.nl.clear();
        set.start = vec![0];
        set.nl_start = vec![0];
        for part in parts {
            set.constant.extend(part.constant);
            set.share.extend(part.share);
            set.terms.extend(part.terms);
            set.nl.extend(part.nl);
            for c in part.counts {
                let last = *set.start.last().expect("starts with 0");
                set.start.push(last + c);
            }
            for c in part.nl_counts {
                let last = *set.nl_start.last().expect("starts with 0");
                set.nl_start.push(last + c);
            }
        }
    }

    fn linearise_one(
        &self,
        evals: &mut [Evaluator],
        deltas: &[f64],
        path: Option<ShelterPath>,
        w: &[f64],
        pos: &Position,
        lin: &mut Linear,
    ) {
        let c = evals[0].coefficients(pos);
        let scale = f64::from(c.scale) / 100.0;
        let share = [
            f64::from(c.phase) / f64::from(PHASE_MAX) * scale,
            f64::from(PHASE_MAX - c.phase) / f64::from(PHASE_MAX) * scale,
        ];
        let mut constant = f64::from(c.offset.mg) * share[0] + f64::from(c.offset.eg) * share[1];
        // (slot, d eval / d weight) of every weight the features' terms do not carry
        // at their own slope, taken into the constant at the rounded weights.
        let mut gradients: Vec<(u32, f64)> = Vec::new();
        if !self.nonlinear.is_empty() {
            let f0 = white_eval(&c, evals[0].weights());
            let f = |e: &mut Evaluator| {
                let c = e.coefficients(pos);
                white_eval(&c, e.weights())
            };
            let (down, up) = (f(&mut evals[1]), f(&mut evals[2]));
            if down != f0 || up != f0 {
                for (i, n) in self.nonlinear.iter().enumerate() {
                    let (lo, hi) = (f(&mut evals[3 + 2 * i]), f(&mut evals[4 + 2 * i]));
                    let g = (hi - lo) / deltas[i];
                    if g != 0.0 {
                        gradients.push((n.slot, g));
                    }
                }
            }
        }
        // Where complexity floored the endgame sum at zero, the endgame weights
        // counted before it (king danger's among them) do not move the score.
        let danger_share = match c.floored_eg {
            Some(_) => [share[0], 0.0],
            None => share,
        };
        if let Some(path) = path {
            gradients.extend(self.shelter_gradients(&evals[0], &c, pos, danger_share, path));
        }
        for &(f, n) in c.floored_eg.iter().flatten() {
            if let Some(slot) = self.feature_slot[usize::from(f)][1] {
                // Cancels the slope the feature's term gives its endgame weight.
                gradients.push((slot, -f64::from(n) * share[1]));
            }
        }
        for &(slot, g) in &gradients {
            lin.nl.push((slot, g as f32));
            constant -= g * self.rounded(w, slot);
        }
        lin.nl_counts.push(gradients.len() as u32);
        lin.constant.push(constant as f32);
        lin.share.push([share[0] as f32, share[1] as f32]);
        lin.counts.push(c.features.len() as u32);
        lin.terms.extend(c.features.iter().map(|&(f, n)| (f, n)));
    }

    /// The gradients of a position's king danger in the tuned shelter weights
    /// (middlegame ones: the count reads the shelter's middlegame sum), as
    /// (slot, d eval / d weight): `path.share` × (the reference's count − the king's
    /// count) per point of danger, for each side whose danger scores.
    fn shelter_gradients(
        &self,
        eval: &Evaluator,
        c: &Coefficients,
        pos: &Position,
        share: [f64; 2],
        path: ShelterPath,
    ) -> Vec<(u32, f64)> {
        let mut grads: Vec<(u32, f64)> = Vec::new();
        let mut add = |feature: u16, g: f64| {
            if let Some(slot) = self.feature_slot[usize::from(feature)][0] {
                match grads.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, sum)) => *sum += g,
                    None => grads.push((slot, g)),
                }
            }
        };
        for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
            if c.danger[side] <= 0 {
                continue;
            }
            let slope = path.slope(side, c.danger[side], share);
            for &(f, n) in &self.shelter_reference {
                add(f, slope * f64::from(n));
            }
            for (f, n) in eval.shelter_counts(pos.board().board(), color) {
                add(f, -slope * f64::from(n));
            }
        }
        grads.retain(|&(_, g)| g != 0.0);
        grads
    }

    /// Tuned slot `slot`'s value as the evaluation reads it: rounded, within bounds.
    fn rounded(&self, w: &[f64], slot: u32) -> f64 {
        let (lo, hi) = self.bounds[slot as usize];
        w[slot as usize].round().clamp(lo, hi)
    }

    /// The linear evaluation of position `i` of `set` (White's view, cp).
    #[inline]
    fn eval(set: &Set, i: usize, fw: &[[f64; 2]], w: &[f64]) -> f64 {
        let [smg, seg] = set.share[i].map(f64::from);
        let mut e = f64::from(set.constant[i]);
        for &(f, n) in &set.terms[set.start[i] as usize..set.start[i + 1] as usize] {
            let [mg, eg] = fw[f as usize];
            e += f64::from(n) * (smg * mg + seg * eg);
        }
        for &(slot, g) in set.nonlinear_of(i) {
            e += f64::from(g) * w[slot as usize];
        }
        e
    }

    /// Mean losses against the target and against the result alone.
    pub fn losses(&self, set: &Set, w: &[f64], k: f64) -> Losses {
        if set.len() == 0 {
            return Losses::default();
        }
        let fw = self.feature_weights(w);
        let (t, r) = (0..set.len())
            .into_par_iter()
            .map(|i| {
                let p = sigmoid(k, Self::eval(set, i, &fw, w));
                let target = set.target.get(i).copied().unwrap_or(set.result[i]);
                let (dt, dr) = (f64::from(target) - p, f64::from(set.result[i]) - p);
                (dt * dt, dr * dr)
            })
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        let n = set.len() as f64;
        Losses {
            target: t / n,
            result: r / n,
        }
    }

    /// Gradient of the mean target loss over the tuned slots.
    fn gradient(&self, set: &Set, w: &[f64], k: f64) -> Vec<f64> {
        let fw = self.feature_weights(w);
        let features = fw.len();
        // Per feature (mg, eg) first, then per slot for the non-linear gradients.
        let acc = (0..set.len())
            .into_par_iter()
            .fold(
                || vec![0.0f64; features * 2 + w.len()],
                |mut acc, i| {
                    let p = sigmoid(k, Self::eval(set, i, &fw, w));
                    let d = 2.0 * (p - f64::from(set.target[i])) * p * (1.0 - p) * k;
                    let [smg, seg] = set.share[i].map(f64::from);
                    for &(f, n) in &set.terms[set.start[i] as usize..set.start[i + 1] as usize] {
                        let dn = d * f64::from(n);
                        acc[2 * f as usize] += dn * smg;
                        acc[2 * f as usize + 1] += dn * seg;
                    }
                    for &(slot, g) in set.nonlinear_of(i) {
                        acc[features * 2 + slot as usize] += d * f64::from(g);
                    }
                    acc
                },
            )
            .reduce(
                || vec![0.0f64; features * 2 + w.len()],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            );
        let mut g = acc[features * 2..].to_vec();
        for (f, slots) in self.feature_slot.iter().enumerate() {
            for ph in 0..2 {
                if let Some(s) = slots[ph] {
                    g[s as usize] += acc[2 * f + ph];
                }
            }
        }
        let n = set.len().max(1) as f64;
        g.iter_mut().for_each(|x| *x /= n);
        g
    }

    /// Adam from the start values with L2 pull `reg`, re-linearising every --refresh
    /// epochs. Returns the weights of the checkpoint with the lowest held-out loss and
    /// that loss (the training loss when nothing is held out).
    pub fn fit(
        &self,
        args: &Args,
        train: &mut Set,
        valid: &mut Set,
        k: f64,
        reg: f64,
    ) -> (Vec<f64>, f64) {
        let started = Instant::now();
        let start = &self.start;
        let mut w = start.clone();
        self.linearise(train, &w);
        self.linearise(valid, &w);
        let check = |train: &Set, valid: &Set, w: &[f64]| {
            let set = if valid.len() > 0 { valid } else { train };
            self.losses(set, w, k).target
        };
        let mut best = (w.clone(), check(train, valid, &w), 0);
        let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
        let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
        for epoch in 1..=args.epochs {
            if epoch > 1 && (epoch - 1).is_multiple_of(args.refresh) {
                self.linearise(train, &w);
                self.linearise(valid, &w);
            }
            let mut g = self.gradient(train, &w, k);
            for j in 0..w.len() {
                g[j] += 2.0 * reg * (w[j] - start[j]);
                m[j] = b1 * m[j] + (1.0 - b1) * g[j];
                v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
                let mh = m[j] / (1.0 - b1.powi(epoch as i32));
                let vh = v[j] / (1.0 - b2.powi(epoch as i32));
                w[j] = (w[j] - args.lr * mh / (vh.sqrt() + eps))
                    .clamp(self.bounds[j].0, self.bounds[j].1);
            }
            if epoch.is_multiple_of(CHECK_EVERY) || epoch == args.epochs {
                let held_out = check(train, valid, &w);
                if held_out < best.1 {
                    best = (w.clone(), held_out, epoch);
                }
                if epoch.is_multiple_of(50) || epoch == args.epochs {
                    eprintln!(
                        "texel: reg {reg:e} epoch {epoch}: train {:.6}, held out {held_out:.6} ({:.1} s)",
                        self.losses(train, &w, k).target,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        eprintln!(
            "texel: reg {reg:e}: lowest held-out loss at epoch {} of {}",
            best.2, args.epochs
        );
        (best.0, best.1)
    }
}

/// The evaluation (White's view, cp, unrounded) from its coefficients and weights.
fn white_eval(c: &Coefficients, weights: &[S]) -> f64 {
    let (mut mg, mut eg) = (f64::from(c.offset.mg), f64::from(c.offset.eg));
    for &(f, n) in &c.features {
        let wf = weights[f as usize];
        mg += f64::from(n) * f64::from(wf.mg);
        eg += f64::from(n) * f64::from(wf.eg);
    }
    let phase = f64::from(c.phase) / f64::from(PHASE_MAX);
    (mg * phase + eg * (1.0 - phase)) * f64::from(c.scale) / 100.0
}

#[derive(Clone, Copy, Default)]
pub struct Losses {
    /// Against the fitted target (the blend).
    pub target: f64,
    /// Against the game result alone (comparable across --lambda).
    pub result: f64,
}

#[inline]
pub fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval).exp())
}

/// The K minimising the loss against the results at the starting weights
/// (golden-section search on log K).
pub fn fit_k(model: &Model, set: &Set, w: &[f64]) -> f64 {
    golden_k(|k| model.losses(set, w, k).result)
}

/// The K in 1e-4..0.1 minimising `loss(K)` (golden-section search on log K).
pub fn golden_k(loss: impl Fn(f64) -> f64) -> f64 {
    let f = |lk: f64| loss(lk.exp());
    let (mut a, mut b) = ((1e-4f64).ln(), (0.1f64).ln());
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - r * (b - a), a + r * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen_file;
    use crate::param_files::{Field, overlay};
    use crate::test_util::repo_params;

    /// A set of positions (result 0.5) in linear form for `model` at its start.
    fn set_of(model: &Model, fens: &[&str]) -> Set {
        let mut set = Set::default();
        for fen in fens {
            let p = Position::from_fen(fen, false).unwrap();
            set.push(Merged {
                rec: datagen_file::pack_record(&p, 1, None),
                result: 0.5,
                score: f32::NAN,
                group: 0,
            });
        }
        model.linearise(&mut set, &model.start);
        set
    }

    fn engine_eval(params: &Params, fen: &str) -> f64 {
        let p = Position::from_fen(fen, false).unwrap();
        let e = Evaluator::new(params).evaluate(&p);
        f64::from(if p.turn() == shakmaty::Color::White {
            e
        } else {
            -e
        })
    }

    /// Positions with a king attack on one side or both (king danger is non-zero).
    const ATTACKS: [&str; 3] = [
        "r1b2rk1/ppp2ppp/2n5/3qp1N1/2B5/3P1Q2/PPP2PPP/RN2K2R w KQ - 0 10",
        "2kr3r/ppp2ppp/2n1bq2/2b1p3/4P3/2NPBN2/PPPQ1PPP/R3KB1R b KQ - 0 9",
        "r4rk1/pp3ppp/2p1b3/4q3/2B1P1n1/2N3Q1/PPP3PP/R4RK1 w - - 0 16",
    ];

    #[test]
    fn linear_form_matches_the_evaluation_and_follows_king_danger_weights() {
        let (file, params, model) = committed_model(&[], |_| {});
        assert!(
            model.nonlinear.len() >= 10,
            "king danger weights are tuned through their gradient"
        );
        // Switches of the evaluation's form (the king zone's) are left alone.
        let flags: Vec<&str> = file
            .entries
            .iter()
            .filter(|e| e.unit == "flag")
            .map(|e| e.name())
            .collect();
        assert!(flags.len() >= 2, "{flags:?}");
        assert!(
            model
                .param_of_slot
                .iter()
                .all(|&p| !flags.contains(&PARAM_SPECS[p].name)),
            "{flags:?}"
        );
        let mut fens = vec![
            occam::position::START_FEN,
            "8/5pk1/6p1/8/3B4/6P1/5PK1/2b5 b - - 0 40",
        ];
        fens.extend(ATTACKS);
        let set = set_of(&model, &fens);
        let fw = model.feature_weights(&model.start);
        for (i, fen) in fens.iter().enumerate() {
            let linear = Model::eval(&set, i, &fw, &model.start);
            assert!((linear - engine_eval(&params, fen)).abs() < 1.5, "{fen}");
        }
        assert!(set.nl.len() > 5, "the attacks have king-danger gradients");
        // Move every king-danger weight: the linear form predicts the new (quadratic)
        // evaluation to first order (the rest is the square of the danger change),
        // where holding king danger constant (as the old tuner did) is far off.
        let mut w = model.start.clone();
        for n in &model.nonlinear {
            let name = PARAM_SPECS[n.param].name;
            if name.starts_with("king_danger") && !name.ends_with("_div") {
                let j = n.slot as usize;
                w[j] = (w[j] + 8.0).clamp(model.bounds[j].0, model.bounds[j].1);
            }
        }
        let moved = model.params_at(&w);
        let mut far = 0.0f64;
        for (i, fen) in fens.iter().enumerate() {
            let exact = engine_eval(&moved, fen);
            let linear = Model::eval(&set, i, &fw, &w);
            let frozen = Model::eval(&set, i, &fw, &model.start);
            far = far.max((frozen - exact).abs());
            eprintln!("{fen}: linear {linear:.2} exact {exact} frozen {frozen:.2}");
            assert!(
                (linear - exact).abs() <= 2.0 + 0.25 * (frozen - exact).abs(),
                "{fen}: linear {linear} exact {exact} frozen {frozen}"
            );
        }
        assert!(far > 20.0, "the weights moved the evaluation ({far})");
        // Re-linearised at the moved weights, the form is exact again.
        let mut again = set_of(&model, &fens);
        model.linearise(&mut again, &w);
        let fw = model.feature_weights(&w);
        for (i, fen) in fens.iter().enumerate() {
            let exact = engine_eval(&moved, fen);
            assert!(
                (Model::eval(&again, i, &fw, &w) - exact).abs() < 1.5,
                "{fen}"
            );
        }
    }

    /// The committed evaluation file, its parameters changed by `adjust`, and a model
    /// fitting the weights `wanted` (none: every one).
    fn committed_model(
        wanted: &[&str],
        adjust: impl FnOnce(&mut Params),
    ) -> (ParamFile, Params, Model) {
        let file = ParamFile::load(&repo_params("eval.json")).unwrap();
        let mut params = Params::default();
        overlay(&mut params, std::slice::from_ref(&file), Field::Value).unwrap();
        adjust(&mut params);
        let wanted: Vec<String> = wanted.iter().map(|w| w.to_string()).collect();
        let model = Model::new(&file, &params, &wanted, &repo_params("eval.json")).unwrap();
        (file, params, model)
    }

    /// The committed evaluation with `king_danger_shelter_pct` at `share`, and a model
    /// fitting the weights `wanted`.
    fn model_with_share(share: i32, wanted: &[&str]) -> (Params, Model) {
        let (_, params, model) = committed_model(wanted, |p| p.king_danger_shelter_pct = share);
        (params, model)
    }

    /// The slopes in tuned slot `j` of position `i`'s linear form and of the engine's
    /// evaluation of it (`fen`), by central differences over ±`step` from the start.
    fn slopes(model: &Model, set: &Set, i: usize, fen: &str, j: usize, step: f64) -> (f64, f64) {
        let at = |step: f64| {
            let mut w = model.start.clone();
            w[j] += step;
            let fw = model.feature_weights(&w);
            (
                Model::eval(set, i, &fw, &w),
                engine_eval(&model.params_at(&w), fen),
            )
        };
        let ((lin_up, exact_up), (lin_down, exact_down)) = (at(step), at(-step));
        (
            (lin_up - lin_down) / (2.0 * step),
            (exact_up - exact_down) / (2.0 * step),
        )
    }

    /// The shelter, storm and outpost tables are fitted as linear weights (no
    /// finite differences) while king danger takes no share of the shelter, and
    /// their linear form reproduces the evaluation.
    #[test]
    fn shelter_storm_and_outpost_weights_are_linear() {
        let (params, model) = model_with_share(0, &["king_shelter_*", "king_storm_*", "outpost_*"]);
        assert!(model.nonlinear.is_empty());
        // Shelter: 4 folded files x 8, the front 8 and 4 queen's-wing files x 8; storm:
        // 4 x 8, blocked 6 and 4 x 8; 5 outpost features; mg and eg each.
        assert_eq!(model.tuned.len(), 2 * (72 + 70 + 5));
        let fens = [
            "r1bq1rk1/ppp3p1/2n2n2/4N3/3P4/7p/PPP2PP1/R1BQ1RK1 w - - 0 1",
            "4k3/8/8/8/5pp1/7p/6PP/6K1 w - - 0 1",
        ];
        let set = set_of(&model, &fens);
        // Move every tuned weight (by different amounts: each side always has three
        // shelter, one front and three storm entries, so a uniform shift cancels):
        // the linear form follows the engine exactly.
        let w: Vec<f64> = (model.start.iter().enumerate())
            .map(|(i, v)| v + (i % 7) as f64 * 3.0)
            .collect();
        let fw = model.feature_weights(&w);
        let moved = model.params_at(&w);
        for (i, fen) in fens.iter().enumerate() {
            let exact = engine_eval(&moved, fen);
            assert_ne!(exact, engine_eval(&params, fen), "{fen}");
            assert!((Model::eval(&set, i, &fw, &w) - exact).abs() < 1.5, "{fen}");
        }
    }

    /// With king danger taking a share of the shelter, the shelter weights are fitted
    /// through both paths: their own score and the danger count they move. Moving
    /// them, the linear form follows the (quadratic) evaluation to first order, where
    /// the shelter's own score alone would miss the change in king danger.
    #[test]
    fn shelter_weights_are_fitted_through_their_share_in_king_danger() {
        let (_, model) = model_with_share(50, &["king_shelter_*", "king_storm_*", "king_shield_*"]);
        assert!(model.nonlinear.is_empty());
        // Attacks on kings with broken shelters (a pawn moved or gone).
        let fens = [
            ATTACKS[2],
            "r4rk1/ppp2ppp/8/8/6nq/7P/PPP2P2/R4RK1 w - - 0 1",
            "r1bq1r2/ppp2p1k/2n3pp/8/2B5/5Q2/PPP2PPP/R1B2RK1 b - - 0 1",
        ];
        let set = set_of(&model, &fens);
        assert!(!set.nl.is_empty(), "the attacks' danger reads the shelter");
        let w: Vec<f64> = (model.start.iter().enumerate())
            .map(|(i, v)| v + (i % 5) as f64 * 10.0 - 20.0)
            .collect();
        let fw = model.feature_weights(&w);
        let moved = model.params_at(&w);
        let mut through_danger = 0.0f64;
        for (i, fen) in fens.iter().enumerate() {
            let exact = engine_eval(&moved, fen);
            let linear = Model::eval(&set, i, &fw, &w);
            let nl = set.nonlinear_of(i);
            let danger_part: f64 = nl
                .iter()
                .map(|&(slot, g)| f64::from(g) * (w[slot as usize] - model.start[slot as usize]))
                .sum();
            eprintln!("{fen}: linear {linear:.2} exact {exact} through danger {danger_part:.2}");
            assert!(
                (linear - exact).abs() <= 2.0 + 0.25 * danger_part.abs(),
                "{fen}: linear {linear} exact {exact} through danger {danger_part}"
            );
            through_danger = through_danger.max(danger_part.abs());
        }
        assert!(
            through_danger > 5.0,
            "the shelter moved king danger ({through_danger})"
        );
    }

    /// Each shelter weight's gradient of the linear form is the evaluation's own
    /// (central differences of the engine's score), for a king of either colour, and a
    /// colour-flipped position gets the negated danger-path entries.
    #[test]
    fn shelter_gradients_match_the_evaluation_for_either_king() {
        let (params, model) =
            model_with_share(50, &["king_shelter_*", "king_storm_*", "king_shield_*"]);
        // The queen on h4 against a king on g8 behind f7 g6 h7; then the same position
        // with the colours flipped, the queen on h5 against a king behind f2 g3 h2.
        let fens = [
            "r4rk1/ppp2p1p/6p1/8/3N3Q/8/PPP2PPP/R4RK1 b - - 0 1",
            "r4rk1/ppp2ppp/8/3n3q/8/6P1/PPP2P1P/R4RK1 w - - 0 1",
        ];
        let danger = |fen: &str| {
            Evaluator::new(&params)
                .coefficients(&Position::from_fen(fen, false).unwrap())
                .danger
        };
        assert!(danger(fens[0])[1] > 0 && danger(fens[0])[0] == 0);
        assert!(danger(fens[1])[0] > 0 && danger(fens[1])[1] == 0);
        let set = set_of(&model, &fens);
        let entries = |i: usize| -> Vec<(u32, f32)> {
            let mut e = set.nonlinear_of(i).to_vec();
            e.sort_by_key(|&(slot, _)| slot);
            e
        };
        let (black, white) = (entries(0), entries(1));
        assert!(!black.is_empty());
        assert_eq!(black.len(), white.len());
        for (b, w) in black.iter().zip(&white) {
            assert_eq!(b.0, w.0);
            assert!((b.1 + w.1).abs() < 1e-4, "{b:?} {w:?}");
        }
        // For each weight on the danger path, the linear form's slope against the
        // engine's: central differences over ±20 (the danger count moves in whole
        // points, and its square's curvature cancels), exact to the engine's rounding.
        const STEP: f64 = 20.0;
        let mut checked = 0;
        for (i, fen) in fens.iter().enumerate() {
            for &(slot, g) in &entries(i) {
                let j = slot as usize;
                let (lo, hi) = model.bounds[j];
                if model.start[j] - STEP < lo || model.start[j] + STEP > hi {
                    continue;
                }
                let (linear, exact) = slopes(&model, &set, i, fen, j, STEP);
                assert!(
                    (linear - exact).abs() <= 0.03 + 0.1 * f64::from(g).abs(),
                    "{fen} slot {j}: linear {linear} exact {exact} (danger path {g})"
                );
                checked += usize::from(f64::from(g).abs() > 0.05);
            }
        }
        assert!(
            checked >= 4,
            "{checked} weights with a danger path worth checking"
        );
    }

    /// Where a negative complexity floors the endgame sum at zero, the endgame weights
    /// counted before it do not move the evaluation nearby, and the linear form agrees:
    /// its slope in each such weight is zero (a term's own slope would pull the weight
    /// on a position the evaluation ignores), while the tempo, added after, keeps its.
    #[test]
    fn endgame_weights_floored_by_complexity_have_the_evaluations_slope() {
        let (_, params, model) = committed_model(&[], |_| {});
        // A drawish ending: one wing's pawns and a small lead.
        let fens = [
            "8/5pk1/6p1/8/3B4/6P1/5PK1/2b5 b - - 0 40",
            "6k1/5p2/6p1/8/3N4/6P1/5PK1/2b5 w - - 0 40",
        ];
        let set = set_of(&model, &fens);
        for (i, fen) in fens.iter().enumerate() {
            let c = Evaluator::new(&params).coefficients(&Position::from_fen(fen, false).unwrap());
            let floored = c.floored_eg.clone().expect("complexity floors this ending");
            let slope = |j: usize| slopes(&model, &set, i, fen, j, 1.0);
            let share_eg =
                f64::from(PHASE_MAX - c.phase) / f64::from(PHASE_MAX) * f64::from(c.scale) / 100.0;
            let mut checked = 0;
            for &(f, n) in &floored {
                let Some(slot) = model.feature_slot[usize::from(f)][1] else {
                    continue;
                };
                let (linear, exact) = slope(slot as usize);
                assert_eq!(exact, 0.0, "{fen}: feature {f}");
                assert!(
                    linear.abs() < 1e-3,
                    "{fen}: feature {f} count {n}: linear slope {linear}"
                );
                checked += usize::from(f64::from(n).abs() * share_eg > 0.5);
            }
            assert!(
                checked >= 3,
                "{fen}: {checked} endgame weights worth checking"
            );
            let tempo = model.feature_slot[features::TEMPO][1]
                .expect("the tempo's endgame weight is tuned");
            let (linear, _) = slope(tempo as usize);
            assert!(
                (linear.abs() - share_eg).abs() < 1e-3,
                "{fen}: tempo slope {linear}"
            );
        }
    }

    #[test]
    fn the_gradient_points_downhill_and_k_is_sane() {
        let (_, _, model) = committed_model(&[], |_| {});
        let mut set = set_of(&model, &ATTACKS);
        set.set_targets(0.01, 1.0);
        let k = fit_k(&model, &set, &model.start);
        assert!((1e-4..0.1).contains(&k));
        let w = &model.start;
        let g = model.gradient(&set, w, 0.01);
        let stepped: Vec<f64> = w.iter().zip(&g).map(|(x, d)| x - 1000.0 * d).collect();
        assert!(model.losses(&set, &stepped, 0.01).target < model.losses(&set, w, 0.01).target);
    }

    #[test]
    fn the_target_blends_result_and_score_by_lambda() {
        let mut set = Set::default();
        for (result, score) in [(1.0, 0.0), (0.0, f32::NAN), (0.5, 200.0)] {
            set.result.push(result);
            set.score.push(score);
        }
        set.set_targets(0.01, 0.25);
        let s200 = sigmoid(0.01, 200.0);
        let want = [0.25 + 0.75 * 0.5, 0.0, 0.25 * 0.5 + 0.75 * s200];
        for (t, w) in set.target.iter().zip(want) {
            assert!((f64::from(*t) - w).abs() < 1e-6, "{t} vs {w}");
        }
        set.set_targets(0.01, 1.0);
        assert_eq!(set.target, vec![1.0, 0.0, 0.5]);
    }
}
