//! `ssdlab serve`: a simulated SSD as an NBD export. nbdkit speaks the protocol and loads the
//! `ssdlab-nbd` plugin, which keeps the data and times every request on the simulated
//! device; this command checks the config, starts nbdkit, waits for Ctrl-C (or SIGTERM), stops
//! it and prints the statistics of the session: the replay of its recorded requests on the
//! same device, which is the run the session was (`live::replay_config`).

use crate::OutputFormat;
use clap::{Args, ValueEnum};
use ssdlab_core::{config, Error, Result};
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
    #[arg(long, value_enum, default_value = "none")]
    pace: Pace,
    /// Keep the data in this file (created, sized to the device) instead of memory.
    #[arg(long, value_name = "FILE")]
    data: Option<String>,
    /// Most memory the data may take when kept in memory (default: the device's size).
    #[arg(long, value_name = "SIZE", value_parser = crate::parse_size_arg)]
    memory: Option<u64>,
    /// Write every request the clients send to this native trace (with simulated times):
    /// `ssdlab run` can replay it on any device.
    #[arg(long, value_name = "FILE")]
    record: Option<String>,
    /// Answer statistics on demand on this Unix socket (`ssdlab serve --stats PATH` asks).
    #[arg(long, value_name = "PATH")]
    control: Option<String>,
    /// Ask a running server's control socket for its statistics so far (JSON) and exit.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["socket", "port", "control", "record", "data"])]
    stats: Option<String>,
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
    /// The nbdkit plugin (default: libssdlab_nbd.so beside this program, or
    /// $SSDLAB_NBD_PLUGIN).
    #[arg(long, value_name = "PATH")]
    plugin: Option<String>,
    /// Nothing on standard error but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// `name` on the PATH.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
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
                "--plugin: {}: no such file; expected the ssdlab nbdkit plugin (libssdlab_nbd.so)",
                p.display()
            )))
        };
    }
    let exe = std::env::current_exe().map_err(|e| Error::Invalid(format!("serve: cannot find this program ({e})")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // Beside the program; test binaries live one level down (target/PROFILE/deps).
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let p = d.join("libssdlab_nbd.so");
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(Error::Config(format!(
        "--plugin: libssdlab_nbd.so not found beside {}; expected it built (cargo build -p ssdlab-nbd) or --plugin PATH",
        exe.display()
    )))
}

/// The statistics a running server's control socket gives.
fn query(path: &str) -> Result<()> {
    use std::io::Read;
    let mut s = std::os::unix::net::UnixStream::connect(path).map_err(|e| {
        Error::Config(format!(
            "--stats: {path}: {e}; expected the --control socket of a running ssdlab serve"
        ))
    })?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| Error::io(path, e))?;
    print!("{text}");
    Ok(())
}

/// Wait until the export answers (its socket exists, or its port accepts), nbdkit exits, or
/// a stop signal comes.
fn wait_ready(child: &mut Child, socket: Option<&str>, addr: &str, stop: &AtomicBool) -> Result<bool> {
    let start = Instant::now();
    loop {
        let up = match socket {
            Some(s) => Path::new(s).exists(),
            None => std::net::TcpStream::connect(addr).is_ok(),
        };
        if up {
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
        return query(path);
    }
    // The config is checked here, so its errors are the command line's one line.
    let mut cfg = config::load_config_with(a.config.as_deref().unwrap_or(config::DEFAULT_PRESET), &a.set)?;
    if let Some(s) = a.seed {
        cfg.precondition.seed = s;
    }
    if let Some(limit) = crate::default_memory_limit() {
        ssdlab_core::sim::check_memory(&cfg, limit).map_err(|e| cfg.locate(e))?;
    }
    let nbdkit = find_on_path("nbdkit").ok_or_else(|| {
        Error::Config(
            "nbdkit: not found on PATH; expected nbdkit installed (Debian or Ubuntu: apt-get install nbdkit; Fedora: dnf install nbdkit)".into(),
        )
    })?;
    let plugin = plugin_path(a.plugin.as_deref())?;
    // The session is always recorded: its statistics are its replay.
    let tmp = std::env::temp_dir().join(format!("ssdlab-serve-{}", std::process::id()));
    let record = match &a.record {
        Some(r) => PathBuf::from(r),
        None => {
            std::fs::create_dir_all(&tmp).map_err(|e| Error::io(tmp.display().to_string(), e))?;
            tmp.join("session.trace")
        }
    };
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
    cmd.arg("--foreground").arg("--exit-with-parent");
    let (socket, addr, uri) = match (&a.socket, a.port) {
        (Some(s), _) => {
            let s = abs(s);
            let _ = std::fs::remove_file(&s);
            cmd.arg("--unix").arg(&s);
            (Some(s.clone()), String::new(), format!("nbd+unix:///?socket={s}"))
        }
        (None, port) => {
            let port = port.unwrap_or(10809);
            cmd.arg("--port").arg(port.to_string()).arg("--ipaddr").arg(&a.bind);
            let addr = format!("{}:{port}", a.bind);
            (None, addr.clone(), format!("nbd://{addr}"))
        }
    };
    // Block size constraints: the device's mapping unit is the size it prefers (smaller or
    // unaligned requests cost it a read-modify-write); any size is accepted.
    let unit = ssdlab_core::geometry::Geometry::from_config(&cfg.device, &cfg.file)?.unit_size;
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
    cmd.arg(format!("pace={}", if a.pace == Pace::Real { "real" } else { "none" }));
    if let Some(d) = &a.data {
        cmd.arg(format!("data={}", abs(d)));
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
    let ready = wait_ready(&mut child, socket.as_deref(), &addr, &stop);
    if let Ok(true) = ready {
        if !a.quiet {
            eprintln!(
                "ssdlab: serving {} on {uri} (pace {:?}); Ctrl-C stops and prints the statistics",
                cfg.device.name, a.pace
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
    let replay = ssdlab_core::live::replay_config(&cfg, &record.display().to_string())?;
    let result = ssdlab_core::run_config(&replay)?;
    let _ = std::fs::remove_dir_all(&tmp);
    crate::write_result(&result, a.output_format, a.output.as_deref())
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
