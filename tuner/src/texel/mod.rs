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
//! and the drawish scale depends on the sign of the score. The shelter weights are
//! features, but king danger also takes a share of the shelter sum
//! (`king_danger_shelter_pct`): that path's gradient is computed from each side's
//! danger count and the shelter's feature counts (`model::ShelterPath`). All of it is
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
//!
//! The pawn-king network's file (`params/pknet.json`) is fitted whole by its own
//! descent, as the residual of the hand-written evaluation (`network`).
//!
//! The parts: `data` (reading and merging positions), `quiet` (the quiet filter),
//! `model` (the fit), `groups` (the held-out check per term group), `network` (the
//! pawn-king network's fit).
//!
//! A command: may use every layer below. It uses the datagen file (`datagen_file`,
//! a module of its own layer), the parameter files (`param_files`), `run_files`, and
//! the engine's evaluation (`occam::eval`).

mod data;
mod groups;
mod model;
mod network;
mod quiet;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::eval::features;
use rayon::prelude::*;

use crate::param_files::{Field, ParamFile, overlay};
use crate::run_files::{self, WriteLocks};
use data::Merged;
use model::{Losses, Model, Set, fit_k};

#[derive(clap::Args)]
pub struct Args {
    /// Position files, any mix of datagen's binary files and `FEN | result` text
    /// (result 1.0/0.5/0.0, White's view), followed by the evaluation parameter file to
    /// tune (e.g. params/eval.json).
    #[arg(required = true, num_args = 1.., value_name = "POSITIONS")]
    pub positions: Vec<PathBuf>,
    /// The evaluation parameter file to tune (params/eval.json, or params/pknet.json for
    /// the pawn-king network); rewritten unless --output or --dry-run.
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
    /// Skip the held-out check per term group (it re-linearises the held-out
    /// positions once per group: about a third of a full fit's time).
    #[arg(long)]
    pub no_group_check: bool,
    /// Report the fit but write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// For a network file: start from the seeded random network, as a file of zeros
    /// does, instead of the file's weights (a refit on new data: continued from its
    /// last fit, a network stops early near that fit's minimum).
    #[arg(long)]
    pub restart: bool,
}

/// Held-out positions: one group in this many.
const HELD_OUT_EVERY: u64 = 10;

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
    if file.group == network::GROUP {
        network::check(args, &file)?;
        let (train, valid) = load_positions(args, &params)?;
        let values = network::fit(args, &file, &params, train, valid)?;
        println!(
            "time {:.1} s, peak memory {}",
            started.elapsed().as_secs_f64(),
            peak_memory()
        );
        return write(args, &mut file, &values);
    }
    if args.restart {
        bail!(
            "--restart starts a pawn-king network afresh; {} is an evaluation file, which is fitted from its values",
            args.params_file.display()
        );
    }
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
    if valid.len() > 0 && !args.no_group_check {
        let names: Vec<&str> = model
            .tuned
            .iter()
            .map(|&i| file.entries[i].name.as_str())
            .collect();
        let checks = groups::check(&model, &names, &mut valid, &start, &rounded, k);
        report_groups(checks, before.1.target, after.1.target);
    }
    println!(
        "time {:.1} s, peak memory {}",
        started.elapsed().as_secs_f64(),
        peak_memory()
    );
    write(args, &mut file, &values)
}

/// Writes the fitted values (to --output if given), or nothing on --dry-run.
fn write(args: &Args, file: &mut ParamFile, values: &[i32]) -> Result<()> {
    if args.dry_run {
        println!("dry run: nothing written");
    } else {
        if let Some(out) = &args.output {
            file.path = out.clone();
        }
        file.write_values(values)?;
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

/// Reads every file, merges equal positions, keeps the quiet ones and splits them.
fn load_positions(args: &Args, params: &Params) -> Result<(Set, Set)> {
    let started = Instant::now();
    let mut entries = Vec::new();
    for (index, path) in args.positions.iter().enumerate() {
        let read = data::read_file(path, index as u64)?;
        eprintln!("texel: {}: {} positions", path.display(), read.len());
        entries.extend(read);
    }
    let total = entries.len();
    let merged = data::merge_duplicates(entries);
    let distinct = merged.len();
    let material: [i32; 5] = std::array::from_fn(|r| {
        params.get(features::PARAMS[features::MATERIAL[r]][features::MG].expect("material_*_mg"))
    });
    let kept: Vec<Merged> = if args.no_quiet_filter {
        merged
    } else {
        merged
            .into_par_iter()
            .filter(|m| quiet::is_quiet(&data::decode(&m.rec), &material))
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

/// splitmix64 finaliser: spreads group ids over the held-out residues.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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

/// The held-out check per term group, largest gain first.
fn report_groups(mut checks: Vec<groups::GroupCheck>, before: f64, after: f64) {
    checks.sort_by(|a, b| a.held_out.total_cmp(&b.held_out));
    println!(
        "held out by term group, each group's fitted values alone (the rest at the start; all together {:+.6}):",
        after - before
    );
    for c in checks {
        let verdict = if c.held_out > before {
            "  worse alone"
        } else {
            ""
        };
        println!(
            "  {:<16} {:>4} weights, {:>4} changed: {:+.6}{verdict}",
            c.group,
            c.weights,
            c.changed,
            c.held_out - before
        );
    }
}

#[cfg(test)]
mod tests {
    use super::data::{merge_duplicates, read_file};
    use super::*;
    use crate::datagen_file::{self, RECORD};
    use crate::test_util::repo_params;
    use occam::position::Position;
    use std::path::Path;

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
            no_group_check: false,
            dry_run: true,
            restart: false,
        }
    }

    /// A small datagen file in `dir`: the positions of two games (none in both), each
    /// with its game's result and a score.
    fn datagen_file(dir: &Path) -> PathBuf {
        let games = [
            (2, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"]),
            (1, ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6", "c1g5"]),
        ];
        let mut bytes = datagen_file::header("texel test");
        for (index, (result, moves)) in games.into_iter().enumerate() {
            let mut game = occam::position::Game::new(Position::startpos());
            let mut positions = Vec::new();
            for (ply, m) in moves.iter().enumerate() {
                game.play_uci(m).unwrap();
                positions.push((game.position.clone(), 10 * ply as i32 - 30));
            }
            bytes.extend(datagen_file::game_block(
                index as u64,
                result,
                moves.len(),
                &positions,
            ));
        }
        let out = dir.join("games.bin");
        std::fs::write(&out, bytes).unwrap();
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
        let first = datagen_file::unpack_record(&binary[0].rec).unwrap();
        let second = datagen_file::unpack_record(&binary[1].rec).unwrap();
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
            let mut keys: Vec<_> = binary
                .iter()
                .map(|e| datagen_file::position_key(&e.rec).to_vec())
                .collect();
            keys.sort();
            keys.dedup();
            keys.len()
        };
        assert_eq!(total, binary.len() + 4);
        assert_eq!(merged.len(), distinct_binary + 1);
        let find = |fen: &str| {
            let key = datagen_file::pack_record(&Position::from_fen(fen, false).unwrap(), 0, None);
            merged
                .iter()
                .find(|m| datagen_file::position_key(&m.rec) == datagen_file::position_key(&key))
                .unwrap()
        };
        let pawns = find("4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1");
        assert_eq!(pawns.result, 0.5);
        assert!(pawns.score.is_nan());
        // The binary copy brings its score; the text copy has none and its result counts.
        let f = find(&first.position.fen());
        assert_eq!(f.score, first.score.unwrap() as f32);
        let copies = binary
            .iter()
            .filter(|e| {
                datagen_file::position_key(&e.rec) == datagen_file::position_key(&binary[0].rec)
            })
            .count() as f64;
        let mean = (first.result * copies + 1.0) / (copies + 1.0);
        assert!((f64::from(f.result) - mean).abs() < 1e-6);
        // Through the whole loader: every distinct position once, split in two.
        let a = args(vec![bin.clone(), text.clone()], repo_params("eval.json"));
        let params = Params::default();
        let (train, valid) = load_positions(&a, &params).unwrap();
        assert!(train.len() + valid.len() <= merged.len());
        assert!(train.len() + valid.len() > 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A network file is fitted whole: its outputs leave zero, nothing but values
    /// changes, the original stays as it was, and a selection of weights is refused.
    #[test]
    fn a_network_file_is_fitted_whole() {
        let dir = crate::test_util::scratch_dir("texel-network");
        let bin = datagen_file(&dir);
        let params_path = dir.join("pknet.json");
        std::fs::copy(repo_params("pknet.json"), &params_path).unwrap();
        let before = std::fs::read(&params_path).unwrap();
        let out = dir.join("fit.json");
        let a = Args {
            epochs: 3,
            lr: 4.0,
            output: Some(out.clone()),
            dry_run: false,
            ..args(vec![bin.clone()], params_path.clone())
        };
        tune(&a).unwrap();
        assert_eq!(std::fs::read(&params_path).unwrap(), before);
        let (fitted, original) = (
            ParamFile::load(&out).unwrap(),
            ParamFile::load(&params_path).unwrap(),
        );
        assert_eq!(fitted.names(), original.names());
        assert!((fitted.entries.iter()).any(|e| e.name.starts_with("pknet_out_") && e.value != 0));
        for (x, y) in fitted.entries.iter().zip(&original.entries) {
            assert_eq!(
                (x.min, x.max, x.start),
                (y.min, y.max, y.start),
                "{}",
                x.name
            );
        }
        // --restart fits from the seeded random network, as a file of zeros does.
        let zeros = dir.join("zeros.json");
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&params_path).unwrap()).unwrap();
        for p in doc["params"].as_array_mut().unwrap() {
            p["value"] = 0.into();
        }
        std::fs::write(&zeros, serde_json::to_vec(&doc).unwrap()).unwrap();
        let fitted_to = |file: &Path, restart: bool, name: &str| {
            let out = dir.join(name);
            tune(&Args {
                restart,
                output: Some(out.clone()),
                dry_run: false,
                epochs: 3,
                lr: 4.0,
                ..args(vec![bin.clone()], file.to_path_buf())
            })
            .unwrap();
            ParamFile::load(&out)
                .unwrap()
                .entries
                .iter()
                .map(|e| e.value)
                .collect::<Vec<_>>()
        };
        let restarted = fitted_to(&params_path, true, "restarted.json");
        assert_eq!(restarted, fitted_to(&zeros, false, "from-zeros.json"));
        assert_ne!(restarted, fitted_to(&params_path, false, "continued.json"));
        let chosen = Args {
            params: vec!["pknet_bias_0".into()],
            ..a
        };
        let err = format!("{:#}", tune(&chosen).unwrap_err());
        assert!(err.contains("fitted whole"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_inputs_are_named_and_nothing_is_written() {
        let dir = crate::test_util::scratch_dir("texel-bad");
        let params_path = dir.join("eval.json");
        std::fs::copy(repo_params("eval.json"), &params_path).unwrap();
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
        // --restart is for a network; an evaluation file is fitted from its values.
        let restart = Args {
            restart: true,
            dry_run: false,
            ..args(vec![datagen_file(&dir)], params_path.clone())
        };
        let err = format!("{:#}", tune(&restart).unwrap_err());
        assert!(
            err.contains("--restart") && err.contains("eval.json"),
            "{err}"
        );
        assert_eq!(std::fs::read(&params_path).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// With every tuned weight in one group, that group alone scores as the whole fit;
    /// an unchanged group is not reported.
    #[test]
    fn a_group_alone_scores_its_own_fitted_values() {
        let dir = crate::test_util::scratch_dir("texel-groups");
        let bin = datagen_file(&dir);
        let a = Args {
            params: vec!["tempo_mg".into(), "tempo_eg".into()],
            ..args(vec![bin], repo_params("eval.json"))
        };
        let file = ParamFile::load(&a.params_file).unwrap();
        let mut params = Params::default();
        overlay(&mut params, std::slice::from_ref(&file), Field::Value).unwrap();
        let model = Model::new(&file, &params, &a.params, &a.params_file).unwrap();
        let (mut set, _) = load_positions(&a, &params).unwrap();
        let start = model.start.clone();
        let names: Vec<&str> = model
            .tuned
            .iter()
            .map(|&i| file.entries[i].name.as_str())
            .collect();
        let mut fitted = start.clone();
        fitted[0] += 40.0;
        set.set_targets(0.01, 1.0);
        let checks = groups::check(&model, &names, &mut set, &start, &fitted, 0.01);
        assert_eq!(checks.len(), 1);
        assert_eq!(
            (
                checks[0].group.as_str(),
                checks[0].weights,
                checks[0].changed
            ),
            ("tempo", 2, 1)
        );
        model.linearise(&mut set, &fitted);
        let whole = model.losses(&set, &fitted, 0.01).target;
        assert!(
            (checks[0].held_out - whole).abs() < 1e-12,
            "{} vs {whole}",
            checks[0].held_out
        );
        model.linearise(&mut set, &start);
        assert_ne!(whole, model.losses(&set, &start, 0.01).target);
        assert!(groups::check(&model, &names, &mut set, &start, &start, 0.01).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_small_run_rewrites_only_values_and_dry_run_writes_nothing() {
        let dir = crate::test_util::scratch_dir("texel");
        let params_path = dir.join("eval.json");
        std::fs::copy(repo_params("eval.json"), &params_path).unwrap();
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
        let original = ParamFile::load(&repo_params("eval.json")).unwrap();
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
