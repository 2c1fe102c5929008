//! Zoned namespaces against a real drive: the `zn540` preset run with the NVMeBenchmarks data
//! set's own fio jobs and zone-management programs, every point compared with what the WD
//! Ultrastar DC ZN540 measured (stonet-research/NVMeBenchmarks, Doekemeijer, Tehrany et al.,
//! IEEE CLUSTER 2023; MIT). The measured figures are data/zn540/measured.csv (each row with
//! the data set's file it was computed from, `scripts/zn540_measured.py`), this experiment's
//! "seed document": a claim quotes its row.
//!
//! Points: the SPDK write grid whole (request sizes 4 KiB to 128 KiB, 1 to 14 zones, depth 1),
//! the SPDK append grid over every size, depth and zone count (every size and depth in one
//! zone, every zone count at three depths for 4 KiB and 128 KiB), the SPDK random reads whole
//! (4, 8 and 16 KiB by depth in one zone and by zone count at depth 1), and the state-machine
//! programs (resets and finishes by the data a zone holds, closes, writes and appends into
//! explicitly and implicitly opened zones). The job text is the data set's job file with its
//! ramp and run times shortened (a test compares the two); random reads, whose job files
//! the data set keeps only inside its results, get a fill of their zones first.
//!
//! The preset takes a few of these points as inputs (docs/zns.md, configs/zn540.toml): those
//! are checks (the derivation holds in the simulator), never counted claims.

use super::{Analysis, Claim, Experiment, Figure, Point, PointResult, Rule, Scale, Series, Work};
use crate::zone_ops::ZoneTest;
use crate::Result;

pub struct Zns;

const PRESET: &str = "zn540";

/// The measured figures, committed (`scripts/zn540_measured.py --check` keeps them the data
/// set's).
pub const MEASURED: &str = include_str!("../../../../data/zn540/measured.csv");

/// The sources file the claims quote.
pub const SOURCES: &str = "data/zn540/measured.csv";

/// One row of [`MEASURED`].
#[derive(Clone, Debug)]
pub struct Row<'a> {
    pub line: &'a str,
    pub kind: &'a str,
    pub engine: &'a str,
    pub op: &'a str,
    pub bs: u64,
    pub zones: u32,
    pub qd: u32,
    pub lbas: Option<u64>,
    pub mib_s: f64,
    pub lat_mean_us: f64,
    pub source: &'a str,
}

/// Every row of [`MEASURED`].
pub fn measured() -> Vec<Row<'static>> {
    MEASURED
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap_or(f64::NAN);
            Row {
                line,
                kind: f[0],
                engine: f[1],
                op: f[2],
                bs: f[3].parse().unwrap_or(0),
                zones: f[4].parse().unwrap_or(0),
                qd: f[5].parse().unwrap_or(0),
                lbas: f[6].parse().ok(),
                mib_s: num(7),
                lat_mean_us: num(9),
                source: f[11],
            }
        })
        .collect()
}

/// fio's percentile list in the data set's job files.
const PERCENTILES: &str = "1:5:10:20:30:40:50:60:70:80:90:95:98:99:99.9:99.99:99.999:100";

/// (ramp, measured) of the fio points, in ms: the data set ran 10 s and 3 min. The write
/// buffer (64 MiB) fills within 400 ms whenever the host writes faster than the flash by more
/// than 160 MiB/s (at rates closer to the ceiling the window measures the flash's rate all
/// the same, within the buffer's share of it); after the fill of the zones random reads read,
/// the buffer drains within 60 ms (a read waits for the program on its die), so their ramp
/// ends on an idle drive.
fn times(scale: Scale) -> (u32, u32) {
    match scale {
        Scale::Full => (400, 200),
        Scale::Quick => (400, 50),
    }
}

/// The data set's SPDK job file for writes (`append` false) or appends of `bs` bytes over
/// `zones` zones at depth `qd` (jobs/spdk/zns-a/lbaf2/{write,append}/BSbs/Nzone/QD.fio), with
/// its ramp and run times these. Its 14-zone runs (grid_bench_spdk_14zones.py, no job file
/// kept; their options as the results record them) give each job 60 zones instead of 100, so
/// that 14 jobs fit the drive's 904.
pub fn spdk_job(append: bool, bs: u64, zones: u32, qd: u32, ramp_ms: u32, run_ms: u32) -> String {
    let span = if zones == 14 { 60 } else { 100 };
    format!(
        "[global]\nrw=write\ndirect=1\ngroup_reporting=1\nthread=1\ntime_based=1\nramp_time={ramp_ms}ms\nruntime={run_ms}ms\n\
         percentile_list={PERCENTILES}\nnuma_cpu_nodes=1\nnuma_mem_policy=bind:1\nsize={span}z\nzonemode=zbd\nmax_open_zones=14\n\
         ioengine=spdk\nfilename=trtype=PCIe traddr=0000.88.00.0 ns=2\n\n\
         [qd{qd}]\niodepth={qd}\nnumjobs={zones}\nbs={bs}\nzone_append={}\noffset_increment={span}z\njob_max_open_zones=1\n",
        append as u8
    )
}

/// The SPDK random reads (their options as the results record them: `global options` and
/// `job options` of data/spdk/zns-a/lbaf2/randread/...), after a job that fills the zones read.
pub fn randread_job(bs: u64, zones: u32, qd: u32, ramp_ms: u32, run_ms: u32) -> String {
    format!(
        "[global]\ndirect=1\ngroup_reporting=1\nthread=1\nzonemode=zbd\nmax_open_zones=14\nioengine=spdk\n\
         filename=trtype=PCIe traddr=0000.88.00.0 ns=2\n\n\
         [fill]\nrw=write\nbs=128k\niodepth=4\noffset=0z\nsize={zones}z\n\n\
         [qd{qd}]\nstonewall\nrw=randread\nnorandommap=1\ntime_based=1\nramp_time={ramp_ms}ms\nruntime={run_ms}ms\n\
         percentile_list={PERCENTILES}\nnuma_cpu_nodes=1\nnuma_mem_policy=bind:1\noffset=0z\nsize=1z\n\
         iodepth={qd}\nnumjobs={zones}\nbs={bs}\noffset_increment=1z\njob_max_open_zones=1\n"
    )
}

const SIZES: [u64; 6] = [4096, 8192, 16384, 32768, 65536, 131072];
const DEPTHS: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/// The SPDK fio row of (op, bs, zones, qd).
fn fio_row<'a>(rows: &'a [Row<'static>], op: &str, bs: u64, z: u32, qd: u32) -> Option<&'a Row<'static>> {
    rows.iter()
        .find(|r| r.kind == "fio" && r.engine == "spdk" && r.op == op && r.bs == bs && r.zones == z && r.qd == qd)
}

/// The fio points: (op, bs, zones, qd) of the measured rows this scale runs.
fn fio_grid(scale: Scale) -> Vec<(&'static str, u64, u32, u32)> {
    let rows = measured();
    let have = |op: &str, bs: u64, z: u32, qd: u32| fio_row(&rows, op, bs, z, qd).is_some();
    let mut out = Vec::new();
    let mut push = |op: &'static str, bs: u64, z: u32, qd: u32| {
        if have(op, bs, z, qd) && !out.contains(&(op, bs, z, qd)) {
            out.push((op, bs, z, qd));
        }
    };
    match scale {
        Scale::Full => {
            for bs in SIZES {
                for z in [1, 2, 4, 8, 14] {
                    push("write", bs, z, 1);
                }
            }
            for bs in SIZES {
                for qd in DEPTHS {
                    push("append", bs, 1, qd);
                }
            }
            for bs in [4096, 131072] {
                for z in [2, 4, 8, 14] {
                    for qd in [1, 4, 32] {
                        push("append", bs, z, qd);
                    }
                }
            }
            for bs in [4096, 8192, 16384] {
                for qd in DEPTHS {
                    push("randread", bs, 1, qd);
                }
                for z in [2, 4, 8, 14] {
                    push("randread", bs, z, 1);
                }
            }
        }
        Scale::Quick => {
            for (bs, z) in [(4096, 1), (4096, 4), (8192, 4), (131072, 1)] {
                push("write", bs, z, 1);
            }
            for qd in [1, 4, 32] {
                push("append", 4096, 1, qd);
            }
            for qd in [1, 64] {
                push("randread", 4096, 1, qd);
            }
        }
    }
    out
}

/// The state-machine points: (id, test, zones).
fn zone_tests(scale: Scale) -> Vec<(String, ZoneTest, u32)> {
    let mut out = Vec::new();
    let (occupancies, io_lbas, zones): (&[u64], u64, u32) = match scale {
        Scale::Full => (&[1, 17232, 34464, 68928, 137856, 275711], 275_712, 2),
        Scale::Quick => (&[1, 68928], 20_000, 1),
    };
    for &l in occupancies {
        // partial_zone_reset's fullest point writes the whole capacity (275,712).
        let reset = if l == 275_711 { 275_712 } else { l };
        out.push((format!("reset/{reset}"), ZoneTest::PartialReset { lbas: reset }, zones));
    }
    for &l in std::iter::once(&0).chain(occupancies) {
        out.push((format!("finish/{l}"), ZoneTest::Finish { lbas: l }, zones));
    }
    for explicit in [true, false] {
        let name = if explicit { "explicit" } else { "implicit" };
        if scale == Scale::Full || explicit {
            out.push((format!("close/{name}"), ZoneTest::Close { explicit }, zones));
        }
        for append in [false, true] {
            if scale == Scale::Quick && append {
                continue;
            }
            let op = if append { "append" } else { "write" };
            out.push((
                format!("io/{op}-{name}"),
                ZoneTest::Io {
                    append,
                    explicit,
                    lbas: io_lbas,
                },
                zones,
            ));
        }
    }
    out
}

fn fio_id(op: &str, bs: u64, zones: u32, qd: u32) -> String {
    format!("{op}/{}k/{zones}z/qd{qd}", bs / 1024)
}

/// The measured window of a point (ms): the scale's, or long enough to hold 50 times the
/// bytes in flight at the write ceiling. fio counts the requests still in flight when the run
/// time ends, and the time they take, in the job; the drive's 3 minutes make that share
/// negligible, a window of 200 ms would not (128 KiB appends at depth 512 keep 64 MiB in
/// flight, 56 ms of the flash's time).
fn window_ms(scale: Scale, bs: u64, zones: u32, qd: u32) -> u32 {
    let in_flight = bs * qd as u64 * zones as u64;
    let ms = (50 * in_flight * 1000).div_ceil(1150 << 20);
    times(scale).1.max(ms as u32)
}

fn fio_point(op: &'static str, bs: u64, zones: u32, qd: u32, scale: Scale) -> Result<Point> {
    let (ramp, _) = times(scale);
    let run = window_ms(scale, bs, zones, qd);
    let id = fio_id(op, bs, zones, qd);
    let text = match op {
        "randread" => randread_job(bs, zones, qd, ramp, run),
        _ => spdk_job(op == "append", bs, zones, qd, ramp, run),
    };
    let mut config = crate::config::load_config(PRESET)?;
    config.set_jobs_from_fio(&format!("experiment zns, point {id}"), &text)?;
    Ok(Point {
        id,
        labels: vec![
            ("device".into(), PRESET.into()),
            ("workload".into(), op.into()),
            ("bs".into(), bs.to_string()),
            ("zones".into(), zones.to_string()),
            ("qd".into(), qd.to_string()),
        ],
        work: Work::Ssd(Box::new(config)),
    })
}

/// The fio points the preset takes as inputs (configs/zn540.toml, [M]): (op, bs, zones, qd).
pub const INPUTS: [(&str, u64, u32, u32); 6] = [
    // The write command's controller time (4 KiB writes' ceiling over 8 zones).
    ("write", 4096, 8, 1),
    // An append's extra controller time (4 KiB appends' ceiling).
    ("append", 4096, 1, 32),
    // tR, after the other terms of a 4 KiB read at depth 1.
    ("randread", 4096, 1, 1),
    // The channel's rate (a 16 KiB read at depth 1 against a 4 KiB one).
    ("randread", 16384, 1, 1),
    // The read command's controller time (4 KiB reads' ceiling).
    ("randread", 4096, 1, 256),
    // The device-to-host DMA rate (16 KiB reads' ceiling).
    ("randread", 16384, 1, 256),
];

/// The timed zone commands the preset takes as inputs: the command latency (a write into an
/// explicitly opened zone), the implicit open's time, the reset line (resets of finished
/// zones).
pub const OP_INPUTS: [&str; 3] = ["write_explicit", "write_implicit_opened", "reset_finished"];

const MIB: f64 = 1048576.0;

fn run<'a>(runs: &'a [PointResult], id: &str) -> Option<&'a PointResult> {
    runs.iter().find(|r| r.id == id)
}

/// Ours, in MiB/s, of a fio point.
fn our_mib_s(r: &PointResult, op: &str) -> f64 {
    let dir = if op == "randread" { "read" } else { "write" };
    r.metric(&format!("{dir}_mb_s")) * 1e6 / MIB
}

/// The measured rows of a timed command at `lbas` (None: every row of the op).
fn op_rows(rows: &[Row<'static>], op: &str, lbas: Option<u64>) -> Vec<Row<'static>> {
    rows.iter()
        .filter(|r| r.kind == "op" && r.op == op && (lbas.is_none() || r.lbas == lbas))
        .cloned()
        .collect()
}

/// The mean of the runs' means, and the quote: their rows.
fn runs_mean(rows: &[Row<'static>]) -> (f64, String) {
    let mean = rows.iter().map(|r| r.lat_mean_us).sum::<f64>() / rows.len() as f64;
    let quote = rows.iter().map(|r| r.line).collect::<Vec<_>>().join("…");
    (mean, quote)
}

/// The timed commands each test's claims read: (name in the test, the data set's op).
fn timed_ops(test: ZoneTest) -> Vec<(&'static str, &'static str)> {
    match test {
        ZoneTest::PartialReset { .. } => vec![("reset", "partial_reset/reset")],
        ZoneTest::Finish { .. } => vec![
            ("finish", "partial_finish/finish"),
            ("reset_finished", "partial_finish/reset_finished"),
        ],
        ZoneTest::Close { explicit: true } => {
            vec![("close", "open_close/close"), ("close_write", "open_close/close_write")]
        }
        ZoneTest::Close { explicit: false } => vec![
            ("close_implicit", "open_close/close_implicit"),
            ("close_implicit_write", "open_close/close_implicit_write"),
        ],
        ZoneTest::Io { append, explicit, .. } => match (append, explicit) {
            (false, true) => vec![("write_explicit", "explicit_versus_implicit_io/write_explicit")],
            (false, false) => vec![
                (
                    "write_implicit_opened",
                    "explicit_versus_implicit_io/write_implicit_opened",
                ),
                ("write_implicit", "explicit_versus_implicit_io/write_implicit"),
            ],
            (true, true) => vec![("append_explicit", "explicit_versus_implicit_io/append_explicit")],
            (true, false) => vec![
                (
                    "append_implicit_opened",
                    "explicit_versus_implicit_io/append_implicit_opened",
                ),
                ("append_implicit", "explicit_versus_implicit_io/append_implicit"),
            ],
        },
    }
}

/// The LBAs a test's zone holds when its timed command runs, as the data set's rows name it.
fn test_lbas(test: ZoneTest) -> Option<u64> {
    match test {
        ZoneTest::PartialReset { lbas } | ZoneTest::Finish { lbas } => Some(lbas),
        _ => None,
    }
}

/// Throughput within ±15 %, a latency mean within ±20 % (the goal, as MQSim's paper
/// states its error against real drives).
const THROUGHPUT: Rule = Rule::Relative { tolerance: 0.15 };
const LATENCY: Rule = Rule::Relative { tolerance: 0.20 };

impl Experiment for Zns {
    fn name(&self) -> &'static str {
        "zns"
    }
    fn title(&self) -> &'static str {
        "Zoned namespaces against a WD Ultrastar DC ZN540's measurements (NVMeBenchmarks): writes, appends, reads, resets, finishes"
    }
    fn seed_document(&self) -> &'static str {
        SOURCES
    }
    fn scale_note(&self, scale: Scale) -> String {
        let (ramp, run) = times(scale);
        let zones = zone_tests(scale)[0].2;
        format!(
            "Drive: the {PRESET} preset (904 zones of 2 GiB holding 1,077 MiB, at most 14 open). fio points: the data set's SPDK job files with {ramp} ms of ramp and {run} ms measured, or 50 times the time the requests in flight take at the write ceiling where that is longer (the drive ran 10 s and 3 min); random reads after a job that fills the zones they read. Zone commands: the data set's programs on {zones} zone(s) each (the drive: 452 to 903)."
        )
    }
    fn points(&self, scale: Scale) -> Result<Vec<Point>> {
        let mut points = Vec::new();
        for (op, bs, z, qd) in fio_grid(scale) {
            points.push(fio_point(op, bs, z, qd, scale)?);
        }
        for (id, test, zones) in zone_tests(scale) {
            let config = crate::config::load_config(PRESET)?;
            points.push(Point {
                id: format!("zone/{id}"),
                labels: vec![
                    ("device".into(), PRESET.into()),
                    ("workload".into(), "zone commands".into()),
                    ("test".into(), id),
                ],
                work: Work::Zones {
                    config: Box::new(config),
                    test,
                    zones,
                },
            });
        }
        Ok(points)
    }
    fn analyse(&self, scale: Scale, runs: &[PointResult]) -> Analysis {
        let rows = measured();
        let mut claims = Vec::new();
        for (op, bs, z, qd) in fio_grid(scale) {
            let id = fio_id(op, bs, z, qd);
            let Some(r) = run(runs, &id) else { continue };
            let m = fio_row(&rows, op, bs, z, qd).expect("a measured row per fio point");
            let what = match op {
                "write" => "writes",
                "append" => "zone appends",
                _ => "random reads",
            };
            let c = Claim::new(
                &id,
                &format!("{} KiB {what} over {z} zone(s) at depth {qd}: throughput", bs / 1024),
                m.mib_s,
                our_mib_s(r, op),
                "MiB/s",
                THROUGHPUT,
                format!(
                    "the job's bytes over its measured {} ms (and the drain of what is in flight at its end, as fio counts it), summed over its {z} job(s)",
                    window_ms(scale, bs, z, qd)
                ),
            )
            .source(m.line);
            claims.push(if INPUTS.contains(&(op, bs, z, qd)) {
                c.check()
            } else {
                c
            });
        }
        for (id, test, _) in zone_tests(scale) {
            let Some(r) = run(runs, &format!("zone/{id}")) else {
                continue;
            };
            let Some(z) = r.result.zones() else { continue };
            for (name, op) in timed_ops(test) {
                let lbas = test_lbas(test);
                let measured = op_rows(&rows, op, lbas);
                if measured.is_empty() {
                    continue;
                }
                let (mean, quote) = runs_mean(&measured);
                let at = lbas.map_or(String::new(), |l| format!(" holding {l} LBAs"));
                let c = Claim::new(
                    &format!("zone/{name}{}", lbas.map_or(String::new(), |l| format!("/{l}"))),
                    &format!("{}{at}: mean latency", name.replace('_', " ")),
                    mean,
                    z.mean_us(name),
                    "µs",
                    LATENCY,
                    format!(
                        "the mean over {} zone(s) of the command's time from submission to completion; measured: the mean of the runs' means",
                        z.zones
                    ),
                )
                .source(&quote);
                claims.push(if OP_INPUTS.contains(&name) { c.check() } else { c });
            }
        }
        Analysis {
            claims,
            figures: figures(scale, runs, &rows),
        }
    }
}

fn figures(scale: Scale, runs: &[PointResult], rows: &[Row<'static>]) -> Vec<Figure> {
    let grid = fio_grid(scale);
    let measured = |op: &str, bs: u64, z: u32, qd: u32| fio_row(rows, op, bs, z, qd).map_or(f64::NAN, |m| m.mib_s);
    let ours =
        |op: &str, bs: u64, z: u32, qd: u32| run(runs, &fio_id(op, bs, z, qd)).map_or(f64::NAN, |r| our_mib_s(r, op));
    // A series over one varying parameter, ours and measured, for every fixed setting the grid
    // has at least two points of.
    let curves =
        |op: &str, vary: usize, fixed: &[(u64, u32, u32)], name: &dyn Fn(u64, u32, u32) -> String| -> Vec<Series> {
            let mut out = Vec::new();
            for &(bs, z, qd) in fixed {
                let pts: Vec<(u64, u32, u32)> = grid
                    .iter()
                    .filter(|g| g.0 == op)
                    .filter(|g| match vary {
                        0 => g.2 == z && g.3 == qd,
                        1 => g.1 == bs && g.3 == qd,
                        _ => g.1 == bs && g.2 == z,
                    })
                    .map(|g| (g.1, g.2, g.3))
                    .collect();
                if pts.len() < 2 {
                    continue;
                }
                let x = |p: &(u64, u32, u32)| match vary {
                    0 => p.0 as f64 / 1024.0,
                    1 => p.1 as f64,
                    _ => p.2 as f64,
                };
                for (who, f) in [
                    ("ours", &ours as &dyn Fn(&str, u64, u32, u32) -> f64),
                    ("ZN540", &measured),
                ] {
                    out.push(Series {
                        name: format!("{} ({who})", name(bs, z, qd)),
                        points: pts.iter().map(|p| (x(p), f(op, p.0, p.1, p.2))).collect(),
                    });
                }
            }
            out
        };
    let mut figures = vec![
        Figure {
            id: "write-size".into(),
            title: "Writes at depth 1 by request size: ours beside the ZN540's".into(),
            x_label: "request size, KiB".into(),
            y_label: "MiB/s".into(),
            log_x: true,
            series: curves("write", 0, &[(0, 1, 1), (0, 4, 1)], &|_, z, _| format!("{z} zone(s)")),
            categories: vec![],
        },
        Figure {
            id: "write-zones".into(),
            title: "Writes at depth 1 by zones written at once: ours beside the ZN540's".into(),
            x_label: "zones".into(),
            y_label: "MiB/s".into(),
            log_x: false,
            series: curves("write", 1, &[(4096, 0, 1), (8192, 0, 1), (16384, 0, 1)], &|bs, _, _| {
                format!("{} KiB", bs / 1024)
            }),
            categories: vec![],
        },
        Figure {
            id: "append-depth".into(),
            title: "Zone appends in one zone by queue depth: ours beside the ZN540's".into(),
            x_label: "queue depth".into(),
            y_label: "MiB/s".into(),
            log_x: true,
            series: curves(
                "append",
                2,
                &[(4096, 1, 0), (8192, 1, 0), (131072, 1, 0)],
                &|bs, _, _| format!("{} KiB", bs / 1024),
            ),
            categories: vec![],
        },
        Figure {
            id: "randread-depth".into(),
            title: "Random reads in one zone by queue depth: ours beside the ZN540's".into(),
            x_label: "queue depth".into(),
            y_label: "MiB/s".into(),
            log_x: true,
            series: curves(
                "randread",
                2,
                &[(4096, 1, 0), (8192, 1, 0), (16384, 1, 0)],
                &|bs, _, _| format!("{} KiB", bs / 1024),
            ),
            categories: vec![],
        },
    ];
    // Resets and finishes by the LBAs the zone holds.
    let tests = zone_tests(scale);
    let curve = |name: &str, op: &str, pick: &dyn Fn(ZoneTest) -> bool| -> Vec<Series> {
        let pts: Vec<(u64, f64, f64)> = tests
            .iter()
            .filter(|t| pick(t.1))
            .filter_map(|(id, test, _)| {
                let l = test_lbas(*test)?;
                let ours = run(runs, &format!("zone/{id}"))?.result.zones()?.mean_us(name) / 1e3;
                let m = op_rows(rows, op, Some(l));
                let measured = if m.is_empty() { f64::NAN } else { runs_mean(&m).0 / 1e3 };
                Some((l, ours, measured))
            })
            .collect();
        let label = name.replace('_', " ");
        vec![
            Series {
                name: format!("{label} (ours)"),
                points: pts.iter().map(|p| (p.0 as f64, p.1)).collect(),
            },
            Series {
                name: format!("{label} (ZN540)"),
                points: pts.iter().map(|p| (p.0 as f64, p.2)).collect(),
            },
        ]
    };
    let mut resets = curve("reset", "partial_reset/reset", &|t| {
        matches!(t, ZoneTest::PartialReset { .. })
    });
    resets.extend(curve(
        "reset_finished",
        "partial_finish/reset_finished",
        &|t| matches!(t, ZoneTest::Finish { lbas } if lbas > 0),
    ));
    figures.push(Figure {
        id: "reset".into(),
        title: "Zone reset by the LBAs the zone holds, open or finished: ours beside the ZN540's".into(),
        x_label: "LBAs written (4 KiB)".into(),
        y_label: "ms".into(),
        log_x: false,
        series: resets,
        categories: vec![],
    });
    figures.push(Figure {
        id: "finish".into(),
        title: "Zone finish by the LBAs the zone holds: ours beside the ZN540's".into(),
        x_label: "LBAs written (4 KiB)".into(),
        y_label: "ms".into(),
        log_x: false,
        series: curve(
            "finish",
            "partial_finish/finish",
            &|t| matches!(t, ZoneTest::Finish { lbas } if lbas > 0),
        ),
        categories: vec![],
    });
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_queues_measure_fifty_times_what_they_hold_in_flight() {
        // 128 KiB × 512 = 64 MiB in flight: 50 × 64 / 1,150 MiB/s = 2,783 ms (rounded up).
        assert_eq!(window_ms(Scale::Full, 131072, 1, 512), 2783);
        // 4 KiB at depth 1: the scale's window.
        assert_eq!(window_ms(Scale::Full, 4096, 1, 1), 200);
        assert_eq!(window_ms(Scale::Quick, 4096, 4, 1), 50);
        // Zones count as jobs with their own queues: 4 × 128 KiB × 32 = 16 MiB, 696 ms.
        assert_eq!(window_ms(Scale::Full, 131072, 4, 32), 696);
    }

    #[test]
    fn every_fio_point_has_its_row_and_inputs_are_points() {
        let rows = measured();
        for scale in [Scale::Full, Scale::Quick] {
            for (op, bs, z, qd) in fio_grid(scale) {
                assert!(fio_row(&rows, op, bs, z, qd).is_some(), "{op} {bs} {z} {qd}");
            }
        }
        let full = fio_grid(Scale::Full);
        assert!(INPUTS.iter().all(|i| full.contains(i)));
        assert_eq!(full.iter().filter(|p| p.0 == "write").count(), 27);
        assert_eq!(full.iter().filter(|p| p.0 == "randread").count(), 39);
    }
}
