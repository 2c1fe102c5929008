//! A reader of fio job files (INI): `[global]` plus one section per job. Every key is looked
//! up in fio's option table ([`super::fio_options`]): an implemented option sets the job, an
//! option with no effect on a simulated drive is accepted and listed (the job's
//! `ignored_options`), any other is refused in one line naming the file, the line and what is
//! not modelled.

use super::fio_options::{self, Class};
use super::job::{parse_bssplit, parse_dist, JobConfig, Rw, SizeOrShare};
use crate::units::{parse_duration_ns, Duration, Size};
use crate::{Error, Result};

/// Keys of ssdlab's own in a job file, beside fio's: `readonly` (fio's command-line option,
/// here per job) and `stream` (the job's write stream for placement schemes).
const OWN_KEYS: &[&str] = &["readonly", "stream"];

/// A size in a job file as fio reads it. With fio's default `kb_base=1024`, SI-looking
/// prefixes are binary (`4k`, `4K`, `4KB` = 4096) and IEC ones decimal (`4KiB` = 4000), for
/// compatibility with old job files; `kb_base=1000` swaps them. Case does not matter.
pub fn fio_size(val: &str, kb_base: u64) -> std::result::Result<u64, String> {
    let t = val.trim();
    let (num, suffix) =
        crate::units::split_number(t).ok_or_else(|| format!("'{val}' is not a size; expected e.g. 4096, 4k, 1m"))?;
    let suffix = suffix.trim().to_ascii_lowercase();
    let mut chars = suffix.chars();
    let prefix = chars.next();
    let rest = chars.as_str();
    let power = match prefix {
        None => 0,
        Some('b') if rest.is_empty() => 0,
        Some('k') => 1,
        Some('m') => 2,
        Some('g') => 3,
        Some('t') => 4,
        Some('p') => 5,
        _ => {
            return Err(format!(
                "'{val}': unknown size unit; expected k, m, g, t, p, with B or iB"
            ))
        }
    };
    let base = match rest {
        _ if power == 0 => 1,
        "" | "b" => kb_base,
        "ib" => {
            if kb_base == 1024 {
                1000
            } else {
                1024
            }
        }
        _ => {
            return Err(format!(
                "'{val}': unknown size unit; expected k, m, g, t, p, with B or iB"
            ))
        }
    };
    crate::units::to_integer(num, base.pow(power))
        .ok_or_else(|| format!("'{val}' is not a whole number of bytes below 2^64; expected e.g. 4k"))
}

/// fio's time options in ms (`bw_avg_time`, `log_avg_msec`): a bare number is ms.
fn fio_msec(val: &str) -> std::result::Result<u64, String> {
    let v = val.trim();
    if v.chars().all(|c| c.is_ascii_digit()) {
        v.parse()
            .map_err(|_| format!("got '{val}'; expected a whole number of ms"))
    } else {
        Ok(parse_duration_ns(v)? / 1_000_000)
    }
}

/// fio's durations whose bare numbers have a unit (`runtime`, `ramp_time`: s; `thinktime`:
/// µs): `unit_ns` nanoseconds per unit, named `unit` in errors.
fn fio_time(val: &str, unit_ns: u64, unit: &str) -> std::result::Result<Duration, String> {
    let v = val.trim();
    let ns = if v.chars().all(|c| c.is_ascii_digit()) {
        v.parse::<u64>()
            .map_err(|_| format!("got '{val}'; expected a whole number"))?
            .checked_mul(unit_ns)
            .ok_or_else(|| format!("got {val} {unit}; expected at most 2^64 ns"))?
    } else {
        parse_duration_ns(v)?
    };
    Ok(Duration(ns))
}

/// fio's boolean options: no value or 1 is true, 0 false.
fn fio_bool(val: &str) -> std::result::Result<bool, String> {
    match val.trim() {
        "" | "1" => Ok(true),
        "0" => Ok(false),
        v => Err(format!("got '{v}'; expected no value, 0 or 1")),
    }
}

/// Options read besides [`apply`]'s: reporting groups, sampling, logs. Returns false for a
/// key it does not know.
fn apply_reporting(job: &mut JobConfig, key: &str, val: &str) -> std::result::Result<bool, String> {
    match key {
        "stonewall" | "wait_for_previous" => job.stonewall = fio_bool(val)?,
        "new_group" => job.new_group = fio_bool(val)?,
        "group_reporting" => job.group_reporting = fio_bool(val)?,
        "readonly" => job.readonly = fio_bool(val)?,
        "bwavgtime" | "bw_avg_time" => job.bw_avg_time = fio_msec(val)?,
        "iopsavgtime" | "iops_avg_time" => job.iops_avg_time = fio_msec(val)?,
        "percentile_list" => job.percentile_list = Some(parse_percentile_list(val)?),
        "unified_rw_reporting" => job.unified_rw_reporting = parse_unified(val)?.to_string(),
        "log_avg_msec" => job.log_avg_msec = fio_msec(val)?,
        "log_offset" => job.log_offset = fio_bool(val)?,
        "write_lat_log" => job.write_lat_log = Some(val.to_string()),
        "write_bw_log" => job.write_bw_log = Some(val.to_string()),
        "write_iops_log" => job.write_iops_log = Some(val.to_string()),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Boolean options that may be given without a value.
const FLAGS: &[&str] = &[
    "time_based",
    "fill_device",
    "fill_fs",
    "fdp",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "group_reporting",
    "log_offset",
    "readonly",
    "bs_unaligned",
    "blocksize_unaligned",
    "random_sequence_stride",
    "exitall",
];

fn apply(job: &mut JobConfig, key: &str, val: &str, kb_base: u64) -> std::result::Result<(), String> {
    let num = |v: &str| -> std::result::Result<u64, String> {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("got '{v}'; expected a whole number"))
    };
    let num32 = |v: &str| -> std::result::Result<u32, String> {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("got '{v}'; expected a whole number from 0 to 4294967295"))
    };
    match key {
        "name" => job.name = val.to_string(),
        "rw" | "readwrite" => {
            // fio's offset modifier: `read:8k` (bytes after each I/O, negative to go back),
            // `randread:8` (I/Os per random offset).
            let (name, modifier) = match val.split_once(':') {
                Some((n, m)) => (n.trim(), Some(m.trim())),
                None => (val.trim(), None),
            };
            let rw = Rw::parse(name).ok_or_else(|| {
                format!("got '{val}'; expected read, write, trim, randread, randwrite, randtrim, rw, randrw, trimwrite or randtrimwrite")
            })?;
            job.rw_modifier = match modifier {
                None => None,
                Some(m) => {
                    let (neg, m) = match m.strip_prefix('-') {
                        Some(rest) => (true, rest),
                        None => (false, m),
                    };
                    let v = if rw.random() {
                        m.parse::<u64>().map_err(|_| {
                            format!("got '{val}': a random job's modifier is a count of I/Os; expected e.g. randread:8")
                        })?
                    } else {
                        fio_size(m, kb_base)?
                    };
                    let v = i64::try_from(v).map_err(|_| format!("got '{val}'; expected a modifier below 2^63"))?;
                    Some(if neg { -v } else { v })
                }
            };
            job.rw = rw;
        }
        "rwmixread" => job.rwmixread = num32(val)?,
        "rwmixwrite" => {
            let w = num32(val)?;
            if w > 100 {
                return Err(format!("got {w}; expected a percentage from 0 to 100"));
            }
            job.rwmixread = 100 - w
        }
        "bs" | "blocksize" => {
            if val.contains(',') {
                // By direction: a split of one size each (fio's default 4k where none is given).
                let dirs = super::job::by_direction(val)
                    .map(|d| d.map_or(Ok(4096), |v| fio_size(v, kb_base)).map(|b| format!("{b}/100")));
                let [r, w, t] = dirs;
                job.bssplit = Some(format!("{},{},{}", r?, w?, t?));
            } else {
                job.bs = Size(fio_size(val, kb_base)?)
            }
        }
        "bssplit" => {
            // Sizes as fio reads them, written out in bytes.
            let mut dirs = Vec::new();
            for d in val.split(',') {
                let mut parts = Vec::new();
                for part in d.split(':').filter(|p| !p.trim().is_empty()) {
                    let (bs, w) = part
                        .split_once('/')
                        .ok_or_else(|| format!("'{part}' is not SIZE/PERCENT; expected e.g. 4k/50:64k/50"))?;
                    parts.push(format!("{}/{}", fio_size(bs, kb_base)?, w.trim()));
                }
                dirs.push(parts.join(":"));
            }
            let text = dirs.join(",");
            for d in super::job::by_direction(&text).into_iter().flatten() {
                parse_bssplit(d)?;
            }
            job.bssplit = Some(text)
        }
        "bsrange" | "blocksize_range" => {
            let mut dirs = Vec::new();
            for d in val.split(',') {
                if d.trim().is_empty() {
                    dirs.push(String::new());
                    continue;
                }
                let (lo, hi) = d
                    .split_once('-')
                    .ok_or_else(|| format!("'{d}' is not MIN-MAX; expected e.g. 4k-16k"))?;
                dirs.push(format!("{}-{}", fio_size(lo, kb_base)?, fio_size(hi, kb_base)?));
            }
            job.bsrange = Some(dirs.join(","))
        }
        "bs_unaligned" | "blocksize_unaligned" => job.bs_unaligned = fio_bool(val)?,
        "blockalign" | "ba" => {
            let vals: Vec<u64> = super::job::by_direction(val)
                .iter()
                .flatten()
                .map(|v| fio_size(v, kb_base))
                .collect::<std::result::Result<_, _>>()?;
            if vals.windows(2).any(|w| w[0] != w[1]) {
                return Err(format!(
                    "got '{val}': alignments by direction are not modelled; expected one alignment"
                ));
            }
            job.blockalign = vals.first().map(|&b| Size(b));
        }
        "rw_sequencer" => {
            job.rw_sequencer = match val.trim() {
                "sequential" | "identical" => val.trim().to_string(),
                v => return Err(format!("got '{v}'; expected sequential or identical")),
            }
        }
        "percentage_random" | "percentage_sequential" => {
            let mut v = Vec::new();
            for part in val.split(',') {
                let p = num32(part)?;
                if p > 100 {
                    return Err(format!("got {p}; expected percentages of at most 100"));
                }
                v.push(if key == "percentage_sequential" { 100 - p } else { p });
            }
            job.percentage_random = Some(v)
        }
        "iodepth" => job.iodepth = num32(val)?,
        "numjobs" => job.numjobs = num32(val)?,
        "offset" | "fileoffset" => job.offset = Some(size_or_share(val, kb_base)?),
        "size" => job.size = Some(size_or_share(val, kb_base)?),
        "filesize" => {
            if val.contains('-') || val.contains(':') {
                return Err(format!(
                    "got '{val}': files of several sizes are not modelled; expected one size (one file)"
                ));
            }
            job.size = Some(size_or_share(val, kb_base)?)
        }
        "offset_increment" => job.offset_increment = Some(size_or_share(val, kb_base)?),
        "loops" => {
            let n = num32(val)?;
            if n == 0 {
                return Err("got 0; expected at least 1 (the times the job runs over its range)".into());
            }
            job.loops = n
        }
        "fill_device" | "fill_fs" => job.fill_device = fio_bool(val)?,
        "io_size" | "io_limit" => job.io_size = Some(Size(fio_size(val, kb_base)?)),
        "number_ios" => job.number_ios = Some(num(val)?),
        // fio's runtime and ramp_time default to seconds, its thinktime to microseconds.
        "runtime" | "timeout" => job.runtime = Some(fio_time(val, 1_000_000_000, "s")?),
        "ramp_time" => job.ramp_time = Some(fio_time(val, 1_000_000_000, "s")?),
        "startdelay" => {
            if val.contains('-') || val.contains(':') {
                return Err(format!(
                    "got '{val}': a random delay from a range is not modelled; expected one duration"
                ));
            }
            job.startdelay = Some(fio_time(val, 1_000_000_000, "s")?)
        }
        "time_based" => {
            job.time_based = match val.trim() {
                "" | "1" => true,
                "0" => false,
                v => return Err(format!("got '{v}'; expected no value, 0 or 1")),
            }
        }
        "random_distribution" => {
            // zoned_abs's sizes as fio reads them (kb_base), written out in bytes.
            let val = match val.trim().strip_prefix("zoned_abs:") {
                Some(zones) => {
                    let mut out = Vec::new();
                    for z in zones.split(':').filter(|z| !z.trim().is_empty()) {
                        out.push(match z.split_once('/') {
                            Some((a, r)) if !r.trim().is_empty() => format!("{a}/{}", fio_size(r, kb_base)?),
                            _ => z.to_string(),
                        });
                    }
                    format!("zoned_abs:{}", out.join(":"))
                }
                None => val.to_string(),
            };
            parse_dist(&val)?;
            job.random_distribution = val
        }
        "random_sequence_stride" => job.random_sequence_stride = fio_bool(val)?,
        "exitall" => job.exitall = fio_bool(val)?,
        "exit_what" => {
            job.exit_what = match val.trim() {
                v @ ("group" | "stonewall" | "all") => v.to_string(),
                v => return Err(format!("got '{v}'; expected group, stonewall or all")),
            }
        }
        "randseed" | "seed" => job.seed = Some(num(val)?),
        "rate_iops" => {
            if val.contains(',') {
                return Err(format!(
                    "got '{val}': I/O rates by direction are not modelled; expected one rate"
                ));
            }
            job.rate_iops = Some(num(val)?)
        }
        "rate" => {
            // Bytes per second by direction, as fio reads its sizes.
            let dirs: Vec<String> = val
                .split(',')
                .map(|d| {
                    if d.trim().is_empty() {
                        Ok(String::new())
                    } else {
                        fio_size(d, kb_base).map(|b| b.to_string())
                    }
                })
                .collect::<std::result::Result<_, _>>()?;
            job.rate = Some(dirs.join(","))
        }
        "rate_process" => {
            job.rate_process = match val.trim() {
                "linear" | "poisson" => val.trim().to_string(),
                v => return Err(format!("got '{v}'; expected linear or poisson")),
            }
        }
        "thinktime" => job.thinktime = Some(fio_time(val, 1_000, "us")?),
        "stream" => job.stream = num32(val)?,
        // fio's data placement (FDP, streams): `fdp=1` is `dataplacement=fdp`.
        "fdp" => {
            job.dataplacement = if fio_bool(val)? { "fdp" } else { "none" }.to_string();
        }
        "dataplacement" | "data_placement" => job.dataplacement = val.to_string(),
        "plids" | "fdp_pli" => job.plids = Some(val.to_string()),
        "plid_select" | "fdp_pli_select" => job.plid_select = val.to_string(),
        // Its synchronous engines (depth 1) are found where the file is read.
        "ioengine" => fio_options::engine(val.trim())?,
        // Zoned block devices (zonemode=zbd, `super::zbd`).
        "zonemode" => {
            job.zonemode = match val.trim() {
                v @ ("none" | "zbd") => v.to_string(),
                "strided" => return Err("got 'strided': strided zones over a conventional device are not modelled; expected none or zbd".into()),
                v => return Err(format!("got '{v}'; expected none or zbd")),
            }
        }
        "zonesize" | "zonerange" => {
            let z = fio_size(val, kb_base)?;
            match job.zonesize {
                Some(s) if s.0 != z => {
                    return Err(format!(
                        "got {z} bytes where zonesize/zonerange already says {}; expected them equal (zbd mode)",
                        s.0
                    ))
                }
                _ => job.zonesize = Some(Size(z)),
            }
        }
        "zonecapacity" => job.zonecapacity = Some(Size(fio_size(val, kb_base)?)),
        "zoneskip" => {
            if fio_size(val, kb_base)? != 0 {
                return Err(format!(
                    "got '{val}': skipping between zones is strided mode's, which is not modelled; expected 0 (zbd mode requires it)"
                ));
            }
        }
        "read_beyond_wp" => job.read_beyond_wp = fio_bool(val)?,
        "max_open_zones" => job.max_open_zones = Some(num32(val)?),
        "job_max_open_zones" => job.job_max_open_zones = num32(val)?,
        "ignore_zone_limits" => job.ignore_zone_limits = fio_bool(val)?,
        "zone_reset_threshold" | "zone_reset_frequency" => {
            let v: f64 = val
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| (0.0..=1.0).contains(v))
                .ok_or_else(|| format!("got '{val}'; expected a number from 0 to 1"))?;
            if key == "zone_reset_threshold" {
                job.zone_reset_threshold = v
            } else {
                job.zone_reset_frequency = v
            }
        }
        "write_zone_remainders" | "write_zone_remainder" => job.write_zone_remainders = fio_bool(val)?,
        "zone_append" => job.zone_append = fio_bool(val)?,
        "write_mode" => {
            job.zone_append = match val.trim() {
                "write" => false,
                "zone_append" => true,
                v => return Err(format!(
                    "got '{v}': write modes other than write and zone_append (zeroes, uncorrectable, verify) are not modelled; expected write or zone_append"
                )),
            }
        }
        _ => {
            return Err(format!(
                "implemented in fio's table but not read here; expected {key} read (a bug)"
            ))
        }
    }
    Ok(())
}

/// fio's `percentile_list`: percentiles separated by `:` (at most 20, each in (0, 100]).
fn parse_percentile_list(val: &str) -> std::result::Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for part in val.split(':') {
        let p: f64 = part.trim().parse().map_err(|_| {
            format!("'{part}' is not a percentile; expected numbers separated by ':' (e.g. 50:99:99.9)")
        })?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(format!("got {p}; expected percentiles above 0 and at most 100"));
        }
        out.push(p);
    }
    // fio's FIO_IO_U_LIST_MAX_LEN.
    if out.len() > 20 {
        return Err(format!("{} percentiles; expected at most 20 (as fio)", out.len()));
    }
    Ok(out)
}

/// fio's `unified_rw_reporting`: none (0), mixed (1) or both (2).
fn parse_unified(val: &str) -> std::result::Result<&'static str, String> {
    match val.trim() {
        "0" | "none" => Ok("none"),
        "" | "1" | "mixed" => Ok("mixed"),
        "2" | "both" => Ok("both"),
        v => Err(format!("got '{v}'; expected none (0), mixed (1) or both (2)")),
    }
}

/// The fio spellings of a job key (`bs` is also `blocksize`, `rwmixread` is set by
/// `rwmixwrite` too).
fn spellings(key: &str) -> Vec<&'static str> {
    match key {
        "rw" => vec!["rw", "readwrite"],
        "rwmixread" => vec!["rwmixread", "rwmixwrite"],
        "bs" => vec!["bs", "blocksize"],
        "size" => vec!["size", "filesize"],
        "io_size" => vec!["io_size", "io_limit"],
        "seed" => vec!["randseed", "seed"],
        "dataplacement" => vec!["dataplacement", "fdp"],
        "plids" => vec!["plids", "fdp_pli"],
        "plid_select" => vec!["plid_select", "fdp_pli_select"],
        _ => Vec::new(),
    }
}

/// Line and column of a job key (`job[I].OPTION`) in fio job-file text: the option in the
/// job's section, else in `[global]`, else the job's section header.
pub fn position(text: &str, key: &str) -> Option<(usize, usize)> {
    crate::source::fio_position(text, key, &spellings)
}

/// A size or a percentage of the device (`50%`), sizes read as fio does.
fn size_or_share(val: &str, kb_base: u64) -> std::result::Result<SizeOrShare, String> {
    // A share of the device, or fio's count of zones (`100z`, zonemode=zbd), resolved once
    // the device is known.
    if val.trim().ends_with('%') || SizeOrShare::zones_in(val).is_some() {
        Ok(SizeOrShare::Text(val.to_string()))
    } else {
        Ok(SizeOrShare::Bytes(Size(fio_size(val, kb_base)?)))
    }
}

/// Synchronous engines: fio ignores `iodepth` for them (one request at a time per job).
const SYNC_ENGINES: &[&str] = &["sync", "psync", "vsync", "pvsync", "pvsync2"];

/// fio's `${VAR}` expansion in an option value, from `env`.
fn expand_env(val: &str, env: &dyn Fn(&str) -> Option<String>) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut rest = val;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let j = after
            .find('}')
            .ok_or_else(|| format!("'{val}': '${{' without a closing '}}'; expected ${{VARNAME}}"))?;
        let name = &after[..j];
        let v = env(name).ok_or_else(|| {
            format!("${{{name}}} is not set in the environment; expected it set (job files expand ${{VARNAME}} from the environment)")
        })?;
        out.push_str(&v);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// How deep `include` may nest: fio sets no bound (a file including itself recurses until it
/// fails); one is set here so that a loop is an error naming it.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// One line of a job file after its `include`s are expanded: the file it came from, its line
/// number there, its text.
struct Line {
    file: String,
    no: usize,
    text: String,
}

/// Read an included job file: a regular file only (a FIFO would block, a directory or device
/// is no job file), as text.
pub fn read_included(path: &std::path::Path) -> std::result::Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {} ({e})", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {} ({e})", path.display()))
}

/// Where fio looks for `include NAME` of job file `file`: NAME as given when it exists (from
/// the working directory), else beside the including file.
fn include_path(name: &str, file: &str) -> std::path::PathBuf {
    let given = std::path::Path::new(name);
    if given.is_absolute() || given.exists() {
        return given.to_path_buf();
    }
    match file.rfind('/') {
        Some(i) => std::path::PathBuf::from(format!("{}{name}", &file[..=i])),
        None => given.to_path_buf(),
    }
}

/// The lines of `text` (job file `file`) with each `include NAME` line replaced by the lines
/// of the file it names, as fio reads them: an include stands inside a section and the file
/// it names holds options only (no section of its own), and may include others.
fn expand_includes(
    text: &str,
    file: &str,
    depth: usize,
    in_section: bool,
    read: &dyn Fn(&std::path::Path) -> std::result::Result<String, String>,
    out: &mut Vec<Line>,
) -> Result<()> {
    let mut in_section = in_section;
    for (i, raw) in text.lines().enumerate() {
        let err = |m: String| Error::Parse {
            file: file.to_string(),
            line: i as u64 + 1,
            msg: m,
        };
        let line = raw.trim();
        if line.starts_with('[') {
            if depth > 0 {
                return Err(err(
                    "a section header in an included file; expected options only (fio allows no new section in an included file)".into(),
                ));
            }
            in_section = true;
        }
        let name = line
            .strip_prefix("include")
            .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
            .map(str::trim);
        let Some(name) = name else {
            out.push(Line {
                file: file.to_string(),
                no: i + 1,
                text: raw.to_string(),
            });
            continue;
        };
        if name.is_empty() {
            return Err(err("include: no file named; expected include FILE".into()));
        }
        if !in_section {
            return Err(err(format!(
                "include {name}: outside a section; expected [global] or [jobname] first"
            )));
        }
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(err(format!(
                "include {name}: nested more than {MAX_INCLUDE_DEPTH} deep (a file that includes itself?); expected at most {MAX_INCLUDE_DEPTH}"
            )));
        }
        let path = include_path(name, file);
        let included = read(&path).map_err(|m| err(format!("include {name}: {m}; expected a fio job file")))?;
        expand_includes(&included, &path.display().to_string(), depth + 1, true, read, out)?;
    }
    Ok(())
}

/// Parse fio job-file text into jobs, expanding `${VAR}` from the process environment and
/// `include` lines from the files they name. `file` names it in errors and is where an
/// included file is looked for beside.
pub fn parse_job_file(text: &str, file: &str) -> Result<Vec<JobConfig>> {
    parse_job_file_env(text, file, &|k| std::env::var(k).ok())
}

/// As [`parse_job_file`], with `${VAR}` expanded from `env`.
pub fn parse_job_file_env(text: &str, file: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<JobConfig>> {
    parse_job_file_with(text, file, env, &read_included)
}

/// As [`parse_job_file_env`], with included files read by `read`.
///
/// The INI syntax is read here rather than by an INI crate: fio's files are not the INI those
/// crates read. A section name may repeat (each `[name]` is one more job, in order, where the
/// crates merge them), `[global]` may appear again between jobs and applies to the jobs after
/// it only, a key may stand without `=`, `include` splices another file in, and every error
/// names the file and line of the option (the crates keep no line numbers).
pub fn parse_job_file_with(
    text: &str,
    file: &str,
    env: &dyn Fn(&str) -> Option<String>,
    read: &dyn Fn(&std::path::Path) -> std::result::Result<String, String>,
) -> Result<Vec<JobConfig>> {
    let mut lines = Vec::new();
    expand_includes(text, file, 0, false, read, &mut lines)?;
    let mut global = JobConfig::default();
    let mut jobs: Vec<(JobConfig, usize)> = Vec::new();
    // fio's kb_base of [global] and of the current job section.
    let mut global_kb = 1024u64;
    let mut kb = 1024u64;
    let mut in_global = false;
    let mut seen_section = false;
    // Whether [global] and each job use a synchronous engine.
    let mut global_sync = false;
    let mut sync: Vec<Option<bool>> = Vec::new();
    let mut globals: Vec<(String, String)> = Vec::new();
    // fio's `wait_for=NAME` of each job, and where it was given.
    let mut waits: Vec<(usize, String, String, usize)> = Vec::new();
    for Line {
        file: from,
        no: line_no,
        text: raw,
    } in &lines
    {
        let line_no = *line_no;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let err = |m: String| Error::Parse {
            file: from.clone(),
            line: line_no as u64,
            msg: m,
        };
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| err("section header without closing ']'; expected [NAME]".into()))?
                .trim();
            if name.is_empty() {
                return Err(err("empty section name; expected [NAME]".into()));
            }
            seen_section = true;
            in_global = name == "global";
            kb = global_kb;
            if !in_global {
                let mut j = global.clone();
                j.name = name.to_string();
                j.job_options = Some(Vec::new());
                jobs.push((j, line_no));
                sync.push(None);
            }
            continue;
        }
        if !seen_section {
            return Err(err(format!(
                "{}: option outside a section; expected [global] or [jobname] first",
                line.split('=').next().unwrap_or("").trim()
            )));
        }
        // As fio: a `;` or `#` ends the option (a comment after its value).
        let line = line.split(['#', ';']).next().unwrap_or("").trim();
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        // fio's table says what the option is here: set, ignored (listed) or refused.
        let class = if OWN_KEYS.contains(&k) {
            Class::Implemented
        } else {
            match fio_options::find(k) {
                Some(o) => o.class,
                None => {
                    return Err(err(format!(
                        "{k}: not an option of fio's; expected one of fio's job options (docs/fio.md lists every one and what ssdlab does with it)"
                    )))
                }
            }
        };
        if let Class::Refused(why) = class {
            let expected = if why.contains("expected") {
                ""
            } else {
                "; expected a job without it"
            };
            return Err(err(format!("{k}: {why}{expected}")));
        }
        let expanded = expand_env(v, env).map_err(|m| err(format!("{k}: {m}")))?;
        let v = expanded.as_str();
        if k == "wait_for" {
            if in_global || v.is_empty() {
                return Err(err(format!(
                    "wait_for: {}; expected wait_for=NAME in a job section",
                    if in_global { "in [global]" } else { "no job named" }
                )));
            }
            waits.push((jobs.len() - 1, v.to_string(), from.clone(), line_no));
            continue;
        }
        if k == "ioengine" {
            let s = SYNC_ENGINES.contains(&v);
            if in_global {
                global_sync = s;
            } else {
                *sync.last_mut().expect("a job section") = Some(s);
            }
        }
        let target = if in_global {
            &mut global
        } else {
            &mut jobs.last_mut().expect("a job section").0
        };
        if v.is_empty() && class == Class::Implemented && !FLAGS.contains(&k) {
            return Err(err(format!("{k}: no value; expected {k}=VALUE")));
        }
        // fio's `job options` and `global options`: those given with a value (bare flags such
        // as `time_based` or `group_reporting` are left out, as fio leaves them out).
        if v.is_empty() {
        } else if !in_global {
            target
                .job_options
                .get_or_insert_with(Vec::new)
                .push((k.to_string(), v.to_string()));
        } else {
            globals.push((k.to_string(), v.to_string()));
        }
        if k == "kb_base" {
            kb = match v {
                "1024" => 1024,
                "1000" => 1000,
                _ => return Err(err(format!("kb_base: got '{v}'; expected 1024 or 1000"))),
            };
            if in_global {
                global_kb = kb;
            }
            continue;
        }
        if let Class::Ignored(_) = class {
            let name = fio_options::find(k).map_or(k, |o| o.names[0]);
            if !target.ignored_options.iter().any(|n| n == name) {
                target.ignored_options.push(name.to_string());
            }
            continue;
        }
        if !apply_reporting(target, k, v).map_err(|m| err(format!("{k}: {m}")))? {
            apply(target, k, v, kb).map_err(|m| err(format!("{k}: {m}")))?;
        }
    }
    if jobs.is_empty() {
        return Err(Error::Config(format!(
            "{file}: no job section; expected at least one [jobname]"
        )));
    }
    // fio's wait_for: the job starts when every clone of the named job has ended. That is a
    // stonewall when the named job is the one just before and runs alone (the first job, or
    // one after a stonewall); any other wait is refused.
    for (i, name, from, line) in waits {
        let err = |m: String| Error::Parse {
            file: from.clone(),
            line: line as u64,
            msg: format!("wait_for: {m}"),
        };
        let Some(w) = jobs[..i].iter().rposition(|(j, _)| j.name == name) else {
            return Err(err(format!(
                "no job named '{name}' before this one; expected the name of an earlier job"
            )));
        };
        if w + 1 != i || (w > 0 && !jobs[w].0.stonewall) {
            return Err(err(format!(
                "waiting for '{name}' while other jobs run is not modelled; expected the job just before, running alone (first, or after a stonewall)"
            )));
        }
        jobs[i].0.stonewall = true;
    }
    let jobs: Vec<JobConfig> = jobs
        .into_iter()
        .zip(sync)
        .map(|((mut j, _), s)| {
            if s.unwrap_or(global_sync) {
                j.iodepth = 1;
            }
            j.global_options = globals.clone();
            j
        })
        .collect();
    // fio's thinktime: after every thinktime_blocks I/Os the job waits for all it has in
    // flight, then sleeps. At depth 1 that is a pause after each I/O, which the engine runs;
    // deeper, fio's queue fills, drains and refills around each pause, which it does not.
    for (i, j) in jobs.iter().enumerate() {
        if j.thinktime.is_some() && j.iodepth > 1 {
            let line = position(text, &format!("job[{i}].thinktime")).map_or(0, |p| p.0);
            return Err(Error::Parse {
                file: file.to_string(),
                line: line as u64,
                msg: format!(
                    "thinktime: with iodepth={} fio drains the queue before each pause and refills it after, which is not modelled; expected iodepth=1 (or a synchronous ioengine)",
                    j.iodepth
                ),
            });
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_options_are_the_global_sections_options_with_a_value_in_order() {
        let text = "; a comment\n[global]\nbs=4k\n# another\ntime_based\n ioengine = libaio \ngroup_reporting\n\n[a]\nrw=read\n[global]\nsize=1m\n[b]\nbs=8k\n";
        let global_options = |t: &str| parse_job_file(t, "g.fio").unwrap()[0].global_options.clone();
        let got = global_options(text);
        let want = [("bs", "4k"), ("ioengine", "libaio"), ("size", "1m")];
        assert_eq!(got, want.map(|(k, v)| (k.to_string(), v.to_string())));
        assert!(global_options("[a]\nbs=4k\n").is_empty());
    }
    use proptest::prelude::*;

    /// Job files in memory, read by name as `include` resolves them.
    fn files<'a>(
        fs: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&std::path::Path) -> std::result::Result<String, String> + 'a {
        move |p: &std::path::Path| {
            let p = p.to_str().unwrap();
            fs.iter()
                .find(|(n, _)| *n == p)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| format!("cannot read {p} (not found)"))
        }
    }

    #[test]
    fn include_splices_an_options_file_into_the_section_where_it_stands() {
        let no_env = |_: &str| None;
        let fs = [
            ("dir/glob.fio", "; shared\nbs=8k\nrw=randread\n"),
            ("dir/depth.fio", "iodepth=4\ninclude size.fio\n"),
            ("dir/size.fio", "size=1m\n"),
        ];
        let read = files(&fs);
        let text = "[global]\ninclude glob.fio\n[a]\nrw=read\ninclude depth.fio\n[b]\n";
        let jobs = parse_job_file_with(text, "dir/main.fio", &no_env, &read).unwrap();
        // [global]'s include reaches both jobs; a's own include (and the one inside it) only a;
        // a's rw, after the global one, wins.
        assert_eq!((jobs[0].bs.0, jobs[1].bs.0), (8192, 8192));
        assert_eq!((jobs[0].rw, jobs[1].rw), (Rw::Read, Rw::RandRead));
        assert_eq!((jobs[0].iodepth, jobs[1].iodepth), (4, JobConfig::default().iodepth));
        assert_eq!(jobs[0].size, Some(SizeOrShare::Bytes(Size(1 << 20))));
        assert_eq!(jobs[1].size, None);
        // The same as writing the options in place.
        let inline = "[global]\nbs=8k\nrw=randread\n[a]\nrw=read\niodepth=4\nsize=1m\n[b]\n";
        let want = parse_job_file_with(inline, "dir/main.fio", &no_env, &read).unwrap();
        assert_eq!(format!("{jobs:?}"), format!("{want:?}"));
        // An error inside an included file names that file and its line.
        let fs = [("dir/bad.fio", "bs=4k\nbogus=1\n")];
        let e = parse_job_file_with("[a]\ninclude bad.fio\n", "dir/main.fio", &no_env, &files(&fs))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("dir/bad.fio:2: bogus"), "{e}");
    }

    #[test]
    fn include_refuses_what_fio_refuses_and_loops() {
        let no_env = |_: &str| None;
        let err = |text: &str, fs: &[(&str, &str)]| {
            parse_job_file_with(text, "main.fio", &no_env, &files(fs))
                .unwrap_err()
                .to_string()
        };
        let e = err("include x.fio\n[a]\n", &[("x.fio", "bs=4k\n")]);
        assert!(e.starts_with("main.fio:1: include x.fio: outside a section"), "{e}");
        let e = err("[a]\ninclude x.fio\n", &[("x.fio", "bs=4k\n[b]\n")]);
        assert!(e.starts_with("x.fio:2: a section header in an included file"), "{e}");
        let e = err("[a]\ninclude\n", &[]);
        assert!(
            e.starts_with("main.fio:2: include: no file named; expected include FILE"),
            "{e}"
        );
        let e = err("[a]\ninclude gone.fio\n", &[]);
        assert!(
            e.starts_with("main.fio:2: include gone.fio: cannot read gone.fio"),
            "{e}"
        );
        // A file that includes itself stops at the bound, naming the include.
        let e = err("[a]\ninclude self.fio\n", &[("self.fio", "bs=4k\ninclude self.fio\n")]);
        assert!(
            e.starts_with(&format!(
                "self.fio:2: include self.fio: nested more than {MAX_INCLUDE_DEPTH} deep"
            )),
            "{e}"
        );
        // Keys that only start with the word are keys; `include` needs its file after a space.
        let e = err("[a]\ninclude_x=1\n", &[]);
        assert!(e.starts_with("main.fio:2: include_x"), "{e}");
        // Beside the including file when not found as given; a directory is no job file.
        assert_eq!(
            include_path("no-such.fio", "jobs/main.fio"),
            std::path::PathBuf::from("jobs/no-such.fio")
        );
        assert_eq!(
            include_path("no-such.fio", "main.fio"),
            std::path::PathBuf::from("no-such.fio")
        );
        assert_eq!(
            include_path("/abs/x.fio", "jobs/main.fio"),
            std::path::PathBuf::from("/abs/x.fio")
        );
        let dir = std::env::temp_dir();
        assert!(read_included(&dir).unwrap_err().contains("is not a regular file"));
    }

    #[test]
    fn thinktime_runs_at_depth_one_and_is_refused_deeper() {
        // fio drains the queue before each pause: at depth 1 (fio's default, or a synchronous
        // engine's) a pause follows each I/O; deeper, the refill is not modelled.
        let ok = parse_job_file("[a]\nrw=randread\nthinktime=250\n", "t.fio").unwrap();
        assert_eq!((ok[0].iodepth, ok[0].thinktime), (1, Some(Duration(250_000))));
        let sync = "[global]\nioengine=psync\niodepth=8\n[a]\nrw=randread\nthinktime=2ms\n";
        assert_eq!(parse_job_file(sync, "t.fio").unwrap()[0].iodepth, 1);
        let deep = "[global]\nthinktime=2ms\n[a]\nrw=randread\n[b]\nrw=read\niodepth=4\n";
        let e = parse_job_file(deep, "t.fio").unwrap_err().to_string();
        assert!(e.starts_with("t.fio:2:"), "{e}");
        assert!(
            e.contains("thinktime: with iodepth=4 fio drains the queue") && e.contains("expected iodepth=1"),
            "{e}"
        );
    }

    #[test]
    fn expands_environment_variables_and_runs_sync_engines_at_depth_one() {
        // Seed 002's job file (section 5.1), as its runs set BS and NUMJOBS.
        let text = "[rand-write]\nioengine=sync\nfilename=/dev/pcissda\nrw=randwrite\nbs=${BS}\ndirect=1\nsize=4 g\nnumjobs=${NUMJOBS}\niodepth=32\nruntime=300\ngroup_reporting\n";
        let env = |k: &str| match k {
            "BS" => Some("4k".to_string()),
            "NUMJOBS" => Some("256".to_string()),
            _ => None,
        };
        let j = &parse_job_file_env(text, "seed.fio", &env).unwrap()[0];
        assert_eq!(j.bs.0, 4096);
        assert_eq!(j.numjobs, 256);
        assert_eq!(j.iodepth, 1, "a synchronous engine keeps one request per job");
        assert_eq!(j.size, Some(SizeOrShare::Bytes(Size(4 << 30))));
        assert_eq!(j.runtime, Some(Duration(300_000_000_000)));
        // libaio keeps its depth; a [global] sync engine applies to the jobs; a job's own
        // engine overrides it.
        let t2 = "[global]\nioengine=psync\niodepth=8\n[a]\nrw=read\n[b]\nioengine=libaio\nrw=read\n";
        let js = parse_job_file_env(t2, "t.fio", &env).unwrap();
        assert_eq!((js[0].iodepth, js[1].iodepth), (1, 8));
        let e = parse_job_file_env("[a]\nbs=${NOPE}k\n", "t.fio", &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.fio:2") && e.contains("${NOPE} is not set"), "{e}");
        let e = parse_job_file_env("[a]\nbs=${BS\n", "t.fio", &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("without a closing"), "{e}");
        assert_eq!(expand_env("x${BS}y${BS}", &env).unwrap(), "x4ky4k");
    }

    #[test]
    fn reads_a_typical_job_file() {
        let text = "; comment\n[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=32\nruntime=2\n\n[mixed]\nrw=randrw\nrwmixread=70\nnumjobs=2\nrandom_distribution=zipf:1.1\n[seq]\nrw=write\nbs=128k\nsize=1g\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].name, "mixed");
        assert_eq!(jobs[0].rw, Rw::RandRw);
        assert_eq!(jobs[0].iodepth, 32);
        assert_eq!(jobs[0].numjobs, 2);
        assert_eq!(jobs[0].runtime, Some(Duration(2_000_000_000)));
        assert_eq!(jobs[1].bs, Size(128 << 10));
        assert_eq!(jobs[1].size.as_ref().unwrap().resolve(1 << 40).unwrap(), 1 << 30);
    }

    #[test]
    fn a_key_is_found_under_each_of_its_fio_spellings() {
        // Every key on its own line under the job's header (line 1), at column 1.
        let text = "[a]\nreadwrite=read\nrwmixwrite=30\nblocksize=4k\nfilesize=1m\nio_limit=2m\nrandseed=7\n";
        let keys = ["rw", "rwmixread", "bs", "size", "io_size", "seed"];
        for (line, key) in (2..).zip(keys) {
            assert_eq!(position(text, &format!("job[0].{key}")), Some((line, 1)), "{key}");
        }
        // A key without other spellings is found under its own name.
        assert_eq!(position("[a]\nrw=read\niodepth=2\n", "job[0].iodepth"), Some((3, 1)));
    }

    #[test]
    fn ramp_time_and_time_based_are_read_as_fio_does() {
        let text = "[global]\nruntime=30\nramp_time=5\ntime_based\n[a]\nrw=randread\n[b]\nrw=read\nramp_time=250ms\ntime_based=0\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs[0].ramp_time, Some(Duration(5_000_000_000)));
        assert!(jobs[0].time_based);
        assert_eq!(jobs[1].ramp_time, Some(Duration(250_000_000)));
        assert!(!jobs[1].time_based);
        let e = parse_job_file("[a]\ntime_based=yes\n", "x.fio")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.fio:2: time_based:"), "{e}");
    }

    #[test]
    fn sizes_are_read_as_fio_reads_them() {
        // fio 3.33 with its default kb_base=1024: size=1m, 1M, 1mb, 1MB are 1048576 bytes,
        // size=1MiB is 1000000; kb_base=1000 swaps them.
        for (v, bytes) in [
            ("1m", 1 << 20),
            ("1M", 1 << 20),
            ("1mb", 1 << 20),
            ("1MB", 1 << 20),
            ("1MiB", 1_000_000),
            ("4k", 4096),
            ("4KB", 4096),
            ("4kib", 4000),
            ("512", 512),
            ("1.5g", 3 << 29),
        ] {
            assert_eq!(fio_size(v, 1024), Ok(bytes), "{v}");
        }
        assert_eq!(fio_size("1MB", 1000), Ok(1_000_000));
        assert_eq!(fio_size("1MiB", 1000), Ok(1 << 20));
        assert!(fio_size("4x", 1024).is_err());
        assert!(fio_size("4kx", 1024).is_err());
        let text = "[global]\nbs=4k\n[a]\nsize=1MB\n[b]\nkb_base=1000\nbs=4KB\nsize=1MiB\noffset=10%\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs[0].bs, Size(4096));
        assert_eq!(jobs[0].size, Some(SizeOrShare::Bytes(Size(1 << 20))));
        assert_eq!(jobs[1].bs, Size(4000));
        assert_eq!(jobs[1].size, Some(SizeOrShare::Bytes(Size(1 << 20))));
        assert_eq!(
            jobs[1].offset.as_ref().unwrap().resolve(1 << 30).unwrap(),
            (1 << 30) / 10 / 4096 * 4096
        );
    }

    #[test]
    fn groups_sampling_and_logs_are_read() {
        let text = "[global]\nbw_avg_time=250\n[a]\nwrite_lat_log=x\nlog_avg_msec=100\nlog_offset=1\n[b]\nstonewall\niops_avg_time=1s\nwrite_bw_log=y\nwrite_iops_log=y\n[c]\nnew_group\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!((jobs[0].bw_avg_time, jobs[0].iops_avg_time), (250, 500));
        assert_eq!(jobs[0].write_lat_log.as_deref(), Some("x"));
        assert_eq!((jobs[0].log_avg_msec, jobs[0].log_offset), (100, true));
        assert!(!jobs[0].stonewall && !jobs[0].new_group);
        assert!(jobs[1].stonewall && !jobs[1].new_group);
        assert_eq!((jobs[1].bw_avg_time, jobs[1].iops_avg_time), (250, 1000));
        assert_eq!(jobs[1].write_bw_log.as_deref(), Some("y"));
        assert!(jobs[2].new_group && !jobs[2].stonewall);
        // fio's `job options`: the section's own options, not [global]'s.
        let opts = |j: &JobConfig| {
            j.job_options
                .iter()
                .flatten()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(opts(&jobs[0]), ["write_lat_log=x", "log_avg_msec=100", "log_offset=1"]);
        // Bare flags are left out, as fio leaves them out; a section of flags only has none.
        assert_eq!(opts(&jobs[2]), Vec::<String>::new());
        assert_eq!(jobs[2].fio_job_options(), []);
        assert_eq!(
            opts(&parse_job_file("[a]\nnew_group=1\nstonewall\n", "t.fio").unwrap()[0]),
            ["new_group=1"]
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse_job_file("[a]\nrw=randwrite\nbs=4 bananas\n", "x.fio")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.fio:3: bs:"), "{e}");
        let e = parse_job_file("[a]\nfrobnicate=1\n", "x.fio").unwrap_err().to_string();
        assert!(e.contains("x.fio:2") && e.contains("frobnicate"), "{e}");
        let e = parse_job_file("rw=read\n", "x.fio").unwrap_err().to_string();
        assert!(e.contains("x.fio:1"), "{e}");
        assert!(parse_job_file("[global]\nbs=4k\n", "x.fio").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(lines in proptest::collection::vec("[\\[\\]a-z_=0-9:/%. ]{0,24}", 0..12)) {
            let text = lines.join("\n");
            let _ = parse_job_file(&text, "p.fio");
        }
        #[test]
        fn known_keys_with_junk_values_never_panic(key in proptest::sample::select(vec!["rw","bs","bssplit","iodepth","size","offset","runtime","random_distribution","rwmixwrite","rate_iops"]), val in "\\PC{0,12}") {
            let text = format!("[j]\n{key}={val}\n");
            let _ = parse_job_file(&text, "p.fio");
        }
    }
}
