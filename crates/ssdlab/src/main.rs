//! The `ssdlab` command: a thin layer over `ssdlab-core`.

mod bench;
mod plot;
mod report;
mod trace_cmd;

use clap::{Parser, Subcommand, ValueEnum};
use ssdlab_core::{config, Error, Result};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ssdlab", version, about = "SSD and SSD-array simulator", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Normal,
    Json,
    /// fio's json+: JSON with the latency histograms' bins (`clat_ns.bins`).
    #[value(name = "json+")]
    JsonPlus,
}

#[derive(Subcommand)]
enum Cmd {
    /// Simulate a run: a config file or preset name (default: the tlc-nvme preset with its
    /// mixed 4 KiB random job).
    Run {
        /// Run config (TOML) or preset name.
        config: Option<String>,
        /// fio job file whose jobs replace the config's.
        #[arg(long)]
        job: Option<String>,
        #[arg(long, value_enum, default_value = "normal")]
        output_format: OutputFormat,
        /// Write the result here instead of standard output.
        #[arg(long, short)]
        output: Option<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Seed for preconditioning, GC randomness and jobs without their own seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Check the FTL invariants after the run (a full scan).
        #[arg(long)]
        check: bool,
        /// Set a config key on top of the file or preset, e.g.
        /// `--set device.scheduler.policy=fcfs` or `--set job.0.iodepth=8` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Draw SVG plots of the run into this directory (latency over time, latency CDF,
        /// WAF and free blocks over time).
        #[arg(long, value_name = "DIR")]
        plot: Option<String>,
    },
    /// Device presets.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Block traces: statistics and format conversion.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCmd),
    /// Speed and memory benchmarks of the engine (see BENCHMARKS.md).
    Bench(bench::BenchArgs),
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Print a preset in full.
    Show { name: String },
    /// List the presets.
    List,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let res = match cli.cmd {
        Cmd::Run {
            config,
            job,
            output_format,
            output,
            quiet,
            seed,
            check,
            set,
            plot,
        } => run(config, job, output_format, output, quiet, seed, check, &set, plot),
        Cmd::Config(ConfigCmd::Show { name }) => match config::preset_text(&name) {
            Some(t) => {
                print!("{t}");
                Ok(())
            }
            None => Err(Error::Invalid(format!(
                "unknown preset '{name}' (known: {})",
                config::preset_names().join(", ")
            ))),
        },
        Cmd::Config(ConfigCmd::List) => {
            for name in config::preset_names() {
                let c = config::load_config(name).expect("presets are valid");
                println!("{name:16} {}", c.device.description);
            }
            Ok(())
        }
        Cmd::Trace(t) => trace_cmd::run(t),
        Cmd::Bench(b) => bench::run(b),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ssdlab: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A progress bar on stderr, shown only for runs longer than a second on a terminal.
pub struct ProgressUi {
    bar: Option<indicatif::ProgressBar>,
    start: std::time::Instant,
    enabled: bool,
}

impl ProgressUi {
    pub fn new(quiet: bool) -> Self {
        ProgressUi {
            bar: None,
            start: std::time::Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }
    pub fn update(&mut self, done: u64, total: Option<u64>, msg: &str) {
        if !self.enabled || self.start.elapsed().as_secs_f64() < 1.0 {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let (b, template) = match total {
                Some(t) => (
                    indicatif::ProgressBar::new(t),
                    "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}",
                ),
                None => (
                    indicatif::ProgressBar::new_spinner(),
                    "{spinner} [{elapsed_precise}] {msg}",
                ),
            };
            b.set_style(indicatif::ProgressStyle::with_template(template).expect("template"));
            b
        });
        bar.set_position(done);
        bar.set_message(msg.to_string());
    }
    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    config: Option<String>,
    job: Option<String>,
    fmt: OutputFormat,
    output: Option<String>,
    quiet: bool,
    seed: Option<u64>,
    check: bool,
    set: &[String],
    plot: Option<String>,
) -> Result<()> {
    let mut cfg = config::load_config_with(config.as_deref().unwrap_or(config::DEFAULT_PRESET), set)?;
    if let Some(j) = job {
        let text = std::fs::read_to_string(&j).map_err(|e| Error::io(&j, e))?;
        cfg.job = ssdlab_core::workload::fio::parse_job_file(&text, &j)?;
        cfg.file = j.clone();
        cfg.validate()?;
    }
    if let Some(s) = seed {
        cfg.precondition.seed = s;
    }
    if !quiet && cfg.precondition.mode != config::PreconditionMode::None {
        eprintln!(
            "ssdlab: preconditioning {} ({}) ...",
            cfg.device.name,
            format!("{:?}", cfg.precondition.mode).to_lowercase()
        );
    }
    let mut pre_ui = ProgressUi::new(quiet);
    let mut sim = ssdlab_core::Simulation::with_progress(&cfg, &mut |done, planned| {
        pre_ui.update(
            done,
            None,
            &format!("preconditioning: {done} of at most {planned} units written"),
        );
    })?;
    pre_ui.finish();
    let mut ui = ProgressUi::new(quiet);
    let result = sim.run(&mut |p| {
        let t = ssdlab_core::units::fmt_duration(p.sim_time_ns / 1000 * 1000);
        ui.update(p.requests, p.expected, &format!("simulated {t}"));
    })?;
    ui.finish();
    for w in &result.ssd.warnings {
        eprintln!("ssdlab: warning: {w}");
    }
    if check {
        sim.device
            .ftl
            .check_invariants()
            .map_err(|m| Error::Invalid(format!("FTL invariant violated: {m}")))?;
    }
    if let Some(dir) = plot {
        plot::draw(&result, &dir)?;
    }
    let text = match fmt {
        OutputFormat::Json => serde_json::to_string_pretty(&result.without_bins()).expect("serialisable") + "\n",
        OutputFormat::JsonPlus => serde_json::to_string_pretty(&result).expect("serialisable") + "\n",
        OutputFormat::Normal => report::normal(&result),
    };
    match output {
        Some(path) => std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?,
        None => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(())
}
