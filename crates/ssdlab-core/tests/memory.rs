//! The memory estimate that runs are refused by (`--max-memory`) against what the engine
//! really allocates, counted by a global allocator.
//!
//! `io_size = "1000TiB"` beside `number_ios`: that many requests, over the range as often as they
//! take (fio's `number_ios` alone stops at one pass).

use ssdlab_core::config::parse_config;
use ssdlab_core::ftl::{Ftl, FtlParams};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let now = CURRENT.fetch_add(n, SeqCst) + n;
    PEAK.fetch_max(now, SeqCst);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grow(l.size());
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CURRENT.fetch_sub(l.size(), SeqCst);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            grow(new - l.size());
        } else {
            CURRENT.fetch_sub(l.size() - new, SeqCst);
        }
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak bytes allocated while building and running a simulation of `text`, and the estimate.
fn measure(text: &str) -> (u64, u64) {
    let cfg = parse_config(text, "m.toml", Path::new(".")).unwrap();
    let est = ssdlab_core::sim::allocation_estimate(&cfg).unwrap();
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    {
        let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
        sim.run(&mut |_| {}).unwrap();
    }
    ((PEAK.load(SeqCst) - base) as u64, est)
}

#[test]
fn the_estimate_covers_what_a_run_allocates_and_refuses_beyond_the_limit() {
    // One test, so that no other test allocates while this one counts.
    estimate_against_allocations();
    redundancy_within_the_estimate();
    file_system_jobs_within_the_estimate();
    many_jobs_within_the_estimate();
    refused_before_allocating();
    the_estimate_adds_the_device_and_the_jobs_to_the_ftl();
    ftl_estimate_against_its_tables();
}

fn estimate_against_allocations() {
    let job = "[precondition]\nmode = \"sequential\"\nutilisation = 0.5\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 8\nnumber_ios = 20000\nio_size = \"1000TiB\"\nsize = \"50%\"\n";
    for (what, dev) in [
        (
            "tlc-nvme, 4 KiB units, greedy",
            "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 128\n",
        ),
        (
            "mlc-sata, sub-page units, fifo, write buffer",
            "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 512\n[device.ftl]\ngc_policy = \"fifo\"\n",
        ),
        (
            "slc-sata, whole-page units, cost-benefit",
            "[device]\npreset = \"slc-sata\"\n[device.geometry]\nmapping_unit = \"4KiB\"\n[device.ftl]\ngc_policy = \"cost-benefit\"\n",
        ),
    ] {
        let (peak, est) = measure(&format!("{dev}{job}"));
        let ratio = peak as f64 / est as f64;
        eprintln!("{what}: peak {peak} B, estimate {est} B, ratio {ratio:.3}");
        assert!(
            (0.8..=1.0).contains(&ratio),
            "{what}: the run allocated {peak} bytes at its peak against an estimate of {est} (ratio {ratio:.3})"
        );
    }
}

/// A redundancy scheme's tables: Rails' bitmaps and counts and TTFlash's (none) are exact; HotR's
/// R-LRU is counted at its capacity (`track_share` of the host units) and its copies at their
/// budget, a bound.
fn redundancy_within_the_estimate() {
    let job = "[[job]]\nname = \"h\"\nsize = \"64MiB\"\nnumber_ios = 20000\nio_size = \"1000TiB\"\n[job.hpc]\n";
    for (scheme, tight) in [
        ("scheme = \"rails\"", true),
        ("scheme = \"ttflash\"", true),
        ("scheme = \"hotr\"\ntrack_share = 0.0001", true),
        ("scheme = \"hotr\"\nspare_chips = 3", false),
    ] {
        let text = format!("[device]\npreset = \"hotr\"\n[device.geometry]\nblocks_per_plane = 512\n[device.redundancy]\n{scheme}\n{job}");
        let (peak, est) = measure(&text);
        let ratio = peak as f64 / est as f64;
        eprintln!("{scheme}: peak {peak} B, estimate {est} B, ratio {ratio:.3}");
        assert!(
            ratio <= 1.0 && (!tight || ratio >= 0.8),
            "{scheme}: peak {peak} against {est} ({ratio:.3})"
        );
    }
}

/// A file-system job's clone holds its file table: the estimate counts it as a bound (a file
/// per block of the data set at most), so a run of a build of many small files or of an LSM
/// tree stays below it.
fn file_system_jobs_within_the_estimate() {
    let dev = "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nchannels = 2\nways = 1\nblocks_per_plane = 128\n[precondition]\nmode = \"none\"\n";
    for app in ["gcc", "ycsb", "fileserver"] {
        let text = format!("{dev}[[job]]\niodepth = 4\nio_size = \"2GiB\"\n[job.fs]\napp = \"{app}\"\n");
        let plain = format!("{dev}[[job]]\niodepth = 4\nnumber_ios = 1\n");
        let (peak, est) = measure(&text);
        let (_, est_plain) = measure(&plain);
        eprintln!(
            "{app}: peak {peak} B, estimate {est} B ({} B for the file system)",
            est - est_plain
        );
        assert!(est > est_plain, "{app}: the estimate counts the file table");
        assert!(
            peak <= est,
            "{app}: the run allocated {peak} bytes at its peak against an estimate of {est}"
        );
    }
}

fn refused_before_allocating() {
    let cfg = parse_config(
        "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nmapping_unit = \"16KiB\"\nblocks_per_plane = 60000\n",
        "big.toml",
        Path::new("."),
    )
    .unwrap();
    let need = ssdlab_core::sim::memory_estimate(&cfg).unwrap();
    // 16 KiB units: 4 bytes each way per unit, so at least half a byte per KiB of flash.
    let geo = ssdlab_core::redundancy::geometry_of(&cfg.device, "").unwrap();
    assert!(need >= 8 * geo.logical_units, "{need}");
    let e = ssdlab_core::sim::check_memory(&cfg, need - 1).unwrap_err();
    let e = cfg.locate(e).to_string();
    assert!(
        e.starts_with("big.toml:5:1: device.geometry.blocks_per_plane: the run needs about ")
            && e.contains("; expected a smaller device"),
        "{e}"
    );
    assert_eq!(ssdlab_core::sim::check_memory(&cfg, need).unwrap(), need);
}

/// What the estimate adds to the FTL's tables: 64 bytes per plane (without a write buffer,
/// no per-block tracking; with one, 8 bytes per block), and per job its statistics and
/// result (`sim::job_stats_memory`), plus per clone 256 bytes and 64 per request in flight.
fn the_estimate_adds_the_device_and_the_jobs_to_the_ftl() {
    let one_io = "[[job]]\nnumber_ios = 1\n";
    // The estimate less the FTL's part, and the geometry's planes and blocks.
    let beyond_ftl = |channels: u32, write_buffer: &str, jobs: &str| -> (i64, i64, i64) {
        let text = format!(
            "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nchannels = {channels}\nblocks_per_plane = 128\n[device.ftl]\nwrite_buffer = {write_buffer}\n{jobs}"
        );
        let cfg = parse_config(&text, "m.toml", Path::new(".")).unwrap();
        let geo = ssdlab_core::redundancy::geometry_of(&cfg.device, "").unwrap();
        let est = ssdlab_core::sim::allocation_estimate(&cfg).unwrap();
        (
            est as i64 - ssdlab_core::ftl::Ftl::memory_estimate(&geo) as i64,
            geo.planes as i64,
            geo.blocks as i64,
        )
    };
    let (base, planes, blocks) = beyond_ftl(2, "0", one_io);
    let (more, more_planes, _) = beyond_ftl(8, "0", one_io);
    assert_eq!(
        more - base,
        64 * (more_planes - planes),
        "{planes} and {more_planes} planes"
    );
    // A write buffer: the device tracks, per block, the pages handed to the flash and the
    // pages programmed (4 bytes each).
    let (buffered, _, _) = beyond_ftl(2, "\"1MiB\"", one_io);
    assert_eq!(buffered - base, 8 * blocks, "{blocks} blocks");
    // A second job (randread) of 3 clones at depth 8, reported as one (group_reporting):
    // its read histogram up to 1 s (21 × 1,024 counts of 8 bytes: 172,032), its idle write
    // and trim ones (2 × 2,048 × 8 = 32,768), fio's bins of three operations (3 × 1,856 × 8 =
    // 44,544), the latency windows (2 × 1,024 × 8 = 16,384), its result (16,384), and
    // 3 × (256 + 64 × 8) = 2,304: 284,416.
    let second = |rw: &str, grouped: bool| {
        beyond_ftl(
            2,
            "0",
            &format!(
                "{one_io}[[job]]\nrw = \"{rw}\"\nnumjobs = 3\niodepth = 8\nnumber_ios = 1\ngroup_reporting = {grouped}\n"
            ),
        )
        .0 - base
    };
    assert_eq!(second("randread", true), 284_416);
    assert_eq!(second("trim", true), 284_416);
    // Each clone its own entry: three sets of statistics, 3 × 282,112 + 2,304.
    assert_eq!(second("randread", false), 848_640);
    assert_eq!(second("randrw", true), 284_416 + 172_032 - 16_384);
}

/// Many jobs: each holds its statistics (a latency histogram per operation it issues, fio's
/// bins, latency windows) and its result; 4,000 sections once peaked at 1.8 times the estimate.
fn many_jobs_within_the_estimate() {
    let dev =
        "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n";
    for (rw, n) in [("randread", 300), ("randrw", 200)] {
        let jobs: String = (0..n)
            .map(|i| format!("[[job]]\nname = \"j{i}\"\nrw = \"{rw}\"\nsize = \"1MiB\"\nnumber_ios = 10\n"))
            .collect();
        let (peak, est) = measure(&format!("{dev}{jobs}"));
        let ratio = peak as f64 / est as f64;
        eprintln!("{n} {rw} jobs: peak {peak} B, estimate {est} B, ratio {ratio:.3}");
        assert!(
            (0.6..=1.0).contains(&ratio),
            "{n} {rw} jobs: peak {peak} against an estimate of {est} ({ratio:.3})"
        );
    }
}

/// What building an FTL of the geometry of `f.toml` with `blocks_per_plane` blocks per plane
/// allocates, its estimate, and the geometry's (blocks, planes, units per block).
fn ftl_tables(blocks_per_plane: u32) -> (u64, u64, (u64, u64, usize)) {
    let cfg = parse_config(
        &format!("[device]\npreset = \"mlc-sata\"\n[device.geometry]\nchannels = 2\nways = 2\nplanes_per_die = 2\nblocks_per_plane = {blocks_per_plane}\npages_per_block = 8\npage_size = \"16KiB\"\nmapping_unit = \"4KiB\"\noverprovisioning = 2.0\n[device.ftl]\ngc_policy = \"greedy\"\n"),
        "f.toml",
        Path::new("."),
    )
    .unwrap();
    let geo = ssdlab_core::redundancy::geometry_of(&cfg.device, "f.toml").unwrap();
    let shape = (geo.blocks as u64, geo.planes as u64, geo.units_per_block);
    let est = Ftl::memory_estimate(&geo);
    let params = FtlParams::for_tests();
    let base = CURRENT.load(SeqCst);
    let ftl = Ftl::new(geo, params).unwrap();
    let used = (CURRENT.load(SeqCst) - base) as u64;
    drop(ftl);
    (used, est, shape)
}

/// The FTL's part of the estimate against what building an FTL allocates, on a device of many
/// small planes (8 planes of 8 blocks of 32 units), where the per-block and per-plane terms
/// make almost a third of it.
fn ftl_estimate_against_its_tables() {
    let (used, est, (b, p, upb)) = ftl_tables(8);
    assert_eq!((b, p, upb), (64, 8, 32));
    // Every table is allocated whole at construction. Greedy keeps two 4-byte links per block
    // of the 24 bytes the estimate allows any policy, and per plane 12 bytes besides its
    // bucket heads of the 16 allowed: the estimate exceeds the tables by at most 16 bytes per
    // block and 4 per plane, less the FTL's few fixed allocations (the policy itself, the
    // victim histogram).
    eprintln!("FTL: allocated {used} B, estimate {est} B");
    assert!(
        used <= est && est - used <= 16 * b + 4 * p,
        "the FTL allocated {used} bytes against an estimate of {est}"
    );
    // Per block the FTL allocates a valid count and an erase count (4 bytes each), a state
    // (1), a stamp (8), a free-pool entry (8) and greedy's two links (8): 33 bytes; the
    // estimate counts the same 25 and 24 for any policy: 49, 16 more. The maps grow with the
    // blocks alike in the estimate and the tables, and the per-plane and fixed parts stay: with
    // twice the blocks per plane, the excess grows by exactly 16 bytes per added block.
    let (used2, est2, (b2, p2, _)) = ftl_tables(16);
    assert_eq!((b2, p2), (128, 8));
    assert_eq!((est2 - used2) - (est - used), 16 * (b2 - b));
}
