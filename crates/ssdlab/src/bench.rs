//! `ssdlab bench`: engine speed and memory, the figures BENCHMARKS.md quotes.
//!
//! Cases (device: TLC timing, 16 KiB pages, 4 KiB mapping unit, 64 MiB write buffer,
//! greedy GC, 128 planes; capacity per case):
//! - `randwrite`: 4 KiB uniform random writes at steady state, 64 GiB at α = 1.10, QD 32;
//!   the garbage collection they cause is inside the timed part.
//! - `randread`: 4 KiB uniform random reads on the same device, QD 32.
//! - `mixed`: 70/30 random reads/writes, QD 32.
//! - `precondition`: a 512 GiB device to random-write steady state at 75 % utilisation.
//! - `memory`: a 1 TiB device (256 Mi pages) preconditioned to steady state; peak RSS.
use clap::Args;
use ssdlab_core::config::{parse_config, PreconditionMode};
use ssdlab_core::{Error, Result, Simulation};
use std::path::Path;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Cases to run: randwrite, randread, mixed, precondition, memory (default: the first four).
    #[arg(long, value_delimiter = ',')]
    case: Vec<String>,
    /// Requests per timed run.
    #[arg(long, default_value_t = 4_000_000)]
    requests: u64,
    /// Small devices and few requests: checks that the benchmarks run.
    #[arg(long)]
    quick: bool,
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

fn timed_run(gib: u64, op: f64, job: &str, requests: u64) -> Result<()> {
    let text = format!(
        "{}[precondition]\nmode = \"steady\"\nutilisation = 1.0\n[[job]]\nname = \"bench\"\n{job}\niodepth = 32\nnumber_ios = {requests}\n",
        device(gib, op)
    );
    let cfg = parse_config(&text, "bench", Path::new("."))?;
    let t0 = Instant::now();
    let mut sim = Simulation::new(&cfg)?;
    let pre = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let r = sim.run(&mut |_| {})?;
    let secs = t1.elapsed().as_secs_f64();
    println!(
        "  {:<34} {:>10.0} host requests/s  ({requests} requests in {secs:.2} s; WAF {:.2}, GC runs {}; precondition {pre:.1} s)",
        job.replace('\n', " "),
        requests as f64 / secs,
        r.ssd.waf,
        r.ssd.gc["runs"]
    );
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
    let g = &sim.device.geo;
    println!(
        "  precondition {gib} GiB ({} Mi pages) to steady state at {:.0} % utilisation: {secs:.1} s, peak RSS {:.2} GiB ({:.2} bytes per physical page)",
        g.physical_units >> 20,
        utilisation * 100.0,
        peak_rss_kib() as f64 / (1 << 20) as f64,
        peak_rss_kib() as f64 * 1024.0 / g.physical_units as f64
    );
    Ok(())
}

pub fn run(a: BenchArgs) -> Result<()> {
    let cases: Vec<String> = if a.case.is_empty() {
        ["randwrite", "randread", "mixed", "precondition"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        a.case.clone()
    };
    let (small, big, huge, n) = if a.quick {
        (32, 32, 32, 20_000)
    } else {
        (64, 512, 1024, a.requests)
    };
    println!(
        "ssdlab bench ({} core(s) available, one used)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for c in &cases {
        match c.as_str() {
            "randwrite" => timed_run(small, 0.10, "rw = \"randwrite\"\nbs = \"4KiB\"", n)?,
            "randread" => timed_run(small, 0.10, "rw = \"randread\"\nbs = \"4KiB\"", n)?,
            "mixed" => timed_run(small, 0.10, "rw = \"randrw\"\nrwmixread = 70\nbs = \"4KiB\"", n)?,
            "precondition" => precondition_case(big, 0.75)?,
            "memory" => precondition_case(huge, 0.75)?,
            other => {
                return Err(Error::Invalid(format!(
                    "--case: unknown benchmark '{other}' (expected randwrite, randread, mixed, precondition, memory)"
                )))
            }
        }
    }
    Ok(())
}
