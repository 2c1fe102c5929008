//! `sim::interrupt` stops a run at its next progress report, preconditioning included. A
//! test binary of its own: the flag is process-wide.
//!
//! `io_size = "1000TiB"` beside `number_ios`: that many requests, over the range as often as they
//! take (fio's `number_ios` alone stops at one pass).

use ssdlab_core::{config, sim, Error};
use std::path::Path;

/// The flag is process-wide: the tests of this binary take turns.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cfg(text: &str) -> ssdlab_core::Config {
    config::parse_config(text, "i.toml", Path::new(".")).unwrap()
}

#[test]
fn an_interrupted_run_stops_with_interrupted_and_runs_again_once_cleared() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // 200,000 requests: progress reports at 65,536 and on, so the flag is seen mid-run.
    let run = cfg("[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nnumber_ios = 200000\nio_size = \"1000TiB\"\n");
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

#[test]
fn preconditioning_sees_the_flag_within_65536_writes_not_at_its_windows_end() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // A device whose steady-state windows are far longer than 65,536 writes: the flag, set
    // at the 1,000th overwrite, must stop the overwrites before the 1,000 + 65,536th.
    let c = cfg("[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 1024\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\nnumber_ios = 10\n");
    let mut dev = ssdlab_core::Device::new(&c.device, 1).unwrap();
    let units = dev.geo.logical_units;
    assert!(units / 10 > 2 * 65_536, "windows of {} writes", units / 10);
    let mut f = ssdlab_core::precondition::Placement::new(&dev);
    let mut calls = 0u64;
    let r = ssdlab_core::precondition::overwrite_until_steady(
        &mut dev,
        &mut f,
        units,
        units,
        units,
        |_| {
            calls += 1;
            if calls == 1_000 {
                sim::interrupt();
            }
            ((calls * 7919) % units, 0)
        },
        &mut |_| {},
    );
    sim::clear_interrupt();
    assert!(matches!(r, Err(Error::Interrupted)));
    assert!(calls > 1_000 && calls <= 1_000 + 65_536, "stopped after {calls} writes");
}
