//! Configuration: device presets and run files in TOML, with units (`"8KiB"`, `"75us"`).
//!
//! A run file has a `[device]` table (usually `preset = "NAME"` plus overrides), an optional
//! `[precondition]` table and one or more `[[job]]` tables. Every table rejects unknown keys;
//! every error names the file and the key (and, for syntax errors, the line).

pub use crate::controller::ControllerConfig;
pub use crate::device_config::DeviceConfig;
pub use crate::ftl::config::{Allocation, BgGc, FtlConfig, MAX_STREAMS};
pub use crate::geometry::GeometryConfig;
pub use crate::host::{HostConfig, Interface};
pub use crate::nand::{CellType, NandConfig, PerPageType, CELL_TIMING_KEYS, MAX_NAND_NS};
pub use crate::placement::config::PlacementConfig;
pub use crate::precondition::{PreconditionConfig, PreconditionMode};
pub use crate::presets::{preset_names, preset_text, DEFAULT_PRESET, PRESETS};
pub use crate::run_config::{Config, KeyOrigins};
pub use crate::scheduler::{SchedulerConfig, Suspendable};
use crate::units::{Rate, Size};
use crate::{Error, Result};
use std::path::Path;

fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', "; ");
    let msg = if msg.contains("expected") {
        msg
    } else {
        format!("{msg}; expected valid TOML")
    };
    let msg = msg.replace(
        "number too large to fit in target type; expected valid TOML",
        "number too large to fit in target type; expected a whole number from -2^63 to 2^63 - 1",
    );
    match e.span() {
        Some(span) => {
            let (l, c) = crate::source::line_col(text, span.start);
            match key_on_line(text, l) {
                Some(key) => Error::Config(format!("{file}:{l}:{c}: {key}: {msg}")),
                None => Error::Config(format!("{file}:{l}:{c}: {msg}")),
            }
        }
        None => Error::Config(format!("{file}: {msg}")),
    }
}

/// The key path (`job[0].iodepth`) of a `key = value` line of TOML text that does not
/// parse, from the table headers above it; `None` for a line that sets no key.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    let mut arrays: Vec<(String, usize)> = Vec::new();
    // `a.b` under arrays of tables seen so far: `a[i].b` with `i` the last entry of `a`.
    let indexed = |path: &str, arrays: &[(String, usize)]| {
        let mut out = String::new();
        for seg in path.split('.').map(str::trim) {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(seg.trim_matches('"'));
            let bare = out.replace(|c: char| c == '[' || c.is_ascii_digit() || c == ']', "");
            if let Some((_, n)) = arrays.iter().rev().find(|(a, _)| *a == bare) {
                out = format!("{out}[{}]", n - 1);
            }
        }
        out
    };
    for (n, l) in text.lines().enumerate().take(line) {
        let t = l.trim();
        if let Some(h) = t.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            let h = h.trim().to_string();
            match arrays.iter_mut().find(|(a, _)| *a == h) {
                Some((_, c)) => *c += 1,
                None => arrays.push((h.clone(), 1)),
            }
            table = indexed(&h, &arrays);
        } else if let Some(h) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            table = indexed(h.trim(), &arrays);
        } else if n + 1 == line {
            let key = t.split('=').next()?.trim();
            if key.is_empty() || !t.contains('=') || key.starts_with('#') {
                return None;
            }
            let key: Vec<&str> = key.split('.').map(|k| k.trim().trim_matches('"')).collect();
            let key = key.join(".");
            return Some(if table.is_empty() {
                key
            } else {
                format!("{table}.{key}")
            });
        }
    }
    None
}

/// Merge `over` into `base` (tables recursively; other values replace).
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Parse a run config from text. `file` names it in errors; `base_dir` resolves relative paths.
pub fn parse_config(text: &str, file: &str, base_dir: &Path) -> Result<Config> {
    parse_config_with(text, file, base_dir, &[])
}

/// Set `path` (dotted keys; a number indexes an array, as in `job.0.iodepth`) to `value`
/// (a TOML value; anything that does not parse as one is taken as a string).
fn set_key(table: &mut toml::Table, path: &str, value: &str) -> Result<()> {
    use crate::source::Segment;
    let err = |m: String| Error::config("--set", path, m);
    let v = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t.remove("v").expect("v"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    if path.split('.').any(|k| k.trim().is_empty()) {
        return Err(err("empty key segment; expected KEY.KEY...=VALUE".into()));
    }
    let segs = crate::source::split_key(path);
    let mut root = toml::Value::Table(std::mem::take(table));
    let res = (|| {
        let mut cur = &mut root;
        let mut prev = String::from("the config");
        for (n, seg) in segs.iter().enumerate() {
            let last = n + 1 == segs.len();
            cur = match (seg, cur) {
                (Segment::Key(k), toml::Value::Table(t)) => {
                    if last {
                        t.insert(k.to_string(), v);
                        return Ok(());
                    }
                    t.entry(k.to_string())
                        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                }
                (Segment::Index(i), toml::Value::Array(a)) => {
                    let len = a.len();
                    let slot = a
                        .get_mut(*i)
                        .ok_or_else(|| err(format!("'{prev}' has {len} entries; expected an index below {len}")))?;
                    if last {
                        *slot = v;
                        return Ok(());
                    }
                    slot
                }
                (Segment::Key(_), toml::Value::Array(_)) => {
                    return Err(err(format!("'{prev}' is a list; expected an index after it")))
                }
                (_, other) => {
                    return Err(err(format!(
                        "'{prev}' is a {}; expected a table or list to set a key in",
                        other.type_str()
                    )))
                }
            };
            prev = match seg {
                Segment::Key(k) => k.to_string(),
                Segment::Index(i) => format!("{prev}[{i}]"),
            };
        }
        Ok(())
    })();
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    res
}

/// As [`parse_config`], then apply `KEY=VALUE` overrides (the command line's `--set`) on top
/// of the file and its preset.
pub fn parse_config_with(text: &str, file: &str, base_dir: &Path, overrides: &[String]) -> Result<Config> {
    let mut origins = KeyOrigins {
        file: file.to_string(),
        text: text.to_string(),
        ..Default::default()
    };
    match build_config(text, file, base_dir, overrides, &mut origins) {
        Ok(mut cfg) => {
            cfg.origins = origins;
            // Checked here, where the jobs are the text's: a trace job built by the program
            // later (a served session's replay, a what-if) has no key of the user's.
            for (i, j) in cfg.job.iter().enumerate() {
                if j.trace.is_some() {
                    cfg.refuse_unused_trace_keys(i, j).map_err(|e| cfg.locate(e))?;
                }
            }
            Ok(cfg)
        }
        Err(e) => Err(origins.locate(e)),
    }
}

impl Config {
    /// Replace the jobs with those of a fio job file (`name`, `text`) and check the result;
    /// errors about jobs name the job file's lines.
    pub fn set_jobs_from_fio(&mut self, name: &str, text: &str) -> Result<()> {
        self.set_jobs_from_fio_with(name, text, &[])
    }

    /// As [`Config::set_jobs_from_fio`], with the command line's `--set job.N.KEY=VALUE`
    /// (N a job's index, or `*` for every job) on the job file's jobs before they are checked.
    pub fn set_jobs_from_fio_with(&mut self, name: &str, text: &str, sets: &[String]) -> Result<()> {
        // The files its `include` lines read are inputs too (an output must not be one).
        let included = std::cell::RefCell::new(Vec::new());
        let read = |p: &Path| {
            included.borrow_mut().push(p.to_path_buf());
            crate::workload::fio::read_included(p)
        };
        self.job = crate::workload::fio::parse_job_file_with(text, name, &|k| std::env::var(k).ok(), &read)?;
        self.origins.jobs_file = Some((name.to_string(), text.to_string()));
        self.origins.included = included.into_inner();
        self.set_job_keys(sets)?;
        self.validate()
    }

    /// `--set job.N.KEY=VALUE` on the jobs (N a job's index, or `*` for every job): what a
    /// run file's job takes; the caller checks the result.
    fn set_job_keys(&mut self, sets: &[String]) -> Result<()> {
        if sets.is_empty() {
            return Ok(());
        }
        let as_toml = |e: String| Error::Config(format!("--set: the jobs as TOML: {e}"));
        let mut table = toml::Table::new();
        table.insert(
            "job".into(),
            toml::Value::try_from(&self.job).map_err(|e| as_toml(e.to_string()))?,
        );
        for o in sets {
            let (k, v) = o
                .split_once('=')
                .ok_or_else(|| Error::Config(format!("--set {o}: not KEY=VALUE; expected e.g. job.*.size=1GiB")))?;
            let k = k.trim();
            let keys: Vec<String> = match k.strip_prefix("job.*.") {
                Some(rest) => (0..self.job.len()).map(|i| format!("job.{i}.{rest}")).collect(),
                None => vec![k.to_string()],
            };
            for key in keys {
                set_key(&mut table, &key, v.trim())?;
            }
        }
        let jobs = table.remove("job").expect("set above");
        let mut jobs: Vec<crate::workload::job::JobConfig> = serde_path_to_error::deserialize(jobs).map_err(|e| {
            Error::config(
                "--set",
                &format!("job.{}", e.path()),
                serde_message(e.inner().message().trim()),
            )
        })?;
        // What a fio job file gives beside the keys (its options as written, those ignored).
        for (new, old) in jobs.iter_mut().zip(&self.job) {
            new.ignored_options = old.ignored_options.clone();
            new.job_options = old.job_options.clone();
            new.global_options = old.global_options.clone();
        }
        self.job = jobs;
        Ok(())
    }
}

/// Rephrase a serde message in the project's `what was wrong; expected WHAT` form.
fn serde_message(m: &str) -> String {
    let m = m
        .replace('\n', " ")
        .replace("expected u32", "expected a whole number from 0 to 4294967295")
        .replace("expected u64", "expected a whole number from 0 to 2^64-1")
        .replace("expected f64", "expected a number");
    if let Some(f) = m.strip_prefix("missing field ") {
        return format!("missing key {f}; expected it to be set (it has no default)");
    }
    let m = m.replacen("unknown field", "unknown key", 1);
    if m.starts_with("wanted exactly 1 element") {
        return "got a table; expected a name (a string)".into();
    }
    if m.contains("; expected") {
        m
    } else if m.contains(", expected") {
        m.replacen(", expected", "; expected", 1)
    } else {
        format!("{m}; expected a value as docs/config.md describes for this key")
    }
}

fn build_config(
    text: &str,
    file: &str,
    base_dir: &Path,
    overrides: &[String],
    origins: &mut KeyOrigins,
) -> Result<Config> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    // An array without `[device]`: its first member with a preset gives the device (the
    // template of members that name none), else the default preset.
    if !table.contains_key("device") && table.contains_key("array") {
        let first = table
            .get("array")
            .and_then(|a| a.get("member"))
            .and_then(|m| m.as_array())
            .and_then(|m| m.iter().find_map(|x| x.get("preset").cloned()))
            .unwrap_or_else(|| toml::Value::String(DEFAULT_PRESET.into()));
        {
            let p = first;
            let mut d = toml::Table::new();
            d.insert("preset".into(), p);
            table.insert("device".into(), toml::Value::Table(d));
        }
    }
    // `[device] preset = "NAME"` (or a bare top-level `preset`) pulls in a built-in device.
    let preset = match table.get_mut("device") {
        Some(toml::Value::Table(d)) => d.remove("preset"),
        Some(_) => {
            return Err(Error::config(
                file,
                "device",
                "not a table; expected [device] with keys",
            ))
        }
        None => None,
    };
    if let Some(p) = preset {
        let name = p
            .as_str()
            .ok_or_else(|| Error::config(file, "device.preset", "not a string; expected a preset name"))?
            .to_string();
        let ptext = preset_text(&name).ok_or_else(|| {
            Error::config(
                file,
                "device.preset",
                format!("unknown preset '{name}'; expected one of {}", preset_names().join(", ")),
            )
        })?;
        origins.preset = Some((name.clone(), ptext));
        let mut pt: toml::Table =
            toml::from_str(ptext).map_err(|e| toml_error(&format!("preset {name}"), ptext, &e))?;
        let pdev = match pt.remove("device") {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(Error::Config(format!("preset {name}: no [device] table; expected one"))),
        };
        let mut dev = pdev;
        if let Some(toml::Value::Table(user)) = table.remove("device") {
            merge(&mut dev, user);
        }
        table.insert("device".into(), toml::Value::Table(dev));
        // A preset's jobs and preconditioning apply only when the run file gives none.
        for key in ["job", "precondition"] {
            if !table.contains_key(key) {
                if let Some(v) = pt.remove(key) {
                    table.insert(key.into(), v);
                }
            }
        }
    }
    for key in ["job", "array.member"] {
        let mut at = Some(&table);
        for k in key.split('.') {
            at = at.and_then(|t| t.get(k)).and_then(|v| v.as_table());
        }
        if at.is_some() {
            return Err(Error::config(
                file,
                key,
                format!("a single [{key}] table; expected [[{key}]] (a list of tables, one per entry)"),
            ));
        }
    }
    for o in overrides {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| Error::Config(format!("--set {o}: not KEY=VALUE; expected e.g. job.0.iodepth=8")))?;
        origins
            .overrides
            .push((crate::source::canonical_key(k.trim()), o.trim().to_string()));
        set_key(&mut table, k.trim(), v.trim())?;
    }
    let mut cfg: Config = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let key = e.path().to_string();
        let msg = serde_message(e.inner().message().trim());
        if key == "." || key.is_empty() {
            Error::Config(format!("{file}: {msg}"))
        } else {
            Error::config(file, &key, msg)
        }
    })?;
    cfg.file = file.to_string();
    cfg.base_dir = base_dir.to_path_buf();
    // Validation asks which keys the user wrote.
    cfg.origins = origins.clone();
    cfg.validate_keys()?;
    Ok(cfg)
}

/// Keys that serialise to nothing while unset, with what unset means.
pub const UNSET_KEYS: &[(&str, &str)] = &[
    ("device.nand.read", "the cell type's typical value"),
    ("device.nand.program", "the cell type's typical value"),
    ("device.nand.erase", "the cell type's typical value"),
    ("device.host.bandwidth", "the interface's bandwidth"),
    ("device.ftl.allocation_slack", "a quarter of a block"),
    (
        "device.ftl.power_loss_protection",
        "false: a write with partial units waits for their old data",
    ),
    ("device.redundancy.scheme", "none; its keys are in docs/config.md"),
    ("job.offset", "0"),
    ("job.size", "from offset to the end of the device"),
    ("job.io_size", "size: one pass"),
    ("job.number_ios", "no limit"),
    ("job.runtime", "no limit"),
    ("job.ramp_time", "0"),
    ("job.seed", "derived from the run's seed"),
    ("job.rate_iops", "closed loop"),
    ("job.thinktime", "0: the next I/O at once"),
    ("job.host_time", "0: no host time per I/O"),
    ("job.bssplit", "bs only"),
    ("job.trace", "generated requests; its keys are in docs/traces.md"),
    (
        "job.fs",
        "no file-system application; its keys are in docs/workloads.md",
    ),
    ("job.hpc", "no HPC-like generator; its keys are in docs/workloads.md"),
    ("job.replay", "open"),
    ("job.write_lat_log", "no latency log"),
    ("job.write_bw_log", "no bandwidth log"),
    ("job.write_iops_log", "no IOPS log"),
];

/// Every leaf of a config as TOML, with its key path (`device.ftl.gc_d`, `job.0.bs`): the
/// schema's keys that have a value.
pub fn leaf_keys(v: &toml::Value) -> Vec<(String, &toml::Value)> {
    fn walk<'a>(prefix: &str, v: &'a toml::Value, out: &mut Vec<(String, &'a toml::Value)>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    walk(
                        &if prefix.is_empty() {
                            k.clone()
                        } else {
                            format!("{prefix}.{k}")
                        },
                        v,
                        out,
                    );
                }
            }
            toml::Value::Array(a) if !a.is_empty() && a.iter().all(|x| x.is_table()) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{prefix}.{i}"), x, out);
                }
            }
            v => out.push((prefix.to_string(), v)),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

/// The keys a preset does not write, with the values they take (defaults), as commented
/// TOML to append to the preset's text: with it, `config show` lists every key.
pub fn preset_defaults(name: &str) -> Option<String> {
    let text = preset_text(name)?;
    let cfg = load_config(name).ok()?;
    let value = toml::Value::try_from(&cfg).ok()?;
    let mut out = String::from("\n# Every other key, at the value it takes when not written (see docs/config.md):\n");
    let mut leaves: Vec<(String, String, String)> = leaf_keys(&value)
        .into_iter()
        .filter(|(k, _)| crate::toml_position::toml_position(text, k).is_err())
        .map(|(k, v)| {
            let (table, key) = k.rsplit_once('.').unwrap_or(("", k.as_str()));
            (table.to_string(), key.to_string(), v.to_string())
        })
        .collect();
    // Timings left to the cell type: the value in force, and that the cell gives it.
    let nand = &cfg.device.nand;
    let (read, program, erase) = nand.timing();
    let timing = [
        toml::Value::try_from(&read).ok()?,
        toml::Value::try_from(&program).ok()?,
        toml::Value::try_from(erase).ok()?,
    ];
    let typical = nand.typical_keys();
    for (key, v) in CELL_TIMING_KEYS.iter().zip(timing) {
        if typical.contains(key) {
            leaves.push((
                "device.nand".into(),
                key.to_string(),
                format!("{v} (unset: typical for cell = \"{}\")", nand.cell.name()),
            ));
        }
    }
    for (key, meaning) in UNSET_KEYS {
        let (table, leaf) = key.rsplit_once('.').expect("dotted");
        let tables: Vec<String> = if table == "job" {
            (0..cfg.job.len()).map(|i| format!("job.{i}")).collect()
        } else {
            vec![table.to_string()]
        };
        for t in tables {
            if crate::toml_position::toml_position(text, &format!("{t}.{leaf}")).is_err()
                && !leaves.iter().any(|(a, b, _)| *a == t && b == leaf)
            {
                leaves.push((t, leaf.to_string(), format!("(unset: {meaning})")));
            }
        }
    }
    leaves.sort_by(|a, b| a.0.cmp(&b.0));
    let mut current = None;
    for (table, key, v) in leaves {
        if current.as_ref() != Some(&table) {
            let header = match table.strip_prefix("job.") {
                Some(i) => format!("[[job]] (job {i})"),
                None => format!("[{table}]"),
            };
            out.push_str(&format!("# {header}\n"));
            current = Some(table);
        }
        out.push_str(&format!("#   {key} = {v}\n"));
    }
    Some(out)
}

/// Load a run config from a file, or a preset by name.
pub fn load_config(path_or_preset: &str) -> Result<Config> {
    load_config_with(path_or_preset, &[])
}

/// As [`load_config`], with `KEY=VALUE` overrides.
pub fn load_config_with(path_or_preset: &str, overrides: &[String]) -> Result<Config> {
    let p = Path::new(path_or_preset);
    if !p.exists() {
        if let Some(t) = preset_text(path_or_preset) {
            return parse_config_with(t, &format!("preset {path_or_preset}"), Path::new("."), overrides);
        }
    }
    if !p.exists() {
        return Err(Error::Config(format!(
            "{path_or_preset}: no such file or preset; expected a config file or one of the presets {}",
            preset_names().join(", ")
        )));
    }
    if p.is_dir() {
        return Err(Error::Config(format!(
            "{path_or_preset}: is a directory; expected a config file or a preset name"
        )));
    }
    crate::output::check_regular(p, "a config file (TOML) or a preset name")?;
    let text = std::fs::read_to_string(p).map_err(|e| Error::io(path_or_preset, e))?;
    let base = p.parent().map(Path::to_path_buf).unwrap_or_default();
    parse_config_with(&text, path_or_preset, &base, overrides)
}

/// The default run: the default preset with its built-in job.
pub fn default_config() -> Config {
    load_config(DEFAULT_PRESET).expect("the default preset is valid")
}

impl Config {
    /// Check what serde cannot: ranges, and keys against each other. Errors name the line
    /// of the key at fault.
    pub fn validate(&self) -> Result<()> {
        self.validate_keys().map_err(|e| self.locate(e))
    }

    fn validate_keys(&self) -> Result<()> {
        let f = self.file.as_str();
        let geo = crate::redundancy::geometry_of(&self.device, f)?;
        validate_device(&self.device, f)?;
        if self.device.ftl.design == "zns" && self.precondition.mode != PreconditionMode::None {
            return Err(Error::config(
                f,
                "precondition.mode",
                "preconditioning writes through the page-mapped FTL, which a zoned drive has not; expected \"none\" (a zoned drive starts with its zones empty; write zones with a zbd job)",
            ));
        }
        let scheme = self.device.redundancy.scheme();
        if scheme != "none" && self.precondition.mode == PreconditionMode::Steady {
            return Err(Error::config(
                f,
                "precondition.mode",
                format!("\"steady\" overwrites the FTL directly, which would bypass scheme \"{scheme}\"'s copies; expected \"sequential\" or \"none\" with a redundancy scheme"),
            ));
        }
        // Spare blocks per plane must cover the free-block reserve and the open frontiers
        // (a zoned namespace runs no GC: its layout is checked by its design).
        let zoned = self.device.ftl.design == "zns";
        let lent = crate::redundancy::reserved_per_plane(&self.device, &geo);
        let spare = if zoned {
            f64::INFINITY
        } else {
            (geo.physical_units - geo.logical_units) as f64 / (geo.planes * geo.units_per_block) as f64 - lent as f64
        };
        // The reserve, plus one open block per host frontier and one for GC.
        let ftl = &self.device.ftl;
        let frontiers = crate::placement::host_frontiers(&self.device);
        // Superblocks collect in the foreground only.
        // So does background GC after requests (FEMU's), whose threshold is a target the
        // spare blocks need not hold.
        let reserve = if self.device.placement.policy == "plane" {
            ftl.gc_threshold.max(ftl.idle_bg_threshold())
        } else {
            ftl.gc_threshold
        };
        let need = reserve as f64 + 1.0 + frontiers as f64;
        if spare < need {
            let mut keys = vec![
                "device.geometry.overprovisioning",
                "device.geometry.blocks_per_plane",
                "device.ftl.gc_threshold",
                "device.ftl.bg_gc_threshold",
            ];
            // Streams asked for are what the spare blocks cannot hold, when the user wrote them.
            keys.insert(if ftl.streams > 1 { 0 } else { keys.len() }, "device.ftl.streams");
            // A scratch space in over-provisioning is what takes the blocks, when there is one.
            let lent_note = if lent > 0 {
                keys.insert(0, "device.redundancy.scratch_share");
                format!(" after {lent} lent to the scratch space")
            } else {
                String::new()
            };
            return Err(Error::config_keys(
                f,
                &keys,
                format!(
                    "{spare:.1} spare blocks per plane{lent_note} cannot hold the GC reserve and open blocks ({need}); expected more overprovisioning or blocks_per_plane, or a lower gc_threshold, scratch_share or fewer streams"
                ),
            ));
        }
        let p = &self.precondition;
        if !(0.0..=1.0).contains(&p.utilisation) {
            return Err(Error::config(
                f,
                "precondition.utilisation",
                format!("got {}; expected a share between 0 and 1", p.utilisation),
            ));
        }
        if let Some(o) = p.overwrite_share {
            if p.mode != crate::precondition::PreconditionMode::Steady {
                return Err(Error::config_keys(
                    f,
                    &["precondition.overwrite_share", "precondition.mode"],
                    format!(
                        "got a region to overwrite with mode = \"{}\", which overwrites nothing; expected mode = \"steady\"",
                        format!("{:?}", p.mode).to_lowercase()
                    ),
                ));
            }
            if !(o > 0.0 && o <= p.utilisation) {
                return Err(Error::config(
                    f,
                    "precondition.overwrite_share",
                    format!(
                        "got {o}; expected a share above 0 and at most precondition.utilisation ({})",
                        p.utilisation
                    ),
                ));
            }
        }
        if !(p.max_overwrites >= 0.0 && p.max_overwrites <= 1000.0) {
            return Err(Error::config(
                f,
                "precondition.max_overwrites",
                format!("got {}; expected a number between 0 and 1000", p.max_overwrites),
            ));
        }
        if !(p.min_overwrites >= 0.0 && p.min_overwrites <= 1000.0) {
            return Err(Error::config(
                f,
                "precondition.min_overwrites",
                format!(
                    "got {}; expected a number between 0 and 1000 (the run stops at max_overwrites in any case)",
                    p.min_overwrites
                ),
            ));
        }
        // A default min_overwrites above a lower max_overwrites gives way to it (the
        // precondition judges steady state from max_overwrites on); one written is an error.
        if p.min_overwrites > p.max_overwrites && self.origins.written("precondition.min_overwrites") {
            return Err(Error::config_keys(
                f,
                &["precondition.min_overwrites", "precondition.max_overwrites"],
                format!(
                    "{} is above max_overwrites = {}, so steady state would never be judged; expected at most max_overwrites",
                    p.min_overwrites, p.max_overwrites
                ),
            ));
        }
        let capacity = match &self.array {
            None => geo.logical_bytes(),
            Some(_) => check(self)?,
        };
        for i in 0..self.job.len() {
            let j = &self.zoned_job(i)?;
            j.validate(f, &format!("job[{i}]"), capacity)?;
            if j.readonly && self.array.as_ref().is_some_and(|a| a.layout != "rodi") {
                return Err(Error::config(
                    f,
                    &format!("job[{i}].readonly"),
                    "marks read-only data, which only a rodi array places apart; expected [array] layout = \"rodi\" or no readonly".to_string(),
                ));
            }
            self.check_data_placement(f, i, j)?;
        }
        Ok(())
    }

    /// Job `i` as it runs on the device: with `zonemode=zbd`, its counts of zones made bytes and
    /// the device's zones filled in (`workload::zbd::resolve`); errors name the job's key.
    pub fn zoned_job(&self, i: usize) -> Result<crate::workload::job::JobConfig> {
        let zones = match &self.array {
            None => crate::firmware::zns::host_view(&self.device),
            Some(_) => None,
        };
        crate::workload::zbd::resolve(&self.job[i], zones.as_ref())
            .map_err(|(k, m)| self.locate(Error::config(&self.file, &format!("job[{i}].{k}"), m)))
    }

    /// fio's data placement keys of job `i` against the device: FDP identifiers need an FDP
    /// device (placement policy "fdp") and must name its handles (fio refuses an index past
    /// them too); stream ids need a policy that reads them; a trace's or file system's
    /// writes carry their own stream ids.
    fn check_data_placement(&self, f: &str, i: usize, j: &crate::workload::job::JobConfig) -> Result<()> {
        use crate::workload::placement_ids::{parse_ids, Directive};
        let directive = Directive::parse(&j.dataplacement).unwrap_or(Directive::None);
        let p = &self.device.placement;
        if j.ruh_update_every.is_some() {
            let why = if self.array.is_some() || p.policy != "fdp" {
                Some(format!(
                    "set for a device without FDP (placement policy \"{}\"{})",
                    p.policy,
                    if self.array.is_some() { ", an array" } else { "" }
                ))
            } else if self.device.ftl.gc_frontier == "shared" {
                Some("set where GC writes into handle 0's reclaim units (device.ftl.gc_frontier = \"shared\")".into())
            } else if directive == Directive::None && j.stream == 0 && j.trace.is_none() && j.fs.is_none() {
                // No identifier on any write: no handle would ever be named in an update.
                return Err(Error::config(
                    f,
                    &format!("job[{i}].ruh_update_every"),
                    "set on a job whose writes carry no placement identifier (no dataplacement, stream 0), so no handle would be updated; expected dataplacement = \"fdp\" (or a stream) with it".to_string(),
                ));
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Error::config(
                    f,
                    &format!("job[{i}].ruh_update_every"),
                    format!("{why}; expected device.placement.policy = \"fdp\" on a lone device with gc_frontier = \"separate\""),
                ));
            }
        }
        if directive == Directive::None {
            return Ok(());
        }
        if j.stream != 0 {
            // The directive's identifiers replace the job's stream on every write.
            return Err(Error::config(
                f,
                &format!("job[{i}].stream"),
                format!(
                    "set beside dataplacement = \"{}\", whose identifiers every write carries instead; expected one of the two",
                    j.dataplacement
                ),
            ));
        }
        let key = format!("job[{i}].dataplacement");
        if j.trace.is_some() || j.fs.is_some() {
            return Err(Error::config(
                f,
                &key,
                "set on a job whose writes carry their own stream ids (a trace or a file system; under FDP, stream s is placement identifier s - 1); expected no dataplacement there".to_string(),
            ));
        }
        match directive {
            Directive::Fdp if self.array.is_some() || p.policy != "fdp" => Err(Error::config(
                f,
                &key,
                format!(
                    "fdp on a device without FDP (placement policy \"{}\"{}); expected device.placement.policy = \"fdp\" on a lone device",
                    p.policy,
                    if self.array.is_some() { ", an array" } else { "" }
                ),
            )),
            Directive::Fdp => {
                let handles = p.placement_handles();
                // A list that does not parse was refused when the job was validated.
                let ids = j.plids.as_deref().and_then(|v| parse_ids(v).ok()).unwrap_or_default();
                match ids.into_iter().find(|&x| x >= handles) {
                    Some(bad) => Err(Error::config(
                        f,
                        &format!("job[{i}].plids"),
                        format!(
                            "placement identifier index {bad} names no handle of the device's {handles}; expected indices below {handles} (device.placement.open_superblocks in each of its reclaim_groups; fio refuses them too)"
                        ),
                    )),
                    None => Ok(()),
                }
            }
            _ if self.array.is_none() && !matches!(p.policy.as_str(), "plane" | "multi-stream") => Err(Error::config(
                f,
                &key,
                format!(
                    "streams under placement policy \"{}\", which does not read stream ids; expected policy = \"plane\" (device.ftl.streams) or \"multi-stream\"",
                    p.policy
                ),
            )),
            _ => Ok(()),
        }
    }

    /// A job that replays a trace takes each request (its operation, offset, size and time)
    /// from the trace: the keys that generate requests do nothing there, and one written is
    /// an error naming it, with the trace's key that does the job where there is one.
    fn refuse_unused_trace_keys(&self, i: usize, j: &crate::workload::job::JobConfig) -> Result<()> {
        let open = j.replay.as_deref() != Some("closed");
        let keys: [(&str, bool, &str); 22] = [
            (
                "rw",
                true,
                "the trace's operations (trace.ops to keep reads or writes only)",
            ),
            (
                "rwmixread",
                true,
                "the trace's operations (trace.ops to keep reads or writes only)",
            ),
            ("bs", true, "no bs (the trace gives each request's size)"),
            ("bssplit", true, "no bssplit (the trace gives each request's size)"),
            (
                "random_distribution",
                true,
                "no random_distribution (the trace gives each offset)",
            ),
            ("offset", true, "trace.address to fit the trace's offsets to the device"),
            ("size", true, "trace.address to fit the trace's offsets to the device"),
            ("number_ios", true, "trace.max_requests to replay its first requests"),
            ("io_size", true, "trace.max_requests or trace.end to replay part of it"),
            ("rate_iops", true, "trace.speed to replay it faster or slower"),
            ("rate", true, "trace.speed to replay it faster or slower"),
            ("rate_process", true, "trace.speed to replay it faster or slower"),
            ("bsrange", true, "no bsrange (the trace gives each request's size)"),
            ("blockalign", true, "no blockalign (the trace gives each offset)"),
            ("rw_modifier", true, "no rw modifier (the trace gives each offset)"),
            (
                "random_sequence_stride",
                true,
                "no random_sequence_stride (the trace gives each offset)",
            ),
            (
                "percentage_random",
                true,
                "no percentage_random (the trace gives each offset)",
            ),
            (
                "offset_increment",
                true,
                "trace.address to fit the trace's offsets to the device",
            ),
            (
                "fill_device",
                true,
                "trace.address to fit the trace's offsets to the device",
            ),
            ("loops", true, "a job per pass over the trace"),
            (
                "thinktime",
                open,
                "replay = \"closed\" (a think time between a slot's requests), or trace.speed",
            ),
            (
                "host_time",
                open,
                "replay = \"closed\" (each request waits for the host's time), or trace.speed",
            ),
        ];
        for (k, unused, instead) in keys {
            let key = format!("job[{i}].{k}");
            if unused && self.origins.written_here(&key) {
                return Err(Error::config(
                    &self.file,
                    &key,
                    format!(
                        "set on a job that replays a trace{}, where it does nothing; expected {instead}",
                        if k == "thinktime" || k == "host_time" {
                            " at its timestamps"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Check the `[device]` table: each layer's section with its own check, then the sections
/// against each other. `d` is the device, `f` the file it came from.
pub fn validate_device(d: &DeviceConfig, f: &str) -> Result<()> {
    crate::pslc::validate(d, f)?;
    crate::compression::validate(d, f)?;
    let n = &d.nand;
    let bits = n.cell.bits();
    let (read, program, erase) = n.timing();
    read.resolve(bits, f, "device.nand.read")?;
    program.resolve(bits, f, "device.nand.program")?;
    if erase.0 == 0 || erase.0 > MAX_NAND_NS {
        return Err(Error::config(
            f,
            "device.nand.erase",
            format!("got {} ns; expected a positive duration of at most 1s", erase.0),
        ));
    }
    let page = d.geometry.page_size.0 as u128;
    if n.channel_rate.0 == 0 || page * 1_000_000_000 > MAX_NAND_NS as u128 * n.channel_rate.0 as u128 {
        return Err(Error::config(
            f,
            "device.nand.channel_rate",
            format!(
                "got {} bytes/s; expected a rate at which a {page}-byte page crosses the channel in at most 1s",
                n.channel_rate.0
            ),
        ));
    }
    if n.endurance == 0 {
        return Err(Error::config(
            f,
            "device.nand.endurance",
            "got 0; expected at least 1 P/E cycle",
        ));
    }
    if d.host.command_overhead.0 > MAX_NAND_NS {
        return Err(Error::config(
            f,
            "device.host.command_overhead",
            format!("got {} ns; expected at most 1s per command", d.host.command_overhead.0),
        ));
    }
    if d.host.command_latency.0 > MAX_NAND_NS {
        return Err(Error::config(
            f,
            "device.host.command_latency",
            format!("got {} ns; expected at most 1s per command", d.host.command_latency.0),
        ));
    }
    if d.ftl.bg_gc_idle.0 > 3_600_000_000_000 {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc_idle",
            format!("got {} ns; expected at most one hour", d.ftl.bg_gc_idle.0),
        ));
    }
    if d.scheduler.max_write_wait.0 > MAX_NAND_NS {
        return Err(Error::config(
            f,
            "device.scheduler.max_write_wait",
            format!("got {} ns; expected at most 1s", d.scheduler.max_write_wait.0),
        ));
    }
    if let Some(Rate(r)) = d.host.bandwidth {
        if r < 1_000_000 {
            return Err(Error::config(
                f,
                "device.host.bandwidth",
                format!("got {r} bytes/s; expected at least 1MB/s"),
            ));
        }
    }
    if let Some(Rate(0)) = d.host.bandwidth {
        return Err(Error::config(
            f,
            "device.host.bandwidth",
            "got 0; expected a positive rate",
        ));
    }
    for (key, table) in [("dma", &d.host.dma), ("read_dma", &d.host.read_dma)] {
        let mut last = 0u64;
        for (i, &(Size(sz), Rate(r))) in table.iter().enumerate() {
            if sz == 0 || sz <= last || r < 1_000_000 {
                return Err(Error::config(
                    f,
                    &format!("device.host.{key}[{i}]"),
                    format!(
                        "got [{sz} bytes, {r} bytes/s]; expected sizes above 0 in increasing order and rates of at least 1MB/s"
                    ),
                ));
            }
            last = sz;
        }
    }
    let c = &d.controller;
    if c.cpus == 0 || c.cpus > 64 {
        return Err(Error::config(
            f,
            "device.controller.cpus",
            format!("got {}; expected 1 to 64", c.cpus),
        ));
    }
    for (key, d) in [
        ("command_time", c.command_time),
        ("read_command_time", c.read_command_time.unwrap_or_default()),
        ("unit_time", c.unit_time),
        ("flash_op_time", c.flash_op_time),
        ("gc_time", c.gc_time),
    ] {
        if d.0 > 10_000_000 {
            return Err(Error::config(
                f,
                &format!("device.controller.{key}"),
                format!("got {} ns; expected at most 10ms", d.0),
            ));
        }
    }
    for (key, rate) in [("memcpy_rate", c.memcpy_rate), ("gc_copy_rate", c.gc_copy_rate)] {
        if let Some(Rate(r)) = rate {
            if r < 1_000_000 {
                return Err(Error::config(
                    f,
                    &format!("device.controller.{key}"),
                    format!("got {r} bytes/s; expected at least 1MB/s"),
                ));
            }
        }
    }
    let t = &d.ftl;
    crate::firmware::check(d).map_err(|(key, m)| Error::config(f, &format!("device.ftl.{key}"), m))?;
    crate::placement::check(d).map_err(|(key, m)| match key.as_str() {
        // Chips per channel that the superblocks' width does not divide: reported at
        // whichever of the three the user wrote (the width, the policy, or the ways).
        "device.geometry.ways" => Error::config_keys(
            f,
            &[
                "device.geometry.ways",
                "device.placement.width",
                "device.placement.policy",
            ],
            m,
        ),
        _ => Error::config(f, &key, m),
    })?;
    crate::redundancy::check(d).map_err(|(key, m)| Error::config(f, &key, m))?;
    crate::ftl::gc::check_policy_name(&t.gc_policy).map_err(|m| Error::config(f, "device.ftl.gc_policy", m))?;
    if t.gc_frontier != "separate" && t.gc_frontier != "shared" {
        return Err(Error::config(
            f,
            "device.ftl.gc_frontier",
            format!("got \"{}\"; expected \"separate\" or \"shared\"", t.gc_frontier),
        ));
    }
    if t.gc_frontier == "shared" && t.write_buffer.0 > 0 && d.geometry.mapping_unit.0 < d.geometry.page_size.0 {
        return Err(Error::config(
            f,
            "device.ftl.gc_frontier",
            "\"shared\" with a write buffer and sub-page mapping units would let GC fill pages whose host data still sits in the buffer; expected write_buffer = 0 or mapping_unit = page_size",
        ));
    }
    let wb = t.write_buffer.0;
    if wb > 0 && wb < d.geometry.page_size.0 {
        return Err(Error::config(
            f,
            "device.ftl.write_buffer",
            format!(
                "got {wb} bytes; expected 0 (write-through) or at least one page ({} bytes)",
                d.geometry.page_size.0
            ),
        ));
    }
    if t.power_loss_protection && (wb == 0 || t.design != "page") {
        return Err(Error::config(
            f,
            "device.ftl.power_loss_protection",
            format!(
                "set with write_buffer = {wb} bytes and design \"{}\"; expected the \"page\" design with a write buffer (it protects the engine's buffer)",
                t.design
            ),
        ));
    }
    if t.gc_d == 0 {
        return Err(Error::config(
            f,
            "device.ftl.gc_d",
            "got 0; expected a sample of at least 1 block",
        ));
    }
    if t.gc_threshold < 2 {
        return Err(Error::config(
            f,
            "device.ftl.gc_threshold",
            format!(
                "got {}; expected at least 2 free blocks (one is the GC destination)",
                t.gc_threshold
            ),
        ));
    }
    if t.bg_gc_threshold != 0 && t.bg_gc_threshold <= t.gc_threshold {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc_threshold",
            format!(
                "got {} with gc_threshold {}; expected 0 (off) or above gc_threshold",
                t.bg_gc_threshold, t.gc_threshold
            ),
        ));
    }
    if t.bg_gc == BgGc::AfterRequest && t.bg_gc_threshold == 0 {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc",
            "\"after-request\" with bg_gc_threshold = 0; expected bg_gc_threshold above gc_threshold (the free blocks below which a request is followed by a collection), or bg_gc = \"idle\"",
        ));
    }
    if t.bg_gc == BgGc::AfterRequest && t.design != "page" {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc",
            format!(
                "\"after-request\" with design \"{}\"; expected the \"page\" design (a firmware design runs its own GC)",
                t.design
            ),
        ));
    }
    if !(0.0..1.0).contains(&t.bg_gc_min_invalid) {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc_min_invalid",
            format!(
                "got {}; expected a share of the victim's units from 0 up to (not including) 1",
                t.bg_gc_min_invalid
            ),
        ));
    }
    if t.bg_gc_min_invalid > 0.0 && t.bg_gc != BgGc::AfterRequest {
        return Err(Error::config(
            f,
            "device.ftl.bg_gc_min_invalid",
            "set while bg_gc is \"idle\", which does not use it; expected bg_gc = \"after-request\" (or no bg_gc_min_invalid)",
        ));
    }
    if !(1..=MAX_STREAMS).contains(&t.streams) {
        return Err(Error::config(
            f,
            "device.ftl.streams",
            format!(
                "got {}; expected 1 to {MAX_STREAMS} host write frontiers per plane",
                t.streams
            ),
        ));
    }
    if t.allocation_slack == Some(0) {
        return Err(Error::config(
            f,
            "device.ftl.allocation_slack",
            "got 0; expected at least 1 page (1 = strict rounds over the planes)",
        ));
    }
    let sc = &d.scheduler;
    if sc.max_write_wait.0 == 0 {
        return Err(Error::config(
            f,
            "device.scheduler.max_write_wait",
            "got 0; expected a positive duration (how long a program or erase may wait behind reads)",
        ));
    }
    for (key, d) in [
        ("program_suspend_time", sc.program_suspend_time),
        ("erase_suspend_time", sc.erase_suspend_time),
        ("resume_time", sc.resume_time),
    ] {
        if d.0 > 1_000_000_000 {
            return Err(Error::config(
                f,
                &format!("device.scheduler.{key}"),
                format!("got {} ns; expected at most 1s", d.0),
            ));
        }
    }
    if sc.max_suspensions > 255 {
        return Err(Error::config(
            f,
            "device.scheduler.max_suspensions",
            format!("got {}; expected at most 255", sc.max_suspensions),
        ));
    }
    if !sc.suspend.is_empty() && sc.max_suspensions == 0 {
        return Err(Error::config(
            f,
            "device.scheduler.max_suspensions",
            "got 0 while `suspend` names operations; expected at least 1 (or `suspend = []`)",
        ));
    }
    let threshold = t.gc_threshold.max(t.bg_gc_threshold) as u64;
    if d.geometry.blocks_per_plane as u64 <= threshold + 2 {
        // Reported at whichever of the two the user wrote (a threshold set in a run file
        // over a preset's geometry is reported at the threshold).
        let which = if t.bg_gc_threshold > t.gc_threshold {
            "device.ftl.bg_gc_threshold"
        } else {
            "device.ftl.gc_threshold"
        };
        return Err(Error::config_keys(
            f,
            &["device.geometry.blocks_per_plane", which],
            format!(
                "{} blocks per plane against a GC threshold of {threshold} free blocks; expected more \
                 blocks per plane than the threshold + 2 ({}), or a threshold below {}",
                d.geometry.blocks_per_plane,
                threshold + 2,
                (d.geometry.blocks_per_plane as u64).saturating_sub(2)
            ),
        ));
    }
    Ok(())
}

// An array's members: each is loaded as a run file of its own (a preset, or a file that
// may name members in turn), so resolving them is the loader's work.

/// How member `i` of an array run is preconditioned (its `precondition` key), seeded with
/// the run's seed + `i`.
pub fn member_precondition(cfg: &Config, i: usize) -> Result<crate::config::PreconditionConfig> {
    let run = &cfg.precondition;
    let seed = run.seed.wrapping_add(i as u64);
    let Some(m) = cfg.array.as_ref().and_then(|a| a.member.get(i)) else {
        return Ok(crate::config::PreconditionConfig { seed, ..run.clone() });
    };
    let key = format!("array.member[{i}].precondition");
    let own = match (m.precondition.as_str(), &m.preset, &m.config) {
        ("run", ..) => run.clone(),
        ("own", Some(p), _) => {
            let text = crate::config::preset_text(p).unwrap_or_default();
            crate::config::parse_config(text, &format!("preset {p}"), Path::new("."))?.precondition
        }
        ("own", None, Some(_)) => load_member(cfg, i)?.precondition,
        ("own", None, None) => {
            return Err(Error::config(
                &cfg.file,
                &key,
                "\"own\" on a member with no preset or config of its own; expected \"run\"",
            ))
        }
        (other, ..) => {
            return Err(Error::config(
                &cfg.file,
                &key,
                format!("got \"{other}\"; expected \"run\" or \"own\""),
            ))
        }
    };
    Ok(crate::config::PreconditionConfig { seed, ..own })
}

/// Member `i`'s run file (its `config` key), loaded; refused when the member files lead back
/// to one on the way (a file naming itself, or two naming each other), which would load
/// without end.
fn load_member(cfg: &Config, i: usize) -> Result<Config> {
    let key = format!("array.member[{i}].config");
    let c = cfg
        .array
        .as_ref()
        .and_then(|a| a.member[i].config.as_ref())
        .expect("a member config");
    let path = cfg.base_dir.join(c);
    let root = std::fs::canonicalize(&cfg.file).ok();
    if let Some(chain) = member_cycle(root.into_iter().collect(), &path) {
        let names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::config(
            &cfg.file,
            &key,
            format!(
                "'{c}' leads back to a run file already on the way ({}); expected a run file whose members do not name it",
                names.join(" -> ")
            ),
        ));
    }
    if !path.is_file() {
        return Err(Error::config(
            &cfg.file,
            &key,
            format!(
                "'{c}': {}; expected a run file with a [device] (a relative path is taken from this run file's folder)",
                if path.exists() { "not a file" } else { "no such file" }
            ),
        ));
    }
    // Its own errors name its own lines.
    crate::config::load_config(&path.display().to_string())
}

/// The first cycle of member run files reached from `next` with `stack` (canonical paths)
/// on the way: the stack from the file named again, then that file. Files that cannot be
/// read or parsed end the walk (loading them reports why).
fn member_cycle(mut stack: Vec<std::path::PathBuf>, next: &Path) -> Option<Vec<std::path::PathBuf>> {
    let next = std::fs::canonicalize(next).ok()?;
    if let Some(at) = stack.iter().position(|p| *p == next) {
        let mut chain = stack.split_off(at);
        chain.push(next);
        return Some(chain);
    }
    // Only a regular file is read: a FIFO would block (loading it reports why).
    if !std::fs::metadata(&next).ok()?.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(&next).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    let configs: Vec<String> = table
        .get("array")
        .and_then(|a| a.get("member"))
        .and_then(|m| m.as_array())
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m.get("config")?.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let dir = next.parent().map(Path::to_path_buf).unwrap_or_default();
    stack.push(next);
    configs.iter().find_map(|c| member_cycle(stack.clone(), &dir.join(c)))
}

/// What a member is (an array has a few: the size of a device's config does not matter).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum MemberSpec {
    /// A simulated SSD.
    Device(DeviceConfig),
    /// A measured drive.
    Profile(Box<crate::array::profile::DeviceProfile>),
}

/// The members of a run: (name, what it is), in order; a run without `[array]` has its
/// device as its one member.
pub fn members(cfg: &Config) -> Result<Vec<(String, MemberSpec)>> {
    let Some(a) = &cfg.array else {
        return Ok(vec![(cfg.device.name.clone(), MemberSpec::Device(cfg.device.clone()))]);
    };
    let f = cfg.file.as_str();
    if a.member.is_empty() || a.member.len() > crate::array::MAX_MEMBERS {
        return Err(Error::config(
            f,
            "array.member",
            format!(
                "{} members; expected 1 to {} [[array.member]] tables",
                a.member.len(),
                crate::array::MAX_MEMBERS
            ),
        ));
    }
    a.member
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let key = |k: &str| format!("array.member[{i}].{k}");
            let given = [
                ("preset", m.preset.is_some()),
                ("config", m.config.is_some()),
                ("profile", m.profile.is_some()),
            ];
            if let Some((k, _)) = given.iter().filter(|g| g.1).nth(1) {
                return Err(Error::config(
                    f,
                    &key(k),
                    "set with another of preset, config, profile; expected one of them",
                ));
            }
            let spec = if let Some(p) = &m.preset {
                let text = crate::config::preset_text(p).ok_or_else(|| {
                    Error::config(
                        f,
                        &key("preset"),
                        format!(
                            "unknown preset '{p}'; expected one of {}",
                            crate::config::preset_names().join(", ")
                        ),
                    )
                })?;
                MemberSpec::Device(crate::config::parse_config(text, &format!("preset {p}"), Path::new("."))?.device)
            } else if m.config.is_some() {
                MemberSpec::Device(load_member(cfg, i)?.device)
            } else if let Some(p) = &m.profile {
                let path = cfg.base_dir.join(p);
                let prof = crate::array::profile::DeviceProfile::load(&path)
                    .map_err(|e| Error::config(f, &key("profile"), e))?;
                MemberSpec::Profile(Box::new(prof))
            } else {
                MemberSpec::Device(cfg.device.clone())
            };
            let own = match &spec {
                MemberSpec::Device(d) => d.name.clone(),
                MemberSpec::Profile(p) => p.name.clone(),
            };
            Ok((m.name.clone().unwrap_or(own), spec))
        })
        .collect()
}

/// Check an array run's members and layout; the volume's capacity.
pub fn check(cfg: &Config) -> Result<u64> {
    for i in 0..cfg.array.as_ref().map_or(0, |a| a.member.len()) {
        member_precondition(cfg, i)?;
    }
    let mut min = u64::MAX;
    for (_, m) in members(cfg)? {
        min = min.min(match m {
            MemberSpec::Device(d) => crate::redundancy::geometry_of(&d, &cfg.file)?.logical_bytes(),
            MemberSpec::Profile(p) => p.capacity,
        });
    }
    let layout = crate::array::layout_of(cfg, min)?;
    Ok(layout.capacity(min))
}

/// The timing of the small SLC device the hand-computed latency tests use (unit tests and
/// integration tests alike): tR 25 µs, tPROG 200 µs, tBERS 1.5 ms, 8 KiB over a 100 MB/s
/// channel in 81,920 ns, a SATA link with 5 µs per command (8 KiB with its command: 18,654
/// ns), GC at 2 free blocks. Goes after a run file's `[device.geometry]` table;
/// `[device.ftl]` is open at its end.
#[doc(hidden)]
pub const TEST_SLC_TIMING: &str = r#"[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "100MB/s"
endurance = 100000
[device.host]
interface = "sata3"
command_overhead = "5us"
[device.ftl]
gc_threshold = 2
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Duration;
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<Config> {
        parse_config(text, "t.toml", Path::new("."))
    }

    #[test]
    fn presets_are_valid_and_complete() {
        for name in preset_names() {
            let c = load_config(name).unwrap();
            assert!(
                !c.device.nand.source.is_empty(),
                "{name}: preset must state its sources"
            );
            assert!(
                !c.device.scheduler.source.is_empty(),
                "{name}: preset must say which scheduling features it enables and why"
            );
            assert!(!c.job.is_empty(), "{name}: a preset carries a default job");
            assert!(
                c.precondition.mode != PreconditionMode::None || !c.precondition.note.is_empty(),
                "{name}: the built-in job preconditions or says why it starts fresh"
            );
        }
        // The NVMe presets model modern controllers: read priority with both suspensions.
        for name in ["tlc-nvme", "qlc-nvme"] {
            let s = load_config(name).unwrap().device.scheduler;
            assert_eq!(s.policy, crate::scheduler::Policy::ReadPriority, "{name}");
            assert_eq!(s.suspend, vec![Suspendable::Program, Suspendable::Erase], "{name}");
        }
    }

    #[test]
    fn overrides_set_keys_on_top_of_file_and_preset() {
        let text = "[device]\npreset = \"mlc-sata\"\n[[job]]\nrw = \"randread\"\n";
        let set = |o: &[&str]| {
            let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
            parse_config_with(text, "t.toml", Path::new("."), &o)
        };
        let c = set(&[
            "device.scheduler.policy=fcfs",
            "job.0.iodepth=7",
            "device.scheduler.suspend=[\"erase\"]",
        ])
        .unwrap();
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert_eq!(c.device.scheduler.suspend, vec![Suspendable::Erase]);
        assert_eq!(c.job[0].iodepth, 7);
        assert_eq!(c.device.geometry.channels, 8, "the preset still applies");
        let e = set(&["device.scheduler.policy=lifo"]).unwrap_err().to_string();
        assert!(e.contains("lifo"), "{e}");
        let e = set(&["job.3.iodepth=1"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--set job.3.iodepth=1: job[3].iodepth: 'job' has 1 entries; expected an index below 1"
        );
        let e = set(&["nonsense"]).unwrap_err().to_string();
        assert!(e.starts_with("--set nonsense: not KEY=VALUE; expected"), "{e}");
        // A key set on the command line is blamed on the command line.
        let e = set(&["job.0.iodepth=0"]).unwrap_err().to_string();
        assert!(e.starts_with("--set job.0.iodepth=0: job[0].iodepth: "), "{e}");
    }

    #[test]
    fn scheduler_keys_are_checked() {
        let base = "[device]\npreset = \"mlc-sata\"\n[device.scheduler]\n";
        let c = parse(&format!(
            "{base}policy = \"fcfs\"\nsuspend = [\"program\"]\nprogram_suspend_time = \"80us\"\n"
        ))
        .unwrap();
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert_eq!(c.device.scheduler.program_suspend_time, Duration(80_000));
        for (text, key) in [
            ("policy = \"lifo\"", "lifo"),
            ("suspend = [\"read\"]", "read"),
            ("max_write_wait = \"0s\"", "device.scheduler.max_write_wait"),
            (
                "suspend = [\"erase\"]\nmax_suspensions = 0",
                "device.scheduler.max_suspensions",
            ),
            ("max_suspensions = 1000", "device.scheduler.max_suspensions"),
            ("resume_time = \"2s\"", "device.scheduler.resume_time"),
            ("warp = 1", "warp"),
        ] {
            let e = parse(&format!("{base}{text}\n")).unwrap_err().to_string();
            assert!(e.contains(key) && !e.contains('\n'), "{text}: {e}");
        }
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.ftl]\nallocation_slack = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.ftl.allocation_slack"), "{e}");
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.nand]\nchannel_rate = \"1KB/s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.channel_rate"), "{e}");
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.nand]\nprogram = \"2s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.program"), "{e}");
    }

    #[test]
    fn config_show_lists_every_key_of_every_preset() {
        for name in preset_names() {
            let text = preset_text(name).unwrap();
            let shown = preset_defaults(name).unwrap();
            let cfg = load_config(name).unwrap();
            let v = toml::Value::try_from(&cfg).unwrap();
            let mut keys: Vec<String> = UNSET_KEYS.iter().map(|(k, _)| k.replace("job.", "job.0.")).collect();
            keys.extend(leaf_keys(&v).into_iter().map(|(k, _)| k));
            assert!(keys.len() > 60, "{name}: {} keys", keys.len());
            for k in keys {
                let leaf = k.rsplit('.').next().unwrap();
                assert!(
                    crate::toml_position::toml_position(text, &k).is_ok() || shown.contains(&format!("#   {leaf} = ")),
                    "{name}: config show does not list {k}"
                );
            }
        }
    }

    #[test]
    fn overrides_merge_into_presets() {
        let c = parse("[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 200\n").unwrap();
        assert_eq!(c.device.geometry.blocks_per_plane, 200);
        assert_eq!(c.device.geometry.channels, 8);
        assert_eq!(c.job.len(), 1, "the preset's job applies when none is given");
    }

    #[test]
    fn shared_gc_frontier_with_a_sub_page_buffer_is_rejected() {
        let e = parse("[device]\npreset = \"tlc-nvme\"\n[device.ftl]\ngc_frontier = \"shared\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.ftl.gc_frontier"), "{e}");
        parse("[device]\npreset = \"tlc-nvme\"\n[device.ftl]\ngc_frontier = \"shared\"\nwrite_buffer = 0\n").unwrap();
    }

    /// A device without a preset whose `[device.nand]` gives `cell` and `nand` (more keys),
    /// but no timing unless `nand` does.
    fn cell_device(cell: &str, nand: &str) -> String {
        format!(
            "[device.geometry]\nchannels = 2\nways = 1\nblocks_per_plane = 64\npages_per_block = 64\n\
             page_size = \"4KiB\"\noverprovisioning = 0.25\n\
             [device.nand]\ncell = \"{cell}\"\nchannel_rate = \"40MB/s\"\nendurance = 1000\n{nand}\
             [device.host]\ninterface = \"sata3\"\ncommand_overhead = \"5us\"\n"
        )
    }

    /// (read per page type, program per page type, erase), ns.
    fn timing_ns(c: &Config) -> (Vec<u64>, Vec<u64>, u64) {
        (c.device.read_ns(), c.device.program_ns(), c.device.erase_ns())
    }

    #[test]
    fn cell_alone_gives_its_typical_timing() {
        for (cell, bits, read, program, erase) in [
            ("slc", 1, 25_000, 200_000, 1_500_000),
            ("mlc", 2, 50_000, 750_000, 3_000_000),
            ("tlc", 3, 75_000, 1_125_000, 4_500_000),
            ("qlc", 4, 130_000, 2_800_000, 4_500_000),
        ] {
            let c = parse(&cell_device(cell, "")).unwrap_or_else(|e| panic!("{cell}: {e}"));
            assert_eq!(timing_ns(&c), (vec![read; bits], vec![program; bits], erase), "{cell}");
            assert_eq!(c.device.nand.typical_keys(), CELL_TIMING_KEYS, "{cell}");
        }
    }

    #[test]
    fn timing_keys_not_written_come_from_the_cell() {
        // Only the program time written: read and erase are the MLC cell's.
        let c = parse(&cell_device("mlc", "program = [\"500us\", \"1.5ms\"]\n")).unwrap();
        assert_eq!(timing_ns(&c), (vec![50_000; 2], vec![500_000, 1_500_000], 3_000_000));
        assert_eq!(c.device.nand.typical_keys(), ["read", "erase"]);
        // Only the erase time written.
        let c = parse(&cell_device("slc", "erase = \"2ms\"\n")).unwrap();
        assert_eq!(timing_ns(&c), (vec![25_000], vec![200_000], 2_000_000));
    }

    #[test]
    fn timing_left_to_the_cell_follows_a_cell_set_on_top() {
        let text = cell_device("tlc", "read = \"60us\"\n");
        let o = vec!["device.nand.cell=qlc".to_string()];
        let c = parse_config_with(&text, "t.toml", Path::new("."), &o).unwrap();
        // The written read time stays (one value for every page type of the new cell); the
        // program and erase times are QLC's, not TLC's.
        assert_eq!(timing_ns(&c), (vec![60_000; 4], vec![2_800_000; 4], 4_500_000));
        // A written per-page-type list does not follow the cell: it no longer fits.
        let text = cell_device("mlc", "read = [\"50us\", \"60us\"]\n");
        let e = parse_config_with(&text, "t.toml", Path::new("."), &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.read: got 2 durations"), "{e}");
    }

    #[test]
    fn explicit_preset_timing_stays_when_the_cell_changes() {
        // slc-sata writes its SLC timing: a run file setting cell = "mlc" keeps it.
        let c = parse("[device]\npreset = \"slc-sata\"\n[device.nand]\ncell = \"mlc\"\n").unwrap();
        assert_eq!(c.device.nand.cell, CellType::Mlc);
        assert_eq!(timing_ns(&c), (vec![25_000; 2], vec![200_000; 2], 1_500_000));
        assert!(c.device.nand.typical_keys().is_empty());
    }

    #[test]
    fn hotr_preset_takes_its_timing_from_its_cell() {
        let c = load_config("hotr").unwrap();
        assert_eq!(timing_ns(&c), (vec![75_000; 3], vec![1_125_000; 3], 4_500_000));
        // The DiskSim SSD extension's device: 16 GiB raw, die-level operations, write-through,
        // FCFS without suspension.
        let g = &c.device.geometry;
        let raw = (g.channels * g.ways * g.dies_per_chip * g.planes_per_die * g.blocks_per_plane) as u64
            * g.pages_per_block as u64
            * g.page_size.0;
        assert_eq!(raw, 16 << 30);
        assert!(!c.device.nand.plane_parallel);
        assert_eq!(c.device.ftl.write_buffer, Size(0));
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert!(c.device.scheduler.suspend.is_empty());
        // A run file's cell switches the whole timing.
        let c = parse("[device]\npreset = \"hotr\"\n[device.nand]\ncell = \"qlc\"\n").unwrap();
        assert_eq!(timing_ns(&c), (vec![130_000; 4], vec![2_800_000; 4], 4_500_000));
        // So does --set.
        let c = load_config_with("hotr", &["device.nand.cell=slc".to_string()]).unwrap();
        assert_eq!(timing_ns(&c), (vec![25_000], vec![200_000], 1_500_000));
        // A timing the run file writes stays; the others follow the cell.
        let c = parse("[device]\npreset = \"hotr\"\n[device.nand]\ncell = \"mlc\"\nprogram = \"1ms\"\n").unwrap();
        assert_eq!(timing_ns(&c), (vec![50_000; 2], vec![1_000_000; 2], 3_000_000));
        // `config show` gives the values in force and where they come from.
        let shown = preset_defaults("hotr").unwrap();
        for line in [
            "#   read = \"75us\" (unset: typical for cell = \"tlc\")",
            "#   program = \"1.125ms\" (unset: typical for cell = \"tlc\")",
            "#   erase = \"4.5ms\" (unset: typical for cell = \"tlc\")",
        ] {
            assert!(shown.contains(line), "{line} not in:\n{shown}");
        }
    }

    #[test]
    fn errors_name_file_key_and_line() {
        let e = parse("[device]\npreset = \"tlc-nvme\"\n[device.nand]\nerase = \"3 furlongs\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.toml") && e.contains("furlongs"), "{e}");
        let e = parse("[device]\npreset = \"tlc-nvme\"\nwarp = 9\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("warp"), "{e}");
        let e = parse("[device\n").unwrap_err().to_string();
        assert!(e.starts_with("t.toml:1:"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Replace one value of a preset with arbitrary text: an error or a valid config, never a panic.
        #[test]
        fn mutated_configs_never_panic(line in 0usize..60, junk in "\\PC{0,12}") {
            let text = preset_text("mlc-sata").unwrap();
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            let i = line % lines.len();
            if let Some((k, _)) = lines[i].clone().split_once('=') {
                lines[i] = format!("{k}= {junk}");
            } else {
                lines[i] = junk.clone();
            }
            let _ = parse(&lines.join("\n"));
        }

        #[test]
        fn numeric_extremes_never_panic(key in proptest::sample::select(vec![
            "channels", "ways", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block",
            "page_size", "mapping_unit", "overprovisioning"]), v in proptest::num::i64::ANY) {
            let text = format!("[device]\npreset = \"mlc-sata\"\n[device.geometry]\n{key} = {v}\n");
            let _ = parse(&text);
        }
    }
}
