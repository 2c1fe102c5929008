//! The flash back end's scheduler: one queue per flash array unit (a plane when the planes of a
//! die work in parallel, otherwise a die), operations dispatched when their unit is free by a
//! policy, program/erase suspension, channel transfers, and the accounting of read/write
//! interference.
//!
//! An operation waits in its unit's queue until the unit is free; it then runs its array phase
//! (tR, tPROG or tBERS). A program first sends its data over the channel; a read sends its data
//! over the channel after tR, while the unit is already free for the next operation (cache
//! read). While a unit is busy, the host program at the head of its queue already sends its
//! data into the die's cache register (cache program), so back-to-back programs keep the array
//! busy. A garbage-collection copy is one operation with two array phases: tR of the victim
//! page, its valid data out over the channel and the destination page in, then tPROG (with
//! copyback, no channel). Channels are gap-filling timelines ([`Timeline`]).
//!
//! Policies (`[device.scheduler] policy`):
//! - `fcfs`: operations start in the order they were queued.
//! - `read-priority`: a queued host read starts before queued programs, erases and garbage
//!   collection work; a program or erase that has waited `max_write_wait` at the head of the
//!   queue goes first, so writes cannot starve.
//!
//! Suspension: a host read arriving while its unit programs or erases (a copy's program phase
//! included) may suspend that operation (`suspend`): the unit takes the suspend latency, serves
//! the queued host reads, and resumes the operation (resume latency plus the time it still had
//! to run). An operation is suspended at most `max_suspensions` times, only when it has more
//! left to run than suspending and resuming cost, and a suspension ends once the suspended
//! operation has waited `max_write_wait`.
//!
//! The scheduler knows nothing of requests or the FTL: an operation carries an opaque token, and
//! the scheduler reports [`Notice`]s (host operations done, units gone idle, timers) for the
//! device to act on. Time only moves forward: every call takes the current simulated time, which
//! never decreases.

use crate::timeline::{Timeline, XFER};
use crate::units::Duration;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// What an operation does on its flash array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Program,
    Erase,
    /// Read a page, move its data over the channel, program another page (garbage collection).
    Copy,
}

/// Host work (reads and writes of host requests) or the firmware's own (garbage collection,
/// wear leveling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Host,
    Internal,
}

/// Dispatch policy of a unit's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    Fcfs,
    ReadPriority,
}

/// Static parameters of the scheduler.
#[derive(Clone, Debug)]
pub struct Params {
    pub policy: Policy,
    /// Longest a program or erase waits at the head of its queue (or suspended) while reads go
    /// first.
    pub max_write_wait_ns: u64,
    /// Suspend latency of a program, when a read may suspend programs.
    pub program_suspend_ns: Option<u64>,
    /// Suspend latency of an erase, when a read may suspend erases.
    pub erase_suspend_ns: Option<u64>,
    pub resume_ns: u64,
    pub max_suspensions: u32,
    /// Report units that go idle ([`Notice::Idle`]).
    pub notify_idle: bool,
    /// Channel time of a whole page: the data in of a copy's destination page (0 with
    /// copyback).
    pub page_xfer_ns: u64,
}

/// Longest array phase or channel transfer of one operation (times are kept in 32 bits).
pub const MAX_OP_NS: u64 = u32::MAX as u64;

/// An operation handed to the scheduler.
#[derive(Clone, Copy, Debug)]
pub struct OpSpec {
    pub kind: Kind,
    pub class: Class,
    pub unit: usize,
    /// Array time: tR, tPROG or tBERS; a copy's tR.
    pub array_ns: u64,
    /// A copy's tPROG.
    pub program_ns: u64,
    /// Channel time: the data out after a read (a copy's data out), the data in before a
    /// program; 0 for none. A copy's data in is a page ([`Params::page_xfer_ns`]).
    pub xfer_ns: u64,
    /// A program's data is available from this time on.
    pub data_ready: u64,
    /// Returned in [`Notice::Done`] (host operations only), with `tag`.
    pub token: u32,
    /// What the token names, for the device: [`TAG_REQUEST`], [`TAG_PAGE`], [`TAG_FIRMWARE`].
    pub tag: u8,
}

/// [`OpSpec::tag`]: the token is a pending request.
pub const TAG_REQUEST: u8 = 0;
/// [`OpSpec::tag`]: the token is a buffered page of the engine's write buffer.
pub const TAG_PAGE: u8 = 1;
/// [`OpSpec::tag`]: the token belongs to the firmware design.
pub const TAG_FIRMWARE: u8 = 2;
/// [`OpSpec::tag`]: the token belongs to the redundancy scheme.
pub const TAG_SCHEME: u8 = 3;
/// [`OpSpec::tag`]: the token is a piece of a streaming read (the device's own table).
pub const TAG_PIECE: u8 = 4;

/// What the scheduler tells the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A host operation finished: a read's data reached the controller, or a program ended.
    Done { token: u32, tag: u8, time: u64 },
    /// A unit has nothing left to do.
    Idle { unit: usize, time: u64 },
    /// A timer set with [`Scheduler::set_timer`] fired while its unit was idle.
    Wake { unit: usize, time: u64 },
}

/// A queued or running operation, kept inline in its unit's queues (no shared slab: the head
/// of a queue sits next to the rest of the unit's state when the unit dispatches). 32 bytes:
/// queues of garbage-collection work can be long, and smaller entries keep them (and the
/// FTL's tables) in cache.
#[derive(Clone, Copy, Debug)]
struct Op {
    kind: Kind,
    class: Class,
    flags: u8,
    suspensions: u8,
    /// Order of submission (wrapping), for fcfs.
    seq: u32,
    token: u32,
    array_ns: u32,
    program_ns: u32,
    xfer_ns: u32,
    /// A read's arrival; a program's data-ready time (once preloaded: when the data reached
    /// the die).
    time: u64,
}

/// `Op::flags`: the read arrived at a unit busy with, or holding queued, programs or erases.
const CONFLICTING: u8 = 1;
/// `Op::flags`: the program's data is already in the die's cache register (cache program).
const PRELOADED: u8 = 2;
/// `Op::flags`: the token's tag ([`OpSpec::tag`]) in these three bits.
const TAG_SHIFT: u8 = 2;
const TAG_BITS: u8 = 7 << TAG_SHIFT;

impl Op {
    /// Array time of the whole operation.
    #[inline]
    fn array_total(&self) -> u64 {
        self.array_ns as u64 + self.program_ns as u64
    }
    #[inline]
    fn is_pe(&self) -> bool {
        self.kind != Kind::Read
    }
    #[inline]
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// Placeholder for an idle unit's current operation.
const IDLE_OP: Op = Op {
    kind: Kind::Read,
    class: Class::Internal,
    flags: 0,
    suspensions: 0,
    seq: 0,
    token: 0,
    array_ns: 0,
    program_ns: 0,
    xfer_ns: 0,
    time: 0,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    /// Running `cur`: array phase(s) from `start` to `end`.
    Busy,
    /// Suspending the operation in `suspended` until `end`.
    Suspending,
}

/// Interference counters of one unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UnitStats {
    /// Host reads that arrived while the unit was busy with, or held queued, programs or
    /// erases (garbage collection included).
    pub conflicting_reads: u64,
    /// Time those reads waited in the queue before their array read started (ns).
    pub conflict_wait_ns: u64,
    /// Programs and erases suspended for reads.
    pub suspensions: u64,
}

#[derive(Clone, Debug)]
struct Unit {
    channel: usize,
    /// Queued host reads.
    reads: VecDeque<Op>,
    /// Queued programs, erases, copies and internal reads, in order.
    others: VecDeque<Op>,
    state: State,
    /// The running operation (meaningful when Busy).
    cur: Op,
    start: u64,
    end: u64,
    /// The suspended operation, if any, and the time it still has to run.
    suspended: Option<Op>,
    remaining: u64,
    /// Since when the head of `others` (or the suspended operation) has waited.
    head_since: u64,
    /// Sequence number of the unit's pending end event (others are stale) and of its timer.
    event_seq: u64,
    timer_seq: u64,
    /// Array time of the queued operations.
    queued_ns: u64,
    /// Queued programs, erases and copies.
    queued_pe: u32,
    /// When the data of the internal reads issued so far has reached the controller: a copy
    /// sends its destination page no earlier.
    internal_ready: u64,
    /// Array time of completed phases.
    busy_ns: u64,
    stats: UnitStats,
}

/// Event keys: (time, sequence << 21 | timer flag << 20 | unit). Sequence numbers are unique,
/// so ties in time resolve in the order events were scheduled.
const UNIT_BITS: u32 = 20;
const TIMER: u64 = 1 << UNIT_BITS;
const UNIT_MASK: u64 = TIMER - 1;
/// Most units the event keys can name.
pub const MAX_UNITS: usize = 1 << UNIT_BITS;

/// The back end: units, channels and the event queue.
pub struct Scheduler {
    p: Params,
    units: Vec<Unit>,
    /// Per unit, when its running and queued work would end (0 when idle): kept flat so that
    /// allocation can scan it quickly.
    eta: Vec<u64>,
    pub channels: Vec<Timeline>,
    events: BinaryHeap<Reverse<(u64, u64)>>,
    seq: u64,
    now: u64,
    /// End of the last array phase or channel transfer booked.
    last_busy: u64,
    pub notices: Vec<Notice>,
}

impl Scheduler {
    /// `unit_channel[u]` is the channel of unit `u`.
    pub fn new(p: Params, unit_channel: Vec<usize>, channels: usize) -> Scheduler {
        assert!(unit_channel.len() <= MAX_UNITS, "too many flash units");
        let units: Vec<Unit> = unit_channel
            .into_iter()
            .map(|channel| Unit {
                channel,
                reads: VecDeque::new(),
                others: VecDeque::new(),
                state: State::Idle,
                cur: IDLE_OP,
                start: 0,
                end: 0,
                suspended: None,
                remaining: 0,
                head_since: 0,
                event_seq: u64::MAX,
                timer_seq: u64::MAX,
                queued_ns: 0,
                queued_pe: 0,
                internal_ready: 0,
                busy_ns: 0,
                stats: UnitStats::default(),
            })
            .collect();
        Scheduler {
            p,
            eta: vec![0; units.len()],
            units,
            channels: vec![Timeline::default(); channels],
            events: BinaryHeap::new(),
            seq: 0,
            now: 0,
            last_busy: 0,
            notices: Vec::new(),
        }
    }

    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn next_event(&self) -> Option<u64> {
        self.events.peek().map(|Reverse((t, _))| *t)
    }

    /// End of the last array phase or channel transfer booked so far.
    pub fn last_busy(&self) -> u64 {
        self.last_busy
    }

    /// The unit runs nothing (and so has nothing queued).
    pub fn is_idle(&self, unit: usize) -> bool {
        self.units[unit].state == State::Idle
    }

    /// A host read arriving now at `unit` would conflict: the unit is busy with (or
    /// suspending) a program or an erase, holds a suspended one, or has one queued.
    #[inline]
    pub fn conflicts(&self, unit: usize) -> bool {
        Self::unit_conflicts(&self.units[unit])
    }

    #[inline]
    fn unit_conflicts(u: &Unit) -> bool {
        let busy_pe = match u.state {
            State::Busy => u.cur.is_pe(),
            State::Suspending => true,
            State::Idle => false,
        };
        busy_pe || u.suspended.is_some() || u.queued_pe > 0
    }

    /// No operation queued or running anywhere.
    pub fn is_quiet(&self) -> bool {
        self.units.iter().all(|u| u.state == State::Idle)
    }

    /// Queue an operation at time `now`.
    pub fn submit(&mut self, now: u64, s: OpSpec) {
        debug_assert!(now >= self.now, "time went backwards: {now} < {}", self.now);
        debug_assert!(
            [s.array_ns, s.program_ns, s.xfer_ns].iter().all(|&t| t <= MAX_OP_NS),
            "operation times must fit 32 bits"
        );
        self.now = now;
        let host_read = s.kind == Kind::Read && s.class == Class::Host;
        let mut op = Op {
            kind: s.kind,
            class: s.class,
            flags: (s.tag << TAG_SHIFT) & TAG_BITS,
            suspensions: 0,
            seq: self.seq as u32,
            token: s.token,
            array_ns: s.array_ns as u32,
            program_ns: s.program_ns as u32,
            xfer_ns: s.xfer_ns as u32,
            time: if s.kind == Kind::Read { now } else { s.data_ready },
        };
        self.seq += 1;
        let ui = s.unit;
        let u = &mut self.units[ui];
        u.queued_ns += op.array_total();
        u.timer_seq = u64::MAX;
        if host_read {
            if Self::unit_conflicts(u) {
                op.flags |= CONFLICTING;
                u.stats.conflicting_reads += 1;
            }
            u.reads.push_back(op);
        } else {
            if op.is_pe() {
                u.queued_pe += 1;
            }
            if u.others.is_empty() && u.suspended.is_none() {
                u.head_since = now;
            }
            u.others.push_back(op);
        }
        let u = &self.units[ui];
        match u.state {
            State::Idle => self.dispatch(ui, now),
            State::Busy if host_read => self.maybe_suspend(ui, now),
            // The head of a queue changes only here (a push into an empty queue) and when the
            // unit dispatches: only then can a program become the one to preload.
            _ if !host_read && u.others.len() == 1 => self.preload(ui, now),
            _ => {}
        }
        self.refresh_eta(ui);
    }

    #[inline]
    fn refresh_eta(&mut self, ui: usize) {
        let u = &self.units[ui];
        self.eta[ui] = if u.state == State::Idle {
            0
        } else {
            u.end + u.queued_ns + u.remaining
        };
    }

    /// Cache program: send the data of the host program at the head of a busy unit's queue now.
    fn preload(&mut self, ui: usize, t: u64) {
        let u = &mut self.units[ui];
        if u.state == State::Idle {
            return;
        }
        let ch = u.channel;
        let Some(op) = u.others.front_mut() else { return };
        if op.has(PRELOADED) || op.kind != Kind::Program || op.class != Class::Host || op.xfer_ns == 0 {
            return;
        }
        let ready = t.max(op.time);
        let (cs, _) = self.channels[ch].reserve(t, ready, op.xfer_ns as u64, XFER);
        let end = cs + op.xfer_ns as u64;
        op.flags |= PRELOADED;
        op.time = end;
        self.last_busy = self.last_busy.max(end);
    }

    /// Fire a [`Notice::Wake`] for `unit` at `at` unless the unit gets work before.
    pub fn set_timer(&mut self, unit: usize, at: u64) {
        let seq = self.push_event(at, unit, true);
        self.units[unit].timer_seq = seq;
    }

    /// Process the earliest event. Returns false when there is none.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((t, key))) = self.events.pop() else {
            return false;
        };
        debug_assert!(t >= self.now);
        self.now = t;
        let ui = (key & UNIT_MASK) as usize;
        let seq = key >> (UNIT_BITS + 1);
        let u = &self.units[ui];
        if key & TIMER != 0 {
            if u.state == State::Idle && u.timer_seq == seq {
                self.notices.push(Notice::Wake { unit: ui, time: t });
            }
            return true;
        }
        if u.event_seq != seq {
            return true; // superseded by a suspension
        }
        match u.state {
            State::Busy => self.complete(ui, t),
            State::Suspending => {
                let u = &mut self.units[ui];
                u.busy_ns += u.end - u.start;
            }
            State::Idle => unreachable!("end event of an idle unit"),
        }
        self.units[ui].state = State::Idle;
        self.dispatch(ui, t);
        self.refresh_eta(ui);
        true
    }

    #[inline]
    fn push_event(&mut self, t: u64, unit: usize, timer: bool) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        let key = seq << (UNIT_BITS + 1) | if timer { TIMER } else { 0 } | unit as u64;
        self.events.push(Reverse((t, key)));
        seq
    }

    /// The unit is busy until `end`: schedule its end event.
    #[inline]
    fn busy_until(&mut self, ui: usize, end: u64) {
        self.last_busy = self.last_busy.max(end);
        let seq = self.push_event(end, ui, false);
        let u = &mut self.units[ui];
        u.end = end;
        u.event_seq = seq;
    }

    /// Start the next operation on an idle unit at `t`, by policy.
    fn dispatch(&mut self, ui: usize, t: u64) {
        let u = &mut self.units[ui];
        debug_assert_eq!(u.state, State::Idle);
        let waited = t.saturating_sub(u.head_since) >= self.p.max_write_wait_ns;
        let take_read = if u.suspended.is_some() {
            if u.reads.is_empty() || waited {
                // Resume the suspended operation.
                u.cur = u.suspended.take().expect("suspended");
                u.head_since = t;
                u.state = State::Busy;
                u.start = t;
                let end = t + self.p.resume_ns + u.remaining;
                u.remaining = 0;
                self.busy_until(ui, end);
                self.preload(ui, t);
                return;
            }
            true
        } else {
            match (u.reads.front(), u.others.front()) {
                (None, None) => {
                    if self.p.notify_idle {
                        self.notices.push(Notice::Idle { unit: ui, time: t });
                    }
                    return;
                }
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(r), Some(o)) => match self.p.policy {
                    // Sequence numbers wrap: compare their distance.
                    Policy::Fcfs => (r.seq.wrapping_sub(o.seq) as i32) < 0,
                    Policy::ReadPriority => !waited,
                },
            }
        };
        let op = if take_read {
            u.reads.pop_front().expect("a read")
        } else {
            u.head_since = t;
            u.others.pop_front().expect("an operation")
        };
        u.queued_ns -= op.array_total();
        if op.is_pe() {
            u.queued_pe -= 1;
        }
        if op.has(CONFLICTING) {
            u.stats.conflict_wait_ns += t - op.time;
        }
        let ch = u.channel;
        let end = match op.kind {
            Kind::Read | Kind::Erase => t + op.array_ns as u64,
            Kind::Program => {
                let ready = t.max(op.time);
                let start = if !op.has(PRELOADED) && op.xfer_ns > 0 {
                    let (cs, _) = self.channels[ch].reserve(t, ready, op.xfer_ns as u64, XFER);
                    cs + op.xfer_ns as u64
                } else {
                    ready
                };
                start + op.array_ns as u64
            }
            Kind::Copy => {
                // tR, the valid data out, the destination page in (after the data of earlier
                // reads of the same page), tPROG.
                let read_end = t + op.array_ns as u64;
                let out = if op.xfer_ns > 0 {
                    let (cs, _) = self.channels[ch].reserve(t, read_end, op.xfer_ns as u64, XFER);
                    cs + op.xfer_ns as u64
                } else {
                    read_end
                };
                let u = &mut self.units[ui];
                u.internal_ready = u.internal_ready.max(out);
                let ready = u.internal_ready;
                let xin = self.p.page_xfer_ns;
                let start = if xin > 0 {
                    let (cs, _) = self.channels[ch].reserve(t, ready, xin, XFER);
                    cs + xin
                } else {
                    ready
                };
                start + op.program_ns as u64
            }
        };
        let u = &mut self.units[ui];
        u.state = State::Busy;
        u.cur = op;
        u.start = t;
        self.busy_until(ui, end);
        self.preload(ui, t);
    }

    /// Array time of the running operation's phases between its start and `t` (all of it when
    /// `t` is past its end). A program's array phase is its last `array_ns`; a copy's are its
    /// first `array_ns` and its last `program_ns`.
    #[inline]
    fn array_time_until(u: &Unit, t: u64) -> u64 {
        let t = t.min(u.end);
        if t <= u.start {
            return 0;
        }
        match u.cur.kind {
            Kind::Copy => {
                let read = (t - u.start).min(u.cur.array_ns as u64);
                let prog_start = u.end - u.cur.program_ns as u64;
                read + t.saturating_sub(prog_start)
            }
            Kind::Program => {
                // Resumed programs (start..end all array time) carry array_ns = 0.
                let phase = (u.cur.array_ns as u64).max(u.cur.program_ns as u64);
                let array_start = if phase == 0 { u.start } else { u.end - phase };
                t.saturating_sub(array_start.max(u.start))
            }
            Kind::Read | Kind::Erase => t - u.start,
        }
    }

    /// The array phase of the unit's current operation ended at `t`.
    fn complete(&mut self, ui: usize, t: u64) {
        let u = &mut self.units[ui];
        u.busy_ns += Self::array_time_until(u, t);
        let op = std::mem::replace(&mut u.cur, IDLE_OP);
        let done = match op.kind {
            Kind::Read if op.xfer_ns > 0 => {
                let ch = u.channel;
                let (cs, _) = self.channels[ch].reserve(t, t, op.xfer_ns as u64, XFER);
                let d = cs + op.xfer_ns as u64;
                self.last_busy = self.last_busy.max(d);
                d
            }
            _ => t,
        };
        match op.class {
            Class::Host => self.notices.push(Notice::Done {
                token: op.token,
                tag: (op.flags & TAG_BITS) >> TAG_SHIFT,
                time: done,
            }),
            Class::Internal => {
                if op.kind == Kind::Read {
                    let u = &mut self.units[ui];
                    u.internal_ready = u.internal_ready.max(done);
                }
            }
        }
    }

    /// A host read arrived at `t` while the unit runs an operation: suspend it if allowed.
    fn maybe_suspend(&mut self, ui: usize, t: u64) {
        let u = &mut self.units[ui];
        let latency = match u.cur.kind {
            Kind::Program | Kind::Copy => self.p.program_suspend_ns,
            Kind::Erase => self.p.erase_suspend_ns,
            Kind::Read => None,
        };
        let Some(latency) = latency else { return };
        // Under fcfs the read may only go first when nothing older is waiting.
        if self.p.policy == Policy::Fcfs && (u.reads.len() > 1 || !u.others.is_empty()) {
            return;
        }
        if u.cur.suspensions as u32 >= self.p.max_suspensions {
            return;
        }
        // The phase a read can interrupt: the program (or erase) itself, not a copy's read or
        // the transfers before a program.
        let phase = match u.cur.kind {
            Kind::Copy => u.cur.program_ns as u64,
            Kind::Program => (u.cur.array_ns as u64).max(u.cur.program_ns as u64),
            _ => u.end - u.start,
        };
        let phase_start = if phase == 0 { u.start } else { u.end - phase };
        let at = t.max(phase_start);
        let remaining = u.end - at;
        if remaining <= latency + self.p.resume_ns {
            return; // waiting costs less than suspending and resuming
        }
        u.busy_ns += Self::array_time_until(u, at);
        let mut op = std::mem::replace(&mut u.cur, IDLE_OP);
        op.suspensions = op.suspensions.saturating_add(1);
        // What is left is a program (or erase) phase, all array time once resumed.
        if op.kind == Kind::Copy {
            op.kind = Kind::Program;
        }
        op.array_ns = 0;
        op.program_ns = 0;
        u.stats.suspensions += 1;
        u.suspended = Some(op);
        u.remaining = remaining;
        u.head_since = at;
        u.state = State::Suspending;
        u.start = at;
        self.busy_until(ui, at + latency);
    }

    /// When a program queued now on `unit` could start, as far as the unit's queue tells.
    #[inline]
    pub fn backlog_end(&self, unit: usize, now: u64) -> u64 {
        self.eta[unit].max(now)
    }

    /// When a host read queued now on `unit` could start, as far as the unit's state tells:
    /// after everything queued (first come first served) or, when reads go first, after the
    /// running operation (a suspension may start it sooner still).
    #[inline]
    pub fn read_start(&self, unit: usize, now: u64) -> u64 {
        let u = &self.units[unit];
        match (self.p.policy, u.state) {
            (Policy::Fcfs, _) => self.backlog_end(unit, now),
            (Policy::ReadPriority, State::Idle) => now,
            (Policy::ReadPriority, _) => u.end.max(now),
        }
    }

    /// [`Scheduler::backlog_end`] of every unit, before taking the current time into account
    /// (0 for an idle unit).
    #[inline]
    pub fn etas(&self) -> &[u64] {
        &self.eta
    }

    /// Array time of completed phases plus the part of the running phase before `t`.
    pub fn busy_at(&self, unit: usize, t: u64) -> u64 {
        let u = &self.units[unit];
        let running = match u.state {
            State::Idle => 0,
            State::Busy => Self::array_time_until(u, t),
            State::Suspending => t.min(u.end).saturating_sub(u.start),
        };
        u.busy_ns + running
    }

    pub fn unit_stats(&self, unit: usize) -> UnitStats {
        self.units[unit].stats
    }
}

/// Operations a host read may suspend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suspendable {
    Program,
    Erase,
}

/// The flash scheduler: per-unit queues, dispatch policy, suspension.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// `read-priority` (queued host reads before programs, erases and GC work) or `fcfs`.
    #[serde(default = "default_policy")]
    pub policy: crate::scheduler::Policy,
    /// A program or erase that has waited this long at the head of its queue (or suspended)
    /// goes before queued reads.
    #[serde(default = "default_max_write_wait")]
    pub max_write_wait: Duration,
    /// Operations a host read may suspend: `[]`, `["program"]`, `["erase"]` or both.
    #[serde(default)]
    pub suspend: Vec<Suspendable>,
    /// Time from a suspend command until the die can read, for a program.
    #[serde(default = "default_program_suspend")]
    pub program_suspend_time: Duration,
    /// Likewise for an erase.
    #[serde(default = "default_erase_suspend")]
    pub erase_suspend_time: Duration,
    /// Extra time to resume a suspended operation.
    #[serde(default)]
    pub resume_time: Duration,
    /// Most suspensions of one operation.
    #[serde(default = "default_max_suspensions")]
    pub max_suspensions: u32,
    /// Where the choices come from.
    #[serde(default)]
    pub source: String,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

fn default_policy() -> crate::scheduler::Policy {
    crate::scheduler::Policy::ReadPriority
}

fn default_max_write_wait() -> Duration {
    Duration(5_000_000)
}

fn default_program_suspend() -> Duration {
    Duration(100_000)
}

fn default_erase_suspend() -> Duration {
    Duration(700_000)
}

fn default_max_suspensions() -> u32 {
    4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched(policy: Policy, psusp: Option<u64>, esusp: Option<u64>) -> Scheduler {
        Scheduler::new(
            Params {
                policy,
                max_write_wait_ns: 10_000,
                program_suspend_ns: psusp,
                erase_suspend_ns: esusp,
                resume_ns: 5,
                max_suspensions: 2,
                notify_idle: false,
                page_xfer_ns: 0,
            },
            vec![0],
            1,
        )
    }

    fn op(kind: Kind, class: Class, array_ns: u64, token: u32) -> OpSpec {
        OpSpec {
            kind,
            class,
            unit: 0,
            array_ns,
            program_ns: 0,
            xfer_ns: 0,
            data_ready: 0,
            token,
            tag: TAG_REQUEST,
        }
    }

    fn run(s: &mut Scheduler) -> Vec<(u32, u64)> {
        while s.step() {}
        s.notices
            .drain(..)
            .filter_map(|n| match n {
                Notice::Done { token, time, .. } => Some((token, time)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_scheduler_is_quiet_exactly_when_nothing_is_queued_or_running() {
        let mut s = sched(Policy::Fcfs, None, None);
        assert!(s.is_quiet(), "nothing submitted yet");
        // A program of 100 ns at 0, a read of 10 ns behind it: busy until 110.
        s.submit(0, op(Kind::Program, Class::Host, 100, 1));
        s.submit(0, op(Kind::Read, Class::Host, 10, 2));
        assert!(!s.is_quiet(), "a program running");
        assert!(s.step());
        assert_eq!(s.next_event(), Some(110));
        assert!(!s.is_quiet(), "the read running");
        assert!(s.step());
        assert!(s.is_quiet(), "both done");
    }

    #[test]
    fn fcfs_serves_in_order_and_read_priority_overtakes_queued_programs() {
        for (policy, read_done) in [(Policy::Fcfs, 300 + 10), (Policy::ReadPriority, 100 + 10)] {
            let mut s = sched(policy, None, None);
            s.submit(0, op(Kind::Program, Class::Host, 100, 1));
            s.submit(1, op(Kind::Program, Class::Host, 200, 2));
            s.submit(2, op(Kind::Read, Class::Host, 10, 3));
            let done = run(&mut s);
            let t = |k| done.iter().find(|d| d.0 == k).unwrap().1;
            assert_eq!(t(3), read_done, "{policy:?}");
            assert_eq!(s.unit_stats(0).conflicting_reads, 1);
        }
    }

    #[test]
    fn a_read_suspends_a_program_once_it_is_worth_it() {
        let mut s = sched(Policy::ReadPriority, Some(20), None);
        s.submit(0, op(Kind::Program, Class::Host, 1000, 1));
        s.submit(100, op(Kind::Read, Class::Host, 50, 2));
        let done = run(&mut s);
        // Suspended at 100 for 20 ns; read 120..170; resume 5 + the 900 left: 1075.
        assert_eq!(done, vec![(2, 170), (1, 1075)]);
        assert_eq!(s.unit_stats(0).suspensions, 1);
        assert_eq!(s.busy_at(0, 10_000), 100 + 20 + 50 + 5 + 900);
        // Near its end the program is not suspended: 1000 - 980 = 20 <= 20 + 5.
        let mut s = sched(Policy::ReadPriority, Some(20), None);
        s.submit(0, op(Kind::Program, Class::Host, 1000, 1));
        s.submit(980, op(Kind::Read, Class::Host, 50, 2));
        assert_eq!(run(&mut s), vec![(1, 1000), (2, 1050)]);
    }

    #[test]
    fn suspensions_are_capped_per_operation() {
        let mut s = sched(Policy::ReadPriority, None, Some(10));
        s.submit(0, op(Kind::Erase, Class::Internal, 10_000, 0));
        // Three reads far apart: the first two suspend the erase, the third waits for it.
        for (i, t) in [1000u64, 3000, 5000].into_iter().enumerate() {
            while s.next_event().is_some_and(|e| e <= t) {
                s.step();
            }
            s.submit(t, op(Kind::Read, Class::Host, 50, i as u32));
        }
        let done = run(&mut s);
        assert_eq!(done[0], (0, 1000 + 10 + 50));
        assert_eq!(done[1], (1, 3000 + 10 + 50));
        assert_eq!(s.unit_stats(0).suspensions, 2);
        // Erase: 1000 + 10 + 50 + 5 resume, then 2000 - 1065 ... ends after both suspensions.
        let erase_end = 10_000 + (10 + 50 + 5) * 2;
        assert_eq!(done[2], (2, erase_end + 50));
    }

    #[test]
    fn writes_do_not_starve_behind_reads() {
        let mut s = sched(Policy::ReadPriority, None, None);
        s.submit(0, op(Kind::Read, Class::Host, 100, 0));
        s.submit(0, op(Kind::Program, Class::Host, 500, 1));
        s.submit(0, op(Kind::Read, Class::Host, 100, 2));
        // A read every 100 ns for 50 µs: one is always queued when the unit frees up.
        let mut t = 0;
        let mut k = 3;
        while t < 50_000 {
            t += 100;
            while s.next_event().is_some_and(|e| e <= t) {
                s.step();
            }
            s.submit(t, op(Kind::Read, Class::Host, 100, k));
            k += 1;
        }
        let done = run(&mut s);
        let program = done.iter().find(|d| d.0 == 1).unwrap().1;
        // The program waited max_write_wait (10 µs) at the head of the queue, then ran.
        assert_eq!(program, 10_000 + 500);
        // Read priority held until then: 100 reads went before it.
        assert!(done.iter().filter(|d| d.1 <= 10_000).count() >= 100);
    }

    #[test]
    fn a_read_behind_a_queued_program_conflicts_and_its_wait_is_counted() {
        for (policy, read_done) in [(Policy::Fcfs, 300 + 10), (Policy::ReadPriority, 100 + 10)] {
            let mut s = sched(policy, None, None);
            // The unit reads (0..100) with a program queued when the second read arrives.
            s.submit(0, op(Kind::Read, Class::Host, 100, 1));
            s.submit(1, op(Kind::Program, Class::Host, 200, 2));
            s.submit(2, op(Kind::Read, Class::Host, 10, 3));
            let done = run(&mut s);
            assert!(done.contains(&(3, read_done)), "{policy:?}: {done:?}");
            let st = s.unit_stats(0);
            // It waited from its arrival at 2 until its tR started, 10 before it ended.
            assert_eq!(
                (st.conflicting_reads, st.conflict_wait_ns),
                (1, read_done - 10 - 2),
                "{policy:?}"
            );
        }
    }

    #[test]
    fn a_copy_is_busy_for_its_read_and_program_not_its_transfers() {
        let mut s = sched(Policy::Fcfs, None, None);
        let copy = OpSpec {
            program_ns: 200,
            xfer_ns: 50,
            ..op(Kind::Copy, Class::Internal, 25, 0)
        };
        // First copy from 1000: tR to 1025, data out to 1075, tPROG to 1275. The second:
        // tR to 1300, data out to 1350, tPROG to 1550.
        s.submit(1000, copy);
        s.submit(1000, copy);
        let mut at = |t: u64| {
            while s.next_event().is_some_and(|e| e <= t) {
                s.step();
            }
            s.busy_at(0, t)
        };
        assert_eq!(at(1050), 25);
        assert_eq!(at(1175), 25 + 100);
        assert_eq!(at(1290), 225 + 15);
        assert_eq!(at(1450), 225 + 25 + 100);
        assert_eq!(at(10_000), 2 * 225);
        assert_eq!(s.channels[0].busy_ns, 2 * 50);
    }

    #[test]
    fn only_host_programs_send_their_data_while_the_unit_is_busy() {
        for (class, read_done) in [
            // Cache program: the data crosses during the erase, tPROG starts at 1000.
            (Class::Host, 1000 + 200 + 10),
            // A garbage-collection program sends its data when it starts.
            (Class::Internal, 1000 + 50 + 200 + 10),
        ] {
            let mut s = sched(Policy::Fcfs, None, None);
            s.submit(0, op(Kind::Erase, Class::Internal, 1000, 0));
            s.submit(
                0,
                OpSpec {
                    xfer_ns: 50,
                    ..op(Kind::Program, class, 200, 1)
                },
            );
            s.submit(0, op(Kind::Read, Class::Host, 10, 2));
            let done = run(&mut s);
            assert!(done.contains(&(2, read_done)), "{class:?}: {done:?}");
        }
    }

    #[test]
    fn a_units_backlog_ends_after_its_running_and_queued_work() {
        let mut s = sched(Policy::Fcfs, None, None);
        assert_eq!(s.backlog_end(0, 7), 7, "idle: now");
        // Programs of 100, 200 and 300 ns at 0: the first runs 0..100, the others wait.
        for (token, array_ns) in [(1, 100), (2, 200), (3, 300)] {
            s.submit(0, op(Kind::Program, Class::Host, array_ns, token));
        }
        assert_eq!(s.backlog_end(0, 0), 100 + 200 + 300);
        // At 100 the second starts (ends at 300), the third is queued: still 600.
        s.step();
        assert_eq!(s.backlog_end(0, 100), 300 + 300);
        s.step();
        assert_eq!(s.backlog_end(0, 300), 600);
        assert_eq!(run(&mut s), vec![(1, 100), (2, 300), (3, 600)]);
        assert_eq!(s.backlog_end(0, 600), 600);
    }

    #[test]
    fn under_fcfs_a_read_suspends_a_program_only_when_nothing_older_waits() {
        // Alone behind the program: suspended at 100 for 20 ns, read 120..170, resumed.
        let mut s = sched(Policy::Fcfs, Some(20), None);
        s.submit(0, op(Kind::Program, Class::Host, 1000, 1));
        s.submit(100, op(Kind::Read, Class::Host, 50, 2));
        assert_eq!(run(&mut s), vec![(2, 170), (1, 1075)]);
        assert_eq!(s.unit_stats(0).suspensions, 1);
        // A second program queued before the read: the read keeps its turn, after both.
        let mut s = sched(Policy::Fcfs, Some(20), None);
        s.submit(0, op(Kind::Program, Class::Host, 1000, 1));
        s.submit(1, op(Kind::Program, Class::Host, 1000, 2));
        s.submit(100, op(Kind::Read, Class::Host, 50, 3));
        assert_eq!(run(&mut s), vec![(1, 1000), (2, 2000), (3, 2050)]);
        assert_eq!(s.unit_stats(0).suspensions, 0);
    }
}
