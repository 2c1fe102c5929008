//! A volume: what the host model submits to. It holds one or more member devices, each a
//! simulated SSD with its own timelines, and a [`Layout`] that turns a volume request into
//! member requests. A single device is a volume of one member whose requests pass through
//! unchanged (same tags, same order of events), so a run without `[array]` is what it was.
//!
//! Events: the volume's next event is the earliest of its members' and of its own deferred
//! submissions (a RAID 5 write's phase 1, issued when its phase 0 is done). Members are
//! stepped one event at a time, earliest first (ties to the lower member), so each member
//! sees submissions in non-decreasing time as a lone device does. A volume request completes
//! when its last part does, at that part's completion time.

use super::drive::ProfileDrive;
use super::{Layout, Part};
use crate::device::{Device, Snapshot};
use crate::request::Request;
use crate::Result;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Parts issued to one member, by operation (reads, writes, trims), over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PartCounts {
    pub requests: [u64; 3],
    pub bytes: [u64; 3],
}

/// A member: a simulated SSD, or a measured drive's timing model.
pub enum Member {
    Sim(Box<Device>),
    Drive(Box<ProfileDrive>),
}

impl Member {
    pub fn logical_bytes(&self) -> u64 {
        match self {
            Member::Sim(d) => d.logical_bytes(),
            Member::Drive(d) => d.logical_bytes(),
        }
    }
    #[inline]
    pub fn next_event(&self) -> Option<u64> {
        match self {
            Member::Sim(d) => d.next_event(),
            Member::Drive(d) => d.next_event(),
        }
    }
    #[inline]
    fn step(&mut self) -> Result<()> {
        match self {
            Member::Sim(d) => {
                d.step()?;
            }
            Member::Drive(d) => d.step(),
        }
        Ok(())
    }
    #[inline]
    fn submit(&mut self, t: u64, req: &Request, tag: u64) -> Result<()> {
        match self {
            Member::Sim(d) => d.submit(t, req, tag),
            Member::Drive(d) => {
                d.submit(t, req.op, req.offset, req.len, tag);
                Ok(())
            }
        }
    }
    #[inline]
    fn completions(&mut self) -> &mut Vec<(u64, u64)> {
        match self {
            Member::Sim(d) => &mut d.completions,
            Member::Drive(d) => &mut d.completions,
        }
    }
    pub fn last_activity(&self) -> u64 {
        match self {
            Member::Sim(d) => d.last_activity(),
            Member::Drive(d) => d.last_activity(),
        }
    }
    /// The simulated device (none for a measured drive).
    pub fn device(&self) -> Option<&Device> {
        match self {
            Member::Sim(d) => Some(d),
            Member::Drive(_) => None,
        }
    }
    pub fn device_mut(&mut self) -> Option<&mut Device> {
        match self {
            Member::Sim(d) => Some(d),
            Member::Drive(_) => None,
        }
    }
}

/// A volume request in flight.
#[derive(Default)]
struct Pending {
    tag: u64,
    /// Parts of the current phase not yet complete.
    remaining: u32,
    /// Latest completion among the parts done so far.
    done_at: u64,
    /// Parts of the next phase, issued when the current one is done.
    next: Vec<Part>,
    stream: u32,
}

pub struct Volume {
    pub members: Vec<Member>,
    layout: Box<dyn Layout>,
    /// (tag, completion time) of finished volume requests (arrays; a single member's are its
    /// device's own list).
    completions: Vec<(u64, u64)>,
    pending: Vec<Pending>,
    free: Vec<u32>,
    /// Deferred phases: (time, sequence, pending index).
    deferred: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
    parts: Vec<Part>,
    member_done: Vec<(u64, u64)>,
    /// Parts issued per member.
    pub counts: Vec<PartCounts>,
}

impl Volume {
    /// A volume of one device: requests and completions pass through.
    pub fn single(device: Device) -> Volume {
        Volume::new(vec![Member::Sim(Box::new(device))], Box::new(super::Single))
    }

    /// A volume over `members` laid out by `layout` (which must have as many members).
    pub fn new(members: Vec<Member>, layout: Box<dyn Layout>) -> Volume {
        assert_eq!(members.len(), layout.members(), "one device per member of the layout");
        Volume {
            counts: vec![PartCounts::default(); members.len()],
            members,
            layout,
            completions: Vec::new(),
            pending: Vec::new(),
            free: Vec::new(),
            deferred: BinaryHeap::new(),
            seq: 0,
            parts: Vec::new(),
            member_done: Vec::new(),
        }
    }

    #[inline]
    fn is_single(&self) -> bool {
        self.members.len() == 1
    }

    pub fn layout(&self) -> &dyn Layout {
        self.layout.as_ref()
    }

    /// The volume's capacity: the layout's over its smallest member.
    pub fn logical_bytes(&self) -> u64 {
        let min = self.members.iter().map(Member::logical_bytes).min().unwrap_or(0);
        self.layout.capacity(min)
    }

    /// The simulated members' devices.
    pub fn devices(&self) -> impl Iterator<Item = &Device> {
        self.members.iter().filter_map(Member::device)
    }

    pub fn kick_background(&mut self) -> Result<()> {
        for d in self.members.iter_mut().filter_map(Member::device_mut) {
            d.kick_background()?;
        }
        Ok(())
    }

    /// Time of the next event of any member or of the volume itself.
    #[inline]
    pub fn next_event(&self) -> Option<u64> {
        if self.is_single() {
            return self.members[0].next_event();
        }
        let own = self.deferred.peek().map(|Reverse((t, ..))| *t);
        self.members.iter().filter_map(Member::next_event).chain(own).min()
    }

    /// Process the earliest event.
    #[inline]
    pub fn step(&mut self) -> Result<()> {
        if self.is_single() {
            self.members[0].step()?;
            return Ok(());
        }
        let member = self
            .members
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.next_event().map(|t| (t, i)))
            .min();
        match (self.deferred.peek().map(|Reverse((t, ..))| *t), member) {
            (Some(t), m) if m.is_none_or(|(tm, _)| t <= tm) => {
                let Reverse((t, _, p)) = self.deferred.pop().expect("a deferred phase");
                self.issue_next(t, p)?;
            }
            (_, Some((_, i))) => {
                self.members[i].step()?;
                self.collect(i)?;
            }
            (_, None) => {}
        }
        Ok(())
    }

    /// Submit a volume request arriving at `t`; it completes under `tag`.
    #[inline]
    pub fn submit(&mut self, t: u64, req: &Request, tag: u64) -> Result<()> {
        if self.is_single() {
            // A zone management command moves no data: no I/O counted.
            if !matches!(req.op, crate::request::Op::Zone(..)) {
                let c = &mut self.counts[0];
                c.requests[req.op.index()] += 1;
                c.bytes[req.op.index()] += req.len;
            }
            return self.members[0].submit(t, req, tag);
        }
        let mut parts = std::mem::take(&mut self.parts);
        parts.clear();
        self.layout.split(req.op, req.offset, req.len, &mut parts);
        let first = parts.iter().take_while(|p| p.phase == 0).count();
        let p = match self.free.pop() {
            Some(i) => i,
            None => {
                self.pending.push(Pending::default());
                (self.pending.len() - 1) as u32
            }
        };
        let e = &mut self.pending[p as usize];
        e.tag = tag;
        e.stream = req.stream;
        e.done_at = t;
        e.next.clear();
        e.next.extend_from_slice(&parts[first..]);
        e.remaining = first as u32;
        let res = self.issue(t, p, &parts[..first]);
        self.parts = parts;
        res
    }

    /// Issue `parts` of pending request `p` at `t`.
    fn issue(&mut self, t: u64, p: u32, parts: &[Part]) -> Result<()> {
        let stream = self.pending[p as usize].stream;
        for part in parts {
            let c = &mut self.counts[part.member];
            c.requests[part.op.index()] += 1;
            c.bytes[part.op.index()] += part.len;
            let r = Request {
                time_ns: t,
                op: part.op,
                offset: part.offset,
                len: part.len,
                stream,
            };
            // Each member sees its requests in time order, after its events before them.
            if let Some(e) = self.members[part.member].next_event().filter(|&e| e < t) {
                return Err(crate::Error::Invalid(format!(
                    "volume: a part at {t} ns for member {} whose next event is at {e} ns",
                    part.member
                )));
            }
            self.members[part.member].submit(t, &r, p as u64)?;
            // A part may complete on submission (a buffered write, a trim).
            self.collect(part.member)?;
        }
        Ok(())
    }

    /// Issue the next phase of pending request `p` at `t`.
    fn issue_next(&mut self, t: u64, p: u32) -> Result<()> {
        let next = std::mem::take(&mut self.pending[p as usize].next);
        self.pending[p as usize].remaining = next.len() as u32;
        let res = self.issue(t, p, &next);
        let mut next = next;
        next.clear();
        self.pending[p as usize].next = next;
        res
    }

    /// Account for member `i`'s completed parts.
    fn collect(&mut self, i: usize) -> Result<()> {
        if self.members[i].completions().is_empty() {
            return Ok(());
        }
        std::mem::swap(&mut self.member_done, self.members[i].completions());
        for k in 0..self.member_done.len() {
            let (p, c) = self.member_done[k];
            let e = &mut self.pending[p as usize];
            e.done_at = e.done_at.max(c);
            e.remaining -= 1;
            if e.remaining > 0 {
                continue;
            }
            if e.next.is_empty() {
                self.completions.push((e.tag, e.done_at));
                self.free.push(p as u32);
            } else {
                self.deferred.push(Reverse((e.done_at, self.seq, p as u32)));
                self.seq += 1;
            }
        }
        self.member_done.clear();
        Ok(())
    }

    /// Move the finished volume requests' (tag, completion time) into `out` (emptied first).
    #[inline]
    pub fn take_completions(&mut self, out: &mut Vec<(u64, u64)>) {
        out.clear();
        let src = if self.is_single() {
            self.members[0].completions()
        } else {
            &mut self.completions
        };
        std::mem::swap(out, src);
    }

    /// Cache hints of the upcoming requests' map entries (a single device only: an array's
    /// members see their own parts).
    pub fn prefetch(&self, far: Option<u64>, near: Option<u64>) {
        if let (true, Member::Sim(d)) = (self.is_single(), &self.members[0]) {
            d.prefetch(far, near);
        }
    }

    /// NVMe's Reclaim Unit Handle Update at `t` for the placement identifiers set in `plids`
    /// (FDP: a device alone; the configuration refuses it elsewhere).
    pub fn ruh_update(&mut self, t: u64, plids: u64) -> Result<()> {
        match self.members.as_mut_slice() {
            [Member::Sim(d)] => d.ruh_update(t, plids),
            _ => Err(crate::Error::Invalid(
                "a reclaim unit handle update on an array (FDP is a lone device's)".into(),
            )),
        }
    }

    pub fn set_draining(&mut self) {
        for d in self.members.iter_mut().filter_map(Member::device_mut) {
            d.set_draining();
        }
    }

    pub fn last_activity(&self) -> u64 {
        self.members.iter().map(Member::last_activity).max().unwrap_or(0)
    }

    /// Every member's counters at `t` (none for a measured drive).
    pub fn snapshots(&self, t: u64) -> Vec<Option<Snapshot>> {
        self.members.iter().map(|m| m.device().map(|d| d.snapshot(t))).collect()
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for (i, m) in self.members.iter().enumerate() {
            let Some(d) = m.device() else { continue };
            d.check_invariants().map_err(|m| {
                if self.is_single() {
                    m
                } else {
                    format!("member {i}: {m}")
                }
            })?;
        }
        if self.pending.len() != self.free.len() && self.deferred.is_empty() && self.next_event().is_none() {
            return Err(format!(
                "{} volume requests never completed",
                self.pending.len() - self.free.len()
            ));
        }
        Ok(())
    }
}
