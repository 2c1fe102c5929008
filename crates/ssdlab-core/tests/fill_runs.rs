//! The preconditioning fill a page at a time (`Placement::put_run`, `Ftl::append_run`) leaves
//! the FTL exactly as writing its units one by one (`Placement::put`) does: every mapping,
//! every count, the same garbage collection when a second pass overwrites the first.

use ssdlab_core::config::parse_config;
use ssdlab_core::device::Device;
use ssdlab_core::precondition::Placement;
use std::path::Path;

fn device(extra: &str) -> Device {
    let text = format!(
        "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\npages_per_block = 16\npage_size = \"16KiB\"\nmapping_unit = \"4KiB\"\n{extra}[precondition]\nmode = \"none\"\n[[job]]\nnumber_ios = 1\n"
    );
    let cfg = parse_config(&text, "fill.toml", Path::new(".")).unwrap();
    Device::new(&cfg.device, 7).unwrap()
}

/// Two passes over the first `n` logical units: one unit at a time, or in runs of `run`.
fn filled(extra: &str, n: u64, run: Option<u64>) -> Device {
    let mut dev = device(extra);
    let mut f = Placement::new(&dev);
    for _ in 0..2 {
        match run {
            None => (0..n).for_each(|lpn| f.put(&mut dev, 0, lpn).unwrap()),
            Some(k) => {
                let mut lpn = 0;
                while lpn < n {
                    let m = k.min(n - lpn);
                    f.put_run(&mut dev, 0, lpn, m).unwrap();
                    lpn += m;
                }
            }
        }
    }
    dev
}

#[test]
fn runs_of_any_length_leave_the_state_units_one_by_one_leave() {
    for extra in ["", "[device.ftl]\ngc_frontier = \"shared\"\n"] {
        let n = device(extra).ftl.geo.logical_units * 9 / 10;
        let one = filled(extra, n, None);
        assert!(one.ftl.stats.gc_runs() > 0, "{extra}: the second pass collects");
        for run in [1, 3, 4, 7, 64, 65_536] {
            let runs = filled(extra, n, Some(run));
            runs.ftl.check_invariants().unwrap();
            assert_eq!(runs.ftl.stats, one.ftl.stats, "{extra} runs of {run}");
            for lpn in 0..n {
                assert_eq!(
                    runs.ftl.lookup(lpn),
                    one.ftl.lookup(lpn),
                    "{extra} runs of {run}: unit {lpn}"
                );
            }
            for p in 0..one.ftl.geo.planes {
                assert_eq!(
                    runs.ftl.plane_valid(p),
                    one.ftl.plane_valid(p),
                    "{extra} runs of {run}: plane {p}"
                );
            }
        }
    }
}

#[test]
fn a_run_past_the_page_is_refused() {
    let mut dev = device("");
    let upp = dev.ftl.geo.units_per_page as u32;
    let e = dev.ftl.append_run(0, 0, 0, upp + 1).unwrap_err().to_string();
    assert!(e.contains("within the page"), "{e}");
    assert!(dev.ftl.append_run(0, 0, 0, 0).is_err());
    assert!(dev.ftl.append_run(0, 0, 0, upp).unwrap(), "a whole page completes it");
}
