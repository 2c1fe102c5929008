//! `ssdlab trace ...`
use clap::Subcommand;

#[derive(Subcommand)]
pub enum TraceCmd {}

pub fn run(cmd: TraceCmd) -> ssdlab_core::Result<()> {
    match cmd {}
}
