//! `ssdlab traces`: the public traces the experiments, benchmarks and docs replay
//! (`ssdlab_core::trace::catalogue`). `list` shows the traces folder and each trace's state;
//! `fetch` downloads the missing ones from their public repositories (or a mirror), each
//! checked against its recorded size and SHA-256 before it is renamed into place: a wrong or
//! broken-off download leaves nothing behind.

use clap::Subcommand;
use sha2::{Digest, Sha256};
use ssdlab_core::trace::catalogue::{self, PublicTrace, ENV, TRACES};
use ssdlab_core::{Error, Result};
use std::path::{Path, PathBuf};

/// `--traces DIR` of every command that reads the public traces (`@NAME` in a run file or
/// on the command line, hotr's replays, the benchmarks' trace replay).
#[derive(clap::Args, Clone, Default)]
pub struct TracesDir {
    /// The folder of the public traces (default: $SSDLAB_TRACES, else ssdlab/traces in the
    /// platform's cache folder).
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
}

impl TracesDir {
    /// Point this process's traces folder at `--traces DIR` when given.
    pub fn apply(&self) {
        if let Some(d) = &self.traces {
            catalogue::set_dir(d.clone());
        }
    }
}

#[derive(Subcommand)]
pub enum TracesCmd {
    /// Download the public traces (all, or those named) into the traces folder, each checked
    /// against its recorded SHA-256; a trace already there whole is kept.
    Fetch {
        /// Trace names (`ssdlab traces list`); none: every trace.
        names: Vec<String>,
        #[command(flatten)]
        traces: TracesDir,
        /// Fetch from this base instead of each trace's repository: URL/NAME, where URL is
        /// http(s)://..., file:///FOLDER or a local folder (traces downloaded elsewhere).
        #[arg(long, value_name = "URL")]
        mirror: Option<String>,
        /// No progress bars.
        #[arg(long, short)]
        quiet: bool,
    },
    /// The traces folder and each public trace in it: whole (its SHA-256 checked), missing,
    /// or not the published bytes.
    List {
        #[command(flatten)]
        traces: TracesDir,
        /// Each trace's name and the URL it is published at, a line each (to download them
        /// on another machine and `fetch --mirror FOLDER` here).
        #[arg(long)]
        urls: bool,
    },
}

pub fn run(cmd: TracesCmd) -> Result<()> {
    match cmd {
        TracesCmd::Fetch {
            names,
            traces,
            mirror,
            quiet,
        } => {
            let wanted = select(&names)?;
            traces.apply();
            fetch(&wanted, &catalogue::dir()?, mirror.as_deref(), quiet)
        }
        TracesCmd::List { urls: true, .. } => {
            let out: String = TRACES.iter().map(|t| format!("{} {}\n", t.name, t.url)).collect();
            ssdlab_core::output::print(out)
        }
        TracesCmd::List { traces, .. } => {
            traces.apply();
            list(&catalogue::dir()?)
        }
    }
}

/// The traces named (all when none), or an error naming the unknown one.
fn select(names: &[String]) -> Result<Vec<&'static PublicTrace>> {
    if names.is_empty() {
        return Ok(TRACES.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            catalogue::find(n.trim_start_matches('@')).ok_or_else(|| {
                let all: Vec<&str> = TRACES.iter().map(|t| t.name).collect();
                Error::Invalid(format!(
                    "traces fetch: {n}: not a public trace of the catalogue; expected one of {}",
                    all.join(", ")
                ))
            })
        })
        .collect()
}

/// A file's state against its catalogue entry.
#[derive(Debug, PartialEq, Eq)]
enum State {
    Whole,
    Missing,
    /// Its size or SHA-256 is not the published file's.
    Different(String),
}

/// `path`'s state against `t`: its size, then its SHA-256.
fn state(path: &Path, t: &PublicTrace) -> Result<State> {
    let m = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::Missing),
        Err(e) => {
            return Err(Error::Io {
                path: path.display().to_string(),
                source: e,
            })
        }
    };
    if !m.is_file() {
        return Ok(State::Different("not a regular file".into()));
    }
    if m.len() != t.bytes {
        return Ok(State::Different(format!("{} bytes, not {}", m.len(), t.bytes)));
    }
    let mut f = std::fs::File::open(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    let mut h = Sha256::new();
    // sha2 0.11 hashes no reader itself (digest dropped its io::Write).
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let k = std::io::Read::read(&mut f, &mut buf).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
    }
    let got = hex::encode(h.finalize());
    Ok(if got == t.sha256 {
        State::Whole
    } else {
        State::Different(format!("SHA-256 {got}, not the published {}", t.sha256))
    })
}

fn list(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "traces list: {}: not a folder; expected the traces folder (--traces DIR or {ENV})",
            dir.display()
        )));
    }
    let mut out = format!("traces folder: {} (--traces DIR or {ENV} to change)\n", dir.display());
    let mut missing = 0;
    for t in &TRACES {
        let s = match state(&dir.join(t.name), t)? {
            State::Whole => "whole".to_string(),
            State::Missing => {
                missing += 1;
                "missing".to_string()
            }
            State::Different(why) => {
                missing += 1;
                format!("not the published file ({why})")
            }
        };
        out += &format!("{:<48} {:>10} B  {s}\n", t.name, t.bytes);
    }
    if missing > 0 {
        out += &format!("{missing} to fetch: `{}`\n", catalogue::FETCH);
    }
    ssdlab_core::output::print(out)
}

fn fetch(wanted: &[&'static PublicTrace], dir: &Path, mirror: Option<&str>, quiet: bool) -> Result<()> {
    ssdlab_core::output::check_dir(dir, true).map_err(|e| {
        Error::Invalid(format!(
            "traces fetch: {e}; expected a folder that can be created and written (--traces DIR or {ENV})"
        ))
    })?;
    let mut fetched = Vec::new();
    let mut kept = 0;
    for t in wanted {
        let dest = dir.join(t.name);
        if state(&dest, t)? == State::Whole {
            kept += 1;
            continue;
        }
        let url = match mirror {
            Some(m) => format!("{}/{}", m.trim_end_matches('/'), t.name),
            None => t.url.to_string(),
        };
        // A mirror on this machine: a folder, or a file:// URL of one.
        let local = match mirror {
            Some(m) if m.starts_with("file://") => Some(PathBuf::from(&m["file://".len()..]).join(t.name)),
            Some(m) if !m.contains("://") => Some(Path::new(m).join(t.name)),
            _ => None,
        };
        crate::interrupt::keeps(format!(
            "traces fetch stopped; {} fetched, {kept} already there, nothing of {} kept",
            fetched.len(),
            t.name
        ));
        match &local {
            Some(src) => copy(t, src, &dest, quiet)?,
            None => download(t, &url, &dest, quiet)?,
        }
        eprintln!("traces fetch: {} ({} bytes) from {url}", t.name, t.bytes);
        fetched.push(t.name);
    }
    eprintln!(
        "traces fetch: {} fetched, {kept} already there, in {}",
        fetched.len(),
        dir.display()
    );
    Ok(())
}

#[cfg(not(feature = "fetch"))]
fn download(t: &PublicTrace, url: &str, _dest: &Path, _quiet: bool) -> Result<()> {
    Err(Error::Invalid(format!(
        "traces fetch: {}: this ssdlab was built without the `fetch` feature; expected a build with it, or {url} copied into the traces folder",
        t.name
    )))
}

/// Copy a trace from a mirror folder on this machine into `dest`, checked as a download is.
fn copy(t: &PublicTrace, src: &Path, dest: &Path, quiet: bool) -> Result<()> {
    let from = src.display().to_string();
    let file = std::fs::File::open(src).map_err(|e| {
        Error::Invalid(format!(
            "traces fetch: {}: {from}: cannot read it ({e}); expected the published file in the mirror folder",
            t.name
        ))
    })?;
    receive(t, &from, file, dest, quiet)
}

#[cfg(not(feature = "fetch"))]
fn download(t: &PublicTrace, url: &str, _dest: &Path, _quiet: bool) -> Result<()> {
    Err(Error::Invalid(format!(
        "traces fetch: {}: this ssdlab was built without the `fetch` feature; expected a build with it, `--mirror FOLDER` with the file in it, or {url} copied into the traces folder",
        t.name
    )))
}

/// Download `url` into `dest` whole (see [`receive`]).
#[cfg(feature = "fetch")]
fn download(t: &PublicTrace, url: &str, dest: &Path, quiet: bool) -> Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(std::time::Duration::from_secs(30)))
        .timeout_recv_body(Some(std::time::Duration::from_secs(60)))
        .build()
        .into();
    let response = agent.get(url).call().map_err(|e| {
        Error::Invalid(format!(
            "traces fetch: {}: {url}: {e}; expected the file served (no network here? `--mirror URL` fetches from elsewhere)",
            t.name
        ))
    })?;
    receive(t, url, response.into_body().into_reader(), dest, quiet)
}

/// Stream `body` (from `from`) into `dest` whole: through a temporary beside it, hashed as
/// it comes, renamed over `dest` only when its size and SHA-256 are the catalogue's.
fn receive(t: &PublicTrace, from: &str, mut body: impl std::io::Read, dest: &Path, quiet: bool) -> Result<()> {
    use std::io::Write;
    let url = from;
    let failed = |what: String| Error::Invalid(format!("traces fetch: {}: {what}", t.name));
    let mut out = ssdlab_core::output::AtomicFile::create(dest)?;
    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::with_draw_target(Some(t.bytes), indicatif::ProgressDrawTarget::stderr())
            .with_style(
                indicatif::ProgressStyle::with_template("{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec}")
                    .expect("a valid template"),
            )
            .with_message(t.name)
    };
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n = 0u64;
    loop {
        ssdlab_core::sim::check_interrupt()?;
        let k = body.read(&mut buf).map_err(|e| {
            failed(format!(
                "{url}: the download broke off after {n} of {} bytes ({e}); expected the whole file (nothing kept; run it again)",
                t.bytes
            ))
        })?;
        if k == 0 {
            break;
        }
        n += k as u64;
        if n > t.bytes {
            return Err(failed(format!(
                "{url}: more than the published {} bytes; expected the published file (nothing kept)",
                t.bytes
            )));
        }
        h.update(&buf[..k]);
        out.write_all(&buf[..k])
            .map_err(|e| ssdlab_core::output::write_error(dest, e))?;
        bar.set_position(n);
    }
    bar.finish_and_clear();
    if n != t.bytes {
        return Err(failed(format!(
            "{url}: {n} bytes; expected the published {} (nothing kept)",
            t.bytes
        )));
    }
    let got = hex::encode(h.finalize());
    if got != t.sha256 {
        return Err(failed(format!(
            "{url}: SHA-256 {got}; expected the published {} (nothing kept)",
            t.sha256
        )));
    }
    out.commit()
}
