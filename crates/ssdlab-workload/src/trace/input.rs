//! Opening trace files (transparent decompression by magic bytes) and the generic record
//! streams the readers are built from: [`TextStream`] turns lines into records with a
//! [`LineDecoder`]; binary formats implement [`RecordStream`] directly.

use super::parse::{trim, LineError, LineResult};
use super::TraceRecord;
use crate::{Error, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Buffer size for file and decompressor readers.
pub(crate) const BUF_SIZE: usize = 256 * 1024;
/// Longest accepted text line; longer lines are malformed (keeps memory bounded on binary
/// input read as text).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// A boxed buffered input.
pub(crate) type Input = Box<dyn BufRead + Send>;

/// Compression detected from the first bytes of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Xz,
    Zstd,
}

impl Compression {
    /// The compression's name in messages (`none` for plain files).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// Detect from the magic bytes at the start of a file.
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            // A zstd file may start with a skippable frame (magic 0x184D2A50 to 0x184D2A5F,
            // little-endian), e.g. one holding a seek table or metadata.
            || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
        {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Wrap a raw input in the decompressor its magic bytes call for.
pub(crate) fn decompress(name: &str, raw: Box<dyn Read + Send>) -> Result<(Input, Compression)> {
    let mut raw = BufReader::with_capacity(BUF_SIZE, raw);
    let head = raw.fill_buf().map_err(|e| Error::io(name, e))?;
    let c = Compression::detect(head);
    let input: Input = match c {
        Compression::None => Box::new(raw),
        #[cfg(feature = "gzip")]
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        #[cfg(feature = "bzip2")]
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            bzip2::bufread::MultiBzDecoder::new(raw),
        )),
        #[cfg(feature = "xz")]
        Compression::Xz => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            liblzma::bufread::XzDecoder::new_multi_decoder(raw),
        )),
        #[cfg(feature = "zstd")]
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| Error::io(name, e))?,
        )),
        #[allow(unreachable_patterns)]
        other => return Err(not_built(name, other)),
    };
    Ok((input, c))
}

/// The error for a file compressed with `c` in a build without `c`'s feature.
#[cold]
pub(crate) fn not_built(name: &str, c: Compression) -> Error {
    let c = c.name();
    Error::Invalid(format!(
        "{name}: {c}-compressed, and this build reads no {c} (built without the `{c}` feature); expected the file decompressed, or a build with the feature (the default)"
    ))
}

/// The error for a failed read at `line`. A decompressor's complaint (truncated or corrupt
/// data) is the file's fault and is reported at the line it stopped on.
#[cold]
pub(crate) fn read_error(name: &str, compression: Compression, line: u64, e: io::Error) -> Error {
    use io::ErrorKind::*;
    let data_error = matches!(e.kind(), UnexpectedEof | InvalidData | InvalidInput | Other);
    if compression != Compression::None && data_error {
        let c = compression.name();
        Error::Parse {
            file: name.to_string(),
            line,
            msg: super::parse::one_line(format!(
                "{c} data is truncated or corrupt ({e}); expected a complete {c} stream"
            )),
        }
    } else {
        Error::io(name, e)
    }
}

/// Open a file for reading, decompressing it if needed.
pub(crate) fn open_file(path: &Path) -> Result<(Input, Compression)> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(Error::Invalid(format!("{name}: is a directory; expected a trace file")));
    }
    let f = File::open(path)
        .map_err(|e| Error::Invalid(format!("{name}: cannot open it ({e}); expected a readable trace file")))?;
    decompress(&name, Box::new(f))
}

/// Read up to `n` bytes from the start of `input` and return them with an input that still
/// yields the whole stream (the prefix first).
pub(crate) fn peek(mut input: Input, n: usize) -> io::Result<(Vec<u8>, Input)> {
    let mut prefix = Vec::with_capacity(n.min(1 << 16));
    (&mut input).take(n as u64).read_to_end(&mut prefix)?;
    let rest: Input = Box::new(BufReader::with_capacity(
        BUF_SIZE,
        io::Cursor::new(prefix.clone()).chain(input),
    ));
    Ok((prefix, rest))
}

/// A line must be UTF-8 text: the first invalid byte is reported with its 1-based column.
#[inline]
pub(crate) fn check_utf8(line: &[u8]) -> LineResult<()> {
    if line.is_ascii() {
        return Ok(());
    }
    match std::str::from_utf8(line) {
        Ok(_) => Ok(()),
        Err(e) => Err(non_utf8(line, e.valid_up_to())),
    }
}

#[cold]
pub(crate) fn non_utf8(line: &[u8], at: usize) -> LineError {
    LineError::new(
        "",
        format!("non-UTF-8 byte 0x{:02x} at column {}", line[at], at + 1),
        "text",
    )
}

/// Why a record could not be produced.
pub(crate) enum StreamError {
    /// A malformed line (or binary record) at this line (record) number; skippable.
    Bad { line: u64, err: LineError },
    /// An input error (I/O, corrupt compressed stream); ends the stream.
    Fatal(io::Error),
}

/// A stream of raw records (times as in the file, before rebasing).
pub(crate) trait RecordStream: Send {
    /// The next record, `None` at the end.
    fn next_record(&mut self) -> Option<std::result::Result<TraceRecord, StreamError>>;
    /// Line (text) or record (binary) number of the last record or error returned, 1-based.
    fn line(&self) -> u64;
    /// Binary streams that decode in batches may hand several records at once: replace the
    /// content of `out` with the next records and return `true`, or return `false` (at the
    /// end, before an error, or if the stream does not batch) and let `next_record` speak.
    fn take_batch(&mut self, _out: &mut Vec<TraceRecord>) -> bool {
        false
    }
}

/// Decodes one line of a text format.
pub(crate) trait LineDecoder: Send {
    /// Decode a trimmed, non-empty line that does not start with `#`. `Ok(None)` means the line
    /// carries no request (a header, a summary, a non-I/O event) and is ignored.
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>>;
}

/// A [`RecordStream`] over the lines of a text input, one reused line buffer.
pub(crate) struct TextStream<D> {
    input: Input,
    buf: Vec<u8>,
    line: u64,
    decoder: D,
}

impl<D: LineDecoder> TextStream<D> {
    pub(crate) fn new(input: Input, decoder: D) -> Self {
        TextStream {
            input,
            buf: Vec::with_capacity(256),
            line: 0,
            decoder,
        }
    }

    /// Read the next line into `buf` (without the terminator). `Ok(false)` at the end of input.
    /// A line longer than [`MAX_LINE`] is consumed and reported as too long.
    fn read_line(&mut self) -> io::Result<Option<bool>> {
        self.buf.clear();
        let mut any = false;
        let mut too_long = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(if any { Some(too_long) } else { None });
            }
            any = true;
            let (take, found) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if !too_long {
                let keep = if found { take - 1 } else { take };
                if self.buf.len() + keep > MAX_LINE {
                    too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&avail[..keep]);
                }
            }
            self.input.consume(take);
            if found {
                return Ok(Some(too_long));
            }
        }
    }
}

impl<D: LineDecoder> RecordStream for TextStream<D> {
    fn next_record(&mut self) -> Option<std::result::Result<TraceRecord, StreamError>> {
        loop {
            let too_long = match self.read_line() {
                Ok(None) => return None,
                Ok(Some(t)) => t,
                Err(e) => return Some(Err(StreamError::Fatal(e))),
            };
            self.line += 1;
            if too_long {
                return Some(Err(StreamError::Bad {
                    line: self.line,
                    err: LineError::new(
                        "",
                        format!("line longer than {MAX_LINE} bytes"),
                        "a text trace with shorter lines",
                    ),
                }));
            }
            if let Err(err) = check_utf8(&self.buf) {
                return Some(Err(StreamError::Bad { line: self.line, err }));
            }
            let l = trim(&self.buf);
            if l.is_empty() || l[0] == b'#' {
                continue;
            }
            match self.decoder.decode(l) {
                Ok(Some(r)) => return Some(Ok(r)),
                Ok(None) => continue,
                Err(err) => return Some(Err(StreamError::Bad { line: self.line, err })),
            }
        }
    }

    fn line(&self) -> u64 {
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compression_left_out_of_the_build_is_one_line_naming_its_feature() {
        let e = not_built("t.csv.xz", Compression::Xz).to_string();
        assert_eq!(
            e,
            "t.csv.xz: xz-compressed, and this build reads no xz (built without the `xz` feature); expected the file decompressed, or a build with the feature (the default)"
        );
        assert!(!e.contains('\n'));
    }

    /// A zstd file that starts with a skippable frame (as seekable zstd writes its seek table
    /// or a tool its metadata) is read as zstd, its frames decompressed.
    #[cfg(feature = "zstd")]
    #[test]
    fn a_zstd_file_starting_with_a_skippable_frame_is_read() {
        let text = b"0,h,0,Write,0,4096,1\n";
        let mut file = vec![0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, b'a', b'b', b'c'];
        file.extend(zstd::encode_all(&text[..], 3).unwrap());
        let (mut input, c) = decompress("t.csv.zst", Box::new(std::io::Cursor::new(file))).unwrap();
        assert_eq!(c, Compression::Zstd);
        let mut out = Vec::new();
        input.read_to_end(&mut out).unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn magic_bytes_name_the_compression() {
        for (head, c) in [
            (&[0x1f, 0x8b, 8][..], Compression::Gzip),
            (b"BZh9", Compression::Bzip2),
            (&[0xfd, b'7', b'z', b'X', b'Z', 0x00], Compression::Xz),
            (&[0x28, 0xb5, 0x2f, 0xfd], Compression::Zstd),
            (&[0x50, 0x2a, 0x4d, 0x18], Compression::Zstd),
            (&[0x5f, 0x2a, 0x4d, 0x18], Compression::Zstd),
            (&[0x60, 0x2a, 0x4d, 0x18], Compression::None),
            (&[0x50, 0x2a, 0x4d, 0x19], Compression::None),
            (b"0,Read,", Compression::None),
        ] {
            assert_eq!(Compression::detect(head), c);
        }
    }
}
