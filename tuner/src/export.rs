//! `tuner export`: frozen parameter headers. (Placeholder until the export lands.)

use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    bail!("export is not implemented yet")
}
