//! `tuner texel`: fit the evaluation weights to game results (Texel tuning).
//!
//! Reads any mix of datagen's binary files (positions with game result and search
//! score) and `FEN | result` text (result 1.0 / 0.5 / 0.0 from White's view; `FEN
//! [1.0]` and PGN-style `1-0`, `1/2-1/2`, `0-1` results are accepted too). Equal
//! positions (board, side to move, castling, en passant; counters ignored) are merged
//! into one whose result and score are the means, so a position seen in many games
//! counts once with its average outcome. The quiet ones are kept (not in check, and a
//! material-only capture search cannot change the material balance).
//!
//! Target: `λ·result + (1−λ)·sigmoid(K·score)` (--lambda, default 1: the result
//! alone; positions without a score use the result). Loss: mean of `(target −
//! sigmoid(K·eval))²`, K fitted first on the results at the starting weights.
//!
//! Linear part: for a fixed position the evaluation is `scale · taper(mg, eg)` with
//! `mg`, `eg` linear in the feature weights (see `occam::eval::features`), so each
//! position is stored once as its (feature, count) pairs and its two phase shares;
//! an epoch is a sparse dot product per position (4 bytes per feature occurrence).
//!
//! Non-linear part: the eval parameters no feature reads (king danger, which is
//! quadratic in its weights, and the drawish-endgame scales) enter by their gradient,
//! measured by central differences of the whole evaluation at the current values,
//! and the drawish scale depends on the sign of the score. Both are therefore
//! re-linearised at the current (rounded) weights every --refresh epochs and before
//! every reported loss; between refreshes the linearisation is exact to first order.
//!
//! Fit: Adam, full batch, each weight within its `min`/`max`. A held-out tenth (by
//! game, or by blocks of 128 lines of a text file, so positions of one game rarely
//! straddle the split) picks the regularisation: every --reg value (L2 pull towards
//! the starting values) is fitted, the weights at the checkpoint with the lowest
//! held-out loss are kept (early stopping), and the --reg with the lowest held-out
//! loss wins. The rounded result is written back atomically (to --output if given),
//! changing only the `value` numbers.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::eval::{Coefficients, Evaluator, PHASE_MAX, S, features};
use occam::params::PARAM_SPECS;
use occam::position::Position;
use rayon::prelude::*;
use shakmaty::{Move, Position as _, Role};

use crate::datagen::{self, RECORD};
use crate::params_file::{Field, ParamFile, Selector, overlay};
use crate::run_files::{self, WriteLocks};

#[derive(clap::Args)]
pub struct Args {
    /// Position files, any mix of datagen's binary files and `FEN | result` text
    /// (result 1.0/0.5/0.0, White's view), followed by the evaluation parameter file to
    /// tune (e.g. params/eval.json).
    #[arg(required = true, num_args = 1.., value_name = "POSITIONS")]
    pub positions: Vec<PathBuf>,
    /// The evaluation parameter file to tune; rewritten unless --output or --dry-run.
    pub params_file: PathBuf,
    /// Write the tuned file here instead of rewriting PARAMS_FILE.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Tune only these parameters (comma-separated; `prefix_*` takes every name with
    /// that prefix, as in `spsa`). Default: every weight in the file.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub params: Vec<String>,
    /// Weight of the game result in the target; the rest is sigmoid(K·search score).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f64,
    /// Full passes of gradient descent over the positions (per --reg value).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub epochs: u32,
    /// Adam learning rate, in centipawns per step.
    #[arg(long, default_value_t = 0.5)]
    pub lr: f64,
    /// L2 pulls towards the starting values (per centipawn squared) to try; the one
    /// with the lowest held-out loss is kept (0: none).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0,1e-6",
        value_name = "LIST"
    )]
    pub reg: Vec<f64>,
    /// Epochs between re-linearisations of the non-linear terms (king danger, scale).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub refresh: u32,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Use this sigmoid scale instead of fitting it (eval in centipawns).
    #[arg(long)]
    pub k: Option<f64>,
    /// Keep every position, also the non-quiet ones.
    #[arg(long)]
    pub no_quiet_filter: bool,
    /// Report the fit but write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Held-out positions: one group in this many.
const HELD_OUT_EVERY: u64 = 10;
/// Lines of a text file that form one split group (a game is ~70 positions).
const TEXT_GROUP_LINES: usize = 128;
/// Epochs between held-out checkpoints.
const CHECK_EVERY: u32 = 10;

pub fn run(args: Args) -> Result<()> {
    let _locks = lock_output(&args)?;
    if !(args.lr.is_finite() && args.lr > 0.0) {
        bail!(
            "--lr must be a positive number of centipawns, got {}",
            args.lr
        );
    }
    if let Some(r) = args.reg.iter().find(|r| !(r.is_finite() && **r >= 0.0)) {
        bail!("--reg values must be non-negative numbers, got {r}");
    }
    if !(0.0..=1.0).contains(&args.lambda) {
        bail!(
            "--lambda must be within 0..1 (1: result only), got {}",
            args.lambda
        );
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

/// The fit: choose the weights, read and merge the positions, fit K, descend for each
/// --reg, then report and write the best by held-out loss.
fn tune(args: &Args) -> Result<()> {
    let started = Instant::now();
    let mut file = ParamFile::load(&args.params_file)?;
    let mut params = Params::default();
    overlay(&mut params, std::slice::from_ref(&file), Field::Value)?;
    let model = Model::new(&file, &params, &args.params, &args.params_file)?;
    let (mut train, mut valid) = load_positions(args, &params)?;
    let start = model.start.clone();
    model.linearise(&mut train, &start);
    model.linearise(&mut valid, &start);
    let k = match args.k {
        Some(k) => k,
        None => fit_k(&model, &train, &start),
    };
    train.set_targets(k, args.lambda);
    valid.set_targets(k, args.lambda);
    let before = (
        model.losses(&train, &start, k),
        model.losses(&valid, &start, k),
    );
    eprintln!(
        "texel: K = {k:.6}; loss before: train {:.6}, held out {:.6} (result only: {:.6}, {:.6})",
        before.0.target, before.1.target, before.0.result, before.1.result
    );
    let mut best: Option<(f64, f64, Vec<f64>)> = None;
    for &reg in &args.reg {
        let (w, held_out) = model.fit(args, &mut train, &mut valid, k, reg);
        eprintln!("texel: --reg {reg:e}: best held-out loss {held_out:.6}");
        if best.as_ref().is_none_or(|b| held_out < b.1) {
            best = Some((reg, held_out, w));
        }
    }
    let (reg, _, w) = best.expect("at least one --reg value");
    let rounded: Vec<f64> = w.iter().map(|x| x.round()).collect();
    model.linearise(&mut train, &rounded);
    model.linearise(&mut valid, &rounded);
    let after = (
        model.losses(&train, &rounded, k),
        model.losses(&valid, &rounded, k),
    );
    let mut values: Vec<i32> = file.entries.iter().map(|e| e.value).collect();
    for (slot, &i) in model.tuned.iter().enumerate() {
        values[i] = rounded[slot] as i32;
    }
    report(
        &file, &model, &values, k, reg, &train, &valid, before, after,
    );
    println!(
        "time {:.1} s, peak memory {}",
        started.elapsed().as_secs_f64(),
        peak_memory()
    );
    if args.dry_run {
        println!("dry run: nothing written");
    } else {
        if let Some(out) = &args.output {
            file.path = out.clone();
        }
        file.write_values(&values)?;
        println!("wrote {}", file.path.display());
    }
    Ok(())
}

/// Locks the file the fit will write (PARAMS_FILE, or --output: a new file never in a
/// folder of parameter files, where it would be a second copy of every weight).
fn lock_output(args: &Args) -> Result<WriteLocks> {
    if args.dry_run {
        return Ok(WriteLocks::default());
    }
    let written = match &args.output {
        Some(out) if out != &args.params_file => {
            run_files::refuse_params_folder(out, "--output")?;
            out
        }
        _ => &args.params_file,
    };
    WriteLocks::acquire(&[written])
}

/// Peak resident memory of this process (Linux), for the report.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

// Reading and merging positions

/// One position as read: its record (see `datagen::pack_record`) and its split group.
struct Entry {
    rec: [u8; RECORD],
    group: u64,
}

/// Reads every file, merges equal positions, keeps the quiet ones and splits them.
fn load_positions(args: &Args, params: &Params) -> Result<(Set, Set)> {
    let started = Instant::now();
    let mut entries = Vec::new();
    for (index, path) in args.positions.iter().enumerate() {
        let read = read_file(path, index as u64)?;
        eprintln!("texel: {}: {} positions", path.display(), read.len());
        entries.extend(read);
    }
    let total = entries.len();
    let merged = merge_duplicates(entries);
    let distinct = merged.len();
    let material: [i32; 5] = std::array::from_fn(|r| {
        params.get(features::PARAMS[features::MATERIAL[r]][features::MG].expect("material_*_mg"))
    });
    let kept: Vec<Merged> = if args.no_quiet_filter {
        merged
    } else {
        merged
            .into_par_iter()
            .filter(|m| is_quiet(&decode(&m.rec), &material))
            .collect()
    };
    if kept.is_empty() {
        bail!(
            "none of the {distinct} distinct positions is quiet (use --no-quiet-filter to keep them all)"
        );
    }
    let quiet = kept.len();
    let (mut train, mut valid) = (Set::default(), Set::default());
    for m in kept {
        let set = if mix(m.group) % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 {
            &mut valid
        } else {
            &mut train
        };
        set.push(m);
    }
    if train.len() == 0 {
        // Tiny inputs: train on everything rather than on nothing.
        std::mem::swap(&mut train, &mut valid);
    }
    let scored = train
        .score
        .iter()
        .chain(&valid.score)
        .filter(|s| !s.is_nan())
        .count();
    eprintln!(
        "texel: {total} positions read, {distinct} distinct ({} duplicates merged), {quiet} quiet ({scored} with a search score; {} train, {} held out), {:.1} s",
        total - distinct,
        train.len(),
        valid.len(),
        started.elapsed().as_secs_f64()
    );
    Ok((train, valid))
}

/// The positions of one file: datagen's binary format by its magic bytes, else text.
fn read_file(path: &Path, file_index: u64) -> Result<Vec<Entry>> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read positions file {}", path.display()))?;
    if bytes.starts_with(datagen::MAGIC) {
        let mut records = Vec::new();
        let mut visit = |game: u64, recs: &[u8]| {
            for rec in recs.chunks_exact(RECORD) {
                records.push(Entry {
                    rec: rec.try_into().expect("32 bytes"),
                    group: (file_index << 40) ^ game,
                });
            }
        };
        let contents = datagen::scan(&mut std::io::Cursor::new(&bytes), path, Some(&mut visit))?;
        if contents.partial_tail > 0 {
            eprintln!(
                "texel: {}: {} complete games read, an unfinished one at the end skipped (a run still going or killed)",
                path.display(),
                contents.games
            );
        }
        // Records are checked when decoded; a bad one names the file here.
        if let Some((i, e)) = records
            .par_iter()
            .enumerate()
            .find_map_any(|(i, e)| datagen::unpack_record(&e.rec).err().map(|e| (i, e)))
        {
            bail!("{}: position record {i} is damaged: {e}", path.display());
        }
        return Ok(records);
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is neither a datagen file nor text (expected `FEN | result` lines or datagen's binary output)",
            path.display()
        )
    })?;
    let parsed = parse_positions(&text).with_context(|| path.display().to_string())?;
    parsed
        .into_par_iter()
        .map(|(line, pos, result)| {
            let rec = datagen::try_pack_record(&pos, (result * 2.0) as u8, None).map_err(|e| {
                anyhow::anyhow!(
                    "{} line {}: cannot store the position: {e}",
                    path.display(),
                    line + 1
                )
            })?;
            Ok(Entry {
                rec,
                group: (file_index << 40) ^ (line / TEXT_GROUP_LINES) as u64,
            })
        })
        .collect()
}

/// A distinct position with its merged label.
struct Merged {
    rec: [u8; RECORD],
    /// Mean game result (White's view).
    result: f32,
    /// Mean search score (cp, White's view) of the copies that have one; NaN if none.
    score: f32,
    group: u64,
}

/// Sorts by position (the first 24 record bytes, counters excluded) and merges equal
/// ones: mean result, mean score, the first copy's split group.
fn merge_duplicates(mut entries: Vec<Entry>) -> Vec<Merged> {
    entries.par_sort_by(|a, b| a.rec[..24].cmp(&b.rec[..24]));
    let mut out: Vec<Merged> = Vec::with_capacity(entries.len());
    let mut i = 0;
    while i < entries.len() {
        let mut j = i;
        let (mut results, mut scores, mut scored) = (0.0f64, 0.0f64, 0u32);
        while j < entries.len() && entries[j].rec[..24] == entries[i].rec[..24] {
            let r = &entries[j].rec;
            results += f64::from(r[24]) / 2.0;
            let s = i16::from_le_bytes([r[26], r[27]]);
            if s != i16::MIN {
                scores += f64::from(s);
                scored += 1;
            }
            j += 1;
        }
        let n = (j - i) as f64;
        out.push(Merged {
            rec: entries[i].rec,
            result: (results / n) as f32,
            score: if scored > 0 {
                (scores / f64::from(scored)) as f32
            } else {
                f32::NAN
            },
            group: entries[i].group,
        });
        i = j;
    }
    out
}

/// The position of a record already checked by `read_file`.
fn decode(rec: &[u8; RECORD]) -> Position {
    datagen::unpack_record(rec)
        .expect("records are checked when read")
        .position
}

/// splitmix64 finaliser: spreads group ids over the held-out residues.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Parses `FEN | result` / `FEN [result]` lines into (line index, position, result);
/// blank lines and `#` comments are skipped.
fn parse_positions(text: &str) -> Result<Vec<(usize, Position, f64)>> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if lines.is_empty() {
        bail!("no positions found");
    }
    let parsed: Result<Vec<_>> = lines
        .par_iter()
        .map(|&(n, line)| parse_line(line).map(|(p, r)| (n, p, r)).map_err(|why| {
            anyhow::anyhow!(
                "line {}: {why} (expected 'FEN | result' with result 1.0, 0.5 or 0.0 for White, or 'FEN [1.0]')",
                n + 1
            )
        }))
        .collect();
    parsed
}

fn parse_line(line: &str) -> Result<(Position, f64), String> {
    let (fen, result) = if let Some((fen, r)) = line.rsplit_once('|') {
        (fen, r.trim())
    } else if line.ends_with(']')
        && let Some(open) = line.rfind('[')
    {
        (&line[..open], line[open + 1..line.len() - 1].trim())
    } else {
        return Err("no result".into());
    };
    let result = match result.trim_matches('"') {
        "1.0" | "1" | "1-0" => 1.0,
        "0.5" | "1/2-1/2" | "1/2" => 0.5,
        "0.0" | "0" | "0-1" => 0.0,
        other => return Err(format!("unknown result '{other}'")),
    };
    let fen = fen.trim().trim_end_matches(';').trim();
    let pos = Position::from_fen(fen, false).map_err(|e| e.to_string())?;
    Ok((pos, result))
}

// The linearised positions

/// A set of positions (train or held out) in linear form, stored flat.
#[derive(Default)]
struct Set {
    recs: Vec<[u8; RECORD]>,
    result: Vec<f32>,
    /// Search score (cp, White's view), NaN when none.
    score: Vec<f32>,
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
    fn len(&self) -> usize {
        self.recs.len()
    }

    fn push(&mut self, m: Merged) {
        self.recs.push(m.rec);
        self.result.push(m.result);
        self.score.push(m.score);
    }

    /// `λ·result + (1−λ)·sigmoid(K·score)`; the result alone without a score.
    fn set_targets(&mut self, k: f64, lambda: f64) {
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

    /// Heap bytes of the linear form (for the report).
    fn bytes(&self) -> usize {
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
struct NonLinear {
    slot: u32,
    param: usize,
    min: i32,
    max: i32,
    step: i32,
}

/// The tuned weights and how the evaluation reads them.
struct Model {
    /// Entry index in the file, per tuned slot.
    tuned: Vec<usize>,
    /// Engine parameter index per tuned slot.
    param_of_slot: Vec<usize>,
    /// Per feature: the tuned slot of its (mg, eg) weight, if tuned.
    feature_slot: Vec<[Option<u32>; 2]>,
    /// Per feature: its (mg, eg) weight when not tuned.
    fixed: Vec<[f64; 2]>,
    nonlinear: Vec<NonLinear>,
    start: Vec<f64>,
    bounds: Vec<(f64, f64)>,
    /// The file's values laid over the compiled ones.
    params: Params,
}

impl Model {
    fn new(file: &ParamFile, params: &Params, wanted: &[String], path: &Path) -> Result<Model> {
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
        let feature_slot = features::params()
            .iter()
            .map(|pair| pair.map(|p| p.and_then(|p| slot_of_param[p])))
            .collect();
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
    fn linearise(&self, set: &mut Set, w: &[f64]) {
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
        let parts: Vec<Linear> = set
            .recs
            .par_chunks(4096)
            .map(|chunk| {
                let mut evals: Vec<Evaluator> = variants.iter().map(Evaluator::new).collect();
                let mut lin = Linear::default();
                for rec in chunk {
                    self.linearise_one(&mut evals, &deltas, w, &decode(rec), &mut lin);
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
        let mut nl = 0;
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
                        lin.nl.push((n.slot, g as f32));
                        constant -= g * w[n.slot as usize]
                            .round()
                            .clamp(f64::from(n.min), f64::from(n.max));
                        nl += 1;
                    }
                }
            }
        }
        lin.nl_counts.push(nl);
        lin.constant.push(constant as f32);
        lin.share.push([share[0] as f32, share[1] as f32]);
        lin.counts.push(c.features.len() as u32);
        lin.terms.extend(c.features.iter().map(|&(f, n)| (f, n)));
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
        for &(slot, g) in &set.nl[set.nl_start[i] as usize..set.nl_start[i + 1] as usize] {
            e += f64::from(g) * w[slot as usize];
        }
        e
    }

    /// Mean losses against the target and against the result alone.
    fn losses(&self, set: &Set, w: &[f64], k: f64) -> Losses {
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
                    for &(slot, g) in
                        &set.nl[set.nl_start[i] as usize..set.nl_start[i + 1] as usize]
                    {
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
    fn fit(
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
struct Losses {
    /// Against the fitted target (the blend).
    target: f64,
    /// Against the game result alone (comparable across --lambda).
    result: f64,
}

/// Prints the losses, K and the largest changes.
#[allow(clippy::too_many_arguments)]
fn report(
    file: &ParamFile,
    model: &Model,
    values: &[i32],
    k: f64,
    reg: f64,
    train: &Set,
    valid: &Set,
    before: (Losses, Losses),
    after: (Losses, Losses),
) {
    let mut changes: Vec<(i32, &str, i32, i32)> = model
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
        "loss before: train {:.6} held out {:.6} (result only: train {:.6} held out {:.6})",
        before.0.target, before.1.target, before.0.result, before.1.result
    );
    println!(
        "loss after:  train {:.6} held out {:.6} (result only: train {:.6} held out {:.6})",
        after.0.target, after.1.target, after.0.result, after.1.result
    );
    println!(
        "K {k:.6}, --reg {reg:e} chosen, {} train + {} held-out positions ({:.0} MB in linear form), {} weights tuned ({} non-linear), {} changed",
        train.len(),
        valid.len(),
        (train.bytes() + valid.bytes()) as f64 / 1e6,
        model.tuned.len(),
        model.nonlinear.len(),
        changes.len()
    );
    for (_, name, from, to) in changes.iter().take(15) {
        println!("  {name}: {from} -> {to}");
    }
}

// The quiet filter

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

#[inline]
fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval).exp())
}

/// The K minimising the loss against the results at the starting weights
/// (golden-section search on log K).
fn fit_k(model: &Model, set: &Set, w: &[f64]) -> f64 {
    let f = |lk: f64| model.losses(set, w, lk.exp()).result;
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

    fn args(positions: Vec<PathBuf>, params_file: PathBuf) -> Args {
        Args {
            positions,
            params_file,
            output: None,
            params: Vec::new(),
            lambda: 1.0,
            epochs: 20,
            lr: 2.0,
            reg: vec![0.0],
            refresh: 50,
            threads: Some(1),
            k: Some(0.01),
            no_quiet_filter: false,
            dry_run: true,
        }
    }

    fn repo_eval() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/eval.json")
    }

    #[test]
    fn positions_parse_in_both_styles_and_bad_lines_are_named() {
        let text = "# comment\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 1.0\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]\n\
            4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0-1\n";
        let p = parse_positions(text).unwrap();
        assert_eq!(
            p.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>(),
            vec![(1, 1.0), (2, 0.5), (3, 0.0)]
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

    /// A set of positions (result 0.5) in linear form for `model` at its start.
    fn set_of(model: &Model, fens: &[&str]) -> Set {
        let mut set = Set::default();
        for fen in fens {
            let p = Position::from_fen(fen, false).unwrap();
            set.push(Merged {
                rec: datagen::pack_record(&p, 1, None),
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
        let file = ParamFile::load(&repo_eval()).unwrap();
        let mut params = Params::default();
        overlay(&mut params, std::slice::from_ref(&file), Field::Value).unwrap();
        let model = Model::new(&file, &params, &[], &repo_eval()).unwrap();
        assert!(
            model.nonlinear.len() >= 10,
            "king danger weights are tuned through their gradient"
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
                w[j] = (w[j] + 6.0).clamp(model.bounds[j].0, model.bounds[j].1);
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

    /// The shelter, storm and outpost tables are fitted as linear weights (no
    /// finite differences), and their linear form reproduces the evaluation.
    #[test]
    fn shelter_storm_and_outpost_weights_are_linear() {
        let file = ParamFile::load(&repo_eval()).unwrap();
        let mut params = Params::default();
        overlay(&mut params, std::slice::from_ref(&file), Field::Value).unwrap();
        let wanted = ["king_shelter_*", "king_storm_*", "outpost_*"].map(String::from);
        let model = Model::new(&file, &params, &wanted, &repo_eval()).unwrap();
        assert!(model.nonlinear.is_empty());
        // 4 files x 8 + 8 shelter, 4 x 8 + 6 storm, 3 outpost features; mg and eg each.
        assert_eq!(model.tuned.len(), 2 * (40 + 38 + 3));
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

    #[test]
    fn the_gradient_points_downhill_and_k_is_sane() {
        let file = ParamFile::load(&repo_eval()).unwrap();
        let mut params = Params::default();
        overlay(&mut params, std::slice::from_ref(&file), Field::Value).unwrap();
        let model = Model::new(&file, &params, &[], &repo_eval()).unwrap();
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

    /// A small datagen file (2 games) in `dir`.
    fn datagen_file(dir: &Path) -> PathBuf {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: datagen::Args,
        }
        let out = dir.join("games.bin");
        let argv = [
            "datagen",
            "-o",
            out.to_str().unwrap(),
            "--games",
            "2",
            "--nodes",
            "150",
            "--max-plies",
            "30",
            "--skip-plies",
            "2",
            "--threads",
            "1",
        ];
        datagen::run(Cli::try_parse_from(argv).unwrap().args).unwrap();
        out
    }

    #[test]
    fn mixed_files_are_read_and_duplicates_merged_with_mean_labels() {
        let dir = crate::test_util::scratch_dir("texel-mixed");
        let bin = datagen_file(&dir);
        let binary = read_file(&bin, 0).unwrap();
        assert!(binary.len() > 4);
        // Text: two binary positions again (one with another result and other
        // counters), one new position twice with results 1.0 and 0.0.
        let first = datagen::unpack_record(&binary[0].rec).unwrap();
        let second = datagen::unpack_record(&binary[1].rec).unwrap();
        let other_counters = first.position.fen().replace(" 0 ", " 3 ");
        let text = dir.join("legacy.txt");
        std::fs::write(
            &text,
            format!(
                "{} | 1.0\n{} | {}\n4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1 | 1.0\n4k3/8/8/8/8/8/PP4PP/4K3 w - - 5 9 | 0.0\n",
                other_counters,
                second.position.fen(),
                second.result
            ),
        )
        .unwrap();
        let mut entries = read_file(&bin, 0).unwrap();
        entries.extend(read_file(&text, 1).unwrap());
        let total = entries.len();
        let merged = merge_duplicates(entries);
        let distinct_binary = {
            let mut keys: Vec<_> = binary.iter().map(|e| e.rec[..24].to_vec()).collect();
            keys.sort();
            keys.dedup();
            keys.len()
        };
        assert_eq!(total, binary.len() + 4);
        assert_eq!(merged.len(), distinct_binary + 1);
        let find = |fen: &str| {
            let key = datagen::pack_record(&Position::from_fen(fen, false).unwrap(), 0, None);
            merged.iter().find(|m| m.rec[..24] == key[..24]).unwrap()
        };
        let pawns = find("4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1");
        assert_eq!(pawns.result, 0.5);
        assert!(pawns.score.is_nan());
        // The binary copy brings its score; the text copy has none and its result counts.
        let f = find(&first.position.fen());
        assert_eq!(f.score, first.score.unwrap() as f32);
        let copies = binary
            .iter()
            .filter(|e| e.rec[..24] == binary[0].rec[..24])
            .count() as f64;
        let mean = (first.result * copies + 1.0) / (copies + 1.0);
        assert!((f64::from(f.result) - mean).abs() < 1e-6);
        // Through the whole loader: every distinct position once, split in two.
        let a = args(vec![bin.clone(), text.clone()], repo_eval());
        let params = Params::default();
        let (train, valid) = load_positions(&a, &params).unwrap();
        assert!(train.len() + valid.len() <= merged.len());
        assert!(train.len() + valid.len() > 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_inputs_are_named_and_nothing_is_written() {
        let dir = crate::test_util::scratch_dir("texel-bad");
        let params_path = dir.join("eval.json");
        std::fs::copy(repo_eval(), &params_path).unwrap();
        let before = std::fs::read(&params_path).unwrap();
        let fail = |path: &Path| {
            let mut a = args(vec![path.to_path_buf()], params_path.clone());
            a.dry_run = false;
            format!("{:#}", tune(&a).unwrap_err())
        };
        let junk = dir.join("junk.bin");
        std::fs::write(&junk, [0xff, 0xfe, 0x00, 0x81, 0x9f]).unwrap();
        let err = fail(&junk);
        assert!(
            err.contains("junk.bin") && err.contains("neither a datagen file nor text"),
            "{err}"
        );
        let bin = datagen_file(&dir);
        let mut bytes = std::fs::read(&bin).unwrap();
        let n = bytes.len();
        // The last game's last position record: an impossible result byte.
        bytes[n - RECORD + 24] = 9;
        std::fs::write(&bin, &bytes).unwrap();
        let err = fail(&bin);
        assert!(
            err.contains("games.bin") && err.contains("damaged") && err.contains("result"),
            "{err}"
        );
        let text = dir.join("bad.txt");
        std::fs::write(
            &text,
            "4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1 | 1.0\n4k3/8/8 w | 1.0\n",
        )
        .unwrap();
        let err = fail(&text);
        assert!(err.contains("bad.txt") && err.contains("line 2"), "{err}");
        let err = fail(&dir.join("missing.txt"));
        assert!(err.contains("cannot read positions file"), "{err}");
        assert_eq!(std::fs::read(&params_path).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_small_run_rewrites_only_values_and_dry_run_writes_nothing() {
        let dir = crate::test_util::scratch_dir("texel");
        let params_path = dir.join("eval.json");
        std::fs::copy(repo_eval(), &params_path).unwrap();
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
        let run_args = |dry_run: bool, output: Option<PathBuf>| Args {
            params: vec!["material_pawn_eg".into()],
            dry_run,
            output,
            ..args(vec![positions.clone()], params_path.clone())
        };
        let before = std::fs::read_to_string(&params_path).unwrap();
        tune(&run_args(true, None)).unwrap();
        assert_eq!(std::fs::read_to_string(&params_path).unwrap(), before);
        let copy = dir.join("fit.json");
        tune(&run_args(false, Some(copy.clone()))).unwrap();
        assert_eq!(std::fs::read_to_string(&params_path).unwrap(), before);
        tune(&run_args(false, None)).unwrap();
        assert_eq!(
            std::fs::read_to_string(&params_path).unwrap(),
            std::fs::read_to_string(&copy).unwrap()
        );
        let after = ParamFile::load(&params_path).unwrap();
        let original = ParamFile::load(&repo_eval()).unwrap();
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
