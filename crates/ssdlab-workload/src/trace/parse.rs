//! Shared line mechanics for the text readers: field splitting and number parsing on bytes,
//! without allocation. Every error is a [`LineError`]: the field (key), what was wrong and
//! what was expected; the reader adds the file and the line.
//!
//! Kept by hand rather than through the `csv` crate's byte records: `ssdlab bench --case
//! trace-parse` reads the MSR file both ways with the same checks, and this is as fast or
//! faster (BENCHMARKS.md, "Traces"); it also splits the blank-separated formats, which are not
//! CSV.

use std::borrow::Cow;

/// A malformed record: the field at fault (`key`, empty for the whole line), what was wrong,
/// and what was expected (`None`: the format's line layout). Rendered by the reader as
/// `FILE:LINE: KEY: what was wrong; expected WHAT`.
#[derive(Clone, Debug)]
pub(crate) struct LineError {
    pub key: &'static str,
    pub msg: String,
    pub expected: Option<Cow<'static, str>>,
}

impl LineError {
    pub(crate) fn new(key: &'static str, msg: impl Into<String>, expected: impl Into<Cow<'static, str>>) -> Self {
        LineError {
            key,
            msg: msg.into(),
            expected: Some(expected.into()),
        }
    }

    /// An error whose expectation is the format's line layout.
    pub(crate) fn layout(key: &'static str, msg: impl Into<String>) -> Self {
        LineError {
            key,
            msg: msg.into(),
            expected: None,
        }
    }

    /// `KEY: what was wrong; expected WHAT`, on one line.
    pub(crate) fn render(&self, layout: &str) -> String {
        let expected = self.expected.as_deref().unwrap_or(layout);
        let s = if self.key.is_empty() {
            format!("{}; expected {expected}", self.msg)
        } else {
            format!("{}: {}; expected {expected}", self.key, self.msg)
        };
        one_line(s)
    }
}

pub(crate) use crate::error::one_line;

/// A parse failure inside one line (the caller adds file and line).
pub(crate) type LineResult<T> = std::result::Result<T, LineError>;

/// How the fields of a line are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sep {
    /// Comma separated; spaces around fields are ignored.
    Comma,
    /// Runs of spaces and tabs.
    Blank,
}

/// Iterator over the fields of one line.
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    sep: Sep,
    done: bool,
}

#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The line without leading and trailing spaces, tabs and line terminators.
#[inline]
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if is_blank(*first) || *first == b'\r' || *first == b'\n' {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if is_blank(*last) || *last == b'\r' || *last == b'\n' {
            s = rest;
        } else {
            break;
        }
    }
    s
}

impl<'a> Fields<'a> {
    pub(crate) fn new(line: &'a [u8], sep: Sep) -> Self {
        Fields {
            rest: line,
            sep,
            done: false,
        }
    }

    /// The next field, `None` after the last one.
    #[inline]
    pub(crate) fn next_field(&mut self) -> Option<&'a [u8]> {
        if self.done {
            return None;
        }
        match self.sep {
            Sep::Comma => match self.rest.iter().position(|&b| b == b',') {
                Some(i) => {
                    let f = &self.rest[..i];
                    self.rest = &self.rest[i + 1..];
                    Some(trim(f))
                }
                None => {
                    self.done = true;
                    Some(trim(self.rest))
                }
            },
            Sep::Blank => {
                let start = self.rest.iter().position(|&b| !is_blank(b))?;
                let s = &self.rest[start..];
                let end = s.iter().position(|&b| is_blank(b)).unwrap_or(s.len());
                self.rest = &s[end..];
                Some(&s[..end])
            }
        }
    }

    /// The next field, or an error naming the missing field.
    #[inline]
    pub(crate) fn req(&mut self, key: &'static str) -> LineResult<&'a [u8]> {
        self.next_field()
            .ok_or_else(|| LineError::layout(key, "missing: the line is truncated"))
    }
}

/// A field for an error message: lossy UTF-8, at most 40 characters.
pub(crate) fn show(f: &[u8]) -> String {
    let s = String::from_utf8_lossy(f);
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// A non-negative decimal integer.
#[inline]
pub(crate) fn uint(f: &[u8], key: &'static str) -> LineResult<u64> {
    if f.is_empty() || f.len() > 20 {
        return Err(bad_uint(f, key));
    }
    let mut v: u64 = 0;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(bad_uint(f, key));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(d as u64))
            .ok_or_else(|| too_large(f, key))?;
    }
    Ok(v)
}

#[cold]
fn too_large(f: &[u8], key: &'static str) -> LineError {
    LineError::new(key, format!("'{}' is too large", show(f)), "an integer below 2^64")
}

/// A non-negative decimal integer that fits in 32 bits (device numbers).
#[inline]
pub(crate) fn uint32(f: &[u8], key: &'static str) -> LineResult<u32> {
    let v = uint(f, key)?;
    u32::try_from(v).map_err(|_| {
        LineError::new(
            key,
            format!("'{}' is too large", show(f)),
            format!("a number at most {}", u32::MAX),
        )
    })
}

#[cold]
fn bad_uint(f: &[u8], key: &'static str) -> LineError {
    const EXPECTED: &str = "a non-negative integer";
    if f.first() == Some(&b'-') {
        LineError::new(key, format!("negative value '{}'", show(f)), EXPECTED)
    } else if f.is_empty() {
        LineError::new(key, "empty field", EXPECTED)
    } else if f.len() > 20 && f.iter().all(u8::is_ascii_digit) {
        too_large(f, key)
    } else {
        LineError::new(key, format!("'{}' is not an integer", show(f)), EXPECTED)
    }
}

/// A hexadecimal integer, with or without a `0x` prefix.
pub(crate) fn hex(f: &[u8], key: &'static str) -> LineResult<u64> {
    let digits = f.strip_prefix(b"0x").or_else(|| f.strip_prefix(b"0X")).unwrap_or(f);
    let bad = || {
        LineError::new(
            key,
            format!("'{}' is not a hexadecimal number", show(f)),
            "a hexadecimal number of at most 16 digits",
        )
    };
    if digits.is_empty() || digits.len() > 16 {
        return Err(bad());
    }
    let mut v: u64 = 0;
    for &b in digits {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err(bad()),
        };
        v = (v << 4) | d as u64;
    }
    Ok(v)
}

#[cold]
fn time_too_large(f: &[u8], key: &'static str) -> LineError {
    LineError::new(
        key,
        format!("'{}' is too large", show(f)),
        "a time below 2^64 nanoseconds (about 584 years)",
    )
}

/// A non-negative decimal number of `unit_ns` nanoseconds (1e9 for seconds, 1e6 for
/// milliseconds...), returned in whole nanoseconds (sub-nanosecond digits are truncated).
/// Accepts `12`, `12.5`, `.5` and exponents (`1.5e-3`).
#[inline]
pub(crate) fn time(f: &[u8], unit_ns: u64, key: &'static str) -> LineResult<u64> {
    let (int_part, frac) = match f.iter().position(|&b| b == b'.') {
        Some(i) => (&f[..i], &f[i + 1..]),
        None => (f, &f[f.len()..]),
    };
    let plain = |s: &[u8]| s.iter().all(|b| b.is_ascii_digit());
    if !plain(int_part) || !plain(frac) || (int_part.is_empty() && frac.is_empty()) {
        return time_slow(f, unit_ns, key);
    }
    let ip = if int_part.is_empty() {
        0
    } else {
        uint(int_part, key).map_err(|_| time_too_large(f, key))?
    };
    let mut ns = ip.checked_mul(unit_ns).ok_or_else(|| time_too_large(f, key))?;
    if !frac.is_empty() {
        let digits = &frac[..frac.len().min(18)];
        let mut num: u64 = 0;
        for &b in digits {
            num = num * 10 + (b - b'0') as u64;
        }
        let den = 10u128.pow(digits.len() as u32);
        let add = (num as u128 * unit_ns as u128 / den) as u64;
        ns = ns.checked_add(add).ok_or_else(|| time_too_large(f, key))?;
    }
    Ok(ns)
}

#[cold]
fn time_slow(f: &[u8], unit_ns: u64, key: &'static str) -> LineResult<u64> {
    const EXPECTED: &str = "a non-negative decimal number";
    let not_number = || LineError::new(key, format!("'{}' is not a number", show(f)), EXPECTED);
    let s = std::str::from_utf8(f).map_err(|_| not_number())?;
    if s.starts_with('-') {
        return Err(LineError::new(key, format!("negative value '{}'", show(f)), EXPECTED));
    }
    if s.is_empty() {
        return Err(LineError::new(key, "empty field", EXPECTED));
    }
    // Only plain decimal and scientific notation; no "inf", "nan", hex floats.
    if !s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return Err(not_number());
    }
    let v: f64 = s.parse().map_err(|_| not_number())?;
    let ns = v * unit_ns as f64;
    if !(0.0..1.8e19).contains(&ns) {
        return Err(time_too_large(f, key));
    }
    Ok(ns as u64)
}

/// `a * b` (a count of `b`-byte units, or of `b`-nanosecond ticks), or an error naming the
/// field when it overflows 64 bits.
#[inline]
pub(crate) fn mul(a: u64, b: u64, key: &'static str) -> LineResult<u64> {
    a.checked_mul(b).ok_or_else(|| {
        LineError::new(
            key,
            format!("{a} x {b} overflows 64 bits"),
            format!("at most {}", u64::MAX / b),
        )
    })
}

/// An unknown operation name.
#[cold]
pub(crate) fn unknown_op(f: &[u8], expected: &'static str) -> LineError {
    LineError::new("op", format!("unknown operation '{}'", show(f)), expected)
}

/// ASCII case-insensitive comparison.
#[inline]
pub(crate) fn eq_ic(f: &[u8], s: &str) -> bool {
    f.eq_ignore_ascii_case(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(uint(b"123", "x").unwrap(), 123);
        assert!(uint(b"-1", "x").unwrap_err().msg.contains("negative"));
        assert!(uint(b"1a", "x").is_err());
        assert!(uint(b"99999999999999999999", "x").is_err());
        assert_eq!(hex(b"2a", "op").unwrap(), 0x2a);
        assert_eq!(hex(b"0x42", "op").unwrap(), 0x42);
        assert_eq!(time(b"5265.313", 1_000_000, "t").unwrap(), 5_265_313_000);
        assert_eq!(
            time(b"1456095145.133076000", 1_000_000_000, "t").unwrap(),
            1_456_095_145_133_076_000
        );
        assert_eq!(time(b"0.000", 1_000_000, "t").unwrap(), 0);
        assert_eq!(time(b"1.5e-3", 1_000_000_000, "t").unwrap(), 1_500_000);
        assert!(time(b"-1.0", 1, "t").unwrap_err().msg.contains("negative"));
        assert!(time(b"nan", 1, "t").is_err());
        assert!(time(b".", 1, "t").is_err());
    }

    #[test]
    fn fields() {
        let mut f = Fields::new(b" a , b,c", Sep::Comma);
        assert_eq!(f.next_field(), Some(&b"a"[..]));
        assert_eq!(f.next_field(), Some(&b"b"[..]));
        assert_eq!(f.next_field(), Some(&b"c"[..]));
        assert_eq!(f.next_field(), None);
        let mut f = Fields::new(b"1\t2   3 ", Sep::Blank);
        assert_eq!(f.next_field(), Some(&b"1"[..]));
        assert_eq!(f.next_field(), Some(&b"2"[..]));
        assert_eq!(f.next_field(), Some(&b"3"[..]));
        assert_eq!(f.next_field(), None);
        assert_eq!(f.req("size").unwrap_err().key, "size");
    }
}
