//! Seed 000: RODI, read-only data isolation across heterogeneous SATA SSDs, against RAID 0.
//!
//! Drives: the presets of the seed's Table 1 (`samsung-830`, `samsung-850pro`, `intel-530`,
//! `ocz-vector150`), built from their parts and preconditioned as used drives (their presets'
//! `[precondition]`: 90 % written).
//!
//! Section 3: each drive is characterized (`array::characterize`): mixed reads and writes by
//! read share (0–100 % in 5 % steps), request size (2, 8, 32 MiB), queue depth (2, 4, 8) and
//! pattern over a 20 GiB range, and its read-only gain P = RT − AT laid out as Tables 2 and 3.
//!
//! Section 5: the array of the 850, the 530 and the OCZ (the seed's three SATA ports), 20 GiB
//! of data, two requests outstanding per drive:
//! - RAID 0: Windows software RAID 0 (64 KiB stripes), one job of `R` % reads at depth 6.
//! - RODI with n read-only drives (the OCZ; or the OCZ and the 530 as section 5.1 says; or the
//!   OCZ and the 850 as section 5.2 says): the first n/3 of the data is read-only and lives on
//!   the read-only drives, read by a job at depth 2n; the rest is striped over the other
//!   drives and mixed by a job at depth 2(3 − n) whose read share makes the volume's `R` when
//!   every drive serves the same share of requests (section 5.1: (R·3 − n)/(3 − n), rounded
//!   to a whole percent as Iometer takes it).
//!
//! The throughput is the jobs' bytes over their run time. Beside each simulated array, the
//! section 4 model from the characterized curves: TP_RAID = 3·TP0 (the slowest drive at `R`),
//! TP_RODI = n·TP1 + (3 − n)·TP2.

use super::{
    Analysis, Claim, Condition, Experiment, Figure, Point, PointResult, Rule, Scale, Series, Work, MIN_EFFECT,
};
use crate::array::profile::{DeviceProfile, Pattern};
use crate::array::rodi::{self, Curve};
use crate::characterize::Sweep;
use crate::Result;
use std::path::Path;

/// The tolerance policy's ±25 % (docs/experiments/README.md).
const TOLERANCE: f64 = 0.25;
const TOL: Rule = Rule::Relative { tolerance: TOLERANCE };

pub struct Rodi;

/// The other reading of the two read-only drives behind the 670 MB/s figure: section 5.1's
/// pair (label, what).
const PAIR_530: (&str, &str) = (
    "pair-530",
    "two read-only drives: section 5.1's pair, the OCZ and the 530",
);
/// The other reading of Windows' striping: one member request per 64 KiB stripe unit.
const PER_UNIT: (&str, &str) = (
    "per-unit",
    "RAID 0 and RODI's member requests one per 64 KiB stripe unit (array.merge_parts = false)",
);
/// The other reading of the drives' state, for the OCZ (whose pseudo-SLC mode makes its state
/// matter): only the seed's 20 GiB Iometer file written, below the mode's fold threshold.
const OCZ_FRESH: (&str, &str) = (
    "ocz-fresh",
    "the OCZ with only the 20 GiB Iometer file written (precondition.utilisation = 0.1795), its tables' claims",
);
/// That state's share of the OCZ written: 20 GiB of its 120 GB (111.76 GiB), with its preset's
/// 90 % for a used drive the claims' reading.
const OCZ_FRESH_UTILISATION: f64 = 0.1795;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The drives: (the seed's name, preset).
const DRIVES: [(&str, &str); 4] = [
    ("830", "samsung-830"),
    ("850", "samsung-850pro"),
    ("530", "intel-530"),
    ("OCZ", "ocz-vector150"),
];

/// The array's drives, in member order (the seed's section 5.1).
const ARRAY: [&str; 3] = ["850", "530", "OCZ"];

/// Layouts: (name, read-only drives).
const LAYOUTS: [(&str, &[&str]); 4] = [
    ("raid0", &[]),
    ("rodi-1", &["OCZ"]),
    ("rodi-2-530", &["OCZ", "530"]),
    ("rodi-2-850", &["OCZ", "850"]),
];

/// Data of the array (the seed's Iometer working set).
const DATA: u64 = 20 * GIB;

/// The seed's Tables 2 (sequential) and 3 (random): read-only gain by drive, depth (rows
/// 2, 4, 8) and size (columns 2, 8, 32 MiB).
/// A table: per drive, gains by depth (rows) and size (columns).
type Table = [(&'static str, [[f64; 3]; 3]); 4];

const TABLES: [(Pattern, Table); 2] = [
    (
        Pattern::Sequential,
        [
            (
                "830",
                [
                    [103.86, 105.28, 108.24],
                    [115.62, 111.20, 109.37],
                    [126.74, 110.15, 111.45],
                ],
            ),
            (
                "850",
                [[42.93, 47.37, 39.80], [53.01, 45.29, 40.29], [55.22, 42.95, 39.78]],
            ),
            (
                "530",
                [[13.86, 15.26, 15.13], [16.33, 15.33, 16.46], [15.80, 16.50, 12.02]],
            ),
            (
                "OCZ",
                [
                    [192.38, 182.79, 181.06],
                    [191.82, 197.57, 174.02],
                    [198.21, 202.85, 201.37],
                ],
            ),
        ],
    ),
    (
        Pattern::Random,
        [
            (
                "830",
                [
                    [105.46, 111.73, 103.61],
                    [111.73, 112.28, 108.51],
                    [111.43, 111.72, 111.90],
                ],
            ),
            (
                "850",
                [[79.15, 50.34, 39.51], [72.59, 49.25, 39.40], [72.12, 46.78, 45.15]],
            ),
            (
                "530",
                [[54.01, 44.93, 55.15], [27.95, 38.41, 48.64], [26.19, 36.45, 45.70]],
            ),
            (
                "OCZ",
                [
                    [192.64, 201.09, 204.81],
                    [191.60, 203.95, 203.89],
                    [181.97, 215.10, 210.74],
                ],
            ),
        ],
    ),
];

const SIZES: [u64; 3] = [2 * MIB, 8 * MIB, 32 * MIB];
const DEPTHS: [u32; 3] = [2, 4, 8];

fn preset(drive: &str) -> &'static str {
    DRIVES.iter().find(|d| d.0 == drive).expect("a drive").1
}

fn pattern_name(p: Pattern) -> &'static str {
    match p {
        Pattern::Sequential => "seq",
        Pattern::Random => "rand",
    }
}

/// The panels of Figures 5–8: (pattern, request size).
fn panels(scale: Scale) -> Vec<(Pattern, u64)> {
    match scale {
        Scale::Full => [Pattern::Sequential, Pattern::Random]
            .iter()
            .flat_map(|&p| SIZES.iter().map(move |&s| (p, s)))
            .collect(),
        Scale::Quick => vec![(Pattern::Sequential, 2 * MIB)],
    }
}

/// Volume read shares (%) swept for a layout with `n` read-only drives: from the least they
/// allow (n/3, rounded up to 5 %) to 100 %.
fn shares(scale: Scale, n: usize) -> Vec<u32> {
    let from = if n == 2 { 70 } else { 35 };
    match scale {
        Scale::Full => (from..=100).step_by(5).collect(),
        Scale::Quick => vec![from, 85, 100],
    }
}

/// Simulated run time of an array point.
fn runtime(scale: Scale) -> &'static str {
    match scale {
        Scale::Full => "1s",
        Scale::Quick => "300ms",
    }
}

fn sweep(scale: Scale) -> Sweep {
    match scale {
        Scale::Full => Sweep::seed_000(),
        Scale::Quick => Sweep::quick(),
    }
}

/// The smallest of `v`: NaN when `v` is empty or holds a NaN (a claim on it then fails).
fn least(v: impl IntoIterator<Item = f64>) -> f64 {
    let mut m: Option<f64> = None;
    for x in v {
        if x.is_nan() {
            return f64::NAN;
        }
        m = Some(m.map_or(x, |m| m.min(x)));
    }
    m.unwrap_or(f64::NAN)
}

fn size_name(bs: u64) -> String {
    format!("{}MiB", bs / MIB)
}

/// The read share (%) of the mixed drives for a volume read share `r` % with `n` of 3 drives
/// read-only, rounded half up to a whole percent: (3r − 100n) / (3 − n), in integers (2.5 %
/// is 3 %, not the 2 that floating point's 2.4999… would round to).
fn mixed_share(r: u32, n: usize) -> u32 {
    rodi::mixed_read_share(r as f64 / 100.0, n, 3).expect("a share the layout allows");
    let (num, den) = (3 * r - 100 * n as u32, 3 - n as u32);
    (2 * num + den) / (2 * den)
}

/// The run file of an array point.
///
/// `merge`: whether a member's pieces of one request travel as one member request (the claims'
/// choice) or one per 64 KiB stripe unit (`array.merge_parts`); how Windows' software RAID
/// issues them is not documented, so the 35 % points run both.
fn array_config(ro: &[&str], pattern: Pattern, bs: u64, r: u32, scale: Scale, merge: bool) -> String {
    let mut t = format!(
        "[array]\nlayout = \"{}\"\nstripe_unit = \"64KiB\"\nmerge_parts = {merge}\n",
        if ro.is_empty() { "raid0" } else { "rodi" }
    );
    for d in ARRAY {
        t += &format!(
            "[[array.member]]\nname = \"{d}\"\npreset = \"{}\"\nprecondition = \"own\"\nreadonly = {}\n",
            preset(d),
            ro.contains(&d)
        );
    }
    let (rw, read) = match pattern {
        Pattern::Sequential => ("rw", "read"),
        Pattern::Random => ("randrw", "randread"),
    };
    let common = format!(
        "bs = \"{}\"\nruntime = \"{}\"\ntime_based = true\n",
        size_name(bs),
        runtime(scale)
    );
    if ro.is_empty() {
        t += &format!(
            "[[job]]\nname = \"raid0\"\nrw = \"{rw}\"\nrwmixread = {r}\niodepth = 6\nsize = \"{}MiB\"\n{common}",
            DATA / MIB
        );
    } else {
        let n = ro.len();
        let ro_bytes = DATA / MIB * n as u64 / 3;
        t += &format!(
            "[[job]]\nname = \"readonly\"\nrw = \"{read}\"\nreadonly = true\niodepth = {}\nsize = \"{ro_bytes}MiB\"\n{common}",
            2 * n
        );
        t += &format!(
            "[[job]]\nname = \"mixed\"\nrw = \"{rw}\"\nrwmixread = {}\niodepth = {}\noffset = \"{ro_bytes}MiB\"\nsize = \"{}MiB\"\n{common}",
            mixed_share(r, n),
            2 * (3 - n),
            DATA / MIB - ro_bytes
        );
    }
    t
}

fn point_id(layout: &str, pattern: Pattern, bs: u64, r: u32) -> String {
    format!("{layout}/{}/{}/read={r}", pattern_name(pattern), size_name(bs))
}

/// Total throughput of an array point, MB/s: its jobs' reads and writes.
fn mb_s(p: &PointResult) -> f64 {
    p.metric("read_mb_s") + p.metric("write_mb_s")
}

/// Tables 2 and 3 as bar charts: each drive and depth a category, each request size's gain
/// ours beside the seed's.
fn table_figures<'a>(profile: &dyn Fn(&str) -> &'a DeviceProfile) -> Vec<Figure> {
    let mut figures = Vec::new();
    for (n, (pattern, table)) in TABLES.iter().enumerate() {
        let mut categories = Vec::new();
        let mut cells = Vec::new();
        for (d, rows) in table {
            for (di, &depth) in DEPTHS.iter().enumerate() {
                let ours: Vec<Option<f64>> = SIZES
                    .iter()
                    .map(|&bs| Some(profile(d).curve(*pattern, bs, depth).ok()?.readonly_gain()))
                    .collect();
                // Only the cells the sweep measured (the quick sweep has fewer).
                if ours.iter().any(|g| g.is_some()) {
                    categories.push(format!("{d} d={depth}"));
                    cells.push((ours, rows[di]));
                }
            }
        }
        let mut series = Vec::new();
        for (si, &bs) in SIZES.iter().enumerate() {
            let at = |f: &dyn Fn(usize) -> Option<f64>| -> Vec<(f64, f64)> {
                (0..cells.len()).filter_map(|i| Some((i as f64, f(i)?))).collect()
            };
            let ours = at(&|i| cells[i].0[si]);
            if ours.is_empty() {
                continue;
            }
            series.push(Series {
                name: format!("{} ssdlab", size_name(bs)),
                points: ours,
            });
            series.push(Series {
                name: format!("{} seed", size_name(bs)),
                points: at(&|i| Some(cells[i].1[si])),
            });
        }
        if categories.is_empty() {
            continue;
        }
        figures.push(Figure {
            id: format!("table{}-{}", n + 2, pattern_name(*pattern)),
            title: format!(
                "Table {}: read-only gain P = RT − AT ({}), ssdlab beside the seed",
                n + 2,
                if n == 0 { "sequential" } else { "random" }
            ),
            x_label: "drive and queue depth".into(),
            y_label: "MB/s".into(),
            log_x: false,
            series,
            categories,
        });
    }
    figures
}

/// The claims on Tables 2 and 3 from the drives' characterizations (`profile` of a drive).
fn table_claims<'a>(profile: &dyn Fn(&str) -> &'a DeviceProfile) -> Vec<Claim> {
    let mut claims = Vec::new();
    // Tables 2 and 3.
    let ours = |d: &str, pattern: Pattern, bs: u64, depth: u32| -> Option<f64> {
        Some(profile(d).curve(pattern, bs, depth).ok()?.readonly_gain())
    };
    for (d, _) in DRIVES {
        let seed = TABLES[0].1.iter().find(|t| t.0 == d).expect("a drive").1[0][1];
        let row = match d {
            "830" => "表 2 纯读负载时带来的只读收益(顺序 I/O)…固态硬盘名称(粒度) 2MB 8MB 32MB…SSD-830($d=2$) 103.86 105.28 108.24", // source
            "850" => "表 2 纯读负载时带来的只读收益(顺序 I/O)…固态硬盘名称(粒度) 2MB 8MB 32MB…SSD-850($d=2$) 42.93 47.37 39.80", // source
            "530" => "表 2 纯读负载时带来的只读收益(顺序 I/O)…固态硬盘名称(粒度) 2MB 8MB 32MB…SSD-530($d=2$) 13.86 15.26 15.13", // source
            _ => "表 2 纯读负载时带来的只读收益(顺序 I/O)…固态硬盘名称(粒度) 2MB 8MB 32MB…SSD-OCZ($d=2$) 192.38 182.79 181.06", // source
        };
        claims.push(
            Claim::new(
                &format!("table2/{d}-8MiB-d2"),
                &format!("SSD-{d}'s read-only gain, 8 MiB sequential, depth 2"),
                seed,
                ours(d, Pattern::Sequential, 8 * MIB, 2).unwrap_or(f64::NAN),
                "MB/s",
                TOL,
                "P = RT − AT from the drive's characterization".into(),
            )
            .source(row),
        );
    }
    // Section 3.3 on Tables 2 and 3: "只读收益均为正数" (every read-only gain positive),
    // "SSD-OCZ 和 SSD-830 ... 均具有较好的只读收益" (the OCZ and the 830 the best), and
    // "不同的读写粒度对 SSD 只读收益的影响不大" with section 3.2's "队列深度变化对固态硬盘的
    // 吞吐量影响不大" (size and depth change little).
    // Every swept cell of the tables: (the seed's gains, ours), drive by drive.
    let mut swept: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for (pattern, table) in TABLES {
        for (di, &depth) in DEPTHS.iter().enumerate() {
            for (si, &bs) in SIZES.iter().enumerate() {
                if let Some(g) = DRIVES
                    .iter()
                    .map(|(d, _)| ours(d, pattern, bs, depth))
                    .collect::<Option<Vec<f64>>>()
                {
                    swept.push((table.iter().map(|t| t.1[di][si]).collect(), g));
                }
            }
        }
    }
    // The minimum effect of the tables' directions: 1 % of the smallest read-only
    // throughput (RT) of a drive over the swept cells.
    let mut rts = Vec::new();
    for (pattern, _) in TABLES {
        for &depth in &DEPTHS {
            for &bs in &SIZES {
                for (d, _) in DRIVES {
                    if let Ok(c) = profile(d).curve(pattern, bs, depth) {
                        rts.push(c.at(1.0));
                    }
                }
            }
        }
    }
    let table_effect = MIN_EFFECT * least(rts);
    let (mut cells, mut positive, mut gains, mut best_two) = (0usize, 0usize, 0usize, 0usize);
    let at = |name: &str| DRIVES.iter().position(|d| d.0 == name).expect("a drive");
    let (ocz, s830) = (at("OCZ"), at("830"));
    // The lead of the OCZ and the 830 over the other two drives, cell by cell.
    let mut leads = Vec::new();
    for (_, g) in &swept {
        cells += 1;
        gains += g.len();
        positive += g.iter().filter(|x| **x > 0.0).count();
        let mut order: Vec<usize> = (0..g.len()).collect();
        order.sort_by(|&a, &b| g[b].total_cmp(&g[a]));
        let top: Vec<&str> = order[..2].iter().map(|&i| DRIVES[i].0).collect();
        best_two += (top.contains(&"OCZ") && top.contains(&"830")) as usize;
        let rest = (0..g.len())
            .filter(|&i| i != ocz && i != s830)
            .map(|i| g[i])
            .fold(f64::NEG_INFINITY, f64::max);
        leads.push(if g.iter().any(|x| x.is_nan()) {
            f64::NAN
        } else {
            g[ocz].min(g[s830]) - rest
        });
    }
    claims.push(
        Claim::new(
            "tables/all-positive",
            "Tables 2 and 3: every read-only gain is positive",
            0.0,
            least(swept.iter().flat_map(|(_, g)| g.iter().copied())),
            "MB/s (smallest gain)",
            Rule::ABOVE,
            format!("the smallest gain of the swept cells; {positive} of {gains} (drive, cell) gains above 0"),
        )
        .source("在大粒度的场景下,所有实验的固态硬盘都呈现出一种较为一致的规律,即只读收益均为正数")
        .min_effect(table_effect),
    );
    claims.push(
        Claim::new(
            "tables/ocz-830-best",
            "Tables 2 and 3: the OCZ and the 830 have the largest read-only gains, sequential and random",
            0.0,
            least(leads.iter().copied()),
            "MB/s (smallest lead)",
            Rule::ABOVE,
            format!(
                "the smallest lead of the lesser of the OCZ and the 830 over the better of the 850 and the 530, over the swept cells; {best_two} of {cells} cells with the OCZ and the 830 as the two largest gains"
            ),
        )
        .source("从表中数据可以看到,SSD-OCZ 和 SSD-830 无论在顺序 I/O 还是在随机 I/O 下均具有较好的只读收益")
        .min_effect(table_effect),
    );
    // Little effect: the largest relative spread of a drive's gain over the sizes (at depth
    // 2) or the depths (at a size) swept, at most the policy's 25 % or, where the seed's
    // own gains over the same cells spread wider, the seed's spread.
    let spread = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(*x), h.max(*x)));
        if hi > 0.0 {
            (hi - lo) / hi
        } else {
            f64::NAN
        }
    };
    for (id, text, quote, by_size) in [
        (
            "tables/size-little-effect",
            "the request size changes a drive's read-only gain little (Tables 2 and 3, depth 2)",
            "不同的读写粒度对 SSD 只读收益的影响不大",
            true,
        ),
        (
            "tables/depth-little-effect",
            "the queue depth changes a drive's read-only gain little (section 3.2: the drives' trends do not depend on the depth; Tables 2 and 3)",
            "4 块固态硬盘吞吐性能变化趋势不受队列深度的影响…因此在大粒度场景下,队列深度变化对固态硬盘的吞吐量影响不大",
            false,
        ),
    ] {
        // Groups of (depth index, size index) cells over which a gain should stay put.
        let groups: Vec<Vec<(usize, usize)>> = if by_size {
            vec![(0..SIZES.len()).map(|si| (0, si)).collect()]
        } else {
            (0..SIZES.len())
                .map(|si| (0..DEPTHS.len()).map(|di| (di, si)).collect())
                .collect()
        };
        let (mut worst, mut seed_worst): (Option<f64>, f64) = (None, 0.0);
        for (pattern, table) in TABLES {
            for (d, rows) in table {
                for group in &groups {
                    let (seed_gains, our_gains): (Vec<f64>, Vec<f64>) = group
                        .iter()
                        .filter_map(|&(di, si)| Some((rows[di][si], ours(d, pattern, SIZES[si], DEPTHS[di])?)))
                        .unzip();
                    if our_gains.len() >= 2 {
                        let x = spread(&our_gains);
                        worst = Some(worst.map_or(x, |w: f64| w.max(x)));
                        seed_worst = seed_worst.max(spread(&seed_gains));
                    }
                }
            }
        }
        if let Some(w) = worst {
            let bound = TOLERANCE.max(seed_worst);
            // The presets' commands in service (queue_depth = 2) are derived from this very
            // sentence of section 3.2, which makes depths 2, 4 and 8 alike: a check.
            let built_in = !by_size;
            let c = Claim::new(
                    id,
                    text,
                    bound,
                    w,
                    "largest (max − min) / max",
                    Rule::AtMost,
                    format!(
                        "the seed's \"影响不大\" (little effect) read as the tolerance policy's 25 %, or the seed's own largest spread over the same cells where wider ({:.0} %)",
                        100.0 * seed_worst
                    ),
                )
                .source(quote);
            claims.push(if built_in { c.check() } else { c });
        }
    }
    // The order of the drives in every cell of the tables that was swept, for the pairs the
    // seed's own figures separate by more than the tolerance (cells 0.55 MB/s apart are
    // ties within the seed's measurement): the smallest difference in the seed's direction.
    let (mut pairs, mut same) = (0, 0);
    let mut margins = Vec::new();
    for (seed, g) in &swept {
        for i in 0..seed.len() {
            for j in i + 1..seed.len() {
                let (a, b) = (seed[i], seed[j]);
                if (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()) {
                    continue;
                }
                pairs += 1;
                same += ((g[i] - g[j]) * (a - b) > 0.0) as usize;
                margins.push((g[i] - g[j]) * (a - b).signum());
            }
        }
    }
    claims.push(
        Claim::new(
            "tables/order",
            "Tables 2 and 3: of two drives whose read-only gains the seed separates by more than 25 %, the larger is the seed's larger, in every cell",
            0.0,
            least(margins.iter().copied()),
            "MB/s (smallest difference in the seed's direction)",
            Rule::ABOVE,
            format!("{same} of {pairs} (cell, pair of drives) ordered as the seed orders them"),
        )
        .source("表 2 纯读负载时带来的只读收益(顺序 I/O)…表 3 纯读负载时时带来的只读收益(随机 I/O)")
        .min_effect(table_effect),
    );
    claims
}

impl Experiment for Rodi {
    fn name(&self) -> &'static str {
        "rodi"
    }
    fn title(&self) -> &'static str {
        "RODI: read-only data isolation on heterogeneous SATA SSDs against RAID 0"
    }
    fn seed_document(&self) -> &'static str {
        "000_ae5ab6a51a4d6f1c.txt"
    }
    fn scale_note(&self, scale: Scale) -> String {
        let s = sweep(scale);
        format!(
            "Drives: the presets samsung-830, samsung-850pro, intel-530, ocz-vector150 (built from their parts, REFERENCES.md §1), each preconditioned as its preset says (90 % written, a used drive). Characterization: {} points per drive ({} bytes per point over a {} GiB range). Arrays: the 850, 530 and OCZ, 20 GiB of data, 64 KiB stripes, 2 requests per drive, {} simulated per point, {} panel(s). The seed measured real drives under Windows with Iometer; its drives' firmware is not public, so the curves come from the presets' parameters.",
            s.points().len(),
            s.per_point,
            s.range / GIB,
            runtime(scale),
            panels(scale).len()
        )
    }
    fn points(&self, scale: Scale) -> Result<Vec<Point>> {
        let mut points = Vec::new();
        for (name, p) in DRIVES {
            let base = crate::config::load_config(p)?;
            points.push(Point {
                id: format!("characterize/{name}"),
                labels: vec![("drive".into(), name.into())],
                work: Work::Profile {
                    base: Box::new(base),
                    sweep: sweep(scale),
                },
            });
        }
        // The OCZ in the other reading of its state (`OCZ_FRESH`).
        let base = crate::config::load_config_with(
            preset("OCZ"),
            &[format!("precondition.utilisation={OCZ_FRESH_UTILISATION}")],
        )?;
        points.push(Point {
            id: "characterize/OCZ/fresh".into(),
            labels: vec![("drive".into(), "OCZ-fresh".into())],
            work: Work::Profile {
                base: Box::new(base),
                sweep: sweep(scale),
            },
        });
        for (pattern, bs) in panels(scale) {
            // The other reading of Windows' striping at the headline share: one member request
            // per stripe unit (`-per-unit`).
            let per_unit = LAYOUTS[..2].iter().map(|&(l, ro)| (l, ro, 35, false));
            let all = LAYOUTS
                .iter()
                .flat_map(|&(l, ro)| shares(scale, ro.len()).into_iter().map(move |r| (l, ro, r, true)));
            for (layout, ro, r, merge) in all.chain(per_unit) {
                let text = array_config(ro, pattern, bs, r, scale, merge);
                let layout = if merge {
                    layout.to_string()
                } else {
                    format!("{layout}-per-unit")
                };
                let layout = layout.as_str();
                let cfg = crate::config::parse_config(&text, &format!("experiment rodi {layout}"), Path::new("."))?;
                let mut labels = vec![
                    ("layout".to_string(), layout.to_string()),
                    ("pattern".into(), pattern_name(pattern).into()),
                    ("bs".into(), size_name(bs)),
                    ("read_share".into(), r.to_string()),
                ];
                if !ro.is_empty() {
                    labels.push(("mixed_read_share".into(), mixed_share(r, ro.len()).to_string()));
                }
                points.push(Point {
                    id: point_id(layout, pattern, bs, r),
                    labels,
                    work: Work::Ssd(Box::new(cfg)),
                });
            }
        }
        Ok(points)
    }
    fn conditions(&self) -> Vec<Condition> {
        vec![
            Condition {
                name: "the two read-only drives behind \"吞吐量最大提升670MB/s\"".into(),
                used: "the OCZ and the 850 (layout rodi-2-850)".into(),
                source: "The seed names both pairs: section 5.1 \"若采用 2 个只读盘,则选取只读收益较高的 SSD-OCZ 和 SSD-530\", section 5.2 \"图7与图8中使用了2块只读盘SSD-850和SSD-OCZ,SSD-530用于混合读写\". The 670 MB/s sentence follows the second in the same paragraph, on Figures 7 and 8, so the claim reads that pair.".into(),
                open: true,
                others: vec![(PAIR_530.0.into(), PAIR_530.1.into())],
            },
            Condition {
                name: "how Windows' software RAID issues a member's pieces of one request".into(),
                used: "as one member request (array.merge_parts = true)".into(),
                source: "The seed is silent and Windows' striping is not documented. Merging is what a striping driver that splits a request by member does; one request per 64 KiB stripe unit is the other reading, run at the 35 % points the claims read.".into(),
                open: true,
                others: vec![(PER_UNIT.0.into(), PER_UNIT.1.into())],
            },
            Condition {
                name: "the drives' state".into(),
                used: "used drives, 90 % written, as each preset says (the OCZ past its pseudo-SLC fold threshold)".into(),
                source: "The seed is silent (its drives were \"in use\" only in the sense that it measured them; configs/ocz-vector150.toml). A used drive is the steady state a measurement of drives in service meets. The other reading, only the seed's 20 GiB Iometer file written, matters for the OCZ alone (the others have no performance mode) and is run for its characterization: the tables' claims. The arrays are not run again under it.".into(),
                open: true,
                others: vec![(OCZ_FRESH.0.into(), OCZ_FRESH.1.into())],
            },
            Condition {
                name: "the data the 530 compresses".into(),
                used: "Iometer 1.1.0's default, repeating bytes (device.ftl.compression = 0.1)".into(),
                source: "The seed measured with Iometer (\"Iometer\"); Iometer 1.1.0, current when the seed was written, writes repeating bytes by default (configs/intel-530.toml cites the source). Changed in issue 30 after the results were seen: rodi 7 of 14 then, 12 of 13 after, with issue 30's other changes.".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "commands a drive works on at once".into(),
                used: "2 (queue_depth = 2 in every preset)".into(),
                source: "\"新一代固态硬盘开始支持内部并行性以及 NCQ 技术\" (more than one) and \"队列深度为 2,4,8 时均表现相近的吞吐性能\" (no more than the smallest depth measured); configs/ocz-vector150.toml.".into(),
                open: false,
                others: vec![],
            },
        ]
    }
    fn analyse(&self, scale: Scale, runs: &[PointResult]) -> Analysis {
        let mut claims = Vec::new();
        let mut figures = Vec::new();
        let profile = |drive: &str| -> &DeviceProfile {
            runs.iter()
                .find(|p| p.label("drive") == Some(drive))
                .and_then(|p| p.result.profile())
                .expect("a characterization per drive")
        };
        let get = |layout: &str, pattern: Pattern, bs: u64, r: u32| -> Option<f64> {
            let id = point_id(layout, pattern, bs, r);
            runs.iter().find(|p| p.id == id).map(mb_s)
        };
        let s = sweep(scale);
        // The curves of the array's drives for a panel (depth 2 per drive, as the arrays).
        let curves = |pattern: Pattern, bs: u64| -> Vec<Curve> {
            ARRAY.iter().map(|d| profile(d).curve_at(pattern, bs, 2)).collect()
        };
        let idx = |d: &str| ARRAY.iter().position(|a| *a == d).expect("an array drive");
        // Figures 5–8 with the model beside the simulation.
        for (pattern, bs) in panels(scale) {
            let c = curves(pattern, bs);
            let mut one = Vec::new();
            let mut two = Vec::new();
            for (layout, ro) in LAYOUTS {
                let rs = shares(scale, ro.len());
                let sim = Series {
                    name: format!("{layout} (simulated)"),
                    points: rs
                        .iter()
                        .filter_map(|&r| Some((r as f64, get(layout, pattern, bs, r)?)))
                        .collect(),
                };
                let ro_idx: Vec<usize> = ro.iter().map(|d| idx(d)).collect();
                let model = Series {
                    name: format!("{layout} (section 4 model)"),
                    points: rs
                        .iter()
                        .filter_map(|&r| {
                            let m =
                                rodi::model(&c, if ro.is_empty() { &[2] } else { &ro_idx }, r as f64 / 100.0).ok()?;
                            Some((r as f64, if ro.is_empty() { m.raid0 } else { m.rodi }))
                        })
                        .collect(),
                };
                match ro.len() {
                    0 => {
                        one.push(sim.clone());
                        one.push(model.clone());
                        two.push(Series {
                            name: sim.name,
                            points: sim.points.into_iter().filter(|p| p.0 >= 70.0).collect(),
                        });
                    }
                    1 => {
                        one.push(sim);
                        one.push(model);
                    }
                    _ => {
                        two.push(sim);
                        two.push(model);
                    }
                }
            }
            let (fig_one, fig_two) = match pattern {
                Pattern::Sequential => (5, 7),
                Pattern::Random => (6, 8),
            };
            for (no, series, what) in [
                (fig_one, one, "1 read-only drive (OCZ)"),
                (fig_two, two, "2 read-only drives"),
            ] {
                figures.push(Figure {
                    id: format!("fig{no}-{}-{}", pattern_name(pattern), size_name(bs)),
                    title: format!(
                        "RAID 0 and RODI with {what}: 850 + 530 + OCZ, {} {}, depth 2 per drive",
                        pattern_name(pattern),
                        size_name(bs)
                    ),
                    x_label: "read share of the array (%)".into(),
                    y_label: "throughput (MB/s)".into(),
                    log_x: false,
                    series,
                    categories: Vec::new(),
                });
            }
        }
        // Figures 1–4: the drives' curves at depth 2, by pattern and size.
        for &pattern in &s.patterns {
            for &bs in &s.sizes {
                figures.push(Figure {
                    id: format!("fig1-4-{}-{}-d2", pattern_name(pattern), size_name(bs)),
                    title: format!(
                        "Throughput against read share, {} {}, depth 2",
                        pattern_name(pattern),
                        size_name(bs)
                    ),
                    x_label: "read share (%)".into(),
                    y_label: "throughput (MB/s)".into(),
                    log_x: false,
                    series: DRIVES
                        .iter()
                        .filter_map(|(d, _)| {
                            let c = profile(d).curve(pattern, bs, 2).ok()?;
                            Some(Series {
                                name: format!("SSD-{d}"),
                                points: c.points.iter().map(|&(r, t)| (100.0 * r, t)).collect(),
                            })
                        })
                        .collect(),
                    categories: Vec::new(),
                });
            }
        }
        let ps = panels(scale);
        let lo = shares(scale, 1)[0];
        // The headline figures and the shape at 35 % reads, for the RAID 0 and RODI layouts
        // named (merged member requests, or one per stripe unit).
        let headline = |raid: &str, rodi1: &str| -> Vec<Claim> {
            let mut claims = Vec::new();
            let seq2 = (Pattern::Sequential, 2 * MIB);
            let (raid35, rodi35) = (get(raid, seq2.0, seq2.1, 35), get(rodi1, seq2.0, seq2.1, 35));
            claims.push(Claim::new(
                "array/raid0-35-2MiB-seq",
                "RAID 0 of the 850, 530 and OCZ at 35 % reads, 2 MiB sequential: 836 MB/s",
                836.0,
                raid35.unwrap_or(f64::NAN),
                "MB/s",
                TOL,
                "simulated; 20 GiB of data, depth 6".into(),
            )
            .source("图 5 示出了采用 1 块只读盘 SSD-OCZ 和 2 块读写混合盘 SSD-530 和 SSD-850,在顺序 I/O 负载下开展的实验结果。图 5(a)示出了在 2MB 粒度时,在读请求比例是 35%的负载下,采用 RODI 方法前阵列整体吞吐量是 836MB/s"));
            claims.push(Claim::new(
                "array/rodi-35-2MiB-seq",
                "RODI with the OCZ read-only at 35 % reads, 2 MiB sequential: 1,567 MB/s",
                1567.0,
                rodi35.unwrap_or(f64::NAN),
                "MB/s",
                TOL,
                "simulated; the mixed drives at 2.5 % reads, rounded to 3 %".into(),
            )
            .source("图 5 示出了采用 1 块只读盘 SSD-OCZ 和 2 块读写混合盘 SSD-530 和 SSD-850,在顺序 I/O 负载下开展的实验结果。图 5(a)示出了在 2MB 粒度时,在读请求比例是 35%的负载下,…而采用 RODI 后,整体性能提升到 1567MB/s"));
            // The shape on every panel.
            let adv = |p: Pattern, b: u64, r: u32| -> f64 {
                get(rodi1, p, b, r).unwrap_or(f64::NAN) - get(raid, p, b, r).unwrap_or(f64::NAN)
            };
            let above = ps.iter().filter(|&&(p, b)| adv(p, b, lo) > 0.0).count();
            claims.push(
                Claim::new(
                    "shape/rodi-above-raid0-at-35",
                    "RODI (1 read-only drive) above RAID 0 at 35 % reads, on every panel of Figures 5 and 6",
                    0.0,
                    least(ps.iter().map(|&(p, b)| adv(p, b, lo))),
                    "MB/s (smallest RODI − RAID 0)",
                    Rule::ABOVE,
                    format!(
                        "the smallest RODI − RAID 0 at {lo} % reads over the panels; RODI above on {above} of {}",
                        ps.len()
                    ),
                )
                .source("当负载的读比例自 35%增加至 100%时,在各种粒度和访问模式下采用 RODI 方法均取得了较好效果")
                // The minimum effect: 1 % of the slowest RAID 0 it is compared with.
                .min_effect(MIN_EFFECT * least(ps.iter().map(|&(p, b)| get(raid, p, b, lo).unwrap_or(f64::NAN)))),
            );
            claims
        };
        claims.extend(headline("raid0", "rodi-1"));
        // Windows' striping is a condition the seed leaves open: the same claims with one
        // member request per stripe unit stand beside.
        let (raid_pu, rodi_pu) = (format!("raid0-{}", PER_UNIT.0), format!("rodi-1-{}", PER_UNIT.0));
        claims.extend(
            headline(&raid_pu, &rodi_pu)
                .into_iter()
                .map(|c| c.alternative(PER_UNIT.0, PER_UNIT.1)),
        );
        let adv = |p: Pattern, b: u64, r: u32| -> f64 {
            get("rodi-1", p, b, r).unwrap_or(f64::NAN) - get("raid0", p, b, r).unwrap_or(f64::NAN)
        };
        let shrinks = ps.iter().filter(|&&(p, b)| adv(p, b, lo) > adv(p, b, 100)).count();
        claims.push(Claim::new(
            "shape/advantage-shrinks",
            "RODI's advantage over RAID 0 shrinks as the read share grows (35 % against 100 %), on every panel",
            ps.len() as f64,
            shrinks as f64,
            "panels",
            Rule::AtLeast,
            "panels where RODI − RAID 0 is larger at 35 % than at 100 % reads: follows from RODI above RAID 0 at 35 % and the layouts converging at 100 %".into(),
        )
        .check());
        let gap100 = ps
            .iter()
            .map(|&(p, b)| adv(p, b, 100).abs() / get("raid0", p, b, 100).unwrap_or(f64::NAN))
            .fold(0.0f64, f64::max);
        claims.push(
            Claim::new(
                "shape/converge-at-100",
                "RODI's advantage is gone at 100 % reads (largest |RODI − RAID 0| / RAID 0 over the panels)",
                0.0,
                gap100,
                "share",
                Rule::Absolute { tolerance: 0.1 },
                "at 100 % reads every drive only reads under both layouts: the same work by layout".into(),
            )
            .check(),
        );
        // One sentence of the seed, after section 5.2's "图7与图8中使用了2块只读盘SSD-850和SSD-OCZ",
        // while section 5.1 names the OCZ and the 530 as the pair: the claim reads the pair of
        // the paragraph the figure stands in (the 850's), and shows the other pair beside.
        for (layout, section, pair) in [
            (
                "rodi-2-850",
                "5.2",
                "图7与图8中使用了2块只读盘SSD-850和SSD-OCZ,SSD-530用于混合读写",
            ),
            (
                "rodi-2-530",
                "5.1",
                "若采用 2 个只读盘,则选取只读收益较高的 SSD-OCZ 和 SSD-530",
            ),
        ] {
            let best = ps
                .iter()
                .flat_map(|&(p, b)| shares(scale, 2).into_iter().map(move |r| (p, b, r)))
                .filter_map(|(p, b, r)| Some(get(layout, p, b, r)? - get("raid0", p, b, r)?))
                .fold(f64::NEG_INFINITY, f64::max);
            let c = Claim::new(
                "array/rodi-2-largest-gain",
                &format!(
                    "With two read-only drives (section {section}'s pair) the largest gain over RAID 0 is about 670 MB/s"
                ),
                670.0,
                best,
                "MB/s",
                TOL,
                format!("{layout}: the largest RODI − RAID 0 over the panels and read shares 70–100 %"),
            )
            .source(&format!("{pair}…由实验结果可知,系统总体吞吐量获得了较大提升,吞吐量最大提升670MB/s"));
            claims.push(if layout == "rodi-2-530" {
                c.alternative(PAIR_530.0, PAIR_530.1)
            } else {
                c
            });
        }
        claims.extend(table_claims(&profile));
        figures.extend(table_figures(&profile));
        // The drives' state is a condition the seed leaves open; for the OCZ, whose
        // pseudo-SLC mode makes it matter, the tables' claims with the OCZ fresh stand beside.
        let fresh = |d: &str| -> &DeviceProfile { profile(if d == "OCZ" { "OCZ-fresh" } else { d }) };
        claims.extend(
            table_claims(&fresh)
                .into_iter()
                .filter(|c| c.is_seed())
                .map(|c| c.alternative(OCZ_FRESH.0, OCZ_FRESH.1)),
        );
        Analysis { claims, figures }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_points_split_the_load_as_section_5_1_does() {
        // 35 % over 3 drives with 1 read-only: (1.05 − 1) / 2 = 2.5 % → 3 % (whole percent).
        assert_eq!(mixed_share(35, 1), 3);
        assert_eq!(mixed_share(70, 2), 10);
        assert_eq!(mixed_share(100, 2), 100);
        assert_eq!(mixed_share(45, 1), 18);
        assert_eq!(mixed_share(40, 1), 10);
        let t = array_config(&["OCZ"], Pattern::Random, 8 * MIB, 60, Scale::Quick, true);
        let cfg = crate::config::parse_config(&t, "t", Path::new(".")).unwrap();
        let a = cfg.array.as_ref().unwrap();
        assert_eq!(a.member.iter().filter(|m| m.readonly).count(), 1);
        assert!(a.member[2].readonly);
        assert_eq!(cfg.job[0].iodepth + cfg.job[1].iodepth, 6);
        assert_eq!(cfg.job[1].rwmixread, 40);
        assert!(cfg.job[0].readonly);
        let points = Rodi.points(Scale::Quick).unwrap();
        // 4 characterizations and the fresh OCZ's; raid0 and rodi-1 at 35, 85, 100 %; rodi-2
        // twice at 70, 85, 100 %; raid0 and rodi-1 at 35 % with one member request per stripe
        // unit.
        assert_eq!(points.len(), 5 + 3 + 3 + 3 + 3 + 2);
        let fresh = points.iter().find(|p| p.id == "characterize/OCZ/fresh").unwrap();
        let Work::Profile { base, .. } = &fresh.work else {
            panic!("a characterization")
        };
        assert_eq!(base.precondition.utilisation, OCZ_FRESH_UTILISATION);
        assert_eq!(
            base.device.name,
            crate::config::load_config(preset("OCZ")).unwrap().device.name
        );
        let per_unit: Vec<&Point> = points.iter().filter(|p| p.id.contains("-per-unit/")).collect();
        assert_eq!(per_unit.len(), 2);
        for p in per_unit {
            let Work::Ssd(cfg) = &p.work else {
                panic!("an array point")
            };
            assert!(!cfg.array.as_ref().unwrap().merge_parts, "{}", p.id);
        }
        let t = array_config(&[], Pattern::Sequential, 2 * MIB, 35, Scale::Quick, false);
        assert!(t.contains("merge_parts = false"));
    }
}
