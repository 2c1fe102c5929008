//! Snapshot files of preconditioned drives: `ssdlab precondition CONFIG -o FILE` saves the
//! state preconditioning leaves (the FTL, and what preconditioning reported), and
//! `ssdlab run CONFIG --from-snapshot FILE` starts from it instead of preconditioning again:
//! the state a real drive's user would call "aged". A run from a snapshot gives the same result,
//! byte for byte, as one that preconditions itself (tests/snapshot.rs).
//!
//! A snapshot is keyed as [`crate::aged`]'s kept states are: by the resolved device and
//! `[precondition]` it was made with, and by the engine's build ([`BUILD_ID`]). A run whose
//! device or precondition differs is refused, naming the first key that differs; a snapshot of
//! another build is refused, since another engine may age a drive differently.
//!
//! The file, all integers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 16 | `ssdlab snapshot\n` |
//! | 4 | format version (1) |
//! | 8 + n | the header: JSON (build, device, precondition, report), n bytes |
//! | 8 + n | the FTL's state but its maps, MessagePack |
//! | 3 × (8 + n) | the maps as the machine holds them: L2P (u32), P2L (u32), valid bitmap (u64) |
//! | 4 | CRC-32 of everything before it |
//!
//! A file is written whole or not at all ([`crate::output::AtomicFile`]); a short, damaged or
//! foreign file is refused with one line, never read as a state.

use crate::device_config::DeviceConfig;
use crate::ftl::Ftl;
use crate::output::{write_error, AtomicFile, BUILD_ID};
use crate::precondition::{PreconditionConfig, PreconditionReport};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 16] = b"ssdlab snapshot\n";
const VERSION: u32 = 1;

/// A preconditioned drive: the device and precondition it was made with, what preconditioning
/// reported, and the FTL it left.
#[derive(Clone)]
pub struct Snapshot {
    pub device: DeviceConfig,
    pub precondition: PreconditionConfig,
    pub report: PreconditionReport,
    pub ftl: Ftl,
}

#[derive(Serialize, Deserialize)]
struct Header {
    build: String,
    endian: String,
    device: DeviceConfig,
    precondition: PreconditionConfig,
    report: PreconditionReport,
    /// The report's fields a run result leaves out, which its warnings read.
    max_overwrites: f64,
    gc_seen: bool,
}

fn endian() -> &'static str {
    if cfg!(target_endian = "little") {
        "little"
    } else {
        "big"
    }
}

/// Bytes written or read, with their CRC-32.
struct Summed<T> {
    inner: T,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Summed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

impl Snapshot {
    /// Write the snapshot to `path`, whole or not at all; gives the bytes written.
    pub fn save(&self, path: &str) -> Result<u64> {
        let file = AtomicFile::create(path)?;
        let werr = |e: std::io::Error| write_error(Path::new(path), e);
        let mut w = Summed {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            bytes: 0,
        };
        let header = Header {
            build: BUILD_ID.to_string(),
            endian: endian().to_string(),
            device: self.device.clone(),
            precondition: self.precondition.clone(),
            report: self.report.clone(),
            max_overwrites: self.report.max_overwrites,
            gc_seen: self.report.gc_seen,
        };
        let header = serde_json::to_vec(&header).expect("a snapshot header serialises");
        let state = rmp_serde::to_vec(&self.ftl).expect("an FTL's state serialises");
        w.write_all(MAGIC).map_err(werr)?;
        w.write_all(&VERSION.to_le_bytes()).map_err(werr)?;
        for part in [&header[..], &state[..]].into_iter().chain(self.ftl.map_bytes()) {
            w.write_all(&(part.len() as u64).to_le_bytes()).map_err(werr)?;
            w.write_all(part).map_err(werr)?;
        }
        let crc = w.crc.clone().finalize();
        w.write_all(&crc.to_le_bytes()).map_err(werr)?;
        let bytes = w.bytes;
        let file = w.inner.into_inner().map_err(|e| werr(e.into_error()))?;
        file.commit()?;
        Ok(bytes)
    }

    /// Read a snapshot written by [`Snapshot::save`] of this build.
    pub fn load(path: &str) -> Result<Snapshot> {
        Self::open(path)?.read()
    }

    /// Open a snapshot file and read its header (what it is of, and which build wrote it),
    /// checked; [`Opened::read`] reads the rest. A run of another device is refused this way
    /// before the maps are read.
    pub fn open(path: &str) -> Result<Opened> {
        crate::output::check_regular(path, "a snapshot file (`ssdlab precondition -o FILE`)")?;
        let f = std::fs::File::open(path).map_err(|e| Error::Io {
            path: path.to_string(),
            source: e,
        })?;
        let size = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut o = Opened {
            path: path.to_string(),
            size,
            r: Summed {
                inner: BufReader::with_capacity(1 << 20, f),
                crc: crc32fast::Hasher::new(),
                bytes: 0,
            },
            header: None,
        };
        let mut magic = [0u8; 16];
        o.r.read_exact(&mut magic).map_err(|e| o.short(e))?;
        if &magic != MAGIC {
            return Err(o.bad("not an ssdlab snapshot (it does not start with `ssdlab snapshot`)".into()));
        }
        let mut u32b = [0u8; 4];
        o.r.read_exact(&mut u32b).map_err(|e| o.short(e))?;
        let version = u32::from_le_bytes(u32b);
        if version != VERSION {
            return Err(o.bad(format!(
                "snapshot format {version}, which this build does not read (it reads format {VERSION})"
            )));
        }
        let header = o.part()?;
        let header: Header =
            serde_json::from_slice(&header).map_err(|e| o.bad(format!("its header does not read ({e})")))?;
        if header.build != BUILD_ID {
            return Err(Error::Invalid(format!(
                "{path}: written by ssdlab build {}, not by this one ({BUILD_ID}); expected a snapshot of this build (another build's engine may age a drive differently: precondition again with `ssdlab precondition`)",
                header.build
            )));
        }
        if header.endian != endian() {
            return Err(o.bad(format!("written on a {}-endian machine", header.endian)));
        }
        o.header = Some(header);
        Ok(o)
    }

    /// Why a run of `device` preconditioned as `precondition` cannot start from this state:
    /// the first key that differs, with both values; `None` when it can.
    pub fn mismatch(&self, device: &DeviceConfig, precondition: &PreconditionConfig) -> Option<String> {
        mismatch(&self.device, &self.precondition, device, precondition)
    }
}

/// Why a run of `device` preconditioned as `precondition` cannot start from a state of
/// `ours` preconditioned as `ours_pre`.
fn mismatch(
    ours: &DeviceConfig,
    ours_pre: &PreconditionConfig,
    device: &DeviceConfig,
    precondition: &PreconditionConfig,
) -> Option<String> {
    let ours = serde_json::json!({ "device": ours, "precondition": ours_pre });
    let theirs = serde_json::json!({ "device": device, "precondition": precondition });
    first_difference(&ours, &theirs, String::new())
        .map(|(key, a, b)| format!("{key} is {b} in the run but {a} in the snapshot"))
}

/// A snapshot file whose header [`Snapshot::open`] read and checked.
pub struct Opened {
    path: String,
    size: u64,
    r: Summed<BufReader<std::fs::File>>,
    /// Read once `open` has checked it.
    header: Option<Header>,
}

impl Opened {
    fn header(&self) -> &Header {
        self.header.as_ref().expect("an opened snapshot's header")
    }

    /// The device it is of.
    pub fn device(&self) -> &DeviceConfig {
        &self.header().device
    }

    /// The precondition it was made with.
    pub fn precondition(&self) -> &PreconditionConfig {
        &self.header().precondition
    }

    /// As [`Snapshot::mismatch`], from the header.
    pub fn mismatch(&self, device: &DeviceConfig, precondition: &PreconditionConfig) -> Option<String> {
        mismatch(self.device(), self.precondition(), device, precondition)
    }

    fn bad(&self, what: String) -> Error {
        // `what` may quote the file's own bytes (a decoder's "unknown variant ..."): one line.
        Error::Invalid(crate::error::one_line(format!(
            "{}: {what}; expected a snapshot written by `ssdlab precondition -o` of this build",
            self.path
        )))
    }

    fn short(&self, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            self.bad(format!(
                "the file ends early (at byte {} of {}): it is cut short",
                self.r.bytes, self.size
            ))
        } else {
            Error::Io {
                path: self.path.clone(),
                source: e,
            }
        }
    }

    /// The next part's length, checked against what is left of the file before anything is
    /// allocated.
    fn part_len(&mut self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b).map_err(|e| self.short(e))?;
        let n = u64::from_le_bytes(b);
        if n > self.size.saturating_sub(self.r.bytes) {
            return Err(self.bad(format!(
                "a part of {n} bytes at byte {} of a file of {}: it is cut short or damaged",
                self.r.bytes, self.size
            )));
        }
        Ok(n)
    }

    /// The next part.
    fn part(&mut self) -> Result<Vec<u8>> {
        let n = self.part_len()?;
        let mut buf = vec![0u8; n as usize];
        self.r.read_exact(&mut buf).map_err(|e| self.short(e))?;
        Ok(buf)
    }

    /// Read the rest: the FTL's state and maps, and the checksum over the whole file.
    pub fn read(mut self) -> Result<Snapshot> {
        let state = self.part()?;
        let mut ftl: Ftl =
            rmp_serde::from_slice(&state).map_err(|e| self.bad(format!("its FTL state does not read ({e})")))?;
        let header = self.header.take().expect("an opened snapshot's header");
        let geo = crate::redundancy::geometry_of(&header.device, &header.device.name)?;
        if ftl.geo != geo {
            return Err(self.bad("its FTL's geometry is not its device's".into()));
        }
        ftl.load_maps(&mut |buf: &mut [u8]| {
            let n = self.part_len()?;
            if n != buf.len() as u64 {
                return Err(self.bad(format!(
                    "a map of {n} bytes where its device's geometry has {}",
                    buf.len()
                )));
            }
            self.r.read_exact(buf).map_err(|e| self.short(e))
        })?;
        let crc = self.r.crc.clone().finalize();
        let mut u32b = [0u8; 4];
        self.r.read_exact(&mut u32b).map_err(|e| self.short(e))?;
        if u32::from_le_bytes(u32b) != crc {
            return Err(self.bad("its checksum does not match its contents: the file is damaged".into()));
        }
        if self.r.bytes != self.size {
            return Err(self.bad(format!("{} bytes follow its end", self.size - self.r.bytes)));
        }
        // A checksum says the file is as written, not that it was written by this program:
        // every index and count is checked before a run uses it.
        ftl.check_loaded(&crate::device::Device::ftl_params(&header.device, 0))
            .map_err(|e| self.bad(format!("its FTL state does not hold together ({e})")))?;
        // Superblocks, if the state has them, laid out as its device's placement lays them
        // out (a state of another isolation or width would run with its slots mislabelled).
        if let Some(sb) = ftl.superblocks() {
            let layout = match crate::placement::make(&header.device, &ftl.geo) {
                Some((_, layout)) => sb.check_layout(&layout, &ftl.geo),
                None => Err("it has superblocks where its device places writes per plane".into()),
            };
            layout.map_err(|e| self.bad(format!("its FTL state is not its device's ({e})")))?;
        }
        let report = PreconditionReport {
            max_overwrites: header.max_overwrites,
            gc_seen: header.gc_seen,
            ..header.report
        };
        Ok(Snapshot {
            device: header.device,
            precondition: header.precondition,
            report,
            ftl,
        })
    }
}

/// The first leaf where `a` and `b` differ: (dotted key, a's value, b's value).
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: String) -> Option<(String, String, String)> {
    use serde_json::Value;
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let none = Value::Null;
                first_difference(x.get(k).unwrap_or(&none), y.get(k).unwrap_or(&none), join(k))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, join(&i.to_string()))),
        _ if a == b => None,
        _ => Some((at, a.to_string(), b.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_names_its_dotted_key_and_both_values() {
        let a = json!({"device": {"name": "x", "ftl": {"gc": "greedy", "op": 0.25}}, "l": [1, 2]});
        let b = json!({"device": {"name": "x", "ftl": {"gc": "fifo", "op": 0.25}}, "l": [1, 2]});
        assert_eq!(
            first_difference(&a, &b, String::new()),
            Some(("device.ftl.gc".into(), "\"greedy\"".into(), "\"fifo\"".into()))
        );
        assert_eq!(first_difference(&a, &a, String::new()), None);
        let c = json!({"device": {"name": "x", "ftl": {"gc": "greedy", "op": 0.25}}, "l": [1, 3]});
        assert_eq!(
            first_difference(&a, &c, String::new()),
            Some(("l.1".into(), "2".into(), "3".into()))
        );
        let d = json!({"l": [1]});
        assert_eq!(
            first_difference(&json!({"l": [1, 2]}), &d, String::new()),
            Some(("l".into(), "[1,2]".into(), "[1]".into()))
        );
        // A key only one side has.
        assert_eq!(
            first_difference(&json!({"a": 1}), &json!({"a": 1, "b": 2}), String::new()),
            Some(("b".into(), "null".into(), "2".into()))
        );
    }
}
