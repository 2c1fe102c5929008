//! Device profiles (seed 000): a drive's measured throughput and latency by access pattern,
//! request size, queue depth and read share, from fio's JSON output, so that a real drive's
//! curves can stand beside simulated ones (`rodi::Curve`).
//!
//! One fio run gives one point. Its jobs are summed: throughput adds up, latency is the mean
//! over all completed I/Os, and the depth is the jobs' outstanding I/Os (each job's
//! `iodepth`, 1 for a synchronous engine: fio caps them so), Iometer's "workers × depth".
//! fio may print notes before the JSON on standard output; they are skipped.

use super::rodi::Curve;
use crate::{Error, Result};
use serde_json::Value;

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
const SYNC_ENGINES: [&str; 5] = ["sync", "psync", "vsync", "pvsync", "pvsync2"];

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

/// A drive's measured points.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DeviceProfile {
    pub points: Vec<ProfilePoint>,
}

impl DeviceProfile {
    /// Total throughput (MB/s) against the read share, for one pattern, size and depth.
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
            points: vec![
                pt(Pattern::Random, 1.0, 500.0),
                pt(Pattern::Random, 0.0, 200.0),
                pt(Pattern::Sequential, 0.5, 999.0),
            ],
        };
        let c = prof.curve(Pattern::Random, 2 << 20, 2).unwrap();
        assert!((c.at(0.5) - 350.0).abs() < 1e-9);
        assert!((c.readonly_gain() - 150.0).abs() < 1e-9);
        assert!(prof
            .curve(Pattern::Random, 8 << 20, 2)
            .unwrap_err()
            .contains("no points"));
    }
}
