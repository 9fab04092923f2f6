//! `tuner match`, gauntlets and `tuner verify`: measuring strength honestly.
//!
//! Sides are parameter sets played in-process (`--a`, `--b`) or external UCI engines
//! (`--engine cmd=… name=… option.Hash=16`, repeatable). Games come in colour-swapped
//! pairs from the same opening; the statistics are pentanomial (see `stats`), the
//! SPRT is the fishtest/fastchess GSPRT (see `sprt`).
//!
//! `runner` plays a match, `sprt` is the test, `clock` sums how the sides spent a
//! clock, `verify` is `tuner verify`.
//!
//! A command: may use every layer below. It uses the games (`play`), the parameter
//! files (`param_files`) and the base (`stats`, `run_files`, `interrupt`).

pub mod clock;
pub mod runner;
pub mod sprt;
pub mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use clap::ArgAction;
use occam::tablebase::Tablebases;

use crate::play::args::GameArgs;
use crate::play::side::Side;
use crate::run_files;
use crate::stats::Tally;
use runner::{MatchConfig, MatchResult, play_match};
use sprt::{Model, Sprt};

pub use verify::{VerifyArgs, verify};

/// Pairs played when neither --pairs nor --games is given.
const DEFAULT_PAIRS: u64 = 100;
/// Upper limit of an SPRT when neither --pairs nor --games is given.
const DEFAULT_SPRT_PAIRS: u64 = 20_000;
/// At most this many distinct built-in openings are generated; pairs cycle through them.
const MAX_GENERATED_OPENINGS: u64 = 1_000;

#[derive(clap::Args)]
pub struct Args {
    /// First side, a parameter set played in-process: comma-separated parameter files
    /// laid over the compiled values (FILE@start takes the files' `start` fields),
    /// `compiled` for the compiled values alone, `name=NAME` to name it.
    #[arg(long, value_name = "[name=N,]FILE[@start],...")]
    pub a: Option<String>,
    /// Second side, like --a.
    #[arg(long, value_name = "[name=N,]FILE[@start],...")]
    pub b: Option<String>,
    /// An external UCI engine: cmd=PATH [name=NAME] [args="ARGS"] [dir=DIR]
    /// [option.NAME=VALUE]... [timeout=SECONDS (hang limit under nodes/depth)].
    /// Repeatable; engines fill the sides --a/--b leave open, in order.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", action = ArgAction::Append)]
    pub engine: Vec<String>,
    /// The words of each `--engine`, grouped by occurrence (clap's derive flattens them;
    /// `main` fills this from the argument matches with [`engine_groups`]).
    #[arg(skip)]
    pub engine_groups: Vec<Vec<String>>,
    /// Gauntlet: the first side plays each of the others in turn.
    #[arg(long)]
    pub gauntlet: bool,
    /// Game pairs to play (per opponent); an SPRT may stop earlier.
    #[arg(long, conflicts_with = "games")]
    pub pairs: Option<u64>,
    /// Games to play (an even number: games come in pairs).
    #[arg(long)]
    pub games: Option<u64>,
    /// Games played at the same time; each slot has its own engines.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// Sequential test: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Elo model of the SPRT bounds.
    #[arg(long, value_enum, default_value_t = Model::Normalized)]
    pub model: Model,
    /// Record every pair in this JSON-lines file (needed for --resume).
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Continue the match recorded in --results instead of starting over.
    #[arg(long, requires = "results")]
    pub resume: bool,
    /// Print the full report every this many pairs (0: only at the end).
    #[arg(long, default_value_t = 0)]
    pub report_every: u64,
    /// Syzygy tables (directories separated by ':', ';' on Windows): a game whose
    /// position is in them ends with their result under the fifty-move rule
    /// (fastchess's -tb). Such games are counted separately in the report.
    #[arg(long, value_name = "DIR")]
    pub syzygy: Option<String>,
    #[command(flatten)]
    pub games_args: GameArgs,
}

/// The pair count from --pairs/--games, or the default.
pub fn pair_count(pairs: Option<u64>, games: Option<u64>, sprt: bool) -> Result<u64> {
    let n = match (pairs, games) {
        (Some(p), _) => p,
        (None, Some(g)) if g % 2 == 1 => {
            bail!("--games {g}: games are played in colour-swapped pairs, give an even number")
        }
        (None, Some(g)) => g / 2,
        (None, None) if sprt => DEFAULT_SPRT_PAIRS,
        (None, None) => DEFAULT_PAIRS,
    };
    if n == 0 {
        bail!("--pairs/--games must be at least one pair");
    }
    Ok(n)
}

/// The words of every `--engine` occurrence of the `match` subcommand, one group each.
pub fn engine_groups(matches: &clap::ArgMatches) -> Vec<Vec<String>> {
    matches
        .subcommand_matches("match")
        .and_then(|m| m.get_occurrences::<String>("engine"))
        .map(|groups| groups.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default()
}

/// `--engine` words split into engines: by occurrence when known, else a new engine at
/// every `cmd=`.
fn engine_words(args: &Args) -> Vec<Vec<String>> {
    if !args.engine_groups.is_empty() {
        return args.engine_groups.clone();
    }
    let mut groups: Vec<Vec<String>> = Vec::new();
    for word in &args.engine {
        if word.starts_with("cmd=") || groups.is_empty() {
            groups.push(Vec::new());
        }
        groups.last_mut().expect("pushed").push(word.clone());
    }
    groups
}

/// The sides in order: --a, --b, then the engines.
fn sides(args: &Args) -> Result<Vec<Side>> {
    let mut list = Vec::new();
    let groups = engine_words(args);
    let mut engines = groups.iter();
    let engine_side = |words: &Vec<String>| -> Result<Side> {
        Ok(Side::External(crate::play::uci_engine::EngineSpec::parse(
            words,
        )?))
    };
    for (flag, fallback) in [(&args.a, "A"), (&args.b, "B")] {
        match flag {
            Some(text) => list.push(Side::parse_params(text, fallback)?),
            None => {
                if let Some(words) = engines.next() {
                    list.push(engine_side(words)?);
                }
            }
        }
    }
    for words in engines {
        list.push(engine_side(words)?);
    }
    if list.len() < 2 {
        bail!(
            "a match needs two sides: give --a/--b parameter sets and/or --engine cmd=... (got {})",
            list.len()
        );
    }
    if list.len() > 2 && !args.gauntlet {
        bail!(
            "{} sides given: pass --gauntlet to play the first against each of the others",
            list.len()
        );
    }
    let mut names: Vec<&str> = list.iter().map(Side::name).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        bail!(
            "two sides are both named '{}': name them apart (name=...)",
            w[0]
        );
    }
    Ok(list)
}

/// The results file of opponent `index` in a gauntlet (`m.jsonl` -> `m.2-sf.jsonl`).
fn gauntlet_results(path: &Path, index: usize, name: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    path.with_file_name(format!("{stem}.{index}-{safe}{ext}"))
}

pub fn run(args: Args) -> Result<()> {
    let sides = sides(&args)?;
    let results_of = |i: usize, opponent: &Side| {
        args.results.as_ref().map(|p| {
            if args.gauntlet {
                gauntlet_results(p, i + 1, opponent.name())
            } else {
                p.clone()
            }
        })
    };
    let written: Vec<PathBuf> = sides[1..]
        .iter()
        .enumerate()
        .filter_map(|(i, opponent)| results_of(i, opponent))
        .collect();
    let results = written.iter().map(|p| (p.as_path(), "--results"));
    let _locks = run_files::lock_outputs(results.chain(args.games_args.pgn_output()))?;
    let sprt = args
        .sprt
        .as_ref()
        .map(|words| Sprt::parse(words, args.model))
        .transpose()?;
    let pairs = pair_count(args.pairs, args.games, sprt.is_some())?;
    let tc = args.games_args.time_control()?;
    let openings = if args.games_args.book.is_some() {
        args.games_args.openings(0)?
    } else {
        args.games_args
            .openings(pairs.min(MAX_GENERATED_OPENINGS) as usize)?
    };
    let pgn = args.games_args.pgn_writer()?;
    let mut settings = args.games_args.describe();
    let mut adjudication = args.games_args.adjudication();
    if let Some(path) = &args.syzygy {
        let tables = Tablebases::open(path)
            .map_err(|e| anyhow::anyhow!("--syzygy: {e}"))?
            .ok_or_else(|| anyhow::anyhow!("--syzygy: give a directory of Syzygy tables"))?;
        eprintln!("tablebase adjudication: {}", tables.summary());
        settings.push_str(&format!(" syzygy={path}"));
        adjudication.tablebases = Some(Arc::new(tables));
    }
    let (first, opponents) = sides.split_first().expect("two sides at least");
    let mut results: Vec<MatchResult> = Vec::new();
    crate::interrupt::install("finishing the games in flight");
    for (i, opponent) in opponents.iter().enumerate() {
        let config = MatchConfig {
            a: first,
            b: opponent,
            pairs,
            concurrency: args.concurrency as usize,
            tc,
            adjudication: adjudication.clone(),
            openings: &openings,
            hash_mb: args.games_args.hash_mb(),
            sprt,
            pgn: pgn.as_ref(),
            results: results_of(i, opponent),
            resume: args.resume,
            report_every: args.report_every,
            settings: settings.clone(),
            verbose: true,
        };
        let result = play_match(&config)?;
        println!("--------------------------------------------------");
        print!("{}", result.report(&settings));
        println!(
            "Speed: {:.2} games/s over {} games this run",
            result.games_per_second(),
            2 * result.played_pairs
        );
        println!("--------------------------------------------------");
        if result.stopped {
            report_stop(&result, args.results.is_some());
            return Err(crate::interrupt::Stopped.into());
        }
        results.push(result);
    }
    if args.gauntlet {
        print!("{}", gauntlet_table(first.name(), &results));
    }
    Ok(())
}

/// What to do after a clean stop: continue from the results file, when there is one.
pub fn report_stop(result: &MatchResult, kept: bool) {
    let pairs = result.tally.pairs();
    if kept {
        eprintln!(
            "match: stopped after {pairs} pairs, all kept in the results file; to continue:  {}",
            crate::interrupt::command_again(&["--resume"], "--resume")
        );
    } else {
        eprintln!(
            "match: stopped after {pairs} pairs (the result above); without --results FILE a match cannot be continued"
        );
    }
}

/// The gauntlet summary: one row per opponent and the overall row (pentanomials summed,
/// as fastchess does), all from the gauntlet engine's point of view.
pub fn gauntlet_table(name: &str, results: &[MatchResult]) -> String {
    let mut out = format!(
        "Gauntlet of {name}\n{:<20} {:>9} {:>8} {:>9} {:>8} {:>7} {:>7} {:>7} {:>7}  Ptnml(0-2)\n",
        "opponent", "Elo", "+/-", "nElo", "+/-", "games", "score", "LOS", "draw"
    );
    let mut total = Tally::default();
    let mut row = |label: &str, t: &Tally| {
        if let Some(s) = t.summary() {
            let [elo, elo_error, nelo, nelo_error] = s.elo_texts();
            out.push_str(&format!(
                "{label:<20} {elo:>9} {elo_error:>8} {nelo:>9} {nelo_error:>8} {:>7} {:>6.1}% {:>6.1}% {:>6.1}%  {:?}\n",
                s.games,
                s.score * 100.0,
                s.los * 100.0,
                s.draw_ratio * 100.0,
                t.penta
            ));
        } else {
            out.push_str(&format!("{label:<20} no games\n"));
        }
    };
    for r in results {
        row(&r.b, &r.tally);
        total.merge(&r.tally);
    }
    row("overall", &total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &str) -> Args {
        let words = std::iter::once("t").chain(line.split(' '));
        Cli::try_parse_from(words).unwrap().args
    }

    #[test]
    fn sides_come_from_flags_then_engines() {
        let args =
            parse("--a compiled --engine cmd=/bin/a name=x option.Hash=1 --engine cmd=/bin/b");
        assert_eq!(
            engine_words(&args),
            vec![
                vec!["cmd=/bin/a", "name=x", "option.Hash=1"],
                vec!["cmd=/bin/b"]
            ]
        );
        let args = parse("--a compiled --engine cmd=/bin/a name=x --engine cmd=/bin/b --gauntlet");
        let names: Vec<String> = sides(&args)
            .unwrap()
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        assert_eq!(names, ["A", "x", "b"]);
        // Each refused command line and a word its error must hold.
        for (line, expected) in [
            (
                "--a compiled --engine cmd=/bin/a name=x option.Hash=1 --engine cmd=/bin/b",
                "--gauntlet",
            ),
            ("--a compiled --engine cmd=/bin/A", "both named 'A'"),
            ("--engine cmd=/bin/a", "two sides"),
            ("--a compiled --engine name=x", "cmd=PATH"),
        ] {
            let err = sides(&parse(line)).err().unwrap().to_string();
            assert!(err.contains(expected), "{line}: {err}");
        }
    }

    #[test]
    fn pair_counts_and_gauntlet_file_names() {
        assert_eq!(pair_count(None, None, false).unwrap(), DEFAULT_PAIRS);
        assert_eq!(pair_count(None, None, true).unwrap(), DEFAULT_SPRT_PAIRS);
        assert_eq!(pair_count(None, Some(10), false).unwrap(), 5);
        assert!(pair_count(None, Some(9), false).is_err());
        assert!(pair_count(Some(0), None, false).is_err());
        assert_eq!(
            gauntlet_results(Path::new("out/m.jsonl"), 2, "sf 15"),
            PathBuf::from("out/m.2-sf_15.jsonl")
        );
    }
}
