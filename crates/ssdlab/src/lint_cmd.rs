//! `ssdlab lint WORKLOAD`: a trace or a run file's jobs against the seven SSD-friendly design
//! principles, each with a what-if simulation of its fix on a device. The report goes to
//! standard output, progress to standard error; the exit status is 0 whatever the verdicts
//! (2 for bad input).

use clap::Args;
use ssdlab_core::config;
use ssdlab_core::trace::{Devices, Format, ReaderOptions};
use ssdlab_core::{Error, Result};
use ssdlab_lab::lint::{self, LintOptions, Workload};
use std::io::IsTerminal;
use std::path::Path;

#[derive(Args)]
pub struct LintArgs {
    /// A trace (any format `ssdlab trace` reads) or a run file (`.toml`) whose jobs to check.
    workload: String,
    /// Device: a preset name or a run file whose [device] to use (default: the tlc-nvme
    /// preset for a trace, the run file's own device for a run file).
    #[arg(long)]
    device: Option<String>,
    /// Set a key of the device's config, e.g. `--set device.ftl.gc_policy=fifo` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Trace format (see `ssdlab trace formats`); default: guessed from the content.
    #[arg(long, short, default_value = "auto")]
    format: String,
    /// Only these devices / volumes / LUNs of the trace (repeat or separate with commas).
    #[arg(long, value_delimiter = ',')]
    trace_device: Vec<u32>,
    #[command(flatten)]
    traces: crate::traces_cmd::TracesDir,
    /// Skip and count malformed trace lines instead of stopping at the first one.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Share of the logical space holding data, from 0 to 1 (default: the device config's
    /// preconditioning utilisation, else 0.8).
    #[arg(long, value_parser = parse_share)]
    utilisation: Option<f64>,
    /// Requests analysed and replayed: the workload's first ones.
    #[arg(long, default_value_t = LintOptions::default().max_requests, value_parser = clap::value_parser!(u64).range(1..))]
    max_requests: u64,
    /// Most 4 KiB pages of footprint kept (about 50 bytes each).
    #[arg(long, default_value_t = LintOptions::default().max_pages as u64, value_parser = clap::value_parser!(u64).range(1..))]
    max_pages: u64,
    /// Replay the trace's timestamps this much faster.
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    speed: f64,
    /// Refuse a lint whose estimated memory (two copies of the device's state) is above this
    /// size (default: three quarters of the machine's physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    max_memory: Option<u64>,
    /// Check only this principle, 1 to 7 (repeatable; default: all seven).
    #[arg(long = "check", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=7))]
    checks: Vec<u32>,
    /// The findings as text to read, or as JSON.
    #[arg(long, value_enum, default_value = "text")]
    output_format: crate::TextOrJson,
    /// No progress messages (they go to standard error when it is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

// The share and the speed stay parsed here: clap's ranged value parsers are for integers,
// and these are fractions with open bounds.
fn parse_share(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!("got '{s}'; expected a share above 0 and below 1, e.g. 0.8")),
    }
}

fn parse_speed(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("got '{s}'; expected a positive factor such as 1 or 10")),
    }
}

pub fn run(a: LintArgs) -> Result<()> {
    a.traces.apply();
    let path = Path::new(&a.workload);
    // `@NAME`, a public trace: the trace reader finds it (or says how to fetch it).
    let public = a.workload.starts_with('@');
    if !public && !path.exists() {
        return Err(Error::Config(format!(
            "{}: no such file; expected a trace or a run file (.toml)",
            a.workload
        )));
    }
    if path.is_dir() {
        return Err(Error::Config(format!(
            "{}: is a directory; expected a trace or a run file (.toml)",
            a.workload
        )));
    }
    let run_file = !public && path.extension().is_some_and(|e| e == "toml");
    let (workload, default_device) = if run_file {
        let cfg = config::load_config(&a.workload)?;
        if cfg.job.is_empty() {
            return Err(Error::Config(format!(
                "{}: no [[job]]; expected a run file with jobs to check",
                a.workload
            )));
        }
        (Workload::Jobs { cfg: Box::new(cfg) }, a.workload.clone())
    } else {
        let format = Format::from_name(&a.format).map_err(|e| Error::Config(format!("--format: {e}")))?;
        (
            Workload::Trace {
                path: a.workload.clone(),
                options: ReaderOptions {
                    format,
                    skip_bad_lines: a.skip_bad_lines,
                },
                devices: Devices::only(a.trace_device.iter().copied()),
            },
            config::DEFAULT_PRESET.to_string(),
        )
    };
    let device = config::load_config_with(a.device.as_deref().unwrap_or(&default_device), &a.set)?;
    if let Some(limit) = a.max_memory.or_else(crate::default_memory_limit) {
        let mut one = device.clone();
        one.job.clear();
        let need = 2 * ssdlab_core::sim::memory_estimate(&one)?;
        if need > limit {
            let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
            return Err(Error::Config(format!(
                "--max-memory: the lint needs about {} (two copies of {}'s state), above the limit of {}; expected a smaller device or a higher --max-memory",
                gib(need),
                device.device.name,
                gib(limit)
            )));
        }
    }
    let opts = LintOptions {
        max_requests: a.max_requests,
        max_pages: a.max_pages.min(usize::MAX as u64) as usize,
        utilisation: a.utilisation,
        speed: a.speed,
        checks: a.checks,
        ..Default::default()
    };
    // Progress on a terminal only: standard error stays one line per error in pipelines.
    let quiet = a.quiet || !std::io::stderr().is_terminal();
    let start = std::time::Instant::now();
    let report = lint::lint(&workload, &device, &opts, &mut |m| {
        if !quiet {
            eprintln!("ssdlab: lint: [{:.1} s] {m}", start.elapsed().as_secs_f64());
        }
    })?;
    let text = match a.output_format {
        crate::TextOrJson::Json => serde_json::to_string_pretty(&report).expect("serialisable") + "\n",
        crate::TextOrJson::Text => report.text(),
    };
    out!("{text}")?;
    Ok(())
}
