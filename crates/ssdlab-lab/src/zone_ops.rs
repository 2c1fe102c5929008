//! Zone management timed command by command, as the ZN540's own measurements were made
//! (NVMeBenchmarks' `zns_state_machine_perf`: `partial_zone_reset.cpp`, `finish_test.cpp`,
//! `close_test.cpp`, `explicit_versus_implicit.cpp`): one queue, each command submitted when
//! the one before it completes, one-LBA writes, a second of idle where the programs sleep, and
//! the timed commands' latency from submission to completion. Each test runs on `zones`
//! zones in turn, from the first, on a fresh drive, and reports each timed command's mean.

use crate::device::Device;
use crate::request::{Op, Request, ZoneAction};
use crate::{Config, Error, Result};
use serde::{Deserialize, Serialize};

/// One of the measurement programs, with its parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneTest {
    /// `partial_zone_reset`: open the zone explicitly, write `lbas` LBAs, idle, reset (timed:
    /// `reset`).
    PartialReset { lbas: u64 },
    /// `finish_test`: open explicitly, write `lbas` LBAs, idle, finish (timed: `finish`); after
    /// every zone, each finished zone reset (timed: `reset_finished`).
    Finish { lbas: u64 },
    /// `close_test`: write all but the zone's last LBA (opened explicitly first, or opened
    /// implicitly by the first write), idle, close (timed: `close` / `close_implicit`), idle,
    /// write the last LBA (timed: `close_write` / `close_implicit_write`).
    Close { explicit: bool },
    /// `explicit_versus_implicit`: `lbas` one-LBA writes or appends from the zone's start,
    /// each timed, the zone opened explicitly first (`write_explicit`, `append_explicit`) or
    /// by the first command (`write_implicit_opened`, then `write_implicit`; appends alike).
    Io { append: bool, explicit: bool, lbas: u64 },
}

/// A timed command's mean latency over the zones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timed {
    pub name: String,
    pub mean_us: f64,
    pub count: u64,
}

/// What a test measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneTestResult {
    pub test: ZoneTest,
    pub zones: u32,
    pub timed: Vec<Timed>,
}

impl ZoneTestResult {
    /// The mean of the timed command `name` (µs), NaN if the test has none.
    pub fn mean_us(&self, name: &str) -> f64 {
        self.timed
            .iter()
            .find(|t| t.name == name)
            .map_or(f64::NAN, |t| t.mean_us)
    }
}

/// Sums of one timed command's latencies.
#[derive(Default)]
struct Sum {
    ns: u128,
    n: u64,
}

struct Bench {
    dev: Device,
    /// When the next command is submitted: the last completion (or the end of an idle).
    t: u64,
    lba: u64,
    zone: u64,
    sums: Vec<(&'static str, Sum)>,
}

const IDLE_NS: u64 = 1_000_000_000;

impl Bench {
    fn cmd(&mut self, op: Op, zone: u64, lba: u64, timed: Option<&'static str>) -> Result<()> {
        let req = Request {
            time_ns: self.t,
            op,
            offset: zone * self.zone + lba * self.lba,
            len: self.lba,
            stream: 0,
        };
        let done = self.dev.run_request(self.t, &req)?;
        if let Some(name) = timed {
            let i = match self.sums.iter().position(|(n, _)| *n == name) {
                Some(i) => i,
                None => {
                    self.sums.push((name, Sum::default()));
                    self.sums.len() - 1
                }
            };
            self.sums[i].1.ns += (done - self.t) as u128;
            self.sums[i].1.n += 1;
        }
        self.t = done;
        Ok(())
    }
    fn idle(&mut self) {
        self.t += IDLE_NS;
    }
    fn writes(&mut self, zone: u64, from: u64, n: u64, op: Op, timed: Option<&'static str>) -> Result<()> {
        for i in from..from + n {
            crate::sim::check_interrupt()?;
            // Appends name the zone's start; the device picks the LBA.
            let lba = if op == Op::Append { 0 } else { i };
            self.cmd(op, zone, lba, timed)?;
        }
        Ok(())
    }
}

/// Run `test` on `zones` zones of a fresh drive of `config` (a zoned design).
pub fn run(config: &Config, test: ZoneTest, zones: u32) -> Result<ZoneTestResult> {
    let Some(zc) = config
        .device
        .ftl
        .zones
        .as_ref()
        .filter(|_| config.device.ftl.design == "zns")
    else {
        return Err(Error::Invalid(format!(
            "zone test {test:?}: device {} has no zones; expected a zoned design (device.ftl.design = \"zns\")",
            config.device.name
        )));
    };
    let (lba, zone, cap) = (zc.lba.0, zc.size.0, zc.capacity.0 / zc.lba.0);
    if zones == 0 || zones > zc.count {
        return Err(Error::Invalid(format!(
            "zone test: {zones} zones; expected 1 to the device's {}",
            zc.count
        )));
    }
    let dev = Device::new(&config.device, config.precondition.seed)?;
    let mut b = Bench {
        dev,
        t: 0,
        lba,
        zone,
        sums: Vec::new(),
    };
    let open = Op::Zone(ZoneAction::Open, false);
    for k in 0..zones as u64 {
        match test {
            ZoneTest::PartialReset { lbas } => {
                b.cmd(open, k, 0, None)?;
                b.writes(k, 0, lbas.min(cap), Op::Write, None)?;
                b.idle();
                b.cmd(Op::Zone(ZoneAction::Reset, false), k, 0, Some("reset"))?;
            }
            ZoneTest::Finish { lbas } => {
                b.cmd(open, k, 0, None)?;
                b.writes(k, 0, lbas.min(cap), Op::Write, None)?;
                b.idle();
                b.cmd(Op::Zone(ZoneAction::Finish, false), k, 0, Some("finish"))?;
            }
            ZoneTest::Close { explicit } => {
                if explicit {
                    b.cmd(open, k, 0, None)?;
                }
                b.writes(k, 0, cap - 1, Op::Write, None)?;
                b.idle();
                let (close, write) = if explicit {
                    ("close", "close_write")
                } else {
                    ("close_implicit", "close_implicit_write")
                };
                b.cmd(Op::Zone(ZoneAction::Close, false), k, 0, Some(close))?;
                b.idle();
                b.cmd(Op::Write, k, cap - 1, Some(write))?;
                // The programs reset the zones between tests; here each zone is left full
                // (a full zone holds no open or active resource).
            }
            ZoneTest::Io { append, explicit, lbas } => {
                let op = if append { Op::Append } else { Op::Write };
                let n = lbas.min(cap);
                let (first, rest) = match (append, explicit) {
                    (false, true) => ("write_explicit", "write_explicit"),
                    (false, false) => ("write_implicit_opened", "write_implicit"),
                    (true, true) => ("append_explicit", "append_explicit"),
                    (true, false) => ("append_implicit_opened", "append_implicit"),
                };
                if explicit {
                    b.cmd(open, k, 0, None)?;
                }
                b.writes(k, 0, 1, op, Some(first))?;
                b.writes(k, 1, n - 1, op, Some(rest))?;
                // Finished, so the next zone's open finds the limits free.
                b.idle();
                b.cmd(Op::Zone(ZoneAction::Finish, false), k, 0, None)?;
            }
        }
    }
    if let ZoneTest::Finish { .. } = test {
        for k in 0..zones as u64 {
            b.cmd(Op::Zone(ZoneAction::Reset, false), k, 0, Some("reset_finished"))?;
        }
    }
    let timed = b
        .sums
        .into_iter()
        .map(|(name, s)| Timed {
            name: name.into(),
            mean_us: if s.n == 0 {
                f64::NAN
            } else {
                s.ns as f64 / s.n as f64 / 1e3
            },
            count: s.n,
        })
        .collect();
    Ok(ZoneTestResult { test, zones, timed })
}

#[cfg(test)]
mod tests {
    //! The small zoned drive of the design's own tests: 2 planes of 8 KiB pages, one CPU taking
    //! 10 µs per command, a SATA link with 5 µs per command; zones of 128 KiB capacity (16
    //! pages, 8 per plane), reset 100 µs + 1 µs per LBA.
    use super::*;

    fn config() -> Config {
        crate::config::parse_config(&text(), "z.toml", std::path::Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The drive's run file with `from` replaced by `to` (once).
    fn toml(from: &str, to: &str) -> String {
        let t = text();
        assert!(t.contains(from), "{from}");
        t.replacen(from, to, 1)
    }

    fn text() -> String {
        let timing = crate::config::TEST_SLC_TIMING;
        format!(
            "[device]\nname = \"zoned\"\n[device.geometry]\nchannels = 2\nways = 1\nblocks_per_plane = 12\n\
             pages_per_block = 4\npage_size = \"8KiB\"\nmapping_unit = \"4KiB\"\noverprovisioning = 0.1\n\
             {timing}design = \"zns\"\nwrite_buffer = \"32KiB\"\n[device.ftl.zones]\ncount = 4\nsize = \"256KiB\"\n\
             capacity = \"128KiB\"\nmax_open = 2\nmax_active = 2\nreset_time = \"100us\"\nreset_lba_time = \"1us\"\n\
             [device.controller]\ncpus = 1\ncommand_time = \"10us\"\nqueue_depth = 1\n"
        )
    }

    #[test]
    fn each_timed_command_is_its_own_time_from_submission() {
        let c = config();
        // An empty zone finished: the command (10 µs) and its completion on the link (5 µs);
        // reset afterwards, full and holding nothing: + 100 µs of firmware time.
        let f = run(&c, ZoneTest::Finish { lbas: 0 }, 3).unwrap();
        assert_eq!((f.mean_us("finish"), f.timed[0].count), (15.0, 3));
        assert_eq!((f.mean_us("reset_finished"), f.timed[1].count), (115.0, 3));
        // One LBA in an open zone, still in the buffer: nothing to erase, 100 + 1 µs.
        let r = run(&c, ZoneTest::PartialReset { lbas: 1 }, 2).unwrap();
        assert_eq!(r.mean_us("reset"), 116.0);
        assert!(r.mean_us("finish").is_nan());
        // One-LBA writes one at a time: each the time a lone write takes on the device.
        let io = run(
            &c,
            ZoneTest::Io {
                append: false,
                explicit: true,
                lbas: 5,
            },
            1,
        )
        .unwrap();
        assert_eq!(io.timed[0].count, 5);
        let mut d = Device::new(&c.device, 1).unwrap();
        let w = Request {
            time_ns: 0,
            op: Op::Write,
            offset: 0,
            len: 4096,
            stream: 0,
        };
        let lone = d.run_request(0, &w).unwrap() as f64 / 1e3;
        assert_eq!(io.mean_us("write_explicit"), lone);
        // The implicit test names the first write apart.
        let io = run(
            &c,
            ZoneTest::Io {
                append: true,
                explicit: false,
                lbas: 3,
            },
            2,
        )
        .unwrap();
        let counts: Vec<_> = io.timed.iter().map(|t| (t.name.as_str(), t.count)).collect();
        assert_eq!(counts, [("append_implicit_opened", 2), ("append_implicit", 4)]);
        // An append's and an implicit open's firmware time add to the command's own, exactly.
        let text = toml(
            "reset_lba_time = \"1us\"\n",
            "reset_lba_time = \"1us\"\nappend_time = \"2us\"\nopen_time = \"3us\"\n",
        );
        let slow = crate::config::parse_config(&text, "z.toml", std::path::Path::new(".")).unwrap();
        let w = run(
            &slow,
            ZoneTest::Io {
                append: false,
                explicit: false,
                lbas: 3,
            },
            1,
        )
        .unwrap();
        assert_eq!(w.mean_us("write_implicit_opened") - w.mean_us("write_implicit"), 3.0);
        assert_eq!(w.mean_us("write_implicit"), lone);
        let a = run(
            &slow,
            ZoneTest::Io {
                append: true,
                explicit: true,
                lbas: 3,
            },
            1,
        )
        .unwrap();
        assert_eq!(a.mean_us("append_explicit"), lone + 2.0);
        // Zone times above a second, and a command latency above one, are refused by key.
        for (from, to, key) in [
            (
                "reset_lba_time = \"1us\"\n",
                "reset_lba_time = \"1us\"\nopen_time = \"2s\"\n",
                "zones.open_time",
            ),
            (
                "command_overhead = \"5us\"\n",
                "command_overhead = \"5us\"\ncommand_latency = \"2s\"\n",
                "device.host.command_latency",
            ),
        ] {
            let bad = toml(from, to);
            let e = crate::config::parse_config(&bad, "z.toml", std::path::Path::new("."))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("z.toml:") && e.contains(key) && e.contains("expected at most 1s"),
                "{e}"
            );
        }
        // Not a zoned drive, or zones it lacks: one line.
        let plain = crate::config::load_config("tlc-nvme").unwrap();
        assert!(run(&plain, ZoneTest::Finish { lbas: 0 }, 1)
            .unwrap_err()
            .to_string()
            .contains("has no zones"));
        assert!(run(&c, ZoneTest::Finish { lbas: 0 }, 5)
            .unwrap_err()
            .to_string()
            .contains("expected 1 to the device's 4"));
    }
}
