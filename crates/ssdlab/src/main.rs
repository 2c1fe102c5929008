//! The `ssdlab` command: a thin layer over `ssdlab-core`.

// The allocator keeps memory a finished point freed and gives it to the next one, which then
// skips the kernel's zeroing of fresh pages (see BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `print!` that returns a failed write as an error (`ssdlab_core::output::print`) instead of
/// panicking: every command writes standard output through it.
macro_rules! out {
    ($($t:tt)*) => {
        ssdlab_core::output::print(format!($($t)*))
    };
}

/// `println!` as [`out!`] does it.
macro_rules! outln {
    ($($t:tt)*) => {
        ssdlab_core::output::print(format!("{}\n", format_args!($($t)*)))
    };
}

mod bench;
mod characterize_cmd;
mod experiment_cmd;
mod interrupt;
mod lifetime_cmd;
mod lint_cmd;
mod precondition_cmd;
mod profile_cmd;
mod report;
mod serve_cmd;
mod trace_cmd;
mod traces_cmd;

use clap::{Parser, Subcommand, ValueEnum};
use ssdlab_core::{config, Error, Result};
use std::io::IsTerminal;
use std::process::ExitCode;

/// `--output-format text|json` of the commands without fio's formats.
pub use trace_cmd::StatsOutput as TextOrJson;

#[derive(Parser)]
#[command(name = "ssdlab", version, about = "SSD simulator: flash, FTL and scheduling, driven by fio-style jobs or block traces", long_about = None)]
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
    Run(RunArgs),
    /// Device presets.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Block traces: statistics and format conversion.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCmd),
    /// The public traces the experiments, benchmarks and docs replay: `ssdlab traces fetch`
    /// downloads them (checked against their SHA-256), `ssdlab traces list` shows them.
    #[command(subcommand)]
    Traces(traces_cmd::TracesCmd),
    /// Speed and memory benchmarks of the engine (see BENCHMARKS.md).
    Bench(bench::BenchArgs),
    /// Seed reproductions: `ssdlab experiment list`, `ssdlab experiment NAME [--quick]`.
    Experiment(experiment_cmd::ExperimentArgs),
    /// How long the flash lasts: capacity x P/E cycles / (host write rate x WAF), from flags
    /// or from a run's JSON result.
    Lifetime(lifetime_cmd::LifetimeArgs),
    /// Check a trace or a run file's jobs against the seven SSD-friendly design principles,
    /// each with a what-if simulation of its fix on a device.
    Lint(lint_cmd::LintArgs),
    /// Measure a real drive with fio (a file on it, or the block device): throughput and
    /// latency by pattern, request size, depth and read share, written as a device profile
    /// that an array can use as a member.
    Profile(profile_cmd::ProfileArgs),
    /// Sweep a drive's throughput by read share, request size, queue depth and pattern
    /// (Iometer style) and give its read-only gain.
    Characterize(characterize_cmd::CharacterizeArgs),
    /// Serve a simulated SSD as an NBD export (through nbdkit) until Ctrl-C, then print the
    /// statistics of what the clients sent.
    Serve(serve_cmd::ServeArgs),
    /// Precondition a run file's device and save the aged state as a snapshot file, which
    /// `ssdlab run --from-snapshot FILE` starts from instead of preconditioning again.
    Precondition(precondition_cmd::PreconditionArgs),
}

/// `ssdlab run`'s arguments.
#[derive(clap::Args)]
struct RunArgs {
    /// Run config (TOML) or preset name.
    config: Option<String>,
    /// fio job file whose jobs replace the config's.
    #[arg(long)]
    job: Option<String>,
    /// How the result is written: a summary to read (normal), fio's JSON (json), or fio's
    /// JSON with the latency histograms' bins (json+, which fio_jsonplus_clat2csv reads).
    #[arg(long, value_enum, default_value = "normal")]
    output_format: OutputFormat,
    /// Write the result here instead of standard output.
    #[arg(long, short)]
    output: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Seed for preconditioning, GC randomness and jobs without their own seed.
    #[arg(long, value_parser = parse_seed, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Check the FTL invariants after the run (a full scan).
    #[arg(long)]
    check: bool,
    /// Set a config key on top of the file or preset, e.g.
    /// `--set device.scheduler.policy=fcfs` or `--set job.0.iodepth=8` (repeatable; with
    /// `--job`, `job.N.KEY` and `job.*.KEY` set the job file's jobs).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Refuse a run whose estimated memory is above this size (default: three quarters
    /// of the machine's physical memory), e.g. `--max-memory 4GiB`.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    max_memory: Option<u64>,
    /// Draw SVG plots of the run into this directory (latency over time, latency CDF,
    /// WAF and free blocks over time).
    #[arg(long, value_name = "DIR")]
    plot: Option<String>,
    /// Start from the aged drive in this snapshot file (`ssdlab precondition -o FILE`)
    /// instead of preconditioning: the run's device and [precondition] must be the
    /// snapshot's, and the result is the same as preconditioning gives.
    #[arg(long, value_name = "FILE")]
    from_snapshot: Option<String>,
    #[command(flatten)]
    traces: traces_cmd::TracesDir,
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Print a preset in full: its file, then every key it leaves at its default.
    Show { name: String },
    /// List the presets.
    List,
    /// Print every option of fio's job files and what a simulated drive does with it
    /// (implemented, ignored or refused, and why), as the Markdown table of docs/fio.md.
    FioOptions,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            // --help and --version, through the same checked write as every output.
            return match ssdlab_core::output::print(e.render().to_string()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => failed(e),
            };
        }
        Err(e) => {
            eprintln!("ssdlab: error: {}", ssdlab_core::error::one_line(cli_error(&e)));
            return ExitCode::from(2);
        }
    };
    match &cli.cmd {
        Cmd::Run(RunArgs { output, .. }) => interrupt::install(&format!(
            "run stopped; nothing written{}",
            output.as_deref().map_or(String::new(), |o| format!(" ({o} untouched)"))
        )),
        Cmd::Experiment(_) => interrupt::install("experiment stopped; nothing written"),
        Cmd::Characterize(_) => interrupt::install("characterize stopped; nothing written"),
        Cmd::Lint(_) => interrupt::install("lint stopped; nothing written"),
        Cmd::Traces(_) => interrupt::install("traces stopped; nothing of the trace being fetched kept"),
        Cmd::Precondition(a) => interrupt::install(&format!(
            "precondition stopped; nothing written ({} untouched)",
            a.output
        )),
        _ => {}
    }
    let res = match cli.cmd {
        Cmd::Run(a) => {
            a.traces.apply();
            run(a)
        }
        Cmd::Config(c) => config_cmd(c),
        Cmd::Trace(t) => trace_cmd::run(t),
        Cmd::Traces(t) => traces_cmd::run(t),
        Cmd::Bench(b) => bench::run(b),
        Cmd::Experiment(a) => experiment_cmd::run(a),
        Cmd::Lifetime(a) => lifetime_cmd::run(a),
        Cmd::Lint(a) => lint_cmd::run(a),
        Cmd::Precondition(a) => precondition_cmd::run(a),
        Cmd::Profile(a) => profile_cmd::run(a),
        Cmd::Characterize(a) => characterize_cmd::run(a),
        Cmd::Serve(a) => serve_cmd::run(a),
    };
    match res {
        // A signal that came as the work ended: what was written is whole.
        Ok(()) if interrupt::signal().is_some() => {
            interrupt::stopped("stopped as it ended; its outputs were written whole".into());
            let (line, status) = interrupt::report();
            eprintln!("{line}");
            ExitCode::from(status)
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Interrupted) => {
            let (line, status) = interrupt::report();
            eprintln!("{line}");
            ExitCode::from(status)
        }
        Err(e) => failed(e),
    }
}

/// The exit of a command that failed with `e`: one line and status 2, or, when standard
/// output's reader has gone (`ssdlab ... | head -1`), no line and status 141, the status a
/// shell reports for a Unix tool that SIGPIPE ended.
fn failed(e: Error) -> ExitCode {
    use ssdlab_core::output::{closed_pipe, stdout_error, STDOUT};
    if closed_pipe(&e) {
        return ExitCode::from(128 + 13);
    }
    let e = match e {
        // A stream written to standard output (`trace convert`) fails as a direct write does.
        Error::Io { path, source } if path == STDOUT => stdout_error(source),
        e => e,
    };
    eprintln!("ssdlab: error: {}", e.message());
    ExitCode::from(2)
}

/// `config show NAME` and `config list`.
fn config_cmd(c: ConfigCmd) -> Result<()> {
    match c {
        ConfigCmd::Show { name } => match config::preset_text(&name) {
            Some(t) => out!(
                "{}",
                with_bytes(&format!("{t}{}", config::preset_defaults(&name).unwrap_or_default()))
            ),
            // A built-in hard disk: its file as it is (its keys are the hard-disk model's).
            None => match ssdlab_core::hdd::PRESETS.iter().find(|(n, _)| *n == name) {
                Some((_, t)) => out!("{t}"),
                None => Err(Error::Invalid(format!(
                    "{name}: unknown preset; expected one of {}",
                    all_preset_names().join(", ")
                ))),
            },
        },
        ConfigCmd::List => {
            let mut text = String::new();
            for name in config::preset_names() {
                let c = config::load_config(name).expect("presets are valid");
                text.push_str(&format!("{name:20} {}\n", c.device.description));
            }
            for (name, _) in ssdlab_core::hdd::PRESETS {
                let d = ssdlab_core::hdd::HddConfig::named(name).expect("the built-in disks are valid");
                text.push_str(&format!("{name:20} {} (hard disk)\n", d.description));
            }
            out!("{text}")
        }
        ConfigCmd::FioOptions => out!("{}", ssdlab_core::workload::fio_options::markdown()),
    }
}

/// A preset's TOML with each size and rate written with a byte unit followed by its bytes
/// (`page_size = "16KiB"  # 16384 B`): "10GB" is 10^10 bytes, fio's "10g" 10 GiB.
fn with_bytes(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        let value = line
            .split_once(" = \"")
            .filter(|(k, _)| !k.trim_start().starts_with('#'))
            .and_then(|(_, v)| v.strip_suffix('"'));
        if let Some(v) = value {
            let units = ssdlab_core::units::parse_size(v).map(|b| format!("{b} B"));
            let rate = ssdlab_core::units::parse_rate(v).map(|b| format!("{b} B/s"));
            // A byte unit written out (B, KiB, MB): not a bare number, not fio's k/m/g.
            match (units, rate) {
                (Ok(b), _) if v.ends_with('B') => out.push_str(&format!("  # {b}")),
                (_, Ok(b)) => out.push_str(&format!("  # {b}")),
                _ => {}
            }
        }
        out.push('\n');
    }
    out
}

/// A command-line error on one line: `ARG: what was wrong; expected WHAT`.
///
/// Kept rather than clap's own rendering: clap's messages run over several lines (a usage
/// block, a tip) and do not say what was expected, and the project's contract for bad input
/// is one line in that form; clap's error kinds and context carry all this needs.
fn cli_error(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let ctx = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        Some(ContextValue::StyledStrs(v)) => Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ")),
        _ => None,
    };
    // `--output-format <OUTPUT_FORMAT>` → `--output-format`, `<FILE>` → `FILE`.
    let arg = ctx(ContextKind::InvalidArg)
        .or_else(|| ctx(ContextKind::InvalidSubcommand))
        .map(|a| {
            // A positional argument comes as `<NAME>`: named without the brackets.
            let a = a.split(" <").next().unwrap_or("").trim();
            a.strip_prefix('<')
                .and_then(|a| a.strip_suffix('>'))
                .unwrap_or(a)
                .to_string()
        })
        .unwrap_or_else(|| "ssdlab".into());
    let value = ctx(ContextKind::InvalidValue).unwrap_or_default();
    let suggested = ctx(ContextKind::SuggestedArg)
        .or_else(|| ctx(ContextKind::SuggestedValue))
        .or_else(|| ctx(ContextKind::SuggestedSubcommand));
    let hint = suggested.map(|s| format!(" (did you mean {s}?)")).unwrap_or_default();
    match e.kind() {
        ErrorKind::InvalidValue => match ctx(ContextKind::ValidValue) {
            Some(valid) => format!("{arg}: invalid value '{value}'; expected one of {valid}{hint}"),
            None => format!("{arg}: missing value; expected a value after it"),
        },
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_default();
            if why.contains("; expected") {
                format!("{arg}: {why}")
            } else if let Some(range) = why.split(" is not in ").nth(1) {
                // clap's ranged integers: `0 is not in 1..=1024`, `0 is not in 1..`.
                let expected = match range.split_once("..").map(|(lo, hi)| (lo, hi.trim_start_matches('='))) {
                    Some((lo, hi)) if hi.is_empty() || hi == u64::MAX.to_string() => {
                        format!("a whole number of at least {lo}")
                    }
                    Some((lo, hi)) => format!("a whole number from {lo} to {hi}"),
                    None => format!("a whole number in {range}"),
                };
                format!("{arg}: invalid value '{value}'; expected {expected}")
            } else {
                format!("{arg}: invalid value '{value}': {why}; expected a valid value (see --help)")
            }
        }
        // `--threads -1`: a negative number taken for an option; named as the value it is.
        // `-1GiB`, `-5`: a minus sign then a digit.
        ErrorKind::UnknownArgument
            if arg
                .strip_prefix('-')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit() || c == '.')) =>
        {
            let args: Vec<String> = std::env::args().collect();
            // The whole word (`-1GiB`, of which clap names `-1`) and the option before it.
            let at = args.iter().position(|a| a.starts_with(arg.as_str()));
            match at.and_then(|i| Some((&args[i], args.get(i.checked_sub(1)?)?))) {
                Some((word, opt)) if opt.starts_with("--") => {
                    format!("{opt}: invalid value '{word}'; expected a value that is not negative (see --help)")
                }
                _ => format!("{arg}: unknown option; expected one of the options in --help"),
            }
        }
        // A word that is no option: clap reports an argument beyond the command's last
        // positional one as an unknown argument.
        ErrorKind::UnknownArgument if !arg.starts_with('-') => {
            format!("{arg}: an argument more than the command takes; expected the usage in --help")
        }
        ErrorKind::UnknownArgument => format!("{arg}: unknown option{hint}; expected one of the options in --help"),
        ErrorKind::InvalidSubcommand => {
            format!(
                "{arg}: unknown command{hint}; expected one of {} (see --help)",
                command_names()
            )
        }
        ErrorKind::MissingRequiredArgument => {
            format!("{arg}: missing; expected it on the command line (see --help)")
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            format!("missing command; expected one of {} (see --help)", command_names())
        }
        // `--job A --job B`: the same option twice; `--a --b`: two that exclude each other.
        ErrorKind::ArgumentConflict => match ctx(ContextKind::PriorArg) {
            Some(prior) if prior.split(" <").next() == Some(arg.as_str()) || prior == arg => {
                format!("{arg}: given more than once; expected it once")
            }
            Some(prior) => {
                let prior = prior.split(" <").next().unwrap_or("").trim().to_string();
                format!("{arg}: cannot be given with {prior}; expected one of them (see --help)")
            }
            None => format!("{arg}: {}; expected the usage in --help", first_line(e)),
        },
        ErrorKind::TooManyValues => format!("{arg}: {}; expected one value", first_line(e)),
        _ => {
            let line = first_line(e);
            if line.contains("; expected") {
                line
            } else {
                format!("{line}; expected the usage in --help")
            }
        }
    }
}

/// The commands, as `run, config, ...`.
fn command_names() -> String {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
    names.join(", ")
}

/// The first line of clap's own message, without its `error: ` prefix.
fn first_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let line = text.lines().next().unwrap_or("").trim();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// A seed on the command line: a whole number of 64 bits. Parsed here rather than by clap's
/// `value_parser!(u64)`, whose error for `-1` or `x` says only "invalid digit found in
/// string" where this one names the range.
pub fn parse_seed(s: &str) -> std::result::Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| format!("invalid value '{s}'; expected a whole number from 0 to {}", u64::MAX))
}

/// A size on the command line (`4GiB`, `512MiB`, `1000000`).
pub fn parse_size_arg(s: &str) -> std::result::Result<u64, String> {
    ssdlab_core::units::parse_size(s)
}

/// Three quarters of the machine's physical memory, if known.
pub fn default_memory_limit() -> Option<u64> {
    ssdlab_core::sim::default_memory_limit()
}

/// The progress line's template: with a total, a bar, its share and an estimate of the time
/// left; without one, a spinner.
fn bar_template(total: bool) -> &'static str {
    if total {
        "{spinner} [{elapsed_precise}] {bar:30} {percent:>3}% ETA {eta} {msg}"
    } else {
        "{spinner} [{elapsed_precise}] {msg}"
    }
}

/// A run's progress as its bar shows it: (position, total, message). The total is the
/// requests the run issues when they are known, else its simulated length when every job
/// is bounded by its runtime (the position then in simulated microseconds); else none.
fn run_bar(p: &ssdlab_core::sim::Progress) -> (u64, Option<u64>, String) {
    let t = ssdlab_core::units::fmt_duration(p.sim_time_ns / 1000 * 1000);
    match (p.expected, p.horizon_ns) {
        (Some(e), _) => (
            p.requests,
            Some(e),
            format!("{} of {e} requests, simulated {t}", p.requests),
        ),
        (None, Some(h)) => (
            p.sim_time_ns.min(h) / 1000,
            Some(h / 1000),
            format!("simulated {t} of {}", ssdlab_core::units::fmt_duration(h)),
        ),
        (None, None) => (p.requests, None, format!("{} requests, simulated {t}", p.requests)),
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
            let b = match total {
                Some(t) => indicatif::ProgressBar::new(t),
                None => indicatif::ProgressBar::new_spinner(),
            };
            b.set_style(indicatif::ProgressStyle::with_template(bar_template(total.is_some())).expect("template"));
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

/// The SSD presets, then the built-in hard disks.
fn all_preset_names() -> Vec<&'static str> {
    let mut v = config::preset_names();
    v.extend(ssdlab_core::hdd::PRESETS.iter().map(|(n, _)| *n));
    v
}

fn run(a: RunArgs) -> Result<()> {
    let RunArgs {
        config,
        job,
        output_format: fmt,
        output,
        quiet,
        seed,
        check,
        set,
        max_memory,
        plot,
        from_snapshot,
        traces: _,
    } = a;
    let set = &set[..];
    // A hard disk (a built-in one, or a file of the hard-disk model's keys) runs on its model.
    if let Some(disk) = hdd_config(config.as_deref())? {
        if !set.is_empty() || plot.is_some() || from_snapshot.is_some() || check {
            return Err(Error::Invalid(
                "--set, --plot, --from-snapshot and --check are for SSDs; expected a hard disk run with --job, -o, --seed and --output-format only".into(),
            ));
        }
        return run_hdd(&disk, job, fmt, output, seed);
    }
    // With a fio job file, the job keys of --set are its jobs' (job.N.KEY, job.*.KEY for all).
    let (job_sets, sets): (Vec<String>, Vec<String>) = set
        .iter()
        .cloned()
        .partition(|s| job.is_some() && s.trim_start().starts_with("job."));
    let mut cfg = config::load_config_with(config.as_deref().unwrap_or(config::DEFAULT_PRESET), &sets)?;
    if let Some(j) = job {
        ssdlab_core::output::check_regular(&j, "a fio job file")?;
        let text = std::fs::read_to_string(&j)
            .map_err(|e| Error::Config(format!("{j}: cannot read it ({e}); expected a fio job file")))?;
        cfg.set_jobs_from_fio_with(&j, &text, &job_sets)?;
        // Never silently: the job file's options that change nothing here, once.
        let ignored = ssdlab_core::sim::ignored_options(&cfg.job);
        if !ignored.is_empty() {
            eprintln!(
                "ssdlab: ignored (no effect on a simulated drive): {}",
                ignored.join(", ")
            );
        }
    }
    if let Some(limit) = max_memory.or_else(default_memory_limit) {
        ssdlab_core::sim::check_memory(&cfg, limit).map_err(|e| cfg.locate(e))?;
    }
    if let Some(s) = seed {
        cfg.precondition.seed = s;
    }
    // Outputs that cannot be written are found now, not after the simulation.
    if let Some(o) = &output {
        let mut inputs = cfg.input_files();
        inputs.extend(from_snapshot.iter().map(std::path::PathBuf::from));
        crate::check_output(o, &inputs)?;
    }
    if let Some(dir) = &plot {
        ssdlab_core::output::check_dir(dir, true)
            .map_err(|why| Error::Invalid(format!("--plot: {why}; expected a writable directory")))?;
    }
    // A snapshot that is not one, or of another build, is found before anything runs; one of
    // another device is refused from its header, before its maps are read.
    let snapshot = match &from_snapshot {
        Some(f) => Some((f, ssdlab_core::snapshot::Snapshot::open(f)?)),
        None => None,
    };
    if !quiet && snapshot.is_none() && cfg.precondition.mode != config::PreconditionMode::None {
        eprintln!(
            "ssdlab: preconditioning {} ({}) ...",
            cfg.device.name,
            format!("{:?}", cfg.precondition.mode).to_lowercase()
        );
    }
    let mut pre_ui = ProgressUi::new(quiet);
    let mut progress = |done, planned| {
        pre_ui.update(
            done,
            Some(planned),
            &format!("preconditioning: {done} of at most {planned} units written"),
        );
    };
    let mut sim = match snapshot {
        Some((f, s)) => {
            let what = format!(
                "ssdlab: started from {f} ({} preconditioned {})",
                s.device().name,
                format!("{:?}", s.precondition().mode).to_lowercase()
            );
            let sim = ssdlab_core::Simulation::from_opened_snapshot(&cfg, s, f, &mut progress)?;
            if !quiet {
                eprintln!("{what}");
            }
            sim
        }
        None => ssdlab_core::Simulation::with_progress(&cfg, &mut progress)?,
    };
    pre_ui.finish();
    if !quiet {
        for line in job_headers(&cfg, sim.volume.logical_bytes()) {
            eprintln!("{line}");
        }
    }
    let mut ui = ProgressUi::new(quiet);
    let result = sim.run(&mut |p| {
        let (done, total, msg) = run_bar(&p);
        ui.update(done, total, &msg);
    })?;
    ui.finish();
    for w in &result.ssd.warnings {
        eprintln!("ssdlab: warning: {w}");
    }
    if check {
        sim.volume
            .check_invariants()
            .map_err(|m| Error::Invalid(format!("invariant violated: {m}")))?;
        eprintln!("ssdlab: --check: the FTL's and the device's invariants hold after the run");
    }
    // The result first: a plot that fails does not lose it.
    write_result(&result, fmt, output.as_deref())?;
    if let Some(dir) = plot {
        ssdlab_lab::plot::draw(&result, &dir).map_err(|e| {
            let kept = output.as_deref().unwrap_or("standard output");
            Error::Invalid(format!("--plot: {e} (the result was written to {kept})"))
        })?;
    }
    Ok(())
}

/// The hard disk `arg` names: a built-in one (`hdd-7200`, ...) or a TOML file of the
/// hard-disk model's keys (top-level `rpm`, no `[device]`), as configs/hdd-7200.toml.
fn hdd_config(arg: Option<&str>) -> Result<Option<ssdlab_core::hdd::HddConfig>> {
    let Some(arg) = arg else { return Ok(None) };
    if let Some(d) = ssdlab_core::hdd::HddConfig::named(arg) {
        return Ok(Some(d));
    }
    let p = std::path::Path::new(arg);
    if !p.is_file() {
        return Ok(None);
    }
    let Ok(text) = std::fs::read_to_string(p) else {
        return Ok(None);
    };
    match toml::from_str::<toml::Table>(&text) {
        Ok(t) if t.contains_key("rpm") && !t.contains_key("device") => {
            Ok(Some(ssdlab_core::hdd::HddConfig::parse(&text, arg)?))
        }
        _ => Ok(None),
    }
}

/// The job a hard disk runs without `--job`: 4 KiB random reads at queue depth 1 for 10 s,
/// the measure a disk's datasheet gives (seek and rotation, one request at a time).
const HDD_DEFAULT_JOB: &str = "[randread-4k]\nrw=randread\nbs=4k\niodepth=1\nruntime=10\ntime_based\n";

fn run_hdd(
    disk: &ssdlab_core::hdd::HddConfig,
    job: Option<String>,
    fmt: OutputFormat,
    output: Option<String>,
    seed: Option<u64>,
) -> Result<()> {
    let jobs = match &job {
        Some(j) => {
            ssdlab_core::output::check_regular(j, "a fio job file")?;
            let text = std::fs::read_to_string(j)
                .map_err(|e| Error::Config(format!("{j}: cannot read it ({e}); expected a fio job file")))?;
            ssdlab_core::workload::fio::parse_job_file(&text, j)?
        }
        None => ssdlab_core::workload::fio::parse_job_file(HDD_DEFAULT_JOB, "the hard disk's default job")?,
    };
    if let Some(o) = &output {
        let inputs: Vec<String> = job.iter().cloned().collect();
        crate::check_output(o, &inputs)?;
    }
    let r = ssdlab_core::hdd::run_jobs(disk, &jobs, seed.unwrap_or(1))?;
    let text = match fmt {
        OutputFormat::Json | OutputFormat::JsonPlus => serde_json::to_string_pretty(&r).expect("serialisable") + "\n",
        OutputFormat::Normal => report::hdd(&r),
    };
    match output {
        Some(path) => ssdlab_core::output::write(&path, text),
        None => ssdlab_core::output::print(text),
    }
}

/// A line per generated job (fio's header as it starts a job) with its sizes resolved to
/// bytes on a volume of `capacity` bytes: `size = "10GB"` in TOML is 10^10 bytes where fio's
/// `size=10g` is 10 GiB, and the header shows which one a run got.
pub fn job_headers(cfg: &config::Config, capacity: u64) -> Vec<String> {
    cfg.job
        .iter()
        .filter(|j| j.trace.is_none())
        .map(|j| {
            let mut parts = vec![format!("rw={}", format!("{:?}", j.rw).to_lowercase())];
            match &j.bssplit {
                Some(s) => parts.push(format!("bssplit={s}")),
                None => parts.push(format!("bs={}B", j.bs.0)),
            }
            if let Ok((off, size)) = j.region(capacity) {
                parts.push(format!("offset={off}B"));
                parts.push(format!("size={size}B"));
            }
            if let Some(b) = j.io_size {
                parts.push(format!("io_size={}B", b.0));
            }
            parts.push(format!("iodepth={}", j.iodepth));
            format!("ssdlab: job {}: {}", j.name, parts.join(", "))
        })
        .collect()
}

/// An `--output` file that cannot be written, or that is one of the command's `inputs`,
/// found before the work rather than after it.
pub fn check_output<P: AsRef<std::path::Path>>(path: &str, inputs: &[P]) -> Result<()> {
    ssdlab_core::output::check_file_dir(path).map_err(|why| {
        Error::Invalid(format!(
            "--output: {why}; expected a file in an existing, writable directory"
        ))
    })?;
    ssdlab_core::output::refuse_input("--output", path, inputs)
}

/// A run's result in `fmt`, to the file `output` or standard output.
pub fn write_result(result: &ssdlab_core::RunResult, fmt: OutputFormat, output: Option<&str>) -> Result<()> {
    let text = match fmt {
        OutputFormat::Json => serde_json::to_string_pretty(&result.without_bins()).expect("serialisable") + "\n",
        OutputFormat::JsonPlus => serde_json::to_string_pretty(result).expect("serialisable") + "\n",
        OutputFormat::Normal => report::normal(result),
    };
    match output {
        Some(path) => ssdlab_core::output::write(path, text)?,
        None => ssdlab_core::output::print(text)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_core::sim::Progress;

    #[test]
    fn a_runs_bar_has_a_total_when_its_requests_or_its_simulated_length_are_known() {
        let p = |requests, sim_time_ns, expected, horizon_ns| Progress {
            requests,
            sim_time_ns,
            expected,
            horizon_ns,
        };
        // Requests known: the bar counts them.
        let (pos, total, msg) = run_bar(&p(250, 3_000_000, Some(1000), Some(9_000_000_000)));
        assert_eq!((pos, total), (250, Some(1000)));
        assert!(msg.starts_with("250 of 1000 requests"), "{msg}");
        // Bounded by runtime only: simulated microseconds of the run's length.
        let (pos, total, msg) = run_bar(&p(250, 1_500_000_000, None, Some(2_000_000_000)));
        assert_eq!((pos, total), (1_500_000, Some(2_000_000)));
        assert!(msg.ends_with(" of 2s"), "{msg}");
        // Past the horizon (the device draining its queue) the bar stays full.
        assert_eq!(run_bar(&p(1, 2_000_500_000, None, Some(2_000_000_000))).0, 2_000_000);
        // Neither: a spinner with the count.
        let (pos, total, _) = run_bar(&p(7, 5, None, None));
        assert_eq!((pos, total), (7, None));
        assert!(bar_template(true).contains("{eta}") && bar_template(true).contains("{bar"));
        assert!(!bar_template(false).contains("{bar"));
    }
}
