//! `ssdlab bench`: engine speed and memory, the figures BENCHMARKS.md quotes.
//!
//! Cases (device: TLC timing, 16 KiB pages, 4 KiB mapping unit, 64 MiB write buffer,
//! greedy GC, 128 planes; capacity per case):
//! - `randwrite`: 4 KiB uniform random writes at steady state, 64 GiB at α = 1.10, QD 32;
//!   the garbage collection they cause is inside the timed part. Default scheduler
//!   (read priority, no suspension).
//! - `randread`: 4 KiB uniform random reads on the same device, QD 32.
//! - `mixed`: 70/30 random reads/writes, QD 32; `mixed-fcfs` and `mixed-suspend` the same
//!   under fcfs and under read priority with program and erase suspension (what the
//!   scheduling features cost in engine speed).
//! - `steady-write`: the tlc-nvme preset at steady state (whole drive), random 4 KiB writes
//!   at QD 32 for 200 simulated seconds after a 40 s ramp: IOPS against the bound the flash
//!   work allows (every plane busy), and that bound derived from the greedy model.
//! - `precondition`: a 512 GiB device to random-write steady state at 75 % utilisation.
//! - `memory`: a 1 TiB device (256 Mi pages) preconditioned to steady state; peak RSS.
//! - `sizes`: the same 1 M requests (70/30 random 4 KiB, QD 32) on devices of 16, 64, 256
//!   and 1,024 GiB filled in order first (no GC in the run): the fill, the run's cost per
//!   request, and requests per wall second with the fill included.
//! - `trace-parse`: lines parsed per second per trace format, on generated 2 M-line files
//!   (MSR CSV, MQSim, DiskSim, SPC, and the native binary form of the MSR file).
//! - `trace-replay`: end-to-end replay of `ssd-iozone-aligned2-100K.trace` and
//!   `cloudPhysicsIO.csv` (public traces, `ssdlab traces fetch`) on the mlc-sata preset.
use clap::Args;
use ssdlab_core::config::{parse_config, PreconditionMode};
use ssdlab_core::{Error, Result, Simulation};
use std::path::Path;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Cases to run: randwrite, randread, mixed, precondition (the default set), mixed-fcfs,
    /// mixed-suspend, steady-write, memory, sizes, trace-parse, trace-replay.
    #[arg(long, value_delimiter = ',')]
    case: Vec<String>,
    /// Requests per timed run (default 4000000, or 20000 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    requests: Option<u64>,
    /// Small devices and, unless --requests says otherwise, few requests: checks that the
    /// benchmarks run.
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    traces: crate::traces_cmd::TracesDir,
}

fn device(gib: u64, op: f64) -> String {
    // 128 planes × blocks × 256 pages × 16 KiB
    let blocks = (gib << 30) / (128 * 256 * 16384);
    format!(
        r#"
[device]
name = "bench-{gib}g"
[device.geometry]
channels = 8
ways = 4
dies_per_chip = 2
planes_per_die = 2
blocks_per_plane = {blocks}
pages_per_block = 256
page_size = "16KiB"
mapping_unit = "4KiB"
overprovisioning = {op}
[device.nand]
cell = "tlc"
read = ["56.5us", "77.5us", "106us"]
program = ["820.5us", "2225us", "5734us"]
erase = "3ms"
channel_rate = "800MB/s"
endurance = 100000
[device.host]
interface = "nvme-gen4x4"
command_overhead = "1us"
[device.ftl]
gc_policy = "greedy"
write_buffer = "64MiB"
"#
    )
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// Build and precondition the run file `text`, then run it: (seconds to build and
/// precondition, seconds to run, the result).
fn simulate(text: &str) -> Result<(f64, f64, ssdlab_core::RunResult)> {
    let cfg = parse_config(text, "bench", Path::new("."))?;
    let t0 = Instant::now();
    let mut sim = Simulation::new(&cfg)?;
    let pre = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let r = sim.run(&mut |_| {})?;
    Ok((pre, t1.elapsed().as_secs_f64(), r))
}

fn timed_run(gib: u64, op: f64, job: &str, scheduler: &str, requests: u64) -> Result<()> {
    let text = format!(
        "{}[device.scheduler]\n{scheduler}\n[precondition]\nmode = \"steady\"\nutilisation = 1.0\n[[job]]\nname = \"bench\"\n{job}\niodepth = 32\nnumber_ios = {requests}\n",
        device(gib, op)
    );
    let (pre, secs, r) = simulate(&text)?;
    outln!(
        "  {:<34} {:>10.0} host requests/s  ({requests} requests in {secs:.2} s; WAF {:.2}, GC runs {}; precondition {pre:.1} s)",
        format!("{} {}", job.replace('\n', " "), scheduler.replace('\n', " ")).trim(),
        requests as f64 / secs,
        r.ssd.waf,
        r.ssd.gc["runs"]
    )?;
    Ok(())
}

const MIXED: &str = "rw = \"randrw\"\nrwmixread = 70\nbs = \"4KiB\"";

/// `requests` 70/30 random 4 KiB requests at QD 32 on devices of each size in `gibs` (25 %
/// over-provisioning: 8 spare blocks per plane at 16 GiB), each filled in order first: how the
/// cost per request grows with the device.
fn sizes(gibs: &[u64], requests: u64) -> Result<()> {
    for &gib in gibs {
        let text = format!(
            "{}[precondition]\nmode = \"sequential\"\nutilisation = 1.0\n[[job]]\nname = \"bench\"\n{MIXED}\niodepth = 32\nnumber_ios = {requests}\n",
            device(gib, 0.25)
        );
        let (fill, run, r) = simulate(&text)?;
        let done = r.ssd.requests;
        outln!(
            "  {gib:>5} GiB filled in order, {done} requests 70/30: fill {fill:.2} s, run {run:.2} s ({:.3} us per request), {:.0} requests per wall second with the fill",
            run * 1e6 / done as f64,
            done as f64 / (fill + run)
        )?;
    }
    Ok(())
}

/// tlc-nvme at steady state, random 4 KiB writes: IOPS against the bound.
fn steady_write(quick: bool) -> Result<()> {
    // The ramp covers the move from the idle-time state preconditioning leaves (background
    // GC's free blocks) to the saturated one.
    let (ramp, runtime) = if quick { ("1s", "5s") } else { ("40s", "200s") };
    let text = format!(
        "[device]\npreset = \"tlc-nvme\"\n[precondition]\nmode = \"steady\"\nutilisation = 1.0\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 32\nramp_time = \"{ramp}\"\nruntime = \"{runtime}\"\ntime_based = true\n"
    );
    let cfg = parse_config(&text, "bench", Path::new("."))?;
    let t0 = Instant::now();
    let mut sim = Simulation::new(&cfg)?;
    let pre = t0.elapsed().as_secs_f64();
    let r = sim.run(&mut |_| {})?;
    let d = &cfg.device;
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64 / 1e9;
    let (t_r, t_p, t_e) = (mean(&d.read_ns()), mean(&d.program_ns()), d.erase_ns() as f64 / 1e9);
    let g = &sim.device().geo;
    let (planes, upp, upb) = (g.planes as f64, g.units_per_page as f64, g.units_per_block as f64);
    // From the run's own flash work: host units / (array time / planes).
    let f = &r.ssd.flash;
    let n = |k: &str| f[k].as_f64().unwrap_or(0.0);
    let work = (n("host_page_programs") + n("gc_page_programs")) * t_p + n("page_reads") * t_r + n("erases") * t_e;
    let measured_bound = r.ssd.host["write_units"].as_f64().unwrap_or(0.0) / (work / planes);
    // From the greedy model at the effective over-provisioning: saturated writes leave
    // background GC no idle time, so each plane keeps gc_threshold blocks free and about one
    // block's worth of open frontiers, which hold no data. Per host unit: WAF / upp page
    // programs, (WAF - 1) / upp page reads (each page read yields about upp valid units),
    // WAF / upb erases.
    let reserve = d.ftl.gc_threshold as f64 + 1.0;
    let alpha = g.alpha() * (1.0 - reserve / g.blocks_per_plane as f64);
    let waf = ssdlab_core::analytic::greedy_waf(alpha, g.units_per_block);
    let per_unit = waf / upp * t_p + (waf - 1.0) / upp * t_r + waf / upb * t_e;
    let model_bound = planes / per_unit;
    let iops = r.jobs[0].write.iops;
    outln!(
        "  tlc-nvme steady random 4 KiB writes: {iops:.0} IOPS = {:.3} of the bound from the run's flash work ({measured_bound:.0}; WAF {:.3}), {:.3} of the greedy-model bound ({model_bound:.0}; WAF {waf:.3} at α {alpha:.4}); precondition {pre:.1} s, run {:.1} s",
        iops / measured_bound,
        r.ssd.waf,
        iops / model_bound,
        r.ssd.wall_time_s
    )?;
    Ok(())
}

fn precondition_case(gib: u64, utilisation: f64) -> Result<()> {
    let text = format!(
        "{}[precondition]\nmode = \"steady\"\nutilisation = {utilisation}\n[[job]]\nrw = \"randread\"\nnumber_ios = 1\n",
        device(gib, 0.10)
    );
    let mut cfg = parse_config(&text, "bench", Path::new("."))?;
    cfg.precondition.mode = PreconditionMode::Steady;
    let t0 = Instant::now();
    let sim = Simulation::new(&cfg)?;
    let secs = t0.elapsed().as_secs_f64();
    let g = &sim.device().geo;
    outln!(
        "  precondition {gib} GiB ({} Mi pages) to steady state at {:.0} % utilisation: {secs:.1} s, peak RSS {:.2} GiB ({:.2} bytes per physical page)",
        g.physical_units >> 20,
        utilisation * 100.0,
        peak_rss_kib() as f64 / (1 << 20) as f64,
        peak_rss_kib() as f64 * 1024.0 / g.physical_units as f64
    )?;
    Ok(())
}

pub fn run(a: BenchArgs) -> Result<()> {
    a.traces.apply();
    let cases: Vec<String> = if a.case.is_empty() {
        ["randwrite", "randread", "mixed", "precondition"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        a.case.clone()
    };
    let (small, big, huge, n) = if a.quick {
        (32, 32, 32, a.requests.unwrap_or(20_000))
    } else {
        (64, 512, 1024, a.requests.unwrap_or(4_000_000))
    };
    const CASES: &[&str] = &[
        "randwrite",
        "randread",
        "mixed",
        "mixed-fcfs",
        "mixed-suspend",
        "steady-write",
        "precondition",
        "memory",
        "sizes",
        "trace-parse",
        "trace-replay",
    ];
    // Every case is known before anything runs or prints.
    if let Some(other) = cases.iter().find(|c| !CASES.contains(&c.as_str())) {
        return Err(Error::Invalid(format!(
            "--case: unknown benchmark '{other}'; expected one of {}",
            CASES.join(", ")
        )));
    }
    outln!(
        "ssdlab bench ({} core(s) available, one used)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )?;
    for c in &cases {
        match c.as_str() {
            "randwrite" => timed_run(small, 0.10, "rw = \"randwrite\"\nbs = \"4KiB\"", "", n)?,
            "randread" => timed_run(small, 0.10, "rw = \"randread\"\nbs = \"4KiB\"", "", n)?,
            "mixed" => timed_run(small, 0.10, MIXED, "", n)?,
            "mixed-fcfs" => timed_run(small, 0.10, MIXED, "policy = \"fcfs\"", n)?,
            "mixed-suspend" => timed_run(small, 0.10, MIXED, "suspend = [\"program\", \"erase\"]", n)?,
            "steady-write" => steady_write(a.quick)?,
            "precondition" => precondition_case(big, 0.75)?,
            "memory" => precondition_case(huge, 0.75)?,
            "sizes" => sizes(
                if a.quick { &[16, 32] } else { &[16, 64, 256, 1024] },
                a.requests.unwrap_or(if a.quick { 20_000 } else { 1_000_000 }),
            )?,
            "trace-parse" => trace_parse(if a.quick { 100_000 } else { 2_000_000 })?,
            "trace-replay" => trace_replay()?,
            other => {
                return Err(Error::Invalid(format!(
                    "--case: unknown benchmark '{other}' (expected randwrite, randread, mixed, mixed-fcfs, mixed-suspend, steady-write, precondition, memory, sizes, trace-parse, trace-replay)"
                )))
            }
        }
    }
    Ok(())
}

/// Write `n` lines of a synthetic trace (deterministic pseudo-random addresses).
fn synth(path: &Path, n: u64, line: impl Fn(u64, u64, bool, &mut String)) -> Result<()> {
    use std::io::Write;
    let f = std::fs::File::create(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    let mut w = std::io::BufWriter::new(f);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut buf = String::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf.clear();
        line(i, (x >> 20) % (1 << 26), x & 3 == 0, &mut buf);
        w.write_all(buf.as_bytes())
            .map_err(|e| Error::io(path.display().to_string(), e))?;
    }
    w.flush().map_err(|e| Error::io(path.display().to_string(), e))
}

fn trace_parse(n: u64) -> Result<()> {
    use ssdlab_core::trace::{self, bench::parse_speed, Format, OutputFormat};
    use std::fmt::Write as _;
    let dir = std::env::temp_dir().join(format!("ssdlab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let files = [
        ("msr.csv", Format::Msr),
        ("mqsim.trace", Format::Mqsim),
        ("disksim.trace", Format::Disksim),
        ("umass.spc", Format::Spc),
    ];
    synth(&dir.join(files[0].0), n, |i, page, read, b| {
        let _ = writeln!(
            b,
            "{},hm,0,{},{},4096,2833",
            128166385295514663 + i * 1000,
            if read { "Read" } else { "Write" },
            page * 4096
        );
    })?;
    synth(&dir.join(files[1].0), n, |i, page, read, b| {
        let _ = writeln!(b, "{} 0 {} 8 {}", i * 10_000, page * 8, read as u8);
    })?;
    synth(&dir.join(files[2].0), n, |i, page, read, b| {
        let _ = writeln!(b, "{}.{:03} 0 {} 8 {}", i / 100, i % 100 * 10, page * 8, read as u8);
    })?;
    synth(&dir.join(files[3].0), n, |i, page, read, b| {
        let _ = writeln!(
            b,
            "0,{},4096,{},{}.{:06}",
            page * 8,
            if read { "r" } else { "w" },
            i / 1000,
            i % 1000 * 1000
        );
    })?;
    // The native form of the MSR file.
    let native = dir.join("msr.native");
    {
        let mut r = trace::open(dir.join(files[0].0), Format::Msr)?;
        let out = std::fs::File::create(&native).map_err(|e| Error::io(native.display().to_string(), e))?;
        let mut w =
            OutputFormat::Native.writer(Box::new(std::io::BufWriter::new(out)), &native.display().to_string())?;
        trace::convert(&mut r, w.as_mut(), &trace::Devices::all())?;
    }
    let mut msr_rate = 0.0;
    outln!("  trace parsing, {n} lines per file (best of 3):")?;
    for (name, fmt) in files.iter().copied().chain([("msr.native", Format::Native)]) {
        let best = (0..3)
            .map(|_| parse_speed(&dir.join(name), fmt).map(|s| s.lines_per_second()))
            .collect::<Result<Vec<f64>>>()?
            .into_iter()
            .fold(0.0, f64::max);
        if name == "msr.csv" {
            msr_rate = best;
        }
        let rel = if name == "msr.native" {
            format!(" ({:.1}x MSR CSV)", best / msr_rate)
        } else {
            String::new()
        };
        outln!("    {:<10} {:>7.2} M lines/s{rel}", fmt.name(), best / 1e6)?;
        if name == "msr.csv" {
            let best = (0..3)
                .map(|_| msr_via_csv(&dir.join(name)))
                .collect::<Result<Vec<f64>>>()?
                .into_iter()
                .fold(0.0, f64::max);
            outln!(
                "    {:<10} {:>7.2} M lines/s ({:.2}x the trace layer's reader)",
                "msr (csv)",
                best / 1e6,
                best / msr_rate
            )?;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Lines per second of the MSR file read through the csv crate's byte records and atoi's
/// checked integer parser, each line taken as the trace layer takes it (a header line skipped,
/// seven fields, the disk a 32-bit number, Read or Write in any case, the timestamp's 100 ns
/// ticks in nanoseconds without overflow), the request's fields summed rather than built:
/// what a csv-based MSR reader would cost. BENCHMARKS.md ("Traces") compares it with the
/// trace layer's own reader.
fn msr_via_csv(path: &Path) -> Result<f64> {
    use atoi::FromRadix10Checked;
    let start = Instant::now();
    let bad = |m: String| Error::Invalid(format!("{}: {m}", path.display()));
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .map_err(|e| bad(e.to_string()))?;
    let mut rec = csv::ByteRecord::new();
    let (mut lines, mut checksum) = (0u64, 0u64);
    while r.read_byte_record(&mut rec).map_err(|e| bad(e.to_string()))? {
        lines += 1;
        let field = |i: usize| rec.get(i).map(|f| f.trim_ascii()).unwrap_or_default();
        let num = |i: usize| match u64::from_radix_10_checked(field(i)) {
            (Some(v), n) if n == field(i).len() && n > 0 => Ok(v),
            _ => Err(bad(format!("line {lines}: field {i} is not a number"))),
        };
        if rec.len() != 7 {
            return Err(bad(format!("line {lines}: {} fields; expected 7", rec.len())));
        }
        if field(0).eq_ignore_ascii_case(b"Timestamp") {
            continue;
        }
        let time = num(0)?
            .checked_mul(100)
            .ok_or_else(|| bad(format!("line {lines}: timestamp too large")))?;
        let disk = u32::try_from(num(2)?).map_err(|_| bad(format!("line {lines}: disk too large")))?;
        let read = if field(3).eq_ignore_ascii_case(b"Read") {
            1
        } else if field(3).eq_ignore_ascii_case(b"Write") {
            0
        } else {
            return Err(bad(format!("line {lines}: no Read or Write")));
        };
        let (offset, size) = (num(4)?, num(5)?);
        checksum = checksum.wrapping_add(offset ^ time ^ size ^ read ^ disk as u64);
    }
    std::hint::black_box(checksum);
    Ok(lines as f64 / start.elapsed().as_secs_f64())
}

fn trace_replay() -> Result<()> {
    outln!("  trace replay on the mlc-sata preset (open loop at trace timestamps, addresses wrapped):")?;
    for name in ["ssd-iozone-aligned2-100K.trace", "cloudPhysicsIO.csv"] {
        // The public traces, from the traces folder (`ssdlab traces fetch`).
        ssdlab_core::trace::catalogue::path(name).map_err(|e| Error::Invalid(format!("trace-replay: {e}")))?;
        let text = format!(
            "[device]\npreset = \"mlc-sata\"\n[[job]]\nname = \"replay\"\n[job.trace]\nfile = \"@{name}\"\naddress = \"wrap\"\n"
        );
        let cfg = parse_config(&text, "bench", Path::new("."))?;
        let t0 = Instant::now();
        let mut sim = Simulation::new(&cfg)?;
        let build = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let r = sim.run(&mut |_| {})?;
        let secs = t1.elapsed().as_secs_f64();
        outln!(
            "    {name:<32} {:>7} requests replayed in {secs:.3} s = {:>9.0} requests/s (+ {build:.2} s to build the 256 GiB device; simulated {:.2} s)",
            r.ssd.requests,
            r.ssd.requests as f64 / secs,
            r.ssd.sim_time_ns as f64 / 1e9
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_comparison_takes_lines_as_the_trace_layer_does() {
        let d = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = d.path().join(name);
            std::fs::write(&p, text).unwrap();
            msr_via_csv(&p)
        };
        let good = "128166385295514663,hm,0,Read,4096,4096,2833\n128166385295515663,hm,1,write,8192,512,10\n";
        assert!(file("good.csv", good).unwrap() > 0.0);
        for (bad, why) in [
            ("1,hm,0,Read,4096,4096\n", "6 fields; expected 7"),
            ("1,hm,0,Trim,4096,4096,1\n", "no Read or Write"),
            ("1,hm,4294967296,Read,0,4096,1\n", "disk too large"),
            ("184467440737095517,hm,0,Read,0,4096,1\n", "timestamp too large"),
            ("1,hm,0,Read,4k,4096,1\n", "field 4 is not a number"),
            ("1,hm,0,Read,0,,1\n", "field 5 is not a number"),
        ] {
            let e = file("bad.csv", bad).unwrap_err().to_string();
            assert!(e.contains(&format!("line 1: {why}")), "{bad}: {e}");
        }
    }
}
