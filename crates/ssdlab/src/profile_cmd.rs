//! `ssdlab profile PATH`: measure a real drive (a file on it, or the block device) with fio,
//! one run per (pattern, request size, depth, read share), and write a device profile that
//! the array layer can use as a member (`ssdlab_core::array::drive`). The profile goes to
//! `-o FILE`, a table of MB/s by read share and the read-only gains to standard output,
//! progress to standard error.

use clap::{ArgAction, Args, ValueEnum};
use ssdlab_core::array::profile::{
    disk_signature, point_from_fio_json, DeviceProfile, Pattern, SIGNATURE_BYTES, SYNC_ENGINES,
};
use ssdlab_core::units::fmt_size;
use ssdlab_core::{Error, Result};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PatternArg {
    /// Sequential offsets (fio `rw=rw`).
    Seq,
    /// Random offsets (fio `rw=randrw`).
    Rand,
}

#[derive(Args)]
#[command(after_help = "The seed's full sweep (a few hours at 2 s per point): \
    --sizes 2MiB,8MiB,32MiB --depths 2,4,8 --step 5 --range 20GiB --runtime 2s")]
pub struct ProfileArgs {
    /// A regular file (created, and extended by fio to --range) or a block device to measure.
    /// Measuring writes over the range: a block device holding a partition table or a file
    /// system is refused without --destructive.
    path: String,
    /// Where to write the profile (JSON).
    #[arg(long, short, value_name = "FILE", default_value = "profile.json")]
    output: String,
    /// Request sizes, separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "2MiB,8MiB", value_parser = parse_bs)]
    sizes: Vec<u64>,
    /// Queue depths (outstanding I/Os), separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "2", value_parser = clap::value_parser!(u32).range(1..=4096))]
    depths: Vec<u32>,
    /// Read-share step in %: 0, STEP, 2 x STEP, ... 100 (a divisor of 100).
    #[arg(long, default_value_t = 25, value_parser = parse_step)]
    step: u32,
    /// Access patterns, separated by commas.
    #[arg(long, value_delimiter = ',', value_enum, default_value = "seq,rand")]
    patterns: Vec<PatternArg>,
    /// Bytes of the file or device measured, from its start (the profile's capacity).
    #[arg(long, default_value = "1GiB", value_parser = crate::parse_size_arg)]
    range: u64,
    /// fio's run time per point, e.g. 2s or 500ms.
    #[arg(long, default_value = "1s", value_parser = parse_runtime)]
    runtime: u64,
    /// fio's I/O engine (default libaio, or psync with one job per outstanding I/O when
    /// libaio cannot be loaded).
    #[arg(long)]
    ioengine: Option<String>,
    /// Direct I/O (O_DIRECT), past the page cache; falls back to buffered I/O, with a note,
    /// where the file system refuses it. `--direct false` asks for buffered I/O.
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set)]
    direct: bool,
    /// Allow writing over a block device that holds a partition table or a file system.
    #[arg(long)]
    destructive: bool,
    /// The drive's name in the profile (default: the file name of PATH).
    #[arg(long)]
    name: Option<String>,
    /// No progress messages.
    #[arg(long, short)]
    quiet: bool,
}

// Parsed here: clap has no parser for sizes or durations with units, and a step must
// divide 100, which no range says.
fn parse_bs(s: &str) -> std::result::Result<u64, String> {
    let v = ssdlab_core::units::parse_size(s)?;
    if v == 0 || !v.is_multiple_of(512) {
        return Err(format!(
            "got '{s}'; expected a request size that is a positive multiple of 512 bytes, e.g. 2MiB"
        ));
    }
    Ok(v)
}

fn parse_step(s: &str) -> std::result::Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if v > 0 && 100 % v == 0 => Ok(v),
        _ => Err(format!(
            "got '{s}'; expected a divisor of 100 (percent) such as 5, 10, 25 or 50"
        )),
    }
}

fn parse_runtime(s: &str) -> std::result::Result<u64, String> {
    let ns = ssdlab_core::units::parse_duration_ns(s)?;
    if ns < 1_000_000 || !ns.is_multiple_of(1_000_000) {
        return Err(format!(
            "got '{s}'; expected a whole number of milliseconds, at least 1ms, e.g. 2s or 500ms"
        ));
    }
    Ok(ns)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Block,
}

/// How a fio run failed.
struct Failure {
    /// The first line of its standard error (or the job's error).
    first: String,
    /// Its standard error, in lower case.
    stderr: String,
    job_error: Option<i64>,
}

/// How fio runs: engine, direct or buffered, and the notes on fallbacks.
struct Runner<'a> {
    path: &'a str,
    range: u64,
    runtime_ms: u64,
    engine: String,
    /// The engine was the default: psync may replace it.
    engine_default: bool,
    direct: bool,
    notes: Vec<String>,
    quiet: bool,
}

impl Runner<'_> {
    fn args(&self, pattern: Pattern, bs: u64, depth: u32, read_pct: u32) -> Vec<String> {
        let sync = SYNC_ENGINES.contains(&self.engine.as_str());
        // A synchronous engine has one I/O outstanding per job: `depth` jobs instead.
        let (iodepth, jobs) = if sync { (1, depth) } else { (depth, 1) };
        vec![
            "--output-format=json".into(),
            "--name=ssdlab-profile".into(),
            // fio separates file names with ':'.
            format!("--filename={}", self.path.replace(':', "\\:")),
            format!("--rw={}", if pattern == Pattern::Sequential { "rw" } else { "randrw" }),
            format!("--rwmixread={read_pct}"),
            format!("--bs={bs}"),
            format!("--iodepth={iodepth}"),
            format!("--numjobs={jobs}"),
            format!("--size={}", self.range),
            format!("--runtime={}ms", self.runtime_ms),
            "--time_based".into(),
            format!("--ioengine={}", self.engine),
            format!("--direct={}", self.direct as u8),
        ]
    }

    /// One fio run: its standard output, or how it failed.
    fn fio(&self, args: &[String]) -> Result<std::result::Result<String, Failure>> {
        let o = Command::new("fio").args(args).output().map_err(fio_missing)?;
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        // A job that failed shows in its "error" even when fio exits 0.
        let job_error = out
            .find('{')
            .and_then(|i| serde_json::from_str::<serde_json::Value>(&out[i..]).ok())
            .and_then(|v| {
                v["jobs"]
                    .as_array()?
                    .iter()
                    .find_map(|j| j["error"].as_i64().filter(|&e| e != 0))
            });
        if o.status.success() && job_error.is_none() {
            return Ok(Ok(out));
        }
        let first = stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
            .or_else(|| job_error.map(|e| format!("job error {e}")))
            .unwrap_or_else(|| format!("exit status {}", o.status.code().unwrap_or(-1)));
        Ok(Err(Failure {
            first,
            stderr: stderr.to_lowercase(),
            job_error,
        }))
    }

    /// The point at (pattern, bs, depth, read %), falling back to psync and to buffered I/O
    /// when fio says the engine or O_DIRECT is unavailable.
    fn point(
        &mut self,
        pattern: Pattern,
        bs: u64,
        depth: u32,
        read_pct: u32,
    ) -> Result<ssdlab_core::array::profile::ProfilePoint> {
        loop {
            let args = self.args(pattern, bs, depth, read_pct);
            let f = match self.fio(&args)? {
                Ok(out) => return point_from_fio_json(&out, "fio's output"),
                Err(f) => f,
            };
            if self.engine_default && (f.stderr.contains("not loadable") || f.stderr.contains("failed to load engine"))
            {
                self.note(format!(
                    "fio cannot load the {} engine; using psync, one job per outstanding I/O",
                    self.engine
                ));
                self.engine = "psync".into();
                self.engine_default = false;
                continue;
            }
            // EINVAL on open or on I/O: what a file system without O_DIRECT answers.
            if self.direct
                && (f.stderr.contains("direct") || f.stderr.contains("invalid argument") || f.job_error == Some(22))
            {
                self.note("the file system refused O_DIRECT; measuring buffered I/O (through the page cache)".into());
                self.direct = false;
                continue;
            }
            return Err(Error::Invalid(format!(
                "fio failed on {} ({}): \"{}\"; expected fio to complete the run (fio {})",
                self.path,
                label(pattern, bs, depth, Some(read_pct)),
                f.first,
                args.join(" ")
            )));
        }
    }

    fn note(&mut self, m: String) {
        if !self.quiet {
            eprintln!("ssdlab: profile: note: {m}");
        }
        self.notes.push(m);
    }
}

fn label(pattern: Pattern, bs: u64, depth: u32, read_pct: Option<u32>) -> String {
    let p = if pattern == Pattern::Sequential { "seq" } else { "rand" };
    match read_pct {
        Some(r) => format!("{p} {} depth {depth}, {r} % reads", fmt_size(bs)),
        None => format!("{p} {} depth {depth}", fmt_size(bs)),
    }
}

fn fio_missing(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        Error::Invalid("fio: not found; expected fio installed (e.g. `apt-get install fio`)".into())
    } else {
        Error::Invalid(format!(
            "fio: cannot run it ({e}); expected fio installed and executable"
        ))
    }
}

/// The directory a new file at `p` goes into must exist.
fn check_parent(p: &str, what: &str) -> Result<()> {
    let parent = Path::new(p).parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(d) = parent {
        if !d.is_dir() {
            return Err(Error::Config(format!(
                "{p}: directory {} does not exist; expected {what} in an existing directory",
                d.display()
            )));
        }
    }
    Ok(())
}

/// What PATH is, refusing what cannot be measured.
fn examine(a: &ProfileArgs) -> Result<Kind> {
    let p = Path::new(&a.path);
    let expected = "expected a regular file or a block device";
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            check_parent(&a.path, "a file to measure (or a block device)")?;
            return Ok(Kind::File);
        }
        Err(e) => return Err(Error::Config(format!("{}: {e}; {expected}", a.path))),
    };
    let t = meta.file_type();
    if t.is_dir() {
        return Err(Error::Config(format!("{}: is a directory; {expected}", a.path)));
    }
    if t.is_file() {
        return Ok(Kind::File);
    }
    if !t.is_block_device() {
        return Err(Error::Config(format!(
            "{}: neither a regular file nor a block device; {expected}",
            a.path
        )));
    }
    let mut f = std::fs::File::open(p).map_err(|e| Error::io(&a.path, e))?;
    let size = f.seek(SeekFrom::End(0)).map_err(|e| Error::io(&a.path, e))?;
    if a.range > size {
        return Err(Error::Config(format!(
            "--range: {} is beyond the end of {} ({}); expected at most the device's size",
            fmt_size(a.range),
            a.path,
            fmt_size(size)
        )));
    }
    if !a.destructive {
        f.seek(SeekFrom::Start(0)).map_err(|e| Error::io(&a.path, e))?;
        let mut head = Vec::with_capacity(SIGNATURE_BYTES);
        f.take(SIGNATURE_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(&a.path, e))?;
        if let Some(what) = disk_signature(&head) {
            return Err(Error::Config(format!(
                "{}: holds {what}, which measuring writes would destroy; expected a blank device, or --destructive to overwrite it",
                a.path
            )));
        }
    }
    Ok(Kind::Block)
}

pub fn run(mut a: ProfileArgs) -> Result<()> {
    a.sizes.sort_unstable();
    a.sizes.dedup();
    a.depths.sort_unstable();
    a.depths.dedup();
    let max_bs = a.sizes.iter().copied().max().unwrap_or(0);
    if a.range < max_bs {
        return Err(Error::Config(format!(
            "--range: {} is below the largest request size {}; expected at least that",
            fmt_size(a.range),
            fmt_size(max_bs)
        )));
    }
    let kind = examine(&a)?;
    check_parent(&a.output, "the profile file")?;
    ssdlab_core::output::check_file_dir(&a.output)
        .map_err(|why| Error::Invalid(format!("--output: {why}; expected a file in a writable directory")))?;
    // The profile must not replace the file being measured.
    ssdlab_core::output::refuse_input("--output", &a.output, &[&a.path])?;
    if Path::new(&a.output).is_dir() {
        return Err(Error::Config(format!(
            "{}: is a directory; expected a file name for the profile (-o)",
            a.output
        )));
    }
    let version = Command::new("fio").arg("--version").output().map_err(fio_missing)?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    if kind == Kind::File {
        // fio extends the file to the range itself, writing it (a sparse file would read
        // holes).
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&a.path)
            .map_err(|e| Error::io(&a.path, e))?;
    }
    let mut patterns: Vec<Pattern> = a
        .patterns
        .iter()
        .map(|p| match p {
            PatternArg::Seq => Pattern::Sequential,
            PatternArg::Rand => Pattern::Random,
        })
        .collect();
    patterns.sort();
    patterns.dedup();
    let shares: Vec<u32> = (0..=100 / a.step).map(|i| i * a.step).collect();
    let total = patterns.len() * a.sizes.len() * a.depths.len() * shares.len();
    let mut r = Runner {
        path: &a.path,
        range: a.range,
        runtime_ms: a.runtime / 1_000_000,
        engine: a.ioengine.clone().unwrap_or_else(|| "libaio".into()),
        engine_default: a.ioengine.is_none(),
        direct: a.direct,
        notes: Vec::new(),
        quiet: a.quiet,
    };
    if !a.quiet {
        eprintln!(
            "ssdlab: profile: {} points over {} of {}, about {:.0} s",
            total,
            fmt_size(a.range),
            a.path,
            total as f64 * (a.runtime as f64 / 1e9 + 0.3)
        );
    }
    let start = std::time::Instant::now();
    let mut points = Vec::with_capacity(total);
    let mut rows = Vec::new();
    for &pattern in &patterns {
        for &bs in &a.sizes {
            for &depth in &a.depths {
                let mut row = Vec::new();
                for &pct in &shares {
                    let p = r.point(pattern, bs, depth, pct)?;
                    if !a.quiet {
                        eprintln!(
                            "ssdlab: profile: [{}/{total}, {:.0} s] {}: {:.1} MB/s",
                            points.len() + 1,
                            start.elapsed().as_secs_f64(),
                            label(pattern, bs, depth, Some(pct)),
                            p.mb_s()
                        );
                    }
                    row.push(p.mb_s());
                    points.push(p);
                }
                rows.push((pattern, bs, depth, row));
            }
        }
    }
    let name = a.name.clone().unwrap_or_else(|| {
        Path::new(&a.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| a.path.clone())
    });
    let mut source = format!(
        "{version} on {} {}: ioengine {}, {} I/O, {} per point",
        if kind == Kind::Block {
            "block device"
        } else {
            "regular file"
        },
        a.path,
        r.engine,
        if r.direct { "direct" } else { "buffered" },
        ssdlab_core::units::fmt_duration(a.runtime)
    );
    for n in &r.notes {
        source += &format!("; {n}");
    }
    let prof = DeviceProfile {
        name,
        capacity: a.range,
        source,
        points,
    };
    prof.save(Path::new(&a.output))?;
    out!("{}", table(&prof, &shares, &rows, &a.output))?;
    Ok(())
}

type Row = (Pattern, u64, u32, Vec<f64>);

/// MB/s by read share and the read-only gain per (pattern, size, depth).
fn table(prof: &DeviceProfile, shares: &[u32], rows: &[Row], output: &str) -> String {
    let mut s = format!(
        "{}: {} measured, {} points, written to {output}\n{}\n\nMB/s by read share; gain: the read-only gain, MB/s at 100 % reads minus the mean over 0, 5, ... 100 %\n",
        prof.name,
        fmt_size(prof.capacity),
        prof.points.len(),
        prof.source
    );
    s += &format!("{:<8}{:>8}{:>6}", "pattern", "size", "depth");
    for p in shares {
        s += &format!("{:>9}", format!("{p}%"));
    }
    s += &format!("{:>9}\n", "gain");
    for (pattern, bs, depth, row) in rows {
        let p = if *pattern == Pattern::Sequential { "seq" } else { "rand" };
        s += &format!("{p:<8}{:>8}{depth:>6}", fmt_size(*bs));
        for v in row {
            s += &format!("{v:>9.1}");
        }
        let gain = prof
            .curve(*pattern, *bs, *depth)
            .map(|c| format!("{:>9.1}", c.readonly_gain()))
            .unwrap_or_else(|_| format!("{:>9}", "-"));
        s += &gain;
        s += "\n";
    }
    s
}
