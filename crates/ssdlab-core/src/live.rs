//! A simulated SSD driven one request at a time by a live client (a block-device server),
//! rather than by jobs: the client submits a request at a simulated time, the device's events
//! up to then run first (as in the run loop: device events before the host at equal times),
//! and the client waits for that request's completion.
//!
//! Every request can be recorded as a native trace with its simulated arrival time; replayed
//! open-loop on the same config (`[job.trace] replay = "open"`), the trace gives the live
//! session's flash work exactly (`tests/integration/live.rs`).

use crate::array::volume::Volume;
use crate::request::{Op, Request};
use crate::trace::write::TraceWriter;
use crate::trace::TraceRecord;
use crate::{Config, Error, Result};

/// The live device: a preconditioned volume (one device or an array) and its clock.
pub struct LiveDevice {
    volume: Volume,
    now: u64,
    next_tag: u64,
    /// Completed requests not yet claimed: (tag, completion time), in completion order.
    done: Vec<(u64, u64)>,
    outstanding: u64,
    scratch: Vec<(u64, u64)>,
    record: Option<Box<dyn TraceWriter + Send>>,
    requests: [u64; 3],
    bytes: [u64; 3],
}

impl LiveDevice {
    /// Build and precondition the config's device (its jobs are ignored).
    pub fn new(cfg: &Config) -> Result<LiveDevice> {
        let mut sim = crate::Simulation::new(cfg)?;
        sim.volume.kick_background()?;
        Ok(LiveDevice {
            volume: sim.volume,
            now: 0,
            next_tag: 0,
            done: Vec::new(),
            outstanding: 0,
            scratch: Vec::new(),
            record: None,
            requests: [0; 3],
            bytes: [0; 3],
        })
    }

    /// Write every request from now on to `w` (a native trace: `trace::write`).
    pub fn record_to(&mut self, w: Box<dyn TraceWriter + Send>) {
        self.record = Some(w);
    }

    /// Hand the requests recorded so far, whole, to the recording's output.
    pub fn flush_recording(&mut self) -> Result<()> {
        match &mut self.record {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// End the recording.
    pub fn finish_recording(&mut self) -> Result<()> {
        match &mut self.record {
            Some(w) => w.finish(),
            None => Ok(()),
        }
    }

    /// Bytes the host can address.
    pub fn logical_bytes(&self) -> u64 {
        self.volume.logical_bytes()
    }

    /// Simulated time of the last event or arrival.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The volume, for its counters and members.
    pub fn volume(&self) -> &Volume {
        &self.volume
    }

    /// Requests and bytes submitted, by operation (read, write, trim).
    pub fn submitted(&self) -> ([u64; 3], [u64; 3]) {
        (self.requests, self.bytes)
    }

    /// Requests submitted and not yet completed.
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// Time of the device's next event, if it has one (background work included).
    pub fn next_event(&self) -> Option<u64> {
        self.volume.next_event()
    }

    /// Run the device's next event; `false` if it has none.
    pub fn step(&mut self) -> Result<bool> {
        let Some(e) = self.volume.next_event() else {
            return Ok(false);
        };
        self.now = self.now.max(e);
        self.volume.step()?;
        self.collect();
        Ok(true)
    }

    /// Run the device's events due at or before `t`.
    pub fn run_to(&mut self, t: u64) -> Result<()> {
        while self.volume.next_event().is_some_and(|e| e <= t) {
            self.step()?;
        }
        Ok(())
    }

    /// The requests completed since the last call (and not claimed by `wait`): (tag,
    /// completion time), in completion order.
    pub fn take_completed(&mut self, out: &mut Vec<(u64, u64)>) {
        out.clear();
        out.append(&mut self.done);
    }

    fn collect(&mut self) {
        self.volume.take_completions(&mut self.scratch);
        self.outstanding -= self.scratch.len() as u64;
        self.done.extend_from_slice(&self.scratch);
    }

    /// Submit a request arriving at simulated time `at` (at least [`LiveDevice::now`]);
    /// returns its tag for [`LiveDevice::wait`]. The range must lie within the device, with a
    /// positive length.
    pub fn submit(&mut self, op: Op, offset: u64, len: u64, at: u64) -> Result<u64> {
        if len == 0 || offset.checked_add(len).is_none_or(|end| end > self.logical_bytes()) {
            return Err(Error::Invalid(format!(
                "request: {len} bytes at {offset}; expected a positive length within the device's {} bytes",
                self.logical_bytes()
            )));
        }
        let at = crate::sim::check_time(at.max(self.now), "a live request's arrival")?;
        self.run_to(at)?;
        self.now = at;
        if let Some(w) = &mut self.record {
            w.write_record(&TraceRecord {
                time_ns: at,
                device: 0,
                op,
                offset,
                len,
            })?;
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        let req = Request {
            time_ns: at,
            op,
            offset,
            len,
            stream: 0,
        };
        self.volume.submit(at, &req, tag)?;
        self.outstanding += 1;
        self.requests[op.index()] += 1;
        self.bytes[op.index()] += len;
        self.collect();
        Ok(tag)
    }

    /// Run the device until request `tag` completes; its completion time. Requests that
    /// complete meanwhile are kept for their own `wait`.
    pub fn wait(&mut self, tag: u64) -> Result<u64> {
        loop {
            if let Some(i) = self.done.iter().position(|d| d.0 == tag) {
                return Ok(self.done.remove(i).1);
            }
            if !self.step()? {
                return Err(Error::Invalid(format!(
                    "request {tag}: not outstanding (never submitted, or already claimed)"
                )));
            }
        }
    }

    /// Submit and wait: the request's completion time.
    pub fn io(&mut self, op: Op, offset: u64, len: u64, at: u64) -> Result<u64> {
        let tag = self.submit(op, offset, len, at)?;
        self.wait(tag)
    }

    /// Check the FTL's (and every member's) invariants.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        self.volume.check_invariants()
    }
}

/// The run that replays a live session's recorded native trace on `cfg`'s device, open loop
/// at the recorded times: its result is the session's statistics, as `ssdlab run` gives them
/// (the jobs' latencies, the device's flash work, WAF and the rest).
pub fn replay_config(cfg: &Config, trace: &str) -> Result<Config> {
    let text = format!(
        "name = \"nbd\"\nrw = \"randrw\"\n[trace]\nfile = {}\nformat = \"native\"\n",
        toml::Value::String(trace.to_string())
    );
    let job: crate::workload::job::JobConfig =
        toml::from_str(&text).map_err(|e| Error::Invalid(format!("the replay job: {e}")))?;
    let mut c = cfg.clone();
    c.job = vec![job];
    c.validate()?;
    Ok(c)
}
