//! `ssdlab experiment`: run a seed reproduction, write its result folder, print its claims.

use clap::{Args, ValueEnum};
use ssdlab_core::{Error, Result};
use ssdlab_lab::experiment::cache::PointCache;
use ssdlab_lab::experiment::{self, ExperimentResult, Scale};
use ssdlab_lab::folder::{result_json, write_folder};
use std::io::IsTerminal;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The claims table on standard output.
    Normal,
    /// `result.json` on standard output.
    Json,
}

#[derive(Args)]
pub struct ExperimentArgs {
    /// An experiment's name, or `list` to list them.
    name: String,
    /// The reduced version (under a minute): smaller devices, shorter runs.
    #[arg(long)]
    quick: bool,
    /// Output folder (default: results/NAME). Finished points are kept in DIR/points, and
    /// a run of the same experiment into it takes them from there.
    #[arg(long, value_name = "DIR")]
    out: Option<String>,
    /// Run every point again, ignoring the finished points in DIR/points.
    #[arg(long)]
    fresh: bool,
    /// The claims table to read (normal), or `result.json` on standard output (json).
    #[arg(long, value_enum, default_value = "normal")]
    output_format: Format,
    /// Points run at once (default: one per core). The result does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Simulation seeds each point a claim reads runs under (default 3, 2 with --quick): how
    /// far a claim's value moves across them is its noise, the margin a direction claim must
    /// exceed. Points only a figure shows run under the first.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    seeds: Option<u32>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse an experiment whose points running at once need more memory than this
    /// (default: three quarters of physical memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    max_memory: Option<u64>,
    /// Run nothing: draw the figures of FILE (an earlier run's result.json, or the
    /// experiment's record in docs/experiments/record/) into --out, in this build's style.
    #[arg(long, value_name = "FILE")]
    redraw: Option<String>,
    #[command(flatten)]
    traces: crate::traces_cmd::TracesDir,
}

pub fn run(a: ExperimentArgs) -> Result<()> {
    a.traces.apply();
    if a.name == "list" {
        let list: String = experiment::REGISTRY
            .iter()
            .map(|e| format!("{:12} {} (seed {})\n", e.name(), e.title(), e.seed_document()))
            .collect();
        return out!("{list}");
    }
    let exp = experiment::find(&a.name)?;
    if let Some(file) = &a.redraw {
        let out = a.out.clone().unwrap_or_else(|| format!("results/{}", exp.name()));
        let bytes = ssdlab_core::output::read_regular(file, "an experiment's result.json")?;
        let json = String::from_utf8(bytes)
            .map_err(|_| Error::Invalid(format!("{file}: not UTF-8 text; expected an experiment's result.json")))?;
        let n = ssdlab_lab::folder::redraw(&json, file, exp.name(), &out)?;
        eprintln!("ssdlab: {n} figures of {file} drawn into {out}/");
        return Ok(());
    }
    let scale = if a.quick { Scale::Quick } else { Scale::Full };
    let threads = a
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let seeds = a.seeds.map_or_else(|| experiment::default_seeds(scale), |s| s as usize);
    if let Some(limit) = a.max_memory.or_else(crate::default_memory_limit) {
        let need = experiment::memory_estimate(&exp.points(scale)?, threads)?;
        if need > limit {
            let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
            return Err(Error::Invalid(format!(
                "--threads: {threads} points at once need about {} of memory, above the limit of {}; expected fewer --threads or a higher --max-memory",
                gib(need),
                gib(limit)
            )));
        }
    }
    // The folder is made (and found writable) before any point runs.
    let out = a.out.unwrap_or_else(|| format!("results/{}", exp.name()));
    let points_dir = Path::new(&out).join("points");
    refuse_other_experiment(&out, exp.name())?;
    ssdlab_core::output::check_dir(&points_dir, true)
        .map_err(|why| Error::Invalid(format!("--out: {why}; expected a writable directory")))?;
    let cache = PointCache::new(&points_dir, a.fresh);
    // One run writes a folder at a time (held until the folder is written): a second run
    // into it is refused rather than mixing its files with the first's.
    let _held = cache.lock(false)?;
    crate::interrupt::keeps(format!(
        "experiment {} stopped; its finished points are kept in {} (the same command resumes)",
        exp.name(),
        points_dir.display()
    ));
    let bar = points_bar(a.quiet, RUNS);
    let res = experiment::run_cached(exp, scale, seeds, threads, Some(&cache), &|done, total| {
        show(&bar, done, total)
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if cache.damaged() > 0 {
        eprintln!(
            "ssdlab: {} damaged point file(s) in {} were run again",
            cache.damaged(),
            points_dir.display()
        );
    }
    let res = res.map_err(|e| match e {
        Error::Interrupted => crate::interrupt::stopped(format!(
            "experiment {} stopped; kept {} of {} runs in {} (the same command resumes)",
            exp.name(),
            cache.reused() + cache.stored(),
            experiment::points_of(exp, scale, seeds).map_or(0, |p| p.len()),
            points_dir.display()
        )),
        e => e,
    })?;
    if cache.reused() > 0 && !a.quiet {
        eprintln!(
            "ssdlab: {} of {} runs taken from {} (--fresh runs them again)",
            cache.reused(),
            res.scale.runs(),
            points_dir.display()
        );
    }
    write_folder(&res, &out)?;
    match a.output_format {
        Format::Json => outln!("{}", result_json(&res)),
        Format::Normal => out!("{}", summary(&res, &out)),
    }
}

/// A folder that holds another experiment's results (its `result.json` says which) is
/// refused: writing this one's there would mix the two's tables and figures.
fn refuse_other_experiment(out: &str, name: &str) -> Result<()> {
    let result = Path::new(out).join("result.json");
    if !result.exists() {
        return Ok(());
    }
    let expected = format!("a new folder, or one of {name}'s results (--out)");
    let bytes = ssdlab_core::output::read_regular(&result, &expected)?;
    let other = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("experiment")?.as_str().map(str::to_string));
    match other {
        Some(o) if o == name => Ok(()),
        Some(o) => Err(Error::Invalid(format!(
            "--out: {out} holds the results of experiment {o} ({}); expected {expected}",
            result.display()
        ))),
        None => Err(Error::Invalid(format!(
            "--out: {} is not an experiment's result; expected {expected}",
            result.display()
        ))),
    }
}

/// The claims table and where the rest went.
fn summary(res: &ExperimentResult, dir: &str) -> String {
    format!(
        "{}: {}\n{}\n\n{}\n{}{}; {}: {} runs in {:.1} s. Tables, plots and the full result in {dir}/\n",
        res.experiment,
        res.title,
        res.scale.note,
        experiment::claims_md(&res.claims),
        res.summary.line(),
        res.readings
            .iter()
            .map(|r| format!(
                "; {} of {} under the reading {} ({})",
                r.seed_reproduced, r.seed_claims, r.label, r.reading
            ))
            .collect::<String>(),
        res.scale.runs_line(),
        res.scale.runs(),
        res.scale.wall_time_s
    )
}

/// A progress bar counting `unit`s (for an experiment, [`RUNS`]: what the summary counts) on standard
/// error (none when quiet or not a terminal).
pub fn points_bar(quiet: bool, unit: &str) -> Option<indicatif::ProgressBar> {
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(indicatif::ProgressStyle::with_template(&bar_template(unit)).expect("template"));
        b
    })
}

/// The bar's template, counting `unit`s.
fn bar_template(unit: &str) -> String {
    format!("{{spinner}} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {unit}, ETA {{eta}}")
}

/// The unit an experiment's bar counts: each point under each seed it runs, as the
/// summary's last line counts them.
pub const RUNS: &str = "runs (points × seeds)";

/// `done` of `total` points on the bar.
pub fn show(bar: &Option<indicatif::ProgressBar>, done: usize, total: usize) {
    if let Some(b) = bar {
        b.set_length(total as u64);
        b.set_position(done as u64);
    }
}
