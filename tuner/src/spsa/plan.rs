//! Everything a tune needs, decided before its first game ([`TunePlan`]): arguments
//! checked, files or engine loaded, the tuned parameters chosen, gains resolved, the
//! run opened (new or resumed).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::position::Game;

use super::args::check;
use super::args::{Args, Output, output_of};
use super::gains::{ProbeGames, Resolved, resolve_run};
use super::journal::{LeftOut, RunConfig, RunFiles};
use super::plan_text::{plan_lines, summary_line};
use super::run_folder::{header_path, journal_path, lock_run, make_room, open_run};
use super::server::Server;
use crate::matches::sprt::{Model, Sprt};
use crate::param_files::lists::ParamList;
use crate::param_files::{Field, MeasuredBy, load_all, overlay};
use crate::play::args::{BookOrder, GameArgs};
use crate::play::game::{Adjudication, TimeControl};
use crate::play::pgn::PgnWriter;
use crate::play::uci_engine::EngineSpec;
use crate::run_files::WriteLocks;
use crate::tuned::params::Requested;
use crate::tuned::side::{Candidate, External, InProcess, Slot, TunedSide};

/// Everything a tune needs, decided before the first game: what is tuned (Occam's
/// files in-process or an engine's list) and the tuned slots in it, the games and the
/// workers.
pub(super) struct TunePlan {
    pub(super) side: TunedSide,
    /// The tuned parameters, in the run's (journal's) order.
    pub(super) slots: Vec<Slot>,
    pub(super) run_files: RunFiles,
    pub(super) openings: Vec<Game>,
    pub(super) tc: TimeControl,
    pub(super) adjudication: Adjudication,
    pub(super) pgn: Option<PgnWriter>,
    pub(super) threads: usize,
    pub(super) hash_mb: usize,
    pub(super) output: Output,
    /// Write the result into the parameter files (not with --no-write).
    pub(super) write: bool,
    /// Write it even where the gate would keep the start (--force-write).
    pub(super) force_write: bool,
    /// One gain pair per this many SPSA pairs in the averaging window (0: none).
    pub(super) gain_every: u64,
    pub(super) verify: Option<VerifySettings>,
    /// Held until the run, its write-back and verification are over.
    pub(super) _locks: WriteLocks,
}

/// What `--verify` will test, checked before the tune.
pub(super) struct VerifySettings {
    pub(super) sprt: Sprt,
    pub(super) pairs: u64,
    pub(super) header: PathBuf,
    pub(super) games: GameArgs,
}

/// Checks the arguments, loads the files and opens the run: a fresh journal (its probe
/// and gains resolved, its plan printed), or the journal of the run being resumed.
pub(super) fn prepare(mut args: Args) -> Result<(TunePlan, Server)> {
    check(&mut args)?;
    let output = output_of(&args)?;
    // Checked now, not after the tune: a bad test must not cost the run.
    let verify_sprt = verify_sprt(&args)?;
    let tc = args.games.time_control()?;
    let journal = journal_path(&args)?;
    let header = verify_sprt
        .is_some()
        .then(|| header_path(&args))
        .transpose()?;
    let side = load_side(&args)?;
    let (chosen, left_out) =
        measurable(side.select(&args.params)?, &tc, args.include_clock_params)?;
    // Everything is checked: from here on this run is the one writer of its files.
    let locks = lock_run(&args, &journal, header.as_deref())?;
    let book = load_book(&mut args.games)?;
    let adjudication = args.games.adjudication();
    let run_files = RunFiles::new(journal.clone());
    let new_run = is_new_run(&args, &run_files);
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
    let probe_games = ProbeGames {
        side: &side,
        book: book.as_deref(),
        openings_count,
        tc,
        adjudication: &adjudication,
        threads,
        hash_mb,
        file: run_files.sibling("probe.json"),
    };
    let resolved = resolve_run(&mut args, &requested, new_run.then_some(probe_games))?;
    let config = run_config(&args, &resolved, openings_count, left_out, side.engine());
    let server = open_run(&args, config, &run_files, new_run)?;
    if new_run {
        print_plan(&args, &server.config, &resolved, output);
    }
    // The run's own tuned set (on resume it comes from the journal).
    let slots = side.reselect(&server.config.params)?;
    let openings = match book {
        Some(book) => book,
        None => args.games.openings(server.config.openings)?,
    };
    let pgn = args.games.pgn_writer()?;
    eprintln!("{}", summary_line(&server.config, &side, threads, &journal));
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
        force_write: args.force_write,
        gain_every: args.gain_every,
        verify,
        _locks: locks,
    };
    Ok((plan, server))
}

/// The test `--verify` will run, parsed before the tune.
fn verify_sprt(args: &Args) -> Result<Option<Sprt>> {
    if !args.verify {
        return Ok(None);
    }
    Ok(Some(
        Sprt::parse(&args.verify_sprt, Model::Normalized).context("--verify-sprt")?,
    ))
}

/// What is tuned: Occam's files in-process, every parameter starting from its file
/// value, or the external engine of --engine with its parameter lists.
fn load_side(args: &Args) -> Result<TunedSide> {
    if args.engine.is_empty() {
        let files = load_all(&args.files)?;
        let mut base = Params::default();
        overlay(&mut base, &files, Field::Value)?;
        return Ok(TunedSide::InProcess(InProcess { files, base }));
    }
    let spec = EngineSpec::parse(&args.engine)?;
    let lists = args
        .files
        .iter()
        .map(|p| ParamList::load(p))
        .collect::<Result<Vec<_>>>()?;
    Ok(TunedSide::External(External::connect(
        spec,
        lists,
        args.games.hash_mb(),
    )?))
}

/// The book's openings, if a book is given: sampled at random by --seed unless
/// --book-order says otherwise, and used whole (the run cycles through all of it, not
/// through its first positions).
fn load_book(games: &mut GameArgs) -> Result<Option<Vec<Game>>> {
    games.book_order.get_or_insert(BookOrder::Random);
    if games.book.is_some() {
        Ok(Some(games.openings(0)?))
    } else {
        Ok(None)
    }
}

/// Whether this command starts a run: anything but --resume and --finish, and a
/// --resume of a run stopped during its probe (it has no journal yet; the probe goes on).
fn is_new_run(args: &Args, run_files: &RunFiles) -> bool {
    let probe_file = run_files.sibling("probe.json");
    !(args.resume || args.finish)
        || (args.resume && !run_files.journal.exists() && probe_file.exists())
}

/// The header of a new run's journal.
fn run_config(
    args: &Args,
    resolved: &Resolved,
    openings: usize,
    left_out: Vec<LeftOut>,
    engine: Option<String>,
) -> RunConfig {
    RunConfig {
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
        openings,
        nonce: 0,
        left_out,
        engine,
    }
}

/// Prints a new run's plan, and a note where flags have no say in it.
fn print_plan(args: &Args, config: &RunConfig, resolved: &Resolved, output: Output) {
    if resolved.designed && (args.alpha.is_some() || args.gamma.is_some() || args.big_a.is_some()) {
        eprintln!(
            "note: --alpha, --gamma and --spsa-a shape the decaying schedule; this run plays the design's constant gains, so they are ignored"
        );
    }
    for line in plan_lines(config, resolved, output) {
        eprintln!("{line}");
    }
}

/// Tune only what the games can measure. Time management (`"measured_by": "clock"`)
/// runs only on a clock: at fixed nodes or depth it never runs, and at a fixed movetime
/// the whole time is spent (the soft-limit extensions are capped by it), so a tm_*
/// value cannot change a single move and SPSA would only random-walk it and write it
/// back changed. Such parameters are left out, with one line saying so, unless
/// `include_clock` forces them in (with a warning). Returns the slots to tune and the
/// ones left out, with the reason.
pub(super) fn measurable(
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
