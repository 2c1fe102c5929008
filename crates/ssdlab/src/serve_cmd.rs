//! `ssdlab serve`: a simulated SSD as an NBD export. nbdkit speaks the protocol and loads the
//! `ssdlab-nbd` plugin, which keeps the data and times every request on the simulated
//! device; this command checks the config, starts nbdkit, waits for Ctrl-C (or SIGTERM), stops
//! it and prints the statistics of the session: the replay of its recorded requests on the
//! same device, which is the run the session was (`live::replay_config`).

use crate::OutputFormat;
use clap::{Args, ValueEnum};
use ssdlab_core::blockdata::{Backing, BlockData};
use ssdlab_core::{config, Config, Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
pub enum Pace {
    /// Answer as fast as possible; the simulated clock moves with the device alone.
    None,
    /// Hold each reply until its simulated completion time (simulated time = wall time from
    /// the first request).
    Real,
}

impl Pace {
    /// The value as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Pace::None => "none",
            Pace::Real => "real",
        }
    }
}

#[derive(Args)]
pub struct ServeArgs {
    /// Run config (TOML) or preset name (default: tlc-nvme). Its jobs are ignored.
    config: Option<String>,
    /// Serve on this Unix socket.
    #[arg(long, value_name = "PATH", conflicts_with = "port")]
    socket: Option<String>,
    /// Serve on this TCP port (default 10809, NBD's, when no --socket is given).
    #[arg(long)]
    port: Option<u16>,
    /// Address to listen on with --port.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    bind: String,
    /// When a reply goes out: as soon as the simulation has it (none), or held until its
    /// simulated completion time in wall-clock time (real).
    #[arg(long, value_enum, default_value = "none")]
    pace: Pace,
    /// Keep the data in this file instead of memory: its bytes are the device's and stay
    /// after the session (created at the device's size, sparse, if missing).
    #[arg(long, value_name = "FILE")]
    data: Option<String>,
    /// Resize a --data file whose size is not the device's (grown sparse, or cut) instead of
    /// refusing it.
    #[arg(long, requires = "data")]
    data_resize: bool,
    /// Most memory the data may take when kept in memory (default: the device's size).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    memory: Option<u64>,
    /// Write every request the clients send to this native trace (with simulated times):
    /// `ssdlab run` can replay it on any device. A new file, written when the session ends.
    #[arg(long, value_name = "FILE")]
    record: Option<String>,
    /// Answer statistics on demand on this Unix socket (`ssdlab serve --stats PATH` asks).
    #[arg(long, value_name = "PATH")]
    control: Option<String>,
    /// Ask a running server's control socket for its statistics so far and exit (written as
    /// --output-format and --output say).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["socket", "port", "control", "record", "data"])]
    stats: Option<String>,
    /// Seed for preconditioning, GC randomness and the served device's own choices, as
    /// `ssdlab run --seed` (default: the config's `precondition.seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Set a config key, as `ssdlab run --set` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Format of the statistics printed at the end.
    #[arg(long, value_enum, default_value = "normal")]
    output_format: OutputFormat,
    /// Write the statistics here instead of standard output.
    #[arg(long, short)]
    output: Option<String>,
    /// The nbdkit plugin (default: $SSDLAB_NBD_PLUGIN, or libssdlab_nbd.so beside this
    /// program or in ../lib/ssdlab from it, where scripts/install.sh puts it).
    #[arg(long, value_name = "PATH")]
    plugin: Option<String>,
    /// Nothing on standard error but errors.
    #[arg(long, short)]
    quiet: bool,
}

const PLUGIN: &str = "libssdlab_nbd.so";

/// Where the plugin is looked for, for the program at `exe`: beside it (a cargo target
/// directory), `ROOT/lib/ssdlab` for `ROOT/bin/ssdlab` (scripts/install.sh), and for a test
/// binary (`target/PROFILE/deps`) beside its command.
fn plugin_places(exe: &Path) -> Vec<PathBuf> {
    let dir = exe.parent().unwrap_or(Path::new("."));
    let mut places = vec![dir.join(PLUGIN)];
    if let Some(root) = dir.parent() {
        places.push(root.join("lib").join("ssdlab").join(PLUGIN));
        if dir.file_name().is_some_and(|n| n == "deps") {
            places.push(root.join(PLUGIN));
        }
    }
    places
}

/// The one command that puts the plugin where the program at `exe` looks: in a cargo target
/// directory, the build of the plugin in the program's profile; elsewhere, the install script.
fn plugin_advice(exe: &Path) -> String {
    let mut dir = exe.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir = dir.parent().unwrap_or(dir);
    }
    let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let root = dir.parent().unwrap_or(dir);
    if root.join("CACHEDIR.TAG").is_file() {
        let flag = match profile {
            "release" => " --release".to_string(),
            "debug" => String::new(),
            p => format!(" --profile {p}"),
        };
        format!("cargo build{flag} -p ssdlab-nbd")
    } else {
        format!("scripts/install.sh --root {}", root.display())
    }
}

fn plugin_path(given: Option<&str>) -> Result<PathBuf> {
    if let Some(p) = given
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("SSDLAB_NBD_PLUGIN").map(PathBuf::from))
    {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::Config(format!(
                "--plugin: {}: no such file; expected the ssdlab nbdkit plugin ({PLUGIN})",
                p.display()
            )))
        };
    }
    let exe = std::env::current_exe().map_err(|e| Error::Invalid(format!("serve: cannot find this program ({e})")))?;
    let places = plugin_places(&exe);
    if let Some(p) = places.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let dirs: Vec<String> = places
        .iter()
        .map(|p| p.parent().unwrap_or(p).display().to_string())
        .collect();
    Err(Error::Config(format!(
        "--plugin: {PLUGIN} not found in {}; expected it there: run `{}` in the ssdlab source, or give --plugin PATH",
        dirs.join(" or "),
        plugin_advice(&exe)
    )))
}

/// Bytes the host can address on the config's device or array (what the plugin serves). A
/// zoned device is refused: Linux's NBD has no zoned block devices, so its zones could not
/// reach the host.
fn device_bytes(cfg: &Config) -> Result<u64> {
    if cfg.array.is_none() && ssdlab_core::firmware::zns::host_view(&cfg.device).is_some() {
        return Err(cfg.locate(ssdlab_core::Error::config(
            &cfg.file,
            "device.ftl.design",
            "\"zns\" exposes zones, which Linux's NBD cannot carry (it has no zoned block devices); expected a conventional design to serve",
        )));
    }
    if cfg.array.is_some() {
        ssdlab_core::config::check(cfg)
    } else {
        Ok(ssdlab_core::redundancy::geometry_of(&cfg.device, &cfg.file)?.logical_bytes())
    }
}

/// `--bind`'s address with the port: an IP address, or a host name that resolves.
fn bind_addr(bind: &str, port: u16) -> Result<std::net::SocketAddr> {
    use std::net::ToSocketAddrs;
    let bad = |why: String| {
        Error::Config(format!(
            "--bind: '{bind}': {why}; expected an address to listen on, such as 127.0.0.1, ::1 or a host name"
        ))
    };
    if let Ok(ip) = bind.parse::<std::net::IpAddr>() {
        return Ok((ip, port).into());
    }
    let mut addrs = (bind, port).to_socket_addrs().map_err(|e| bad(e.to_string()))?;
    addrs.next().ok_or_else(|| bad("no address for this name".into()))
}

/// The user's --record file, written whole when the session ends: the plugin records into a
/// new directory beside it, and the recording takes the user's name only then, never over an
/// existing file. A session that fails leaves nothing (the directory goes when dropped).
struct Recording {
    dest: PathBuf,
    dir: tempfile::TempDir,
}

impl Recording {
    fn new(r: &str) -> Result<Recording> {
        let dest = std::path::absolute(r).map_err(|e| Error::io(r, e))?;
        if dest.symlink_metadata().is_ok() {
            return Err(Error::Config(format!(
                "--record: {r}: exists; expected a new file (a recording never replaces a file)"
            )));
        }
        let dir = tempfile::Builder::new()
            .prefix(".ssdlab-record-")
            .tempdir_in(dest.parent().unwrap_or(Path::new("/")))
            .map_err(|e| {
                Error::Config(format!(
                    "--record: {r}: {e}; expected a file in a directory that exists and can be written"
                ))
            })?;
        Ok(Recording { dest, dir })
    }

    /// Where the plugin writes.
    fn path(&self) -> PathBuf {
        self.dir.path().join("session.trace")
    }

    /// The finished recording under the user's name.
    fn keep(&self) -> Result<()> {
        let (from, to) = (self.path(), &self.dest);
        let fail = |e: std::io::Error| Error::Config(format!("--record: {}: {e}; expected a new file", to.display()));
        // A link fails where anything is at `to`: no file is ever replaced. Where the file
        // system has no links, a rename while nothing is there.
        match std::fs::hard_link(&from, to) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists || to.symlink_metadata().is_ok() => Err(fail(e)),
            Err(_) => std::fs::rename(&from, to).map_err(fail),
        }
    }
}

/// The statistics a running server's control socket gives (its run result as JSON, bins
/// included), written as `--output-format` says, to `--output` or standard output.
fn query(path: &str, fmt: crate::OutputFormat, output: Option<&str>) -> Result<()> {
    use std::io::Read;
    let mut s = std::os::unix::net::UnixStream::connect(path).map_err(|e| {
        Error::Config(format!(
            "--stats: {path}: {e}; expected the --control socket of a running ssdlab serve"
        ))
    })?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| Error::io(path, e))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::Invalid(format!(
            "--stats: {path}: the server's answer is not JSON ({e}); expected the --control socket of a running ssdlab serve"
        ))
    })?;
    if let Some(e) = value.get("error") {
        return Err(Error::Invalid(format!(
            "--stats: {path}: the server says: {}",
            e.as_str().unwrap_or_default()
        )));
    }
    let result: ssdlab_core::RunResult = serde_json::from_value(value).map_err(|e| {
        Error::Invalid(format!(
            "--stats: {path}: the server's statistics do not read as a run result ({e}); expected a server of this version"
        ))
    })?;
    crate::write_result(&result, fmt, output)
}

/// The replayed session's jobs name the session, not the trace file they were replayed from
/// (a temporary one unless `--record` kept it).
fn name_session(result: &mut ssdlab_core::RunResult, kept: Option<&Path>) {
    let what = match kept {
        Some(p) => format!("nbd session (recorded in {})", p.display()),
        None => "nbd session (not recorded: --record FILE keeps it)".to_string(),
    };
    for j in &mut result.jobs {
        j.ssdlab.source = what.clone();
        if let Some(serde_json::Value::Object(t)) = j.ssdlab.trace.as_mut() {
            match kept {
                Some(p) => {
                    t.insert("file".into(), p.display().to_string().into());
                }
                None => {
                    t.remove("file");
                }
            }
        }
    }
}

/// Wait until nbdkit is serving (it writes its pid file once it listens), nbdkit exits, or
/// a stop signal comes.
fn wait_ready(child: &mut Child, pidfile: &Path, stop: &AtomicBool) -> Result<bool> {
    let start = Instant::now();
    loop {
        if std::fs::metadata(pidfile).is_ok_and(|m| m.len() > 0) {
            return Ok(true);
        }
        if let Some(status) = child.try_wait().map_err(|e| Error::Invalid(format!("nbdkit: {e}")))? {
            return Err(Error::Invalid(format!(
                "nbdkit: exited ({status}) before serving; expected it to start (its messages are above)"
            )));
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if start.elapsed() > Duration::from_secs(600) {
            return Err(Error::Invalid("nbdkit: not serving after 600 s".into()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn run(a: ServeArgs) -> Result<()> {
    if let Some(path) = &a.stats {
        return query(path, a.output_format, a.output.as_deref());
    }
    // The config is checked here, so its errors are the command line's one line.
    let mut cfg = config::load_config_with(a.config.as_deref().unwrap_or(config::DEFAULT_PRESET), &a.set)?;
    if let Some(s) = a.seed {
        cfg.precondition.seed = s;
    }
    if let Some(limit) = crate::default_memory_limit() {
        ssdlab_core::sim::check_memory(&cfg, limit).map_err(|e| cfg.locate(e))?;
    }
    let size = device_bytes(&cfg)?;
    // What is wrong with the data file, the socket or the address is said before anything
    // starts, and nothing of the user's is changed.
    if let Some(d) = &a.data {
        let backing = BlockData::check_file(size, d, a.data_resize, "--data-resize")
            .map_err(|e| Error::Config(format!("--data: {e}")))?;
        if !a.quiet && backing != Backing::Kept {
            let what = match backing {
                Backing::Resized { from } => format!("resized from {from} bytes to"),
                _ => "created at".into(),
            };
            eprintln!("ssdlab: --data {d}: {what} the device's {size} bytes");
        }
    }
    if let Some(s) = &a.socket {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::symlink_metadata(s).is_ok_and(|m| !m.file_type().is_socket()) {
            return Err(Error::Config(format!(
                "--socket: {s}: exists and is not a socket; expected a path for a new socket"
            )));
        }
    }
    let bind = match (&a.socket, a.port) {
        (Some(_), _) => None,
        (None, port) => Some(bind_addr(&a.bind, port.unwrap_or(10809))?),
    };
    let nbdkit = which::which("nbdkit").ok().ok_or_else(|| {
        Error::Config(
            "nbdkit: not found on PATH; expected nbdkit installed (Debian or Ubuntu: apt-get install nbdkit; Fedora: dnf install nbdkit)".into(),
        )
    })?;
    let plugin = plugin_path(a.plugin.as_deref())?;
    // The session is always recorded: its statistics are its replay.
    let recording = a.record.as_deref().map(Recording::new).transpose()?;
    let session = tempfile::Builder::new()
        .prefix("ssdlab-serve-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir().display().to_string(), e))?;
    let record = recording
        .as_ref()
        .map_or_else(|| session.path().join("session.trace"), Recording::path);
    let pidfile = session.path().join("nbdkit.pid");
    let abs = |p: &str| {
        std::path::absolute(p)
            .unwrap_or_else(|_| PathBuf::from(p))
            .display()
            .to_string()
    };
    let config_arg = match &a.config {
        Some(c) if Path::new(c).exists() => abs(c),
        Some(c) => c.clone(),
        None => config::DEFAULT_PRESET.to_string(),
    };
    let mut cmd = Command::new(&nbdkit);
    cmd.arg("--foreground")
        .arg("--exit-with-parent")
        .arg("--pidfile")
        .arg(&pidfile);
    let (socket, uri) = match (&a.socket, bind) {
        (Some(s), _) => {
            let s = abs(s);
            // A stale socket (checked above: nothing else) from an earlier server.
            let _ = std::fs::remove_file(&s);
            cmd.arg("--unix").arg(&s);
            (Some(s.clone()), format!("nbd+unix:///?socket={s}"))
        }
        (None, addr) => {
            let addr = addr.expect("resolved above");
            cmd.arg("--port")
                .arg(addr.port().to_string())
                .arg("--ipaddr")
                .arg(addr.ip().to_string());
            (None, format!("nbd://{addr}"))
        }
    };
    // Block size constraints: the device's mapping unit is the size it prefers (smaller or
    // unaligned requests cost it a read-modify-write); any size is accepted.
    let unit = ssdlab_core::redundancy::geometry_of(&cfg.device, &cfg.file)?.unit_size;
    cmd.arg("--filter=blocksize-policy");
    cmd.arg(&plugin).arg(format!("config={config_arg}"));
    cmd.arg("blocksize-minimum=1")
        .arg(format!("blocksize-preferred={}", unit.clamp(512, 2 << 20)))
        .arg("blocksize-maximum=33554432");
    for s in &a.set {
        cmd.arg(format!("set={s}"));
    }
    if let Some(s) = a.seed {
        cmd.arg(format!("seed={s}"));
    }
    cmd.arg(format!("pace={}", a.pace.name()));
    if let Some(d) = &a.data {
        cmd.arg(format!("data={}", abs(d)));
        if a.data_resize {
            cmd.arg("data-resize=true");
        }
    }
    if let Some(m) = a.memory {
        cmd.arg(format!("memory={m}"));
    }
    cmd.arg(format!("record={}", record.display()));
    if let Some(c) = &a.control {
        cmd.arg(format!("control={}", abs(c)));
    }
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone())
            .map_err(|e| Error::Invalid(format!("serve: cannot handle signals ({e})")))?;
    }
    if !a.quiet {
        eprintln!(
            "ssdlab: preconditioning {} and starting nbdkit ({}) ...",
            cfg.device.name,
            nbdkit.display()
        );
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| Error::Invalid(format!("nbdkit: cannot start it ({e}); expected a working nbdkit")))?;
    let ready = wait_ready(&mut child, &pidfile, &stop);
    let serving = Instant::now();
    if let Ok(true) = ready {
        if !a.quiet {
            eprintln!(
                "ssdlab: serving {} on {uri} (--pace {}); Ctrl-C stops and prints the statistics",
                cfg.device.name,
                a.pace.name()
            );
        }
        while !stop.load(Ordering::Relaxed) {
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // Stop nbdkit: it finishes the requests in flight and closes the recording.
    if child.try_wait().ok().flatten().is_none() {
        // SAFETY: sending a signal to our own child process.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
    }
    let status = child.wait().map_err(|e| Error::Invalid(format!("nbdkit: {e}")))?;
    let wall_s = serving.elapsed().as_secs_f64();
    if let Some(s) = &socket {
        let _ = std::fs::remove_file(s);
    }
    ready?;
    if !status.success() && status.signal_is_not_ours() {
        return Err(Error::Invalid(format!(
            "nbdkit: exited with {status}; expected a clean stop"
        )));
    }
    if !a.quiet {
        eprintln!("ssdlab: stopped; replaying the session's requests for its statistics ...");
    }
    // The session is over and its recording whole: it takes the user's name now.
    if let Some(r) = &recording {
        r.keep()?;
    }
    let replay = ssdlab_core::live::replay_config(&cfg, &record.display().to_string())?;
    let mut result = ssdlab_core::run_config(&replay)?;
    name_session(&mut result, recording.as_ref().map(|r| r.dest.as_path()));
    if !a.quiet {
        eprintln!(
            "{}",
            statistics_note(&result, a.pace, wall_s, recording.as_ref().map(|r| r.dest.as_path()))
        );
    }
    crate::write_result(&result, a.output_format, a.output.as_deref())
}

/// What the statistics that follow are (simulated time, against the session's wall time),
/// and where the recording they come from is.
fn statistics_note(r: &ssdlab_core::RunResult, pace: Pace, wall_s: f64, kept: Option<&Path>) -> String {
    let n: u64 = r
        .jobs
        .iter()
        .map(|j| j.read.total_ios + j.write.total_ios + j.trim.total_ios)
        .sum();
    let per_s = if wall_s > 0.0 { n as f64 / wall_s } else { 0.0 };
    let time = match pace {
        Pace::None => "simulated time: the clients' requests at the simulated times they reached the device (--pace none answered each as soon as the simulation had it, so the clients' own figures are wall-clock and differ; \"NOT keeping up\" means the clients sent faster, in simulated time, than the device completes)",
        Pace::Real => "simulated time, which --pace real held to wall time from the first request: the latencies the clients saw",
    };
    let recording = match kept {
        Some(p) => format!("the recording is kept in {}", p.display()),
        None => "the recording was in a temporary folder and is deleted now (--record FILE keeps one)".to_string(),
    };
    format!(
        "ssdlab: the statistics below are in {time}. Wall clock: {n} requests in {wall_s:.1} s served ({per_s:.0} per wall second); {recording}."
    )
}

trait StatusExt {
    /// An exit other than the SIGTERM this command sends, or nbdkit's own clean exit.
    fn signal_is_not_ours(&self) -> bool;
}

impl StatusExt for std::process::ExitStatus {
    fn signal_is_not_ours(&self) -> bool {
        use std::os::unix::process::ExitStatusExt;
        !matches!(self.signal(), Some(libc::SIGTERM) | Some(libc::SIGINT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_run() -> ssdlab_core::RunResult {
        let text = "[device]\npreset = \"slc-sata\"\n[device.geometry]\nchannels = 1\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n[[job]]\nname = \"nbd\"\nrw = \"randread\"\nbs = \"4KiB\"\nnumber_ios = 100\n";
        let cfg = ssdlab_core::parse_config(text, "t.toml", Path::new(".")).unwrap();
        ssdlab_core::run_config(&cfg).unwrap()
    }

    #[test]
    fn the_statistics_say_what_is_simulated_what_is_wall_clock_and_where_the_recording_is() {
        let r = small_run();
        let none = statistics_note(&r, Pace::None, 2.0, None);
        assert!(
            none.starts_with("ssdlab: the statistics below are in simulated time: "),
            "{none}"
        );
        assert!(
            none.contains("the clients' own figures are wall-clock and differ"),
            "{none}"
        );
        assert!(
            none.contains("Wall clock: 100 requests in 2.0 s served (50 per wall second)"),
            "{none}"
        );
        assert!(
            none.ends_with("the recording was in a temporary folder and is deleted now (--record FILE keeps one)."),
            "{none}"
        );
        assert_eq!(none.lines().count(), 1);
        let real = statistics_note(&r, Pace::Real, 4.0, Some(Path::new("/data/s.trace")));
        assert!(
            real.contains("--pace real held to wall time from the first request"),
            "{real}"
        );
        assert!(
            real.contains("100 requests in 4.0 s served (25 per wall second)"),
            "{real}"
        );
        assert!(real.ends_with("the recording is kept in /data/s.trace."), "{real}");
    }
}
