//! `ssdlab bench`: engine speed and memory (filled in below).
use clap::Args;

#[derive(Args)]
pub struct BenchArgs {}

pub fn run(_a: BenchArgs) -> ssdlab_core::Result<()> {
    Ok(())
}
