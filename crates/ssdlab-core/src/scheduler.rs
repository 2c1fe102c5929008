//! The flash back end's scheduler: one queue per flash array unit (a plane when the planes of a
//! die work in parallel, otherwise a die), operations dispatched when their unit is free by a
//! policy, program/erase suspension, channel transfers, and the accounting of read/write
//! interference.
//!
//! An operation waits in its unit's queue until the unit is free; it then runs its array phase
//! (tR, tPROG or tBERS). A program first sends its data over the channel; a read sends its data
//! over the channel after tR, while the unit is already free for the next operation (cache
//! read). While a unit is busy, the program at the head of its queue already sends its data into
//! the die's cache register (cache program), so back-to-back programs keep the array busy; a
//! garbage-collection program does so only once the data it copies has been read out. Channels
//! are gap-filling timelines ([`Timeline`]).
//!
//! Policies (`[device.scheduler] policy`):
//! - `fcfs`: operations start in the order they were queued.
//! - `read-priority`: a queued host read starts before queued programs, erases and garbage
//!   collection work; a program or erase that has waited `max_write_wait` at the head of the
//!   queue goes first, so writes cannot starve.
//!
//! Suspension: a host read arriving while its unit programs or erases may suspend that operation
//! (`suspend`): the unit takes the suspend latency, serves the queued host reads, and resumes the
//! operation (resume latency plus the time it still had to run). An operation is suspended at
//! most `max_suspensions` times, only when it has more left to run than suspending and resuming
//! cost, and a suspension ends once the suspended operation has waited `max_write_wait`.
//!
//! The scheduler knows nothing of requests or the FTL: an operation carries an opaque token, and
//! the scheduler reports [`Notice`]s (host operations done, units gone idle, timers) for the
//! device to act on. Time only moves forward: every call takes the current simulated time, which
//! never decreases.

use crate::timeline::{Timeline, XFER};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const NO_OP: u32 = u32::MAX;

/// What an operation does on its flash array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Program,
    Erase,
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
}

/// An operation handed to the scheduler.
#[derive(Clone, Copy, Debug)]
pub struct OpSpec {
    pub kind: Kind,
    pub class: Class,
    pub unit: usize,
    /// Array time: tR, tPROG or tBERS.
    pub array_ns: u64,
    /// Channel time: the data out after a read, the data in before a program; 0 for none.
    pub xfer_ns: u64,
    /// A program's data is available from this time on.
    pub data_ready: u64,
    /// Returned in [`Notice::Done`] (host operations only).
    pub token: u64,
}

/// What the scheduler tells the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A host operation finished: a read's data reached the controller, or a program ended.
    Done { token: u64, time: u64 },
    /// A unit has nothing left to do.
    Idle { unit: usize, time: u64 },
    /// A timer set with [`Scheduler::set_timer`] fired while its unit was idle.
    Wake { unit: usize, time: u64 },
}

#[derive(Clone, Copy, Debug)]
struct Op {
    kind: Kind,
    class: Class,
    /// The read arrived at a unit busy with, or holding queued, programs or erases.
    conflicting: bool,
    suspensions: u32,
    array_ns: u64,
    xfer_ns: u64,
    data_ready: u64,
    arrival: u64,
    seq: u64,
    token: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    /// Running `cur`: its array phase is [start, end].
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
    reads: VecDeque<u32>,
    /// Queued programs, erases and internal reads, in order.
    others: VecDeque<u32>,
    state: State,
    cur: u32,
    start: u64,
    end: u64,
    suspended: u32,
    remaining: u64,
    /// Since when the head of `others` (or the suspended operation) has waited.
    head_since: u64,
    /// Invalidates a scheduled end event when the unit's plan changes (suspension).
    gen: u32,
    timer_gen: u32,
    /// Array time of the queued operations.
    queued_ns: u64,
    /// Queued programs and erases.
    queued_pe: u32,
    /// When the data of the internal reads issued so far has reached the controller: an
    /// internal program (a garbage-collection copy) sends no earlier.
    internal_ready: u64,
    /// A queued program whose data is already in the cache register, and when it got there.
    preloaded: u32,
    preload_end: u64,
    /// Array time of completed phases.
    busy_ns: u64,
    stats: UnitStats,
}

/// The back end: units, channels and the event queue.
pub struct Scheduler {
    p: Params,
    units: Vec<Unit>,
    /// Per unit, when its running and queued work would end (0 when idle): kept flat so that
    /// allocation can scan it quickly.
    eta: Vec<u64>,
    pub channels: Vec<Timeline>,
    ops: Vec<Op>,
    free_ops: Vec<u32>,
    /// (time, sequence, unit, event): event = generation, or a timer's generation with the top
    /// bit set.
    events: BinaryHeap<Reverse<(u64, u64, u32, u32)>>,
    seq: u64,
    now: u64,
    /// End of the last array phase or channel transfer booked.
    last_busy: u64,
    pub notices: Vec<Notice>,
}

const TIMER: u32 = 1 << 31;

impl Scheduler {
    /// `unit_channel[u]` is the channel of unit `u`.
    pub fn new(p: Params, unit_channel: Vec<usize>, channels: usize) -> Scheduler {
        let units: Vec<Unit> = unit_channel
            .into_iter()
            .map(|channel| Unit {
                channel,
                reads: VecDeque::new(),
                others: VecDeque::new(),
                state: State::Idle,
                cur: NO_OP,
                start: 0,
                end: 0,
                suspended: NO_OP,
                remaining: 0,
                head_since: 0,
                gen: 0,
                timer_gen: 0,
                queued_ns: 0,
                queued_pe: 0,
                internal_ready: 0,
                preloaded: NO_OP,
                preload_end: 0,
                busy_ns: 0,
                stats: UnitStats::default(),
            })
            .collect();
        Scheduler {
            p,
            eta: vec![0; units.len()],
            units,
            channels: vec![Timeline::default(); channels],
            ops: Vec::new(),
            free_ops: Vec::new(),
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
        self.events.peek().map(|Reverse((t, ..))| *t)
    }

    /// End of the last array phase or channel transfer booked so far.
    pub fn last_busy(&self) -> u64 {
        self.last_busy
    }

    /// The unit runs nothing (and so has nothing queued).
    pub fn is_idle(&self, unit: usize) -> bool {
        self.units[unit].state == State::Idle
    }

    /// No operation queued or running anywhere.
    pub fn is_quiet(&self) -> bool {
        self.units.iter().all(|u| u.state == State::Idle)
    }

    /// Queue an operation at time `now`.
    pub fn submit(&mut self, now: u64, s: OpSpec) {
        debug_assert!(now >= self.now, "time went backwards: {now} < {}", self.now);
        self.now = now;
        let id = self.alloc(Op {
            kind: s.kind,
            class: s.class,
            conflicting: false,
            suspensions: 0,
            array_ns: s.array_ns,
            xfer_ns: s.xfer_ns,
            data_ready: s.data_ready,
            arrival: now,
            seq: self.seq,
            token: s.token,
        });
        self.seq += 1;
        let ui = s.unit;
        let host_read = s.kind == Kind::Read && s.class == Class::Host;
        let u = &mut self.units[ui];
        u.queued_ns += s.array_ns;
        u.timer_gen = u.timer_gen.wrapping_add(1);
        if host_read {
            let busy_pe = match u.state {
                State::Busy => self.ops[u.cur as usize].kind != Kind::Read,
                State::Suspending => true,
                State::Idle => false,
            };
            if busy_pe || u.suspended != NO_OP || u.queued_pe > 0 {
                self.ops[id as usize].conflicting = true;
                u.stats.conflicting_reads += 1;
            }
            u.reads.push_back(id);
        } else {
            if s.kind != Kind::Read {
                u.queued_pe += 1;
            }
            if u.others.is_empty() && u.suspended == NO_OP {
                u.head_since = now;
            }
            u.others.push_back(id);
        }
        match self.units[ui].state {
            State::Idle => self.dispatch(ui, now),
            State::Busy if host_read => self.maybe_suspend(ui, now),
            _ => self.preload(ui, now),
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

    /// Cache program: send the data of the program at the head of a busy unit's queue now.
    fn preload(&mut self, ui: usize, t: u64) {
        let u = &self.units[ui];
        if u.preloaded != NO_OP || u.state == State::Idle {
            return;
        }
        let Some(&head) = u.others.front() else { return };
        let op = self.ops[head as usize];
        if op.kind != Kind::Program || op.xfer_ns == 0 {
            return;
        }
        let mut ready = t.max(op.data_ready);
        if op.class == Class::Internal {
            // The copy's data must have been read out first: not while an internal read runs
            // (its data is not out yet).
            if u.state == State::Busy
                && self.ops[u.cur as usize].kind == Kind::Read
                && self.ops[u.cur as usize].class == Class::Internal
            {
                return;
            }
            ready = ready.max(u.internal_ready);
        }
        let ch = u.channel;
        let (cs, _) = self.channels[ch].reserve(t, ready, op.xfer_ns, XFER);
        let end = cs + op.xfer_ns;
        self.last_busy = self.last_busy.max(end);
        let u = &mut self.units[ui];
        u.preloaded = head;
        u.preload_end = end;
    }

    /// Fire a [`Notice::Wake`] for `unit` at `at` unless the unit gets work before.
    pub fn set_timer(&mut self, unit: usize, at: u64) {
        let u = &mut self.units[unit];
        u.timer_gen = u.timer_gen.wrapping_add(1);
        let g = (u.timer_gen & !TIMER) | TIMER;
        self.push_event(at, unit, g);
    }

    /// Process the earliest event. Returns false when there is none.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((t, _, ui, g))) = self.events.pop() else {
            return false;
        };
        debug_assert!(t >= self.now);
        self.now = t;
        let ui = ui as usize;
        let u = &self.units[ui];
        if g & TIMER != 0 {
            if u.state == State::Idle && (u.timer_gen & !TIMER) | TIMER == g {
                self.notices.push(Notice::Wake { unit: ui, time: t });
            }
            return true;
        }
        if g != u.gen {
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

    fn alloc(&mut self, op: Op) -> u32 {
        match self.free_ops.pop() {
            Some(i) => {
                self.ops[i as usize] = op;
                i
            }
            None => {
                self.ops.push(op);
                (self.ops.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn push_event(&mut self, t: u64, unit: usize, g: u32) {
        self.events.push(Reverse((t, self.seq, unit as u32, g)));
        self.seq += 1;
    }

    /// Start the next operation on an idle unit at `t`, by policy.
    fn dispatch(&mut self, ui: usize, t: u64) {
        let u = &self.units[ui];
        debug_assert_eq!(u.state, State::Idle);
        let waited = t.saturating_sub(u.head_since) >= self.p.max_write_wait_ns;
        enum Pick {
            Read,
            Other,
            Resume,
        }
        let pick = if u.suspended != NO_OP {
            if !u.reads.is_empty() && !waited {
                Pick::Read
            } else {
                Pick::Resume
            }
        } else {
            match (u.reads.front(), u.others.front()) {
                (None, None) => {
                    if self.p.notify_idle {
                        self.notices.push(Notice::Idle { unit: ui, time: t });
                    }
                    return;
                }
                (Some(_), None) => Pick::Read,
                (None, Some(_)) => Pick::Other,
                (Some(&r), Some(&o)) => match self.p.policy {
                    Policy::Fcfs => {
                        if self.ops[r as usize].seq < self.ops[o as usize].seq {
                            Pick::Read
                        } else {
                            Pick::Other
                        }
                    }
                    Policy::ReadPriority => {
                        if waited {
                            Pick::Other
                        } else {
                            Pick::Read
                        }
                    }
                },
            }
        };
        let u = &mut self.units[ui];
        let id = match pick {
            Pick::Read => u.reads.pop_front().expect("a read"),
            Pick::Other => {
                u.head_since = t;
                u.others.pop_front().expect("an operation")
            }
            Pick::Resume => {
                let id = std::mem::replace(&mut u.suspended, NO_OP);
                u.head_since = t;
                u.state = State::Busy;
                u.cur = id;
                u.start = t;
                u.end = t + self.p.resume_ns + u.remaining;
                u.remaining = 0;
                let (end, gen) = (u.end, u.gen);
                self.last_busy = self.last_busy.max(end);
                self.push_event(end, ui, gen);
                self.preload(ui, t);
                return;
            }
        };
        let op = self.ops[id as usize];
        u.queued_ns -= op.array_ns;
        if op.kind != Kind::Read {
            u.queued_pe -= 1;
        }
        if op.conflicting {
            u.stats.conflict_wait_ns += t - op.arrival;
        }
        let start = match op.kind {
            Kind::Program if u.preloaded == id => {
                u.preloaded = NO_OP;
                t.max(u.preload_end)
            }
            Kind::Program => {
                let mut ready = t.max(op.data_ready);
                if op.class == Class::Internal {
                    ready = ready.max(u.internal_ready);
                }
                if op.xfer_ns > 0 {
                    let ch = u.channel;
                    let (cs, _) = self.channels[ch].reserve(t, ready, op.xfer_ns, XFER);
                    cs + op.xfer_ns
                } else {
                    ready
                }
            }
            Kind::Read | Kind::Erase => t,
        };
        let u = &mut self.units[ui];
        u.state = State::Busy;
        u.cur = id;
        u.start = start;
        u.end = start + op.array_ns;
        let (end, gen) = (u.end, u.gen);
        self.last_busy = self.last_busy.max(end);
        self.push_event(end, ui, gen);
        self.preload(ui, t);
    }

    /// The array phase of the unit's current operation ended at `t`.
    fn complete(&mut self, ui: usize, t: u64) {
        let u = &mut self.units[ui];
        u.busy_ns += u.end - u.start;
        let id = std::mem::replace(&mut u.cur, NO_OP);
        let op = self.ops[id as usize];
        self.free_ops.push(id);
        let done = match op.kind {
            Kind::Read if op.xfer_ns > 0 => {
                let ch = u.channel;
                let (cs, _) = self.channels[ch].reserve(t, t, op.xfer_ns, XFER);
                let d = cs + op.xfer_ns;
                self.last_busy = self.last_busy.max(d);
                d
            }
            _ => t,
        };
        match op.class {
            Class::Host => self.notices.push(Notice::Done {
                token: op.token,
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
        let u = &self.units[ui];
        let op = &self.ops[u.cur as usize];
        let latency = match op.kind {
            Kind::Program => self.p.program_suspend_ns,
            Kind::Erase => self.p.erase_suspend_ns,
            Kind::Read => None,
        };
        let Some(latency) = latency else { return };
        // Under fcfs the read may only go first when nothing older is waiting.
        if self.p.policy == Policy::Fcfs && (u.reads.len() > 1 || !u.others.is_empty()) {
            return;
        }
        if op.suspensions >= self.p.max_suspensions {
            return;
        }
        let at = t.max(u.start);
        let remaining = u.end - at;
        if remaining <= latency + self.p.resume_ns {
            return; // waiting costs less than suspending and resuming
        }
        let cur = u.cur;
        self.ops[cur as usize].suspensions += 1;
        let u = &mut self.units[ui];
        u.busy_ns += at - u.start;
        u.stats.suspensions += 1;
        u.suspended = cur;
        u.cur = NO_OP;
        u.remaining = remaining;
        u.head_since = at;
        u.state = State::Suspending;
        u.start = at;
        u.end = at + latency;
        u.gen = u.gen.wrapping_add(1);
        let (end, gen) = (u.end, u.gen);
        self.push_event(end, ui, gen);
    }

    /// When a program queued now on `unit` could start, as far as the unit's queue tells.
    #[inline]
    pub fn backlog_end(&self, unit: usize, now: u64) -> u64 {
        self.eta[unit].max(now)
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
        let running = if u.state != State::Idle && u.start < t {
            t.min(u.end) - u.start
        } else {
            0
        };
        u.busy_ns + running
    }

    pub fn unit_stats(&self, unit: usize) -> UnitStats {
        self.units[unit].stats
    }
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
            },
            vec![0],
            1,
        )
    }

    fn op(kind: Kind, class: Class, array_ns: u64, token: u64) -> OpSpec {
        OpSpec {
            kind,
            class,
            unit: 0,
            array_ns,
            xfer_ns: 0,
            data_ready: 0,
            token,
        }
    }

    fn run(s: &mut Scheduler) -> Vec<(u64, u64)> {
        while s.step() {}
        s.notices
            .drain(..)
            .filter_map(|n| match n {
                Notice::Done { token, time } => Some((token, time)),
                _ => None,
            })
            .collect()
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
            s.submit(t, op(Kind::Read, Class::Host, 50, i as u64));
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
}
