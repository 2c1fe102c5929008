//! `ssdlab characterize DEVICE`: an Iometer-style sweep of mixed reads and writes (seed 000,
//! section 3) on a simulated drive: throughput by read share per pattern, request size and
//! queue depth, the read-only gain laid out as the seed's Tables 2 and 3, SVG plots like its
//! Figures 1 to 4, and the profile as JSON.

use clap::Args;
use ssdlab_core::array::profile::{DeviceProfile, Pattern};
use ssdlab_core::units::fmt_size;
use ssdlab_core::{config, Error, Result};
use ssdlab_lab::characterize::{characterize, gains, Sweep};
use ssdlab_lab::plot::{chart_with, Line};
use std::path::Path;

#[derive(Args)]
pub struct CharacterizeArgs {
    /// A preset name or a run file (its [device] and [precondition]; its jobs are ignored).
    device: String,
    /// The short sweep (a few seconds): 8 MiB sequential at depth 2, reads 0 to 100 % in
    /// 25 % steps, 256 MiB per point. The options below narrow or change it.
    #[arg(long)]
    quick: bool,
    /// Request sizes (default: 2MiB,8MiB,32MiB).
    #[arg(long, value_delimiter = ',', value_parser = crate::parse_size_arg)]
    sizes: Vec<u64>,
    /// Queue depths (default: 2,4,8).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
    depths: Vec<u32>,
    /// Read-share step in percent: 0, STEP, 2 STEP, ... and 100 (default: 5).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    step: Option<u32>,
    /// Access patterns: seq, rand (default: both).
    #[arg(long, value_delimiter = ',', value_parser = parse_pattern)]
    patterns: Vec<Pattern>,
    /// Working range from offset 0 (default: 20GiB).
    #[arg(long, value_parser = crate::parse_size_arg)]
    range: Option<u64>,
    /// Bytes moved per point, reads and writes together (default: 1GiB).
    #[arg(long, value_parser = crate::parse_size_arg)]
    per_point: Option<u64>,
    /// Set a key of the device's config, e.g. `--set device.ftl.write_buffer=0` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the profile (every point) as JSON to this file.
    #[arg(long, short, value_name = "FILE")]
    output: Option<String>,
    /// Draw SVG plots of throughput against read share into this directory: per pattern and
    /// depth one line per size (the seed's Figures 1 and 2), per pattern and size one line
    /// per depth (Figures 3 and 4).
    #[arg(long, value_name = "DIR")]
    plot: Option<String>,
    /// Points run at once (default: one per core). The result does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Refuse a sweep whose points running at once (and the preconditioned copy) need more
    /// memory than this (default: three quarters of physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    max_memory: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_pattern(s: &str) -> std::result::Result<Pattern, String> {
    match s.trim() {
        "seq" | "sequential" => Ok(Pattern::Sequential),
        "rand" | "random" => Ok(Pattern::Random),
        _ => Err(format!("got '{s}'; expected seq or rand")),
    }
}

fn pattern_name(p: Pattern) -> &'static str {
    match p {
        Pattern::Sequential => "seq",
        Pattern::Random => "rand",
    }
}

/// The sweep the options ask for.
fn sweep(a: &CharacterizeArgs) -> Sweep {
    let mut s = if a.quick { Sweep::quick() } else { Sweep::seed_000() };
    if !a.sizes.is_empty() {
        s.sizes = a.sizes.clone();
    }
    if !a.depths.is_empty() {
        s.depths = a.depths.clone();
    }
    if let Some(step) = a.step {
        s.read_shares = (0..=100).step_by(step as usize).collect();
        if s.read_shares.last() != Some(&100) {
            s.read_shares.push(100);
        }
    }
    if !a.patterns.is_empty() {
        let mut p = a.patterns.clone();
        p.sort();
        p.dedup();
        s.patterns = p;
    }
    if let Some(r) = a.range {
        s.range = r;
    }
    if let Some(n) = a.per_point {
        s.per_point = n;
    }
    s
}

pub fn run(a: CharacterizeArgs) -> Result<()> {
    let cfg = config::load_config_with(&a.device, &a.set)?;
    let s = sweep(&a);
    let threads = a
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if let Some(limit) = a.max_memory.or_else(crate::default_memory_limit) {
        let mut one = cfg.clone();
        one.job.clear();
        let copies = threads.min(s.points().len()) as u64 + 1;
        let need = copies * ssdlab_core::sim::memory_estimate(&one)?;
        if need > limit {
            let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
            return Err(Error::Invalid(format!(
                "--threads: {} copies of {}'s state need about {}, above the limit of {}; expected fewer --threads or a higher --max-memory",
                copies,
                cfg.device.name,
                gib(need),
                gib(limit)
            )));
        }
    }
    // Outputs that cannot be written are found now, not after the sweep.
    if let Some(o) = &a.output {
        crate::check_output(o, &cfg.input_files())?;
    }
    if let Some(dir) = &a.plot {
        ssdlab_core::output::check_dir(dir, true)
            .map_err(|why| Error::Invalid(format!("--plot: {why}; expected a writable directory")))?;
    }
    let pool = ssdlab_lab::experiment::thread_pool(threads)?;
    let bar = crate::experiment_cmd::points_bar(a.quiet, "points");
    let start = std::time::Instant::now();
    let profile =
        pool.install(|| characterize(&cfg, &s, &|done, total| crate::experiment_cmd::show(&bar, done, total)))?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(path) = &a.output {
        profile.save(Path::new(path))?;
    }
    if let Some(dir) = &a.plot {
        plots(&profile, &s, &cfg.device.name, dir).map_err(|e| match &a.output {
            Some(o) => Error::Invalid(format!("--plot: {e} (the profile was written to {o})")),
            None => Error::Invalid(format!("--plot: {e}")),
        })?;
    }
    out!(
        "{}",
        report(&profile, &s, &cfg.device.name, start.elapsed().as_secs_f64())
    )?;
    Ok(())
}

/// The text report: the sweep, throughput by read share, and the read-only gain tables.
fn report(profile: &DeviceProfile, s: &Sweep, name: &str, secs: f64) -> String {
    let mut out = format!(
        "{name}: {} points ({}; {}; depth {}; reads {} %; {} range, {} per point) in {secs:.1} s\n\n",
        profile.points.len(),
        s.patterns
            .iter()
            .map(|&p| pattern_name(p))
            .collect::<Vec<_>>()
            .join(", "),
        s.sizes.iter().map(|&b| fmt_size(b)).collect::<Vec<_>>().join(", "),
        s.depths.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "),
        s.read_shares
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        fmt_size(s.range),
        fmt_size(s.per_point),
    );
    out += "Throughput (MB/s) by read share (%)\n";
    out += &format!("{:<5} {:>7} {:>5}", "", "size", "depth");
    for r in &s.read_shares {
        out += &format!(" {:>6}", r);
    }
    out += "\n";
    for &p in &s.patterns {
        for &bs in &s.sizes {
            for &d in &s.depths {
                out += &format!("{:<5} {:>7} {:>5}", pattern_name(p), fmt_size(bs), d);
                for &r in &s.read_shares {
                    let v = profile
                        .points
                        .iter()
                        .find(|q| q.pattern == p && q.bs == bs && q.depth == d && q.read_share == r as f64 / 100.0)
                        .map_or(f64::NAN, |q| q.mb_s());
                    out += &format!(" {:>6.1}", v);
                }
                out += "\n";
            }
        }
    }
    let g = gains(profile);
    for &p in &s.patterns {
        let what = match p {
            Pattern::Sequential => "sequential (the seed's Table 2)",
            Pattern::Random => "random (the seed's Table 3)",
        };
        out += &format!("\nRead-only gain P = RT - AT, {what}: MB/s, and % of AT\n");
        out += &format!("{:>7}", "size");
        for d in &s.depths {
            out += &format!(" {:>8}", format!("d={d}"));
        }
        for d in &s.depths {
            out += &format!(" {:>8}", format!("d={d} %"));
        }
        out += "\n";
        for &bs in &s.sizes {
            out += &format!("{:>7}", fmt_size(bs));
            let row: Vec<(f64, f64)> = s
                .depths
                .iter()
                .map(|&d| {
                    g.iter()
                        .find(|x| x.0 == p && x.1 == bs && x.2 == d)
                        .map_or((f64::NAN, f64::NAN), |x| (x.3, x.4))
                })
                .collect();
            for (mb, _) in &row {
                out += &format!(" {mb:>8.1}");
            }
            for (_, pc) in &row {
                out += &format!(" {pc:>8.1}");
            }
            out += "\n";
        }
    }
    out
}

/// SVG plots of throughput against read share.
fn plots(profile: &DeviceProfile, s: &Sweep, name: &str, dir: &str) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let line = |p: Pattern, bs: u64, d: u32, label: String| Line {
        label,
        points: profile
            .points
            .iter()
            .filter(|q| q.pattern == p && q.bs == bs && q.depth == d)
            .map(|q| (100.0 * q.read_share, q.mb_s()))
            .collect(),
    };
    let file = |f: String| Path::new(dir).join(f).to_string_lossy().into_owned();
    for &p in &s.patterns {
        for &d in &s.depths {
            let lines: Vec<Line> = s.sizes.iter().map(|&bs| line(p, bs, d, fmt_size(bs))).collect();
            let title = format!("{name}: {} I/O, queue depth {d}", pattern_name(p));
            chart_with(
                &file(format!("{}-d{d}.svg", pattern_name(p))),
                &title,
                ("read share (%)", false),
                "throughput (MB/s)",
                &lines,
                true,
            )?;
        }
        for &bs in &s.sizes {
            let lines: Vec<Line> = s.depths.iter().map(|&d| line(p, bs, d, format!("d={d}"))).collect();
            let title = format!("{name}: {} I/O, {} requests", pattern_name(p), fmt_size(bs));
            chart_with(
                &file(format!("{}-{}.svg", pattern_name(p), fmt_size(bs))),
                &title,
                ("read share (%)", false),
                "throughput (MB/s)",
                &lines,
                true,
            )?;
        }
    }
    Ok(())
}
