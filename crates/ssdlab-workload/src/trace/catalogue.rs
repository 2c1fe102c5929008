//! The public block traces the experiments, benchmarks and docs replay, and the one place a
//! trace of them is looked up.
//!
//! Each [`PublicTrace`] is a file kept byte for byte in a public repository, pinned to a
//! commit, with its SHA-256 and size recorded here; `ssdlab traces fetch` downloads them into
//! the traces folder ([`dir`]): `--traces DIR` where a command takes it ([`set_dir`]), else
//! the `SSDLAB_TRACES` variable, else `ssdlab/traces` in the platform's cache folder
//! (`$XDG_CACHE_HOME` or `~/.cache` on Linux). A trace file written `@NAME` (on the command
//! line or as a job's `file`) is the catalogue's trace NAME in that folder ([`resolve`]); a
//! missing one is an error that names the command fetching it.

use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A public trace: its file name, where it is published, and what its bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicTrace {
    /// The file name in the traces folder (the name it is published under).
    pub name: &'static str,
    /// Where it is downloaded from: a file of a public repository at a fixed commit.
    pub url: &'static str,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: &'static str,
    /// Its size in bytes.
    pub bytes: u64,
    /// What it is, and who uses it.
    pub what: &'static str,
}

/// The variable naming the traces folder.
pub const ENV: &str = "SSDLAB_TRACES";

/// The command that fetches the catalogue's traces.
pub const FETCH: &str = "ssdlab traces fetch";

/// A file of a public repository at a fixed commit: each source's folder, then the file.
macro_rules! at {
    (MQSIM, $f:literal) => {
        concat!("https://raw.githubusercontent.com/CMU-SAFARI/MQSim/7ec40e3b198e8bd117f992f051cd610e330e079e/traces/", $f)
    };
    (HEIMDALL, $f:literal) => {
        concat!(
            "https://raw.githubusercontent.com/ucare-uchicago/Heimdall/dd0e0d1903e9c9a2c5c62c8056035d18860c40e1/ds_pipeline/data/raw_data/",
            $f
        )
    };
    (DISKSIM, $f:literal) => {
        concat!("https://raw.githubusercontent.com/benh/disksim/e0d4cc91371b3c7715b958b17999fe599d00c11f/", $f)
    };
    (SSDSIM, $f:literal) => {
        concat!("https://raw.githubusercontent.com/narges64/SSDSim-Original/8d638605e26829d86d419adc63d7a3f849a673b5/", $f)
    };
    (LIBCACHESIM, $f:literal) => {
        concat!("https://raw.githubusercontent.com/1a1a11a/libCacheSim/aa0fc40914b2b786f4b9f4dafb099f8f332b216a/data/", $f)
    };
}

/// The catalogue: every public trace the experiments, benchmarks and docs read.
pub static TRACES: [PublicTrace; 11] = [
    PublicTrace {
        name: "example.ascii",
        url: at!(SSDSIM, "example.ascii"),
        sha256: "c72f0a918ee0f05f17ef44d0a43564e225a481dc07026b9abe46d6394f686b1a",
        bytes: 259_874,
        what: "SSDsim's sample (the head of UMass/SPC Financial1); hotr's Financial1",
    },
    PublicTrace {
        name: "fin1",
        url: at!(SSDSIM, "fin1"),
        sha256: "773667a2e27d4745b496d08da5a14392383631d1087530d65c9b23ba4cfbe30a",
        bytes: 3_516,
        what: "SSDsim's pre-processed Financial1 head (100 requests)",
    },
    PublicTrace {
        name: "tpcc-small.trace",
        url: at!(MQSIM, "tpcc-small.trace"),
        sha256: "404dd97c3fd4bf605c23abb1f57823226d31da9ed5caeb37b01236496a81fa56",
        bytes: 194_790,
        what: "MQSim's TPC-C trace; hotr, docs/traces.md, examples/replay.toml",
    },
    PublicTrace {
        name: "wsrch-small.trace",
        url: at!(MQSIM, "wsrch-small.trace"),
        sha256: "84ebefd565aeb5db3bb807ef3c609e952aeaa59c4e78e132181059d0c5ea74d1",
        bytes: 683_630,
        what: "MQSim's UMass WebSearch trace; hotr, docs/traces.md, examples/replay.toml",
    },
    PublicTrace {
        name: "cloudPhysicsIO.csv",
        url: at!(LIBCACHESIM, "cloudPhysicsIO.csv"),
        sha256: "987ff2213050e47d24e8ba6e010d4b3127e51aafef6a76a8a6d43d13b9156fa1",
        bytes: 3_116_791,
        what: "CloudPhysics vSCSI trace (libCacheSim's test data); hotr, ssdlab bench",
    },
    PublicTrace {
        name: "ssd-postmark-aligned2.trace",
        url: at!(DISKSIM, "ssdmodel/valid/ssd-postmark-aligned2.trace"),
        sha256: "186a147bd5a11e641a63252d188580d3af379ce7172b0a4e34c3fbf4eb1ea8f7",
        bytes: 1_675_549,
        what: "DiskSim's SSD-extension validation trace (Postmark); hotr, the README's lint example",
    },
    PublicTrace {
        name: "ssd-iozone-aligned2-100K.trace",
        url: at!(DISKSIM, "ssdmodel/valid/ssd-iozone-aligned2-100K.trace"),
        sha256: "6f05e8869a842c7c3667b2f8f3bcb65b3efe64f0f045a434015c6e56ebbdb716",
        bytes: 2_610_799,
        what: "DiskSim's SSD-extension validation trace (IOzone); ssdlab bench",
    },
    PublicTrace {
        name: "ascii.trace",
        url: at!(DISKSIM, "valid/ascii.trace"),
        sha256: "b545087a24d95cb512c334c67f2bf16bb0439c58d7cabb12ac590d3a805f403c",
        bytes: 2_901_245,
        what: "DiskSim's validation trace (many devices)",
    },
    PublicTrace {
        name: "msr.cut.per_10k.rw_20_80.105.trace",
        url: at!(HEIMDALL, "msr.cut.per_10k.rw_20_80.105.trace"),
        sha256: "ef43beb542f4497041fc57dfdec199ba1dee96f4d578536cb31c227ee1ab0db5",
        bytes: 304_752,
        what: "a 10,000-request cut of an MSR Cambridge trace (Heimdall's); hotr, docs/lint.md",
    },
    PublicTrace {
        name: "msr.cut.per_10k.rw_40_60.1370.trace",
        url: at!(HEIMDALL, "msr.cut.per_10k.rw_40_60.1370.trace"),
        sha256: "54e1563bb7718a13fe4ca985c456f9c3e5d113df2db196dacea5c00174fd178a",
        bytes: 298_965,
        what: "a 10,000-request cut of an MSR Cambridge trace (Heimdall's); hotr",
    },
    PublicTrace {
        name: "msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        url: at!(HEIMDALL, "msr.cut.per_10k.most_thpt_rand_iops.1006.trace"),
        sha256: "641d91becb6cba535cfbb8d2fb935c60278c7697f2ef05f573c7f8128742e924",
        bytes: 285_447,
        what: "a 10,000-request cut of an MSR Cambridge trace (Heimdall's); hotr",
    },
];

/// The catalogue's trace `name`.
pub fn find(name: &str) -> Option<&'static PublicTrace> {
    TRACES.iter().find(|t| t.name == name)
}

static OVERRIDE: OnceLock<PathBuf> = OnceLock::new();

/// Point the traces folder at `dir` for this process (a command's `--traces DIR`); the
/// first call wins.
pub fn set_dir(dir: impl Into<PathBuf>) {
    let _ = OVERRIDE.set(dir.into());
}

/// The traces folder: [`set_dir`]'s, else `$SSDLAB_TRACES`, else `ssdlab/traces` in the
/// platform's cache folder.
pub fn dir() -> Result<PathBuf> {
    if let Some(d) = OVERRIDE.get() {
        return Ok(d.clone());
    }
    match std::env::var_os(ENV) {
        Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
        _ => dirs::cache_dir().map(|c| c.join("ssdlab").join("traces")).ok_or_else(|| {
            Error::Invalid(format!(
                "no cache folder for the traces (neither $XDG_CACHE_HOME nor $HOME is set); expected {ENV} or --traces naming a folder"
            ))
        }),
    }
}

/// The catalogue's trace `name` in the traces folder: there with its recorded size, else an
/// error naming the command that fetches it.
pub fn path(name: &str) -> Result<PathBuf> {
    let Some(t) = find(name) else {
        let names: Vec<&str> = TRACES.iter().map(|t| t.name).collect();
        return Err(Error::Invalid(format!(
            "@{name}: not a public trace of the catalogue; expected one of {}",
            names.join(", ")
        )));
    };
    let d = dir()?;
    let p = d.join(t.name);
    match std::fs::metadata(&p) {
        Ok(m) if m.is_file() && m.len() == t.bytes => verified(&p, &m, t, name),
        Ok(m) if m.is_file() => Err(Error::Invalid(format!(
            "{}: {} bytes, not the public trace's {}; expected it fetched again: `{FETCH} {name}`",
            p.display(),
            m.len(),
            t.bytes
        ))),
        _ => Err(Error::Invalid(format!(
            "{}: the public trace {name} is not there; expected it fetched: `{FETCH} {name}` (or {ENV} or --traces naming a folder that has it)",
            p.display()
        ))),
    }
}

/// The traces folder once every trace of `names` is there whole; else one error naming
/// every one that is not (missing, or not the published bytes) and the one command that
/// fetches them all.
pub fn all_there(names: &[&str]) -> Result<PathBuf> {
    let d = dir()?;
    // (name, why) of each trace that is not there whole, and the first one's own error.
    let mut bad: Vec<(&str, String)> = Vec::new();
    let mut first = None;
    for &n in names {
        if bad.iter().any(|(b, _)| *b == n) {
            continue;
        }
        if let Err(e) = path(n) {
            let why = match find(n) {
                Some(_) if !d.join(n).exists() => format!("{n} missing"),
                Some(_) => format!("{n} not the published bytes"),
                None => e.to_string(),
            };
            bad.push((n, why));
            first.get_or_insert(e);
        }
    }
    match (bad.len(), first) {
        (_, None) => Ok(d),
        (1, Some(e)) => Err(e),
        (n, Some(_)) => Err(Error::Invalid(format!(
            "{}: {n} of the public traces are not there ({}); expected them fetched: `{FETCH} {}` (or {ENV} or --traces naming a folder that has them)",
            d.display(),
            bad.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join(", "),
            bad.iter().map(|(b, _)| *b).collect::<Vec<_>>().join(" ")
        ))),
    }
}

/// `p` (of the right size) when its bytes are the published ones: its SHA-256 is streamed once
/// per process for a given size and modification time (every public trace is a few MB), so
/// a damaged copy of the right size is refused rather than read.
fn verified(p: &Path, m: &std::fs::Metadata, t: &PublicTrace, name: &str) -> Result<PathBuf> {
    use sha2::{Digest, Sha256};
    use std::sync::Mutex;
    static SEEN: Mutex<Vec<(PathBuf, u64, Option<std::time::SystemTime>)>> = Mutex::new(Vec::new());
    let key = (p.to_path_buf(), m.len(), m.modified().ok());
    if SEEN.lock().map(|s| s.contains(&key)).unwrap_or(false) {
        return Ok(p.to_path_buf());
    }
    // Streamed through the hash, never read whole.
    let mut h = Sha256::new();
    let read_err = |e| Error::io(p.display().to_string(), e);
    let mut f = std::fs::File::open(p).map_err(read_err)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = std::io::Read::read(&mut f, &mut buf).map_err(read_err)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    let got = hex::encode(h.finalize());
    if got != t.sha256 {
        return Err(Error::Invalid(format!(
            "{}: SHA-256 {got}, not the public trace's {}; expected it fetched again: `{FETCH} {name}`",
            p.display(),
            t.sha256
        )));
    }
    if let Ok(mut s) = SEEN.lock() {
        s.push(key);
    }
    Ok(p.to_path_buf())
}

/// A trace file as written by the user: `@NAME` is the catalogue's trace NAME ([`path`]);
/// anything else is a path, relative to `base`.
pub fn resolve(base: &Path, file: &str) -> Result<PathBuf> {
    match file.strip_prefix('@') {
        Some(name) => path(name),
        None => Ok(base.join(file)),
    }
}

/// What provides the traces, for a test skipped without them.
pub const TEST_SOURCE: &str =
    "the public traces (`ssdlab traces fetch`), or SSDLAB_TRACES naming ../shared/traces beside the clone";

/// For tests: the traces folder when it holds every file of `names`; else the test is
/// skipped (it fails under `CI`: `ssdlab_base::skip`) with what would run it.
#[doc(hidden)]
pub fn for_test(names: &[&str]) -> Option<PathBuf> {
    let d = match dir() {
        Ok(d) => d,
        Err(e) => {
            ssdlab_base::skip::skip(&e.to_string(), TEST_SOURCE);
            return None;
        }
    };
    let missing: Vec<&str> = names.iter().copied().filter(|n| !d.join(n).is_file()).collect();
    if missing.is_empty() {
        return Some(d);
    }
    ssdlab_base::skip::skip(
        &format!("the traces folder {} lacks {}", d.display(), missing.join(", ")),
        TEST_SOURCE,
    );
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_pinned_and_named_by_its_file() {
        for t in &TRACES {
            assert!(t.url.starts_with("https://raw.githubusercontent.com/"), "{}", t.url);
            // A commit, not a branch.
            let commit = t.url.split('/').nth(5).unwrap();
            assert!(
                commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
                "{}",
                t.url
            );
            assert!(t.url.ends_with(&format!("/{}", t.name)), "{}", t.url);
            assert!(
                t.sha256.len() == 64
                    && t.sha256
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            );
            assert!(t.bytes > 0);
            assert_eq!(find(t.name), Some(t));
        }
        let mut names: Vec<&str> = TRACES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TRACES.len());
        assert_eq!(find("nope"), None);
    }
}
