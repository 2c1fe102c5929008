//! `ssdlab serve`: unmodified NBD clients (nbdcopy, fio, qemu-io, mkfs.ext4 through nbdfuse)
//! on a simulated SSD, the statistics of their session, its recording, and clients that
//! misbehave. Each test skips with a message where a tool is missing, and fails under `CI`
//! (where `.ci/run` installs them), except mkfs through FUSE, which needs a machine that lets
//! the test mount.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A small SLC drive (455 MB) filled in order: random writes make GC work at once.
const SMALL: &[&str] = &["slc-sata", "--set", "device.geometry.blocks_per_plane=64"];

/// `name` on the PATH, or `None`: the test fails under CI, else is skipped and recorded
/// (`ssdlab_core::skip`) with the package that provides the tool.
fn tool(name: &str) -> Option<PathBuf> {
    let package = match name {
        "nbdcopy" | "nbdinfo" | "nbdfuse" => "libnbd-bin",
        "qemu-io" => "qemu-utils",
        "mkfs.ext4" | "debugfs" | "e2fsck" => "e2fsprogs",
        "fusermount3" => "fuse3",
        other => other,
    };
    ssdlab_core::skip::tool(name, package)
}

/// The plugin beside the command (built by `cargo build -p ssdlab-nbd` in the same profile).
fn plugin() -> Option<PathBuf> {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ssdlab"));
    let p = bin.parent().unwrap().join("libssdlab_nbd.so");
    if p.is_file() {
        return Some(p);
    }
    ssdlab_core::skip::skip(
        &format!("{} is not built", p.display()),
        "cargo build --profile ci-test -p ssdlab-nbd (scripts/test.sh builds it)",
    );
    None
}

struct Server {
    child: Child,
    dir: tempfile::TempDir,
}

impl Server {
    /// `ssdlab serve ARGS` on a Unix socket in a new directory, with a control socket, a
    /// recording and JSON statistics; returns once the export answers.
    fn start(args: &[&str]) -> Option<Server> {
        Server::start_with(Path::new(env!("CARGO_BIN_EXE_ssdlab")), args)
    }
    /// The same, with the program at `exe` (an installed copy).
    fn start_with(exe: &Path, args: &[&str]) -> Option<Server> {
        tool("nbdkit")?;
        plugin()?;
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n).display().to_string();
        let child = Command::new(exe)
            .arg("serve")
            .args(args)
            .args(["--socket", &d("nbd.sock"), "--control", &d("control.sock")])
            .args(["--record", &d("session.trace"), "--output", &d("stats.json")])
            .args(["--output-format", "json", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut s = Server { child, dir };
        let start = Instant::now();
        while !s.path("nbd.sock").exists() || !s.path("control.sock").exists() {
            if let Some(st) = s.child.try_wait().unwrap() {
                let mut err = String::new();
                s.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
                panic!("ssdlab serve exited ({st}): {err}");
            }
            assert!(start.elapsed() < Duration::from_secs(120), "not serving after 120 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(s)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn uri(&self) -> String {
        format!("nbd+unix:///?socket={}", self.path("nbd.sock").display())
    }
    /// The statistics so far, from the control socket.
    fn stats_now(&self) -> serde_json::Value {
        let sock = self.path("control.sock");
        let out = crate::common::ok(&["serve", "--stats", sock.to_str().unwrap(), "--output-format", "json"]);
        // Without --output-format, the text `ssdlab run` prints.
        let text = crate::common::ok(&["serve", "--stats", sock.to_str().unwrap()]);
        assert!(text.starts_with("nbd: (groupid=0, jobs=1)"), "{text}");
        serde_json::from_str(&out).unwrap()
    }
    /// SIGTERM, as a service manager stops it: the statistics it writes at the end.
    fn stop(mut self) -> (serde_json::Value, tempfile::TempDir) {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let out = self.child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(self.dir.path().join("stats.json")).unwrap();
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        (serde_json::from_str(&text).unwrap(), dir)
    }
}

/// Bytes from a xorshift stream: random, and the same every run.
fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n / 8)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()
        })
        .collect()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?}: {text}");
    text
}

fn job(stats: &serde_json::Value, op: &str, key: &str) -> u64 {
    stats["jobs"][0][op][key].as_u64().unwrap()
}

#[test]
fn nbdcopy_round_trip_and_the_session_replays_from_its_recording() {
    let Some(nbdcopy) = tool("nbdcopy") else { return };
    let Some(s) = Server::start(SMALL) else { return };
    let src = s.path("src.bin");
    let data = random_bytes(48 << 20, 5);
    std::fs::write(&src, &data).unwrap();
    run(Command::new(&nbdcopy).arg(&src).arg(s.uri()));
    let back = s.path("back.bin");
    run(Command::new(&nbdcopy).arg(s.uri()).arg(&back));
    let read = std::fs::read(&back).unwrap();
    assert!(read.len() >= data.len());
    assert!(read[..data.len()] == data[..], "the export gave back other bytes");
    // Unwritten space reads as zeros.
    assert!(read[data.len()..].iter().all(|&b| b == 0));
    let now = s.stats_now();
    let (stats, dir) = s.stop();
    // Every byte the clients moved, once.
    assert_eq!(job(&stats, "write", "io_bytes"), 48 << 20);
    assert_eq!(job(&stats, "read", "io_bytes"), read.len() as u64);
    assert_eq!(job(&now, "write", "io_bytes"), 48 << 20);
    // The jobs name the session and its recording, not a temporary trace.
    let kept = dir.path().join("session.trace");
    assert_eq!(
        stats["jobs"][0]["ssdlab"]["source"],
        format!("nbd session (recorded in {})", kept.display())
    );
    assert_eq!(stats["jobs"][0]["ssdlab"]["trace"]["file"], kept.display().to_string());
    // The recording replays with `ssdlab run` to the statistics the server printed.
    let run_file = dir.path().join("replay.toml");
    std::fs::write(
        &run_file,
        format!(
            "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[[job]]\nname = \"nbd\"\n[job.trace]\nfile = \"{}\"\nformat = \"native\"\n",
            dir.path().join("session.trace").display()
        ),
    )
    .unwrap();
    let out = crate::common::ok(&["run", run_file.to_str().unwrap(), "--output-format", "json", "-q"]);
    let replay: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in ["flash", "gc", "host", "waf"] {
        assert_eq!(replay["ssd"][key], stats["ssd"][key], "{key}");
    }
    assert_eq!(
        replay["jobs"][0]["write"]["clat_ns"],
        stats["jobs"][0]["write"]["clat_ns"]
    );
}

#[test]
fn fio_verifies_random_writes_through_gc() {
    let Some(fio) = tool("fio") else { return };
    let Some(s) = Server::start(SMALL) else { return };
    let out = run(Command::new(&fio).args([
        "--name=verify",
        "--ioengine=nbd",
        &format!("--uri={}", s.uri()),
        "--rw=randwrite",
        "--bs=4k",
        "--size=96m",
        "--iodepth=16",
        "--verify=crc32c",
        "--do_verify=1",
        "--randrepeat=1",
        // No verify state file left in the working directory.
        "--verify_state_save=0",
    ]));
    assert!(!out.contains("verify: bad"), "{out}");
    assert!(out.contains("err= 0"), "{out}");
    let (stats, _dir) = s.stop();
    let writes = job(&stats, "write", "total_ios");
    assert_eq!(writes, 96 << 8);
    // The verify pass read every block back.
    assert_eq!(job(&stats, "read", "total_ios"), writes);
    let gc = &stats["ssd"]["gc"];
    assert!(
        gc["runs"].as_u64().unwrap() > 0 && stats["ssd"]["waf"].as_f64().unwrap() > 1.5,
        "{gc}"
    );
}

#[test]
fn qemu_io_patterns_zeroes_and_trims_read_back() {
    let Some(qemu_io) = tool("qemu-io") else { return };
    let Some(s) = Server::start(SMALL) else { return };
    let out = run(Command::new(&qemu_io).args(["-f", "raw", &s.uri()]).args([
        "-c",
        "write -P 0x5a 1M 2M",
        "-c",
        "read -P 0x5a 1M 2M",
        "-c",
        "write -P 0x33 3M 4k",
        "-c",
        "write -z 4M 1M",
        "-c",
        "read -P 0 4M 1M",
        "-c",
        "discard 1M 1M",
        "-c",
        "read -P 0 1M 1M",
        "-c",
        "read -P 0x5a 2M 1M",
        "-c",
        "read -P 0x33 3M 4k",
    ]));
    assert!(!out.contains("Pattern verification failed"), "{out}");
    assert_eq!(out.matches("read ").count(), 5, "{out}");
    let (stats, _dir) = s.stop();
    assert_eq!(job(&stats, "trim", "total_ios"), 1);
    assert!(job(&stats, "write", "io_bytes") >= (2 << 20) + 4096);
}

/// The export as a file, `MNT/nbd`, through nbdfuse.
struct Fuse {
    child: Child,
    mnt: PathBuf,
}

impl Fuse {
    /// Mount `s`'s export in `s`'s directory, or `None` (test skipped, said why) where this
    /// machine does not let the test mount.
    fn mount(s: &Server, nbdfuse: &Path) -> Option<Fuse> {
        let mnt = s.path("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let mut child = Command::new(nbdfuse)
            .arg(&mnt)
            .arg(s.uri())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let dev = mnt.join("nbd");
        let start = Instant::now();
        while !dev.exists() && start.elapsed() < Duration::from_secs(20) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if !dev.exists() {
            let _ = child.kill();
            let _ = child.wait();
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            ssdlab_core::skip::unavailable(&format!("nbdfuse could not mount here: {}", err.trim()));
            return None;
        }
        Some(Fuse { child, mnt })
    }
    fn dev(&self) -> PathBuf {
        self.mnt.join("nbd")
    }
    fn unmount(mut self) {
        let _ = Command::new("fusermount3").arg("-u").arg(&self.mnt).status();
        let _ = self.child.wait();
    }
}

#[test]
fn mkfs_ext4_on_the_export_and_a_file_written_and_read_back() {
    let (Some(nbdfuse), Some(mkfs), Some(debugfs)) = (tool("nbdfuse"), tool("mkfs.ext4"), tool("debugfs")) else {
        return;
    };
    let Some(s) = Server::start(SMALL) else { return };
    let Some(fuse) = Fuse::mount(&s, &nbdfuse) else { return };
    let dev = fuse.dev();
    let src = s.path("file.bin");
    let data = random_bytes(3 << 20, 9);
    std::fs::write(&src, &data).unwrap();
    run(Command::new(&mkfs).args(["-q", "-F"]).arg(&dev));
    run(Command::new(&debugfs)
        .arg("-w")
        .arg("-R")
        .arg(format!("write {} file.bin", src.display()))
        .arg(&dev));
    let out = s.path("out.bin");
    run(Command::new(&debugfs)
        .arg("-R")
        .arg(format!("dump file.bin {}", out.display()))
        .arg(&dev));
    assert!(std::fs::read(&out).unwrap() == data);
    fuse.unmount();
    let (stats, _dir) = s.stop();
    assert!(job(&stats, "write", "io_bytes") >= 3 << 20);
}

#[test]
fn a_file_system_on_the_data_file_survives_a_restart() {
    let (Some(nbdfuse), Some(mkfs), Some(debugfs), Some(e2fsck)) =
        (tool("nbdfuse"), tool("mkfs.ext4"), tool("debugfs"), tool("e2fsck"))
    else {
        return;
    };
    let keep = tempfile::tempdir().unwrap();
    let img = keep.path().join("disk.img").display().to_string();
    let args = [SMALL, &["--data", &img]].concat();
    let data = random_bytes(3 << 20, 11);
    let src = keep.path().join("file.bin");
    std::fs::write(&src, &data).unwrap();

    // First session: a file system and a file in it.
    let Some(s) = Server::start(&args) else { return };
    let Some(fuse) = Fuse::mount(&s, &nbdfuse) else { return };
    run(Command::new(&mkfs).args(["-q", "-F"]).arg(fuse.dev()));
    run(Command::new(&debugfs)
        .arg("-w")
        .arg("-R")
        .arg(format!("write {} file.bin", src.display()))
        .arg(fuse.dev()));
    fuse.unmount();
    let (first, _dir) = s.stop();
    assert!(job(&first, "write", "io_bytes") >= 3 << 20);

    // Second session on the same file: the file reads back, the file system checks clean,
    // and nothing was written to make it so.
    let s = Server::start(&args).expect("served the first time");
    let fuse = Fuse::mount(&s, &nbdfuse).expect("mounted the first time");
    let out = s.path("out.bin");
    run(Command::new(&debugfs)
        .arg("-R")
        .arg(format!("dump file.bin {}", out.display()))
        .arg(fuse.dev()));
    assert!(
        std::fs::read(&out).unwrap() == data,
        "the file written in the first session"
    );
    run(Command::new(&e2fsck).arg("-fn").arg(fuse.dev()));
    fuse.unmount();
    let (second, _dir) = s.stop();
    assert_eq!(job(&second, "write", "io_bytes"), 0);
    assert!(job(&second, "read", "io_bytes") >= 3 << 20);
    // And the backing file is the file system itself.
    run(Command::new(&e2fsck).arg("-fn").arg(&img));
}

#[test]
fn hostile_clients_and_requests_out_of_range_leave_the_server_serving() {
    let (Some(qemu_io), Some(nbdinfo)) = (tool("qemu-io"), tool("nbdinfo")) else {
        return;
    };
    let Some(s) = Server::start(SMALL) else { return };
    let sock = s.path("nbd.sock");
    for i in 0..300u64 {
        let Ok(mut c) = std::os::unix::net::UnixStream::connect(&sock) else {
            continue;
        };
        c.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        let mut greeting = [0u8; 18];
        let _ = c.read_exact(&mut greeting);
        // Garbage, or a client's flags and an option header followed by garbage.
        let mut bytes = random_bytes(8 + (i as usize % 64) * 8, i + 1);
        if i % 2 == 0 {
            let mut opt = vec![0, 0, 0, 3];
            opt.extend_from_slice(b"IHAVEOPT");
            opt.extend_from_slice(&bytes);
            bytes = opt;
        }
        let _ = c.write_all(&bytes);
        let mut sink = [0u8; 256];
        let _ = c.read(&mut sink);
    }
    // Beyond the end: the client is refused, the server goes on.
    let out = Command::new(&qemu_io)
        .args(["-f", "raw", &s.uri(), "-c", "read 1T 4k"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("read 4096/4096"), "{text}");
    let info = run(Command::new(&nbdinfo).arg(s.uri()));
    assert!(info.contains("export-size"), "{info}");
    run(Command::new(&qemu_io).args(["-f", "raw", &s.uri(), "-c", "write -P 7 0 64k", "-c", "read -P 7 0 64k"]));
    let (stats, _dir) = s.stop();
    assert_eq!(job(&stats, "write", "total_ios"), 1);
}

#[test]
fn without_nbdkit_serve_says_how_to_get_it() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["serve", "slc-sata"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("ssdlab: error: nbdkit: not found on PATH; expected nbdkit installed (Debian or Ubuntu: apt-get install nbdkit"), "{err}");
}

#[test]
fn a_bad_config_is_refused_before_nbdkit_starts() {
    let out = crate::common::ssdlab(&["serve", "slc-sata", "--set", "device.geometry.channels=0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "ssdlab: error: --set device.geometry.channels=0: device.geometry.channels: got 0; expected at least 1"
    );
    let out = crate::common::ssdlab(&["serve", "--stats", "/nonexistent/control.sock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected the --control socket of a running ssdlab serve"));
    assert!(Path::new(env!("CARGO_BIN_EXE_ssdlab")).exists());
}

#[test]
fn real_pace_holds_each_reply_until_its_simulated_completion() {
    let Some(fio) = tool("fio") else { return };
    let Some(s) = Server::start(&[
        "slc-sata",
        "--set",
        "device.geometry.blocks_per_plane=64",
        "--pace",
        "real",
    ]) else {
        return;
    };
    let uri = format!("--uri={}", s.uri());
    run(Command::new(&fio).args([
        "--name=fill",
        "--ioengine=nbd",
        &uri,
        "--rw=write",
        "--bs=1m",
        "--size=16m",
    ]));
    let out = run(Command::new(&fio).args([
        "--name=qd1",
        "--ioengine=nbd",
        &uri,
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--iodepth=1",
        "--number_ios=2000",
        "--output-format=json",
    ]));
    let client: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
    let (stats, _dir) = s.stop();
    let sim = &stats["jobs"][0]["read"]["clat_ns"];
    // fio's total latency: its clat starts once libnbd has taken the request.
    let seen = &client["jobs"][0]["read"]["lat_ns"];
    assert_eq!(stats["jobs"][0]["read"]["total_ios"], 2000);
    // One request at a time, each held until its simulated completion: the 2,000 take at
    // least the sum of their simulated latencies (unpaced, the same reads take about half).
    let (sim_mean, seen_mean) = (sim["mean"].as_f64().unwrap(), seen["mean"].as_f64().unwrap());
    assert!(sim_mean > 100_000.0, "{sim}");
    let runtime_ms = client["jobs"][0]["read"]["runtime"].as_f64().unwrap();
    assert!(
        runtime_ms >= (2000.0 * sim_mean / 1e6).floor(),
        "{runtime_ms} ms for 2,000 reads of {sim_mean} ns"
    );
    // fio starts its clock a little after the request left, so its mean may fall a little
    // short of the simulated one; it exceeds it by the protocol's round trip.
    assert!(
        seen_mean > 0.8 * sim_mean && seen_mean < sim_mean + 2_000_000.0,
        "{seen_mean} against {sim_mean}"
    );
}

#[test]
fn tcp_on_loopback_with_the_data_in_a_file_and_a_memory_limit() {
    let (Some(qemu_io), Some(_)) = (tool("qemu-io"), tool("nbdkit")) else {
        return;
    };
    if plugin().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.img");
    let port = 20000 + (std::process::id() % 20000) as u16;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "serve",
            "slc-sata",
            "--set",
            "device.geometry.blocks_per_plane=64",
            "-q",
        ])
        .args([
            "--port",
            &port.to_string(),
            "--data",
            data.to_str().unwrap(),
            "-o",
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(120) && child.try_wait().unwrap().is_none());
        std::thread::sleep(Duration::from_millis(20));
    }
    let uri = format!("nbd://127.0.0.1:{port}");
    run(Command::new(&qemu_io).args([
        "-f",
        "raw",
        &uri,
        "-c",
        "write -P 0x6b 8M 64k",
        "-c",
        "read -P 0x6b 8M 64k",
    ]));
    // The bytes are in the file, where the client put them.
    let bytes = std::fs::read(&data).unwrap();
    assert_eq!(bytes.len() as u64, 466_841_600);
    assert!(bytes[8 << 20..(8 << 20) + 65536].iter().all(|&b| b == 0x6b));
    assert!(bytes[..8 << 20].iter().all(|&b| b == 0));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    assert!(child.wait().unwrap().success());

    // In memory with room for 16 blocks: the 17th is refused (no space), the server goes on.
    let Some(s) = Server::start(&[
        "slc-sata",
        "--set",
        "device.geometry.blocks_per_plane=64",
        "--memory",
        "64KiB",
    ]) else {
        return;
    };
    run(Command::new(&qemu_io).args(["-f", "raw", &s.uri(), "-c", "write -P 1 0 64k", "-c", "read -P 1 0 64k"]));
    let out = Command::new(&qemu_io)
        .args(["-f", "raw", &s.uri(), "-c", "write -P 2 1M 4k"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("No space left on device"), "{text}");
    run(Command::new(&qemu_io).args(["-f", "raw", &s.uri(), "-c", "write -P 3 0 4k", "-c", "read -P 3 0 4k"]));
    let (stats, _dir) = s.stop();
    // The refused write never reached the device.
    assert_eq!(job(&stats, "write", "total_ios"), 2);
}

/// Bytes the SMALL device serves.
const SMALL_BYTES: u64 = 466_841_600;

#[test]
fn a_data_file_of_the_device_size_is_served_and_kept_and_another_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("disk.img");
    let img_s = img.display().to_string();
    // `echo precious > disk.img`: refused, one line, the file as it was.
    std::fs::write(&img, b"precious\n").unwrap();
    let args = [
        &["serve"],
        SMALL,
        &["--data", &img_s, "--socket", "/nonexistent/nbd.sock"],
    ]
    .concat();
    crate::common::refused(
        &args,
        &format!("--data: {img_s}: 9 bytes, the device has {SMALL_BYTES}; expected a file of the device's size, or --data-resize to resize it"),
    );
    assert_eq!(std::fs::read(&img).unwrap(), b"precious\n");
    let d = dir.path().display().to_string();
    crate::common::refused(
        &[&["serve"], SMALL, &["--data", &d]].concat(),
        &format!("--data: {d}: a directory; expected a regular file or a block device"),
    );
    // A link to a file that does not exist: refused before anything starts or is created
    // (it was "created" and then failed inside nbdkit).
    let link = dir.path().join("link.img");
    std::os::unix::fs::symlink("nowhere.img", &link).unwrap();
    let link_s = link.display().to_string();
    crate::common::refused(
        &[&["serve"], SMALL, &["--data", &link_s]].concat(),
        &format!("--data: {link_s}: a link to nowhere.img, which does not exist; expected a data file, or a path for a new one"),
    );
    assert!(!dir.path().join("nowhere.img").exists());

    // The same bytes at the device's size: served as they are, and kept with what the
    // session wrote.
    let mut bytes = vec![0u8; SMALL_BYTES as usize];
    bytes[..9].copy_from_slice(b"precious\n");
    let end = bytes.len() - 4;
    bytes[end..].copy_from_slice(b"tail");
    std::fs::write(&img, &bytes).unwrap();
    let Some(qemu_io) = tool("qemu-io") else { return };
    let Some(s) = Server::start(&[SMALL, &["--data", &img_s]].concat()) else {
        return;
    };
    let out = run(Command::new(&qemu_io).args(["-f", "raw", &s.uri()]).args([
        "-c",
        "read -v 0 9",
        "-c",
        &format!("read -v {end} 4"),
        "-c",
        "write -P 0x6b 1M 4k",
    ]));
    assert!(out.contains("precious.") && out.contains("tail"), "{out}");
    s.stop();
    bytes[1 << 20..(1 << 20) + 4096].fill(0x6b);
    assert!(
        std::fs::read(&img).unwrap() == bytes,
        "the file holds the first bytes and the session's write"
    );
}

#[test]
fn an_address_that_is_not_one_is_refused_before_nbdkit_starts() {
    crate::common::refused(
        &["serve", "slc-sata", "--bind", "not-an-address"],
        "--bind: 'not-an-address': ",
    );
    let o = crate::common::ssdlab(&["serve", "slc-sata", "--bind", "not-an-address"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ssdlab: serving"));
}

#[test]
fn a_recording_never_replaces_a_file_and_a_failed_session_leaves_none() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("session.trace");
    std::fs::write(&rec, b"someone's file\n").unwrap();
    let rec_s = rec.display().to_string();
    crate::common::refused(
        &["serve", "slc-sata", "--record", &rec_s],
        &format!("--record: {rec_s}: exists; expected a new file"),
    );
    assert_eq!(std::fs::read(&rec).unwrap(), b"someone's file\n");

    // nbdkit cannot load the plugin: the session fails and leaves no recording behind.
    let Some(_) = tool("nbdkit") else { return };
    std::fs::remove_file(&rec).unwrap();
    let not_a_plugin = tempfile::NamedTempFile::new().unwrap();
    let sock = dir.path().join("nbd.sock").display().to_string();
    let o = crate::common::ssdlab(&[
        "serve",
        "slc-sata",
        "--record",
        &rec_s,
        "--socket",
        &sock,
        "--plugin",
        not_a_plugin.path().to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ssdlab: error: nbdkit: exited") && !err.contains("ssdlab: serving"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A copy of the command at `dir/name`.
fn copy_of_the_command(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join(name);
    std::fs::copy(env!("CARGO_BIN_EXE_ssdlab"), &exe).unwrap();
    exe
}

#[test]
fn the_plugin_is_found_where_the_install_puts_it_and_the_advice_fits_the_binary() {
    let t = tempfile::tempdir().unwrap();
    // An nbdkit that says what it was given and fails: serve gets as far as starting it.
    let bin = t.path().join("tools");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("nbdkit");
    let args_file = t.path().join("nbdkit.args");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\necho \"$@\" > {}\nexit 1\n", args_file.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let serve = |exe: &Path| {
        // A program this test wrote may still be open for writing in a process another test
        // thread forked meanwhile (until it execs): running it then fails with ETXTBSY, which
        // passes; try again.
        let o = (0..50)
            .find_map(|_| {
                match Command::new(exe)
                    .args(["serve", "slc-sata", "-q", "--socket"])
                    .arg(t.path().join("nbd.sock"))
                    .env("PATH", &bin)
                    .env_remove("SSDLAB_NBD_PLUGIN")
                    .output()
                {
                    Err(e) if e.raw_os_error() == Some(26) => {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        None
                    }
                    r => Some(r.unwrap()),
                }
            })
            .expect("the program runs within 50 tries");
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let root = t.path().join("root");
    let installed = copy_of_the_command(&root.join("bin"), "ssdlab");
    let err = serve(&installed);
    assert!(
        err.contains(&format!(
            "run `scripts/install.sh --root {}` in the ssdlab source",
            root.display()
        )),
        "{err}"
    );
    // In a cargo target directory, the build of the plugin in the program's profile.
    let target = t.path().join("target");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(
        target.join("CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    )
    .unwrap();
    for (profile, command) in [
        ("release", "cargo build --release -p ssdlab-nbd"),
        ("debug", "cargo build -p ssdlab-nbd"),
        ("ci-test", "cargo build --profile ci-test -p ssdlab-nbd"),
    ] {
        let err = serve(&copy_of_the_command(&target.join(profile), "ssdlab"));
        assert!(
            err.contains(&format!("run `{command}` in the ssdlab source")),
            "{profile}: {err}"
        );
    }
    // Installed: ROOT/lib/ssdlab is where serve looks.
    let lib = root.join("lib/ssdlab/libssdlab_nbd.so");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::write(&lib, b"a plugin").unwrap();
    let err = serve(&installed);
    assert!(err.starts_with("ssdlab: error: nbdkit: exited"), "{err}");
    let given = std::fs::read_to_string(&args_file).unwrap();
    assert!(given.contains(&format!(" {} config=", lib.display())), "{given}");
}

#[test]
fn the_readmes_install_command_installs_a_serve_that_works() {
    // The command the README's Install section shows.
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).unwrap();
    let section = &readme[readme.find("## Install").unwrap()..];
    let block = &section[section.find("```sh\n").unwrap() + 6..];
    let line = block[..block.find("```").unwrap()].lines().next().unwrap();
    let command = line.split('#').next().unwrap().trim();
    assert_eq!(command, "scripts/install.sh");
    // cargo's own work is too slow for a test: a stand-in cargo installs this command and
    // the plugin this test run built (or a placeholder), and says what it was asked.
    // Under CI the plugin must be there; elsewhere a placeholder stands in for it.
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ssdlab"));
    let beside = bin.parent().unwrap().join("libssdlab_nbd.so");
    let built = if beside.is_file() || std::env::var_os("CI").is_some() {
        let Some(p) = plugin() else { return };
        p
    } else {
        bin
    };
    let t = tempfile::tempdir().unwrap();
    let stub = t.path().join("stub");
    std::fs::create_dir(&stub).unwrap();
    let log = t.path().join("cargo.log");
    std::fs::write(
        stub.join("cargo"),
        format!(
            "#!/bin/sh\necho \"$*\" >> {log}\ncase \"$1\" in\n  install) while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n    mkdir -p \"$root/bin\" && cp {exe} \"$root/bin/ssdlab\" ;;\n  build) mkdir -p \"$CARGO_TARGET_DIR/release\" && cp {built} \"$CARGO_TARGET_DIR/release/libssdlab_nbd.so\" ;;\nesac\n",
            log = log.display(),
            exe = env!("CARGO_BIN_EXE_ssdlab"),
            built = built.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(stub.join("cargo"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(stub).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    // Run from elsewhere with a relative root: the root is the caller's directory's.
    let out = run(Command::new(crate::common::root().join(command))
        .args(["--root", "inst"])
        .current_dir(t.path())
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", t.path().join("target")));
    let root = t.path().join("inst");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!(
            "install --locked --path crates/ssdlab --root {}\nbuild --locked --release -p ssdlab-nbd\n",
            root.display()
        )
    );
    let lib = root.join("lib/ssdlab/libssdlab_nbd.so");
    assert!(std::fs::read(&lib).unwrap() == std::fs::read(&built).unwrap(), "{out}");
    // The installed command finds the installed plugin and serves.
    if plugin().is_none() {
        return;
    }
    let Some(s) = Server::start_with(&root.join("bin/ssdlab"), SMALL) else {
        return;
    };
    let (stats, _dir) = s.stop();
    assert_eq!(job(&stats, "write", "io_bytes"), 0);
}
