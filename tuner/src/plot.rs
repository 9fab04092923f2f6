//! Placeholder: implemented on its own branch.

use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    bail!("not implemented yet")
}
