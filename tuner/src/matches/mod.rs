//! `tuner match`, gauntlets and `tuner verify`: measuring strength honestly.

pub mod sprt;
pub mod stats;

use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<()> {
    bail!("not implemented yet")
}

#[derive(clap::Args)]
pub struct VerifyArgs {}

pub fn verify(_args: VerifyArgs) -> Result<()> {
    bail!("not implemented yet")
}
