//! Device profiles (seed 000): a drive's measured throughput and latency by access pattern,
//! request size, queue depth and read share, from fio's JSON output, so that a real drive's
//! curves can stand beside simulated ones (`rodi::Curve`).
//!
//! One fio run gives one point. Its jobs are summed: throughput adds up, latency is the mean
//! over all completed I/Os, and the depth is the jobs' outstanding I/Os (each job's
//! `iodepth`, 1 for a synchronous engine: fio caps them so), Iometer's "workers × depth".
//! fio may print notes before the JSON on standard output; they are skipped.
//!
//! A profile file (`ssdlab profile` writes one) is the pretty JSON of [`DeviceProfile`]: the
//! drive's name, the bytes measured (`capacity`, what an array member built from it holds),
//! what was measured (`source`, without a date so that the file depends on its input only)
//! and the points. Between measured points, [`DeviceProfile::throughput`] and
//! [`DeviceProfile::latency`] interpolate linearly in the read share, in log2 of the request
//! size and in log2 of the depth, flat beyond the measured ends; a pattern not measured
//! borrows the other's points.

use super::rodi::Curve;
use crate::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// Sequential or random offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Sequential,
    Random,
}

/// One measured point.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProfilePoint {
    pub pattern: Pattern,
    /// Request size, bytes.
    pub bs: u64,
    /// Outstanding I/Os over all jobs.
    pub depth: u32,
    /// Share of I/Os that read, as asked (`rwmixread`).
    pub read_share: f64,
    pub read_bytes_s: f64,
    pub write_bytes_s: f64,
    /// Mean completion latency over all I/Os, ns.
    pub mean_lat_ns: f64,
}

impl ProfilePoint {
    /// Reads and writes together, MB/s (10^6 bytes).
    pub fn mb_s(&self) -> f64 {
        (self.read_bytes_s + self.write_bytes_s) / 1e6
    }
}

/// Engines whose jobs have one I/O outstanding whatever `iodepth` says.
pub const SYNC_ENGINES: [&str; 5] = ["sync", "psync", "vsync", "pvsync", "pvsync2"];

/// The point of one fio run, from its JSON output (`file` names it in errors).
pub fn point_from_fio_json(text: &str, file: &str) -> Result<ProfilePoint> {
    let bad = |m: String| Error::Invalid(format!("{file}: {m}"));
    let start = text
        .find('{')
        .ok_or_else(|| bad("no JSON object; expected fio's --output-format=json output".into()))?;
    let v: Value = serde_json::from_str(&text[start..])
        .map_err(|e| bad(format!("line {}: {e}; expected fio's JSON output", e.line())))?;
    let jobs = v["jobs"]
        .as_array()
        .filter(|j| !j.is_empty())
        .ok_or_else(|| bad("no jobs; expected fio's JSON output with a \"jobs\" list".into()))?;
    let opt = |j: &Value, k: &str| j["job options"][k].as_str().map(str::to_string);
    let first = &jobs[0];
    let rw = opt(first, "rw").unwrap_or_else(|| "read".into());
    let (pattern, fixed) = match rw.as_str() {
        "read" => (Pattern::Sequential, Some(1.0)),
        "write" => (Pattern::Sequential, Some(0.0)),
        "rw" | "readwrite" => (Pattern::Sequential, None),
        "randread" => (Pattern::Random, Some(1.0)),
        "randwrite" => (Pattern::Random, Some(0.0)),
        "randrw" => (Pattern::Random, None),
        other => {
            return Err(bad(format!(
                "rw \"{other}\"; expected read, write, rw, randread, randwrite or randrw"
            )))
        }
    };
    let read_share = match fixed {
        Some(r) => r,
        None => {
            let mix = opt(first, "rwmixread").map_or(Ok(50.0), |s| {
                s.parse::<f64>()
                    .map_err(|_| bad(format!("rwmixread \"{s}\"; expected a percentage")))
            })?;
            mix / 100.0
        }
    };
    let bs_text = opt(first, "bs").unwrap_or_else(|| "4k".into());
    let bs = crate::workload::fio::fio_size(&bs_text, 1024).map_err(|m| bad(format!("bs \"{bs_text}\": {m}")))?;
    let (mut rd, mut wr, mut ios, mut lat, mut depth) = (0.0, 0.0, 0u64, 0.0, 0u32);
    for j in jobs {
        let num = |d: &str, k: &str| j[d][k].as_f64().unwrap_or(0.0);
        rd += num("read", "bw_bytes");
        wr += num("write", "bw_bytes");
        for d in ["read", "write"] {
            let n = j[d]["total_ios"].as_u64().unwrap_or(0);
            ios += n;
            lat += j[d]["clat_ns"]["mean"].as_f64().unwrap_or(0.0) * n as f64;
        }
        let engine = opt(j, "ioengine").unwrap_or_else(|| "psync".into());
        let d = if SYNC_ENGINES.contains(&engine.as_str()) {
            1
        } else {
            opt(j, "iodepth").and_then(|s| s.parse::<u32>().ok()).unwrap_or(1)
        };
        depth += d;
    }
    Ok(ProfilePoint {
        pattern,
        bs,
        depth,
        read_share,
        read_bytes_s: rd,
        write_bytes_s: wr,
        mean_lat_ns: if ios > 0 { lat / ios as f64 } else { 0.0 },
    })
}

/// Bytes of a block device's start that [`disk_signature`] looks at.
pub const SIGNATURE_BYTES: usize = 128 * 1024;

/// What the first bytes of a block device say it holds, if they carry a known partition
/// table, file system or volume signature: measuring writes over it would destroy it.
/// `head` is the device's first [`SIGNATURE_BYTES`] (or all of it when smaller).
pub fn disk_signature(head: &[u8]) -> Option<&'static str> {
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    // (offset, magic, what); the specific ones before the DOS signature they may carry.
    const KNOWN: &[(usize, &[u8], &str)] = &[
        (512, b"EFI PART", "a GPT partition table"),
        (4096, b"EFI PART", "a GPT partition table (4 KiB sectors)"),
        (3, b"NTFS    ", "an NTFS file system"),
        (3, b"EXFAT   ", "an exFAT file system"),
        (54, b"FAT12   ", "a FAT12 file system"),
        (54, b"FAT16   ", "a FAT16 file system"),
        (82, b"FAT32   ", "a FAT32 file system"),
        (1080, &[0x53, 0xef], "an ext2/3/4 file system"),
        (0, b"XFSB", "an XFS file system"),
        (65600, b"_BHRfS_M", "a btrfs file system"),
        (1024, &[0x10, 0x20, 0xf5, 0xf2], "an F2FS file system"),
        (4086, b"SWAPSPACE2", "a swap area"),
        (4086, b"SWAP-SPACE", "a swap area"),
        (65526, b"SWAPSPACE2", "a swap area (64 KiB pages)"),
        (0, b"LABELONE", "an LVM physical volume"),
        (512, b"LABELONE", "an LVM physical volume"),
        (1024, b"LABELONE", "an LVM physical volume"),
        (1536, b"LABELONE", "an LVM physical volume"),
        (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
        (0, &[0xfc, 0x4e, 0x2b, 0xa9], "a Linux RAID (md) member"),
        (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "a Linux RAID (md) member"),
        (32769, b"CD001", "an ISO 9660 file system"),
        (510, &[0x55, 0xaa], "an MBR partition table or boot sector"),
    ];
    KNOWN.iter().find(|(off, magic, _)| at(*off, magic)).map(|k| k.2)
}

/// A drive's measured points.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceProfile {
    /// The drive's name (e.g. the measured file's or device's name).
    #[serde(default)]
    pub name: String,
    /// Bytes of the range measured: the usable size of an array member built from it.
    pub capacity: u64,
    /// What was measured and how (fio version, engine, direct or buffered I/O), no date.
    #[serde(default)]
    pub source: String,
    pub points: Vec<ProfilePoint>,
}

/// `(lower, upper, weight of upper)` around `x` in the increasing `xs`, flat beyond the ends.
fn bracket(xs: &[f64], x: f64) -> (usize, usize, f64) {
    let last = xs.len() - 1;
    if x <= xs[0] {
        return (0, 0, 0.0);
    }
    if x >= xs[last] {
        return (last, last, 0.0);
    }
    let i = xs.iter().position(|&v| v > x).expect("x below the last");
    (i - 1, i, (x - xs[i - 1]) / (xs[i] - xs[i - 1]))
}

/// Sorted distinct values.
fn distinct(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

impl DeviceProfile {
    /// Read and check a profile file (JSON, as [`DeviceProfile::save`] writes it).
    pub fn load(path: &Path) -> Result<DeviceProfile> {
        let file = path.display().to_string();
        if path.is_dir() {
            return Err(Error::Config(format!(
                "{file}: is a directory; expected a device profile (JSON) as `ssdlab profile` writes it"
            )));
        }
        crate::output::check_regular(path, "a device profile (JSON) as `ssdlab profile` writes it")
            .map_err(|e| Error::Config(e.to_string()))?;
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Config(format!(
                "{file}: cannot read it ({e}); expected a device profile (JSON) as `ssdlab profile` writes it"
            ))
        })?;
        let mut de = serde_json::Deserializer::from_str(&text);
        let prof: DeviceProfile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let inner = e.inner();
            let (line, col) = (inner.line(), inner.column());
            let key = e.path().to_string();
            let msg = inner.to_string();
            // serde_json appends " at line L column C": the position goes in front instead.
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            let msg = if msg.contains(", expected ") {
                msg.replacen(", expected ", "; expected ", 1)
            } else {
                format!("{msg}; expected a device profile (JSON) as `ssdlab profile` writes it")
            };
            if key == "." || key == "?" || key.is_empty() {
                Error::Config(format!("{file}:{line}:{col}: {msg}"))
            } else {
                Error::Config(format!("{file}:{line}:{col}: {key}: {msg}"))
            }
        })?;
        prof.validate(&file)?;
        Ok(prof)
    }

    /// Check the values a profile's consumers rely on; errors name `file` and the key.
    pub fn validate(&self, file: &str) -> Result<()> {
        let bad = |key: String, msg: String| Err(Error::Config(format!("{file}: {key}: {msg}")));
        if self.capacity == 0 {
            return bad("capacity".into(), "0; expected the bytes measured, at least 1".into());
        }
        if self.points.is_empty() {
            return bad("points".into(), "empty; expected at least one measured point".into());
        }
        for (i, p) in self.points.iter().enumerate() {
            let k = |f: &str| format!("points[{i}].{f}");
            if p.bs == 0 {
                return bad(k("bs"), "0; expected a request size of at least 1 byte".into());
            }
            if p.depth == 0 {
                return bad(k("depth"), "0; expected a queue depth of at least 1".into());
            }
            if !(0.0..=1.0).contains(&p.read_share) {
                return bad(
                    k("read_share"),
                    format!("{}; expected a share from 0 to 1", p.read_share),
                );
            }
            for (f, v) in [
                ("read_bytes_s", p.read_bytes_s),
                ("write_bytes_s", p.write_bytes_s),
                ("mean_lat_ns", p.mean_lat_ns),
            ] {
                if !v.is_finite() || v < 0.0 {
                    return bad(k(f), format!("{v}; expected a finite value of at least 0"));
                }
            }
            if p.read_bytes_s + p.write_bytes_s <= 0.0 {
                return bad(
                    k("read_bytes_s"),
                    "no throughput (reads and writes both 0); expected a point where I/O completed".into(),
                );
            }
        }
        Ok(())
    }

    /// Write the profile as pretty JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("serialisable") + "\n";
        crate::output::write(path, text)
    }

    /// Throughput, bytes/s (reads and writes together), at `pattern`, request size `bs`,
    /// depth `depth` and read share `read_share` (0..=1): linear in the read share, in
    /// log2(size) and in log2(depth) between measured points, flat beyond them. 0 without
    /// points.
    pub fn throughput(&self, pattern: Pattern, bs: u64, depth: u32, read_share: f64) -> f64 {
        self.interpolate(pattern, bs, depth, read_share, |p| p.read_bytes_s + p.write_bytes_s)
    }

    /// Mean completion latency, ns, interpolated as [`DeviceProfile::throughput`].
    pub fn latency(&self, pattern: Pattern, bs: u64, depth: u32, read_share: f64) -> f64 {
        self.interpolate(pattern, bs, depth, read_share, |p| p.mean_lat_ns)
    }

    fn interpolate(&self, pattern: Pattern, bs: u64, depth: u32, r: f64, value: impl Fn(&ProfilePoint) -> f64) -> f64 {
        let r = if r.is_nan() { 0.0 } else { r };
        let pattern = if self.points.iter().any(|p| p.pattern == pattern) {
            pattern
        } else {
            match self.points.first() {
                Some(p) => p.pattern,
                None => return 0.0,
            }
        };
        let pts: Vec<&ProfilePoint> = self.points.iter().filter(|p| p.pattern == pattern).collect();
        let log = |v: f64| v.max(1.0).log2();
        // Sizes, then depths measured at each size, then read shares at each (size, depth).
        let sizes = distinct(pts.iter().map(|p| p.bs as f64).collect());
        let (s0, s1, ts) = bracket(&sizes.iter().map(|&v| log(v)).collect::<Vec<_>>(), log(bs as f64));
        let at_size = |size: f64| {
            let here: Vec<&&ProfilePoint> = pts.iter().filter(|p| p.bs as f64 == size).collect();
            let depths = distinct(here.iter().map(|p| p.depth as f64).collect());
            let (d0, d1, td) = bracket(&depths.iter().map(|&v| log(v)).collect::<Vec<_>>(), log(depth as f64));
            let at_depth = |d: f64| {
                // Points at equal read shares (a repeated measurement) are averaged.
                let mut rs: Vec<(f64, f64, u32)> = Vec::new();
                let mut sorted: Vec<&&&ProfilePoint> = here.iter().filter(|p| p.depth as f64 == d).collect();
                sorted.sort_by(|a, b| a.read_share.total_cmp(&b.read_share));
                for p in sorted {
                    match rs.last_mut() {
                        Some(last) if last.0 == p.read_share => {
                            last.1 += value(p);
                            last.2 += 1;
                        }
                        _ => rs.push((p.read_share, value(p), 1)),
                    }
                }
                let xs: Vec<f64> = rs.iter().map(|x| x.0).collect();
                let (i0, i1, t) = bracket(&xs, r);
                let v = |i: usize| rs[i].1 / rs[i].2 as f64;
                v(i0) + t * (v(i1) - v(i0))
            };
            let (a, b) = (at_depth(depths[d0]), at_depth(depths[d1]));
            a + td * (b - a)
        };
        let (a, b) = (at_size(sizes[s0]), at_size(sizes[s1]));
        a + ts * (b - a)
    }

    /// Total throughput (MB/s) against the read share, for one pattern, size and depth.
    /// Total throughput (MB/s) against the read share at any size and depth, interpolated
    /// as [`DeviceProfile::throughput`] does, at the 21 read shares 0, 5, …, 100 %.
    pub fn curve_at(&self, pattern: Pattern, bs: u64, depth: u32) -> Curve {
        let pts = (0..=20)
            .map(|i| {
                let r = i as f64 / 20.0;
                (r, self.throughput(pattern, bs, depth, r) / 1e6)
            })
            .collect();
        Curve::new(pts).expect("21 increasing read shares")
    }

    pub fn curve(&self, pattern: Pattern, bs: u64, depth: u32) -> std::result::Result<Curve, String> {
        let mut pts: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(|p| p.pattern == pattern && p.bs == bs && p.depth == depth)
            .map(|p| (p.read_share, p.mb_s()))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| a.0 == b.0);
        Curve::new(pts).map_err(|m| format!("{pattern:?} {bs} B at depth {depth}: {m}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fio(rw: &str, extra: &str, jobs: &[(f64, f64, u64, f64, u64, f64)]) -> String {
        let js: Vec<String> = jobs
            .iter()
            .map(|(rbw, rl, rn, wbw, wn, wl)| {
                format!(
                    r#"{{"jobname":"j","job options":{{"rw":"{rw}"{extra}}},"read":{{"bw_bytes":{rbw},"total_ios":{rn},"clat_ns":{{"mean":{rl}}}}},"write":{{"bw_bytes":{wbw},"total_ios":{wn},"clat_ns":{{"mean":{wl}}}}}}}"#
                )
            })
            .collect();
        format!(
            "note: some fio note\n{{\"fio version\":\"fio-3.33\",\"jobs\":[{}]}}",
            js.join(",")
        )
    }

    #[test]
    fn jobs_add_up_and_notes_are_skipped() {
        let t = fio(
            "randrw",
            r#","rwmixread":"35","bs":"8M","ioengine":"libaio","iodepth":"2""#,
            &[(100.0, 1000.0, 1, 300.0, 3, 2000.0), (50.0, 3000.0, 1, 0.0, 0, 0.0)],
        );
        let p = point_from_fio_json(&t, "f.json").unwrap();
        assert_eq!((p.pattern, p.bs, p.depth), (Pattern::Random, 8 << 20, 4));
        assert_eq!((p.read_share, p.read_bytes_s, p.write_bytes_s), (0.35, 150.0, 300.0));
        // (1000 + 3 × 2000 + 3000) / 5 I/Os.
        assert_eq!(p.mean_lat_ns, 2000.0);
        // A synchronous engine: one I/O per job whatever iodepth says; sequential reads.
        let t = fio(
            "read",
            r#","bs":"2M","ioengine":"psync","iodepth":"8""#,
            &[(1.0, 1.0, 1, 0.0, 0, 0.0); 3],
        );
        let p = point_from_fio_json(&t, "f.json").unwrap();
        assert_eq!(
            (p.pattern, p.depth, p.read_share, p.bs),
            (Pattern::Sequential, 3, 1.0, 2 << 20)
        );
    }

    #[test]
    fn bad_outputs_say_what_was_expected() {
        for (text, want) in [
            ("", "no JSON object"),
            ("{\"jobs\": []}", "no jobs"),
            ("{\"jobs\": [", "line 1"),
            (&fio("trim", "", &[(0.0, 0.0, 0, 0.0, 0, 0.0)]) as &str, "rw \"trim\""),
            (
                &fio("randrw", r#","rwmixread":"x""#, &[(0.0, 0.0, 0, 0.0, 0, 0.0)]),
                "rwmixread \"x\"",
            ),
        ] {
            let e = point_from_fio_json(text, "f.json").unwrap_err().to_string();
            assert!(e.contains("f.json: ") && e.contains(want), "{e}");
        }
    }

    #[test]
    fn a_recorded_fio_run() {
        // fio 3.33, 2 jobs of 2 MiB random I/O, 35 % reads, psync, on a file (page cache).
        let t = include_str!("../../tests/fixtures/fio-randrw-35-2m.json");
        let p = point_from_fio_json(t, "fixture").unwrap();
        assert_eq!(
            (p.pattern, p.bs, p.depth, p.read_share),
            (Pattern::Random, 2 << 20, 2, 0.35)
        );
        assert_eq!(p.read_bytes_s, (817_072_207u64 + 877_828_859) as f64);
        assert_eq!(p.write_bytes_s, (1_665_570_269u64 + 1_707_471_408) as f64);
        // Completion latency weighted over the 2,419 I/Os of both jobs and directions.
        assert!((p.mean_lat_ns - 586_804.146_754_976).abs() < 1e-6, "{}", p.mean_lat_ns);
    }

    #[test]
    fn curves_by_pattern_size_and_depth() {
        let pt = |pattern, r, mb| ProfilePoint {
            pattern,
            bs: 2 << 20,
            depth: 2,
            read_share: r,
            read_bytes_s: mb * 1e6 * r,
            write_bytes_s: mb * 1e6 * (1.0 - r),
            mean_lat_ns: 0.0,
        };
        let prof = DeviceProfile {
            capacity: 1 << 30,
            points: vec![
                pt(Pattern::Random, 1.0, 500.0),
                pt(Pattern::Random, 0.0, 200.0),
                pt(Pattern::Sequential, 0.5, 999.0),
            ],
            ..Default::default()
        };
        let c = prof.curve(Pattern::Random, 2 << 20, 2).unwrap();
        assert!((c.at(0.5) - 350.0).abs() < 1e-9);
        assert!((c.readonly_gain() - 150.0).abs() < 1e-9);
        assert!(prof
            .curve(Pattern::Random, 8 << 20, 2)
            .unwrap_err()
            .contains("no points"));
    }

    fn grid() -> DeviceProfile {
        // Random: (size, depth) → MB/s at 0 % and 100 % reads; latency 10 ns per MB/s.
        let mut points = Vec::new();
        for (bs, depth, r0, r1) in [
            (2u64 << 20, 2, 100.0, 300.0),
            (2 << 20, 8, 200.0, 600.0),
            (8 << 20, 2, 300.0, 500.0),
            (8 << 20, 8, 400.0, 1000.0),
        ] {
            for (r, mb) in [(0.0, r0), (1.0, r1)] {
                points.push(ProfilePoint {
                    pattern: Pattern::Random,
                    bs,
                    depth,
                    read_share: r,
                    read_bytes_s: mb * 1e6 * r,
                    write_bytes_s: mb * 1e6 * (1.0 - r),
                    mean_lat_ns: mb * 10.0,
                });
            }
        }
        DeviceProfile {
            name: "grid".into(),
            capacity: 1 << 30,
            source: "by hand".into(),
            points,
        }
    }

    #[test]
    fn throughput_and_latency_interpolate_in_share_log_size_and_log_depth() {
        let p = grid();
        let mb = |bs, d, r| p.throughput(Pattern::Random, bs, d, r) / 1e6;
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        // At measured points.
        close(mb(2 << 20, 2, 0.0), 100.0);
        close(mb(8 << 20, 8, 1.0), 1000.0);
        // Read share 25 % at 2 MiB, depth 2: 100 + 0.25 × 200.
        close(mb(2 << 20, 2, 0.25), 150.0);
        // 4 MiB is half way in log2 between 2 and 8 MiB, depth 4 half way between 2 and 8:
        // 2 MiB: 150 (depth 2) and 300 (depth 8) → 225; 8 MiB: 350 and 550 → 450; → 337.5.
        close(mb(4 << 20, 4, 0.25), 337.5);
        // Depth 4 at 2 MiB, all reads: (300 + 600) / 2; 4 MiB at depth 2, all writes: 200.
        close(mb(2 << 20, 4, 1.0), 450.0);
        close(mb(4 << 20, 2, 0.0), 200.0);
        // Flat beyond the ends: sizes, depths and read shares.
        close(mb(1 << 20, 1, 0.5), 200.0);
        close(mb(64 << 20, 32, 1.0), 1000.0);
        close(mb(2 << 20, 2, 2.0), 300.0);
        close(mb(2 << 20, 2, -1.0), 100.0);
        // Sequential was not measured: the random points stand in.
        close(p.throughput(Pattern::Sequential, 4 << 20, 4, 0.25) / 1e6, 337.5);
        // Latency interpolates alike (10 ns per MB/s here).
        close(p.latency(Pattern::Random, 4 << 20, 4, 0.25), 3375.0);
        // A pattern with one point is flat everywhere; no points at all give 0.
        let mut q = grid();
        q.points.push(ProfilePoint {
            pattern: Pattern::Sequential,
            bs: 2 << 20,
            depth: 2,
            read_share: 0.5,
            read_bytes_s: 499.5e6,
            write_bytes_s: 499.5e6,
            mean_lat_ns: 1.0,
        });
        close(q.throughput(Pattern::Sequential, 32 << 20, 8, 0.0) / 1e6, 999.0);
        close(q.throughput(Pattern::Random, 4 << 20, 4, 0.25) / 1e6, 337.5);
        assert_eq!(DeviceProfile::default().throughput(Pattern::Random, 1, 1, 0.5), 0.0);
        // Repeated measurements of a point are averaged.
        let mut q = grid();
        let mut again = q.points[0];
        again.write_bytes_s = 300e6;
        q.points.push(again);
        close(q.throughput(Pattern::Random, 2 << 20, 2, 0.0) / 1e6, 200.0);
    }

    #[test]
    fn profiles_save_load_and_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.json");
        let p = grid();
        p.save(&f).unwrap();
        assert_eq!(DeviceProfile::load(&f).unwrap(), p);
        // name and source may be left out.
        let text = r#"{"capacity": 1000, "points": [{"pattern": "random", "bs": 4096, "depth": 1,
            "read_share": 0.5, "read_bytes_s": 1.0, "write_bytes_s": 1.0, "mean_lat_ns": 5.0}]}"#;
        std::fs::write(&f, text).unwrap();
        let q = DeviceProfile::load(&f).unwrap();
        assert_eq!((q.name.as_str(), q.capacity, q.points.len()), ("", 1000, 1));
        let name = f.display().to_string();
        for (text, want) in [
            ("{", "1:1: EOF while parsing"),
            ("[]", "expected struct DeviceProfile"),
            (r#"{"points": []}"#, "missing field `capacity`"),
            (
                r#"{"capacity": 1, "points": [], "colour": 1}"#,
                "unknown field `colour`",
            ),
            (r#"{"capacity": "1", "points": []}"#, "capacity: invalid type: string"),
            (
                r#"{"capacity": 0, "points": []}"#,
                "capacity: 0; expected the bytes measured",
            ),
            (
                r#"{"capacity": 1, "points": []}"#,
                "points: empty; expected at least one",
            ),
            (
                &text.replace("\"pattern\": \"random\"", "\"pattern\": \"zigzag\"") as &str,
                "points[0].pattern: unknown variant `zigzag`",
            ),
            (
                &text.replace("\"bs\": 4096", "\"bs\": 0") as &str,
                "points[0].bs: 0; expected",
            ),
            (
                &text.replace("\"depth\": 1", "\"depth\": 0") as &str,
                "points[0].depth: 0; expected",
            ),
            (
                &text.replace("0.5", "1.5") as &str,
                "points[0].read_share: 1.5; expected a share",
            ),
            (
                &text.replace("5.0", "-5.0") as &str,
                "points[0].mean_lat_ns: -5; expected",
            ),
            (
                &text.replace("1.0, \"write_bytes_s\": 1.0", "0.0, \"write_bytes_s\": 0.0") as &str,
                "points[0].read_bytes_s: no throughput",
            ),
        ] {
            std::fs::write(&f, text).unwrap();
            let e = DeviceProfile::load(&f).unwrap_err().to_string();
            assert!(e.starts_with(&name) && e.contains(want), "{text}: {e}");
            assert!(e.contains("; expected") && !e.contains('\n'), "{e}");
        }
        let e = DeviceProfile::load(&dir.path().join("none.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("none.json: cannot read it") && e.contains("; expected"),
            "{e}"
        );
        let e = DeviceProfile::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory; expected"), "{e}");
    }

    #[test]
    fn disk_signatures_are_recognised_and_zeros_are_not() {
        let blank = vec![0u8; SIGNATURE_BYTES];
        assert_eq!(disk_signature(&blank), None);
        assert_eq!(disk_signature(&[]), None);
        let with = |off: usize, magic: &[u8]| {
            let mut b = blank.clone();
            b[off..off + magic.len()].copy_from_slice(magic);
            disk_signature(&b)
        };
        assert_eq!(with(510, &[0x55, 0xaa]), Some("an MBR partition table or boot sector"));
        assert_eq!(with(512, b"EFI PART"), Some("a GPT partition table"));
        assert_eq!(with(1080, &[0x53, 0xef]), Some("an ext2/3/4 file system"));
        assert_eq!(with(0, b"XFSB"), Some("an XFS file system"));
        assert_eq!(with(65600, b"_BHRfS_M"), Some("a btrfs file system"));
        assert_eq!(with(4086, b"SWAPSPACE2"), Some("a swap area"));
        assert_eq!(with(1536, b"LABELONE"), Some("an LVM physical volume"));
        assert_eq!(with(32769, b"CD001"), Some("an ISO 9660 file system"));
        assert_eq!(with(3, b"NTFS    "), Some("an NTFS file system"));
        assert_eq!(with(82, b"FAT32   "), Some("a FAT32 file system"));
        // A magic cut off by a short head is not read past the end.
        assert_eq!(disk_signature(&blank[..1081]), None);
        // Near misses: the ext magic one byte off, "EFI PART" at another sector.
        assert_eq!(with(1081, &[0x53, 0xef]), None);
        assert_eq!(with(1024, b"EFI PART"), None);
    }
}
