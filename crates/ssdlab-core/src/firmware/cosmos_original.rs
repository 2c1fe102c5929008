//! Design "cosmos-original": the FTL the Cosmos OpenSSD board comes with, as seed 002
//! describes it (section 1: it is simple and only guarantees basic reads and writes; it does
//! not use the board's multi-channel structure to serve data in parallel, and uses its DRAM
//! little, so small random writes in particular perform poorly). It is the baseline of the
//! seed's figures 11 to 13.
//!
//! - Page mapping with the page as mapping unit (8 KiB on the board), no write buffer, no
//!   read cache.
//! - Static allocation: logical page `lpn` is always written to plane `lpn % planes`. The
//!   seed's section 4.1.2 contrasts its dynamic allocation (any idle channel takes the next
//!   page) with a static one where logical and physical addresses are tied, under which
//!   parallel write-back needs extra management. Within its plane a page is written
//!   log-structured, with the FTL's GC.
//! - Write-through, one step at a time: a write covering a page only partly, whose page
//!   holds data, first reads that page (read-modify-write); the host data then crosses the
//!   link into the page buffer (over the old data), and every page of the request is
//!   programmed at its static plane. The request completes when its last program ends.
//! - Read: a flash read per mapped page (the whole page crosses the channel), then the link;
//!   pages never written need no flash access.
//! - With the board's `device.controller.queue_depth = 1` the next command starts only when
//!   this one completes: one request's flash work at a time, whatever the channel count.
//!
//! A 4 KiB random write into a page that holds data therefore takes, on an idle board, the
//! sum of: the command's CPU time; tR and 8 KiB over the channel (the old page in); the link
//! (the 4 KiB DMA); 8 KiB over the channel (the page out); tPROG. With the `cosmos-openssd`
//! preset's numbers (68 µs of firmware per command, tR 75 µs, 100 MB/s channels: 81.92 µs per
//! page, 4 KiB DMA at the seed's 60 MB/s: 68.27 µs, no further command overhead, tPROG
//! 1,450 µs) that is 1,825.1 µs, 547.9 IOPS; into a page never written (no read) 1,668.2 µs,
//! 599.5 IOPS. The seed measures 602 IOPS on the fresh board (single
//! thread, no GC). None of these numbers was chosen for this design: the firmware time comes
//! from the seed's remark on its optimised FTL, the rest from the board and its NAND.
//!
//! Counters: `rmw_reads` (pages read for read-modify-write), `pages_written`.

use super::Firmware;
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::mechanisms::{partial_units, Mechanisms, Stage, Token};
use crate::request::Op;
use crate::Result;

#[derive(Default)]
pub struct CosmosOriginal {
    rmw_reads: u64,
    pages_written: u64,
}

/// Build the design for a device configuration.
pub fn make(_cfg: &DeviceConfig) -> Result<Box<dyn Firmware>> {
    Ok(Box::<CosmosOriginal>::default())
}

/// The configuration keys the original FTL reads.
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let g = &cfg.geometry;
    if g.mapping_unit.0 != g.page_size.0 {
        return Err((
            "design".into(),
            format!(
                "got mapping_unit {} bytes with {}-byte pages; expected mapping_unit = page_size: the original FTL maps whole pages",
                g.mapping_unit.0, g.page_size.0
            ),
        ));
    }
    if cfg.ftl.write_buffer.0 != 0 {
        return Err((
            "write_buffer".into(),
            format!(
                "got {} bytes; expected 0: the original FTL writes through, without a write buffer",
                cfg.ftl.write_buffer.0
            ),
        ));
    }
    if cfg.ftl.read_cache.0 != 0 {
        return Err((
            "read_cache".into(),
            format!(
                "got {} bytes; expected 0: the original FTL keeps no read cache",
                cfg.ftl.read_cache.0
            ),
        ));
    }
    Ok(())
}

impl CosmosOriginal {
    /// The host data of write `pid` crosses the link from `earliest` on, then its pages are
    /// programmed.
    fn program(&mut self, dev: &mut dyn Mechanisms, pid: u32, earliest: u64) -> Result<()> {
        let req = dev.pending(pid).req;
        let ready = dev.link(0, earliest, req.len);
        let ps = dev.geo().unit_size;
        let (first, last) = (req.offset / ps, (req.offset + req.len - 1) / ps);
        let planes = dev.geo().planes as u64;
        let p = dev.pending_mut(pid);
        p.stage = Stage::Through;
        p.ready = ready;
        for lpn in first..=last {
            dev.pending_mut(pid).remaining += 1;
            dev.program_units((lpn % planes) as usize, 0, &[lpn], ready, Token::Request(pid))?;
            self.pages_written += 1;
        }
        Ok(())
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        let ps = dev.geo().unit_size;
        let (first, last) = (req.offset / ps, (req.offset + req.len - 1) / ps);
        dev.counters_mut().host_write_units += last - first + 1;
        for lpn in partial_units(&req, ps) {
            let pun = dev.ftl().lookup(lpn);
            if pun != NONE {
                dev.counters_mut().rmw_page_reads += 1;
                self.rmw_reads += 1;
                dev.read_page(pid, pun, 1);
            }
        }
        if dev.pending(pid).remaining == 0 {
            let now = dev.now();
            self.program(dev, pid, now)?;
        }
        Ok(())
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32) {
        let req = dev.pending(pid).req;
        let ps = dev.geo().unit_size;
        for lpn in req.offset / ps..=(req.offset + req.len - 1) / ps {
            dev.counters_mut().host_read_units += 1;
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                dev.counters_mut().unmapped_read_units += 1;
            } else {
                dev.counters_mut().host_page_reads += 1;
                dev.read_page(pid, pun, 1);
            }
        }
        if dev.pending(pid).remaining == 0 {
            dev.deliver(pid, dev.now());
        }
    }
}

impl Firmware for CosmosOriginal {
    fn name(&self) -> &'static str {
        "cosmos-original"
    }

    fn command(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        match req.op {
            Op::Read => self.read(dev, pid),
            Op::Write => self.write(dev, pid)?,
            Op::Trim => {
                dev.trim(&req);
                let c = dev.link(0, dev.now(), 0);
                dev.finish_request(pid, c);
            }
            Op::Append | Op::Zone(..) => return Err(super::no_zones(self.name())),
        }
        Ok(())
    }

    fn parts_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()> {
        match dev.pending(pid).stage {
            Stage::Read => dev.deliver(pid, ready),
            // The old pages are in: the host data follows, then the programs.
            Stage::Rmw => self.program(dev, pid, ready)?,
            Stage::Through => dev.finish_request(pid, ready),
            // The engine's power-protected buffer only (a design keeps its own buffer).
            Stage::Merge | Stage::Merged => {
                return Err(crate::Error::Invalid(format!(
                    "cosmos-original: request {pid} in a stage of the engine's own buffer"
                )))
            }
        }
        Ok(())
    }

    fn op_done(&mut self, _dev: &mut dyn Mechanisms, token: u32, _time: u64) -> Result<()> {
        Err(crate::Error::Invalid(format!(
            "cosmos-original: no flash operation of its own, yet token {token} completed"
        )))
    }

    /// Static allocation: logical page `lpn` lives on plane `lpn % planes`.
    fn home_plane(&self, geo: &crate::geometry::Geometry, lpn: u64) -> Option<usize> {
        Some((lpn % geo.planes as u64) as usize)
    }

    /// Static allocation holds: every mapped logical page lies on plane `lpn % planes` (GC
    /// moves data only within its plane).
    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        let planes = dev.geo().planes as u64;
        for lpn in 0..dev.geo().logical_units {
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                continue;
            }
            let plane = dev.geo().plane_of_block(dev.geo().block_of_unit(pun)) as u64;
            if plane != lpn % planes {
                return Err(format!(
                    "logical page {lpn} on plane {plane}; static allocation puts it on {}",
                    lpn % planes
                ));
            }
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("rmw_reads", self.rmw_reads), ("pages_written", self.pages_written)]
    }
}

#[cfg(test)]
mod tests {
    //! Device: 4 channels of one plane, SLC (tR 25 us, tPROG 200 us), 8 KiB pages over
    //! 100 MB/s channels (81,920 ns), a SATA link at 600 MB/s plus 5 us per command, one CPU
    //! taking 10 us per command, one command at a time.
    use super::*;
    use crate::config::parse_config;
    use crate::device::Device;
    use crate::request::Request;
    use std::path::Path;

    const CMD: u64 = 10_000;
    const R: u64 = 25_000;
    const CH: u64 = 81_920;
    const P: u64 = 200_000;
    const LINK4: u64 = 5_000 + 6_827; // 4 KiB at 600 MB/s, rounded up, with the command
    const LINK8: u64 = 5_000 + 13_654;
    const PAGE: u64 = 8192;

    fn text(unit: &str, extra: &str) -> String {
        let timing = crate::config::TEST_SLC_TIMING;
        format!(
            r#"
[device]
name = "cosmos"
[device.geometry]
channels = 4
ways = 1
blocks_per_plane = 12
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "{unit}"
overprovisioning = 0.5
{timing}design = "cosmos-original"
{extra}
[device.controller]
cpus = 1
command_time = "10us"
queue_depth = 1
"#
        )
    }

    fn device() -> Device {
        let cfg = parse_config(&text("8KiB", ""), "c.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        Device::new(&cfg.device, 1).unwrap()
    }

    fn req(op: Op, offset: u64, len: u64) -> Request {
        Request {
            time_ns: 0,
            op,
            offset,
            len,
            stream: 0,
        }
    }

    fn plane_of(d: &Device, lpn: u64) -> usize {
        d.geo.plane_of_block(d.geo.block_of_unit(d.ftl.lookup(lpn)))
    }

    #[test]
    fn a_partial_page_write_reads_the_old_page_then_takes_the_data_then_programs() {
        let mut d = device();
        // A whole page on an idle device: CPU, link, channel, tPROG; no read.
        assert_eq!(
            d.run_request(0, &req(Op::Write, 5 * PAGE, PAGE)).unwrap(),
            CMD + LINK8 + CH + P
        );
        assert_eq!(d.counters.rmw_page_reads, 0);
        // 4 KiB into that page: the old page is read (tR, channel), the 4 KiB cross the link,
        // the page is programmed (channel, tPROG).
        let t = 10_000_000;
        let done = d.run_request(t, &req(Op::Write, 5 * PAGE + 4096, 4096)).unwrap();
        assert_eq!(done, t + CMD + R + CH + LINK4 + CH + P);
        assert_eq!(done - t, 410_667);
        assert_eq!(d.counters.rmw_page_reads, 1);
        // 4 KiB into a page never written: nothing to read.
        let t = 20_000_000;
        assert_eq!(
            d.run_request(t, &req(Op::Write, 9 * PAGE, 4096)).unwrap(),
            t + CMD + LINK4 + CH + P
        );
        assert_eq!(d.counters.rmw_page_reads, 1);
        d.check_firmware().unwrap();
    }

    #[test]
    fn pages_go_to_their_static_plane() {
        let mut d = device();
        // Pages 5, 6, 7 of four planes: planes 1, 2, 3 (round robin would start at 0), in
        // parallel: the request ends with the last program.
        let done = d.run_request(0, &req(Op::Write, 5 * PAGE, 3 * PAGE)).unwrap();
        assert_eq!([5, 6, 7].map(|l| plane_of(&d, l)), [1, 2, 3]);
        let counter = |d: &Device, name: &str| d.snapshot(d.now()).firmware.iter().find(|c| c.0 == name).unwrap().1;
        assert_eq!((counter(&d, "pages_written"), counter(&d, "rmw_reads")), (3, 0));
        let link = 5_000 + 40_960; // 24 KiB at 600 MB/s
        assert_eq!(done, CMD + link + CH + P);
        // Rewritten, a page stays on its plane.
        d.run_request(1_000_000, &req(Op::Write, 6 * PAGE, PAGE)).unwrap();
        assert_eq!(plane_of(&d, 6), 2);
        // Under GC too: rewrite pages 0..8 until every plane has collected.
        let mut t = 2_000_000;
        for round in 0..40 {
            for l in 0..8 {
                t = d
                    .run_request(t, &req(Op::Write, ((l + round) % 8) * PAGE, PAGE))
                    .unwrap();
            }
        }
        assert!(d.ftl.stats.gc_runs() >= 4, "{}", d.ftl.stats.gc_runs());
        d.check_firmware().unwrap();
        d.ftl.check_invariants().unwrap();
    }

    #[test]
    fn one_command_at_a_time() {
        let mut d = device();
        d.advance_to(0).unwrap();
        // Two whole-page writes at once, to different planes: the second command is taken
        // when the first completes.
        d.submit(0, &req(Op::Write, 0, PAGE), 0).unwrap();
        d.submit(0, &req(Op::Write, PAGE, PAGE), 1).unwrap();
        d.drain().unwrap();
        let mut done = [0; 2];
        for (tag, c) in d.completions.drain(..) {
            done[tag as usize] = c;
        }
        let one = CMD + LINK8 + CH + P;
        assert_eq!(done, [one, 2 * one]);
    }

    #[test]
    fn only_partly_written_pages_that_hold_data_are_read_first_and_every_unit_is_counted() {
        let mut d = device();
        let fw = |d: &Device, name: &str| d.snapshot(d.now()).firmware.iter().find(|c| c.0 == name).unwrap().1;
        let mut t = 0;
        let mut w = |d: &mut Device, off: u64, len: u64| {
            t = d.run_request(t, &req(Op::Write, off, len)).unwrap() + 1;
        };
        w(&mut d, 0, 4 * PAGE);
        assert_eq!(
            (
                d.counters.host_write_units,
                fw(&d, "pages_written"),
                fw(&d, "rmw_reads")
            ),
            (4, 4, 0)
        );
        // 12 KiB from page 0: page 0 whole, page 1's first half: page 1 is read first.
        w(&mut d, 0, 12 * 1024);
        assert_eq!((d.counters.host_write_units, fw(&d, "rmw_reads")), (6, 1));
        // 2 KiB inside page 2 (its head and tail partial): one read, not two.
        w(&mut d, 2 * PAGE + 2048, 2048);
        assert_eq!((d.counters.host_write_units, fw(&d, "rmw_reads")), (7, 2));
        // The second half of page 3 and the first of page 4 (never written): page 3 only.
        w(&mut d, 3 * PAGE + 4096, PAGE);
        assert_eq!((d.counters.host_write_units, fw(&d, "rmw_reads")), (9, 3));
        // The second half of page 1 and the first of page 2, both written: both read.
        w(&mut d, PAGE + 4096, PAGE);
        assert_eq!((d.counters.host_write_units, fw(&d, "rmw_reads")), (11, 5));
        assert_eq!(d.counters.rmw_page_reads, 5);
        assert_eq!(fw(&d, "pages_written"), 4 + 2 + 1 + 2 + 2);
        // A read of pages 1 to 4 (3 KiB short of page 4's end): four units, four page reads;
        // then exactly pages 1 and 2: two more.
        d.run_request(t, &req(Op::Read, PAGE, 4 * PAGE - 3072)).unwrap();
        assert_eq!((d.counters.host_read_units, d.counters.host_page_reads), (4, 4));
        d.run_request(t + 10_000_000, &req(Op::Read, PAGE, 2 * PAGE)).unwrap();
        assert_eq!((d.counters.host_read_units, d.counters.host_page_reads), (6, 6));
        d.check_firmware().unwrap();
    }

    #[test]
    fn preconditioning_places_pages_on_their_static_plane_and_the_check_names_the_design() {
        let mut d = device();
        assert_eq!((d.home_plane(5), d.home_plane(8)), (Some(1), Some(0)));
        let mut place = crate::precondition::Placement::new(&d);
        for lpn in 0..12 {
            place.put(&mut d, 0, lpn).unwrap();
        }
        assert!((0..12).all(|l| plane_of(&d, l) == (l % 4) as usize));
        d.check_invariants().unwrap();
        // A page written elsewhere breaks static allocation: the device's check says which
        // design found it.
        d.ftl.append_stream(2, 0, 13).unwrap();
        let e = d.check_invariants().unwrap_err();
        assert!(
            e.starts_with("cosmos-original design: logical page 13 on plane 2"),
            "{e}"
        );
        // The design issues no flash operation of its own: one reported to it is an error.
        let mut fw = CosmosOriginal::default();
        assert!(fw.op_done(&mut d, 7, 0).is_err());
    }

    #[test]
    fn reads_take_the_flash_read_then_the_link() {
        let mut d = device();
        d.run_request(0, &req(Op::Write, 3 * PAGE, PAGE)).unwrap();
        let t = 1_000_000;
        // 4 KiB of a written page: the whole page is read and crosses the channel.
        assert_eq!(
            d.run_request(t, &req(Op::Read, 3 * PAGE, 4096)).unwrap(),
            t + CMD + R + CH + LINK4
        );
        assert_eq!(d.counters.host_page_reads, 1);
        // A page never written: the link only.
        let t = 2_000_000;
        assert_eq!(
            d.run_request(t, &req(Op::Read, 4 * PAGE, 4096)).unwrap(),
            t + CMD + LINK4
        );
        assert_eq!(d.counters.unmapped_read_units, 1);
        // Trimmed, the page is not read any more.
        d.run_request(3_000_000, &req(Op::Trim, 3 * PAGE, PAGE)).unwrap();
        let t = 4_000_000;
        assert_eq!(
            d.run_request(t, &req(Op::Read, 3 * PAGE, PAGE)).unwrap(),
            t + CMD + LINK8
        );
    }

    #[test]
    fn config_checks_name_the_key() {
        let err = |t: String| {
            parse_config(&t, "c.toml", Path::new("."))
                .expect_err("refused")
                .to_string()
        };
        let e = err(text("4KiB", ""));
        assert!(
            e.contains("device.ftl.design") && e.contains("expected mapping_unit = page_size"),
            "{e}"
        );
        let e = err(text("8KiB", "write_buffer = \"1MiB\""));
        assert!(e.contains("device.ftl.write_buffer") && e.contains("expected 0"), "{e}");
        let e = err(text("8KiB", "read_cache = \"1MiB\""));
        assert!(e.contains("device.ftl.read_cache"), "{e}");
    }
}
