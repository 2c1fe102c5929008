//! fio's `zonemode=zbd`: a job on a zoned device, as fio's zbd.c runs it.
//!
//! fio keeps its own view of each zone's write pointer and turns the offsets its job would
//! use into ones a zoned device accepts:
//! - **writes** go to the write pointer of the zone the offset falls in (`zbd_adjust_block`),
//!   shortened to the zone's capacity; a sequential job jumps from a zone's capacity to the
//!   next zone's start (`setup_zbd_zone_mode`), which this source does by running the job over
//!   the zones' capacities laid end to end and placing each offset in its zone. A write to a
//!   full zone first resets it (fio issues the reset itself, `__zbd_reset_zone`, counted in
//!   the job's `zone_resets`). With `max_open_zones` or `job_max_open_zones` reached, a write
//!   to a zone not yet open goes to one of the open ones (`pick_random_zone_idx`: the
//!   offset's share of the range picks it). A zone whose unwritten rest is shorter than the
//!   block size is finished (`zbd_finish_zone`) unless `write_zone_remainders`, and the write
//!   goes on in the next zone.
//! - with `zone_reset_threshold` and `zone_reset_frequency`, once the range's zones hold more
//!   than the threshold's share of the range, every (1 / frequency)-th write resets its zone
//!   first (fio's simulated garbage collection).
//! - **reads** stay below the write pointer unless `read_beyond_wp`: a read into a zone with
//!   less than a block written moves to the next zone that has one, at its start (the job
//!   ends when none has); a random read lands at the offset's position modulo the written
//!   part, a read is shortened to end at the write pointer.
//! - with `zone_append` (`write_mode=zone_append`, the SPDK plugin's `zone_append=1`) each
//!   write is sent as a zone append to its zone's start; the device picks where it goes,
//!   which is the write pointer fio expects.
//!
//! What differs from fio: fio waits for a job's writes under way before it resets a zone
//! (`io_u_quiesce`); here the reset is queued behind them (the device takes commands in
//! order, so none of them lands after it). The range is aligned to whole zones as fio aligns
//! it (`zbd_zone_align_file_sizes`). Trims (fio resets zones for them) are refused.

use super::job::{JobConfig, Rw, SizeOrShare};
use crate::request::{Op, Request, RequestSource, ZoneAction};
use crate::units::Size;

/// The zones a device has, as a job sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceZones {
    /// Zone size and capacity in bytes.
    pub size: u64,
    pub capacity: u64,
    pub count: u64,
    /// The device's open-zone limit (0: none).
    pub max_open: u32,
}

/// The job as it runs on a device with `zones` (None: not zoned): its zone keys checked
/// against `zonemode` and the device, counts of zones (`100z`) made bytes, the device's zone
/// size and capacity filled in. `Err((key, message))`.
pub fn resolve(job: &JobConfig, zones: Option<&DeviceZones>) -> Result<JobConfig, (&'static str, String)> {
    if job.zonemode != "zbd" {
        let set = [
            ("zonesize", job.zonesize.is_some()),
            ("zonecapacity", job.zonecapacity.is_some()),
            ("max_open_zones", job.max_open_zones.is_some()),
            ("job_max_open_zones", job.job_max_open_zones > 0),
            ("ignore_zone_limits", job.ignore_zone_limits),
            ("zone_reset_threshold", job.zone_reset_threshold > 0.0),
            ("zone_reset_frequency", job.zone_reset_frequency > 0.0),
            ("read_beyond_wp", job.read_beyond_wp),
            ("write_zone_remainders", job.write_zone_remainders),
            ("zone_append", job.zone_append),
        ];
        if let Some((k, _)) = set.iter().find(|s| s.1) {
            return Err((
                k,
                format!(
                    "set with zonemode = \"{}\"; expected zonemode=zbd (a zoned device) or no zone keys",
                    job.zonemode
                ),
            ));
        }
        return Ok(job.clone());
    }
    let Some(z) = zones else {
        return Err((
            "zonemode",
            "zbd needs a zoned device; expected a device with design \"zns\" and [device.ftl.zones]".into(),
        ));
    };
    if let Some(s) = job.zonesize.filter(|s| s.0 != z.size) {
        return Err((
            "zonesize",
            format!(
                "got {} bytes; the device's zones are {} bytes; expected {} or no zonesize",
                s.0, z.size, z.size
            ),
        ));
    }
    if job.fs.is_some() || job.hpc.is_some() || job.trace.is_some() {
        return Err((
            "zonemode",
            "zbd applies to fio's own generated jobs; expected no fs, hpc or trace with it".into(),
        ));
    }
    if matches!(job.rw, Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite) {
        return Err((
            "rw",
            "trims in zbd mode (fio resets zones for them) are not modelled; expected reads and writes".into(),
        ));
    }
    if let Some(m) = job.max_open_zones {
        if z.max_open > 0 && m > z.max_open && !job.ignore_zone_limits {
            return Err((
                "max_open_zones",
                format!(
                    "got {m}, above the device's {} open zones; expected at most {} (or ignore_zone_limits)",
                    z.max_open, z.max_open
                ),
            ));
        }
    }
    // fio's max_open_zones bounds the zones all clones write at once; each clone here keeps
    // its own count, so a limit the clones could pass together is refused.
    let max_open = job.max_open_zones.unwrap_or(z.max_open);
    let writes = !matches!(job.rw, Rw::Read | Rw::RandRead);
    if writes && max_open > 0 && job.numjobs > 1 {
        let per = job.job_max_open_zones;
        if per == 0 || per as u64 * job.numjobs as u64 > max_open as u64 {
            return Err((
                "max_open_zones",
                format!(
                    "{max_open} open zones shared by {} clones, which are not modelled together; expected job_max_open_zones at most {} (each clone's own share)",
                    job.numjobs,
                    (max_open / job.numjobs).max(1)
                ),
            ));
        }
    }
    let mut j = job.clone();
    j.zonesize = Some(Size(z.size));
    // A zoned device's zone capacity is its own (fio ignores zonecapacity for one).
    j.zonecapacity = Some(Size(z.capacity));
    j.max_open_zones = Some(job.max_open_zones.unwrap_or(z.max_open));
    let zoned = |v: &Option<SizeOrShare>, k: &'static str| -> Result<Option<SizeOrShare>, (&'static str, String)> {
        v.as_ref().map(|v| v.with_zones(z.size)).transpose().map_err(|m| (k, m))
    };
    j.size = zoned(&job.size, "size")?;
    j.offset = zoned(&job.offset, "offset")?;
    j.offset_increment = zoned(&job.offset_increment, "offset_increment")?;
    Ok(j)
}

/// fio's view of each zone's write pointer (bytes from the zone's start), one per zone of the
/// device, shared by the jobs of a run as fio's zone information is shared by the jobs on one
/// file: a job that starts after another (`stonewall`) reads what the other wrote.
#[derive(Clone, Debug)]
pub struct WritePointers(std::sync::Arc<[std::sync::atomic::AtomicU64]>);

impl WritePointers {
    /// `zones` zones, all empty.
    pub fn new(zones: u64) -> WritePointers {
        WritePointers((0..zones).map(|_| std::sync::atomic::AtomicU64::new(0)).collect())
    }
    fn get(&self, z: u64) -> u64 {
        self.0[z as usize].load(std::sync::atomic::Ordering::Relaxed)
    }
    fn set(&self, z: u64, v: u64) {
        self.0[z as usize].store(v, std::sync::atomic::Ordering::Relaxed)
    }
}

/// A job's requests on a zoned device (fio's zbd mode; the module's text says what it does).
pub struct ZbdSource {
    inner: Box<dyn RequestSource>,
    /// Bytes of the range the inner job runs over: the zones' capacities end to end.
    span: u64,
    first_zone: u64,
    zone: u64,
    cap: u64,
    /// fio's view of the write pointers (the device's zones, shared with the run's other jobs).
    wps: WritePointers,
    /// Zones in the range.
    zones: usize,
    /// Zones written and not full, in the order they opened.
    open: Vec<usize>,
    limit: usize,
    append: bool,
    beyond_wp: bool,
    remainders: bool,
    random: bool,
    min_bs: u64,
    /// A write held back behind the reset or finish issued for it.
    held: Option<Request>,
    /// Bytes written in the range's zones, and the reset countdown (threshold, frequency).
    valid: u64,
    reset_at: u64,
    every: u64,
    countdown: u64,
    resets: u64,
    finishes: u64,
}

impl ZbdSource {
    /// The source of `job` (resolved by [`resolve`]) on a device of `capacity` bytes; `make`
    /// builds the job's own generator for a job and a capacity. `wps`: the write pointers the
    /// run's jobs share (None: this job's own, every zone empty).
    pub fn new(
        job: &JobConfig,
        capacity: u64,
        wps: Option<&WritePointers>,
        make: &dyn Fn(&JobConfig, u64) -> crate::Result<Box<dyn RequestSource>>,
    ) -> crate::Result<ZbdSource> {
        let bad = |m: String| crate::Error::Invalid(format!("zonemode=zbd: {m}"));
        let zone = job
            .zonesize
            .map(|s| s.0)
            .ok_or_else(|| bad("the zone size is not known".into()))?;
        let cap = job.zonecapacity.map_or(zone, |s| s.0);
        let (off, size) = job.region(capacity).map_err(bad)?;
        // fio aligns the range to whole zones: its start up, its end down.
        let first_zone = off.div_ceil(zone);
        let end_zone = (off.saturating_add(size) / zone).min(capacity / zone);
        if end_zone <= first_zone {
            return Err(bad(format!(
                "the range at offset {off} of {size} bytes holds no whole zone of {zone} bytes; expected a range of at least one zone (e.g. size=1z)"
            )));
        }
        let zones = end_zone - first_zone;
        let span = zones * cap;
        let mut inner_job = job.clone();
        inner_job.offset = None;
        inner_job.offset_increment = None;
        inner_job.size = Some(SizeOrShare::Bytes(Size(span)));
        inner_job.fill_device = false;
        let inner = make(&inner_job, span)?;
        let min_bs = job
            .block_sizes()
            .map_err(bad)?
            .iter()
            .map(|b| b.0)
            .min()
            .unwrap_or(4096)
            .max(1);
        let limit = match (job.job_max_open_zones, job.max_open_zones.unwrap_or(0)) {
            (0, 0) => 0,
            (0, m) | (m, 0) => m,
            (a, b) => a.min(b),
        } as usize;
        let every = if job.zone_reset_frequency > 0.0 {
            (1.0 / job.zone_reset_frequency).min(u32::MAX as f64) as u64
        } else {
            0
        };
        Ok(ZbdSource {
            inner,
            span,
            first_zone,
            zone,
            cap,
            wps: wps.cloned().unwrap_or_else(|| WritePointers::new(capacity / zone)),
            zones: zones as usize,
            open: Vec::new(),
            limit,
            append: job.zone_append,
            beyond_wp: job.read_beyond_wp,
            remainders: job.write_zone_remainders,
            random: job.rw.random(),
            min_bs,
            held: None,
            valid: 0,
            reset_at: (job.zone_reset_threshold * span as f64) as u64,
            every,
            countdown: every.max(1),
            resets: 0,
            finishes: 0,
        })
    }

    fn start(&self, k: usize) -> u64 {
        (self.first_zone + k as u64) * self.zone
    }

    /// Zone `k` of the range's write pointer.
    fn wp(&self, k: usize) -> u64 {
        self.wps.get(self.first_zone + k as u64)
    }

    fn set_wp(&self, k: usize, v: u64) {
        self.wps.set(self.first_zone + k as u64, v)
    }

    /// A management command for zone `k`, at `time` (the request's).
    fn manage(&self, action: ZoneAction, k: usize, time: u64) -> Request {
        Request {
            time_ns: time,
            op: Op::Zone(action, false),
            offset: self.start(k),
            len: self.min_bs.min(4096),
            stream: 0,
        }
    }

    fn read(&mut self, mut r: Request) -> Option<Request> {
        let (mut k, mut within) = ((r.offset / self.cap) as usize, r.offset % self.cap);
        if self.beyond_wp {
            r.offset = self.start(k) + within;
            r.len = r.len.min(self.cap - within);
            return Some(r);
        }
        let min = self.min_bs;
        if self.wp(k) < min || (!self.random && within + min > self.wp(k)) {
            // The next zone with a block written, wrapping round the range.
            let n = self.zones;
            k = (1..=n).map(|i| (k + i) % n).find(|&i| self.wp(i) >= min)?;
            if !self.random {
                within = 0;
            }
        }
        let range = self.wp(k);
        let within = if range <= r.len {
            0
        } else if self.random {
            (within % (range - r.len)) / min * min
        } else {
            within
        };
        r.offset = self.start(k) + within;
        r.len = r.len.min(range - within) / min * min;
        Some(r)
    }

    fn write(&mut self, r: Request) -> Request {
        let mut k = (r.offset / self.cap) as usize;
        if self.limit > 0 && !self.open.contains(&k) && self.open.len() >= self.limit {
            let i = ((r.offset as u128 * self.open.len() as u128) / self.span.max(1) as u128) as usize;
            k = self.open[i.min(self.open.len() - 1)];
        }
        let rest = self.cap - self.wp(k);
        if rest > 0 && rest < self.min_bs && !self.remainders {
            // The zone's tail is shorter than a block: finish it, write in the next zone.
            self.finishes += 1;
            self.set_wp(k, self.cap);
            self.open.retain(|&z| z != k);
            let finish = self.manage(ZoneAction::Finish, k, r.time_ns);
            let next = (k + 1) % self.zones;
            self.held = Some(Request {
                offset: next as u64 * self.cap,
                ..r
            });
            return finish;
        }
        let mut reset = rest == 0;
        if self.every > 0 && self.valid >= self.reset_at {
            self.countdown -= 1;
            if self.countdown == 0 {
                self.countdown = self.every;
                reset |= self.wp(k) > 0;
            }
        }
        if reset {
            self.resets += 1;
            self.valid -= self.wp(k);
            self.set_wp(k, 0);
            self.open.retain(|&z| z != k);
            self.held = Some(Request {
                offset: k as u64 * self.cap,
                ..r
            });
            return self.manage(ZoneAction::Reset, k, r.time_ns);
        }
        let wp = self.wp(k);
        let room = self.cap - wp;
        let len = if r.len <= room {
            r.len
        } else if self.remainders || room >= self.min_bs {
            if room > self.min_bs {
                room / self.min_bs * self.min_bs
            } else {
                room
            }
        } else {
            room
        };
        self.set_wp(k, wp + len);
        self.valid += len;
        if wp + len == self.cap {
            self.open.retain(|&z| z != k);
        } else if !self.open.contains(&k) {
            self.open.push(k);
        }
        let (op, offset) = if self.append {
            (Op::Append, self.start(k))
        } else {
            (Op::Write, self.start(k) + wp)
        };
        Request { op, offset, len, ..r }
    }
}

impl RequestSource for ZbdSource {
    fn next_request(&mut self, now_ns: u64) -> crate::Result<Option<Request>> {
        if let Some(h) = self.held.take() {
            return Ok(Some(self.write(h)));
        }
        loop {
            let Some(r) = self.inner.next_request(now_ns)? else {
                return Ok(None);
            };
            return Ok(match r.op {
                Op::Read => self.read(r),
                Op::Write | Op::Append => Some(self.write(r)),
                // Refused by `resolve`: the inner job issues no trims.
                Op::Trim | Op::Zone(..) => continue,
            });
        }
    }

    fn report(&self) -> Option<serde_json::Value> {
        let mut m = self
            .inner
            .report()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        m.insert("zone_resets_issued".into(), self.resets.into());
        m.insert("zone_finishes_issued".into(), self.finishes.into());
        Some(serde_json::Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: u64 = 1 << 20; // zones of 1 MiB
    const CAP: u64 = 768 << 10; // 768 KiB writable
    const DEV: DeviceZones = DeviceZones {
        size: Z,
        capacity: CAP,
        count: 16,
        max_open: 4,
    };

    fn job(text: &str) -> JobConfig {
        let mut jobs = crate::workload::fio::parse_job_file(text, "z.fio").unwrap_or_else(|e| panic!("{e}"));
        resolve(&jobs.remove(0), Some(&DEV)).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn source(j: &JobConfig) -> ZbdSource {
        ZbdSource::new(j, 16 * Z, None, &|j, cap| {
            Ok(Box::new(crate::workload::job::JobSource::new(j, cap, 3)?))
        })
        .unwrap()
    }

    fn take(s: &mut ZbdSource, n: usize) -> Vec<Request> {
        (0..n).map_while(|_| s.next_request(0).unwrap()).collect()
    }

    #[test]
    fn sequential_writes_skip_each_zone_s_gap_and_reset_a_full_zone_before_rewriting_it() {
        // Two zones (size=2z), 256 KiB writes: three fill a zone's capacity.
        let j = job("[w]\nzonemode=zbd\nrw=write\nbs=256k\nsize=2z\noffset=1z\ntime_based=1\nruntime=1\n");
        let mut s = source(&j);
        let r = take(&mut s, 8);
        let offs: Vec<(Op, u64)> = r.iter().map(|r| (r.op, r.offset)).collect();
        let w = |o: u64| (Op::Write, o);
        assert_eq!(
            offs,
            vec![
                w(Z),
                w(Z + (256 << 10)),
                w(Z + (512 << 10)),
                w(2 * Z),
                w(2 * Z + (256 << 10)),
                w(2 * Z + (512 << 10)),
                // The range wraps: zone 1 is full, reset, then written from its start.
                (Op::Zone(ZoneAction::Reset, false), Z),
                w(Z),
            ]
        );
        assert_eq!(s.resets, 1);
    }

    #[test]
    fn appends_go_to_the_zone_start_and_sizes_in_zones_are_resolved() {
        let j = job("[a]\nzonemode=zbd\nrw=write\nbs=512k\nzone_append=1\nsize=3z\noffset_increment=3z\n");
        assert_eq!(j.size, Some(SizeOrShare::Bytes(Size(3 * Z))));
        assert_eq!(j.offset_increment, Some(SizeOrShare::Bytes(Size(3 * Z))));
        let mut s = source(&j);
        let r = take(&mut s, 4);
        // 512 KiB into 768: the 256 KiB left is less than a block, so fio finishes the zone
        // and writes on in the next one.
        let finish = |o| (Op::Zone(ZoneAction::Finish, false), o, 4096);
        assert_eq!(
            r.iter().map(|r| (r.op, r.offset, r.len)).collect::<Vec<_>>(),
            vec![
                (Op::Append, 0, 512 << 10),
                finish(0),
                (Op::Append, Z, 512 << 10),
                finish(Z)
            ]
        );
        assert_eq!(s.finishes, 2);
        // With write_zone_remainders the rest is written with a shorter append.
        let j = job("[a]\nzonemode=zbd\nrw=write\nbs=512k\nzone_append=1\nsize=3z\nwrite_zone_remainders=1\n");
        let r = take(&mut source(&j), 3);
        assert_eq!(
            r.iter().map(|r| (r.op, r.offset, r.len)).collect::<Vec<_>>(),
            vec![
                (Op::Append, 0, 512 << 10),
                (Op::Append, 0, 256 << 10),
                (Op::Append, Z, 512 << 10)
            ]
        );
    }

    #[test]
    fn jobs_sharing_the_write_pointers_read_what_another_wrote() {
        // fio's zone information is the file's: a read job started after a write job finds the
        // zones it filled (here 3 of the 4 zones' 768 KiB, written in 64 KiB requests).
        let wps = WritePointers::new(16);
        let make = |j: &JobConfig, shared: Option<&WritePointers>| {
            ZbdSource::new(j, 16 * Z, shared, &|j, cap| {
                Ok(Box::new(crate::workload::job::JobSource::new(j, cap, 3)?))
            })
            .unwrap()
        };
        let w = job("[w]\nzonemode=zbd\nrw=write\nbs=64k\nsize=4z\nio_size=2304k\n");
        let mut writer = make(&w, Some(&wps));
        assert_eq!(take(&mut writer, 40).len(), 36);
        let r = job("[r]\nzonemode=zbd\nrw=randread\nbs=64k\nsize=4z\n");
        for q in take(&mut make(&r, Some(&wps)), 200) {
            assert!(q.offset % Z + q.len <= CAP && q.offset < 3 * Z, "{q:?}");
        }
        // Its own view: nothing written, the read job ends at once.
        assert!(make(&r, None).next_request(0).unwrap().is_none());
    }

    #[test]
    fn reads_stay_below_the_write_pointer() {
        let j = job("[r]\nzonemode=zbd\nrw=randread\nbs=64k\nsize=4z\n");
        let mut s = source(&j);
        // Nothing written: no read has a zone to go to, the job ends.
        assert!(s.next_request(0).unwrap().is_none());
        let mut s = source(&j);
        s.set_wp(2, 128 << 10);
        for r in take(&mut s, 50) {
            assert!(r.offset >= 2 * Z && r.offset + r.len <= 2 * Z + (128 << 10), "{r:?}");
        }
    }

    #[test]
    fn the_open_limit_sends_writes_to_open_zones() {
        // Random 64 KiB writes over 8 zones, one open zone per job: every write goes to the
        // zone opened first until it is full.
        let j = job("[w]\nzonemode=zbd\nrw=randwrite\nbs=64k\nsize=8z\njob_max_open_zones=1\nnumber_ios=24\n");
        let mut s = source(&j);
        let r = take(&mut s, 24);
        let first = r[0].offset / Z;
        assert!(
            r[..12].iter().all(|r| r.offset / Z == first && r.op == Op::Write),
            "{r:?}"
        );
        assert!(r[..12].windows(2).all(|w| w[1].offset == w[0].offset + (64 << 10)));
    }

    #[test]
    fn zone_keys_need_zbd_and_a_zoned_device() {
        let j = crate::workload::fio::parse_job_file("[w]\nrw=write\nzone_append=1\n", "z.fio").unwrap();
        assert_eq!(resolve(&j[0], Some(&DEV)).unwrap_err().0, "zone_append");
        let j = crate::workload::fio::parse_job_file("[w]\nrw=write\nzonemode=zbd\n", "z.fio").unwrap();
        let e = resolve(&j[0], None).unwrap_err();
        assert!(e.0 == "zonemode" && e.1.contains("zoned device"), "{e:?}");
        let j = crate::workload::fio::parse_job_file("[w]\nrw=write\nzonemode=zbd\nzonesize=2m\n", "z.fio").unwrap();
        assert_eq!(resolve(&j[0], Some(&DEV)).unwrap_err().0, "zonesize");
        let j =
            crate::workload::fio::parse_job_file("[w]\nrw=write\nzonemode=zbd\nmax_open_zones=5\n", "z.fio").unwrap();
        assert_eq!(resolve(&j[0], Some(&DEV)).unwrap_err().0, "max_open_zones");
        let j = crate::workload::fio::parse_job_file("[w]\nrw=write\nsize=4z\n", "z.fio").unwrap();
        let e = j[0].region(1 << 30).unwrap_err();
        assert!(e.contains("zonemode=zbd"), "{e}");
    }
}
