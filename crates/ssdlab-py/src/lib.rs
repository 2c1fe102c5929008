//! `ssdlab._native`: the engine as the `ssdlab` Python package sees it. Everything here calls
//! `ssdlab-core` as the command line does; the package's Python half (`python/ssdlab/`) turns
//! the JSON these functions return into DataFrames, arrays and plots.
//!
//! Simulations run on a thread of their own with the GIL released; the calling thread wakes
//! every 50 ms to let Python handle signals, so Ctrl-C stops a run (through
//! [`ssdlab_core::sim::interrupt`]) and raises `KeyboardInterrupt`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ssdlab_core::{config, Config, Error};
use ssdlab_lab::experiment::{self, Outcome, Scale};
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

create_exception!(
    ssdlab,
    SsdlabError,
    PyException,
    "An error of the ssdlab engine (its one-line message)."
);
create_exception!(
    ssdlab,
    ConfigError,
    SsdlabError,
    "A bad run config, job file, key or value."
);
create_exception!(ssdlab, TraceError, SsdlabError, "A trace that cannot be read.");
create_exception!(
    ssdlab,
    _TraceNotFound,
    TraceError,
    "A trace file that does not exist (raised as the package's TraceNotFoundError, a FileNotFoundError too)."
);

/// Where an error's file sits: the config and job files are the user's configuration; any
/// other file a run reads is a trace.
#[derive(Default)]
struct Inputs {
    config_files: Vec<String>,
}

fn to_py(mut e: Error, inputs: &Inputs) -> PyErr {
    // A dict's keys have no lines: its errors name the key path alone (the lines would be
    // those of the TOML it was written as, text the user never saw).
    if let Error::Key { file, pos, .. } = &mut e {
        if file == DICT {
            *pos = None;
        }
    }
    let msg = e.message();
    match &e {
        Error::Interrupted => PyKeyboardInterrupt::new_err(msg),
        Error::Key { key, msg: m, .. } if key.ends_with(".trace.file") && m.contains("no such file") => {
            _TraceNotFound::new_err(msg)
        }
        Error::Config(_) | Error::Key { .. } => ConfigError::new_err(msg),
        Error::Parse { file, .. } | Error::Io { path: file, .. } => {
            if inputs.config_files.iter().any(|f| f == file) {
                ConfigError::new_err(msg)
            } else {
                TraceError::new_err(msg)
            }
        }
        Error::Invalid(_) => SsdlabError::new_err(msg),
    }
}

/// Run `f` on a thread of its own with the GIL released, handling signals meanwhile: on
/// Ctrl-C every simulation of the process is interrupted and the signal's exception raised.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> ssdlab_core::Result<T> + Send + 'static,
) -> PyResult<ssdlab_core::Result<T>> {
    reporting(py, move |_| f(), None)
}

/// A progress event: (phase, done, total if known).
type Event = (&'static str, u64, Option<u64>);

/// How often progress reaches Python at most.
const REPORT_EVERY: Duration = Duration::from_millis(200);

/// As [`interruptible`], with `f` reporting progress events: at most one each
/// [`REPORT_EVERY`] (and the last one) reaches `report`, called on this thread with the GIL
/// held as `report(phase, done, total)`. An exception `report` raises stops the simulation and
/// is raised.
fn reporting<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce(&mut dyn FnMut(Event)) -> ssdlab_core::Result<T> + Send + 'static,
    report: Option<Bound<'_, PyAny>>,
) -> PyResult<ssdlab_core::Result<T>> {
    let (tx, rx) = mpsc::channel();
    let (ptx, prx) = mpsc::channel::<Event>();
    let handle = std::thread::spawn(move || {
        // Events are thinned here, where they are many (one per 65,536 requests, and many
        // more while preconditioning); the last one is always sent.
        let mut last_sent: Option<(std::time::Instant, &'static str)> = None;
        let mut held: Option<Event> = None;
        let mut progress = |e: Event| {
            let due = last_sent.is_none_or(|(t, phase)| phase != e.0 || t.elapsed() >= REPORT_EVERY / 2);
            if due {
                let _ = ptx.send(e);
                last_sent = Some((std::time::Instant::now(), e.0));
                held = None;
            } else {
                held = Some(e);
            }
        };
        let r = f(&mut progress);
        if let Some(e) = held {
            let _ = ptx.send(e);
        }
        let _ = tx.send(r);
    });
    let mut delivered: Option<(std::time::Instant, Event)> = None;
    // The last event of each phase not yet handed to `report`, in order: a phase is never
    // skipped, and the last event of all always reaches it.
    let mut pending: Vec<Event> = Vec::new();
    let mut deliver = |last: bool| -> PyResult<()> {
        for e in prx.try_iter() {
            match pending.last_mut() {
                Some(l) if l.0 == e.0 => *l = e,
                _ => pending.push(e),
            }
        }
        let Some(report) = &report else {
            pending.clear();
            return Ok(());
        };
        let n = pending.len();
        let mut kept = None;
        for (i, e) in pending.drain(..).enumerate() {
            let due = match delivered {
                None => true,
                Some((_, d)) if d == e => false,
                Some((t, d)) => d.0 != e.0 || last || i + 1 < n || t.elapsed() >= REPORT_EVERY,
            };
            if due {
                report.call1((e.0, e.1, e.2))?;
                delivered = Some((std::time::Instant::now(), e));
            } else if delivered.is_some_and(|(_, d)| d != e) {
                kept = Some(e);
            }
        }
        pending.extend(kept);
        Ok(())
    };
    let mut rx = Some(rx);
    loop {
        let waiting = rx.take().expect("the receiver is put back");
        let (got, back) = py.allow_threads(move || (waiting.recv_timeout(Duration::from_millis(50)), waiting));
        rx = Some(back);
        match got {
            Ok(r) => {
                let _ = handle.join();
                deliver(true)?;
                return Ok(r);
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals().and_then(|_| deliver(false)) {
                    ssdlab_core::sim::interrupt();
                    let _ = py.allow_threads(|| handle.join());
                    ssdlab_core::sim::clear_interrupt();
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = handle.join();
                return Err(PyRuntimeError::new_err(
                    "ssdlab: the simulation stopped without a result (a bug)",
                ));
            }
        }
    }
}

/// What a dict config is called in errors.
const DICT: &str = "<dict>";

/// The config named by `config`: `None` for the default preset; with `kind = "json"` the JSON
/// text of a dict shaped as a run file; else a preset name, a file's path, or TOML text.
fn load(config: Option<&str>, kind: &str, sets: &[String]) -> ssdlab_core::Result<Config> {
    let here = Path::new(".");
    match config {
        None => config::load_config_with(config::DEFAULT_PRESET, sets),
        Some(text) if kind == "json" => {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                Error::Config(format!(
                    "<dict>: not a run config ({e}); expected a dict shaped as a run file"
                ))
            })?;
            let toml = toml::to_string(&v).map_err(|e| {
                Error::Config(format!(
                    "<dict>: cannot be written as TOML ({e}); expected tables of strings, numbers, booleans and lists (no None)"
                ))
            })?;
            config::parse_config_with(&toml, DICT, here, sets)
        }
        Some(text) if looks_like_toml(text) => config::parse_config_with(text, "<string>", here, sets),
        Some(name) => config::load_config_with(name, sets),
    }
}

/// TOML text rather than a preset name or a path: it has a newline, a key or a table.
fn looks_like_toml(s: &str) -> bool {
    s.contains('\n') || s.contains('=') || s.trim_start().starts_with('[')
}

/// The run config with a fio job file's jobs (a path, or the file's text) and a seed.
fn build(
    config: Option<&str>,
    kind: &str,
    jobs: Option<&str>,
    seed: Option<u64>,
    sets: &[String],
) -> ssdlab_core::Result<Config> {
    let mut cfg = load(config, kind, sets)?;
    if let Some(j) = jobs {
        if Path::new(j).is_file() {
            let text = std::fs::read_to_string(j).map_err(|e| Error::io(j, e))?;
            cfg.set_jobs_from_fio(j, &text)?;
        } else if j.contains('[') {
            cfg.set_jobs_from_fio("<jobs>", j)?;
        } else {
            return Err(Error::Config(format!(
                "{j}: no such file; expected a fio job file's path or its text"
            )));
        }
    }
    if let Some(s) = seed {
        cfg.precondition.seed = s;
    }
    Ok(cfg)
}

/// The run config, and the files an error may name that are the user's configuration.
fn config_for(
    config: Option<&str>,
    kind: &str,
    jobs: Option<&str>,
    seed: Option<u64>,
    sets: &[String],
) -> PyResult<(Config, Inputs)> {
    let inputs = Inputs {
        config_files: config
            .into_iter()
            .chain(jobs)
            .chain(["<jobs>"])
            .map(String::from)
            .collect(),
    };
    let cfg = build(config, kind, jobs, seed, sets).map_err(|e| to_py(e, &inputs))?;
    Ok((cfg, inputs))
}

/// A seed from Python: `None`, or a whole number of 64 bits (as `ssdlab run --seed`).
fn seed_arg(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    match seed {
        None => Ok(None),
        Some(s) if s.is_none() => Ok(None),
        Some(s) => s.extract::<u64>().map(Some).map_err(|_| {
            let shown = s.repr().map(|r| r.to_string()).unwrap_or_default();
            ConfigError::new_err(format!(
                "seed: invalid value {shown}; expected a whole number from 0 to {}",
                u64::MAX
            ))
        }),
    }
}

/// A memory limit from Python: `None`, bytes, or a size with units (`"4GiB"`), as `ssdlab
/// run --max-memory` takes.
fn memory_arg(limit: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let bad = |shown: String, why: String| {
        ConfigError::new_err(format!(
            "max_memory: invalid value {shown}{why}; expected a size such as \"4GiB\" or a whole number of bytes"
        ))
    };
    match limit {
        None => Ok(None),
        Some(m) if m.is_none() => Ok(None),
        Some(m) => {
            let shown = m.repr().map(|r| r.to_string()).unwrap_or_default();
            if let Ok(text) = m.extract::<String>() {
                return ssdlab_core::units::parse_size(&text)
                    .map(Some)
                    .map_err(|e| bad(shown, format!(" ({e})")));
            }
            m.extract::<u64>().map(Some).map_err(|_| bad(shown, String::new()))
        }
    }
}

/// A run's JSON, its json+ form and its headline figures.
type RunOutput = (String, String, Vec<(String, f64)>);

/// A point's id and labels.
type PointInfo = (String, Vec<(String, String)>);

/// Simulate a run: returns the result as the CLI's `--output-format json` prints it, as
/// `json+` (with the latency histograms' bins), and the headline figures every experiment's
/// table shows (`experiment::row_metrics`).
#[pyfunction]
#[pyo3(signature = (config=None, kind="auto", jobs=None, seed=None, sets=Vec::new(), max_memory=None, progress=None, from_snapshot=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    config: Option<String>,
    kind: &str,
    jobs: Option<String>,
    seed: Option<Bound<'_, PyAny>>,
    sets: Vec<String>,
    max_memory: Option<Bound<'_, PyAny>>,
    progress: Option<Bound<'_, PyAny>>,
    from_snapshot: Option<String>,
) -> PyResult<RunOutput> {
    let seed = seed_arg(seed.as_ref())?;
    let max_memory = memory_arg(max_memory.as_ref())?;
    let (cfg, mut inputs) = config_for(config.as_deref(), kind, jobs.as_deref(), seed, &sets)?;
    // A snapshot that cannot be read is the run's input, not a trace: a ConfigError.
    inputs.config_files.extend(from_snapshot.iter().cloned());
    if let Some(limit) = max_memory.or_else(ssdlab_core::sim::default_memory_limit) {
        ssdlab_core::sim::check_memory(&cfg, limit)
            .map_err(|e| cfg.locate(e))
            .map_err(|e| to_py(e, &inputs))?;
    }
    let progress = progress.filter(|p| !p.is_none());
    let r = reporting(
        py,
        move |report| {
            let mut pre = |done, planned| report(("precondition", done, Some(planned)));
            let mut sim = match &from_snapshot {
                Some(f) => {
                    let snap = ssdlab_core::snapshot::Snapshot::open(f)?;
                    ssdlab_core::Simulation::from_opened_snapshot(&cfg, snap, f, &mut pre)?
                }
                None => ssdlab_core::Simulation::with_progress(&cfg, &mut pre)?,
            };
            let result = sim.run(&mut |p| report(("run", p.requests, p.expected)))?;
            let plain = serde_json::to_string_pretty(&result.without_bins()).expect("serialisable") + "\n";
            let plus = serde_json::to_string(&result).expect("serialisable");
            let metrics = experiment::row_metrics(&Outcome::Ssd(Box::new(result)));
            Ok((plain, plus, metrics))
        },
        progress,
    )?;
    r.map_err(|e| to_py(e, &inputs))
}

/// The run config in full, as JSON (every key, defaults included): what a sweep hashes to
/// know a point it already ran.
#[pyfunction]
#[pyo3(signature = (config=None, kind="auto", jobs=None, seed=None, sets=Vec::new()))]
fn resolve(
    config: Option<String>,
    kind: &str,
    jobs: Option<String>,
    seed: Option<Bound<'_, PyAny>>,
    sets: Vec<String>,
) -> PyResult<String> {
    let seed = seed_arg(seed.as_ref())?;
    let (cfg, _) = config_for(config.as_deref(), kind, jobs.as_deref(), seed, &sets)?;
    Ok(serde_json::to_string(&cfg).expect("serialisable"))
}

/// The presets: (name, description).
#[pyfunction]
fn presets() -> Vec<(String, String)> {
    config::preset_names()
        .into_iter()
        .map(|n| {
            let c = config::load_config(n).expect("presets are valid");
            (n.to_string(), c.device.description)
        })
        .collect()
}

/// A trace's statistics, as `ssdlab trace stats --output-format json` prints them.
#[pyfunction]
#[pyo3(signature = (path, format="auto", skip_bad_lines=false))]
fn trace_stats(py: Python<'_>, path: String, format: &str, skip_bad_lines: bool) -> PyResult<String> {
    use ssdlab_core::trace::{stats, Devices, Format, ReaderOptions, StatsOptions, TraceReader, TraceStats};
    let inputs = Inputs::default();
    let format = Format::from_name(format).map_err(|e| ConfigError::new_err(format!("format: {e}")))?;
    let missing = !Path::new(&path).exists();
    let r = interruptible(py, move || {
        let mut reader = TraceReader::open(&path, &ReaderOptions { format, skip_bad_lines })?;
        let opts = StatsOptions {
            devices: Devices::only(None),
            max_page_runs: stats::DEFAULT_MAX_PAGE_RUNS,
            max_volumes: stats::DEFAULT_MAX_VOLUMES,
        };
        let s = TraceStats::compute(&mut reader, &opts)?;
        Ok(serde_json::to_string(&s).expect("serialisable"))
    })?;
    // Every file read here is the trace.
    r.map_err(|e| match e {
        Error::Invalid(m) if missing => _TraceNotFound::new_err(m),
        Error::Invalid(m) => TraceError::new_err(m),
        e => to_py(e, &inputs),
    })
}

/// A size or a rate with units (`256GiB`, `100MB/s`) in bytes (per second).
#[pyfunction]
#[pyo3(signature = (text, rate=false))]
fn parse_size(text: &str, rate: bool) -> PyResult<u64> {
    let r = if rate {
        ssdlab_core::units::parse_rate(text)
    } else {
        ssdlab_core::units::parse_size(text)
    };
    r.map_err(|e| ConfigError::new_err(format!("{text}: {e}")))
}

/// The lifetime formula: capacity × P/E cycles / (write rate × WAF), in seconds (infinite
/// without writes), and its human form.
#[pyfunction]
fn lifetime_seconds(capacity_bytes: f64, pe_cycles: f64, write_bytes_per_s: f64, waf: f64) -> (f64, String) {
    let s = ssdlab_core::lifetime::lifetime_seconds(capacity_bytes, pe_cycles, write_bytes_per_s, waf);
    (s, ssdlab_core::lifetime::human_duration(s))
}

/// Check that `text` is a run's JSON result (`ssdlab run --output-format json` or json+): its
/// shape in full, as the engine writes it, or a ConfigError naming the first key at fault.
#[pyfunction]
fn check_result(name: &str, text: &str) -> PyResult<()> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize::<_, ssdlab_core::RunResult>(de)
        .map(drop)
        .map_err(|e| {
            let at = e.path().to_string();
            let at = if at == "." { String::new() } else { format!("{at}: ") };
            let why = e.inner().to_string();
            let why = why.split(" at line ").next().unwrap_or_default().to_string();
            ConfigError::new_err(format!(
                "{name}: {at}{why}; expected the JSON of `ssdlab run --output-format json` or json+"
            ))
        })
}

/// The lifetime formula's inputs read from a run's JSON result: (capacity bytes, P/E cycles,
/// host write bytes/s, WAF).
#[pyfunction]
fn lifetime_inputs(result_json: &str) -> PyResult<(f64, f64, f64, f64)> {
    let v: serde_json::Value = serde_json::from_str(result_json)
        .map_err(|e| ConfigError::new_err(format!("result: not JSON ({e}); expected a run's JSON result")))?;
    let i = ssdlab_core::lifetime::from_run_json(&v).map_err(|e| ConfigError::new_err(format!("result: {e}")))?;
    Ok((i.capacity_bytes, i.pe_cycles, i.host_write_bytes_per_s, i.waf))
}

fn scale(quick: bool) -> Scale {
    if quick {
        Scale::Quick
    } else {
        Scale::Full
    }
}

fn find(name: &str) -> PyResult<&'static dyn experiment::Experiment> {
    experiment::find(name).map_err(|e| ConfigError::new_err(e.message()))
}

/// The experiments: (name, title, seed document).
#[pyfunction]
fn experiments() -> Vec<(String, String, String)> {
    experiment::REGISTRY
        .iter()
        .map(|e| (e.name().into(), e.title().into(), e.seed_document().into()))
        .collect()
}

/// Simulation seeds per point: `seeds`, or the scale's default.
fn seeds_of(quick: bool, seeds: Option<usize>) -> usize {
    seeds.unwrap_or_else(|| experiment::default_seeds(scale(quick)))
}

/// An experiment's points under every seed: (id, labels) in their order.
#[pyfunction]
#[pyo3(signature = (name, quick, seeds=None))]
fn experiment_points(name: &str, quick: bool, seeds: Option<usize>) -> PyResult<Vec<PointInfo>> {
    let exp = find(name)?;
    let points = experiment::points_of(exp, scale(quick), seeds_of(quick, seeds))
        .map_err(|e| ConfigError::new_err(e.message()))?;
    Ok(points.into_iter().map(|p| (p.id, p.labels)).collect())
}

/// Simulate point `index` of an experiment; its outcome as bytes for
/// [`experiment_assemble`] (in this process or another).
#[pyfunction]
#[pyo3(signature = (name, quick, index, seeds=None))]
fn experiment_point<'py>(
    py: Python<'py>,
    name: &str,
    quick: bool,
    index: usize,
    seeds: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let exp = find(name)?;
    let points = experiment::points_of(exp, scale(quick), seeds_of(quick, seeds))
        .map_err(|e| ConfigError::new_err(e.message()))?;
    let Some(p) = points.into_iter().nth(index) else {
        return Err(ConfigError::new_err(format!(
            "index: point {index} of experiment {name}; expected one below its number of points"
        )));
    };
    let r = interruptible(py, move || experiment::run_point(exp, &p).map(|o| o.to_bytes()))?;
    let bytes = r.map_err(|e| to_py(e, &Inputs::default()))?;
    Ok(PyBytes::new(py, &bytes))
}

/// An experiment's result as the engine holds it: its `result.json`, and the folder
/// `ssdlab experiment --out DIR` writes.
#[pyclass(frozen, module = "ssdlab._native")]
struct ExperimentOutput {
    res: experiment::ExperimentResult,
}

#[pymethods]
impl ExperimentOutput {
    /// `result.json`'s text, as the command writes it (without the final newline).
    fn json(&self) -> String {
        ssdlab_lab::folder::result_json(&self.res)
    }

    /// The JSON with its wall-clock fields zeroed: equal for any backend and thread count.
    fn deterministic_json(&self) -> String {
        self.res.deterministic_json()
    }

    /// Write `result.json`, `table.md`, `table.csv` and one SVG per figure into `dir`, as
    /// the command does, each file whole or not at all.
    fn write(&self, py: Python<'_>, dir: String) -> PyResult<()> {
        py.allow_threads(|| ssdlab_lab::folder::write_folder(&self.res, &dir))
            .map_err(|e| SsdlabError::new_err(e.message()))
    }
}

/// The experiment's result from its points' outcomes (in the points' order), assembled as
/// the command assembles it.
#[pyfunction]
#[pyo3(signature = (name, quick, outcomes, wall_time_s, seeds=None))]
fn experiment_assemble(
    name: &str,
    quick: bool,
    outcomes: Vec<Vec<u8>>,
    wall_time_s: f64,
    seeds: Option<usize>,
) -> PyResult<ExperimentOutput> {
    let exp = find(name)?;
    let seeds = seeds_of(quick, seeds);
    let points = experiment::points_of(exp, scale(quick), seeds).map_err(|e| ConfigError::new_err(e.message()))?;
    if outcomes.len() != points.len() {
        return Err(ConfigError::new_err(format!(
            "outcomes: {} given; expected one per point ({})",
            outcomes.len(),
            points.len()
        )));
    }
    let outcomes = outcomes
        .iter()
        .map(|b| Outcome::from_bytes(b))
        .collect::<ssdlab_core::Result<Vec<_>>>()
        .map_err(|e| SsdlabError::new_err(e.message()))?;
    Ok(ExperimentOutput {
        res: experiment::assemble(exp, scale(quick), seeds, &points, outcomes, wall_time_s),
    })
}

/// Run an experiment here as `ssdlab experiment NAME` does, on `threads` threads (0: one per
/// core). With `points`, its finished points are kept in that folder and the ones already
/// there taken from it, as the command does with `--out DIR/points` (the folder held for the
/// run: another run writing it is an error).
#[pyfunction]
#[pyo3(signature = (name, quick=false, threads=0, seeds=None, points=None))]
fn experiment_run(
    py: Python<'_>,
    name: &str,
    quick: bool,
    threads: usize,
    seeds: Option<usize>,
    points: Option<std::path::PathBuf>,
) -> PyResult<ExperimentOutput> {
    let exp = find(name)?;
    let seeds = seeds_of(quick, seeds);
    let r = interruptible(py, move || {
        let Some(dir) = points else {
            return experiment::run(exp, scale(quick), seeds, threads, &|_, _| {});
        };
        ssdlab_core::output::check_dir(&dir, true)
            .map_err(|why| ssdlab_core::Error::Invalid(format!("out: {why}; expected a writable directory")))?;
        let cache = experiment::cache::PointCache::new(dir, false);
        let _held = cache.lock(false)?;
        experiment::run_cached(exp, scale(quick), seeds, threads, Some(&cache), &|_, _| {})
    })?;
    r.map(|res| ExperimentOutput { res })
        .map_err(|e| to_py(e, &Inputs::default()))
}

/// Sharing of preconditioned drives between the runs of this process while it is open
/// (`ssdlab_core::aged`): a sweep's points on the same device and precondition start from
/// one preconditioned state. A context manager; `close` ends it too.
#[pyclass(module = "ssdlab._native")]
struct SharedPreconditioning {
    guard: Option<ssdlab_core::aged::Shared>,
}

#[pymethods]
impl SharedPreconditioning {
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.guard = None;
        false
    }

    fn close(&mut self) {
        self.guard = None;
    }
}

/// Start sharing preconditioned drives (see [`SharedPreconditioning`]).
#[pyfunction]
fn share_preconditioning() -> SharedPreconditioning {
    SharedPreconditioning {
        guard: Some(ssdlab_core::aged::share()),
    }
}

/// Runs of this process that started from a shared preconditioned state.
#[pyfunction]
fn shared_copies() -> u64 {
    ssdlab_core::aged::copies()
}

/// Stop every simulation of this process at its next progress report (Ctrl-C of a sweep).
#[pyfunction]
fn interrupt() {
    ssdlab_core::sim::interrupt();
}

/// Let simulations run again after [`interrupt`].
#[pyfunction]
fn clear_interrupt() {
    ssdlab_core::sim::clear_interrupt();
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The engine's build (version + a hash of its source): saved sweep points of another
    // build are not reused.
    m.add("BUILD_ID", ssdlab_core::output::BUILD_ID)?;
    m.add("SsdlabError", py.get_type::<SsdlabError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("_TraceNotFound", py.get_type::<_TraceNotFound>())?;
    m.add_class::<ExperimentOutput>()?;
    m.add_class::<SharedPreconditioning>()?;
    m.add_function(wrap_pyfunction!(share_preconditioning, m)?)?;
    m.add_function(wrap_pyfunction!(shared_copies, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(lifetime_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(lifetime_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(check_result, m)?)?;
    m.add_function(wrap_pyfunction!(experiments, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_points, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_point, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_assemble, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_run, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt, m)?)?;
    m.add_function(wrap_pyfunction!(clear_interrupt, m)?)?;
    Ok(())
}
