//! `tuner spsa`: tunes the parameters of one or more `params/*.json` files by SPSA in
//! in-process self-play, or the options of any UCI engine (`--engine`, its parameter
//! list in an OpenBench, weather-factory or Occam file), and writes the tuned values
//! back.
//!
//! [`run`] is the whole command: [`plan::prepare`] turns the arguments (`args`) into a
//! plan (the gains from `gains`, its text from `plan_text`, the run folder from
//! `run_folder`) and a [`server::Server`], which owns θ and drives the run's update
//! rule (`crate::rules`); [`workers::play`] plays the pairs on a pool of workers;
//! [`write_back::finish`] writes the result back and verifies it. `journal` is the
//! run's record on disk, `progress` the line printed while it runs, `report` the final
//! table.
//!
//! A command: may use every layer below it.

mod args;
mod gains;
pub mod journal;
mod plan;
mod plan_text;
mod progress;
mod report;
mod run_folder;
pub mod server;
#[cfg(test)]
mod tests;
mod workers;
mod write_back;

use anyhow::Result;

use crate::interrupt::{self, Stopped};
pub use args::Args;
use plan::prepare;
use workers::play;
use write_back::{finish, report_stop};

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
