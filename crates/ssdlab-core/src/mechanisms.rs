//! What a firmware design and a redundancy scheme may use of the device they run in: the
//! [`Mechanisms`] trait (read a page, program units, the host link, the controller's CPU and
//! DMA copies, the scheduler's view of busy units, the FTL's map), and the types they share
//! with the device (a pending host request, whom an operation's completion goes to, the
//! device's counters). The device ([`crate::device::Device`]) implements it; designs and
//! schemes take `&mut dyn Mechanisms`, so neither imports the device nor it them but through
//! their registries.

use crate::ftl::{Ftl, PageDone};
use crate::geometry::Geometry;
use crate::request::Request;
use crate::scheduler::{self, Kind, Scheduler};
use crate::Result;
use serde::Serialize;

/// The device's mechanisms a design or scheme calls. Times are ns of simulated time.
pub trait Mechanisms {
    /// The device's current time.
    fn now(&self) -> u64;
    /// Pending host request `pid`.
    fn pending(&self, pid: u32) -> &Pending;
    fn pending_mut(&mut self, pid: u32) -> &mut Pending;
    fn geo(&self) -> &Geometry;
    fn ftl(&self) -> &Ftl;
    fn ftl_mut(&mut self) -> &mut Ftl;
    /// The flash scheduler (which units are busy, when a read could start).
    fn sched(&self) -> &Scheduler;
    fn counters_mut(&mut self) -> &mut DeviceCounters;
    /// Whether host data crosses the link page by page (`device.host.streaming`).
    fn streaming(&self) -> bool;
    /// The scheduler unit (plane or die) of physical unit `pun`.
    fn unit_of_pun(&self, pun: u32) -> usize;
    /// A flash read of `units` units of the page holding `pun`, as a part of request `pid`.
    fn read_page(&mut self, pid: u32, pun: u32, units: u64);
    /// A streaming read's page read: its data crosses the link as soon as it is in.
    fn read_piece(&mut self, pid: u32, pun: u32, units: u64);
    /// A flash read of the page holding `pun` as a part of read `pid`, for a scheme.
    fn scheme_read(&mut self, pid: u32, pun: u32);
    /// A flash read reported to `token`.
    fn flash_read(&mut self, pun: u32, units: u64, token: Token);
    /// Book `bytes` on link direction `dir` (0: host to device, 1: device to host) at or after
    /// `earliest`; returns the end of the transfer.
    fn link(&mut self, dir: usize, earliest: u64, bytes: u64) -> u64;
    /// Send read `pid`'s data to the host from `ready` on and complete it.
    fn deliver(&mut self, pid: u32, ready: u64);
    /// Report request `pid` complete at `t`.
    fn finish_request(&mut self, pid: u32, t: u64);
    /// Queue an operation on scheduler unit `unit`.
    fn unit_op(&mut self, unit: usize, kind: Kind, array_ns: u64, xfer_bytes: u64, data_ready: u64, token: Token);
    /// Drop the map entries of a trim request.
    fn trim(&mut self, req: &Request);
    /// Program `lpns` (at most a page) on `plane`'s frontier `stream` once the data is in at
    /// `ready`; the program is reported to `token`.
    fn program_units(
        &mut self,
        plane: usize,
        stream: usize,
        lpns: &[u64],
        ready: u64,
        token: Token,
    ) -> Result<PageDone>;
    /// Program `lpn` on the least busy of `planes`.
    fn program_on(&mut self, planes: &mut dyn Iterator<Item = usize>, lpn: u64, ready: u64, token: Token)
        -> Result<()>;
    /// `dur` ns of firmware work on the controller's CPU at or after `earliest`; returns its end.
    fn cpu(&mut self, earliest: u64, dur: u64) -> u64;
    /// A DRAM copy of `bytes` on the controller's CPU at or after `earliest`; returns its end.
    fn memcpy(&mut self, earliest: u64, bytes: u64) -> u64;
    /// The plane a design or scheme always writes `lpn` to, if any.
    fn home_plane(&self, lpn: u64) -> Option<usize>;
    /// One more part for request `pid` to wait for.
    fn add_part(&mut self, pid: u32);
    /// A part of request `pid` ended at `time`.
    fn part_done(&mut self, pid: u32, time: u64) -> Result<()>;
    /// The plane the next host page of frontier `stream` goes to.
    fn choose_plane(&mut self, stream: usize) -> usize;
    /// Array time of a read and of a program per page type.
    fn array_times(&self) -> (&[u64], &[u64]);
    /// The FTL logical units holding host unit `lpn`.
    fn fill_units(&self, lpn: u64, out: &mut dyn FnMut(u64));
    /// Whether channel `ch` has nothing queued or under way.
    fn channel_idle(&self, ch: usize) -> bool;
    /// Whether physical unit `pun` is in the engine's write buffer.
    fn buffered(&self, pun: u32) -> bool;
}

/// Counters of the device layer (the FTL and the scheduler keep their own).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct DeviceCounters {
    pub host_read_units: u64,
    pub host_write_units: u64,
    pub host_trim_units: u64,
    /// Flash page reads serving host reads.
    pub host_page_reads: u64,
    /// Flash page reads for read-modify-write of partial mapping units.
    pub rmw_page_reads: u64,
    /// Host read units never written (served without flash access).
    pub unmapped_read_units: u64,
    /// Host read units served from the write buffer.
    pub buffer_read_units: u64,
    /// Writes that waited for write-buffer space.
    pub buffer_stalls: u64,
    /// Power-protected buffer: page programs held until the old data of a partial unit
    /// in them (or in an earlier page of their block) was read.
    pub rmw_held_programs: u64,
}

impl DeviceCounters {
    /// Counts since `earlier`.
    pub fn since(&self, e: &DeviceCounters) -> DeviceCounters {
        DeviceCounters {
            host_read_units: self.host_read_units - e.host_read_units,
            host_write_units: self.host_write_units - e.host_write_units,
            host_trim_units: self.host_trim_units - e.host_trim_units,
            host_page_reads: self.host_page_reads - e.host_page_reads,
            rmw_page_reads: self.rmw_page_reads - e.rmw_page_reads,
            unmapped_read_units: self.unmapped_read_units - e.unmapped_read_units,
            buffer_read_units: self.buffer_read_units - e.buffer_read_units,
            buffer_stalls: self.buffer_stalls - e.buffer_stalls,
            rmw_held_programs: self.rmw_held_programs - e.rmw_held_programs,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A read waiting for its flash pages.
    Read,
    /// A write waiting for its read-modify-write reads (or for buffer space).
    Rmw,
    /// A write to a power-protected buffer, acknowledged without waiting for its
    /// read-modify-write reads: not yet in the buffer (waiting for space).
    Merge,
    /// As `Merge`, in the buffer and acknowledged, its reads still under way (the pages
    /// holding its partial units wait for them).
    Merged,
    /// A write-through write waiting for its programs.
    Through,
}

/// A host request under way.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    pub tag: u64,
    pub req: Request,
    pub stage: Stage,
    /// Flash operations (or other parts) still to finish.
    pub remaining: u32,
    /// Latest completion of the parts done so far.
    pub ready: u64,
    /// Streaming: a write's link transfer ends here (its data arriving at an even rate
    /// before); a read's bytes not yet sent to the host.
    pub stream: u64,
}

/// The flash reads of one read request: consecutive units of one page (in the request's
/// order) are read with one flash read.
#[derive(Clone, Copy, Debug)]
pub struct PageReads {
    page: u64,
    first: u32,
    units: u64,
}

impl Default for PageReads {
    fn default() -> Self {
        PageReads {
            page: u64::MAX,
            first: 0,
            units: 0,
        }
    }
}

impl PageReads {
    /// Unit `pun` is read from flash for request `pid`.
    #[inline(always)]
    pub fn add<D: Mechanisms + ?Sized>(&mut self, dev: &mut D, pid: u32, pun: u32) {
        let page = pun as u64 / dev.geo().units_per_page as u64;
        if page == self.page {
            self.units += 1;
            return;
        }
        self.flush(dev, pid);
        (self.page, self.first, self.units) = (page, pun, 1);
    }

    /// Queue the read of the page being gathered.
    #[inline(always)]
    pub fn flush<D: Mechanisms + ?Sized>(&mut self, dev: &mut D, pid: u32) {
        if self.units > 0 {
            dev.counters_mut().host_page_reads += 1;
            if dev.streaming() {
                dev.read_piece(pid, self.first, self.units);
            } else {
                dev.read_page(pid, self.first, self.units);
            }
            self.units = 0;
        }
    }
}

/// The mapping units (of `unit` bytes) a write covers only partly: its first and its last,
/// each once. A write into them reads their old data first (read-modify-write).
#[inline]
pub fn partial_units(req: &Request, unit: u64) -> impl Iterator<Item = u64> {
    let first = req.offset / unit;
    let last = (req.offset + req.len - 1) / unit;
    let head = !req.offset.is_multiple_of(unit);
    let tail = !(req.offset + req.len).is_multiple_of(unit);
    [(head, first), (tail && (last != first || !head), last)]
        .into_iter()
        .filter_map(|(partial, lpn)| partial.then_some(lpn))
}

/// Whom a flash operation's completion is reported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// A part of pending request `pid`.
    Request(u32),
    /// A page of the engine's write buffer (its first physical unit).
    Page(u32),
    /// The firmware design's own operation.
    Firmware(u32),
    /// The redundancy scheme's own operation.
    Scheme(u32),
    /// A page read of a streaming read (an entry of the device's table of pieces).
    Piece(u32),
}

impl Token {
    pub(crate) fn split(self) -> (u32, u8) {
        match self {
            Token::Request(t) => (t, scheduler::TAG_REQUEST),
            Token::Page(t) => (t, scheduler::TAG_PAGE),
            Token::Firmware(t) => (t, scheduler::TAG_FIRMWARE),
            Token::Scheme(t) => (t, scheduler::TAG_SCHEME),
            Token::Piece(t) => (t, scheduler::TAG_PIECE),
        }
    }
}
