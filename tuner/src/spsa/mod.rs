//! `tuner spsa`: tunes the parameters of one or more `params/*.json` files by SPSA in
//! in-process self-play, or the options of any UCI engine (`--engine`, its parameter
//! list in an OpenBench, weather-factory or Occam file), and writes the tuned values
//! back.
//!
//! A [`server::Server`] owns θ; rayon workers each own two engines (θ+ and θ−, each
//! with its own hash table, or two long-lived engine processes set by `setoption`),
//! take a work item, play the colour-swapped pair without any lock held, and hand back
//! the result. See `schedule` for the gains and the integer perturbations, `server`
//! for θ and resume, `journal` for the run's files on disk, `tuned_side` for what differs
//! between Occam in-process and an external engine (`binding` for how a listed
//! parameter reaches an engine's option), `report` for the final table.

pub mod journal;
mod progress;
mod report;
pub mod server;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::params::FROZEN;
use occam::position::Game;
use shakmaty::Color;

use crate::design;
use crate::design::Averaging;
use crate::interrupt::{self, Stopped};
use crate::matches::sprt::{Model, Sprt};
use crate::matches::verify::VerifyPlan;
use crate::param_files::lists::ParamList;
use crate::param_files::{Field, MeasuredBy, load_all, overlay};
use crate::play::args::{BookOrder, GameArgs};
use crate::play::game::{Adjudication, GameRecord, Outcome, TimeControl, pair_score, play_pair};
use crate::play::pgn;
use crate::play::pgn::PgnWriter;
use crate::play::uci_engine::EngineSpec;
use crate::rules::schedule::Hyper;
use crate::rules::{self, Fishtest, Param};
use crate::run_files::{self, WriteLocks};
use crate::tuned::params::{Requested, TunedParam};
use crate::tuned::probe;
use crate::tuned::side::{Candidate, External, InProcess, Slot, TunedSide};
use journal::{LeftOut, RunConfig, RunFiles, RunRules};
use progress::Progress;
use server::{Server, WorkItem};

/// The run's `r_end` (four significant digits): one figure when every tuned parameter
/// has the same, else its range.
fn r_end_text(config: &RunConfig) -> String {
    let r = config.params.iter().map(|p| p.r_end);
    let (lo, hi) = r.fold((f64::INFINITY, 0.0_f64), |(lo, hi), r| {
        (lo.min(r), hi.max(r))
    });
    let (lo, hi) = (design::rounded(lo), design::rounded(hi));
    if lo == hi || config.params.is_empty() {
        format!("{hi}")
    } else {
        format!("{lo}..{hi}")
    }
}

/// The share of a decaying run, at its end, whose θ are averaged (a designed run
/// averages as [`design::AVERAGING`] says): Occam's rules' own default.
pub use rules::occam::DEFAULT_AVERAGE_FRACTION;

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
    /// [default: average; the last θ, and only that, with --rules fishtest].
    #[arg(long, value_enum)]
    pub output: Option<Output>,
    /// The rules the run plays: Occam's, or fishtest's as a baseline to compare with
    /// (see docs/spsa.md). A resumed run must give its own.
    #[arg(long, value_enum, default_value_t = RunRules::Occam)]
    pub rules: RunRules,
    /// Fraction of the run, at its end, over which θ is averaged, equally weighted
    /// [default: 0.25; a run that plays the design averages every θ, the one after
    /// pair k weighted by k², and plays its gain pairs in the last half].
    #[arg(long, value_name = "F")]
    pub average_fraction: Option<f64>,
    /// SPSA stability constant A of the decaying schedule [default: 0.1·pairs; with
    /// --rules fishtest ⌊0.1·pairs⌋].
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
    /// averaged θ against the start for every N SPSA pairs (they do not move θ; about
    /// 12% more games with the design's window of half the run, and an interval about
    /// 1.7 times as wide as a match of a third of the run's pairs). 0 plays none.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub gain_every: u64,
    /// Tune but do not write the parameter files (the journal and table are written).
    #[arg(long, conflicts_with = "verify")]
    pub no_write: bool,
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

/// Everything a tune needs, decided before the first game: what is tuned (Occam's
/// files in-process or an engine's list) and the tuned slots in it, the games and the
/// workers.
struct TunePlan {
    side: TunedSide,
    /// The tuned parameters, in the run's (journal's) order.
    slots: Vec<Slot>,
    run_files: RunFiles,
    openings: Vec<Game>,
    tc: TimeControl,
    adjudication: Adjudication,
    pgn: Option<PgnWriter>,
    threads: usize,
    hash_mb: usize,
    output: Output,
    /// Write the result into the parameter files (not with --no-write).
    write: bool,
    /// One gain pair per this many SPSA pairs in the averaging window (0: none).
    gain_every: u64,
    verify: Option<VerifySettings>,
    /// Held until the run, its write-back and verification are over.
    _locks: WriteLocks,
}

/// What `--verify` will test, checked before the tune.
struct VerifySettings {
    sprt: Sprt,
    pairs: u64,
    header: PathBuf,
    games: GameArgs,
}

/// `tuner spsa`: prepare the run (new or resumed), play its pairs, then write and
/// optionally verify the result. With --finish, only write what the journal reached.
/// A Ctrl-C stops the run cleanly: it is saved, and how to go on is printed.
pub fn run(args: Args) -> Result<()> {
    let finish_only = args.finish;
    if !finish_only {
        // Before preparing: a designed run plays its probe there.
        interrupt::install("finishing the pairs in flight, then saving the run");
    }
    let (plan, server) = prepare(args)?;
    if finish_only {
        return finish(plan, server);
    }
    let server = play(&plan, server)?;
    if interrupt::requested() && !server.finished() {
        report_stop(&plan, &server);
        return Err(Stopped.into());
    }
    finish(plan, server)
}

/// What to do after a clean stop: the pairs done, where they are kept, and the two
/// commands that go on from there.
fn report_stop(plan: &TunePlan, server: &Server) {
    let others = ["--restart", "--resume", "--finish"];
    eprintln!(
        "spsa: stopped after {} of {} pairs; the journal keeps every finished pair: {}",
        server.pairs_done(),
        server.config.hyper.pairs,
        plan.run_files.journal.display()
    );
    eprintln!(
        "spsa: to continue:  {}",
        interrupt::command_again(&others, "--resume")
    );
    eprintln!(
        "spsa: to write the values reached so far ({}):  {}",
        what_finish_writes(server, plan.output),
        interrupt::command_again(&others, "--finish")
    );
}

/// Which θ a write-back takes now: the average once it has begun, else the last θ.
fn what_finish_writes(server: &Server, output: Output) -> String {
    let window = server.config.averaging_window_start() + 1;
    let done = server.pairs_done();
    match output {
        Output::Last => "the last θ".to_string(),
        Output::Average if !server.average_begun() => {
            format!("the last θ: the averaging window, from pair {window} on, has not begun")
        }
        Output::Average if server.config.average_power > 0.0 => format!(
            "the average of θ over pairs 1..{done}, weighted by the pair's index to the power {}",
            server.config.average_power
        ),
        Output::Average => format!("the average of θ over pairs {window}..{done}"),
    }
}

/// Checks the arguments, loads the files and opens the run: a fresh journal, or the
/// journal of the run being resumed.
fn prepare(mut args: Args) -> Result<(TunePlan, Server)> {
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
    let output = output_of(&args)?;
    // Checked now, not after the tune: a bad test must not cost the run.
    let verify_sprt = if args.verify {
        Some(Sprt::parse(&args.verify_sprt, Model::Normalized).context("--verify-sprt")?)
    } else {
        None
    };
    let tc = args.games.time_control()?;
    let journal = journal_path(&args)?;
    let header = verify_sprt
        .is_some()
        .then(|| header_path(&args))
        .transpose()?;
    let side = if args.engine.is_empty() {
        let files = load_all(&args.files)?;
        // Every parameter starts from its file value; the tuned ones move from there.
        let mut base = Params::default();
        overlay(&mut base, &files, Field::Value)?;
        TunedSide::InProcess(InProcess { files, base })
    } else {
        let spec = EngineSpec::parse(&args.engine)?;
        let lists = args
            .files
            .iter()
            .map(|p| ParamList::load(p))
            .collect::<Result<Vec<_>>>()?;
        TunedSide::External(External::connect(spec, lists, args.games.hash_mb())?)
    };
    let (chosen, left_out) =
        measurable(side.select(&args.params)?, &tc, args.include_clock_params)?;
    // Everything is checked: from here on this run is the one writer of its files.
    let locks = lock_run(&args, &journal, header.as_deref())?;
    // A book is sampled at random by --seed unless --book-order says otherwise, and used
    // whole: the run cycles through all of it, not through its first positions.
    args.games.book_order.get_or_insert(BookOrder::Random);
    let book = if args.games.book.is_some() {
        Some(args.games.openings(0)?)
    } else {
        None
    };
    let adjudication = args.games.adjudication();

    let run_files = RunFiles::new(journal.clone());
    let probe_file = run_files.sibling("probe.json");
    // A run stopped during its probe has no journal yet: --resume continues the probe.
    let new_run =
        !(args.resume || args.finish) || (args.resume && !journal.exists() && probe_file.exists());
    if new_run {
        make_room(&args, &run_files)?;
    }
    let openings_count = book
        .as_ref()
        .map_or(args.pairs.min(2000) as usize, Vec::len);
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let hash_mb = args.games.hash_mb();
    let requested: Vec<Requested> = chosen.into_iter().map(|c| c.param).collect();
    if let Some(precision) = args.until {
        // (--rules fishtest refused --until above.)
        if requested.iter().all(Requested::given) {
            bail!(
                "--until {precision} plans the pairs by the design, which plays only when a tuned parameter leaves c_end or r_end to it; every parameter of this run gives both: plan with --pairs"
            );
        }
        args.pairs = until_pairs(precision, requested.len(), design::PRIOR_GAME_VARIANCE);
    }
    let mut resolved = resolve(&requested, &args, &Probing::NONE);
    if new_run && resolved.designed && requested.iter().any(|p| p.c_end.is_none()) {
        let stage_pairs = args
            .probe_pairs
            .unwrap_or_else(|| probe::stage_pairs(args.pairs));
        if stage_pairs > 0 {
            let slots = side.reselect(&resolved.params)?;
            let openings = match &book {
                Some(book) => book.clone(),
                None => args.games.openings(openings_count)?,
            };
            let identity = probe::Identity {
                files: args.files.clone(),
                names: requested.iter().map(|p| p.name.clone()).collect(),
                params: requested
                    .iter()
                    .zip(&resolved.params)
                    .map(|(q, p)| probe::Probed {
                        start: q.start,
                        min: q.min,
                        max: q.max,
                        prior_c: q.c_end.is_none().then_some(p.c_end),
                    })
                    .collect(),
                games: args.games.describe(),
                seed: args.games.seed,
                stage_pairs,
                stages: probe::STAGES,
            };
            let players = probe::Players {
                side: &side,
                slots: &slots,
                openings: &openings,
                tc,
                adjudication: &adjudication,
                threads,
                hash_mb,
            };
            let tune = probe::Tune {
                precision: args.until.unwrap_or(design::PRECISION),
                params: requested.len(),
                games: 2.0
                    * args
                        .pairs
                        .saturating_sub(stage_pairs * probe::STAGES)
                        .max(1) as f64,
            };
            let found = probe::run(identity, tune, &probe_file, &players)?;
            if let Some(precision) = args.until {
                let n = requested.len();
                args.pairs = found.pairs + until_pairs(precision, n, found.game_variance);
            }
            resolved = resolve(
                &requested,
                &args,
                &Probing {
                    c_scale: found.c_scale,
                    game_variance: found.game_variance,
                    pairs: found.pairs,
                    games_per_second: found.games_per_second,
                },
            );
        }
    }
    let config = RunConfig {
        version: 1,
        files: args.files.clone(),
        params: resolved.params.clone(),
        hyper: resolved.hyper,
        seed: args.games.seed,
        average_fraction: resolved.average_fraction,
        average_power: resolved.average_power,
        designed: resolved.designed,
        rules: args.rules,
        games: args.games.describe(),
        openings: openings_count,
        nonce: 0,
        left_out,
        engine: side.engine(),
    };

    let server = open_run(&args, config, &run_files, new_run)?;
    if new_run {
        if resolved.designed
            && (args.alpha.is_some() || args.gamma.is_some() || args.big_a.is_some())
        {
            eprintln!(
                "note: --alpha, --gamma and --spsa-a shape the decaying schedule; this run plays the design's constant gains, so they are ignored"
            );
        }
        for line in plan_lines(&server.config, &resolved, output) {
            eprintln!("{line}");
        }
    }
    // The run's own tuned set (on resume it comes from the journal).
    let slots = side.reselect(&server.config.params)?;
    let openings = match book {
        Some(book) => book,
        None => args.games.openings(server.config.openings)?,
    };
    let pgn = args.games.pgn_writer()?;

    eprintln!(
        "spsa: {} parameters of {} from {}, {} pairs{}, r_end {}, {threads} threads, {}; journal {}",
        server.config.params.len(),
        match &side {
            TunedSide::InProcess(_) => "Occam (in-process)".to_string(),
            TunedSide::External(t) => format!("engine '{}' ({})", t.spec.name, t.spec.cmd),
        },
        crate::param_files::paths_text(&server.config.files, ", "),
        server.config.hyper.pairs,
        match server.config.rules {
            RunRules::Occam => "",
            RunRules::Fishtest => ", fishtest's rules",
        },
        r_end_text(&server.config),
        server.config.games,
        journal.display()
    );
    let verify = verify_sprt
        .zip(header)
        .map(|(sprt, header)| VerifySettings {
            sprt,
            pairs: args.verify_pairs,
            header,
            games: args.games.clone(),
        });
    let plan = TunePlan {
        side,
        slots,
        run_files,
        openings,
        tc,
        adjudication,
        pgn,
        threads,
        hash_mb,
        output,
        write: !args.no_write,
        gain_every: args.gain_every,
        verify,
        _locks: locks,
    };
    Ok((plan, server))
}

/// What the run writes back. Occam's rules: `--output`, the average by default.
/// fishtest's rules write the last θ, as fishtest does, and never use the design:
/// the flags that only Occam's rules have a use for are refused, not ignored.
fn output_of(args: &Args) -> Result<Output> {
    match args.rules {
        RunRules::Occam => Ok(args.output.unwrap_or(Output::Average)),
        RunRules::Fishtest => {
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
                    "--rules fishtest cannot take {}: fishtest's rules never use the design (no probe, no --until) and write the last θ, not an average; leave them out, or play --rules occam",
                    occams.join(", ")
                );
            }
            Ok(Output::Last)
        }
    }
}

/// Where the c or the r a run plays for one parameter comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// The parameter file's `c_end` or `r_end`.
    File,
    /// Stockfish's `TUNE` default (`rules::Param::new`), under fishtest's rules.
    Default,
    /// The design (`design`).
    Designed,
    /// `--r-end`.
    Flag,
}

impl Source {
    fn label(self) -> &'static str {
        match self {
            Source::File => "file",
            Source::Default => "TUNE default",
            Source::Designed => "designed",
            Source::Flag => "--r-end",
        }
    }
}

/// What a probe found (`tuned::probe`), or [`Probing::NONE`].
struct Probing {
    c_scale: f64,
    game_variance: f64,
    /// Pairs the probe took from the run's budget.
    pairs: u64,
    /// The rate the probe's games were played at, for the plan's times.
    games_per_second: Option<f64>,
}

impl Probing {
    /// No probe: the prior c and the prior game variance.
    const NONE: Probing = Probing {
        c_scale: 1.0,
        game_variance: design::PRIOR_GAME_VARIANCE,
        pairs: 0,
        games_per_second: None,
    };
}

/// The gains, schedule and averaging of a new run.
struct Resolved {
    /// The tuned parameters with the c_end and r_end the run plays.
    params: Vec<TunedParam>,
    /// Per parameter, where its c and its r come from.
    sources: Vec<(Source, Source)>,
    hyper: Hyper,
    average_fraction: f64,
    /// The power of the average's weights ([`Averaging::power`]).
    average_power: f64,
    /// The run plays the design's constant gains.
    designed: bool,
    /// The designed r is the short run's ([`design::r_for_budget`]), not the precision's.
    short_run: bool,
    probing: Probing,
}

/// The designed gains: the files' c_end and r_end where given, the design's elsewhere,
/// every designed c multiplied by `c_scale` (1: the prior, a quarter of the range) and r
/// for games of `game_variance` and a noise ball of `precision` Elo, or larger where the
/// run's `pairs` are too few for that precision ([`design::r_for_budget`]). The one
/// place `tuner spsa` computes designed gains.
pub fn designed_gains(
    requested: &[Requested],
    c_scale: f64,
    game_variance: f64,
    precision: f64,
    pairs: u64,
) -> Vec<design::Gains> {
    let requests: Vec<design::Request> = requested.iter().map(Requested::design_request).collect();
    let r = design::designed_r(precision, requests.len(), game_variance, 2.0 * pairs as f64);
    design::gains(&requests, c_scale, r)
}

/// The SPSA pairs the design expects to need to end within `precision` Elo of the
/// optimum (95%) with `n` parameters and games of `game_variance`, within --pairs'
/// limit.
fn until_pairs(precision: f64, n: usize, game_variance: f64) -> u64 {
    let games = design::games_for(precision, n, game_variance, design::COST_TARGET);
    ((games / 2.0).ceil() as u64).clamp(1, 100_000_000)
}

/// How a new run plays. When every tuned parameter's file gives both `c_end` and
/// `r_end`: fishtest's decaying gains from them (`--spsa-a`, `--alpha`, `--gamma`), the
/// last quarter averaged. Otherwise the design: constant gains ([`designed_gains`],
/// scaled by what the probe found), every θ averaged with [`design::AVERAGING`]'s
/// weights, over the pairs the probe left. `--r-end` sets r and `--average-fraction`
/// an equally weighted average of that last share either way.
///
/// Under fishtest's rules always the decaying gains, A = ⌊0.1·N⌋ as fishtest has it,
/// with Stockfish's `TUNE` defaults where a file leaves out `c_end` or `r_end`. The
/// quarter "averaged" then only times the gain pairs: the result is the last θ.
fn resolve(requested: &[Requested], args: &Args, probing: &Probing) -> Resolved {
    let designed = args.rules.is_occam() && !requested.iter().all(Requested::given);
    let mut short_run = false;
    let (ends, hyper, averaging): (Vec<(f64, f64, Source, Source)>, _, _) = if designed {
        let from = |designed: bool| {
            if designed {
                Source::Designed
            } else {
                Source::File
            }
        };
        let precision = args.until.unwrap_or(design::PRECISION);
        let pairs = args.pairs.saturating_sub(probing.pairs).max(1);
        let (c_scale, variance) = (probing.c_scale, probing.game_variance);
        short_run = design::is_short_run(precision, requested.len(), variance, 2.0 * pairs as f64);
        let ends = designed_gains(requested, c_scale, variance, precision, pairs)
            .into_iter()
            .map(|g| (g.c, g.r, from(g.designed_c), from(g.designed_r)))
            .collect();
        let constant = Hyper::new(pairs, Some(0.0), 0.0, 0.0);
        (ends, constant, design::AVERAGING)
    } else {
        let ends = requested
            .iter()
            .map(|p| {
                let ends = Param::new(p.start, p.min, p.max, p.c_end, p.r_end);
                let from = |given: Option<f64>| match given {
                    Some(_) => Source::File,
                    None => Source::Default,
                };
                (ends.c_end, ends.r_end, from(p.c_end), from(p.r_end))
            })
            .collect();
        let big_a = match args.rules {
            RunRules::Occam => args.big_a,
            RunRules::Fishtest => Some(
                args.big_a
                    .unwrap_or_else(|| Fishtest::default_big_a(args.pairs)),
            ),
        };
        let decaying = Hyper::new(
            args.pairs,
            big_a,
            args.alpha.unwrap_or(Hyper::ALPHA),
            args.gamma.unwrap_or(Hyper::GAMMA),
        );
        (ends, decaying, Averaging::last(DEFAULT_AVERAGE_FRACTION))
    };
    // --average-fraction: θ of that last share, equally weighted.
    let averaging = args.average_fraction.map_or(averaging, Averaging::last);
    let (params, sources) = requested
        .iter()
        .zip(ends)
        .map(|(p, (c, r, c_from, r_from))| match args.r_end {
            Some(flag) => (p.resolve(c, flag), (c_from, Source::Flag)),
            None => (p.resolve(c, r), (c_from, r_from)),
        })
        .unzip();
    Resolved {
        params,
        sources,
        hyper,
        average_fraction: averaging.fraction,
        average_power: averaging.power,
        designed,
        short_run,
        probing: Probing { ..*probing },
    }
}

/// Parameters the plan lists one by one; beyond, the first [`PLAN_ROWS_SHOWN`] and a
/// summary line.
const PLAN_ROWS_ALL: usize = 12;
const PLAN_ROWS_SHOWN: usize = 5;

/// A c or r as the plan shows it: four significant digits.
fn short(x: f64) -> String {
    design::rounded(x).to_string()
}

/// Where a parameter's c and r come from, as the plan says it.
fn source_text((c, r): (Source, Source)) -> String {
    if c == r {
        c.label().to_string()
    } else {
        format!("c {}, r {}", c.label(), r.label())
    }
}

/// The plan a new run prints before its first pair: the schedule and the averaging,
/// each tuned parameter's c and r and where they come from (above [`PLAN_ROWS_ALL`]
/// parameters the first few and a count per source), and for a designed run the games
/// the design expects to need, beside the planned games.
fn plan_lines(config: &RunConfig, resolved: &Resolved, output: Output) -> Vec<String> {
    let sources = &resolved.sources;
    let pairs = config.hyper.pairs;
    let n = config.params.len();
    let result = match (config.rules, output) {
        (RunRules::Fishtest, _) => "result: the last θ".to_string(),
        (_, Output::Average) if config.average_power > 0.0 => format!(
            "result: θ averaged over the run, θ after pair k weighted by k^{}",
            config.average_power
        ),
        (_, Output::Average) => format!(
            "result: θ averaged over the last {}% of the pairs",
            short(100.0 * config.average_fraction)
        ),
        (_, Output::Last) => "result: the last θ (--output last)".to_string(),
    };
    let mut lines = vec![if config.designed {
        format!(
            "spsa: plan: constant gains, the design's where a file leaves out c_end or r_end (c: the change that costs about {} Elo, a quarter of the range{}; r: leaves {} Elo of noise around the optimum, all parameters together, for games whose W − L varies by {} a game{}{}); {result}",
            design::COST_TARGET,
            match resolved.probing.pairs {
                0 => String::new(),
                p => format!(
                    " times {} as a probe of {p} pairs found",
                    short(resolved.probing.c_scale)
                ),
            },
            design::PRECISION,
            short(resolved.probing.game_variance),
            if resolved.probing.pairs == 0 {
                " (fishtest's reference)"
            } else {
                " (measured by the probe)"
            },
            if resolved.short_run {
                format!(
                    ", or where larger, as here, the r under which the start's offset shrinks by e over this run's {} games (at most {})",
                    crate::text::thousands(2.0 * pairs as f64),
                    design::SHORT_RUN_R_MAX
                )
            } else {
                String::new()
            }
        )
    } else if config.rules == RunRules::Fishtest {
        format!(
            "spsa: plan: fishtest's rules (a baseline): its decaying gains, each parameter reaching the c and r below (its file's c_end and r_end, else Stockfish's TUNE defaults (max − min)/20 and {}) at pair {pairs} (alpha {}, gamma {}, A {}); each side clipped and rounded on its own, steps divided by the nominal c_k; {result}",
            Param::DEFAULT_R_END,
            config.hyper.alpha,
            config.hyper.gamma,
            short(config.hyper.big_a)
        )
    } else {
        format!(
            "spsa: plan: fishtest's decaying gains, each parameter reaching the c and r below (its file's c_end and r_end) at pair {pairs} (alpha {}, gamma {}, A {}); {result}",
            config.hyper.alpha,
            config.hyper.gamma,
            short(config.hyper.big_a)
        )
    }];
    let shown = if n > PLAN_ROWS_ALL {
        PLAN_ROWS_SHOWN
    } else {
        n
    };
    let width = config.params[..shown]
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for (p, &from) in config.params.iter().zip(sources).take(shown) {
        lines.push(format!(
            "spsa:   {:<width$}  c {:<8} r {:<8} ({})",
            p.name,
            short(p.c_end),
            short(p.r_end),
            source_text(from)
        ));
    }
    if n > shown {
        let mut counts: Vec<((Source, Source), usize)> = Vec::new();
        for &from in &sources[shown..] {
            match counts.iter_mut().find(|(s, _)| *s == from) {
                Some((_, count)) => *count += 1,
                None => counts.push((from, 1)),
            }
        }
        counts.sort();
        let counts: Vec<String> = counts
            .into_iter()
            .map(|(from, count)| format!("{count} {}", source_text(from)))
            .collect();
        lines.push(format!(
            "spsa:   … and {} more ({})",
            n - shown,
            counts.join("; ")
        ));
    }
    if config.designed {
        let variance = resolved.probing.game_variance;
        let expected = design::rounded(design::games_for(
            design::PRECISION,
            n,
            variance,
            design::COST_TARGET,
        ));
        let rate = resolved.probing.games_per_second;
        let planned = 2.0 * pairs as f64;
        lines.push(format!(
            "spsa: planned {} games{}; the design expects about {} games{} to end within 0.5 Elo of the optimum of a quadratic landscape (95%, {n} parameters)",
            crate::text::thousands(planned),
            time_at(planned, rate),
            crate::text::thousands(expected),
            time_at(expected, rate)
        ));
        if let Some(rate) = rate {
            lines.push(format!(
                "spsa: times at the {rate:.1} games/s the probe's games were played at"
            ));
        }
    }
    lines
}

/// " (≈ 2.1 h)": how long `games` take at `games_per_second`; empty without a rate.
fn time_at(games: f64, games_per_second: Option<f64>) -> String {
    match games_per_second {
        Some(rate) if rate > 0.0 => format!(" (≈ {})", duration_text(games / rate)),
        _ => String::new(),
    }
}

/// A duration in the unit a person plans by: minutes below two hours, hours below
/// two days, days beyond.
fn duration_text(seconds: f64) -> String {
    let minutes = seconds / 60.0;
    if minutes < 1.0 {
        "under a minute".to_string()
    } else if minutes < 120.0 {
        format!("{minutes:.0} min")
    } else if minutes < 48.0 * 60.0 {
        format!("{:.1} h", minutes / 60.0)
    } else {
        format!("{:.1} days", minutes / (24.0 * 60.0))
    }
}

/// The journal: --journal, or `runs/<first file's stem>.spsa.jsonl`. A run whose
/// files still lie beside the parameter files (where older versions wrote them) is
/// pointed to the run folder.
fn journal_path(args: &Args) -> Result<PathBuf> {
    if let Some(journal) = &args.journal {
        run_files::refuse_params_folder(journal, "--journal")?;
        return Ok(journal.clone());
    }
    let journal = RunFiles::default_journal(&args.files[0]);
    let beside = args.files[0].with_extension("spsa.jsonl");
    if beside.exists() && !journal.exists() {
        let stem = beside.with_extension("");
        let moving = format!(
            "`mkdir -p {} && mv {}.* {}/`",
            run_files::RUN_DIR,
            stem.display(),
            run_files::RUN_DIR
        );
        if args.resume || args.finish {
            bail!(
                "the run to continue lies beside the parameter files ({}), where the build cannot have it; move its files to the run folder with {moving} and run this again",
                beside.display()
            );
        }
        eprintln!(
            "note: an earlier run's files lie beside the parameter files ({}); to keep it, move them with {moving}",
            beside.display()
        );
    }
    Ok(journal)
}

/// Where --verify writes its header: --header, or `runs/<first file's stem>.verified.rs`.
fn header_path(args: &Args) -> Result<PathBuf> {
    if let Some(header) = &args.header {
        run_files::refuse_params_folder(header, "--header")?;
        return Ok(header.clone());
    }
    let stem = args.files[0]
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy();
    Ok(run_files::in_run_dir(format!("{stem}.verified.rs")))
}

/// Locks every file the run writes, for the whole run: the journal (and so its
/// siblings), the parameter files unless --no-write, the header and the PGN.
fn lock_run(args: &Args, journal: &Path, header: Option<&Path>) -> Result<WriteLocks> {
    run_files::create_folder_of(journal)?;
    let mut locks = run_files::lock_outputs(args.games.pgn_output())?;
    let files = args.files.iter().filter(|_| !args.no_write);
    for path in [journal]
        .into_iter()
        .chain(files.map(PathBuf::as_path))
        .chain(header)
    {
        locks.add(path)?;
    }
    Ok(locks)
}

/// The run: resumed from its journal with --resume (which must use the run's own files
/// and game options), else new, after --restart has moved an earlier run aside.
fn open_run(args: &Args, config: RunConfig, run_files: &RunFiles, new_run: bool) -> Result<Server> {
    let journal = &run_files.journal;
    Ok(if !new_run {
        let server = Server::resume(run_files.clone())?;
        let was = &server.config;
        if was.rules != config.rules {
            bail!(
                "--resume must play the run's own rules: it was started with --rules {}, not --rules {}",
                was.rules.name(),
                config.rules.name()
            );
        }
        if was.engine != config.engine {
            bail!(
                "--resume must tune the run's own engine: {}",
                was.engine
                    .as_deref()
                    .unwrap_or("Occam in-process (no --engine)")
            );
        }
        if was.files != config.files || was.games != config.games {
            bail!(
                "--resume must use the run's own files and game options: {} with {}",
                crate::param_files::paths_text(&was.files, " "),
                was.games
            );
        }
        let names = |c: &RunConfig| c.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        let r_ends = |c: &RunConfig| c.params.iter().map(|p| p.r_end).collect::<Vec<_>>();
        if names(was) != names(&config)
            || was.hyper.pairs != config.hyper.pairs
            || r_ends(was) != r_ends(&config)
        {
            eprintln!(
                "note: resuming with the run's own settings ({} parameters, {} pairs, r_end {}); other flags are ignored",
                was.params.len(),
                was.hyper.pairs,
                r_end_text(was)
            );
        }
        eprintln!(
            "{} {}: {} of {} pairs done",
            if args.finish { "finishing" } else { "resuming" },
            journal.display(),
            server.pairs_done(),
            server.config.hyper.pairs
        );
        server
    } else {
        Server::new(config, Some(run_files.clone()))?
    })
}

/// Before a new run (and its probe): --restart moves an earlier run's files aside;
/// without it an earlier journal is refused.
fn make_room(args: &Args, run_files: &RunFiles) -> Result<()> {
    let journal = &run_files.journal;
    if args.restart {
        if let Some(n) = run_files.rotate()? {
            eprintln!(
                "--restart: the earlier run's files are kept as {}.old.{n} and its siblings",
                journal.display()
            );
        }
    } else if journal.exists() {
        bail!(
            "{} holds an earlier run: add --resume to continue it or --restart to start over",
            journal.display()
        );
    }
    Ok(())
}

/// Plays the planned pairs on `plan.threads` workers and returns the server with every
/// result applied. On an error the run stops (checkpointed, resumable) and nothing is
/// written to the parameter files.
fn play(plan: &TunePlan, server: Server) -> Result<Server> {
    let TunePlan {
        side,
        slots,
        openings,
        tc,
        adjudication,
        threads,
        hash_mb,
        ..
    } = plan;
    let (tc, threads, hash_mb) = (*tc, *threads, *hash_mb);
    let gain_every = plan.gain_every;
    let pgn_out = &plan.pgn;
    // Every worker's θ+ and θ− first, on this thread: an engine that does not start
    // fails the run here, before any game.
    let mut workers = Vec::with_capacity(threads);
    for _ in 0..threads {
        workers.push(side.players(hash_mb)?);
    }
    let progress = Progress::new(&server);
    let shared = Mutex::new((server, progress));
    let abort = AtomicBool::new(false);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    let (shared_ref, abort_ref, first_error_ref) = (&shared, &abort, &first_error);
    pool.scope(|scope| {
        for (mut plus, mut minus) in workers {
            let (shared, abort, first_error) = (shared_ref, abort_ref, first_error_ref);
            scope.spawn(move |_| {
                while !abort.load(Ordering::Relaxed) && !interrupt::requested() {
                    let gain = {
                        let mut guard = shared.lock().unwrap();
                        let due = guard.0.gain_pair_due(gain_every);
                        due.then(|| guard.0.gain_pair())
                    };
                    if let Some(pair) = gain {
                        // The tuned θ plays the start: a's games are the tuned side's.
                        plus.set_values(slots, &pair.tuned);
                        minus.set_values(slots, &pair.start);
                        let games = play_pair(
                            plus.player(),
                            minus.player(),
                            &openings[pair.opening % openings.len()],
                            tc,
                            adjudication,
                        );
                        let mut guard = shared.lock().unwrap();
                        let (server, progress) = &mut *guard;
                        if interrupt::requested() {
                            server.drop_gain();
                        } else {
                            server.apply_gain(games[0].outcome, games[1].outcome);
                            progress.update(server);
                        }
                        continue;
                    }
                    let Some(item) = shared.lock().unwrap().0.next_work() else {
                        break;
                    };
                    plus.set_values(slots, &item.plus());
                    minus.set_values(slots, &item.minus());
                    let games = play_pair(
                        plus.player(),
                        minus.player(),
                        &openings[item.opening % openings.len()],
                        tc,
                        adjudication,
                    );
                    let penta = pair_score(&games[0], &games[1]) as u8;
                    let wdl = plus_wdl(&games);
                    let result = (|| -> Result<()> {
                        if let Some(out) = &pgn_out {
                            for (i, g) in games.iter().enumerate() {
                                out.write(&pgn::render(
                                    g,
                                    &format!("{}.{}", item.k, i + 1),
                                    &pgn_tags(&shared.lock().unwrap().0, &item),
                                ))?;
                            }
                        }
                        let mut guard = shared.lock().unwrap();
                        let (server, progress) = &mut *guard;
                        server.apply(&item, penta, wdl)?;
                        progress.faults(item.k, &games);
                        progress.update(server);
                        Ok(())
                    })();
                    if let Err(e) = result {
                        abort.store(true, Ordering::Relaxed);
                        first_error.lock().unwrap().get_or_insert(e);
                        break;
                    }
                }
            });
        }
    });
    let (mut server, progress) = shared.into_inner().unwrap();
    progress.finish(&server);
    if let Some(e) = first_error.into_inner().unwrap() {
        server.checkpoint().ok();
        return Err(e.context(format!(
            "the run stopped; nothing was written to the parameter files (continue with --resume; journal {})",
            plan.run_files.journal.display()
        )));
    }
    server.checkpoint()?;
    Ok(server)
}

/// Prints and stores the result table, writes the values back and runs the
/// verification, as planned.
fn finish(plan: TunePlan, server: Server) -> Result<()> {
    let TunePlan {
        mut side,
        slots,
        run_files,
        output,
        write,
        verify,
        threads,
        ..
    } = plan;

    let written = match output {
        Output::Average => server.average(),
        Output::Last => server.state.theta.clone(),
    };
    let written: Vec<i32> = written
        .iter()
        .zip(&server.config.params)
        .map(|(v, p)| (v.round() as i32).clamp(p.min, p.max))
        .collect();
    let table = report::Table::new(&server, &written, output);
    println!("{}", table.render());
    table.write_files(&run_files, &server)?;
    if !write {
        eprintln!("--no-write: parameter files left as they were");
    } else {
        side.write_back(&slots, &written)?;
        eprintln!(
            "wrote {} to {}",
            what_finish_writes(&server, output),
            crate::param_files::paths_text(&side.paths(), ", ")
        );
    }
    if let Some(verify) = verify {
        let started_from: Vec<i32> = server
            .config
            .params
            .iter()
            .map(|p| p.start.round() as i32)
            .collect();
        let (tuned, start) = side.verify_sides(&slots, &written, &started_from);
        let cfg = &server.config;
        let plan = VerifyPlan {
            files: cfg.files.clone(),
            tuned,
            start,
            sprt: verify.sprt,
            pairs: verify.pairs,
            concurrency: threads,
            header: verify.header,
            force: false,
            results: None,
            resume: false,
            games: verify.games,
            provenance: vec![
                format!(
                    "tuned by: tuner spsa, {} pairs ({} games), {} parameters ({}), seed {}, r_end {}, {}, written: {:?}",
                    server.pairs_done(),
                    2 * server.pairs_done(),
                    cfg.params.len(),
                    cfg.params
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    cfg.seed,
                    r_end_text(cfg),
                    if cfg.designed {
                        "constant gains (the design)".to_string()
                    } else {
                        format!(
                            "{}alpha {} gamma {} A {}",
                            match cfg.rules {
                                RunRules::Occam => "",
                                RunRules::Fishtest => "fishtest's rules, ",
                            },
                            cfg.hyper.alpha,
                            cfg.hyper.gamma,
                            cfg.hyper.big_a
                        )
                    },
                    output
                ),
                format!("tune games: {}", cfg.games),
            ],
        };
        crate::matches::verify::run_plan(plan)?;
    }
    Ok(())
}

/// Tune only what the games can measure. Time management (`"measured_by": "clock"`)
/// runs only on a clock: at fixed nodes or depth it never runs, and at a fixed movetime
/// the whole time is spent (the soft-limit extensions are capped by it), so a tm_*
/// value cannot change a single move and SPSA would only random-walk it and write it
/// back changed. Such parameters are left out, with one line saying so, unless
/// `include_clock` forces them in (with a warning). Returns the slots to tune and the
/// ones left out, with the reason.
fn measurable(
    candidates: Vec<Candidate>,
    tc: &TimeControl,
    include_clock: bool,
) -> Result<(Vec<Candidate>, Vec<LeftOut>)> {
    let games = match tc {
        TimeControl::Clock { .. } => return Ok((candidates, Vec::new())),
        TimeControl::Nodes(_) => "fixed-node",
        TimeControl::Depth(_) => "fixed-depth",
        TimeControl::MoveTime(_) => "fixed-movetime",
    };
    let (clock, rest): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| c.measured_by == MeasuredBy::Clock);
    if clock.is_empty() {
        return Ok((rest, Vec::new()));
    }
    let names: Vec<String> = clock.iter().map(|c| c.name.clone()).collect();
    if include_clock {
        eprintln!(
            "warning: --include-clock-params: tuning {} clock-only parameters ({}) in {games} games, which never run time management: they can only random-walk",
            names.len(),
            names.join(", ")
        );
        let mut all: Vec<Candidate> = rest.into_iter().chain(clock).collect();
        all.sort_by_key(|c| (c.slot.file, c.slot.entry));
        return Ok((all, Vec::new()));
    }
    if rest.is_empty() {
        bail!(
            "every selected parameter ({}) is clock-only and {games} games cannot measure it: tune it with --tc BASE+INC (or force it with --include-clock-params)",
            names.join(", ")
        );
    }
    eprintln!(
        "spsa: leaving out {} clock-only parameters ({}): {games} games never run time management (tune them with --tc; --include-clock-params forces them in)",
        names.len(),
        names.join(", ")
    );
    let reason = format!("clock-only; {games} games never run time management");
    let left_out = names
        .into_iter()
        .map(|name| LeftOut {
            name,
            reason: reason.clone(),
        })
        .collect();
    Ok((rest, left_out))
}

/// Wins, draws, losses of θ+ over the pair (θ+ is White in the first game).
fn plus_wdl(games: &[GameRecord; 2]) -> [u64; 3] {
    let mut wdl = [0; 3];
    for (g, color) in games.iter().zip([Color::White, Color::Black]) {
        let slot = match g.outcome {
            Outcome::Draw => 1,
            o if o == Outcome::win_for(color) => 0,
            _ => 2,
        };
        wdl[slot] += 1;
    }
    wdl
}

fn pgn_tags(server: &Server, item: &WorkItem) -> Vec<(String, String)> {
    let mut tags = vec![("SPSAIteration".to_string(), item.k.to_string())];
    for ((p, plus), minus) in server
        .config
        .params
        .iter()
        .zip(item.plus())
        .zip(item.minus())
    {
        tags.push((p.name.clone(), format!("theta+ {plus} theta- {minus}")));
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search_file() -> TunedSide {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/search.json");
        let files = load_all(&[path]).unwrap();
        let mut base = Params::default();
        overlay(&mut base, &files, Field::Value).unwrap();
        TunedSide::InProcess(InProcess { files, base })
    }

    fn tuned(side: &TunedSide, tc: TimeControl, force: bool) -> (Vec<String>, Vec<String>) {
        let (chosen, left_out) = measurable(side.select(&[]).unwrap(), &tc, force).unwrap();
        (
            chosen.into_iter().map(|c| c.name).collect(),
            left_out.into_iter().map(|l| l.name).collect(),
        )
    }

    #[test]
    fn only_games_on_a_clock_tune_time_management() {
        let files = search_file();
        let all = files.candidates().unwrap().len();
        let clock = TimeControl::Clock {
            base_ms: 8000,
            inc_ms: 80,
        };
        let (on_clock, none) = tuned(&files, clock, false);
        assert_eq!((on_clock.len(), none.len()), (all, 0));
        for tc in [
            TimeControl::Nodes(8000),
            TimeControl::Depth(6),
            TimeControl::MoveTime(100),
        ] {
            let (kept, out) = tuned(&files, tc, false);
            let clock_only = on_clock.iter().filter(|n| n.starts_with("tm_")).count();
            assert!(clock_only >= 7, "{on_clock:?}");
            assert_eq!(out.len(), clock_only, "{tc:?}");
            assert!(out.iter().all(|n| n.starts_with("tm_")), "{out:?}");
            assert!(kept.iter().all(|n| !n.starts_with("tm_")), "{kept:?}");
            assert_eq!(kept.len() + out.len(), all);
            // Forced in: everything, in file order.
            let (forced, none) = tuned(&files, tc, true);
            assert_eq!((&forced, none.len()), (&on_clock, 0));
        }
    }

    /// `tuner spsa` arguments as a command line gives them.
    fn args(line: &str) -> Args {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        <Cli as clap::Parser>::try_parse_from(
            std::iter::once("spsa").chain(line.split_whitespace()),
        )
        .unwrap()
        .args
    }

    fn requested(name: &str, c_end: Option<f64>, r_end: Option<f64>) -> Requested {
        Requested {
            name: name.into(),
            start: 100.0,
            min: 0,
            max: 200,
            c_end,
            r_end,
        }
    }

    #[test]
    fn a_run_whose_files_give_every_c_end_and_r_end_decays_as_fishtest() {
        let given = [
            requested("a", Some(10.0), Some(0.002)),
            requested("b", Some(4.0), Some(0.01)),
        ];
        let r = resolve(&given, &args("x.json --pairs 1000"), &Probing::NONE);
        assert!(!r.designed);
        assert_eq!(r.hyper, Hyper::new(1000, None, Hyper::ALPHA, Hyper::GAMMA));
        assert_eq!(r.average_fraction, DEFAULT_AVERAGE_FRACTION);
        let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
        assert_eq!(ends, [(10.0, 0.002), (4.0, 0.01)]);
        assert_eq!(r.sources, [(Source::File, Source::File); 2]);
        let r = resolve(
            &given,
            &args("x.json --pairs 1000 --alpha 0.5 --spsa-a 7 --r-end 0.02 --average-fraction 0.1"),
            &Probing::NONE,
        );
        assert_eq!(
            (r.hyper.alpha, r.hyper.gamma, r.hyper.big_a),
            (0.5, Hyper::GAMMA, 7.0)
        );
        assert_eq!(
            (r.params[0].r_end, r.sources[0]),
            (0.02, (Source::File, Source::Flag))
        );
        assert_eq!(r.average_fraction, 0.1);
    }

    #[test]
    fn a_run_with_a_parameter_left_to_the_design_plays_constant_designed_gains() {
        let mixed = [
            requested("a", Some(10.0), Some(0.002)),
            requested("b", None, None),
            requested("c", Some(4.0), None),
        ];
        // A run long enough for the precision: its r.
        let r = resolve(&mixed, &args("x.json --pairs 200000"), &Probing::NONE);
        assert!(r.designed && !r.short_run);
        assert_eq!(r.hyper, Hyper::new(200_000, Some(0.0), 0.0, 0.0));
        let averaging = (r.average_fraction, r.average_power);
        assert_eq!(
            averaging,
            (design::AVERAGING.fraction, design::AVERAGING.power)
        );
        let designed_r = design::precision_r(design::PRECISION, 3, design::PRIOR_GAME_VARIANCE);
        let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
        assert_eq!(ends, [(10.0, 0.002), (50.0, designed_r), (4.0, designed_r)]);
        assert_eq!(
            r.sources,
            [
                (Source::File, Source::File),
                (Source::Designed, Source::Designed),
                (Source::File, Source::Designed)
            ]
        );
        // The schedule is constant: c_k and a_k/c_k² are the resolved c and r at every k.
        let g = crate::rules::schedule::Gains::new(r.params[1].c_end, r.params[1].r_end, &r.hyper);
        for k in [1, 1000, 200_000] {
            assert_eq!(g.c_k(k, &r.hyper), 50.0);
            assert!((g.a_k(k, &r.hyper) / 2500.0 - designed_r).abs() < 1e-15);
        }
        // 2000 pairs are too few for that precision: the short run's r, larger.
        let r = resolve(&mixed, &args("x.json --pairs 2000"), &Probing::NONE);
        let short = design::r_for_budget(4000.0);
        assert!(r.short_run && short > designed_r);
        assert_eq!((r.params[1].r_end, r.params[2].r_end), (short, short));
        assert_eq!(r.params[0].r_end, 0.002);
        let r = resolve(
            &mixed,
            &args("x.json --pairs 2000 --r-end 0.01 --average-fraction 0.3"),
            &Probing::NONE,
        );
        assert!(r.params.iter().all(|p| p.r_end == 0.01));
        assert_eq!(r.sources[1], (Source::Designed, Source::Flag));
        // --average-fraction: that share, equally weighted.
        assert_eq!((r.average_fraction, r.average_power), (0.3, 0.0));
        // A probe that took 120 pairs, halved c and measured noisier games: c halves,
        // r follows the variance, the SPSA pairs are what is left.
        let probing = Probing {
            c_scale: 0.5,
            game_variance: 0.78,
            pairs: 120,
            games_per_second: None,
        };
        let r = resolve(&mixed, &args("x.json --pairs 200000"), &probing);
        assert_eq!(r.hyper.pairs, 199_880);
        assert_eq!(
            (r.params[0].c_end, r.params[1].c_end, r.params[2].c_end),
            (10.0, 25.0, 4.0)
        );
        assert_eq!(
            r.params[1].r_end,
            design::precision_r(design::PRECISION, 3, 0.78)
        );
        assert_eq!(r.params[0].r_end, 0.002);
    }

    #[test]
    fn until_plans_the_pairs_the_design_expects_to_need() {
        // n = 4 at fishtest's reference variance: 167,492 games for 0.5 Elo, so 83,746
        // pairs; ten times coarser, ten times fewer.
        let games = design::games_for(0.5, 4, 0.39, design::COST_TARGET);
        assert_eq!(until_pairs(0.5, 4, 0.39), (games / 2.0).ceil() as u64);
        assert_eq!(until_pairs(5.0, 4, 0.39), (games / 20.0).ceil() as u64);
        // Noisier games need more.
        assert!(until_pairs(0.5, 4, 0.78) > 2 * until_pairs(0.5, 4, 0.39) - 2);
        // r is the precision's: a coarser target plays a larger r.
        let mixed = [requested("b", None, None)];
        // (The pairs as the run plans them: enough for the precision, so its r.)
        let planned = |precision: f64| {
            let mut a = args(&format!("x.json --until {precision}"));
            a.pairs = until_pairs(precision, 1, design::PRIOR_GAME_VARIANCE);
            a
        };
        let fine = resolve(&mixed, &planned(0.5), &Probing::NONE);
        let coarse = resolve(&mixed, &planned(5.0), &Probing::NONE);
        assert!(!fine.short_run && !coarse.short_run);
        let ratio = coarse.params[0].r_end / fine.params[0].r_end;
        assert!((ratio - 10.0).abs() < 1e-9, "{ratio}");
    }

    fn plan_of(params: &[Requested], line: &str) -> Vec<String> {
        plan_after(params, line, &Probing::NONE)
    }

    fn plan_after(params: &[Requested], line: &str, probing: &Probing) -> Vec<String> {
        let a = args(line);
        let r = resolve(params, &a, probing);
        let config = RunConfig {
            version: 1,
            files: vec![],
            params: r.params.clone(),
            hyper: r.hyper,
            seed: 1,
            average_fraction: r.average_fraction,
            average_power: r.average_power,
            designed: r.designed,
            rules: a.rules,
            games: String::new(),
            openings: 1,
            nonce: 0,
            left_out: vec![],
            engine: None,
        };
        plan_lines(&config, &r, output_of(&a).unwrap())
    }

    #[test]
    fn a_probed_plan_gives_its_games_in_time_at_the_probes_rate() {
        let probing = Probing {
            c_scale: 1.0,
            game_variance: design::PRIOR_GAME_VARIANCE,
            pairs: 0,
            games_per_second: Some(10.0),
        };
        let plan = plan_after(
            &[requested("b", None, None)],
            "x.json --pairs 2000",
            &probing,
        );
        let games = plan[plan.len() - 2].as_str();
        assert!(
            games.starts_with("spsa: planned 4,000 games (≈ 7 min); "),
            "{games}"
        );
        let expected = design::rounded(design::games_for(0.5, 1, 0.39, design::COST_TARGET));
        let time = duration_text(expected / 10.0);
        assert!(
            games.contains(&format!(" games (≈ {time}) to end within")),
            "{games}"
        );
        assert_eq!(
            plan[plan.len() - 1],
            "spsa: times at the 10.0 games/s the probe's games were played at"
        );
    }

    #[test]
    fn durations_read_in_the_unit_a_plan_is_made_in() {
        assert_eq!(duration_text(30.0), "under a minute");
        assert_eq!(duration_text(3600.0), "60 min");
        assert_eq!(duration_text(3.0 * 3600.0), "3.0 h");
        assert_eq!(duration_text(3.0 * 86400.0), "3.0 days");
    }

    #[test]
    fn the_plan_says_where_each_c_and_r_comes_from() {
        let plan = plan_of(
            &[
                requested("a_long_name", Some(10.0), Some(0.002)),
                requested("b", None, None),
            ],
            "x.json --pairs 2000",
        );
        assert_eq!(plan.len(), 4, "{plan:#?}");
        assert!(
            plan[0].contains("constant gains")
                && plan[0].contains("θ averaged over the run, θ after pair k weighted by k^2"),
            "{}",
            plan[0]
        );
        // 4,000 games are too few for 0.5 Elo with 2 parameters: the short run's r.
        assert!(
            plan[0].contains("shrinks by e over this run's 4,000 games (at most 0.02)"),
            "{}",
            plan[0]
        );
        assert_eq!(plan[1], "spsa:   a_long_name  c 10       r 0.002    (file)");
        let r = design::rounded(design::r_for_budget(4000.0));
        assert_eq!(
            plan[2],
            format!("spsa:   b            c 50       r {r:<8} (designed)")
        );
        let expected = crate::text::thousands(design::rounded(design::games_for(
            0.5,
            2,
            0.39,
            design::COST_TARGET,
        )));
        assert_eq!(
            plan[3],
            format!(
                "spsa: planned 4,000 games; the design expects about {expected} games to end within 0.5 Elo of the optimum of a quadratic landscape (95%, 2 parameters)"
            )
        );
        // Above 12 parameters: the first five and a count per source.
        let mut many: Vec<Requested> = (0..20)
            .map(|i| requested(&format!("p{i}"), Some(2.0), Some(0.002)))
            .collect();
        let plan = plan_of(&many, "x.json --pairs 500 --output last");
        assert_eq!(plan.len(), 1 + 5 + 1, "{plan:#?}");
        assert!(
            plan[0].contains("decaying")
                && plan[0].contains("at pair 500")
                && plan[0].contains("the last θ"),
            "{}",
            plan[0]
        );
        assert_eq!(plan[6], "spsa:   … and 15 more (15 file)");
        many[17].c_end = None;
        many[18].r_end = None;
        let plan = plan_of(&many, "x.json --pairs 500");
        assert_eq!(
            plan[6],
            "spsa:   … and 15 more (13 file; 1 c file, r designed; 1 c designed, r file)"
        );
        assert!(
            plan[7].starts_with("spsa: planned 1,000 games"),
            "{}",
            plan[7]
        );
    }

    #[test]
    fn fishtest_rules_decay_from_tune_defaults_and_write_the_last_theta() {
        let mixed = [
            requested("a", Some(10.0), Some(0.01)),
            requested("b", None, None),
            requested("c", Some(4.0), None),
        ];
        // 1005 pairs: A = ⌊100.5⌋ = 100, fishtest's integer A.
        let a = args("x.json --pairs 1005 --rules fishtest");
        let r = resolve(&mixed, &a, &Probing::NONE);
        assert!(!r.designed);
        assert_eq!(
            r.hyper,
            Hyper::new(1005, Some(100.0), Hyper::ALPHA, Hyper::GAMMA)
        );
        // [0, 200]: Stockfish's TUNE defaults are c_end = 200/20 = 10 and r_end = 0.002.
        let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
        assert_eq!(ends, [(10.0, 0.01), (10.0, 0.002), (4.0, 0.002)]);
        assert_eq!(
            r.sources,
            [
                (Source::File, Source::File),
                (Source::Default, Source::Default),
                (Source::File, Source::Default)
            ]
        );
        assert_eq!(output_of(&a).unwrap(), Output::Last);
        // --spsa-a, --alpha, --gamma and --r-end set fishtest's constants as they do
        // Occam's decaying schedule.
        let r = resolve(
            &mixed,
            &args("x.json --pairs 1005 --rules fishtest --spsa-a 7 --r-end 0.02"),
            &Probing::NONE,
        );
        assert_eq!(r.hyper.big_a, 7.0);
        assert!(r.params.iter().all(|p| p.r_end == 0.02));
        // Occam's rules keep A = 0.1·N and leave these parameters to the design.
        let r = resolve(&mixed, &args("x.json --pairs 1005"), &Probing::NONE);
        assert!(r.designed);
        let given = [requested("a", Some(10.0), Some(0.01))];
        let r = resolve(&given, &args("x.json --pairs 1005"), &Probing::NONE);
        assert_eq!(r.hyper.big_a, 100.5);
    }

    #[test]
    fn fishtest_rules_refuse_the_flags_only_occams_rules_use() {
        assert_eq!(output_of(&args("x.json")).unwrap(), Output::Average);
        let last = args("x.json --rules occam --output last");
        assert_eq!(output_of(&last).unwrap(), Output::Last);
        let fishtest = args("x.json --rules fishtest --output last --gain-every 3");
        assert_eq!(output_of(&fishtest).unwrap(), Output::Last);
        for flag in [
            "--until 1",
            "--probe-pairs 10",
            "--average-fraction 0.5",
            "--output average",
        ] {
            let err = output_of(&args(&format!("x.json --rules fishtest {flag}")))
                .unwrap_err()
                .to_string();
            let name = flag.split(' ').next().unwrap();
            assert!(
                err.starts_with("--rules fishtest cannot take") && err.contains(name),
                "{err}"
            );
        }
    }

    #[test]
    fn the_plan_of_fishtest_rules_names_them_and_the_tune_defaults() {
        let plan = plan_of(
            &[
                requested("a", Some(10.0), Some(0.01)),
                requested("b", None, None),
            ],
            "x.json --pairs 1000 --rules fishtest",
        );
        assert_eq!(plan.len(), 3, "{plan:#?}");
        assert!(
            plan[0].starts_with("spsa: plan: fishtest's rules (a baseline)")
                && plan[0].contains("at pair 1000 (alpha 0.602, gamma 0.101, A 100)")
                && plan[0].contains("nominal c_k")
                && plan[0].ends_with("result: the last θ"),
            "{}",
            plan[0]
        );
        assert_eq!(plan[1], "spsa:   a  c 10       r 0.01     (file)");
        assert_eq!(plan[2], "spsa:   b  c 10       r 0.002    (TUNE default)");
    }
}
