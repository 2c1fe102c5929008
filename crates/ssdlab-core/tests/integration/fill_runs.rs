//! The preconditioning fill a page at a time (`Placement::put_run`, `Ftl::append_run`), and
//! whole rounds of pages over the planes at once (`Ftl::append_rounds`), leave the FTL exactly
//! as writing its units one by one (`Placement::put`) does: every mapping either way, every
//! count, block and frontier, the same garbage collection when a second pass overwrites the
//! first.

use ssdlab_core::config::parse_config;
use ssdlab_core::device::Device;
use ssdlab_core::precondition::Placement;
use std::path::Path;

fn device(extra: &str) -> Device {
    // `extra` may give the page size; 16 KiB (four units) if not.
    let page = if extra.contains("page_size") {
        ""
    } else {
        "page_size = \"16KiB\"\n"
    };
    let text = format!(
        "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\npages_per_block = 16\n{page}mapping_unit = \"4KiB\"\n{extra}[precondition]\nmode = \"none\"\n[[job]]\nnumber_ios = 1\n"
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

/// The whole state: the maps' bytes and the rest serialised.
fn state(dev: &Device) -> (Vec<u8>, Vec<Vec<u8>>) {
    let rest = rmp_serde::to_vec(&dev.ftl).unwrap();
    (rest, dev.ftl.map_bytes().iter().map(|m| m.to_vec()).collect())
}

#[test]
fn runs_of_any_length_leave_the_state_units_one_by_one_leave() {
    // Four or three units a page; FEMU's own frontier order; a fill of every logical unit,
    // which brings planes to their host limit (the rounds stop short of it).
    for (extra, share) in [
        ("", 0.9),
        ("[device.ftl]\ngc_frontier = \"shared\"\n", 0.9),
        ("page_size = \"12KiB\"\n", 0.9),
        ("", 1.0),
    ] {
        let n = (device(extra).ftl.geo.logical_units as f64 * share) as u64;
        let one = filled(extra, n, None);
        assert!(one.ftl.stats.gc_runs() > 0, "{extra}: the second pass collects");
        let whole = state(&one);
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
            assert!(state(&runs) == whole, "{extra} runs of {run}: the whole state");
        }
    }
}

/// Whole rounds go only as far as their order is certain.
#[test]
fn rounds_go_as_far_as_the_order_is_certain() {
    let mut dev = device("");
    let g = dev.ftl.geo.clone();
    let (planes, upp) = (g.planes as u64, g.units_per_page as u64);
    let round = planes * upp;
    assert!(planes > 1);
    // No frontier has a block yet.
    assert_eq!(dev.ftl.append_rounds(0, 0, 0, 10 * round), 0);
    // A page on every plane opens them; then as many rounds as the blocks have pages left,
    // and no more than the units asked for.
    for p in 0..g.planes {
        assert!(dev.ftl.append_run(p, 0, p as u64 * upp, upp as u32).unwrap());
    }
    let left = g.pages_per_block as u64 - 1;
    assert_eq!(dev.ftl.append_rounds(0, 0, round, 2 * round + 1), 2);
    assert_eq!(
        dev.ftl.append_rounds(0, 0, 3 * round, round - 1),
        0,
        "less than a round"
    );
    assert_eq!(dev.ftl.append_rounds(g.planes, 0, 3 * round, round), 0, "no such plane");
    // A unit already mapped in the range: none.
    assert_eq!(dev.ftl.append_rounds(0, 0, 2 * round, 2 * round), 0);
    assert_eq!(dev.ftl.append_rounds(0, 0, 3 * round, 100 * round), left - 2);
    dev.ftl.check_invariants().unwrap();
    // Every block is full: the next round needs new blocks.
    assert_eq!(dev.ftl.append_rounds(0, 0, (left + 1) * round, 100 * round), 0);
    // A frontier in mid-page: none.
    let mut dev = device("");
    for p in 0..g.planes {
        assert!(dev.ftl.append_run(p, 0, p as u64 * upp, upp as u32).unwrap());
    }
    assert!(!dev.ftl.append_run(1, 0, round, 1).unwrap());
    assert_eq!(dev.ftl.append_rounds(0, 0, round + 1, 10 * round), 0);
    // From another plane, the planes are taken in turn from it.
    let mut a = device("");
    let mut b = device("");
    for d in [&mut a, &mut b] {
        for p in 0..g.planes {
            assert!(d.ftl.append_run(p, 0, p as u64 * upp, upp as u32).unwrap());
        }
    }
    let start = g.planes - 1;
    assert_eq!(a.ftl.append_rounds(start, 0, round, 3 * round), 3);
    let mut lpn = round;
    for _ in 0..3 {
        for k in 0..g.planes {
            let p = (start + k) % g.planes;
            assert!(b.ftl.append_run(p, 0, lpn, upp as u32).unwrap());
            lpn += upp;
        }
    }
    assert!(state(&a) == state(&b), "rounds from the last plane");
    // Superblocks choose their own members: never rounds, even with every frontier open at a
    // page's start.
    let mut dev = device("[device.placement]\npolicy = \"baseline\"\n");
    let mut f = Placement::new(&dev);
    f.put_run(&mut dev, 0, 0, round).unwrap();
    assert!(dev.ftl.superblocks().is_some());
    assert_eq!(dev.ftl.page_offset(0, 0), 0);
    assert_eq!(dev.ftl.append_rounds(0, 0, round, 4 * round), 0, "superblocks");
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
