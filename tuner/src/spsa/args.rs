//! `tuner spsa`'s command line: its flags and the checks made before anything is
//! loaded, and what a run writes back ([`Output`]).

use std::path::PathBuf;

use anyhow::{Result, bail};
use occam::params::FROZEN;

use crate::play::args::GameArgs;
use crate::rules::RunRules;
use crate::tuned::probe;

/// Planned pairs of the default run: about 12 minutes on two cores at the default 8000
/// nodes per move (1000 pairs took 5.8 minutes at 5.75 games/s on the development machine).
pub const DEFAULT_PAIRS: u64 = 2000;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The Polyak–Ruppert average of θ over the last part of the run.
    Average,
    /// θ after the last pair.
    Last,
}

#[derive(clap::Args)]
pub struct Args {
    /// Parameter files to tune; the tuned values are written back into them. Occam's
    /// params/*.json in-process; with --engine, the engine's parameter list: OpenBench
    /// SPSA text (`name, int|float, value, min, max[, c_end, r_end]`), a weather-factory
    /// config JSON or a file in Occam's schema. Where a file leaves out a parameter's
    /// c_end or r_end, the run plays the design (see docs/spsa.md).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// More parameter files (the same as giving them as FILE).
    #[arg(long = "params-file", value_name = "FILE")]
    pub params_file: Vec<PathBuf>,
    /// Tune an external UCI engine instead of Occam in-process: cmd=PATH [args="ARGS"]
    /// [dir=DIR] [option.NAME=VALUE]... [timeout=SECONDS]. θ+ and θ− are set with
    /// `setoption` on two long-lived processes per worker.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub engine: Vec<String>,
    /// Tune only these parameters (comma-separated; `prefix_*` takes every name with
    /// that prefix). The others keep their file values.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub params: Vec<String>,
    /// Planned iterations (game pairs), N.
    #[arg(long, default_value_t = DEFAULT_PAIRS, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub pairs: u64,
    /// Plan the pairs by a precision target instead of --pairs: as many as the design
    /// expects to need to end within PRECISION Elo of the optimum (95%, all tuned
    /// parameters together), with r for that precision. Only for a run the design plays
    /// (a tuned parameter without c_end or r_end).
    #[arg(long, value_name = "PRECISION", conflicts_with = "pairs")]
    pub until: Option<f64>,
    /// Worker threads, each playing one pair at a time [default: all cores].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Continue the run recorded in the journal (after a kill, a crash or Ctrl-C).
    #[arg(long, conflicts_with = "restart")]
    pub resume: bool,
    /// Write the values the run in the journal has reached, without playing: the
    /// average (a designed run's from its first pair, else over the averaging window,
    /// the last --average-fraction of the planned pairs) once it has begun, else the
    /// last θ (the line printed says which). The
    /// journal is left as it is, so the run can still be continued with --resume.
    #[arg(long, conflicts_with_all = ["restart", "resume"])]
    pub finish: bool,
    /// Start over although a journal exists (the earlier run's journal, checkpoint and
    /// results are kept as *.old.1, *.old.2, ...; nothing is overwritten).
    #[arg(long)]
    pub restart: bool,
    /// Journal path [default: in the run folder, named after the first file, e.g.
    /// runs/search.spsa.jsonl]; the checkpoint, table, result and plot go beside it.
    /// Never in a folder of parameter files.
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// What is written back: the average over the last part of the run, or the last θ
    /// [default: average; the last θ, and only that, under a baseline's rules such as --rules fishtest].
    #[arg(long, value_enum)]
    pub output: Option<Output>,
    /// The rules the run plays: Occam's, or another tuner's as a baseline to compare
    /// with (see docs/spsa.md). A resumed run must give its own.
    #[arg(long, default_value = "occam", value_parser = RunRules::parser())]
    pub rules: RunRules,
    /// Fraction of the run, at its end, over which θ is averaged, equally weighted
    /// [default: 0.25; a run that plays the design averages every θ, the one after
    /// pair k weighted by k², and plays its gain pairs in the last half].
    #[arg(long, value_name = "F")]
    pub average_fraction: Option<f64>,
    /// SPSA stability constant A of the decaying schedule [default: 0.1·pairs; a baseline's own
    /// under its rules, fishtest's ⌊0.1·pairs⌋].
    #[arg(long = "spsa-a", value_name = "A")]
    pub big_a: Option<f64>,
    /// SPSA learning-rate decay exponent α of the decaying schedule [default: 0.602].
    #[arg(long, value_name = "ALPHA")]
    pub alpha: Option<f64>,
    /// SPSA perturbation decay exponent γ of the decaying schedule [default: 0.101].
    #[arg(long, value_name = "GAMMA")]
    pub gamma: Option<f64>,
    /// The learning rate at the end of the run (a_k/c_k² at k = N; the constant rate of
    /// a designed run) for every tuned parameter, in place of the files' `r_end` or the
    /// designed r, for this run only: the journal records
    /// it (a resumed run keeps its own) and the files keep theirs. The files' 0.002 is
    /// OpenBench's rate for tunes of tens of thousands of pairs; within a few thousand it
    /// moves a value by a fraction of its `c_end`, so shorter runs need about 0.01.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    pub r_end: Option<f64>,
    /// Pairs in each of the probe's three stages, for a run that designs some c (a
    /// parameter without `c_end`) [default: 1% of --pairs a stage, none below 10];
    /// 0 plays no probe and keeps the prior c, a quarter of the range.
    #[arg(long, value_name = "N")]
    pub probe_pairs: Option<u64>,
    /// Estimate the gain while the run goes: in the averaging window, one pair of the
    /// averaged θ against the start for every N SPSA pairs. They do not move θ: half
    /// as many games again with the design's window of half the run, a quarter more
    /// with the last quarter of a run with hand-set gains. The write-back gate reads
    /// them; 0 plays none (and the gate then keeps the start).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub gain_every: u64,
    /// Tune but do not write the parameter files (the journal and table are written).
    #[arg(long, conflicts_with_all = ["verify", "force_write"])]
    pub no_write: bool,
    /// Write the result back even where the gate would keep the start: by default the
    /// values are written only when the gain pairs' estimate lies more than a quarter
    /// of its standard error above 0 (see --gain-every), so that a tune which does not
    /// show a gain leaves the files as they were. For comparing tuners, whose results
    /// are judged whatever they are.
    #[arg(long)]
    pub force_write: bool,
    /// After the tune, run an SPRT of the written values against the values the tune
    /// started from (same game options); only if it accepts H1 is a frozen header
    /// written, stamped with the tune's settings and the test's result.
    #[arg(long)]
    pub verify: bool,
    /// The SPRT of --verify: elo0=E0 elo1=E1 [alpha=A] [beta=B].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", default_values = ["elo0=0", "elo1=5"])]
    pub verify_sprt: Vec<String>,
    /// Upper limit of game pairs of --verify.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub verify_pairs: u64,
    /// The verified header --verify writes: a Rust module when it ends in `.rs`, else a
    /// C header [default: in the run folder, e.g. runs/search.verified.rs].
    #[arg(long, value_name = "FILE")]
    pub header: Option<PathBuf>,
    /// Tune the clock-only parameters (`"measured_by": "clock"`: time management, tm_*)
    /// even in games without a clock (--nodes, --depth, --movetime), which never run
    /// time management: they can only random-walk. Without this flag they are left out
    /// of such runs; with --tc they are always tuned.
    #[arg(long)]
    pub include_clock_params: bool,
    #[command(flatten)]
    pub games: GameArgs,
}

/// What the run writes back. Occam's rules: `--output`, the average by default.
/// A baseline's rules (fishtest's) write the last θ, as that tuner does, and never use
/// the design: the flags that only Occam's rules have a use for are refused, not
/// ignored.
pub(super) fn output_of(args: &Args) -> Result<Output> {
    match args.rules.baseline() {
        None => Ok(args.output.unwrap_or(Output::Average)),
        Some(baseline) => {
            let occams: Vec<&str> = [
                (args.until.is_some(), "--until"),
                (args.probe_pairs.is_some(), "--probe-pairs"),
                (args.average_fraction.is_some(), "--average-fraction"),
                (args.output == Some(Output::Average), "--output average"),
            ]
            .into_iter()
            .filter_map(|(given, flag)| given.then_some(flag))
            .collect();
            if !occams.is_empty() {
                bail!(
                    "--rules {} cannot take {}: {} never use the design (no probe, no --until) and write the last θ, not an average; leave them out, or play --rules occam",
                    args.rules.name(),
                    occams.join(", "),
                    baseline.title
                );
            }
            Ok(Output::Last)
        }
    }
}

/// Checks the arguments before anything is loaded, and gathers --params-file into the
/// files.
pub(super) fn check(args: &mut Args) -> Result<()> {
    if let Some(word) = args.engine.iter().find(|w| !w.contains('=')) {
        bail!(
            "--engine: '{word}' is not KEY=VALUE; give the parameter list before --engine or as --params-file {word}"
        );
    }
    args.files.append(&mut args.params_file);
    if args.files.is_empty() {
        bail!(
            "no parameter file given: e.g. `tuner spsa params/search.json`, or `tuner spsa --engine cmd=./myengine --params-file myengine.spsa`"
        );
    }
    if FROZEN && args.engine.is_empty() {
        bail!("this tuner was built with the engine's `frozen` feature: parameters cannot change");
    }
    if let Some(f) = args.average_fraction
        && !(f > 0.0 && f <= 1.0)
    {
        bail!("--average-fraction must lie in (0, 1], got {f}");
    }
    if !(args.alpha.is_none_or(|a| a > 0.0)
        && args.gamma.is_none_or(|g| g > 0.0)
        && args.big_a.is_none_or(|a| a >= 0.0))
    {
        bail!("--alpha and --gamma must be positive and --spsa-a non-negative");
    }
    if let Some(p) = args.until
        && !(p > 0.0 && p.is_finite())
    {
        bail!("--until takes a precision in Elo above 0 (e.g. 1), got {p}");
    }
    if let Some(n) = args.probe_pairs
        && args.until.is_none()
        && n.saturating_mul(probe::STAGES) >= args.pairs
    {
        bail!(
            "--probe-pairs {n}: the probe's {} stages would take {} of the {} pairs of --pairs; give fewer probe pairs or more pairs",
            probe::STAGES,
            n.saturating_mul(probe::STAGES),
            args.pairs
        );
    }
    if let Some(r) = args.r_end
        && !(r > 0.0 && r.is_finite())
    {
        bail!("--r-end must be a positive number (e.g. 0.01), got {r}");
    }
    Ok(())
}
