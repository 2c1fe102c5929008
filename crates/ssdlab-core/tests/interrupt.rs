//! `sim::interrupt` stops a run at its next progress report, preconditioning included. A
//! test binary of its own: the flag is process-wide.

use ssdlab_core::{config, sim, Error};
use std::path::Path;

fn cfg(text: &str) -> ssdlab_core::Config {
    config::parse_config(text, "i.toml", Path::new(".")).unwrap()
}

#[test]
fn an_interrupted_run_stops_with_interrupted_and_runs_again_once_cleared() {
    // 200,000 requests: progress reports at 65,536 and on, so the flag is seen mid-run.
    let run = cfg("[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nnumber_ios = 200000\n");
    // Preconditioning looks at the flag every 65,536 units, from its first.
    let pre = cfg("[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 1024\n[precondition]\nmode = \"sequential\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nnumber_ios = 10\n");
    sim::interrupt();
    assert!(matches!(sim::check_interrupt(), Err(Error::Interrupted)));
    assert!(matches!(ssdlab_core::run_config(&run), Err(Error::Interrupted)));
    assert!(matches!(ssdlab_core::Simulation::new(&pre), Err(Error::Interrupted)));
    assert_eq!(Error::Interrupted.to_string(), "interrupted");
    sim::clear_interrupt();
    assert!(sim::check_interrupt().is_ok());
    let r = ssdlab_core::run_config(&run).unwrap();
    assert_eq!(r.jobs[0].write.total_ios, 200_000);
}
