//! `tuner`: Occam's tuning lab. SPSA self-play tuning, matches with SPRT,
//! Texel tuning of the evaluation, and export of frozen parameter headers.
//!
//! Layers, bottom to top: a module imports only its own layer and those below
//! (`scripts/layers.py` checks it in CI; docs/architecture.md draws the map).
//!
//! 0. base: `stats`, `text`, `run_files`, `interrupt`, `test_util`
//! 1. games and parameter files: `play`, `param_files`
//! 2. the design's maths: `design`
//! 3. update rules and gain schedules: `rules`
//! 4. what a tune plays, and the probe: `tuned`
//! 5. commands: `spsa`, `matches`, `simulate`, `plot`, `texel`, `datagen`, `datagen_file`, `exchange`

mod datagen;
mod datagen_file;
mod design;
mod exchange;
mod interrupt;
mod matches;
mod param_files;
mod play;
mod plot;
mod rules;
mod run_files;
mod simulate;
mod spsa;
mod stats;
#[cfg(test)]
mod test_util;
mod texel;
mod text;
mod tuned;

use clap::{CommandFactory, FromArgMatches, Subcommand};

#[derive(clap::Parser)]
#[command(
    name = "tuner",
    version,
    about = "Occam's tuning lab: SPSA, matches, SPRT, Texel, export"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up; boxing the large variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Tune parameters by SPSA (Occam in-process, or any UCI engine with --engine) and write the tuned values back.
    Spsa(spsa::Args),
    /// Draw the parameter trajectories of an SPSA run.
    Plot(plot::Args),
    /// Play a match (or gauntlet) between parameter sets and/or external UCI engines, with SPRT.
    Match(matches::Args),
    /// SPRT of the tuned values (`value`) against the starting values (`start`), then export a stamped header.
    Verify(matches::VerifyArgs),
    /// Fit the evaluation weights to game results (Texel tuning).
    Texel(texel::Args),
    /// Play self-play games and write quiet positions with their results for Texel tuning.
    Datagen(datagen::Args),
    /// Write the parameter values as a Rust module, a C header or OpenBench SPSA lines.
    Export(exchange::export::Args),
    /// Simulate SPSA rule sets on a true Elo landscape: the games each needs to end near the optimum.
    Simulate(simulate::Args),
    /// Write a tune's final values (OpenBench, fishtest `name,value`) into parameter files.
    Import(exchange::import::Args),
    /// Occam's design on OpenBench: plan a tune's inputs, follow it while it runs, and write its average.
    Openbench(exchange::openbench::Args),
}

fn main() {
    let arg_matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&arg_matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Spsa(args) => spsa::run(args),
        Command::Plot(args) => plot::run(args),
        Command::Match(mut args) => {
            // clap's derive cannot group repeated multi-value options: `--engine` words
            // are regrouped per occurrence from the raw matches.
            args.engine_groups = matches::engine_groups(&arg_matches);
            matches::run(args)
        }
        Command::Verify(args) => matches::verify(args),
        Command::Texel(args) => texel::run(args),
        Command::Datagen(args) => datagen::run(args),
        Command::Export(args) => exchange::export::run(args),
        Command::Import(args) => exchange::import::run(args),
        Command::Openbench(args) => exchange::openbench::run(args),
        Command::Simulate(args) => simulate::run(args),
    };
    if let Err(e) = result {
        if e.is::<interrupt::Stopped>() {
            std::process::exit(interrupt::STOPPED);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
