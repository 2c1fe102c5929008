//! Parsing of quantities with units, as they appear in configs and job files.
//!
//! Sizes: `4096`, `"4KiB"`, `"4k"` (fio convention: k = 1024), `"1.5MiB"`, `"64GiB"`,
//! `"600MB"` (decimal SI: 1000-based).
//! Durations: `"75us"`, `"1.5ms"`, `"3s"`, `"100ns"`; a bare number is nanoseconds.
//! Rates: `"600MB/s"`, `"3.94GB/s"`, `"333MT/s"` (bytes per second).

use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Parse a byte size. fio convention: `k`, `m`, `g`, `t` and `KiB`.. are powers of 1024;
/// `KB`, `MB`, `GB`, `TB` (capital B after an SI prefix) are powers of 1000.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, suffix) =
        split_number(t).ok_or_else(|| format!("'{s}' is not a size; expected e.g. 4096, \"4KiB\", \"64GiB\""))?;
    let mult: u64 = match suffix.trim() {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" | "KB_i" => 1 << 10,
        "m" | "M" | "MiB" | "Mi" => 1 << 20,
        "g" | "G" | "GiB" | "Gi" => 1 << 30,
        "t" | "T" | "TiB" | "Ti" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "'{s}': unknown size unit '{other}'; expected B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, k, m, g"
            ))
        }
    };
    to_integer(num, mult)
        .ok_or_else(|| format!("'{s}' is not a whole number of bytes below 2^64; expected e.g. \"4KiB\""))
}

/// Parse a duration into nanoseconds. A bare number means nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, suffix) =
        split_number(t).ok_or_else(|| format!("'{s}' is not a duration; expected e.g. \"75us\", \"3ms\", \"10s\""))?;
    let mult: u64 = match suffix.trim() {
        "" | "ns" | "nsec" => 1,
        "us" | "µs" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        // fio's longer units (its `str2time`): hours and days.
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        other => {
            return Err(format!(
                "'{s}': unknown time unit '{other}'; expected ns, us, ms, s, min, h, d"
            ))
        }
    };
    to_integer(num, mult)
        .ok_or_else(|| format!("'{s}' is not a whole number of nanoseconds below 2^64; expected e.g. \"75us\""))
}

/// Parse a transfer rate into bytes per second. `MT/s` on an 8-bit bus is bytes per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let body = t
        .strip_suffix("/s")
        .ok_or_else(|| format!("'{s}' is not a rate; expected e.g. \"600MB/s\", \"333MT/s\""))?;
    let body = body.trim();
    let (num, unit) = split_number(body).ok_or_else(|| format!("'{s}' is not a rate; expected e.g. \"600MB/s\""))?;
    let mult: u64 = match unit.trim() {
        "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" | "MT" => 1_000_000,
        "GB" | "GT" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "'{s}': unknown rate unit '{other}/s'; expected B/s, KB/s, MB/s, GB/s, MiB/s, GiB/s, MT/s"
            ))
        }
    };
    let v = to_integer(num, mult)
        .ok_or_else(|| format!("'{s}' is not a whole number of bytes per second; expected e.g. \"600MB/s\""))?;
    if v == 0 {
        return Err(format!("'{s}': got zero; expected a positive rate"));
    }
    Ok(v)
}

pub fn split_number(t: &str) -> Option<(f64, &str)> {
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    if end == 0 {
        return None;
    }
    let n: f64 = t[..end].replace('_', "").parse().ok()?;
    if !n.is_finite() {
        return None;
    }
    Some((n, &t[end..]))
}

pub fn to_integer(num: f64, mult: u64) -> Option<u64> {
    let v = num * mult as f64;
    if !(0.0..1.8e19).contains(&v) {
        return None;
    }
    let r = v.round();
    if (v - r).abs() > 1e-6 * v.max(1.0) {
        return None;
    }
    Some(r as u64)
}

/// Derive an independent seed for stream `stream` of a run seed (SplitMix64 finaliser).
pub fn mix_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Format bytes with a binary unit, e.g. `4KiB`, `1.5GiB`.
pub fn fmt_size(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if (v - v.round()).abs() < 1e-9 {
        format!("{}{}", v as u64, U[i])
    } else {
        format!("{:.2}{}", v, U[i])
    }
}

/// Format nanoseconds with the largest unit that keeps the value readable.
pub fn fmt_duration(ns: u64) -> String {
    if ns >= 1_000_000_000 && ns.is_multiple_of(1_000_000) {
        format!("{}s", ns as f64 / 1e9)
    } else if ns >= 1_000_000 && ns.is_multiple_of(1_000) {
        format!("{}ms", ns as f64 / 1e6)
    } else if ns >= 1_000 && ns.is_multiple_of(100) {
        format!("{}us", ns as f64 / 1e3)
    } else {
        format!("{ns}ns")
    }
}

/// Format a rate in decimal megabytes per second.
pub fn fmt_rate(bps: u64) -> String {
    if bps.is_multiple_of(1_000_000_000) {
        format!("{}GB/s", bps / 1_000_000_000)
    } else {
        format!("{}MB/s", bps as f64 / 1e6)
    }
}

macro_rules! unit_type {
    ($name:ident, $parse:ident, $fmt:ident, $what:expr) => {
        #[doc = concat!("A ", $what, " read from a string with units or a bare integer.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u64);

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} (integer or string with unit)", $what)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Ok($name(v))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        u64::try_from(v)
                            .map($name)
                            .map_err(|_| E::custom(format!("got {v}; expected a {} of at least 0", $what)))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "got {v}; expected a {} as an integer or a string with a unit",
                            $what
                        )))
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $parse(v).map($name).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl serde::Serialize for $name {
            /// With its unit where that reads back exactly; else the bare integer, so that
            /// what is written is read back the same.
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let text = $fmt(self.0);
                if $parse(&text) == Ok(self.0) {
                    s.serialize_str(&text)
                } else {
                    s.serialize_u64(self.0)
                }
            }
        }
    };
}

unit_type!(Size, parse_size, fmt_size, "size");
unit_type!(Duration, parse_duration_ns, fmt_duration, "duration");
unit_type!(Rate, parse_rate, fmt_rate, "rate");

/// Simulated time a run may reach: 2^62 ns (146 years). Every time the host model computes
/// (arrival times, run ends) is checked against it, so that the device's sums of times
/// cannot overflow 64 bits; a run that would pass it stops with an error.
pub const HORIZON_NS: u64 = 1 << 62;

/// A time the host model is about to use, checked against [`HORIZON_NS`].
pub fn check_time(t: u64, what: &str) -> crate::Result<u64> {
    if t > HORIZON_NS {
        return Err(crate::Error::Invalid(format!(
            "{what} at {t} ns passes the simulated-time horizon; expected times up to 2^62 ns (146 years): check the trace's timestamps and the replay speed"
        )));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("1.5MiB").unwrap(), 1536 * 1024);
        assert_eq!(parse_size("600MB").unwrap(), 600_000_000);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert!(parse_size("4 parsecs").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("0.3B").is_err());
    }

    proptest! {
        #[test]
        fn what_is_written_is_read_back_the_same(b in any::<u64>()) {
            // 4,160 B reads "4.06KiB" in a report but is written whole.
            for v in [b, b % (1 << 20), (b % 1000) * 1024] {
                let s = serde_json::to_string(&Size(v)).unwrap();
                prop_assert_eq!(serde_json::from_str::<Size>(&s).unwrap(), Size(v), "{}", s);
                let s = serde_json::to_string(&Rate(v)).unwrap();
                prop_assert_eq!(serde_json::from_str::<Rate>(&s).unwrap(), Rate(v), "{}", s);
                let s = serde_json::to_string(&Duration(v)).unwrap();
                prop_assert_eq!(serde_json::from_str::<Duration>(&s).unwrap(), Duration(v), "{}", s);
            }
        }
    }

    #[test]
    fn sizes_written_with_units_where_exact() {
        assert_eq!(serde_json::to_string(&Size(4096)).unwrap(), "\"4KiB\"");
        assert_eq!(serde_json::to_string(&Size(4160)).unwrap(), "4160");
    }

    #[test]
    fn durations_and_rates() {
        assert_eq!(parse_duration_ns("75us").unwrap(), 75_000);
        assert_eq!(parse_duration_ns("3.8ms").unwrap(), 3_800_000);
        assert_eq!(parse_duration_ns("2s").unwrap(), 2_000_000_000);
        assert_eq!(parse_rate("600MB/s").unwrap(), 600_000_000);
        assert_eq!(parse_rate("333MT/s").unwrap(), 333_000_000);
        assert!(parse_rate("600MB").is_err());
        assert!(parse_duration_ns("75 lightyears").is_err());
        // fio's spellings: `usec`, `msec`, `sec`, and hours and days.
        assert_eq!(parse_duration_ns("10usec").unwrap(), 10_000);
        assert_eq!(parse_duration_ns("10msec").unwrap(), 10_000_000);
        assert_eq!(parse_duration_ns("10sec").unwrap(), 10_000_000_000);
        assert_eq!(parse_duration_ns("2m").unwrap(), 120_000_000_000);
        assert_eq!(parse_duration_ns("1.5h").unwrap(), 5_400_000_000_000);
        assert_eq!(parse_duration_ns("2d").unwrap(), 172_800_000_000_000);
    }

    #[test]
    fn formatting_round_trips() {
        for b in [1u64, 4096, 8192, 1 << 30, 3 << 20] {
            assert_eq!(parse_size(&fmt_size(b)).unwrap(), b);
        }
        for ns in [75_000u64, 3_800_000, 56_500, 1_000_000_000, 17] {
            assert_eq!(
                parse_duration_ns(&fmt_duration(ns)).unwrap(),
                ns,
                "{}",
                fmt_duration(ns)
            );
        }
    }

    proptest! {
        #[test]
        fn parsers_never_panic(s in "\\PC{0,16}") {
            let _ = parse_size(&s);
            let _ = parse_duration_ns(&s);
            let _ = parse_rate(&s);
        }
        #[test]
        fn size_roundtrip(b in 0u64..(1u64 << 50)) {
            prop_assert_eq!(parse_size(&b.to_string()).unwrap(), b);
        }
    }
}
