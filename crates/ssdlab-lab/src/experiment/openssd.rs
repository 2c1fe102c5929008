//! Seed 002: an FTL for the Cosmos OpenSSD board against the board's original one.
//!
//! Device: the `cosmos-openssd` preset (4 channels × 4 ways of MLC, 8 KiB pages, the seed's
//! DMA curve, one firmware CPU taking one command at a time), its flash shrunk to
//! `BLOCKS` blocks per die; the seed's 4 GiB job region and the read cache shrink by the
//! same factor (the region stays 1/32 of the drive, the cache 1/16 of the region).
//!
//! Designs (`device.ftl.design`): `cosmos-original` (8 KiB pages mapped whole, static
//! allocation, write-through with read-modify-write), `openssd` (the seed's scheme two: FIFO
//! write buffer, LRU read cache, prefetch, parallel GC) and `scheme-one` with LRU, CFLRU and
//! BPLRU (a memcpy from the DMA area into the buffer).
//!
//! Jobs as the seed's section 5: fio's `sync` engine, `direct=1`, 4 KiB random and 120 KiB
//! sequential, 1 and 256 threads; "no GC" on a fresh drive, "GC" after a sequential fill of
//! the whole logical space (every write then needs a collection); random reads over the
//! region (few cache hits) and over a region half the cache's size after a warm-up (all
//! hits). Figure 5 (flash read and write speed against channels and ways) is measured on the
//! flash alone: the engine's own FTL without buffer, no firmware time, a fast link.

use super::{
    Analysis, Claim, ClaimKind, Condition, Experiment, Figure, Point, PointResult, Rule, Scale, Series, Work,
    MIN_EFFECT,
};
use crate::Result;

pub struct OpenSsd;

const PRESET: &str = "cosmos-openssd";

/// Blocks per die: the board's 4096 in the full run.
fn blocks(scale: Scale) -> u32 {
    match scale {
        Scale::Full => 4096,
        Scale::Quick => 128,
    }
}

/// The job region: the seed's 4 GiB on the 128 GiB board (1/32 of the flash; the same share
/// in quick mode).
fn region_mib(scale: Scale) -> u64 {
    // 16 dies × blocks × 256 pages × 8 KiB = blocks × 32 MiB raw; 1/32 of it.
    blocks(scale) as u64
}

/// The region of the all-hits reads (a small share of the read cache, so that a warm-up
/// brings all of it in).
fn hits_mib(scale: Scale) -> u64 {
    match scale {
        Scale::Full => 8,
        Scale::Quick => 2,
    }
}

/// (ramp, measured runtime) of a load. With 256 threads taking turns at a device that takes
/// one command at a time, each thread waits for the 255 others: the ramp covers that, so
/// that the measured requests are issued in steady turn-taking.
///
/// The "GC" write points run the seed's `runtime=300` on the full-size board (the quick board
/// has 1/32 of its blocks, so 1/32 of the time): on a board whose logical space is written,
/// GC starts once the job has used the spare blocks, within those 300 s or not at all.
fn durations(scale: Scale, l: Load) -> (&'static str, &'static str) {
    let gc = l.filled && !l.rw.contains("read");
    match (scale, l.threads > 1 || l.hits) {
        (Scale::Full, false) if gc => ("1s", "300s"),
        (Scale::Full, true) if gc => ("4s", "300s"),
        (Scale::Quick, false) if gc => ("200ms", "9375ms"),
        (Scale::Quick, true) if gc => ("1s", "9375ms"),
        (Scale::Full, false) => ("1s", "10s"),
        (Scale::Full, true) => ("4s", "10s"),
        (Scale::Quick, false) => ("200ms", "1s"),
        (Scale::Quick, true) => ("1s", "1s"),
    }
}

/// The designs the seed compares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Design {
    Original,
    Optimised,
    SchemeOne(&'static str),
}

impl Design {
    fn label(self) -> String {
        match self {
            Design::Original => "cosmos-original".into(),
            Design::Optimised => "openssd".into(),
            Design::SchemeOne(p) => format!("scheme-one-{p}"),
        }
    }
    fn overrides(self, scale: Scale) -> Vec<String> {
        let mut o = vec![
            format!("device.geometry.blocks_per_plane={}", blocks(scale)),
            // The board's 256 MiB read cache against its 4 GiB region: 1/16 of the region.
            format!("device.ftl.read_cache={}MiB", region_mib(scale) / 16),
        ];
        match self {
            Design::Original => o.extend(
                [
                    "device.ftl.design=cosmos-original",
                    "device.geometry.mapping_unit=8KiB",
                    "device.ftl.write_buffer=0",
                    "device.ftl.read_cache=0",
                    "device.ftl.prefetch=0",
                    "device.ftl.parallel_gc=false",
                ]
                .map(String::from),
            ),
            Design::Optimised => o.push("device.ftl.design=openssd".into()),
            Design::SchemeOne(p) => o.extend([
                "device.ftl.design=scheme-one".to_string(),
                format!("device.ftl.buffer_policy={p}"),
                "device.ftl.read_cache=0".into(),
                "device.ftl.prefetch=0".into(),
            ]),
        }
        o
    }
}

/// A workload of the seed's section 5.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Load {
    id: &'static str,
    rw: &'static str,
    bs: &'static str,
    threads: u32,
    /// Start from a sequentially filled drive (writes then need GC; reads find data).
    filled: bool,
    /// Reads over a region half the read cache's size, after a warm-up: all hits.
    hits: bool,
}

const fn load(id: &'static str, rw: &'static str, bs: &'static str, threads: u32, filled: bool, hits: bool) -> Load {
    Load {
        id,
        rw,
        bs,
        threads,
        filled,
        hits,
    }
}

/// The seed's comparisons (section 5.2): workload, text, original's and optimised figure, unit,
/// the ratio the seed prints (none for the reads, where the seed gives the two figures only)
/// and the seed's sentence that gives them.
#[allow(clippy::type_complexity)]
const PAIRS: [(Load, &str, f64, f64, &str, Option<f64>, &str); 11] = [
    (
        load("randwrite-1t", "randwrite", "4k", 1, false, false),
        "4 KiB random writes, 1 thread, no GC",
        602.0,
        7007.0,
        "IOPS",
        Some(11.6),
        "在不触发垃圾回收的情况下, 单线程IOPS性能由原来的602提升到7007, 性能提升11.6倍",
    ),
    (
        load("randwrite-256t", "randwrite", "4k", 256, false, false),
        "4 KiB random writes, 256 threads, no GC",
        636.0,
        7538.0,
        "IOPS",
        Some(11.8),
        "在不触发垃圾回收的情况下…多线程IOPS性能由原来的636提升到7538, 性能提升11.8倍",
    ),
    (
        load("randwrite-1t-gc", "randwrite", "4k", 1, true, false),
        "4 KiB random writes, 1 thread, GC",
        596.0,
        6014.0,
        "IOPS",
        Some(10.0),
        "在触发垃圾回收的情况下单线程IOPS性能由原来的596提升到6014, 性能提升10倍",
    ),
    (
        load("randwrite-256t-gc", "randwrite", "4k", 256, true, false),
        "4 KiB random writes, 256 threads, GC",
        631.0,
        6241.0,
        "IOPS",
        Some(9.9),
        "在触发垃圾回收的情况下…多线程IOPS性能由631提升到6241, 性能提升9.9倍",
    ),
    (
        load("seqwrite-1t", "write", "120k", 1, false, false),
        "120 KiB sequential writes, 1 thread, no GC",
        27908.0,
        56374.0,
        "KB/s",
        Some(2.0),
        "不触发垃圾回收情况下单线程顺序写带宽由27 908 KB/s提升到56 374 KB/s, 性能提升2倍",
    ),
    (
        load("seqwrite-256t", "write", "120k", 256, false, false),
        "120 KiB sequential writes, 256 threads, no GC",
        39090.0,
        195336.0,
        "KB/s",
        Some(5.0),
        "不触发垃圾回收情况下…256线程下带宽由39 090 KB/s提升到195 336 KB/s, 性能提升5倍",
    ),
    (
        load("seqwrite-1t-gc", "write", "120k", 1, true, false),
        "120 KiB sequential writes, 1 thread, GC",
        25802.0,
        41385.0,
        "KB/s",
        Some(1.6),
        "触发垃圾回收情况下单线程带宽从25 802 KB/s提升到41 385 KB/s, 性能提升1.6倍",
    ),
    (
        load("seqwrite-256t-gc", "write", "120k", 256, true, false),
        "120 KiB sequential writes, 256 threads, GC",
        35734.0,
        167748.0,
        "KB/s",
        Some(4.69),
        "触发垃圾回收情况下…256线程条件下带宽由35 734 KB/s提升到167 748 KB/s, 性能提升4.69倍",
    ),
    (
        load("randread-1t", "randread", "4k", 1, true, false),
        "4 KiB random reads, 1 thread, few cache hits",
        2700.0,
        3902.0,
        "IOPS",
        None,
        "在单线程无命中的情况下, 读IOPS由原来的2700提升到3902",
    ),
    (
        load("randread-1t-hits", "randread", "4k", 1, true, true),
        "4 KiB random reads, 1 thread, all cache hits",
        2700.0,
        16482.0,
        "IOPS",
        None,
        "在单线程无命中的情况下…全部命中的情况下读IOPS由2700提升到16 482",
    ),
    (
        load("randread-256t", "randread", "4k", 256, true, false),
        "4 KiB random reads, 256 threads",
        3148.0,
        3847.0,
        "IOPS",
        None,
        "在256线程实际测试中, 读IOPS由3148提升到3847, 提升幅度不大",
    ),
];

/// Section 4.1's write buffer sizes beside the seed's 4 MiB (the seed gives no other size: 4×
/// and 16× it).
const BUFFERS_MIB: [u64; 2] = [16, 64];

/// Section 4.2's prefetch: 4 KiB sequential reads, 1 thread, over the filled region.
const SEQREAD: Load = load("seqread-1t", "read", "4k", 1, true, false);

/// The variants of scheme two that section 4 argues for: (label, overrides).
fn variants() -> Vec<(Load, String, Vec<String>)> {
    let mut v = Vec::new();
    for mib in BUFFERS_MIB {
        for l in [PAIRS[0].0, PAIRS[4].0] {
            v.push((
                l,
                format!("buffer{mib}m"),
                vec![format!("device.ftl.write_buffer={mib}MiB")],
            ));
        }
    }
    v.push((SEQREAD, "no-prefetch".into(), vec!["device.ftl.prefetch=0".into()]));
    v.push((
        PAIRS[2].0,
        "serial-gc".into(),
        vec!["device.ftl.parallel_gc=false".into()],
    ));
    // The "GC" points in the other state the seed's text allows (only the region written).
    for l in [PAIRS[2].0, PAIRS[6].0] {
        v.push((l, REGION_ONLY.into(), vec![]));
    }
    // Section 5.2's "theoretical IOPS": the same FTL with no firmware time.
    v.push((
        PAIRS[0].0,
        "no-cpu".into(),
        ["command_time", "unit_time", "flash_op_time"]
            .map(|k| format!("device.controller.{k}=0us"))
            .to_vec(),
    ));
    v
}

/// The other reading of the DMA curve's large end (the claims' adds the 4 -> 8 KiB step for every
/// doubling of the size): a fixed setup t0 plus size / B through the seed's two points (t0 =
/// 45.5 us, B = 180 MB/s), writes' and reads' (scaled to the all-hit reads, as the preset's),
/// rates in MB/s rounded. Run on the 120 KiB writes, the only requests above 8 KiB.
const DMA_SETUP: (&str, &str) = (
    "dma-setup",
    "the host DMA as a fixed setup plus size / 180 MB/s through the seed's 4 and 8 KiB points (169 MB/s at 120 KiB, never above 180)",
);

/// The other reading of whether the firmware's CPU waits for the write-back a write starts
/// (the claims': it does not, "写闪存操作和缓存DMA传输可以并发进行"): a write that starts a
/// flush completes when the flushed pages are programmed (`device.ftl.flush_wait`). Run on
/// every comparison's optimised point.
const FLUSH_WAIT: (&str, &str) = (
    "flush-wait",
    "the optimised FTL's write that starts a flush completes only when the flushed pages are programmed (the one CPU waits for the write-back)",
);

fn dma_setup_overrides() -> Vec<String> {
    let curve = |k: f64| {
        let points: Vec<String> = [4u64, 8, 16, 32, 64, 128, 1024]
            .iter()
            .map(|&kib| {
                let t = 45.5e-6 + (kib * 1024) as f64 / 180e6;
                format!("[\"{kib}KiB\", \"{:.1}MB/s\"]", k * (kib * 1024) as f64 / t / 1e6)
            })
            .collect();
        format!("[{}]", points.join(", "))
    };
    vec![
        format!("device.host.dma={}", curve(1.0)),
        format!("device.host.read_dma={}", curve(68.27 / 30.34)),
    ]
}

/// The variant label of the "GC" points run with only the region written, overwritten until
/// every block has been used.
const REGION_ONLY: &str = "region-only";

/// The GC points' other states: (label, reading). The claims' state is the board written whole,
/// then the job's region overwritten at random to steady state.
const SEQ_FILL: (&str, &str) = (
    "seq-fill",
    "the GC state as the board written whole in order, nothing overwritten before the job (GC's victims then hold little valid data)",
);
const BOARD_STEADY: (&str, &str) = (
    "board-steady",
    "the GC state as the board written whole, then the whole board (not only the job's region) overwritten at random to steady state",
);

/// The other reading of what GC costs the firmware: nothing beyond its flash operations (the
/// claims': each collection 68 us of firmware time, each copied unit through DRAM at 60 MB/s).
const GC_FREE: (&str, &str) = (
    "gc-free",
    "GC costs the firmware's CPU nothing: no time per collection, its copies only the flash's reads, transfers and programs",
);

/// The loads run in the GC state (indices into `PAIRS`).
const GC_LOADS: [usize; 4] = [2, 3, 6, 7];

/// Scheme one's replacement policies (Figure 14).
const POLICIES: [&str; 3] = ["lru", "cflru", "bplru"];

/// Figure 5's geometries: (channels, ways).
const GEOMETRIES: [(u32, u32); 6] = [(1, 1), (1, 2), (1, 4), (2, 1), (4, 1), (4, 4)];

fn fio(l: Load, scale: Scale) -> String {
    let (ramp, runtime) = durations(scale, l);
    let size = format!("{}m", if l.hits { hits_mib(scale) } else { region_mib(scale) });
    format!(
        "[{id}]\nioengine=sync\ndirect=1\nrw={rw}\nbs={bs}\nsize={size}\nnumjobs={t}\niodepth=1\nramp_time={ramp}\nruntime={runtime}\ntime_based\ngroup_reporting\n",
        id = l.id,
        rw = l.rw,
        bs = l.bs,
        t = l.threads,
    )
}

fn point(d: Design, l: Load, scale: Scale) -> Result<Point> {
    variant_point(d, l, scale, None)
}

/// A point of design `d` on load `l` with a variant's overrides (`(label, overrides)`, the
/// label appended to the point's id and scheme).
fn variant_point(d: Design, l: Load, scale: Scale, variant: Option<(&str, &[String])>) -> Result<Point> {
    let (suffix, extra) = match variant {
        Some((v, o)) => (format!("-{v}"), o),
        None => (String::new(), &[][..]),
    };
    let id = format!("{}/{}{suffix}", l.id, d.label());
    let mut o = d.overrides(scale);
    o.extend(extra.iter().cloned());
    let logical =
        crate::redundancy::geometry_of(&crate::config::load_config_with(PRESET, &o)?.device, PRESET)?.logical_bytes();
    let share = (region_mib(scale) << 20) as f64 / logical as f64;
    if l.rw.contains("read") {
        // Reads find the region written.
        o.push("precondition.mode=sequential".into());
        o.push(format!("precondition.utilisation={share}"));
    } else if l.filled && variant.is_some_and(|(v, _)| v == SEQ_FILL.0) {
        // The state before issue 49: the board written once, in order; the job's random
        // writes then empty the region's blocks and GC finds victims with little valid data.
        o.push("precondition.mode=sequential".into());
        o.push("precondition.utilisation=1.0".into());
    } else if l.filled && variant.is_some_and(|(v, _)| v == BOARD_STEADY.0) {
        // The whole board written, then overwritten at random over all of it to steady state.
        o.push("precondition.mode=steady".into());
        o.push("precondition.utilisation=1.0".into());
    } else if l.filled && variant.is_some_and(|(v, _)| v == REGION_ONLY) {
        // The other state: only the region written, overwritten at random until every block
        // has been used; the rest of the drive holds no data, so GC finds its victims empty.
        o.push("precondition.mode=steady".into());
        o.push(format!("precondition.utilisation={share}"));
        o.push("precondition.min_overwrites=40".into());
        o.push("precondition.max_overwrites=48".into());
    } else if l.filled {
        // GC, the state the claims use: the seed's FTL collects "当闪存中没有空闲块可写时"
        // (section 4.4: when no free block is left to write) and its "GC" runs are those where
        // GC is triggered ("在触发垃圾回收的情况下", section 5.2) by 4 GiB jobs. A 4 GiB region
        // alone never runs out of free blocks on a 128 GiB board, so the board held data
        // beyond the region: its whole logical space written once, in order; then the jobs'
        // own random writes, which are all the seed describes, to steady state on the region
        // (collection under way, its victims' valid data settled).
        o.push("precondition.mode=steady".into());
        o.push("precondition.utilisation=1.0".into());
        o.push(format!("precondition.overwrite_share={share}"));
        o.push("precondition.min_overwrites=4".into());
        o.push("precondition.max_overwrites=16".into());
    }
    let mut config = crate::config::load_config_with(PRESET, &o)?;
    if variant.is_some_and(|(v, _)| v == GC_FREE.0) {
        config.device.controller.gc_time = ssdlab_core::units::Duration(0);
        config.device.controller.gc_copy_rate = None;
    }
    config.set_jobs_from_fio(&format!("experiment openssd, point {id}"), &fio(l, scale))?;
    Ok(Point {
        id,
        labels: vec![
            ("device".into(), PRESET.into()),
            ("scheme".into(), format!("{}{suffix}", d.label())),
            ("workload".into(), l.id.into()),
            ("threads".into(), l.threads.to_string()),
            ("gc".into(), if l.filled { "yes" } else { "no" }.into()),
        ],
        work: Work::Ssd(Box::new(config)),
    })
}

/// Figure 5: the flash alone, `channels` × `ways`, 8 KiB random reads or writes at depth 32.
fn flash_point(rw: &str, channels: u32, ways: u32, scale: Scale) -> Result<Point> {
    let id = format!("flash-{rw}/{channels}ch{ways}w");
    let o: Vec<String> = [
        format!("device.geometry.channels={channels}"),
        format!("device.geometry.ways={ways}"),
        format!("device.geometry.blocks_per_plane={}", blocks(scale).min(256)),
        "device.ftl.write_buffer=0".into(),
        "device.ftl.read_cache=0".into(),
        "device.ftl.prefetch=0".into(),
        "device.ftl.design=page".into(),
        "device.host.dma=[]".into(),
        "device.controller.command_time=0us".into(),
        "device.controller.unit_time=0us".into(),
        "device.controller.flash_op_time=0us".into(),
        "device.controller.queue_depth=0".into(),
    ]
    .into();
    let mut o = o;
    if rw == "read" {
        // Reads need data; writes go to a fresh drive (no GC).
        o.push("precondition.mode=sequential".into());
        o.push("precondition.utilisation=1.0".into());
    }
    let mut config = crate::config::load_config_with(PRESET, &o)?;
    let (ramp, runtime) = match scale {
        Scale::Full => ("100ms", "1s"),
        Scale::Quick => ("20ms", "200ms"),
    };
    let job = format!(
        "[{id}]\nioengine=libaio\nrw=rand{rw}\nbs=8k\niodepth=32\nsize=50%\nramp_time={ramp}\nruntime={runtime}\ntime_based\n"
    );
    config.set_jobs_from_fio(&format!("experiment openssd, point {id}"), &job)?;
    Ok(Point {
        id,
        labels: vec![
            (
                "device".into(),
                format!("{PRESET} flash, {channels} channels × {ways} ways"),
            ),
            ("scheme".into(), "flash only".into()),
            ("workload".into(), format!("8 KiB random {rw}s, QD32")),
            ("threads".into(), "1".into()),
            ("gc".into(), "no".into()),
        ],
        work: Work::Ssd(Box::new(config)),
    })
}

fn find<'a>(runs: &'a [PointResult], id: &str) -> &'a PointResult {
    runs.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("point {id} declared"))
}

/// The figure the seed reports for a workload: IOPS, or KB/s (fio's KB = 1024 bytes).
fn value(r: &PointResult, unit: &str, dir: &str) -> f64 {
    match unit {
        "KB/s" => r.metric(&format!("{dir}_mb_s")) * 1e6 / 1024.0,
        _ => r.metric(&format!("{dir}_iops")),
    }
}

fn dir_of(l: Load) -> &'static str {
    if l.rw.contains("read") {
        "read"
    } else {
        "write"
    }
}

/// The claims of one of the seed's comparisons (`pair`, a row of [`PAIRS`]) on the points of
/// variants `v` (`[original's, optimised's]`: `""`, or `-LABEL` for the points of another
/// reading), and our (original, optimised) figures.
#[allow(clippy::type_complexity)]
fn pair_claims(
    runs: &[PointResult],
    pair: (Load, &str, f64, f64, &str, Option<f64>, &str),
    v: [&str; 2],
) -> (Vec<Claim>, (f64, f64)) {
    let [vo, vp] = v;
    let (l, text, seed_orig, seed_opt, unit, printed_ratio, quote) = pair;
    let mut out = Vec::new();
    let dir = dir_of(l);
    let orig = value(find(runs, &format!("{}/cosmos-original{vo}", l.id)), unit, dir);
    let opt = value(find(runs, &format!("{}/openssd{vp}", l.id)), unit, dir);
    let note = format!("{} points {}/cosmos-original{vo} and {}/openssd{vp}", dir, l.id, l.id);
    // Under GC: whether collecting cost each FTL anything against the same writes
    // without GC (a difference below the minimum effect is none).
    let gc_cost = |ftl: &str| -> Option<f64> {
        let fresh = l.id.strip_suffix("-gc").filter(|_| l.filled && l.rw != "randread")?;
        let v = if ftl == "openssd" { vp } else { vo };
        let at = |id: &str| value(find(runs, &format!("{id}/{ftl}{v}")), unit, dir);
        // A reading of the GC state (or of GC's costs) has no fresh points of its own: the
        // fresh drive is the same under it.
        let fresh = match runs.iter().find(|r| r.id == format!("{fresh}/{ftl}{v}")) {
            Some(r) => value(r, unit, dir),
            None => value(find(runs, &format!("{fresh}/{ftl}")), unit, dir),
        };
        Some(1.0 - at(l.id) / fresh)
    };
    let no_gc = |ftl: &str| gc_cost(ftl).is_some_and(|c| c.abs() < MIN_EFFECT);
    let gc_note = |ftl: &str| {
        format!(
                "the GC state cost the {ftl} FTL {:.2} % against the same writes without GC, below the minimum effect: the claim is its no-GC figure again",
                gc_cost(ftl).unwrap_or(f64::NAN) * 100.0
            )
    };
    let c = Claim::new(
        &format!("{}/original", l.id),
        &format!("{text}: original FTL"),
        seed_orig,
        orig,
        unit,
        TOL,
        note.clone(),
    )
    .source(quote)
    .no_signal_if(no_gc("cosmos-original"), &gc_note("cosmos-original"));
    // The seed's 2,700 IOPS for the original FTL is one figure, quoted for the hits
    // and no-hits cases alike, and the original FTL caches no reads: the same point's
    // number again.
    out.push(if l.id == "randread-1t-hits" {
        c.derived(
            &["randread-1t/original"],
            "the original FTL has no read cache, so the same figure",
        )
    } else {
        c
    });
    // The preset's firmware time per command is derived from section 5.2's "half the
    // theoretical IOPS", which the seed reads off these two figures: a check.
    // So are the all-hit reads' (16,482 IOPS): the preset's read costs, firmware and DMA,
    // add up to this figure.
    let built_in = (!l.filled && l.rw == "randwrite") || l.hits;
    let c = Claim::new(
        &format!("{}/optimised", l.id),
        &format!("{text}: optimised FTL"),
        seed_opt,
        opt,
        unit,
        TOL,
        if l.hits {
            format!("{note}; the preset's read costs per command (firmware and DMA) add up to this figure")
        } else if built_in {
            format!("{note}; the preset's firmware time per command comes from the seed's remark on this figure")
        } else {
            note.clone()
        },
    )
    .source(quote)
    .no_signal_if(no_gc("openssd"), &gc_note("openssd"));
    out.push(if built_in { c.check() } else { c });
    let ratio_note = match printed_ratio {
        Some(_) => format!("{note}; the seed prints the ratio"),
        None => format!("{note}; the seed's two figures, {seed_opt} / {seed_orig}"),
    };
    let ratio = Claim::new(
        &format!("{}/ratio", l.id),
        &format!("{text}: optimised / original"),
        printed_ratio.unwrap_or(seed_opt / seed_orig),
        opt / orig,
        "×",
        TOL,
        ratio_note,
    )
    .source(quote)
    .no_signal_if(
        no_gc("openssd") || no_gc("cosmos-original"),
        &format!("{}; {}", gc_note("openssd"), gc_note("cosmos-original")),
    );
    // A ratio the seed does not print is its two figures' quotient, and one whose
    // optimised figure is built in passes exactly when the original does: both follow.
    // (The hits case's original figure is the no-hits one's.)
    let o = match l.id {
        "randread-1t-hits" => "randread-1t/original".to_string(),
        id => format!("{id}/original"),
    };
    let p = format!("{}/optimised", l.id);
    out.push(match (built_in, printed_ratio) {
        (true, _) => ratio.derived(&[&o, &p], "the optimised figure is built into the preset"),
        (false, None) => ratio.derived(&[&o, &p], "the seed prints no ratio, only the two figures"),
        (false, Some(_)) => ratio,
    });
    (out, (orig, opt))
}

/// The counted claims of the comparisons `range` of [`PAIRS`] under another reading
/// (`(label, what)`), from its points (`-LABEL`: both designs' when `both`, else the
/// optimised FTL's beside the original's own), and `ours` with those comparisons' figures
/// replaced. Checks and derived figures stand for no counted claim and are left out.
fn other_reading(
    runs: &[PointResult],
    ours: &[(f64, f64)],
    range: impl IntoIterator<Item = usize>,
    both: bool,
    (label, reading): (&str, &str),
) -> (Vec<Claim>, Vec<(f64, f64)>) {
    let mut theirs = ours.to_vec();
    let mut claims = Vec::new();
    let v = format!("-{label}");
    for i in range {
        let (c, figures) = pair_claims(runs, PAIRS[i], [if both { &v } else { "" }, &v]);
        claims.extend(
            c.into_iter()
                .filter(|c| c.kind == ClaimKind::Seed)
                .map(|c| c.alternative(label, reading)),
        );
        theirs[i] = figures;
    }
    (claims, theirs)
}

/// The tolerance policy's ±25 % (docs/experiments/README.md), for figures and ratios alike.
const TOL: Rule = Rule::Relative { tolerance: 0.25 };

impl Experiment for OpenSsd {
    fn name(&self) -> &'static str {
        "openssd"
    }
    fn title(&self) -> &'static str {
        "An FTL for the Cosmos OpenSSD board against the board's original one"
    }
    fn seed_document(&self) -> &'static str {
        "002_989b305e125aad39.txt"
    }
    fn scale_note(&self, scale: Scale) -> String {
        let one = durations(scale, PAIRS[0].0);
        let many = durations(scale, PAIRS[1].0);
        let b = blocks(scale);
        format!(
            "Board: the {PRESET} preset with {b} of 4096 blocks per die ({} GiB of flash; the board has 128); job region {} MiB (the seed's 4 GiB is 1/32 of the board), read cache 1/16 of it, all-hit reads over {} MiB. Jobs: {} ramp and {} measured with 1 thread, {} ramp with 256; the 'GC' write points run the seed's 300 s ({} on this board). 'GC': the whole logical space written once in order, then the job's region overwritten at random to steady state, before the job (GC is triggered when no free block is left); beside it the board written in order only (-seq-fill), the whole board overwritten to steady state (-board-steady), and only the region written, overwritten at random until every block has been used (-region-only); reads: the region filled.",
            b / 32,
            region_mib(scale),
            hits_mib(scale),
            one.0,
            one.1,
            many.0,
            durations(scale, PAIRS[2].0).1,
        )
    }

    fn points(&self, scale: Scale) -> Result<Vec<Point>> {
        let mut points = Vec::new();
        for (l, ..) in PAIRS {
            for d in [Design::Original, Design::Optimised] {
                points.push(point(d, l, scale)?);
            }
        }
        for p in POLICIES {
            points.push(point(Design::SchemeOne(p), PAIRS[0].0, scale)?);
        }
        points.push(point(Design::Optimised, SEQREAD, scale)?);
        for (l, v, o) in variants() {
            points.push(variant_point(Design::Optimised, l, scale, Some((&v, &o)))?);
        }
        for (l, ..) in PAIRS {
            let o = ["device.ftl.flush_wait=true".to_string()];
            points.push(variant_point(Design::Optimised, l, scale, Some((FLUSH_WAIT.0, &o)))?);
        }
        for i in GC_LOADS {
            for v in [SEQ_FILL.0, BOARD_STEADY.0, GC_FREE.0] {
                for d in [Design::Original, Design::Optimised] {
                    points.push(variant_point(d, PAIRS[i].0, scale, Some((v, &[])))?);
                }
            }
        }
        let dma = dma_setup_overrides();
        for (l, ..) in &PAIRS[4..8] {
            for d in [Design::Original, Design::Optimised] {
                points.push(variant_point(d, *l, scale, Some((DMA_SETUP.0, &dma)))?);
            }
        }
        for rw in ["read", "write"] {
            for (c, w) in GEOMETRIES {
                points.push(flash_point(rw, c, w, scale)?);
            }
        }
        Ok(points)
    }

    fn conditions(&self) -> Vec<Condition> {
        vec![
            Condition {
                name: "the firmware's time".into(),
                used: "a time per command and per flash operation on one CPU that takes one command at a time, derived from section 5.2's \"half the theoretical IOPS\"".into(),
                source: "但是优化后性能只有理论IOPS的一半左右, 这是因为CPU运行代码会占用大量的时间 (the optimised figures that fix it are checks). Changed in issue 30 after the results were seen, from a time per 4 KiB unit: 27 of 44 before, 27 of 43 after.".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "the reads' costs".into(),
                used: "30.34 µs of firmware per read command and the 4 KiB read DMA at 135 MB/s: the all-hit reads' 60.67 µs (16,482 IOPS) split as the write side's is, half code and half DMA".into(),
                source: "全部命中的情况下读IOPS由2700提升到16 482 (the all-hit figure is therefore a check). The seed gives only the sum; with one command at a time the firmware and the DMA run in series, so any split gives the same read figures.".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "the host DMA's large end".into(),
                used: "each doubling of the transfer size adds the 4 → 8 KiB step (30 MB/s): 206 MB/s at 120 KiB".into(),
                source: "经测试, OpenSSD的DMA传输速度如图4所示. 通过分析可知, 随着粒度的增大, DMA传输速度也随之增长 gives the rise, 4 KiB (60 MB/s) and 8 KiB (≈ 90 MB/s) its only values. A fixed setup plus size / B through them stops rising at 180 MB/s, where the seed's own 195,336 KB/s of 120 KiB writes at 256 threads, one command at a time, needs 219 MB/s or more: the claims use the curve that keeps rising.".into(),
                open: true,
                others: vec![(DMA_SETUP.0.into(), DMA_SETUP.1.into())],
            },
            Condition {
                name: "whether the CPU waits for the write-back".into(),
                used: "no: a write completes once its data is in the buffer, the flush it starts running on while the next command is served".into(),
                source: "同时由于写缓存区的存在, 所以写闪存操作和缓存DMA传输可以并发进行 (section 4.1.2). The other reading is a hypothesis for the one-thread 120 KiB writes, slower on the board (56,374 KB/s) than its own flash rate: shown, not adopted, since the text says the flash writes and the DMA overlap.".into(),
                open: true,
                others: vec![(FLUSH_WAIT.0.into(), FLUSH_WAIT.1.into())],
            },
            Condition {
                name: "the GC state".into(),
                used: "the whole logical space written in order, then the job's 4 GiB region overwritten at random to steady state (collection under way, its victims' valid data settled)".into(),
                source: "The seed's section 5 runs \"runtime=300\" jobs \"在触发垃圾回收的情况下\" without saying how the board was filled; a full board is the state in which a write triggers GC (\"当闪存中没有空闲块可写时\", section 4.4), and the only writes the seed describes are its jobs' own, all on the 4 GiB region. Before issue 49 the claims used the board written in order alone, where GC found its victims nearly empty (WAF 1.002).".into(),
                open: true,
                others: vec![
                    (SEQ_FILL.0.into(), SEQ_FILL.1.into()),
                    (BOARD_STEADY.0.into(), BOARD_STEADY.1.into()),
                ],
            },
            Condition {
                name: "what GC costs the firmware".into(),
                used: "68 µs of CPU time per collection (one more pass of the firmware, a command's time: the seed gives none) and each copied unit through DRAM on the CPU at 60 MB/s".into(),
                source: "因为OpenSSD闪存颗粒没有回拷(CopyBack)功能, 所以垃圾回收需要借助于缓存空间(GC buffer)来搬运数据 (section 3); OpenSSD的memcpy的速度只有60 MB/s (section 4.1.1), also its 4 KiB DMA speed.".into(),
                open: true,
                others: vec![(GC_FREE.0.into(), GC_FREE.1.into())],
            },
            Condition {
                name: "the general FTL algorithms of Figure 14".into(),
                used: "LRU, CFLRU and BPLRU".into(),
                source: "The seed does not name them (\"本文选取了几种通用FTL算法\"); the three are the cache policies of its related work. Their claims are checks.".into(),
                open: false,
                others: vec![],
            },
        ]
    }
    fn analyse(&self, _scale: Scale, runs: &[PointResult]) -> Analysis {
        let mut claims = Vec::new();
        let mut ours = Vec::new();
        for pair in PAIRS {
            let (c, figures) = pair_claims(runs, pair, ["", ""]);
            claims.extend(c);
            ours.push(figures);
        }
        // The 120 KiB writes under the other reading of the DMA curve's large end.
        let (c, ours_setup) = other_reading(runs, &ours, 4..8, true, DMA_SETUP);
        claims.extend(c);
        // The GC points in the other GC states, and with GC free for the firmware.
        for reading in [SEQ_FILL, BOARD_STEADY, GC_FREE] {
            claims.extend(other_reading(runs, &ours, GC_LOADS, true, reading).0);
        }
        // Section 5.2: what GC costs the optimised FTL (the seed: 6,014 against 7,007 IOPS),
        // a prediction from the GC state above.
        let w = |id: &str| value(find(runs, id), "IOPS", "write");
        claims.push(
            Claim::new(
                "section5/gc-cost-optimised",
                "4 KiB random writes, 1 thread: the optimised FTL's loss under GC, 1 − with GC / without",
                1.0 - 6014.0 / 7007.0,
                1.0 - w("randwrite-1t-gc/openssd") / w("randwrite-1t/openssd"),
                "",
                TOL,
                "1 − write IOPS of randwrite-1t-gc/openssd over randwrite-1t/openssd; the seed's figures give 1 − 6014 / 7007 (randwrite-1t-gc/openssd-region-only beside: only the region written)".into(),
            )
            .source("在不触发垃圾回收的情况下, 单线程IOPS性能由原来的602提升到7007…在触发垃圾回收的情况下单线程IOPS性能由原来的596提升到6014"),
        );
        // Section 6: "针对小粒度写I/O负载的性能提升最为明显": the smallest gain on 4 KiB random
        // writes (Figure 11) above the largest on any other workload (Figures 12 and 13). The
        // seed's own figures give 9.9 / 6.1 = 1.62.
        // Every comparison with the optimised FTL waiting for the write-back its writes start.
        let (c, ours_wait) = other_reading(runs, &ours, 0..PAIRS.len(), false, FLUSH_WAIT);
        claims.extend(c);
        let summary = |ours: &[(f64, f64)]| {
            let gain = |i: usize| ours[i].1 / ours[i].0;
            let small_writes = (0..4).map(gain).fold(f64::INFINITY, f64::min);
            let others = (4..PAIRS.len()).map(gain).fold(0.0, f64::max);
            Claim::new(
                "summary/small-writes-largest-gain",
                "the optimised FTL's gain is largest on small writes: smallest gain on 4 KiB random writes over the largest on 120 KiB sequential writes and 4 KiB reads",
                1.0,
                small_writes / others,
                "×",
                Rule::ABOVE,
                "optimised / original of the randwrite points over that of the seqwrite and randread points; the seed's figures give 9.9 / 6.1 = 1.62".into(),
            )
            .source("特别地, 针对小粒度写I/O负载的性能提升最为明显")
        };
        claims.push(summary(&ours));
        claims.push(summary(&ours_setup).alternative(DMA_SETUP.0, DMA_SETUP.1));
        claims.push(summary(&ours_wait).alternative(FLUSH_WAIT.0, FLUSH_WAIT.1));
        // Figure 14: scheme one's policies below scheme two on 4 KiB random writes.
        let two = value(find(runs, "randwrite-1t/openssd"), "IOPS", "write");
        let mut fig14 = vec![(0.0, two)];
        for (i, p) in POLICIES.iter().enumerate() {
            let v = value(find(runs, &format!("randwrite-1t/scheme-one-{p}")), "IOPS", "write");
            fig14.push(((i + 1) as f64, v));
            claims.push(Claim::new(
                &format!("figure14/{p}"),
                &format!(
                    "4 KiB random writes, 1 thread: scheme one with {} below scheme two",
                    p.to_uppercase()
                ),
                1.0,
                v / two,
                "× scheme two",
                Rule::BELOW,
                format!(
                    "write IOPS of randwrite-1t/scheme-one-{p} over randwrite-1t/openssd; the seed does not name the general algorithms it took, LRU, CFLRU and BPLRU stand for them"
                ),
            )
            .source("在方案一的基础上, 本文选取了几种通用FTL算法, 针对小粒度随机写负载进行测试…针对缓存冷热数据进行处理的通用FTL算法在OpenSSD上表现的实际性能与本文提出的方案存在一定差距")
            // Random 4 KiB writes with no reuse leave a cache policy nothing to choose: the
            // three give one number, scheme one's buffer design against scheme two's, which
            // the presets build in. A check of the engine, not of the seed.
            .check());
        }
        // Figure 5: the flash alone.
        let mbs = |rw: &str, c: u32, w: u32| find(runs, &format!("flash-{rw}/{c}ch{w}w")).metric(&format!("{rw}_mb_s"));
        // Section 2, on Figure 5: "写I/O操作进行way级别的并行化后, 性能得到很大提升; 但在读I/O操作时,
        // 如果way属于同一条通道, 那么way数目的增长对读性能的提升几乎没有影响, 而属于不同通道的way数目增长
        // 对于读性能提升很大". A gain is a direction beyond the noise; "almost no effect" is a
        // ratio of 1 within the tolerance policy's ±25 %.
        for (id, text, (a, b), rule, quote) in [
            (
                "figure5/read-channels",
                "flash reads: 4 channels over 1 (\"对于读性能提升很大\")",
                (("read", 4, 1), ("read", 1, 1)),
                Rule::ABOVE,
                "闪存读写速度如图5所示…而属于不同通道的way数目增长对于读性能提升很大",
            ),
            (
                "figure5/read-ways",
                "flash reads: 4 ways on one channel over 1 (\"几乎没有影响\")",
                (("read", 1, 4), ("read", 1, 1)),
                TOL,
                "闪存读写速度如图5所示…如果way属于同一条通道, 那么way数目的增长对读性能的提升几乎没有影响",
            ),
            (
                "figure5/write-ways",
                "flash writes: 4 ways on one channel over 1 (\"性能得到很大提升\")",
                (("write", 1, 4), ("write", 1, 1)),
                Rule::ABOVE,
                "闪存读写速度如图5所示, 由图可知写I/O操作进行way级别的并行化后, 性能得到很大提升",
            ),
        ] {
            let v = mbs(a.0, a.1, a.2) / mbs(b.0, b.1, b.2);
            let c = Claim::new(
                id,
                text,
                1.0,
                v,
                "×",
                rule,
                "the seed gives the trend in words (section 2, Figure 5)".into(),
            )
            .source(quote);
            // Ways on one channel share its bus, and a page read is bound by its transfer on
            // the bus: the ratio is 1 by the board's build, whatever the run.
            claims.push(if id == "figure5/read-ways" { c.check() } else { c });
        }

        // Section 2 and 4.1: the whole board's flash writes and the DMA. The preset takes the
        // ~90 MB/s and the DMA table from these same sentences, so the claims check that the
        // engine turns those inputs into the stated whole-board outcome: checks, not seed
        // claims.
        let all16 = mbs("write", 4, 4);
        claims.push(
            Claim::new(
                "section4/flash-write-all-ways",
                "flash writes with all 4 channels × 4 ways at once: about 90 MB/s",
                90.0,
                all16,
                "MB/s",
                TOL,
                "write MB/s of flash-write/4ch4w; the preset's program time is derived from this figure".into(),
            )
            .source("即使所有通道和way并发, 闪存的写入速度也仅为90 MB/s左右")
            .check(),
        );
        let preset = crate::config::load_config_with(PRESET, &[]).expect("the built-in preset loads (its points did)");
        let [dma, _] = crate::controller::Dma::from_config(&preset.device.host);
        let dma_mbs = |bytes: u64| dma.rate(bytes) as f64 / 1e6;
        let dma_quote = "比较图4和图5, 4 K粒度时DMA传输速度比闪存并行的写入速度慢, 8 K粒度时写入速度持平";
        claims.push(
            Claim::new(
                "section4/dma-4k-below-flash",
                "4 KiB DMA slower than the flash's parallel writes: flash-write/4ch4w over the 4 KiB DMA rate",
                1.0,
                all16 / dma_mbs(4096),
                "×",
                Rule::ABOVE,
                format!(
                    "flash-write/4ch4w MB/s over the preset's DMA rate at 4 KiB ({} MB/s)",
                    dma_mbs(4096)
                ),
            )
            .source(dma_quote)
            .check(),
        );
        claims.push(
            Claim::new(
                "section4/dma-8k-equals-flash",
                "8 KiB DMA as fast as the flash's parallel writes: flash-write/4ch4w over the 8 KiB DMA rate",
                1.0,
                all16 / dma_mbs(8192),
                "×",
                TOL,
                format!(
                    "flash-write/4ch4w MB/s over the preset's DMA rate at 8 KiB ({} MB/s)",
                    dma_mbs(8192)
                ),
            )
            .source(dma_quote)
            .check(),
        );
        // Section 5.2: "only about half the theoretical IOPS" because of the firmware's code.
        // The preset's firmware times are derived from this sentence too: a check.
        let iops = |id: &str| value(find(runs, id), "IOPS", "write");
        claims.push(
            Claim::new(
                "section5/half-theoretical-iops",
                "4 KiB random writes, 1 thread: the optimised FTL at about half the IOPS it reaches without firmware time",
                0.5,
                iops("randwrite-1t/openssd") / iops("randwrite-1t/openssd-no-cpu"),
                "×",
                TOL,
                "write IOPS of randwrite-1t/openssd over randwrite-1t/openssd-no-cpu (command, unit and flash-operation times 0); the preset's firmware times are derived from this sentence".into(),
            )
            .source("但是优化后性能只有理论IOPS的一半左右, 这是因为CPU运行代码会占用大量的时间")
            .check(),
        );
        // Section 4.1: under scheme two the write buffer's size matters little. The seed names
        // no other size; the claim takes the larger departure from 1 of 16 and 64 MiB.
        for (l, unit) in [(PAIRS[0].0, "IOPS"), (PAIRS[4].0, "KB/s")] {
            let base = value(find(runs, &format!("{}/openssd", l.id)), unit, "write");
            let ratios: Vec<(u64, f64)> = BUFFERS_MIB
                .iter()
                .map(|m| {
                    let v = value(find(runs, &format!("{}/openssd-buffer{m}m", l.id)), unit, "write");
                    (*m, v / base)
                })
                .collect();
            let worst = ratios
                .iter()
                .map(|r| r.1)
                .fold(1.0, |a: f64, r| if (r - 1.0).abs() > (a - 1.0).abs() { r } else { a });
            let each: Vec<String> = ratios.iter().map(|(m, r)| format!("{m} MiB {r:.3}")).collect();
            claims.push(
                Claim::new(
                    &format!("section4/write-buffer-size/{}", l.id),
                    &format!("{}: a larger write buffer than 4 MiB changes little", PAIRS.iter().find(|p| p.0 == l).map_or("", |p| p.1)),
                    1.0,
                    worst,
                    "× 4 MiB",
                    TOL,
                    format!(
                        "write {unit} of {}/openssd-buffer16m and -buffer64m over {}/openssd, the one furthest from 1 ({})",
                        l.id,
                        l.id,
                        each.join(", ")
                    ),
                )
                .source("在方案二的情况下写缓冲数据存储区的大小对存储性能影响不大")
                .case(l.id),
            );
        }
        // Section 4.2: prefetch on idle channels speeds up small sequential reads.
        let seq = |id: &str| value(find(runs, id), "IOPS", "read");
        let prefetch = seq("seqread-1t/openssd") / seq("seqread-1t/openssd-no-prefetch");
        claims.push(
            Claim::new(
                "section4/prefetch-small-sequential-reads",
                "4 KiB sequential reads, 1 thread: prefetch on idle channels faster than none",
                1.0,
                prefetch,
                "×",
                Rule::ABOVE,
                "read IOPS of seqread-1t/openssd over seqread-1t/openssd-no-prefetch".into(),
            )
            .source("若有通道空闲就从这个通道预读一些数据…这能显著提升小粒度的顺序读性能")
            .no_signal_if(
                prefetch == 1.0,
                "the two runs are identical: prefetch found nothing to read",
            ),
        );
        // Section 4.3: every die collecting at once frees more space per unit of time.
        let serial = iops("randwrite-1t-gc/openssd-serial-gc");
        let gc = iops("randwrite-1t-gc/openssd") / serial;
        // GC that costs nothing even one die at a time leaves nothing to speed up: the serial
        // run within 1 % of the same writes on a fresh drive.
        let gc_cost = 1.0 - serial / iops("randwrite-1t/openssd");
        claims.push(
            Claim::new(
                "section4/parallel-gc",
                "4 KiB random writes under GC, 1 thread: every die collecting at once faster than one die at a time",
                1.0,
                gc,
                "×",
                Rule::ABOVE,
                "write IOPS of randwrite-1t-gc/openssd over randwrite-1t-gc/openssd-serial-gc (parallel_gc = false)"
                    .into(),
            )
            .source("每个晶元都选取一个回收块进行垃圾回收…在单位时间腾出了更多的可用存储空间, 垃圾回收效率大大提高")
            .no_signal_if(
                gc_cost < 0.01,
                &format!(
                    "GC costs nothing to speed up: one die at a time, the writes run at {:.1} % below a fresh drive's (randwrite-1t-gc/openssd-serial-gc against randwrite-1t/openssd)",
                    gc_cost * 100.0
                ),
            ),
        );

        let mut figures = Vec::new();
        let pair_figure = |id: &str, title: &str, unit: &str, range: std::ops::Range<usize>, cats: &[&str]| {
            let pick = |f: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
                range.clone().enumerate().map(|(k, i)| (k as f64, f(i))).collect()
            };
            Figure {
                id: id.into(),
                title: title.into(),
                x_label: "host threads (and cache state)".into(),
                y_label: unit.into(),
                log_x: false,
                series: vec![
                    Series {
                        name: "original (ssdlab)".into(),
                        points: pick(&|i| ours[i].0),
                    },
                    Series {
                        name: "optimised (ssdlab)".into(),
                        points: pick(&|i| ours[i].1),
                    },
                    Series {
                        name: "original (seed)".into(),
                        points: pick(&|i| PAIRS[i].2),
                    },
                    Series {
                        name: "optimised (seed)".into(),
                        points: pick(&|i| PAIRS[i].3),
                    },
                ],
                categories: cats.iter().map(|c| c.to_string()).collect(),
            }
        };
        let wcats = ["1 thread", "256 threads", "1 thread, GC", "256 threads, GC"];
        figures.push(pair_figure(
            "figure11_random_write",
            "Figure 11: 4 KiB random writes",
            "IOPS",
            0..4,
            &wcats,
        ));
        figures.push(pair_figure(
            "figure12_sequential_write",
            "Figure 12: 120 KiB sequential writes",
            "KB/s",
            4..8,
            &wcats,
        ));
        figures.push(pair_figure(
            "figure13_random_read",
            "Figure 13: 4 KiB random reads",
            "IOPS",
            8..11,
            &["1 thread", "1 thread, all hits", "256 threads"],
        ));
        figures.push(Figure {
            id: "figure14_scheme_one".into(),
            title: "Figure 14: 4 KiB random writes, 1 thread, scheme one against scheme two".into(),
            x_label: "write-buffer replacement".into(),
            y_label: "IOPS".into(),
            log_x: false,
            // Scheme two's bar, then scheme one's under each replacement policy: a series each,
            // so that the legend names both schemes the title compares.
            series: vec![
                Series {
                    name: "scheme two (the seed's FTL)".into(),
                    points: fig14[..1].to_vec(),
                },
                Series {
                    name: "scheme one".into(),
                    points: fig14[1..].to_vec(),
                },
            ],
            categories: ["scheme two", "LRU", "CFLRU", "BPLRU"].map(String::from).to_vec(),
        });
        let curve = |rw: &str, ways: bool| Series {
            name: format!(
                "{rw}s, {}",
                if ways {
                    "ways on 1 channel"
                } else {
                    "channels, 1 way each"
                }
            ),
            points: GEOMETRIES
                .iter()
                .filter(|(c, w)| if ways { *c == 1 } else { *w == 1 })
                .map(|&(c, w)| ((c * w) as f64, mbs(rw, c, w)))
                .collect(),
        };
        figures.push(Figure {
            id: "figure5_flash_parallelism".into(),
            title: "Figure 5: flash speed against channels and ways (8 KiB, QD32)".into(),
            x_label: "channels or ways (dies, log scale)".into(),
            y_label: "MB/s".into(),
            // Dies double from 1 to 16: on a linear axis the 4 × 4 points would leave three
            // quarters of the width empty.
            log_x: true,
            series: vec![
                curve("read", false),
                curve("read", true),
                curve("write", false),
                curve("write", true),
                Series {
                    name: "reads, 4 channels × 4 ways".into(),
                    points: vec![(16.0, mbs("read", 4, 4))],
                },
                Series {
                    name: "writes, 4 channels × 4 ways".into(),
                    points: vec![(16.0, all16)],
                },
            ],
            categories: vec![],
        });
        Analysis { claims, figures }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_other_dma_reading_is_the_setup_line_through_the_seed_s_two_points() {
        // t0 = 45.5 us, B = 180 MB/s: 4 KiB in 68.26 us (60.0 MB/s), 8 KiB in 91.01 us (90.0),
        // 1 MiB in 5,871 us (178.6); reads 68.27 / 30.34 times as fast.
        let o = dma_setup_overrides();
        assert!(
            o[0].starts_with(r#"device.host.dma=[["4KiB", "60.0MB/s"], ["8KiB", "90.0MB/s"], ["16KiB", "120.0MB/s"]"#),
            "{}",
            o[0]
        );
        assert!(
            o[0].ends_with(r#"["128KiB", "169.4MB/s"], ["1024KiB", "178.6MB/s"]]"#),
            "{}",
            o[0]
        );
        assert!(
            o[1].starts_with(r#"device.host.read_dma=[["4KiB", "135.0MB/s"], ["8KiB", "202.5MB/s"]"#),
            "{}",
            o[1]
        );
        // Both load as the preset's overrides.
        let c = crate::config::load_config_with(PRESET, &o).unwrap();
        assert_eq!(c.device.host.dma.len(), 7);
        assert_eq!(c.device.host.read_dma[6].1 .0, 401_900_000);
    }
}
