//! Block-trace readers, statistics, conversion and replay (see docs/traces.md).
//!
//! Every reader streams: memory stays constant whatever the trace length. A [`TraceReader`]
//! yields [`TraceRecord`]s (byte offsets and lengths, nanosecond times) from any supported
//! [`Format`], decompressing `.gz`, `.bz2`, `.xz` and `.zst` inputs by their magic bytes.
//!
//! Layout: one file per format family; [`FORMATS`] is the registry. Adding a format means one
//! file with a decoder (an `input::LineDecoder` for text formats), one [`Format`] variant and
//! one registry entry (plus a rule in `detect.rs` if it can be guessed from content).

pub mod bench;
mod blkparse;
pub mod catalogue;
mod cloud;
#[doc(hidden)]
pub mod contract;
mod detect;
mod fio;
mod input;
mod keys;
mod msr;
pub mod native;
mod parse;
mod ranges;
pub mod replay;
mod sim;
mod spc;
pub mod stats;
pub mod write;
pub mod writer;

pub use input::Compression;
pub use replay::{AddressMode, OpsFilter, ReplayConfig, ReplayCounters, TraceSource};
pub use stats::{StatsOptions, TraceStats, VolumeStats};
pub use write::{convert, ConvertSummary, OutputFormat, TraceWriter};

use crate::{Error, Op, Result};
use input::{Input, RecordStream, StreamError};
use parse::LineError;
use std::fmt;
use std::io::Read;
use std::path::Path;

/// One request of a block trace. Offsets and lengths are in bytes, times in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceRecord {
    /// Arrival time. Formats with wall-clock timestamps (FILETIME, Unix epoch) are rebased to
    /// the first record; the others keep the trace's own time origin.
    pub time_ns: u64,
    /// Device, disk, volume, LUN or ASU number as given by the trace (0 if it has none).
    pub device: u32,
    pub op: Op,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub len: u64,
}

/// A trace format. `Auto` guesses from the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Format {
    #[default]
    Auto,
    Msr,
    MsrCut,
    Spc,
    Mqsim,
    Ssdsim,
    Disksim,
    SsdsimOriginal,
    Blkparse,
    BlkparseD,
    FioIolog,
    Systor17,
    Tencent,
    CloudPhysics,
    Keys,
    KeysBe,
    Native,
}

type Opener = fn(Input) -> Result<Box<dyn RecordStream>, std::io::Error>;

/// Registry entry describing one format.
pub struct FormatInfo {
    pub format: Format,
    /// Name used on the command line and in configs.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The line layout (or record layout), quoted in parse errors.
    pub layout: &'static str,
    /// Rebase times to the first record (wall-clock timestamps).
    rebase: bool,
    open: Opener,
}

/// All formats, in the order `ssdlab trace formats` lists them.
pub static FORMATS: &[FormatInfo] = &[
    msr::MSR,
    msr::MSR_CUT,
    spc::SPC,
    sim::MQSIM,
    sim::SSDSIM,
    sim::DISKSIM,
    sim::SSDSIM_ORIGINAL,
    blkparse::BLKPARSE,
    blkparse::BLKPARSE_D,
    fio::FIO_IOLOG,
    cloud::SYSTOR17,
    cloud::TENCENT,
    cloud::CLOUDPHYSICS,
    keys::KEYS,
    keys::KEYS_BE,
    native::NATIVE,
];

impl Format {
    /// The registry entry (`None` for `Auto`).
    pub fn info(self) -> Option<&'static FormatInfo> {
        FORMATS.iter().find(|i| i.format == self)
    }

    /// The format's name, `auto` for `Auto`.
    pub fn name(self) -> &'static str {
        self.info().map(|i| i.name).unwrap_or("auto")
    }

    /// Look a format up by name (case-insensitive; `_` and `-` are interchangeable).
    pub fn from_name(s: &str) -> Result<Format> {
        let k = s.trim().to_ascii_lowercase().replace('_', "-");
        if k == "auto" {
            return Ok(Format::Auto);
        }
        FORMATS.iter().find(|i| i.name == k).map(|i| i.format).ok_or_else(|| {
            let names: Vec<&str> = FORMATS.iter().map(|i| i.name).collect();
            Error::Invalid(format!(
                "unknown trace format '{}'; expected auto, {}",
                parse::show(s.as_bytes()),
                names.join(", ")
            ))
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        Format::from_name(s)
    }
}

impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Format::from_name(&s).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A selection of devices (disks, volumes, LUNs, ASUs): all of them, or a set of numbers.
/// In a config: a number (`device = 3`) or a list (`device = [0, 3]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Devices(Option<Vec<u32>>);

impl Devices {
    /// Every device.
    pub fn all() -> Devices {
        Devices(None)
    }
    /// Only these devices; an empty list means every device.
    pub fn only(list: impl IntoIterator<Item = u32>) -> Devices {
        let mut v: Vec<u32> = list.into_iter().collect();
        if v.is_empty() {
            return Devices(None);
        }
        v.sort_unstable();
        v.dedup();
        Devices(Some(v))
    }
    pub fn is_all(&self) -> bool {
        self.0.is_none()
    }
    /// Whether records of `device` are selected.
    #[inline]
    pub fn contains(&self, device: u32) -> bool {
        match &self.0 {
            None => true,
            Some(v) if v.len() == 1 => v[0] == device,
            Some(v) => v.binary_search(&device).is_ok(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Devices {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged, expecting = "a device number or a list of device numbers")]
        enum OneOrMany {
            One(u32),
            Many(Vec<u32>),
        }
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(n) => Devices::only([n]),
            OneOrMany::Many(v) => Devices::only(v),
        })
    }
}

impl serde::Serialize for Devices {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(v) if v.len() == 1 => s.serialize_u32(v[0]),
            Some(v) => v.serialize(s),
            None => s.serialize_none(),
        }
    }
}

/// How to open a trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReaderOptions {
    pub format: Format,
    /// Skip malformed lines (counted by [`TraceReader::skipped`]) instead of failing.
    pub skip_bad_lines: bool,
}

/// A streaming trace reader: an iterator of `Result<TraceRecord>`. After an error it ends.
pub struct TraceReader {
    name: String,
    format: Format,
    guessed: bool,
    compression: Compression,
    layout: &'static str,
    stream: Box<dyn RecordStream>,
    skip_bad_lines: bool,
    rebase: bool,
    first_time: Option<u64>,
    records: u64,
    skipped: u64,
    first_skipped: Option<String>,
    done: bool,
    /// Records handed over in a batch by a binary stream, and the next one to return.
    batch: Vec<TraceRecord>,
    batch_next: usize,
}

impl TraceReader {
    /// Open a trace file; `@NAME` is the public trace NAME in the traces folder
    /// ([`catalogue::path`]), named `@NAME` in messages and output.
    pub fn open(path: impl AsRef<Path>, opts: &ReaderOptions) -> Result<TraceReader> {
        let given = path.as_ref();
        let path = match given.to_str().and_then(|s| s.strip_prefix('@')) {
            Some(name) => catalogue::path(name)?,
            None => given.to_path_buf(),
        };
        let (input, c) = input::open_file(&path)?;
        Self::build(given.display().to_string(), input, c, opts)
    }

    /// Read a trace from any byte stream; `name` appears in error messages.
    pub fn from_read(name: &str, r: Box<dyn Read + Send>, opts: &ReaderOptions) -> Result<TraceReader> {
        let (input, c) = input::decompress(name, r)?;
        Self::build(name.to_string(), input, c, opts)
    }

    fn build(name: String, input: Input, compression: Compression, opts: &ReaderOptions) -> Result<TraceReader> {
        let (format, guessed, input) = if opts.format == Format::Auto {
            let (f, input) = detect::guess(&name, compression, input)?;
            (f, true, input)
        } else {
            (opts.format, false, input)
        };
        let info = format
            .info()
            .ok_or_else(|| Error::Invalid("format auto has no reader".into()))?;
        let stream = (info.open)(input).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => Error::Parse {
                file: name.clone(),
                line: 1,
                msg: e.to_string(),
            },
            _ => Error::io(&name, e),
        })?;
        Ok(TraceReader {
            name,
            format,
            guessed,
            compression,
            layout: info.layout,
            stream,
            skip_bad_lines: opts.skip_bad_lines,
            rebase: info.rebase,
            first_time: None,
            records: 0,
            skipped: 0,
            first_skipped: None,
            done: false,
            batch: Vec::new(),
            batch_next: 0,
        })
    }

    /// The format read (the guess if the reader was opened with `Format::Auto`).
    pub fn format(&self) -> Format {
        self.format
    }
    /// Whether the format was guessed from the content.
    pub fn guessed(&self) -> bool {
        self.guessed
    }
    /// The compression detected on the input.
    pub fn compression(&self) -> Compression {
        self.compression
    }
    /// The file name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Records returned so far.
    pub fn records(&self) -> u64 {
        self.records
    }
    /// Malformed lines skipped so far (with `skip_bad_lines`).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }
    /// The first skipped line's error, for a summary message.
    pub fn first_skipped(&self) -> Option<&str> {
        self.first_skipped.as_deref()
    }
    /// Line (record number for binary formats) of the last record returned.
    pub fn line(&self) -> u64 {
        self.stream.line() - (self.batch.len() - self.batch_next) as u64
    }

    fn bad(&mut self, line: u64, err: LineError) -> Option<Error> {
        let msg = err.render(self.layout);
        if self.skip_bad_lines {
            self.skipped += 1;
            if self.first_skipped.is_none() {
                self.first_skipped = Some(format!("{}:{line}: {msg}", self.name));
            }
            None
        } else {
            self.done = true;
            Some(Error::Parse {
                file: self.name.clone(),
                line,
                msg,
            })
        }
    }

    /// An input error that ends the stream. A decompressor's complaint (truncated or corrupt
    /// data) is the file's fault and is reported at the line it stopped on.
    #[cold]
    fn fatal(&mut self, e: std::io::Error) -> Error {
        self.done = true;
        input::read_error(&self.name, self.compression, self.stream.line() + 1, e)
    }
}

impl TraceReader {
    /// Check and rebase a decoded record; `None` if it was malformed and skipped.
    #[inline(always)]
    fn accept(&mut self, mut r: TraceRecord) -> Option<Result<TraceRecord>> {
        if r.len == 0 || r.offset.checked_add(r.len).is_none() {
            return self.reject(r);
        }
        if self.rebase {
            let t0 = *self.first_time.get_or_insert(r.time_ns);
            r.time_ns = r.time_ns.saturating_sub(t0);
        }
        self.records += 1;
        Some(Ok(r))
    }

    #[cold]
    fn reject(&mut self, r: TraceRecord) -> Option<Result<TraceRecord>> {
        let msg = if r.len == 0 {
            LineError::new("size", "zero-length request", "a size of at least 1 byte")
        } else {
            LineError::new(
                "offset",
                format!("offset {} + size {} overflows 64 bits", r.offset, r.len),
                format!("an offset of at most {} for this size", u64::MAX - r.len),
            )
        };
        let line = self.line();
        self.bad(line, msg).map(Err)
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceRecord>;

    #[inline]
    fn next(&mut self) -> Option<Result<TraceRecord>> {
        loop {
            if self.batch_next < self.batch.len() {
                let r = self.batch[self.batch_next];
                self.batch_next += 1;
                match self.accept(r) {
                    Some(x) => return Some(x),
                    None => continue,
                }
            }
            if self.done {
                return None;
            }
            if self.stream.take_batch(&mut self.batch) {
                self.batch_next = 0;
                continue;
            }
            self.batch.clear();
            self.batch_next = 0;
            match self.stream.next_record() {
                None => self.done = true,
                Some(Ok(r)) => {
                    if let Some(x) = self.accept(r) {
                        return Some(x);
                    }
                }
                Some(Err(StreamError::Bad { line, err })) => {
                    if let Some(e) = self.bad(line, err) {
                        return Some(Err(e));
                    }
                }
                Some(Err(StreamError::Fatal(e))) => return Some(Err(self.fatal(e))),
            }
        }
    }
}

/// Shorthand: open a file with a format and default options.
pub fn open(path: impl AsRef<Path>, format: Format) -> Result<TraceReader> {
    TraceReader::open(
        path,
        &ReaderOptions {
            format,
            skip_bad_lines: false,
        },
    )
}

/// Turn a decoder into a registry opener.
macro_rules! text_opener {
    ($decoder:expr) => {{
        fn open(
            input: $crate::trace::input::Input,
        ) -> std::result::Result<Box<dyn $crate::trace::input::RecordStream>, std::io::Error> {
            Ok(Box::new($crate::trace::input::TextStream::new(input, $decoder)))
        }
        open
    }};
}
pub(crate) use text_opener;
