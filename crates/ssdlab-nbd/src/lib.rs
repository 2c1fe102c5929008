//! The nbdkit plugin behind `ssdlab serve`: a simulated SSD as an NBD export.
//!
//! nbdkit speaks the protocol; this plugin keeps the data (`blockdata`) and times every
//! request on a simulated device (`live`), on a thread of its own that owns the device:
//! nbdkit's threads hand it requests over a channel and wait for their simulated completion.
//! With `pace=none` the simulated clock moves only with the device's own events, so
//! requests are answered as fast as the machine allows; with `pace=real` it follows the wall
//! clock from the first request and a reply leaves at its simulated completion time.
//!
//! Keys (`nbdkit PLUGIN KEY=VALUE ...`): `config` (a preset or run file), `set` (a
//! `KEY=VALUE` override, repeatable), `seed`, `pace` (`none` or `real`), `data` (a backing
//! file whose contents are kept, created at the device's size if missing; otherwise memory up
//! to `memory` bytes), `data-resize` (`true`: a `data` file of another size is resized rather
//! than refused), `record` (a new file: a native trace of every request), `control` (a Unix
//! socket answering each connection with the session's statistics so far; needs `record`).

use nbdkit::*;
use ssdlab_core::blockdata::BlockData;
use ssdlab_core::live::{replay_config, LiveDevice};
use ssdlab_core::trace::write::OutputFormat;
use ssdlab_core::{config, Config, Op};
use std::io::Write;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pace {
    None,
    Real,
}

#[derive(Default)]
struct Settings {
    config: Option<String>,
    sets: Vec<String>,
    seed: Option<u64>,
    pace: Option<Pace>,
    data: Option<String>,
    data_resize: bool,
    memory: Option<u64>,
    record: Option<String>,
    control: Option<String>,
}

enum Msg {
    Io {
        op: Op,
        offset: u64,
        len: u64,
        reply: Sender<std::result::Result<u64, String>>,
    },
    /// Write the recorded requests so far to the record file; reply with its length.
    Commit(Sender<u64>),
    Stop,
}

/// What the threads share once the device is built.
struct Served {
    cfg: Config,
    size: u64,
    data: RwLock<BlockData>,
    tx: Mutex<Sender<Msg>>,
    record: Option<String>,
}

static SETTINGS: Mutex<Option<Settings>> = Mutex::new(None);
/// The device and the channel's receiving end, from `config_complete` until the simulation
/// thread takes them in `after_fork` (threads do not survive nbdkit's fork).
static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

/// The simulation thread's start: the device, its requests' channel, the pace, the recording.
type Pending = (LiveDevice, Receiver<Msg>, Pace, Option<RecordBuf>);
static SERVED: OnceLock<Served> = OnceLock::new();
static SIM_THREAD: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);

fn err(msg: impl Into<String>) -> Error {
    Error::new(libc::EINVAL, msg.into())
}

fn io_err(msg: impl Into<String>) -> Error {
    Error::new(libc::EIO, msg.into())
}

/// The native trace's bytes, kept in memory and appended to the record file whole records at
/// a time, so the file never ends inside a record.
#[derive(Clone)]
struct RecordBuf {
    buf: Arc<Mutex<Vec<u8>>>,
    path: String,
    written: u64,
}

impl Write for SharedWrite {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("record buffer").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct SharedWrite(Arc<Mutex<Vec<u8>>>);

impl RecordBuf {
    fn commit(&mut self) -> std::io::Result<u64> {
        let bytes = std::mem::take(&mut *self.buf.lock().expect("record buffer"));
        if !bytes.is_empty() {
            let mut f = std::fs::OpenOptions::new().append(true).open(&self.path)?;
            f.write_all(&bytes)?;
            self.written += bytes.len() as u64;
        }
        Ok(self.written)
    }
}

fn settings<R>(f: impl FnOnce(&mut Settings) -> R) -> R {
    let mut s = SETTINGS.lock().expect("settings");
    f(s.get_or_insert_with(Settings::default))
}

/// With real pace, waits shorter than this are spun rather than slept.
const SPIN_NS: u64 = 200_000;

/// The simulation thread: takes requests, submits them at the simulated time the pace gives,
/// runs the device and answers each request at its completion.
fn simulate(mut live: LiveDevice, rx: Receiver<Msg>, pace: Pace, mut record: Option<RecordBuf>) {
    if let Some(r) = &record {
        match OutputFormat::Native.writer(Box::new(SharedWrite(r.buf.clone())), &r.path) {
            Ok(w) => live.record_to(w),
            Err(e) => nbdkit::debug!("ssdlab: cannot record: {e}"),
        }
    }
    let mut replies: std::collections::HashMap<u64, Sender<std::result::Result<u64, String>>> = Default::default();
    let mut origin: Option<Instant> = None;
    let mut done = Vec::new();
    // Real pace: completed requests whose simulated completion is still ahead of the wall
    // clock, by completion time.
    let mut held: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u64)>> = Default::default();
    let mut last_commit = Instant::now();
    let wall_ns = |o: &Option<Instant>| o.map_or(0, |o| o.elapsed().as_nanos() as u64);
    'serve: loop {
        // Wait for work: a request, or (real pace) the wall time of the next device event.
        let next_due = live.next_event().into_iter().chain(held.peek().map(|r| r.0 .0)).min();
        let first = if live.outstanding() == 0 && (pace == Pace::None || origin.is_none() || next_due.is_none()) {
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else if pace == Pace::Real {
            let due = next_due.unwrap_or(u64::MAX);
            let wait = due.saturating_sub(wall_ns(&origin));
            if wait <= SPIN_NS {
                // The system's timers overshoot by tens of microseconds: the last stretch is
                // spun, watching for requests.
                loop {
                    match rx.try_recv() {
                        Ok(m) => break Some(m),
                        Err(TryRecvError::Disconnected) => break 'serve,
                        Err(TryRecvError::Empty) if wall_ns(&origin) >= due => break None,
                        Err(TryRecvError::Empty) => std::hint::spin_loop(),
                    }
                }
            } else {
                match rx.recv_timeout(Duration::from_nanos((wait - SPIN_NS).min(100_000_000))) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
        } else {
            None
        };
        let mut msgs: Vec<Msg> = first.into_iter().collect();
        loop {
            match rx.try_recv() {
                Ok(m) => msgs.push(m),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => break 'serve,
            }
        }
        for m in msgs {
            match m {
                Msg::Io { op, offset, len, reply } => {
                    let at = match pace {
                        Pace::None => live.now(),
                        Pace::Real => {
                            let o = *origin.get_or_insert_with(Instant::now);
                            o.elapsed().as_nanos() as u64
                        }
                    };
                    match live.submit(op, offset, len, at) {
                        Ok(tag) => {
                            replies.insert(tag, reply);
                        }
                        Err(e) => {
                            let _ = reply.send(Err(e.to_string()));
                        }
                    }
                }
                Msg::Commit(reply) => {
                    let _ = live.flush_recording();
                    let n = record.as_mut().map_or(Ok(0), RecordBuf::commit).unwrap_or(0);
                    let _ = reply.send(n);
                }
                Msg::Stop => break 'serve,
            }
        }
        let stepped = match pace {
            Pace::None if live.outstanding() > 0 => live.step(),
            Pace::Real if origin.is_some() => live.run_to(wall_ns(&origin)).map(|_| true),
            _ => Ok(false),
        };
        if let Err(e) = stepped {
            // The device cannot go on (a bug or an impossible state): fail what is waiting.
            for (_, r) in replies.drain() {
                let _ = r.send(Err(e.to_string()));
            }
            nbdkit::debug!("ssdlab: the simulation stopped: {e}");
            break;
        }
        live.take_completed(&mut done);
        if pace == Pace::Real {
            // A reply leaves once the wall clock has reached its simulated completion.
            held.extend(done.drain(..).map(|(tag, c)| std::cmp::Reverse((c, tag))));
            let wall = wall_ns(&origin);
            while held.peek().is_some_and(|r| r.0 .0 <= wall) {
                let std::cmp::Reverse((c, tag)) = held.pop().expect("peeked");
                done.push((tag, c));
            }
        }
        for &(tag, c) in &done {
            if let Some(r) = replies.remove(&tag) {
                let _ = r.send(Ok(c));
            }
        }
        if last_commit.elapsed() >= Duration::from_secs(1) {
            let _ = live.flush_recording();
            if let Some(r) = record.as_mut() {
                let _ = r.commit();
            }
            last_commit = Instant::now();
        }
    }
    for (_, r) in replies.drain() {
        let _ = r.send(Err("ssdlab: the server is stopping".into()));
    }
    let _ = live.finish_recording();
    if let Some(r) = record.as_mut() {
        let _ = r.commit();
    }
}

fn served() -> Result<&'static Served> {
    SERVED.get().ok_or_else(|| io_err("ssdlab: the device is not ready"))
}

/// Time one request on the device; the data operation is the caller's.
fn timed(op: Op, offset: u64, len: u64) -> Result<()> {
    let s = served()?;
    let (tx, rx) = mpsc::channel();
    s.tx.lock()
        .expect("channel")
        .send(Msg::Io {
            op,
            offset,
            len,
            reply: tx,
        })
        .map_err(|_| io_err("ssdlab: the simulation has stopped"))?;
    match rx.recv() {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(io_err(e)),
        Err(_) => Err(io_err("ssdlab: the simulation has stopped")),
    }
}

/// Zeros in the store over `count` bytes at `offset` (a trim, or a write of zeros).
fn zero_data(offset: u64, count: u32) -> Result<()> {
    served()?
        .data
        .write()
        .expect("data")
        .zero(offset, count as u64)
        .map_err(|e| io_err(e.to_string()))
}

/// The session's statistics so far (the replay of what was recorded), for the control socket.
fn stats_json() -> std::result::Result<String, String> {
    let s = SERVED.get().ok_or("the device is not ready")?;
    let path = s.record.as_ref().ok_or("no record file")?;
    let (tx, rx) = mpsc::channel();
    s.tx.lock()
        .expect("channel")
        .send(Msg::Commit(tx))
        .map_err(|_| "the simulation has stopped")?;
    let len = rx.recv().map_err(|_| "the simulation has stopped")?;
    // The committed prefix, copied: the file grows meanwhile.
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let dir = std::env::temp_dir().join(format!("ssdlab-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let snap = dir.join("session.trace");
    std::fs::write(&snap, &bytes[..(len as usize).min(bytes.len())]).map_err(|e| e.to_string())?;
    let r = (|| {
        let cfg = replay_config(&s.cfg, snap.to_str().unwrap_or_default())?;
        ssdlab_core::run_config(&cfg)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    let r = r.map_err(|e| e.to_string())?;
    // Whole (with the latency bins): `serve --stats` writes it in the format asked for.
    Ok(serde_json::to_string(&r).expect("serialisable") + "\n")
}

fn control_loop(path: String) {
    let _ = std::fs::remove_file(&path);
    let Ok(listener) = std::os::unix::net::UnixListener::bind(&path) else {
        nbdkit::debug!("ssdlab: cannot listen on {path}");
        return;
    };
    for mut conn in listener.incoming().flatten() {
        let text = stats_json().unwrap_or_else(|e| format!("{{\"error\": {}}}\n", serde_json::json!(e)));
        let _ = conn.write_all(text.as_bytes());
    }
}

#[derive(Default)]
struct Export;

impl Server for Export {
    fn name() -> &'static str {
        "ssdlab"
    }

    fn description() -> Option<&'static str> {
        Some("a simulated SSD (ssdlab): data kept by logical address, every request timed on the simulated device")
    }

    fn config_help() -> Option<&'static str> {
        Some(
            "config=PRESET|FILE  set=KEY=VALUE  seed=N  pace=none|real  data=FILE  data-resize=true|false  memory=BYTES  record=FILE  control=SOCKET",
        )
    }

    fn config(key: &str, value: &str) -> Result<()> {
        settings(|s| {
            match key {
                "config" => s.config = Some(value.to_string()),
                "set" => s.sets.push(value.to_string()),
                "seed" => {
                    s.seed = Some(
                        value
                            .parse()
                            .map_err(|_| err(format!("seed: '{value}'; expected a whole number")))?,
                    )
                }
                "pace" => {
                    s.pace = Some(match value {
                        "none" => Pace::None,
                        "real" => Pace::Real,
                        _ => return Err(err(format!("pace: '{value}'; expected none or real"))),
                    })
                }
                "data" => s.data = Some(value.to_string()),
                "data-resize" => {
                    s.data_resize = match value {
                        "true" => true,
                        "false" => false,
                        _ => return Err(err(format!("data-resize: '{value}'; expected true or false"))),
                    }
                }
                "memory" => {
                    s.memory = Some(
                        ssdlab_core::units::parse_size(value).map_err(|e| err(format!("memory: '{value}': {e}")))?,
                    )
                }
                "record" => s.record = Some(value.to_string()),
                "control" => s.control = Some(value.to_string()),
                _ => {
                    return Err(err(format!(
                        "{key}: unknown key; expected one of config, set, seed, pace, data, data-resize, memory, record, control"
                    )))
                }
            }
            Ok(())
        })
    }

    fn config_complete() -> Result<()> {
        let s = settings(std::mem::take);
        let mut cfg = config::load_config_with(s.config.as_deref().unwrap_or(config::DEFAULT_PRESET), &s.sets)
            .map_err(|e| err(e.to_string()))?;
        if let Some(seed) = s.seed {
            cfg.precondition.seed = seed;
        }
        if s.control.is_some() && s.record.is_none() {
            return Err(err("control: needs record=FILE; expected both"));
        }
        let live = LiveDevice::new(&cfg).map_err(|e| err(e.to_string()))?;
        let size = live.logical_bytes();
        let data = match &s.data {
            Some(path) => {
                BlockData::in_file(size, path, s.data_resize, "data-resize=true")
                    .map_err(|e| err(format!("data: {e}")))?
                    .0
            }
            None => BlockData::in_memory(size, s.memory.unwrap_or(size)),
        };
        let record = match &s.record {
            Some(path) => {
                // A new file: whatever is at the path is someone's and stays as it is.
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .map_err(|e| err(format!("record: {path}: {e}; expected a new file")))?;
                Some(RecordBuf {
                    buf: Arc::new(Mutex::new(Vec::new())),
                    path: path.clone(),
                    written: 0,
                })
            }
            None => None,
        };
        let (tx, rx) = mpsc::channel();
        let served = Served {
            cfg,
            size,
            data: RwLock::new(data),
            tx: Mutex::new(tx),
            record: s.record.clone(),
        };
        if SERVED.set(served).is_err() {
            return Err(err("the plugin was configured twice"));
        }
        *PENDING.lock().expect("pending") = Some((live, rx, s.pace.unwrap_or(Pace::None), record));
        if let Some(c) = s.control {
            *CONTROL.lock().expect("control") = Some(c);
        }
        Ok(())
    }

    fn after_fork() -> Result<()> {
        let Some((live, rx, pace, record)) = PENDING.lock().expect("pending").take() else {
            return Ok(());
        };
        let h = std::thread::Builder::new()
            .name("ssdlab-sim".into())
            .spawn(move || simulate(live, rx, pace, record))
            .map_err(|e| io_err(format!("ssdlab: cannot start the simulation thread: {e}")))?;
        *SIM_THREAD.lock().expect("thread") = Some(h);
        if let Some(path) = CONTROL.lock().expect("control").take() {
            std::thread::Builder::new()
                .name("ssdlab-control".into())
                .spawn(move || control_loop(path))
                .map_err(|e| io_err(format!("ssdlab: cannot start the control thread: {e}")))?;
        }
        Ok(())
    }

    fn unload() {
        if let Some(s) = SERVED.get() {
            let _ = s.tx.lock().map(|t| t.send(Msg::Stop));
        }
        if let Some(h) = SIM_THREAD.lock().ok().and_then(|mut h| h.take()) {
            let _ = h.join();
        }
    }

    fn thread_model() -> Result<ThreadModel> {
        Ok(ThreadModel::Parallel)
    }

    fn open(_readonly: bool) -> Result<Box<dyn Server>> {
        Ok(Box::<Export>::default())
    }

    fn get_size(&self) -> Result<i64> {
        Ok(served()?.size as i64)
    }

    fn can_write(&self) -> Result<bool> {
        Ok(true)
    }
    fn can_flush(&self) -> Result<bool> {
        Ok(true)
    }
    fn can_trim(&self) -> Result<bool> {
        Ok(true)
    }
    fn can_zero(&self) -> Result<bool> {
        Ok(true)
    }
    fn can_fua(&self) -> Result<FuaFlags> {
        // In memory, forced unit access changes nothing; a file's write is durable after a
        // flush, which nbdkit calls after a write with FUA.
        Ok(if served()?.data.read().expect("data").is_file() {
            FuaFlags::Emulate
        } else {
            FuaFlags::Native
        })
    }
    fn can_multi_conn(&self) -> Result<bool> {
        // Every connection sees one store, and a flush makes every connection's writes durable.
        Ok(true)
    }
    fn is_rotational(&self) -> Result<bool> {
        Ok(false)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        timed(Op::Read, offset, buf.len() as u64)?;
        served()?
            .data
            .read()
            .expect("data")
            .read(offset, buf)
            .map_err(|e| io_err(e.to_string()))
    }

    fn write_at(&self, buf: &[u8], offset: u64, _flags: Flags) -> Result<()> {
        served()?
            .data
            .write()
            .expect("data")
            .write(offset, buf)
            .map_err(|e| Error::new(libc::ENOSPC, e.to_string()))?;
        timed(Op::Write, offset, buf.len() as u64)
    }

    fn trim(&self, count: u32, offset: u64, _flags: Flags) -> Result<()> {
        // NBD leaves trimmed data unspecified; it reads back as zeros here.
        zero_data(offset, count)?;
        timed(Op::Trim, offset, count as u64)
    }

    fn zero(&self, count: u32, offset: u64, flags: Flags) -> Result<()> {
        zero_data(offset, count)?;
        // Zeros the drive may trim go to the flash as a trim, the others as written data.
        let op = if flags.contains(Flags::MAY_TRIM) {
            Op::Trim
        } else {
            Op::Write
        };
        timed(op, offset, count as u64)
    }

    fn flush(&self) -> Result<()> {
        served()?
            .data
            .read()
            .expect("data")
            .flush()
            .map_err(|e| io_err(e.to_string()))
    }
}

static CONTROL: Mutex<Option<String>> = Mutex::new(None);

plugin!(Export {
    thread_model,
    config,
    config_complete,
    config_help,
    after_fork,
    unload,
    write_at,
    flush,
    trim,
    zero,
    can_write,
    can_flush,
    can_trim,
    can_zero,
    can_fua,
    can_multi_conn,
    is_rotational
});
