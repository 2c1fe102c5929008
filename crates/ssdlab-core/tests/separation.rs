//! Stream separation and superblock GC against an independent small simulation.
//!
//! The model below knows nothing of the engine: logical units mapped to pages of blocks,
//! a host write point per class (separated) or one for all (mixed), a write point of GC's
//! own, greedy victims (the fewest valid pages) collected when fewer than two blocks are
//! free, and its own random stream. A superblock collected whole is, for WAF, one block as
//! large as all its members together, so the same model with `planes × pages` pages per
//! block stands for whole-superblock GC.
//!
//! The engine runs the same workload (classes as fio jobs on disjoint ranges, each with its
//! own stream id, at a write share set by their queue depths) on a one-plane drive with
//! per-plane frontiers (`device.ftl.streams` 1 or the number of classes) and on a 2 × 2
//! drive with full-width superblocks (`baseline` against `multi-stream`). The model takes
//! the classes' write shares the engine measured and must give the same WAF within 3 %, and
//! the same gain from separation within 2 points (measured: within 1 % and 1 point). The
//! model itself matches the mean-field greedy WAF on uniform writes, and the engine matches
//! it there with GC's survivors in a write point of their own or in the host's.

mod common;

use ssdlab_core::config::Config;
use ssdlab_core::sim::Simulation;

/// A 64-bit xorshift: the model's own random stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The model's steady-state WAF: `classes` as (logical units, write share), `blocks` of
/// `pages` pages; every unit first written in order through write point 0 (the drive's
/// sequential fill), then class `c` overwritten at random through write point `route[c]`;
/// greedy GC into a write point of its own, or into write point 0 if `gc_shared`.
fn model_waf(classes: &[(u64, f64)], route: &[usize], gc_shared: bool, blocks: usize, pages: usize, seed: u64) -> f64 {
    const FREE: u32 = u32::MAX;
    let logical: u64 = classes.iter().map(|c| c.0).sum();
    let mut map = vec![u32::MAX; logical as usize]; // unit -> block * pages + page
    let mut owner = vec![FREE; blocks * pages]; // page -> unit (FREE: invalid or empty)
    let mut valid = vec![0usize; blocks];
    let mut free: Vec<usize> = (0..blocks).rev().collect();
    let points = route.iter().max().unwrap() + 1;
    // Write points: (block, next page); the last is GC's.
    let mut open: Vec<(usize, usize)> = (0..=points).map(|_| (free.pop().unwrap(), 0)).collect();
    let mut rng = Rng(seed | 1);
    let (mut host, mut flash) = (0u64, 0u64);
    let place = |unit: usize,
                 point: usize,
                 map: &mut Vec<u32>,
                 owner: &mut Vec<u32>,
                 valid: &mut Vec<usize>,
                 open: &mut Vec<(usize, usize)>,
                 free: &mut Vec<usize>| {
        let old = map[unit];
        if old != u32::MAX {
            owner[old as usize] = FREE;
            valid[old as usize / pages] -= 1;
        }
        let (b, p) = open[point];
        let at = b * pages + p;
        owner[at] = unit as u32;
        map[unit] = at as u32;
        valid[b] += 1;
        open[point] = if p + 1 == pages {
            (free.pop().expect("a free block"), 0)
        } else {
            (b, p + 1)
        };
    };
    let starts: Vec<u64> = classes
        .iter()
        .scan(0, |s, c| {
            let a = *s;
            *s += c.0;
            Some(a)
        })
        .collect();
    // Fill every unit once, then overwrite: 6 device-fills to settle, 6 measured.
    let total = 12 * logical;
    for i in 0..logical + total {
        if i == logical + total / 2 {
            host = 0;
            flash = 0;
        }
        let (point, unit) = if i < logical {
            (0, i as usize)
        } else {
            let mut x = rng.unit();
            let mut c = 0;
            while c + 1 < classes.len() && x >= classes[c].1 {
                x -= classes[c].1;
                c += 1;
            }
            (route[c], (starts[c] + rng.below(classes[c].0)) as usize)
        };
        place(unit, point, &mut map, &mut owner, &mut valid, &mut open, &mut free);
        host += 1;
        flash += 1;
        // Greedy GC until two blocks are free: the full block with the fewest valid pages.
        while free.len() < 2 {
            let victim = (0..blocks)
                .filter(|b| !open.iter().any(|o| o.0 == *b) && !free.contains(b))
                .min_by_key(|&b| valid[b])
                .expect("a full block");
            for p in 0..pages {
                let u = owner[victim * pages + p];
                if u != FREE {
                    let to = if gc_shared { 0 } else { points };
                    place(u as usize, to, &mut map, &mut owner, &mut valid, &mut open, &mut free);
                    flash += 1;
                }
            }
            assert_eq!(valid[victim], 0);
            free.insert(0, victim);
        }
    }
    flash as f64 / host as f64
}

/// A drive of `channels` × `ways` single-plane SLC chips (the tests' SLC timing), `blocks` × `pages` each, spare
/// share `op`, GC into its own write point; `placement` a superblock policy or "plane" with
/// `streams` per-plane frontiers.
fn drive(channels: u32, ways: u32, blocks: u32, pages: u32, op: f64, placement: &str, streams: u32) -> String {
    format!(
        "[device]\nname = \"separation\"\n[device.geometry]\nchannels = {channels}\nways = {ways}\nblocks_per_plane = {blocks}\npages_per_block = {pages}\npage_size = \"4KiB\"\noverprovisioning = {op}\n{}gc_policy = \"greedy\"\ngc_frontier = \"separate\"\nstreams = {streams}\n[device.placement]\npolicy = \"{placement}\"\nopen_superblocks = 4\n",
        common::SLC_TIMING
    )
}

/// Classes as fio jobs: (share of the logical space, queue depth), each on its own range
/// with stream id = its index + 1; random 4 KiB writes for `passes` device-fills after a
/// ramp of as long. Returns the engine's WAF over the measured part, each class's share
/// of the measured writes and the drive's logical 4 KiB units.
fn engine(text: String, classes: &[(f64, u32)], ramp: &str, runtime: &str) -> (f64, Vec<f64>, u64) {
    let mut text = text + "[precondition]\nmode = \"sequential\"\nutilisation = 1.0\n";
    let mut off = 0.0;
    for (i, (share, depth)) in classes.iter().enumerate() {
        text += &format!(
            "[[job]]\nname = \"c{i}\"\nrw = \"randwrite\"\nbs = \"4KiB\"\noffset = \"{}%\"\nsize = \"{}%\"\niodepth = {depth}\nstream = {}\nramp_time = \"{ramp}\"\nruntime = \"{runtime}\"\ntime_based = true\n",
            off * 100.0,
            share * 100.0,
            i + 1
        );
        off += share;
    }
    let c: Config = ssdlab_core::config::parse_config(&text, "separation.toml", std::path::Path::new(".")).unwrap();
    c.validate().unwrap();
    let mut sim = Simulation::new(&c).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    let ios: Vec<f64> = r.jobs.iter().map(|j| j.write.total_ios as f64).collect();
    let all: f64 = ios.iter().sum();
    (
        r.ssd.waf,
        ios.iter().map(|n| n / all).collect(),
        r.ssd.logical_bytes / 4096,
    )
}

fn compare(name: &str, engine_waf: f64, model: f64) {
    let err = engine_waf / model - 1.0;
    eprintln!(
        "{name}: engine {engine_waf:.3}, model {model:.3} ({:+.1} %)",
        err * 100.0
    );
    assert!(
        err.abs() <= 0.03,
        "{name}: engine {engine_waf:.3} against the model's {model:.3}"
    );
}

/// Mixed against separated on one drive layout: the engine and the model agree on each WAF
/// and on the gain. `route(separated)` gives each class's write point in the engine (the
/// slot its stream id selects; the drive's fill went through slot 0).
fn case(
    name: &str,
    layout: &dyn Fn(bool) -> String,
    route: &dyn Fn(bool) -> Vec<usize>,
    gc_shared: bool,
    classes: &[(f64, u32)],
    blocks: usize,
    pages: usize,
) {
    let (ramp, runtime) = ("60s", "60s");
    let (mixed, shares, logical) = engine(layout(false), classes, ramp, runtime);
    let (separated, shares2, _) = engine(layout(true), classes, ramp, runtime);
    eprintln!("{name}: write shares {shares:.3?} mixed, {shares2:.3?} separated");
    let model_classes = |s: &[f64]| -> Vec<(u64, f64)> {
        classes
            .iter()
            .zip(s)
            .map(|((share, _), w)| (((logical as f64) * share).round() as u64, *w))
            .collect()
    };
    let m_mixed = model_waf(&model_classes(&shares), &route(false), gc_shared, blocks, pages, 11);
    let m_sep = model_waf(&model_classes(&shares2), &route(true), gc_shared, blocks, pages, 11);
    compare(&format!("{name}, mixed"), mixed, m_mixed);
    compare(&format!("{name}, separated"), separated, m_sep);
    let (gain, m_gain) = (1.0 - separated / mixed, 1.0 - m_sep / m_mixed);
    eprintln!(
        "{name}: separation lowers WAF by {:.1} % (model {:.1} %)",
        gain * 100.0,
        m_gain * 100.0
    );
    assert!(
        (gain - m_gain).abs() <= 0.02,
        "{name}: gain {gain:.3} against {m_gain:.3}"
    );
}

#[test]
fn per_block_greedy_separation_matches_the_model() {
    // One plane of 1024 blocks × 32 pages, 28 % spare (enough blocks that the few held open
    // or free barely change the spare: the model is then within 1 % of the mean field):
    // hot 10 % of the space taking about 90 % of the writes (queue depth 9 against 1), FIO's
    // four files (1:10:30:64) taking equal bytes (equal depths).
    let (blocks, pages) = (1024u32, 32u32);
    let op = 0.28;
    // Stream id s goes to frontier s mod 4 (mixed: one frontier).
    let layout = |sep: bool| drive(1, 1, blocks, pages, op, "plane", if sep { 4 } else { 1 });
    let route2 = |sep: bool| if sep { vec![1, 2] } else { vec![0, 0] };
    let route4 = |sep: bool| if sep { vec![1, 2, 3, 0] } else { vec![0; 4] };
    case(
        "per-block greedy, 90/10 hot/cold",
        &layout,
        &route2,
        false,
        &[(0.1, 9), (0.9, 1)],
        blocks as usize,
        pages as usize,
    );
    let total = 105.0;
    case(
        "per-block greedy, FIO 1:10:30:64",
        &layout,
        &route4,
        false,
        &[
            (1.0 / total, 2),
            (10.0 / total, 2),
            (30.0 / total, 2),
            (64.0 / total, 2),
        ],
        blocks as usize,
        pages as usize,
    );
}

#[test]
fn whole_superblock_separation_matches_the_model_with_superblock_sized_blocks() {
    // 2 channels × 2 ways: a full-width superblock is 4 blocks, collected whole: the model's
    // blocks are 4 × 32 pages.
    let (blocks, pages) = (512u32, 32u32);
    let op = 0.28;
    // Multi-Stream: stream id s (≥ 1) to slot s − 1; baseline: every write to slot 0.
    let route = |sep: bool| if sep { vec![0, 1] } else { vec![0, 0] };
    let layout = |sep: bool| {
        let policy = if sep { "multi-stream" } else { "baseline" };
        drive(2, 2, blocks, pages, op, policy, 1)
    };
    case(
        "whole superblocks, 90/10 hot/cold",
        &layout,
        &route,
        false,
        &[(0.1, 9), (0.9, 1)],
        blocks as usize,
        4 * pages as usize,
    );
}

#[test]
fn the_model_matches_the_mean_field_greedy_waf_on_uniform_writes() {
    // The model itself against an independent reference (Van Houdt's mean field, which the
    // engine matches within 3 % in tests/validation.rs): uniform random overwrites.
    for (blocks, pages) in [(1024usize, 32usize), (512, 64)] {
        let logical = ((blocks * pages) as f64 / 1.28).floor() as u64;
        let m = model_waf(&[(logical, 1.0)], &[0], false, blocks, pages, 11);
        let a = ssdlab_core::analytic::greedy_waf((blocks * pages) as f64 / logical as f64, pages);
        eprintln!("uniform, {blocks} blocks of {pages}: model {m:.3}, mean field {a:.3}");
        assert!((m / a - 1.0).abs() <= 0.03, "{m} against {a}");
    }
}

#[test]
fn uniform_writes_agree_with_the_gc_frontier_shared_or_separate() {
    // One class: GC survivors into the host's write point or one of their own give the same
    // WAF in the engine and the model. (With hot and cold classes mixed, the model's shared
    // frontier gives 3.18 where the engine gives 2.81, about its separate-frontier 2.80: a
    // difference not yet explained, so not asserted; docs/experiments/plan.md.)
    let (blocks, pages) = (1024u32, 32u32);
    for gc in ["separate", "shared"] {
        let text = drive(1, 1, blocks, pages, 0.28, "plane", 1)
            .replace("gc_frontier = \"separate\"", &format!("gc_frontier = \"{gc}\""));
        let (w, _, logical) = engine(text, &[(1.0, 1)], "60s", "60s");
        let m = model_waf(
            &[(logical, 1.0)],
            &[0],
            gc == "shared",
            blocks as usize,
            pages as usize,
            11,
        );
        compare(&format!("uniform, {gc} GC frontier"), w, m);
    }
}
