//! `tuner texel`: fit the evaluation weights to game results (Texel tuning).
//!
//! Reads `FEN | result` lines (result 1.0 / 0.5 / 0.0 from White's view; `FEN [1.0]`
//! and PGN-style `1-0`, `1/2-1/2`, `0-1` results are accepted too), keeps the quiet
//! positions (not in check, and a material-only capture search cannot change the
//! material balance), and minimises the mean of `(R - sigmoid(K * eval))^2`.
//!
//! For a fixed position the evaluation is linear in its weights (see
//! `occam::eval::features`): `eval = c + Σ g_j w_j` with `g_j` the feature count times
//! the phase share and the drawish scale. Those gradients are extracted once per
//! position, so each epoch is a sparse dot product per position. `K` is fitted first
//! by golden-section search at the starting weights; then Adam descends on all
//! selected weights together, each kept within its `min`/`max` and pulled gently
//! towards its starting value (`--reg`, so weights few positions see do not drift on
//! noise; the reported losses leave that pull out). Every tenth position
//! is held out to show whether the fit generalises. The rounded result is written
//! back to the parameter file atomically, changing only the `value` numbers.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::eval::{Evaluator, PHASE_MAX, features};
use occam::params::PARAM_SPECS;
use occam::position::Position;
use rayon::prelude::*;
use shakmaty::{Move, Position as _, Role};

use crate::params_file::{Field, ParamFile, Selector, overlay};

#[derive(clap::Args)]
pub struct Args {
    /// Positions file: one `FEN | result` per line (result 1.0/0.5/0.0, White's view).
    pub positions: PathBuf,
    /// The evaluation parameter file to tune and rewrite (e.g. params/eval.json).
    pub params_file: PathBuf,
    /// Tune only these parameters (comma-separated; `prefix_*` takes every name with
    /// that prefix, as in `spsa`). Default: every weight in the file.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub params: Vec<String>,
    /// Full passes of gradient descent over the positions.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub epochs: u32,
    /// Adam learning rate, in centipawns per step.
    #[arg(long, default_value_t = 0.5)]
    pub lr: f64,
    /// L2 pull towards the file's current values, per centipawn squared (keeps weights that
    /// few positions see from drifting on noise; 0 disables).
    #[arg(long, default_value_t = 1e-6)]
    pub reg: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Use this sigmoid scale instead of fitting it (eval in centipawns).
    #[arg(long)]
    pub k: Option<f64>,
    /// Keep every position, also the non-quiet ones.
    #[arg(long)]
    pub no_quiet_filter: bool,
    /// Report the fit but leave the parameter file unchanged.
    #[arg(long)]
    pub dry_run: bool,
}

/// One position reduced to its linear form in the tuned weights.
struct Sample {
    result: f64,
    /// Evaluation part that does not depend on the tuned weights (White's view, cp).
    constant: f64,
    /// (tuned slot, d eval / d weight).
    grads: Vec<(u32, f32)>,
}

impl Sample {
    #[inline]
    fn eval(&self, w: &[f64]) -> f64 {
        self.constant
            + self
                .grads
                .iter()
                .map(|&(j, g)| f64::from(g) * w[j as usize])
                .sum::<f64>()
    }
}

pub fn run(args: Args) -> Result<()> {
    if !(args.lr.is_finite() && args.lr > 0.0) {
        bail!(
            "--lr must be a positive number of centipawns, got {}",
            args.lr
        );
    }
    if !(args.reg.is_finite() && args.reg >= 0.0) {
        bail!("--reg must be a non-negative number, got {}", args.reg);
    }
    if let Some(k) = args.k
        && !(k.is_finite() && k > 0.0)
    {
        bail!("--k must be a positive number, got {k}");
    }
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    pool.install(|| tune(&args))
}

/// The fit: choose the weights, reduce the positions to samples, fit K, descend, then
/// report and write the result.
fn tune(args: &Args) -> Result<()> {
    let mut file = ParamFile::load(&args.params_file)?;
    let mut params = Params::default();
    overlay(&mut params, std::slice::from_ref(&file), Field::Value)?;
    let weights = Weights::select(&file, &args.params, &args.params_file)?;
    let data = Data::load(args, &params, &weights)?;
    let start: Vec<f64> = weights
        .tuned
        .iter()
        .map(|&i| f64::from(file.entries[i].value))
        .collect();
    let k = match args.k {
        Some(k) => k,
        None => fit_k(&data.train, &start),
    };
    let loss_before = (loss(&data.train, &start, k), loss(&data.valid, &start, k));
    eprintln!(
        "texel: K = {k:.6}; loss before: train {:.6}, held out {:.6}",
        loss_before.0, loss_before.1
    );
    let bounds: Vec<(f64, f64)> = weights
        .tuned
        .iter()
        .map(|&i| {
            let e = &file.entries[i];
            (f64::from(e.min), f64::from(e.max))
        })
        .collect();
    let rounded: Vec<f64> = adam(args, &data, &start, &bounds, k)
        .iter()
        .map(|x| x.round())
        .collect();
    let loss_after = (
        loss(&data.train, &rounded, k),
        loss(&data.valid, &rounded, k),
    );
    let mut values: Vec<i32> = file.entries.iter().map(|e| e.value).collect();
    for (slot, &i) in weights.tuned.iter().enumerate() {
        values[i] = rounded[slot] as i32;
    }
    report(
        &file,
        &weights,
        &values,
        k,
        data.quiet,
        loss_before,
        loss_after,
    );
    if args.dry_run {
        println!("dry run: {} left unchanged", args.params_file.display());
    } else {
        file.write_values(&values)?;
        println!("wrote {}", args.params_file.display());
    }
    Ok(())
}

/// The tuned weights: the file's entries that some eval feature reads, filtered by
/// --params.
struct Weights {
    /// Entry index in the file, per tuned slot.
    tuned: Vec<usize>,
    /// The tuned slot of each engine parameter (`None`: not tuned).
    slot_of_param: Vec<Option<u32>>,
}

impl Weights {
    fn select(file: &ParamFile, wanted: &[String], path: &std::path::Path) -> Result<Weights> {
        let engine_index = file.bind::<Params>()?;
        let selected = Selector::parse(wanted).pick(&file.names())?;
        let mut slot_of_param = vec![None; PARAM_SPECS.len()];
        let mut tuned: Vec<usize> = Vec::new();
        let read_by_features: std::collections::HashSet<usize> = features::params()
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        for i in selected {
            let spec = engine_index[i];
            if read_by_features.contains(&spec) {
                slot_of_param[spec] = Some(tuned.len() as u32);
                tuned.push(i);
            }
        }
        if tuned.is_empty() {
            bail!(
                "no evaluation weight of {} matches --params '{}' (only weights some eval feature reads are tuned)",
                path.display(),
                wanted.join(",")
            );
        }
        Ok(Weights {
            tuned,
            slot_of_param,
        })
    }
}

/// The positions as samples: every tenth held out.
struct Data {
    train: Vec<Sample>,
    valid: Vec<Sample>,
    /// Positions kept (quiet, unless --no-quiet-filter).
    quiet: usize,
}

impl Data {
    /// Reads the positions, keeps the quiet ones and reduces each to its linear form.
    fn load(args: &Args, params: &Params, weights: &Weights) -> Result<Data> {
        let started = Instant::now();
        let text = std::fs::read_to_string(&args.positions)
            .with_context(|| format!("cannot read positions file {}", args.positions.display()))?;
        let parsed =
            parse_positions(&text).with_context(|| args.positions.display().to_string())?;
        let total = parsed.len();
        let material: [i32; 5] = std::array::from_fn(|r| {
            params
                .get(features::PARAMS[features::MATERIAL[r]][features::MG].expect("material_*_mg"))
        });
        let quiet: Vec<(Position, f64)> = if args.no_quiet_filter {
            parsed
        } else {
            parsed
                .into_par_iter()
                .filter(|(p, _)| is_quiet(p, &material))
                .collect()
        };
        if quiet.is_empty() {
            bail!(
                "none of the {total} positions of {} is quiet (use --no-quiet-filter to keep them all)",
                args.positions.display()
            );
        }
        let samples: Vec<Sample> = quiet
            .par_iter()
            .map_init(
                || Evaluator::new(params),
                |e, (p, r)| linearise(e, p, *r, &weights.slot_of_param),
            )
            .collect();
        let (train, valid): (Vec<_>, Vec<_>) = samples
            .into_iter()
            .enumerate()
            .partition(|(i, _)| i % 10 != 9);
        let train: Vec<Sample> = train.into_iter().map(|(_, s)| s).collect();
        let valid: Vec<Sample> = valid.into_iter().map(|(_, s)| s).collect();
        eprintln!(
            "texel: {total} positions read, {} quiet ({} train, {} held out), {} weights tuned, {:.1}s",
            quiet.len(),
            train.len(),
            valid.len(),
            weights.tuned.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(Data {
            train,
            valid,
            quiet: quiet.len(),
        })
    }
}

/// Adam, full batch, from `start`: each weight kept within its bounds and pulled
/// towards its start by --reg. Returns the (unrounded) weights.
fn adam(args: &Args, data: &Data, start: &[f64], bounds: &[(f64, f64)], k: f64) -> Vec<f64> {
    let mut w = start.to_vec();
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    for epoch in 1..=args.epochs {
        let mut g = gradient(&data.train, &w, k);
        for j in 0..w.len() {
            g[j] += 2.0 * args.reg * (w[j] - start[j]);
            m[j] = b1 * m[j] + (1.0 - b1) * g[j];
            v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
            let mh = m[j] / (1.0 - b1.powi(epoch as i32));
            let vh = v[j] / (1.0 - b2.powi(epoch as i32));
            w[j] = (w[j] - args.lr * mh / (vh.sqrt() + eps)).clamp(bounds[j].0, bounds[j].1);
        }
        if epoch.is_multiple_of(50) || epoch == args.epochs {
            eprintln!(
                "texel: epoch {epoch}: train {:.6}, held out {:.6}",
                loss(&data.train, &w, k),
                loss(&data.valid, &w, k)
            );
        }
    }
    w
}

/// Prints the losses, K and the largest changes.
fn report(
    file: &ParamFile,
    weights: &Weights,
    values: &[i32],
    k: f64,
    positions: usize,
    before: (f64, f64),
    after: (f64, f64),
) {
    let mut changes: Vec<(i32, &str, i32, i32)> = weights
        .tuned
        .iter()
        .map(|&i| {
            let e = &file.entries[i];
            (
                (values[i] - e.value).abs(),
                e.name.as_str(),
                e.value,
                values[i],
            )
        })
        .filter(|c| c.0 != 0)
        .collect();
    changes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    println!(
        "loss before: train {:.6} held out {:.6}",
        before.0, before.1
    );
    println!("loss after:  train {:.6} held out {:.6}", after.0, after.1);
    println!(
        "K {k:.6}, {positions} positions, {} weights tuned, {} changed",
        weights.tuned.len(),
        changes.len()
    );
    for (_, name, from, to) in changes.iter().take(15) {
        println!("  {name}: {from} -> {to}");
    }
}

/// Parses `FEN | result` / `FEN [result]` lines; blank lines and `#` comments are skipped.
fn parse_positions(text: &str) -> Result<Vec<(Position, f64)>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| {
            anyhow::anyhow!(
                "line {}: {why} (expected 'FEN | result' with result 1.0, 0.5 or 0.0 for White, or 'FEN [1.0]')",
                n + 1
            )
        };
        let (fen, result) = if let Some((fen, r)) = line.rsplit_once('|') {
            (fen, r.trim())
        } else if line.ends_with(']')
            && let Some(open) = line.rfind('[')
        {
            (&line[..open], line[open + 1..line.len() - 1].trim())
        } else {
            return Err(bad("no result".into()));
        };
        let result = match result.trim_matches('"') {
            "1.0" | "1" | "1-0" => 1.0,
            "0.5" | "1/2-1/2" | "1/2" => 0.5,
            "0.0" | "0" | "0-1" => 0.0,
            other => return Err(bad(format!("unknown result '{other}'"))),
        };
        let fen = fen.trim().trim_end_matches(';').trim();
        let pos = Position::from_fen(fen, false).map_err(|e| bad(e.to_string()))?;
        out.push((pos, result));
    }
    if out.is_empty() {
        bail!("no positions found");
    }
    Ok(out)
}

fn role_value(material: &[i32; 5], role: Role) -> i32 {
    match role {
        Role::King => 20_000,
        r => material[r as usize - 1],
    }
}

/// Quiet: not in check, and no capture sequence changes the material balance
/// (a material-only capture search returns the static balance).
fn is_quiet(pos: &Position, material: &[i32; 5]) -> bool {
    if pos.is_check() {
        return false;
    }
    let stand_pat = material_balance(pos, material);
    let mut nodes = 0;
    qsearch(pos, material, -30_000, 30_000, 0, &mut nodes) == stand_pat
}

fn material_balance(pos: &Position, material: &[i32; 5]) -> i32 {
    let board = pos.board().board();
    let us = pos.turn();
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ]
    .into_iter()
    .map(|r| {
        let n = (board.by_role(r) & board.by_color(us)).count() as i32
            - (board.by_role(r) & board.by_color(!us)).count() as i32;
        n * role_value(material, r)
    })
    .sum()
}

/// Fail-hard material capture search (most valuable victim first), at most 8 plies
/// and 2000 nodes deep; its only purpose is telling quiet positions from others.
fn qsearch(
    pos: &Position,
    material: &[i32; 5],
    mut alpha: i32,
    beta: i32,
    ply: u32,
    nodes: &mut u32,
) -> i32 {
    *nodes += 1;
    let stand_pat = material_balance(pos, material);
    if stand_pat >= beta {
        return beta;
    }
    alpha = alpha.max(stand_pat);
    if ply >= 8 || *nodes > 2000 {
        return alpha;
    }
    let mut captures: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.is_capture() || m.is_promotion())
        .collect();
    let victim = |m: &Move| m.capture().map_or(0, |r| role_value(material, r));
    captures.sort_by_key(|m| std::cmp::Reverse(victim(m) * 16 - m.role() as i32));
    for m in captures {
        let score = -qsearch(&pos.play(m), material, -beta, -alpha, ply + 1, nodes);
        if score >= beta {
            return beta;
        }
        alpha = alpha.max(score);
    }
    alpha
}

/// The position's evaluation as `constant + Σ grad_j * w_j` over the tuned slots.
fn linearise(e: &mut Evaluator, pos: &Position, result: f64, slot: &[Option<u32>]) -> Sample {
    let c = e.coefficients(pos);
    let scale = f64::from(c.scale) / 100.0;
    let share = [
        f64::from(c.phase) / f64::from(PHASE_MAX) * scale,
        f64::from(PHASE_MAX - c.phase) / f64::from(PHASE_MAX) * scale,
    ];
    // King danger is not linear in its parameters: a constant here.
    let mut constant = f64::from(c.offset.mg) * share[0] + f64::from(c.offset.eg) * share[1];
    let mut grads = Vec::with_capacity(c.features.len() * 2);
    for &(feature, n) in &c.features {
        let weights = e.weights()[feature as usize];
        let phase_params = features::params()[feature as usize];
        for (phase, weight) in [weights.mg, weights.eg].into_iter().enumerate() {
            let g = f64::from(n) * share[phase];
            match phase_params[phase].and_then(|p| slot[p]) {
                Some(j) => grads.push((j, g as f32)),
                None => constant += g * f64::from(weight),
            }
        }
    }
    Sample {
        result,
        constant,
        grads,
    }
}

#[inline]
fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval).exp())
}

fn loss(samples: &[Sample], w: &[f64], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map(|s| {
            let d = s.result - sigmoid(k, s.eval(w));
            d * d
        })
        .sum();
    sum / samples.len() as f64
}

fn gradient(samples: &[Sample], w: &[f64], k: f64) -> Vec<f64> {
    let mut g = samples
        .par_chunks(4096)
        .fold(
            || vec![0.0; w.len()],
            |mut acc, chunk| {
                for s in chunk {
                    let p = sigmoid(k, s.eval(w));
                    let d = 2.0 * (p - s.result) * p * (1.0 - p) * k;
                    for &(j, gj) in &s.grads {
                        acc[j as usize] += d * f64::from(gj);
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![0.0; w.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    let n = samples.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= n);
    g
}

/// The K minimising the loss at the starting weights (golden-section search on log K).
fn fit_k(samples: &[Sample], w: &[f64]) -> f64 {
    let f = |lk: f64| loss(samples, w, lk.exp());
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

    #[test]
    fn positions_parse_in_both_styles_and_bad_lines_are_named() {
        let text = "# comment\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 1.0\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]\n\
            4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0-1\n";
        let p = parse_positions(text).unwrap();
        assert_eq!(
            p.iter().map(|x| x.1).collect::<Vec<_>>(),
            vec![1.0, 0.5, 0.0]
        );
        let err = parse_positions("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 2.0\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 1") && err.contains("'2.0'"), "{err}");
        let err = parse_positions("\nnot a fen | 1.0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(parse_positions("# only a comment\n").is_err());
    }

    #[test]
    fn quiet_filter_drops_hanging_pieces_and_checks() {
        let m = [82, 337, 365, 477, 1025];
        let quiet = Position::from_fen(occam::position::START_FEN, false).unwrap();
        assert!(is_quiet(&quiet, &m));
        // White can take a free queen on d5.
        let hanging = Position::from_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", false).unwrap();
        assert!(!hanging.is_check() && !is_quiet(&hanging, &m));
        let check = Position::from_fen("4k3/8/8/8/8/8/8/R3K2r w - - 0 1", false).unwrap();
        assert!(!is_quiet(&check, &m));
    }

    #[test]
    fn linearised_samples_match_the_evaluation_and_k_is_sane() {
        let params = Params::default();
        let mut e = Evaluator::new(&params);
        // Tune everything: the constant is the king danger (not linear in its
        // parameters) and constant + Σ g_j w_j is the evaluation.
        let mut slot = vec![None; PARAM_SPECS.len()];
        let mut w = Vec::new();
        for pair in features::params() {
            for &p in pair.iter().flatten() {
                slot[p] = Some(w.len() as u32);
                w.push(f64::from(params.get(p)));
            }
        }
        let fens = [
            occam::position::START_FEN,
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5pk1/6p1/8/3B4/6P1/5PK1/2b5 b - - 0 40",
        ];
        let mut samples = Vec::new();
        for fen in fens {
            let p = Position::from_fen(fen, false).unwrap();
            let s = linearise(&mut e, &p, 0.5, &slot);
            let c = e.coefficients(&p);
            let share =
                |phase: i32| f64::from(phase) / f64::from(PHASE_MAX) * f64::from(c.scale) / 100.0;
            let offset = f64::from(c.offset.mg) * share(c.phase)
                + f64::from(c.offset.eg) * share(PHASE_MAX - c.phase);
            assert!((s.constant - offset).abs() < 1e-9, "{fen}");
            let white = if p.turn() == shakmaty::Color::White {
                e.evaluate(&p)
            } else {
                -e.evaluate(&p)
            };
            assert!((s.eval(&w) - f64::from(white)).abs() < 1.5, "{fen}");
            samples.push(s);
        }
        // All draws near 0 eval: the best K is small, within the search range.
        let k = fit_k(&samples, &w);
        assert!((1e-4..0.1).contains(&k));
        // The gradient points downhill: a small step against it lowers the loss.
        let g = gradient(&samples, &w, 0.01);
        let stepped: Vec<f64> = w.iter().zip(&g).map(|(x, d)| x - 1000.0 * d).collect();
        assert!(loss(&samples, &stepped, 0.01) < loss(&samples, &w, 0.01));
    }

    #[test]
    fn a_small_run_rewrites_only_values_and_dry_run_writes_nothing() {
        let dir = crate::test_util::scratch_dir("texel");
        let params_path = dir.join("eval.json");
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/eval.json");
        std::fs::copy(&repo, &params_path).unwrap();
        // White wins the positions where it is a pawn up, Black those where it is down.
        let positions = dir.join("positions.txt");
        std::fs::write(
            &positions,
            "4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1 | 1.0\n\
             4k3/pp4pp/8/8/8/8/P5P1/4K3 w - - 0 1 | 0.0\n\
             4k3/pp4pp/8/8/8/8/PP4PP/4K3 w - - 0 1 | 0.5\n\
             4k3/ppp5/8/8/8/8/PPPP4/4K3 b - - 0 1 [1.0]\n",
        )
        .unwrap();
        let args = |dry_run| Args {
            positions: positions.clone(),
            params_file: params_path.clone(),
            params: vec!["material_pawn_eg".into()],
            epochs: 20,
            lr: 2.0,
            reg: 0.0,
            threads: Some(1),
            k: Some(0.01),
            no_quiet_filter: false,
            dry_run,
        };
        let before = std::fs::read_to_string(&params_path).unwrap();
        tune(&args(true)).unwrap();
        assert_eq!(std::fs::read_to_string(&params_path).unwrap(), before);
        tune(&args(false)).unwrap();
        let after = ParamFile::load(&params_path).unwrap();
        let original = ParamFile::load(&repo).unwrap();
        for (a, b) in after.entries.iter().zip(&original.entries) {
            if a.name != "material_pawn_eg" {
                assert_eq!(a, b);
            }
        }
        // Winning a pawn up always: the pawn is worth more than the start value.
        let pawn = |f: &ParamFile| {
            f.entries
                .iter()
                .find(|e| e.name == "material_pawn_eg")
                .unwrap()
                .value
        };
        assert!(pawn(&after) > pawn(&original));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
