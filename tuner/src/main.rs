//! `tuner`: Occam's tuning lab. SPSA self-play tuning, matches with SPRT,
//! Texel tuning of the evaluation, and export of frozen parameter headers.

mod export;
mod games;
mod openings;
mod params_file;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tuner",
    version,
    about = "Occam's tuning lab: SPSA, matches, SPRT, Texel, export"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the parameter values as a Rust module, a C header or OpenBench SPSA lines.
    Export(export::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Export(args) => export::run(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
