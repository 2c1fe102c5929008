//! SSD lifetime from wear: how long the flash lasts at a given host write rate.
//!
//! Every physical block takes a limited number of program/erase cycles, so the flash can
//! absorb capacity × P/E cycles bytes of programs; the host writes `rate` bytes per second
//! and each becomes WAF bytes of programs. Lifetime = capacity × P/E / (rate × WAF). The
//! formula and its two worked examples (1 TB, 100 MB/s, 10,000 cycles, WAF 4: 2.5·10^7 s,
//! about ten months; 3,000 cycles and WAF 10: 3·10^6 s, about one month) are those of the
//! SSD-friendly software article this project reproduces.
//!
//! Capacity, taken from a run: the physical bytes. WAF counts programmed units over
//! host-written units, and every physical block (over-provisioning included) wears, so the
//! budget of programs is the physical capacity times the P/E cycles. The article uses the
//! drive's user-visible size, the figure a reader has; on a drive with α = 1.07 the physical
//! size is 7 % larger and so is the lifetime.

use crate::{Error, Result};
use serde::Serialize;

/// Seconds in the units [`human_duration`] uses: a day of 86,400 s, a month of 30 days, a
/// year of 365 days.
pub const DAY_S: f64 = 86_400.0;
pub const MONTH_S: f64 = 30.0 * DAY_S;
pub const YEAR_S: f64 = 365.0 * DAY_S;

/// Lifetime in seconds = capacity × P/E cycles / (host write rate × WAF). Infinite when the
/// host writes nothing (rate or WAF 0).
pub fn lifetime_seconds(capacity_bytes: f64, pe_cycles: f64, host_write_bytes_per_s: f64, waf: f64) -> f64 {
    let wear_rate = host_write_bytes_per_s * waf;
    if wear_rate <= 0.0 {
        return f64::INFINITY;
    }
    capacity_bytes * pe_cycles / wear_rate
}

/// A duration in seconds as a reader says it, with one decimal: "42.0 seconds", "3.5 hours",
/// "34.7 days" (under 60 days), "9.6 months" (under a year), "2.3 years"; "forever" when
/// infinite. A month is 30 days and a year 365 days.
pub fn human_duration(seconds: f64) -> String {
    human_durations(&[seconds]).remove(0)
}

/// Durations shown side by side, each as [`human_duration`] says it but all in one unit: the
/// one the smallest finite duration takes, so that "59.2 days" never stands beside "2.0
/// months".
pub fn human_durations(seconds: &[f64]) -> Vec<String> {
    const UNITS: [(f64, &str); 6] = [
        (1.0, "seconds"),
        (60.0, "minutes"),
        (3600.0, "hours"),
        (DAY_S, "days"),
        (MONTH_S, "months"),
        (YEAR_S, "years"),
    ];
    let unit_of = |s: f64| {
        if s < 60.0 {
            0
        } else if s < 3600.0 {
            1
        } else if s < DAY_S {
            2
        } else if s < 60.0 * DAY_S {
            3
        } else if s < YEAR_S {
            4
        } else {
            5
        }
    };
    let smallest = seconds
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .fold(f64::INFINITY, f64::min);
    let (div, unit) = UNITS[if smallest.is_finite() { unit_of(smallest) } else { 0 }];
    seconds
        .iter()
        .map(|&s| {
            if s.is_nan() {
                "undefined".into()
            } else if s.is_infinite() {
                "forever".into()
            } else {
                format!("{:.1} {unit}", s / div)
            }
        })
        .collect()
}

/// The four inputs of the formula.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LifetimeInputs {
    pub capacity_bytes: f64,
    pub pe_cycles: f64,
    pub host_write_bytes_per_s: f64,
    pub waf: f64,
}

impl LifetimeInputs {
    /// Lifetime in seconds (infinite without host writes).
    pub fn seconds(&self) -> f64 {
        lifetime_seconds(
            self.capacity_bytes,
            self.pe_cycles,
            self.host_write_bytes_per_s,
            self.waf,
        )
    }
}

/// Where [`from_run_json`] reads each input in a run result.
pub const RUN_KEYS: LifetimeKeys = LifetimeKeys {
    capacity_bytes: "ssd.physical_bytes",
    pe_cycles: "ssd.endurance",
    host_write_bytes_per_s: "ssd.throughput.host_visible.write_bytes_per_s",
    waf: "ssd.waf",
};

/// The key of each input in a run result.
#[derive(Clone, Copy, Debug)]
pub struct LifetimeKeys {
    pub capacity_bytes: &'static str,
    pub pe_cycles: &'static str,
    pub host_write_bytes_per_s: &'static str,
    pub waf: &'static str,
}

/// A number at `path` (dotted keys) of a run result, or an error naming the key.
fn number(v: &serde_json::Value, path: &str) -> Result<f64> {
    let mut cur = v;
    for k in path.split('.') {
        cur = cur.get(k).ok_or_else(|| {
            Error::Config(format!(
                "{path}: missing; expected the JSON of a run (ssdlab run --output-format json)"
            ))
        })?;
    }
    cur.as_f64()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| Error::Config(format!("{path}: got {cur}; expected a non-negative number")))
}

/// The inputs a run result (`ssdlab run --output-format json`) gives ([`RUN_KEYS`]): the
/// device's physical capacity (see the module notes) and endurance, the run's WAF, and its
/// host write rate: bytes written over the host-visible span (from the first request to the
/// last host completion). Errors name the key: `ssd.waf: missing; expected ...`.
pub fn from_run_json(v: &serde_json::Value) -> Result<LifetimeInputs> {
    let k = RUN_KEYS;
    Ok(LifetimeInputs {
        capacity_bytes: number(v, k.capacity_bytes)?,
        pe_cycles: number(v, k.pe_cycles)?,
        host_write_bytes_per_s: number(v, k.host_write_bytes_per_s)?,
        waf: number(v, k.waf)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_articles_two_examples() {
        // 1 TB, 100 MB/s, 10,000 cycles, WAF 4: 2.5e7 s, "about ten months".
        let a = lifetime_seconds(1e12, 10_000.0, 100e6, 4.0);
        assert_eq!(a, 2.5e7);
        assert_eq!(human_duration(a), "9.6 months");
        // 3,000 cycles and WAF 10: 3e6 s, "about one month".
        let b = lifetime_seconds(1e12, 3_000.0, 100e6, 10.0);
        assert_eq!(b, 3.0e6);
        assert_eq!(human_duration(b), "34.7 days");
    }

    #[test]
    fn each_input_moves_the_result_its_own_way() {
        let base = lifetime_seconds(2e12, 3000.0, 50e6, 2.0);
        assert_eq!(base, 6e7);
        assert_eq!(lifetime_seconds(4e12, 3000.0, 50e6, 2.0), 2.0 * base);
        assert_eq!(lifetime_seconds(2e12, 6000.0, 50e6, 2.0), 2.0 * base);
        assert_eq!(lifetime_seconds(2e12, 3000.0, 100e6, 2.0), base / 2.0);
        assert_eq!(lifetime_seconds(2e12, 3000.0, 50e6, 4.0), base / 2.0);
        assert!(lifetime_seconds(2e12, 3000.0, 0.0, 2.0).is_infinite());
        assert!(lifetime_seconds(2e12, 3000.0, 50e6, 0.0).is_infinite());
    }

    #[test]
    fn durations_read_naturally() {
        for (s, t) in [
            (0.25, "0.2 seconds"),
            (59.9, "59.9 seconds"),
            (90.0, "1.5 minutes"),
            (5400.0, "1.5 hours"),
            (86_400.0, "1.0 days"),
            (59.0 * DAY_S, "59.0 days"),
            (60.0 * DAY_S, "2.0 months"),
            (364.0 * DAY_S, "12.1 months"),
            (2.3 * YEAR_S, "2.3 years"),
            (f64::INFINITY, "forever"),
        ] {
            assert_eq!(human_duration(s), t, "{s}");
        }
    }

    #[test]
    fn durations_side_by_side_share_the_smallest_ones_unit() {
        assert_eq!(
            human_durations(&[59.2 * DAY_S, 60.0 * DAY_S, f64::INFINITY]),
            ["59.2 days", "60.0 days", "forever"]
        );
        assert_eq!(
            human_durations(&[2.0 * YEAR_S, 90.0 * DAY_S]),
            ["24.3 months", "3.0 months"]
        );
        assert_eq!(human_durations(&[f64::NAN, f64::INFINITY]), ["undefined", "forever"]);
    }

    #[test]
    fn inputs_from_a_run_result() {
        let v = serde_json::json!({"ssd": {"physical_bytes": 2e12, "logical_bytes": 1e12, "endurance": 3000, "waf": 2.5,
            "throughput": {"host_visible": {"write_bytes_per_s": 40e6}, "busy_span": {"write_bytes_per_s": 1.0}}}});
        let i = from_run_json(&v).unwrap();
        assert_eq!(
            i,
            LifetimeInputs {
                capacity_bytes: 2e12,
                pe_cycles: 3000.0,
                host_write_bytes_per_s: 40e6,
                waf: 2.5
            }
        );
        assert_eq!(i.seconds(), 2e12 * 3000.0 / (40e6 * 2.5));
        let mut bad = v.clone();
        bad["ssd"].as_object_mut().unwrap().remove("endurance");
        let e = from_run_json(&bad).unwrap_err().to_string();
        assert_eq!(
            e,
            "ssd.endurance: missing; expected the JSON of a run (ssdlab run --output-format json)"
        );
        bad["ssd"]["endurance"] = "many".into();
        let e = from_run_json(&bad).unwrap_err().to_string();
        assert_eq!(e, "ssd.endurance: got \"many\"; expected a non-negative number");
    }
}
