//! The controller as resources besides the flash: its embedded CPU(s) running firmware code,
//! the host DMA whose speed depends on the transfer size, and a copy inside its DRAM.
//!
//! CPU work is booked on one gap-filling timeline per CPU (the one that can start first), as
//! the flash channels and the host link are: a command's own time (`command_time` +
//! `unit_time` per mapping unit) before the firmware acts on it, `flash_op_time` for every
//! flash operation it issues, and any `memcpy`. A design that waits for work in the CPU
//! gets the time it ends.

use crate::host::xfer_ns;
use crate::host::HostConfig;
use crate::timeline::{self, Timeline};
use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};

/// Host DMA time by transfer size: a table of (size, bytes/s) interpolated linearly in size,
/// or one rate for every size.
#[derive(Clone, Debug)]
pub struct Dma {
    points: Vec<(u64, u64)>,
    rate: u64,
}

impl Dma {
    pub fn new(points: Vec<(u64, u64)>, rate: u64) -> Dma {
        Dma { points, rate }
    }

    /// The DMA curves of `[device.host]` by direction (host to device, device to host): `dma`,
    /// and `read_dma` where given, else `dma` both ways; the link's bandwidth for every size
    /// where neither is.
    pub fn from_config(host: &HostConfig) -> [Dma; 2] {
        let curve = |t: &[(Size, Rate)]| Dma::new(t.iter().map(|&(s, r)| (s.0, r.0)).collect(), host.link_bandwidth());
        let read = if host.read_dma.is_empty() {
            &host.dma
        } else {
            &host.read_dma
        };
        [curve(&host.dma), curve(read)]
    }

    /// Rate (bytes/s) of a transfer of `bytes`.
    pub fn rate(&self, bytes: u64) -> u64 {
        let p = &self.points;
        let Some(&(s0, r0)) = p.first() else {
            return self.rate;
        };
        if bytes <= s0 {
            return r0;
        }
        let i = p.partition_point(|&(s, _)| s < bytes);
        if i == p.len() {
            return p[i - 1].1;
        }
        let (sa, ra) = p[i - 1];
        let (sb, rb) = p[i];
        // ra + (rb - ra) * (bytes - sa) / (sb - sa), in i128 (rates may fall with size).
        let r = ra as i128 + (rb as i128 - ra as i128) * (bytes - sa) as i128 / (sb - sa) as i128;
        r as u64
    }

    /// Time (ns) of a transfer of `bytes`, rounded up.
    #[inline(always)]
    pub fn ns(&self, bytes: u64) -> u64 {
        if self.points.is_empty() {
            return xfer_ns(bytes, self.rate);
        }
        self.table_ns(bytes)
    }

    /// Time (ns) of `bytes` of a transfer of `total` bytes (at the whole transfer's rate),
    /// rounded up.
    #[inline]
    pub fn part_ns(&self, bytes: u64, total: u64) -> u64 {
        if self.points.is_empty() {
            return xfer_ns(bytes, self.rate);
        }
        xfer_ns(bytes, self.rate(total))
    }

    /// [`Dma::ns`] from the table.
    #[inline(never)]
    fn table_ns(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        xfer_ns(bytes, self.rate(bytes))
    }
}

/// The firmware's CPUs.
#[derive(Clone, Debug)]
pub struct Cpu {
    cpus: Vec<Timeline>,
    pub command_ns: u64,
    /// A read command's time (`read_command_time`, else `command_time`).
    pub read_command_ns: u64,
    pub unit_ns: u64,
    pub flash_op_ns: u64,
    /// DRAM copy rate, bytes/s (0: none).
    pub memcpy_rate: u64,
    /// CPU time per garbage collection (`gc_time`).
    pub gc_ns: u64,
    /// Rate at which each unit GC copies passes through DRAM on the CPU, bytes/s (0: free).
    pub gc_copy_rate: u64,
}

impl Cpu {
    pub fn new(c: &ControllerConfig) -> Cpu {
        Cpu {
            cpus: vec![Timeline::default(); c.cpus.max(1) as usize],
            command_ns: c.command_time.0,
            read_command_ns: c.read_command_time.unwrap_or(c.command_time).0,
            unit_ns: c.unit_time.0,
            flash_op_ns: c.flash_op_time.0,
            memcpy_rate: c.memcpy_rate.map_or(0, |r| r.0),
            gc_ns: c.gc_time.0,
            gc_copy_rate: c.gc_copy_rate.map_or(0, |r| r.0),
        }
    }

    /// CPU time of a collection's step that copies `bytes` (`last`: the step that erases the
    /// victim, which also carries the collection's own firmware time).
    pub fn gc_cost(&self, bytes: u64, last: bool) -> u64 {
        let copy = if self.gc_copy_rate == 0 || bytes == 0 {
            0
        } else {
            xfer_ns(bytes, self.gc_copy_rate)
        };
        copy + if last { self.gc_ns } else { 0 }
    }

    /// Book `dur` ns of CPU work at or after `earliest` (`now` is the device time) on the CPU
    /// that can start it first; returns when it ends (`earliest` for no work).
    pub fn book(&mut self, now: u64, earliest: u64, dur: u64) -> u64 {
        if dur == 0 {
            return earliest;
        }
        // The CPU whose booked work ends first; work fills gaps on it in timeline order.
        let i = (0..self.cpus.len())
            .min_by_key(|&i| (self.cpus[i].last_end().max(earliest), i))
            .expect("at least one CPU");
        let (s, _) = self.cpus[i].reserve(now, earliest, dur, timeline::XFER);
        s + dur
    }

    /// CPU time of a command (a read when `read`) of `units` mapping units.
    pub fn command_cost(&self, units: u64, read: bool) -> u64 {
        (if read { self.read_command_ns } else { self.command_ns }) + self.unit_ns * units
    }

    /// Book a copy of `bytes` inside DRAM at or after `earliest`; returns its end.
    pub fn memcpy(&mut self, now: u64, earliest: u64, bytes: u64) -> u64 {
        let d = if self.memcpy_rate == 0 {
            0
        } else {
            xfer_ns(bytes, self.memcpy_rate)
        };
        self.book(now, earliest, d)
    }

    /// Busy time per CPU.
    pub fn busy(&self) -> Vec<u64> {
        self.cpus.iter().map(|c| c.busy_ns).collect()
    }

    /// End of the last work booked.
    pub fn last_end(&self) -> u64 {
        self.cpus.iter().map(Timeline::last_end).max().unwrap_or(0)
    }
}

/// The controller's embedded CPU(s) running the firmware, and how many host commands the
/// firmware takes at once. All zero (the default): firmware time is not modelled.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// CPUs running firmware code; each piece of work goes to the one free first.
    #[serde(default = "one")]
    pub cpus: u32,
    /// CPU time per host command (fetch, decode, completion), before its flash work is issued.
    #[serde(default)]
    pub command_time: Duration,
    /// CPU time per host read command, where it differs from `command_time` (unset: the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_command_time: Option<Duration>,
    /// CPU time per mapping unit of a command (map lookups and updates, buffer bookkeeping).
    #[serde(default)]
    pub unit_time: Duration,
    /// CPU time per flash operation issued (host, GC, prefetch).
    #[serde(default)]
    pub flash_op_time: Duration,
    /// Speed of a copy inside the controller's DRAM (`memcpy`), for designs that copy from the
    /// DMA area into their buffer; unset: such designs are refused.
    #[serde(default)]
    pub memcpy_rate: Option<Rate>,
    /// CPU time per garbage collection or wear-leveling migration (choosing the victim, the
    /// maps' and lists' updates), booked with the victim's erase.
    #[serde(default)]
    pub gc_time: Duration,
    /// Rate at which each unit garbage collection copies passes through the controller's DRAM
    /// on the CPU (a board without copy-back whose firmware moves GC data through a DRAM
    /// buffer), booked before the copy's program; unset: GC's copies cost the CPU nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_copy_rate: Option<Rate>,
    /// Host commands the firmware works on at once (0 = no limit): with 1, a command starts
    /// only when the previous one has completed (a host interface without command queueing).
    #[serde(default)]
    pub queue_depth: u32,
    /// Where the numbers come from.
    #[serde(default)]
    pub source: String,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

impl ControllerConfig {
    /// Whether any of it changes a run (otherwise the device takes its direct path).
    pub fn active(&self) -> bool {
        self.command_time.0 > 0
            || self.read_command_time.is_some_and(|d| d.0 > 0)
            || self.unit_time.0 > 0
            || self.flash_op_time.0 > 0
            || self.gc_time.0 > 0
            || self.gc_copy_rate.is_some()
            || self.queue_depth > 0
    }
}

fn one() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dma_rate_is_interpolated_in_size_and_clamped_outside_the_table() {
        let d = Dma::new(
            vec![(4096, 60_000_000), (8192, 90_000_000), (131072, 170_000_000)],
            4_000_000_000,
        );
        assert_eq!(d.rate(512), 60_000_000);
        assert_eq!(d.rate(4096), 60_000_000);
        assert_eq!(d.rate(6144), 75_000_000);
        assert_eq!(d.rate(8192), 90_000_000);
        // 8192 + (131072 - 8192) / 2 = 69632: half way from 90 to 170 MB/s.
        assert_eq!(d.rate(69632), 130_000_000);
        assert_eq!(d.rate(1 << 20), 170_000_000);
        // 4 KiB at 60 MB/s: 68,267 ns (rounded up).
        assert_eq!(d.ns(4096), 68_267);
        assert_eq!(d.ns(0), 0);
        let flat = Dma::new(vec![], 4_000_000_000);
        assert_eq!(flat.rate(4096), 4_000_000_000);
        assert_eq!(flat.ns(4096), 1_024);
    }

    #[test]
    fn cpu_work_goes_to_the_cpu_free_first_and_queues_behind_earlier_work() {
        let cfg = ControllerConfig {
            cpus: 2,
            ..Default::default()
        };
        let mut c = Cpu::new(&cfg);
        assert_eq!(c.book(0, 0, 100), 100);
        assert_eq!(c.book(0, 0, 100), 100, "the second CPU is free");
        assert_eq!(c.book(0, 0, 50), 150, "both busy until 100");
        assert_eq!(c.book(0, 500, 10), 510);
        assert_eq!(c.book(0, 7, 0), 7, "no work: no wait");
        assert_eq!(c.busy().iter().sum::<u64>(), 260);
        c.memcpy_rate = 60_000_000;
        // 4 KiB at 60 MB/s is 68,267 ns, on the CPU free first (the second, busy until 100).
        assert_eq!(c.memcpy(0, 0, 4096), 100 + 68_267);
        assert_eq!(c.command_cost(2, false), 0);
        let cfg = ControllerConfig {
            command_time: Duration(68_000),
            read_command_time: Some(Duration(30_000)),
            unit_time: Duration(5),
            ..Default::default()
        };
        let c = Cpu::new(&cfg);
        assert_eq!(c.command_cost(2, false), 68_010);
        assert_eq!(c.command_cost(2, true), 30_010);
        assert_eq!(c.gc_cost(4096, true), 0, "GC free unless configured");
        let cfg = ControllerConfig {
            gc_time: Duration(20_000),
            gc_copy_rate: Some(Rate(60_000_000)),
            ..Default::default()
        };
        let c = Cpu::new(&cfg);
        // 4 KiB at 60 MB/s: 68,267 ns; the erasing step adds the collection's 20 us.
        assert_eq!(c.gc_cost(4096, false), 68_267);
        assert_eq!(c.gc_cost(8192, true), 136_534 + 20_000);
        assert_eq!(c.gc_cost(0, false), 0);
        assert_eq!(c.gc_cost(0, true), 20_000);
        assert!(cfg.active());
        let same = Cpu::new(&ControllerConfig {
            command_time: Duration(68_000),
            ..Default::default()
        });
        assert_eq!(same.command_cost(1, true), 68_000, "reads default to command_time");
    }
}
