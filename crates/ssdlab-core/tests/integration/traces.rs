//! Trace readers, conversion, statistics and replay, on the real traces of the traces folder
//! (skipped when it lacks them, failing instead when `CI` is set) and on the hand-made
//! samples in `tests/data/traces/`.

use proptest::prelude::*;
use ssdlab_core::trace::contract::{check_reader, check_stats};
use ssdlab_core::trace::{
    self, AddressMode, Devices, Format, OpsFilter, OutputFormat, ReaderOptions, ReplayConfig, StatsOptions,
    TraceReader, TraceRecord, TraceSource, TraceStats, FORMATS,
};
use ssdlab_core::units::Duration;
use ssdlab_core::{Error, Op, RequestSource};
use std::io::Write;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sample(name: &str) -> PathBuf {
    repo().join("tests/data/traces").join(name)
}

/// The files of the traces folder these tests read: the public traces, and three of
/// ../shared/traces outside the catalogue (`SSDLAB_TRACES` names that folder).
fn shared() -> Option<PathBuf> {
    let mut names: Vec<&str> = ssdlab_core::trace::catalogue::TRACES.iter().map(|t| t.name).collect();
    names.extend([
        "msr-cambridge1-sample.csv",
        "systor17-traces-sample.csv.gz",
        "w106.trace.xz",
    ]);
    ssdlab_core::trace::catalogue::for_test(&names)
}

/// A directory removed when the test ends (pass or fail).
fn tmp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("ssdlab-traces-{name}-"))
        .tempdir()
        .unwrap()
}

fn read_all(path: &Path, format: Format) -> (Vec<TraceRecord>, Format) {
    let mut r = trace::open(path, format).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let recs: Vec<TraceRecord> = r.by_ref().map(|x| x.unwrap_or_else(|e| panic!("{e}"))).collect();
    (recs, r.format())
}

fn read_share(recs: &[TraceRecord]) -> f64 {
    recs.iter().filter(|r| r.op == Op::Read).count() as f64 / recs.len() as f64 * 100.0
}

/// (file, explicit format, requests, read %, format guessed by auto).
/// Requests equal the line counts of MANIFEST.md, except wsrch-small.trace whose last line has
/// no newline (24,782 newlines, 24,783 requests) and the header lines of the CSV files.
const SHARED: &[(&str, Format, usize, f64, Format)] = &[
    ("msr-cambridge1-sample.csv", Format::Msr, 1_000, 51.0, Format::Msr),
    (
        "msr.cut.per_10k.rw_20_80.105.trace",
        Format::MsrCut,
        10_000,
        20.0,
        Format::MsrCut,
    ),
    (
        "msr.cut.per_10k.rw_40_60.1370.trace",
        Format::MsrCut,
        10_000,
        41.0,
        Format::MsrCut,
    ),
    (
        "msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        Format::MsrCut,
        10_000,
        83.0,
        Format::MsrCut,
    ),
    ("example.ascii", Format::Ssdsim, 10_000, 41.0, Format::Mqsim),
    ("fin1", Format::SsdsimOriginal, 100, 13.0, Format::SsdsimOriginal),
    ("tpcc-small.trace", Format::Mqsim, 6_999, 63.0, Format::Mqsim),
    ("wsrch-small.trace", Format::Mqsim, 24_783, 99.98, Format::Mqsim),
    (
        "ssd-iozone-aligned2-100K.trace",
        Format::Disksim,
        100_000,
        0.0,
        Format::Disksim,
    ),
    (
        "ssd-postmark-aligned2.trace",
        Format::Disksim,
        62_257,
        83.0,
        Format::Disksim,
    ),
    ("ascii.trace", Format::Disksim, 100_000, 80.0, Format::Disksim),
    (
        "cloudPhysicsIO.csv",
        Format::CloudPhysics,
        113_872,
        41.0,
        Format::CloudPhysics,
    ),
    (
        "systor17-traces-sample.csv.gz",
        Format::Systor17,
        999,
        83.0,
        Format::Systor17,
    ),
];

#[test]
fn shared_traces_counts_and_read_shares() {
    let Some(dir) = shared() else { return };
    for &(file, format, n, read_pct, _) in SHARED {
        let (recs, _) = read_all(&dir.join(file), format);
        assert_eq!(recs.len(), n, "{file}");
        let share = read_share(&recs);
        assert!(
            (share - read_pct).abs() < 0.6,
            "{file}: read share {share:.2}% (expected {read_pct}%)"
        );
        assert!(recs.iter().all(|r| r.len > 0), "{file}");
    }
}

#[test]
fn shared_traces_auto_detection() {
    let Some(dir) = shared() else { return };
    for &(file, explicit, n, _, guess) in SHARED {
        let (recs, f) = read_all(&dir.join(file), Format::Auto);
        assert_eq!(f, guess, "{file}");
        assert_eq!(recs.len(), n, "{file}");
        assert_eq!(recs, read_all(&dir.join(file), explicit).0, "{file}");
    }
}

#[test]
fn shared_trace_units() {
    let Some(dir) = shared() else { return };
    // MSR: FILETIME ticks rebased, bytes.
    let (r, _) = read_all(&dir.join("msr-cambridge1-sample.csv"), Format::Msr);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 0,
            device: 0,
            op: Op::Write,
            offset: 9_056_014_336,
            len: 2048
        }
    );
    assert_eq!(r[1].time_ns, 215 * 100);
    // DiskSim: milliseconds and sectors.
    let (r, _) = read_all(&dir.join("ssd-iozone-aligned2-100K.trace"), Format::Disksim);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 5_265_313_000,
            device: 0,
            op: Op::Write,
            offset: 6_357_144 * 512,
            len: 8 * 512
        }
    );
    // MQSim: nanoseconds and sectors.
    let (r, _) = read_all(&dir.join("tpcc-small.trace"), Format::Mqsim);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 938_513_000,
            device: 4,
            op: Op::Write,
            offset: 264_719_034 * 512,
            len: 16 * 512
        }
    );
    // fin1: the ASU is the device, Type Read/Write.
    let (r, _) = read_all(&dir.join("fin1"), Format::SsdsimOriginal);
    assert_eq!(
        r[1],
        TraceRecord {
            time_ns: 0,
            device: 1,
            op: Op::Write,
            offset: 55_584 * 512,
            len: 16 * 512
        }
    );
    assert_eq!(r[99].op, Op::Read);
    // CloudPhysics: seconds, 512-byte lbn, byte sizes.
    let (r, _) = read_all(&dir.join("cloudPhysicsIO.csv"), Format::CloudPhysics);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 0,
            device: 0,
            op: Op::Write,
            offset: 42_932_745 * 512,
            len: 512
        }
    );
    assert_eq!(r.last().unwrap().time_ns, 7_200 * 1_000_000_000);
    // Heimdall cut: milliseconds, bytes.
    let (r, _) = read_all(&dir.join("msr.cut.per_10k.rw_20_80.105.trace"), Format::MsrCut);
    assert_eq!(
        r[1],
        TraceRecord {
            time_ns: 223_412_000,
            device: 0,
            op: Op::Write,
            offset: 3_159_347_200,
            len: 36_864
        }
    );
}

#[test]
fn shared_keys_trace() {
    let Some(dir) = shared() else { return };
    let mut r = trace::open(dir.join("w106.trace.xz"), Format::Auto).unwrap();
    assert_eq!(r.format(), Format::Keys);
    assert_eq!(r.compression(), trace::Compression::Xz);
    let first: Vec<TraceRecord> = r.by_ref().take(5).map(|x| x.unwrap()).collect();
    assert_eq!(
        first[3].offset / 4096 + 1,
        first[4].offset / 4096,
        "little-endian keys are consecutive"
    );
    assert_eq!(first[4].time_ns, 4);
    assert!(first.iter().all(|x| x.op == Op::Read && x.len == 4096));
    assert_eq!(r.count() + 5, 5_292_456);
}

#[test]
fn spc_sample() {
    let (r, f) = read_all(&sample("spc-sample.spc"), Format::Auto);
    assert_eq!(f, Format::Spc);
    assert_eq!(r.len(), 8);
    assert_eq!(r.iter().filter(|x| x.op == Op::Read).count(), 3);
    assert_eq!(
        r[1],
        TraceRecord {
            time_ns: 0,
            device: 1,
            op: Op::Write,
            offset: 52_000 * 512,
            len: 3072
        }
    );
    assert_eq!(r[2].time_ns, 12_500_000);
    assert_eq!(
        r[6],
        TraceRecord {
            time_ns: 1_250_000_000,
            device: 3,
            op: Op::Write,
            offset: 2000 * 512,
            len: 16384
        }
    );
}

#[test]
fn blkparse_sample() {
    let (r, f) = read_all(&sample("blkparse-sample.txt"), Format::Auto);
    assert_eq!(f, Format::Blkparse);
    let ops: Vec<Op> = r.iter().map(|x| x.op).collect();
    assert_eq!(ops, [Op::Write, Op::Read, Op::Trim, Op::Write, Op::Read]);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 0,
            device: 8 << 20,
            op: Op::Write,
            offset: 1000 * 512,
            len: 8 * 512
        }
    );
    assert_eq!(r[2].len, 64 * 512);
    assert_eq!(r[3].device, 8 << 20 | 16);
    assert_eq!(r[4].time_ns, 5_000_000);
    let (d, _) = read_all(&sample("blkparse-sample.txt"), Format::BlkparseD);
    assert_eq!(d.len(), 3);
    assert_eq!(d[1].time_ns, 1_000_500);
}

#[test]
fn fio_iolog_samples() {
    let (r, f) = read_all(&sample("fio-v2-sample.iolog"), Format::Auto);
    assert_eq!(f, Format::FioIolog);
    assert_eq!(
        r,
        [
            TraceRecord {
                time_ns: 0,
                device: 0,
                op: Op::Write,
                offset: 0,
                len: 4096
            },
            TraceRecord {
                time_ns: 0,
                device: 0,
                op: Op::Read,
                offset: 4096,
                len: 8192
            },
            TraceRecord {
                time_ns: 500_000,
                device: 0,
                op: Op::Trim,
                offset: 65536,
                len: 65536
            },
            // A wait below 100 us is discarded, as fio does.
            TraceRecord {
                time_ns: 500_000,
                device: 1,
                op: Op::Write,
                offset: 1 << 20,
                len: 131072
            },
        ]
    );
    let (r, f) = read_all(&sample("fio-v3-sample.iolog"), Format::Auto);
    assert_eq!(f, Format::FioIolog);
    let times: Vec<u64> = r.iter().map(|x| x.time_ns).collect();
    assert_eq!(times, [120_000, 250_000, 1_000_000, 1_500_000]);
    let ops: Vec<Op> = r.iter().map(|x| x.op).collect();
    assert_eq!(ops, [Op::Read, Op::Write, Op::Trim, Op::Read]);
}

#[test]
fn tencent_sample() {
    let (r, f) = read_all(&sample("tencent-sample.csv"), Format::Auto);
    assert_eq!(f, Format::Tencent);
    assert_eq!(r.len(), 6);
    assert_eq!(
        r[0],
        TraceRecord {
            time_ns: 0,
            device: 1283,
            op: Op::Write,
            offset: 12_469_600 * 512,
            len: 16 * 512
        }
    );
    assert_eq!(
        r[3],
        TraceRecord {
            time_ns: 1_000_000_000,
            device: 27,
            op: Op::Read,
            offset: 9_845_712 * 512,
            len: 64 * 512
        }
    );
    assert_eq!(r.iter().filter(|x| x.op == Op::Read).count(), 3);
}

/// Write `text` to a temp file and read it with `format`.
/// The temporary directory comes back too: the file lives as long as it does.
fn read_text(
    name: &str,
    text: &str,
    format: Format,
    skip: bool,
) -> (Vec<Result<TraceRecord, Error>>, u64, PathBuf, tempfile::TempDir) {
    let dir = tmp_dir(name);
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let mut r = TraceReader::open(
        &p,
        &ReaderOptions {
            format,
            skip_bad_lines: skip,
        },
    )
    .unwrap();
    let v: Vec<_> = r.by_ref().collect();
    (v, r.skipped(), p, dir)
}

/// Read `bytes` as `format` and return the first error, rendered.
fn first_error_bytes(name: &str, bytes: &[u8], format: Format) -> String {
    let dir = tmp_dir(name);
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    let e = match TraceReader::open(
        &p,
        &ReaderOptions {
            format,
            skip_bad_lines: false,
        },
    ) {
        Err(e) => e,
        Ok(mut r) => r
            .by_ref()
            .find_map(|x| x.err())
            .unwrap_or_else(|| panic!("{name}: no error")),
    };
    e.to_string()
}

/// Every reader reports a bad record as `FILE:LINE: KEY: what; expected WHAT` on one line.
#[test]
fn bad_records_name_file_line_key_and_expectation() {
    let msr = "128166385295514663,hm,0,Write,9056014336,2048,2833\n";
    let fio2 = "fio version 2 iolog\n/dev/sda add\n";
    let fio3 = "fio version 3 iolog\n0 /dev/sda add\n";
    let blk = "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n";
    // (format, text, line, key, a word of the message)
    let cases: &[(Format, String, u64, &str, &str)] = &[
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Write,11855\n"),
            2,
            "size",
            "missing",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Write,11x55,512,1\n"),
            2,
            "offset",
            "'11x55'",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Write,1024,-512,1\n"),
            2,
            "size",
            "negative",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Flush,1024,512,1\n"),
            2,
            "op",
            "'Flush'",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Read,1024,0,1\n"),
            2,
            "size",
            "zero-length",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,4294967296,Read,0,512,1\n"),
            2,
            "disk",
            "too large",
        ),
        (
            Format::Msr,
            format!("{msr}184467440737095517,hm,0,Read,0,512,1\n"),
            2,
            "timestamp",
            "overflows",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Read,18446744073709551615,2,1\n"),
            2,
            "offset",
            "overflows",
        ),
        (
            Format::Msr,
            format!("{msr}128166385295514878,hm,0,Read,1,99999999999999999999999,1\n"),
            2,
            "size",
            "too large",
        ),
        (Format::MsrCut, "223.412 0 3159347200 36864 2\n".into(), 1, "op", "'2'"),
        (
            Format::MsrCut,
            "1.0 0 0 512 0\n-1 0 0 512 0\n".into(),
            2,
            "timestamp",
            "negative",
        ),
        (Format::Spc, "0,1,512,r,0.0\n0,1,512,x,0.1\n".into(), 2, "op", "'x'"),
        (
            Format::Spc,
            "0,36028797018963968,512,r,0.0\n".into(),
            1,
            "offset",
            "overflows",
        ),
        (Format::Spc, "0,1,512,r,abc\n".into(), 1, "timestamp", "'abc'"),
        (Format::Mqsim, "0 0 100 8 1\n0 0 100 8 7\n".into(), 2, "op", "'7'"),
        (Format::Ssdsim, "0 0 100 abc 1\n".into(), 1, "size", "'abc'"),
        (
            Format::Disksim,
            "5265.313 0 6357144 8 0\n\n5265.4 0 6357144 x 0\n".into(),
            3,
            "size",
            "'x'",
        ),
        (
            Format::SsdsimOriginal,
            "1\t0\t0\t1\tFlush\t55584\t16\t1\n".into(),
            1,
            "op",
            "'Flush'",
        ),
        (
            Format::Blkparse,
            "  8,0 0 1 0.1 12 Q W 100 + x [dd]\n".into(),
            1,
            "size",
            "'x'",
        ),
        (
            Format::Blkparse,
            format!("{blk}  8,0 0 1 0.1 12 Q W 100 - 8 [dd]\n"),
            2,
            "+",
            "'-'",
        ),
        (
            Format::Blkparse,
            "  8,0 0 1 1e999 12 Q W 100 + 8 [dd]\n".into(),
            1,
            "timestamp",
            "too large",
        ),
        (
            Format::BlkparseD,
            "  8,0 0 1 0.1 12 D R 1x0 + 8 [dd]\n".into(),
            1,
            "offset",
            "'1x0'",
        ),
        (
            Format::FioIolog,
            format!("{fio2}/dev/sda write 0\n"),
            3,
            "size",
            "missing",
        ),
        (
            Format::FioIolog,
            format!("{fio2}/dev/sda frob 0 4096\n"),
            3,
            "op",
            "'frob'",
        ),
        (Format::FioIolog, "/dev/sda write 0 4096\n".into(), 1, "header", "found"),
        (
            Format::FioIolog,
            format!("{fio3}99999999999999999 /dev/sda read 0 4096\n"),
            3,
            "timestamp",
            "overflows",
        ),
        (
            Format::Systor17,
            "1456095145.133076000,0.000806000,X,0,899056122368,131072\n".into(),
            1,
            "op",
            "'X'",
        ),
        (
            Format::Systor17,
            "1456095145.1,0.0008,R,zero,899056122368,131072\n".into(),
            1,
            "lun",
            "'zero'",
        ),
        (
            Format::Tencent,
            "1538323200,12469600,16,2,1283\n".into(),
            1,
            "op",
            "'2'",
        ),
        (
            Format::Tencent,
            "1538323200,12469600,16,1,-3\n".into(),
            1,
            "volume",
            "negative",
        ),
        (
            Format::CloudPhysics,
            "1,5633898,zz,512,42932745\n".into(),
            1,
            "op",
            "'zz'",
        ),
        // Lines cut short, and letters no kernel writes, were once dropped without a word.
        (Format::CloudPhysics, "1,5633899,2\n".into(), 1, "size", "missing"),
        (
            Format::CloudPhysics,
            "1,5633899,28,512\n".into(),
            1,
            "offset",
            "missing",
        ),
        (Format::Blkparse, format!("{blk}  8,0 0 2 0.2\n"), 2, "pid", "missing"),
        (Format::Blkparse, "  8,0 0 2 0.2 12\n".into(), 1, "action", "missing"),
        (Format::Blkparse, "  8,0 0 2 0.2 12 Q\n".into(), 1, "rwbs", "missing"),
        (
            Format::Blkparse,
            "  8,0 0 2 0.2 12 Q W\n".into(),
            1,
            "offset",
            "missing",
        ),
        (
            Format::Blkparse,
            "  8,0 0 2 0.2 12 Q X 100 + 8 [dd]\n".into(),
            1,
            "rwbs",
            "'X'",
        ),
        (
            Format::CloudPhysics,
            "1,5633898,2a,512\n".into(),
            1,
            "offset",
            "missing",
        ),
    ];
    for (i, (format, text, line, key, what)) in cases.iter().enumerate() {
        let name = format!("bad-{i}-{format}.txt");
        let e = first_error_bytes(&name, text.as_bytes(), *format);
        let prefix = format!("{name}:{line}: {key}: ");
        assert!(e.contains(&prefix), "case {i} ({format}): `{prefix}` not in `{e}`");
        assert!(e.contains(what), "case {i} ({format}): `{what}` not in `{e}`");
        assert!(e.contains("; expected "), "case {i} ({format}): {e}");
        assert!(!e.contains('\n'), "case {i} ({format}): {e}");
    }
    // Binary formats: the record number is the line.
    let e = first_error_bytes("short.keys", &[1, 0, 0, 0, 2, 0], Format::Keys);
    assert!(
        e.contains("short.keys:2: key: truncated") && e.contains("; expected whole 4-byte keys"),
        "{e}"
    );
    let e = first_error_bytes("short.keysbe", &[1, 0, 0, 0, 2], Format::KeysBe);
    assert!(e.contains("short.keysbe:2: key: "), "{e}");
    let e = first_error_bytes("hdr.native", b"SSDLABTR", Format::Native);
    assert!(
        e.contains("hdr.native:1: header: ") && e.contains("; expected an ssdlab native trace"),
        "{e}"
    );
    let e = first_error_bytes("op3.native", b"SSDLABTR\x01\0\0\0\0\0\0\0\x03\0", Format::Native);
    assert!(
        e.contains("op3.native:1: record: bad operation code 3; expected "),
        "{e}"
    );
}

/// A non-UTF-8 byte in a text trace is reported at its line and column, whether the format is
/// guessed or given, and never taken for a binary format.
#[test]
fn non_utf8_bytes_in_text_are_reported() {
    let text = b"0 0 100 8 1\n0 0 1\xff0 8 1\n";
    for format in [Format::Auto, Format::Mqsim] {
        let e = first_error_bytes("latin.trace", text, format);
        assert!(
            e.ends_with("latin.trace:2: non-UTF-8 byte 0xff at column 6; expected text"),
            "{format}: {e}"
        );
    }
    // Deeper in the file (past the guessing window of 64 KiB): the reader reports it.
    let mut big = "0 0 100 8 1\n".repeat(10_000).into_bytes();
    big.extend_from_slice(b"1 0 100 8 \xe9\n");
    let e = first_error_bytes("late.trace", &big, Format::Auto);
    assert!(
        e.ends_with("late.trace:10001: non-UTF-8 byte 0xe9 at column 11; expected text"),
        "{e}"
    );
    // Valid UTF-8 beyond ASCII is text (a fio file name).
    let (v, _, _, _dir) = read_text(
        "utf8.iolog",
        "fio version 2 iolog\n/dev/d\u{e9}v write 0 4096\n",
        Format::Auto,
        false,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].is_ok(), "{:?}", v[0]);
    // Skipped and counted like any malformed line.
    let (v, skipped, _, _dir) = read_text("skip-latin.trace", "0 0 100 8 1\n", Format::Mqsim, true);
    assert_eq!((v.len(), skipped), (1, 0));
    let dir = tmp_dir("skip-latin2");
    let p = dir.path().join("t.trace");
    std::fs::write(&p, text).unwrap();
    let mut r = TraceReader::open(
        &p,
        &ReaderOptions {
            format: Format::Mqsim,
            skip_bad_lines: true,
        },
    )
    .unwrap();
    assert_eq!(r.by_ref().count(), 1);
    assert_eq!(r.skipped(), 1);
}

/// File-level errors: one line naming the file and what was expected.
#[test]
fn file_level_errors() {
    let dir = tmp_dir("file-level");
    let e = trace::open(dir.path(), Format::Auto).err().unwrap().to_string();
    assert_eq!(
        e,
        format!("{}: is a directory; expected a trace file", dir.path().display())
    );
    let empty = dir.path().join("empty.trace");
    std::fs::write(&empty, b"").unwrap();
    let e = trace::open(&empty, Format::Auto).err().unwrap().to_string();
    assert!(e.contains("empty.trace: the file is empty; expected "), "{e}");
    // An empty file of a given text format has no records.
    assert_eq!(trace::open(&empty, Format::Mqsim).unwrap().count(), 0);
    let e = Format::from_name("nope").err().unwrap().to_string();
    assert!(
        e.starts_with("unknown trace format 'nope'; expected auto, msr, "),
        "{e}"
    );
    // Truncated compressed files, guessed or not: the decompressor's complaint at a line.
    let text: String = (0..100_000).map(|i| format!("{i} 0 {i} 8 1\n")).collect();
    let gz = {
        use std::io::Write;
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(text.as_bytes()).unwrap();
        w.finish().unwrap()
    };
    let cut = dir.path().join("cut.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    for format in [Format::Auto, Format::Mqsim] {
        let mut r = trace::open(&cut, format).unwrap();
        let errs: Vec<String> = r.by_ref().filter_map(|x| x.err()).map(|e| e.to_string()).collect();
        assert_eq!(errs.len(), 1, "{errs:?}");
        let e = &errs[0];
        assert!(
            e.contains("cut.gz:") && e.contains(": gzip data is truncated or corrupt"),
            "{e}"
        );
        assert!(
            e.contains("; expected a complete gzip stream") && !e.contains('\n'),
            "{e}"
        );
        // The line is the one after the last record read.
        let line: u64 = e.split(':').nth(1).unwrap().parse().unwrap();
        assert_eq!(line, r.records() + 1, "{e}");
    }
    let head = dir.path().join("head.gz");
    std::fs::write(&head, &gz[..100]).unwrap();
    let e = trace::open(&head, Format::Auto).err().unwrap().to_string();
    assert!(e.contains("head.gz:1: gzip data is truncated or corrupt"), "{e}");
}

/// With skip-bad-lines, a line the readers cannot decode is counted, never dropped unseen;
/// lines that are not requests (other actions, flushes, commands that move no data, headers)
/// are neither records nor skipped lines.
#[test]
fn skipped_lines_count_cut_and_unknown_records() {
    let blk = "  8,0 0 1 0.1 12 Q W 100 + 8 [dd]\n  8,0 0 2 0.2\n  8,0 0 3 0.3 12 Q X 100 + 8 [dd]\n  8,0 0 4 0.4 12 Q W\n  8,0 0 5 0.5 12 C W 100 + 8 [0]\n  8,0 0 6 0.6 12 Q FWS [dd]\nCPU0 (8,0):\n";
    let (v, skipped, _, _dir) = read_text("skip-blk.trace", blk, Format::Blkparse, true);
    assert_eq!((v.len(), skipped), (1, 3));
    let cp = "version,time,op,size,lbn\n1,5633898,28,512,42932745\n1,5633899,2\n1,5633900,35,0,0\n";
    let (v, skipped, _, _dir) = read_text("skip-cp.csv", cp, Format::CloudPhysics, true);
    assert_eq!((v.len(), skipped), (1, 1));
}

#[test]
fn skip_bad_lines_counts() {
    let text = "0 0 100 8 1\n0 0 1x0 8 1\n\n# comment\n5 0 100 -8 0\n6 0 100\n7 1 200 8 0\n8 1 200 0 0\n";
    let (v, skipped, _, _dir) = read_text("skip.trace", text, Format::Mqsim, true);
    assert_eq!(skipped, 4);
    let recs: Vec<TraceRecord> = v.into_iter().map(|x| x.unwrap()).collect();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[1].time_ns, 7);
}

#[test]
fn compressed_inputs_by_magic() {
    let src = sample("spc-sample.spc");
    let data = std::fs::read(&src).unwrap();
    let (plain, _) = read_all(&src, Format::Spc);
    let dir = tmp_dir("compressed");
    // Names without the usual extensions: detection is by content.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&data).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&data).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&data).unwrap();
    let files = [
        ("a.gzip-data", gz.finish().unwrap(), trace::Compression::Gzip),
        ("b.bzip-data", bz.finish().unwrap(), trace::Compression::Bzip2),
        ("c.xz-data", xz.finish().unwrap(), trace::Compression::Xz),
        (
            "d.zst",
            zstd::encode_all(&data[..], 3).unwrap(),
            trace::Compression::Zstd,
        ),
    ];
    for (name, bytes, c) in files {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let mut r = trace::open(&p, Format::Auto).unwrap();
        assert_eq!(r.compression(), c, "{name}");
        assert_eq!(r.format(), Format::Spc, "{name}");
        let recs: Vec<TraceRecord> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(recs, plain, "{name}");
    }
}

fn convert_file(src: &Path, to: OutputFormat, out: &Path) -> trace::ConvertSummary {
    let mut r = trace::open(src, Format::Auto).unwrap();
    let f = std::fs::File::create(out).unwrap();
    let mut w = to.writer(Box::new(f), &out.display().to_string()).unwrap();
    trace::convert(&mut r, w.as_mut(), &Devices::all()).unwrap()
}

fn round_trip_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "spc-sample.spc",
        "blkparse-sample.txt",
        "fio-v2-sample.iolog",
        "fio-v3-sample.iolog",
        "tencent-sample.csv",
    ]
    .iter()
    .map(|f| sample(f))
    .collect();
    if let Some(d) = shared() {
        v.extend(SHARED.iter().map(|(f, ..)| d.join(f)));
    }
    v
}

#[test]
fn native_round_trip_is_identical() {
    let dir = tmp_dir("native");
    for src in round_trip_files() {
        let out = dir.path().join("out.native");
        let s = convert_file(&src, OutputFormat::Native, &out);
        let (orig, _) = read_all(&src, Format::Auto);
        let (back, f) = read_all(&out, Format::Auto);
        assert_eq!(f, Format::Native);
        assert_eq!(s.written as usize, orig.len());
        assert_eq!(back, orig, "{}", src.display());
    }
    // Extreme values survive the delta encoding.
    let recs = [
        TraceRecord {
            time_ns: u64::MAX,
            device: u32::MAX,
            op: Op::Trim,
            offset: u64::MAX - 1,
            len: 1,
        },
        TraceRecord {
            time_ns: 0,
            device: 0,
            op: Op::Read,
            offset: 0,
            len: u64::MAX,
        },
        TraceRecord {
            time_ns: 5,
            device: 0,
            op: Op::Write,
            offset: 0,
            len: u64::MAX,
        },
    ];
    let p = dir.path().join("extreme.native");
    let mut w = OutputFormat::Native
        .writer(Box::new(std::fs::File::create(&p).unwrap()), "x")
        .unwrap();
    for r in &recs {
        w.write_record(r).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(read_all(&p, Format::Native).0, recs);
}

#[test]
fn native_truncated_and_bad_magic() {
    let dir = tmp_dir("native-bad");
    let out = dir.path().join("t.native");
    convert_file(&sample("spc-sample.spc"), OutputFormat::Native, &out);
    let mut bytes = std::fs::read(&out).unwrap();
    bytes.pop();
    std::fs::write(&out, &bytes).unwrap();
    let mut r = trace::open(&out, Format::Native).unwrap();
    let res: Vec<_> = r.by_ref().collect();
    assert_eq!(res.len(), 8);
    let e = res[7].as_ref().unwrap_err().to_string();
    assert!(e.contains("t.native:8: record: truncated record; expected "), "{e}");
    std::fs::write(&out, b"NOTANATIVETRACE!").unwrap();
    let e = trace::open(&out, Format::Native).err().unwrap().to_string();
    assert!(e.contains("magic"), "{e}");
}

#[test]
fn fio_iolog_round_trip() {
    let dir = tmp_dir("fio");
    for src in round_trip_files() {
        let out = dir.path().join("out.iolog");
        convert_file(&src, OutputFormat::FioIolog, &out);
        let (orig, _) = read_all(&src, Format::Auto);
        let (back, f) = read_all(&out, Format::Auto);
        assert_eq!(f, Format::FioIolog);
        assert_eq!(back.len(), orig.len(), "{}", src.display());
        // Devices are renumbered in order of first appearance; times are kept in microseconds.
        let mut devs: Vec<u32> = Vec::new();
        for (a, b) in orig.iter().zip(&back) {
            if !devs.contains(&a.device) {
                devs.push(a.device);
            }
            let dev = devs.iter().position(|&d| d == a.device).unwrap() as u32;
            assert_eq!((b.op, b.offset, b.len, b.device), (a.op, a.offset, a.len, dev));
            assert_eq!(b.time_ns, a.time_ns / 1000 * 1000);
        }
    }
}

#[test]
fn fio_replays_converted_iolog() {
    if ssdlab_core::skip::tool("fio", "fio").is_none() {
        return;
    }
    let dir = tmp_dir("fio-replay");
    let iolog = dir.path().join("t.iolog");
    convert_file(&sample("fio-v3-sample.iolog"), OutputFormat::FioIolog, &iolog);
    let target = dir.path().join("dev.img");
    std::fs::File::create(&target).unwrap().set_len(4 << 20).unwrap();
    let out = std::process::Command::new("fio")
        .arg("--name=replay")
        .arg(format!("--read_iolog={}", iolog.display()))
        .arg(format!("--replay_redirect={}", target.display()))
        .arg("--ioengine=psync")
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout[out.stdout.iter().position(|&b| b == b'{').unwrap()..]).unwrap();
    let job = &v["jobs"][0];
    assert_eq!(job["read"]["total_ios"], 2);
    assert_eq!(job["write"]["total_ios"], 1);
    // The trim is in the log; whether fio issues it depends on the target (not on a plain file).
}

#[test]
fn mqsim_and_msr_writers() {
    let dir = tmp_dir("writers");
    let src = sample("blkparse-sample.txt");
    let (orig, _) = read_all(&src, Format::Blkparse);
    for (to, f) in [(OutputFormat::Mqsim, Format::Mqsim), (OutputFormat::Msr, Format::Msr)] {
        let out = dir.path().join(to.name());
        let s = convert_file(&src, to, &out);
        assert_eq!(s.dropped, 1, "the trim is dropped");
        let (back, guessed) = read_all(&out, Format::Auto);
        assert_eq!(guessed, f);
        let kept: Vec<TraceRecord> = orig.iter().filter(|r| r.op != Op::Trim).copied().collect();
        assert_eq!(back.len(), kept.len());
        for (a, b) in kept.iter().zip(&back) {
            assert_eq!((a.op, a.offset, a.len, a.device), (b.op, b.offset, b.len, b.device));
        }
    }
}

fn records(v: &[(u64, Op, u64, u64)]) -> Vec<TraceRecord> {
    v.iter()
        .map(|&(t, op, o, l)| TraceRecord {
            time_ns: t,
            device: 0,
            op,
            offset: o,
            len: l,
        })
        .collect()
}

#[test]
fn stats_definitions() {
    use ssdlab_core::trace::stats::StatsBuilder;
    // Page 0: 10 reads (read-intensive); page 1: 10 writes (write-intensive);
    // page 2: 5 reads + 5 writes (mixed); page 3: 1 read.
    let mut v = Vec::new();
    for i in 0..10 {
        v.push((i * 10, Op::Read, 0, 4096));
        v.push((i * 10 + 1, Op::Write, 4096, 4096));
    }
    for i in 0..5 {
        v.push((200 + i, Op::Read, 8192, 4096));
        v.push((300 + i, Op::Write, 8192, 4096));
    }
    v.push((400, Op::Read, 12288, 4096));
    v.push((500, Op::Trim, 1 << 30, 1 << 20));
    let mut b = StatsBuilder::default();
    for r in records(&v) {
        b.add(&r).unwrap();
    }
    let s = b.finish("t", "test", 0);
    assert_eq!(s.requests, 32);
    assert_eq!((s.ops.read, s.ops.write, s.ops.trim), (16, 15, 1));
    assert_eq!(s.footprint_pages, 4);
    let c = &s.access_classes;
    assert_eq!(
        (c.read_intensive.pages, c.write_intensive.pages, c.mixed.pages),
        (2, 1, 1)
    );
    assert_eq!(
        (c.read_intensive.accesses, c.write_intensive.accesses, c.mixed.accesses),
        (11, 10, 10)
    );
    assert!((c.mixed.access_share - 10.0 / 31.0).abs() < 1e-12);
    assert!((c.read_intensive.page_share - 0.5).abs() < 1e-12);
    // 3 read pages with 10, 5, 1 reads: the top 1 % (one page) gets 10/16.
    assert_eq!(s.read_concentration[0].pages, 1);
    assert!((s.read_concentration[0].read_share - 10.0 / 16.0).abs() < 1e-12);
    // Sequential: the first write at 8192 follows a write ending at 8192, and the read at
    // 12288 follows a read ending at 12288; nothing else does.
    assert_eq!(s.sequential_share, 2.0 / 32.0);
    assert_eq!(s.size_histogram.iter().map(|b| b.count).sum::<u64>(), 32);
    assert_eq!(s.size_histogram[0].min_bytes, 4096);
    assert_eq!(s.duration_ns, 500);
    // Deterministic rendering.
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        serde_json::to_string(&b.finish("t", "test", 0)).unwrap()
    );
    assert!(s.to_string().contains("read-intensive"));
}

#[test]
fn stats_on_shared_trace_with_device_filter() {
    let Some(dir) = shared() else { return };
    let mut r = trace::open(dir.join("tpcc-small.trace"), Format::Auto).unwrap();
    let all = TraceStats::compute(&mut r, &StatsOptions::default()).unwrap();
    assert_eq!(all.requests, 6_999);
    assert!((all.read_share() - 0.63).abs() < 0.01);
    let only = |devices: Devices| {
        let mut r = trace::open(dir.join("tpcc-small.trace"), Format::Auto).unwrap();
        TraceStats::compute(
            &mut r,
            &StatsOptions {
                devices,
                ..StatsOptions::default()
            },
        )
        .unwrap()
    };
    let dev3 = only(Devices::only([3]));
    assert_eq!(dev3.requests, 461);
    // Per-volume counts: 16 volumes that add up to the whole, volume 3 as when filtered alone.
    assert_eq!(all.volumes.len(), 16);
    assert_eq!(all.volumes.iter().map(|v| v.requests).sum::<u64>(), all.requests);
    assert_eq!(all.volumes.iter().map(|v| v.bytes.read).sum::<u64>(), all.bytes.read);
    let v3 = all.volumes[3];
    assert_eq!(
        (v3.volume, v3.requests, v3.ops, v3.bytes),
        (3, 461, dev3.ops, dev3.bytes)
    );
    assert_eq!((v3.offset_min, v3.offset_end), (7_554_612_736, 193_510_740_992));
    assert_eq!(dev3.volumes, vec![v3]);
    // Two volumes selected: their requests and nothing else.
    let two = only(Devices::only([3, 0]));
    assert_eq!(two.requests, 437 + 461);
    assert_eq!(two.volumes.iter().map(|v| v.volume).collect::<Vec<_>>(), [0, 3]);
    // Capped at 4 volumes: the first four by first appearance are listed, the rest counted.
    let mut r = trace::open(dir.join("tpcc-small.trace"), Format::Auto).unwrap();
    let capped = TraceStats::compute(
        &mut r,
        &StatsOptions {
            max_volumes: 4,
            ..StatsOptions::default()
        },
    )
    .unwrap();
    assert_eq!(capped.volumes.len(), 4);
    assert_eq!(
        capped.volumes.iter().map(|v| v.requests).sum::<u64>() + capped.other_volumes_requests,
        6_999
    );
    assert!(capped.other_volumes_requests > 0);
    assert!(capped.to_string().contains("more than 4 volumes"), "{capped}");
    for v in &capped.volumes {
        assert_eq!(Some(v), all.volumes.iter().find(|a| a.volume == v.volume));
    }
}

fn replay_all(cfg: &ReplayConfig, dir: &Path, cap: u64) -> Result<(Vec<ssdlab_core::Request>, TraceSource), Error> {
    let mut src = TraceSource::open(cfg, dir, cap)?;
    let mut v = Vec::new();
    while let Some(r) = src.next_request(0)? {
        v.push(r);
    }
    Ok((v, src))
}

#[test]
fn replay_filters_window_speed_and_rebase() {
    let dir = repo().join("tests/data");
    let mut cfg = ReplayConfig::new("traces/spc-sample.spc");
    cfg.device = Devices::only([0]);
    let (v, src) = replay_all(&cfg, &dir, 1 << 30).unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0].time_ns, 0);
    assert_eq!(v[2].time_ns, 500_000_000);
    let c = src.counters();
    assert_eq!((c.read, c.filtered, c.replayed), (8, 5, 3));
    assert_eq!(src.format(), Format::Spc);

    let mut cfg = ReplayConfig::new("traces/spc-sample.spc");
    cfg.ops = OpsFilter::Read;
    cfg.speed = 2.0;
    let (v, _) = replay_all(&cfg, &dir, 1 << 30).unwrap();
    assert_eq!(
        v.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
        [0, 5_625_000, 990_000_000]
    );

    let mut cfg = ReplayConfig::new("traces/spc-sample.spc");
    cfg.start = Some(Duration(20_000_000));
    cfg.end = Some(Duration(1_000_000_000));
    cfg.max_requests = Some(2);
    let (v, _) = replay_all(&cfg, &dir, 1 << 30).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(
        (v[0].offset, v[0].time_ns, v[1].time_ns),
        (240_000 * 512, 0, 11_250_000)
    );
}

#[test]
fn replay_address_modes() {
    let dir = repo().join("tests/data");
    let cfg = ReplayConfig::new("traces/tencent-sample.csv");
    // Keep: beyond capacity is an error naming file, line and capacity.
    let e = replay_all(&cfg, &dir, 1 << 30).err().unwrap().to_string();
    assert!(
        e.contains("tencent-sample.csv:1:") && e.contains("1073741824") && e.contains("wrap"),
        "{e}"
    );
    // Wrap: inside the capacity, page offset kept.
    let mut cfg = ReplayConfig::new("traces/tencent-sample.csv");
    cfg.address = AddressMode::Wrap;
    let cap = 1 << 30;
    let (v, _) = replay_all(&cfg, &dir, cap).unwrap();
    assert_eq!(v.len(), 6);
    assert!(v.iter().all(|r| r.offset + r.len <= cap));
    assert_eq!(v[0].offset, (12_469_600u64 * 512) % cap);
    // A request crossing the end starts over at page 0.
    let (v, _) = replay_all(&cfg, &dir, 12_469_600 * 512 + 4096).unwrap();
    assert_eq!(v[0].offset, 0);
    // Compact: dense pages in order of first touch.
    cfg.address = AddressMode::Compact;
    let (v, src) = replay_all(&cfg, &dir, 1 << 20).unwrap();
    assert_eq!(v[0].offset, 0);
    assert_eq!(v[0].len, 8192);
    assert_eq!(v[1].offset, 8192);
    assert_eq!(v[2].offset, 12288, "new pages after the first two requests");
    assert_eq!(src.compact_pages(), 2 + 1 + 2 + 8 + 8 + 1);
    assert!(v.iter().all(|r| r.offset + r.len <= 1 << 20));
    // Footprint larger than the capacity.
    let e = replay_all(&cfg, &dir, 8 * 4096).err().unwrap().to_string();
    assert!(e.contains("footprint"), "{e}");
}

#[test]
fn replay_compact_splits_non_contiguous_pages() {
    let dir = tmp_dir("compact");
    std::fs::write(dir.path().join("t.trace"), "0 0 8 8 0\n1 0 0 24 0\n").unwrap();
    let mut cfg = ReplayConfig::new("t.trace");
    cfg.format = Format::Mqsim;
    cfg.address = AddressMode::Compact;
    let (v, src) = replay_all(&cfg, dir.path(), 1 << 20).unwrap();
    // Page 1 -> 0; then pages 0, 1, 2 -> 1, 0, 2: three pieces.
    let pieces: Vec<(u64, u64)> = v.iter().map(|r| (r.offset, r.len)).collect();
    assert_eq!(pieces, [(0, 4096), (4096, 4096), (0, 4096), (8192, 4096)]);
    assert_eq!(src.counters().split, 1);
}

#[test]
fn replay_config_from_toml() {
    let cfg: ReplayConfig = toml::from_str(
        "file = \"x.csv\"\nformat = \"msr\"\ndevice = 2\nstart = \"1s\"\nend = \"2.5s\"\nops = \"write\"\naddress = \"compact\"\nspeed = 4.0\nskip_bad_lines = true\nmax_requests = 10\n",
    )
    .unwrap();
    assert_eq!(cfg.format, Format::Msr);
    assert_eq!(cfg.end, Some(Duration(2_500_000_000)));
    assert_eq!(cfg.address, AddressMode::Compact);
    let e = toml::from_str::<ReplayConfig>("file = \"x\"\nspeeed = 2.0\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("speeed"), "{e}");
    let e = toml::from_str::<ReplayConfig>("file = \"x\"\nformat = \"nope\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown trace format"), "{e}");
    let mut c = ReplayConfig::new("x");
    c.speed = 0.0;
    let e = c.validate("run.toml", "job[0].trace").unwrap_err().to_string();
    assert!(
        e.starts_with("run.toml: job[0].trace.speed: must be a positive number, got 0; expected "),
        "{e}"
    );
    // One device, a list of them, or the same list under the name `volumes`.
    let cfg: ReplayConfig = toml::from_str("file = \"x\"\ndevice = [3, 0, 3]\n").unwrap();
    assert_eq!(cfg.device, Devices::only([0, 3]));
    let cfg: ReplayConfig = toml::from_str("file = \"x\"\nvolumes = [7]\n").unwrap();
    assert_eq!(cfg.device, Devices::only([7]));
    assert!(cfg.device.contains(7) && !cfg.device.contains(0));
    let e = toml::from_str::<ReplayConfig>("file = \"x\"\ndevice = \"a\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("a device number or a list of device numbers"), "{e}");
}

#[test]
fn explicit_format_wins_and_unknown_content_is_reported() {
    let (v, _, _, _dir) = read_text("x.csv", "0,1,512,r,0.0\n", Format::Tencent, false);
    assert!(
        v[0].is_err(),
        "SPC content read as Tencent fails rather than being guessed"
    );
    let dir = tmp_dir("unknown");
    let p = dir.path().join("u.txt");
    std::fs::write(&p, "hello world\n").unwrap();
    let e = trace::open(&p, Format::Auto).err().unwrap().to_string();
    assert!(e.contains("u.txt") && e.contains("guess"), "{e}");
    assert!(Format::from_name("nope").is_err());
    for f in FORMATS {
        assert_eq!(Format::from_name(f.name).unwrap(), f.format);
    }
}

/// Parse speed of files listed in `SSDLAB_BENCH_FILES` (`path:format,...`). Run with
/// `cargo test --release -p ssdlab-core --test integration traces:: parse_speed_report -- --ignored --nocapture`.
#[test]
#[ignore]
fn parse_speed_report() {
    let list = std::env::var("SSDLAB_BENCH_FILES").unwrap_or_default();
    for item in list.split(',').filter(|s| !s.is_empty()) {
        let (path, format) = item.rsplit_once(':').unwrap_or((item, "auto"));
        let format = Format::from_name(format).unwrap();
        let mut best: Option<trace::bench::ParseSpeed> = None;
        for _ in 0..3 {
            let s = trace::bench::parse_speed(Path::new(path), format).unwrap();
            if best.as_ref().is_none_or(|b| s.seconds < b.seconds) {
                best = Some(s);
            }
        }
        let s = best.unwrap();
        println!(
            "{path}: {} {} lines {} records {:.3}s {:.2} M lines/s",
            s.format,
            s.lines,
            s.records,
            s.seconds,
            s.lines_per_second() / 1e6
        );
    }
}

/// One request covering 2^50 bytes (and one at an offset near 2^60): counted at once, not page
/// by page, so the statistics finish immediately with exact figures.
#[test]
fn stats_of_huge_requests_are_exact_and_bounded() {
    // mqsim: sectors. 2^41 sectors = 2^50 bytes at offset 0; 8 sectors at 2^51 sectors.
    let text = "0 0 0 2199023255552 0\n10 0 8 8 1\n20 1 2251799813685248 8 1\n";
    let (_, _, p, _dir) = read_text("huge.trace", text, Format::Mqsim, false);
    let mut r = trace::open(&p, Format::Mqsim).unwrap();
    let s = TraceStats::compute(&mut r, &StatsOptions::default()).unwrap();
    assert_eq!(s.requests, 3);
    assert_eq!((s.bytes.write, s.bytes.read), (1 << 50, 2 * 4096));
    // 2^38 pages written, page 1 also read; the read at 2^60 bytes is one more page.
    assert_eq!(s.footprint_pages, (1 << 38) + 1);
    let c = &s.access_classes;
    assert_eq!(
        (c.write_intensive.pages, c.mixed.pages, c.read_intensive.pages),
        ((1 << 38) - 1, 1, 1)
    );
    assert_eq!(
        c.write_intensive.accesses + c.mixed.accesses + c.read_intensive.accesses,
        (1 << 38) + 2
    );
    assert_eq!(s.volumes[1].offset_min, 1 << 60);
    assert_eq!(s.volumes[1].offset_end, (1 << 60) + 4096);
    // A request over the whole 64-bit address space: 2^52 pages, whose 2^64 bytes saturate.
    let whole = format!("0 0 0 {} 1\n", (1u64 << 55) - 1);
    let (_, _, p2, _dir2) = read_text("whole.trace", &whole, Format::Mqsim, false);
    let mut r = trace::open(&p2, Format::Mqsim).unwrap();
    let s = TraceStats::compute(&mut r, &StatsOptions::default()).unwrap();
    assert_eq!(s.footprint_pages, 1 << 52);
    assert_eq!(s.footprint_bytes, u64::MAX);
    // Pages and runs are capped (here: the run of the first request and the page of the
    // second): a trace needing more is an error at the record, not a bigger map.
    let mut r = trace::open(&p, Format::Mqsim).unwrap();
    let e = TraceStats::compute(
        &mut r,
        &StatsOptions {
            max_page_runs: 2,
            ..StatsOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("huge.trace:3: offset: ") && e.contains("; expected at most --max-page-runs 2"),
        "{e}"
    );
    // Two writes of 2^63 bytes take the written bytes past u64::MAX: an error at the second,
    // which is left uncounted, never a wrapped or saturated total.
    let text = format!("0 0 0 {0} 0\n10 0 0 8 1\n20 0 0 {0} 0\n", 1u64 << 54);
    let (_, _, p3, _dir3) = read_text("wide.trace", &text, Format::Mqsim, false);
    let mut r = trace::open(&p3, Format::Mqsim).unwrap();
    let e = TraceStats::compute(&mut r, &StatsOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!("{}:3: size: the write of {} bytes takes the trace's write bytes past 2^64 - 1 (16 EiB); expected request sizes in bytes", p3.display(), 1u64 << 63),
    );
    let mut b = ssdlab_core::trace::stats::StatsBuilder::default();
    let mut rec = TraceRecord {
        time_ns: 0,
        device: 0,
        op: Op::Write,
        offset: 0,
        len: 1 << 63,
    };
    b.add(&rec).unwrap();
    rec.op = Op::Read;
    b.add(&rec).unwrap();
    rec.op = Op::Write;
    assert_eq!(b.add(&rec), Err(ssdlab_core::trace::stats::AddError::Bytes));
    rec.len = (1 << 63) - 1;
    b.add(&rec).unwrap();
    let s = b.finish("t", "native", 0);
    assert_eq!((s.requests, s.bytes.write, s.bytes.read), (3, u64::MAX, 1 << 63));
    assert_eq!(s.volumes[0].bytes, s.bytes);
}

/// Per-page counts kept as runs give what counting page by page gives.
fn naive_page_stats(recs: &[TraceRecord]) -> (u64, [u64; 3], [u64; 3], Vec<u64>) {
    use std::collections::BTreeMap;
    let mut pages: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for r in recs.iter().filter(|r| r.op != Op::Trim) {
        for p in r.offset / 4096..=(r.offset + r.len - 1) / 4096 {
            let e = pages.entry(p).or_default();
            if r.op == Op::Read {
                e.0 += 1
            } else {
                e.1 += 1
            }
        }
    }
    let (mut cp, mut ca) = ([0; 3], [0; 3]);
    let mut reads: Vec<u64> = Vec::new();
    for &(r, w) in pages.values() {
        let a = r + w;
        let i = if r as f64 > 0.9 * a as f64 {
            0
        } else if w as f64 > 0.9 * a as f64 {
            1
        } else {
            2
        };
        cp[i] += 1;
        ca[i] += a;
        if r > 0 {
            reads.push(r);
        }
    }
    reads.sort_unstable_by(|a, b| b.cmp(a));
    let top = [1u64, 5, 10, 20]
        .iter()
        .map(|&pct| reads[..(reads.len() as u64 * pct).div_ceil(100) as usize].iter().sum())
        .collect();
    (pages.len() as u64, cp, ca, top)
}

#[test]
fn stats_volume_cap_of_zero() {
    // With no volume tracked every request is counted as "further volumes".
    let (_, _, p, _dir) = read_text("vol0.trace", "0 0 0 8 0\n1 5 0 8 1\n", Format::Mqsim, false);
    let mut r = trace::open(&p, Format::Mqsim).unwrap();
    let s = TraceStats::compute(
        &mut r,
        &StatsOptions {
            max_volumes: 0,
            ..StatsOptions::default()
        },
    )
    .unwrap();
    assert_eq!((s.volumes.len(), s.other_volumes_requests, s.requests), (0, 2, 2));
}

/// A `[job.trace]` error names the config file and the full key.
#[test]
fn replay_config_errors_name_file_and_key() {
    let dir = tmp_dir("replay-keys");
    let base = "[device]\npreset = \"mlc-sata\"\n[[job]]\nname = \"a\"\n[job.trace]\nfile = \"t.trace\"\n";
    for (extra, key, what) in [
        ("speed = 0.0\n", "speed", "must be a positive number, got 0; expected "),
        ("speed = -2.0\n", "speed", "got -2; expected "),
        ("start = \"2s\"\nend = \"1s\"\n", "end", "is not after start"),
        (
            "max_requests = 0\n",
            "max_requests",
            "must be at least 1, got 0; expected ",
        ),
    ] {
        let e = ssdlab_core::config::parse_config(&format!("{base}{extra}"), "run.toml", dir.path())
            .unwrap_err()
            .to_string();
        // The key's own line: the one after the table's six.
        let line = 7 + extra.lines().position(|l| l.starts_with(key)).unwrap();
        assert!(
            e.starts_with(&format!("run.toml:{line}:1: job[0].trace.{key}: ")),
            "{e}"
        );
        assert!(e.contains(what) && !e.contains('\n'), "{e}");
    }
}

/// Arrival times that would pass 2^64 - 1 ns are an error naming the record, not wrapped or
/// clamped times.
#[test]
fn replay_arrival_overflow_is_an_error() {
    let dir = tmp_dir("replay-overflow");
    // 20 s apart: at speed 1e-9 the second arrives at 2e19 ns > 2^64 - 1.
    std::fs::write(
        dir.path().join("t.trace"),
        "0 0 0 8 0\n10000000000 0 8 8 0\n20000000000 0 16 8 0\n",
    )
    .unwrap();
    let mut cfg = ReplayConfig::new("t.trace");
    cfg.format = Format::Mqsim;
    cfg.speed = 1e-9;
    let e = replay_all(&cfg, dir.path(), 1 << 30).err().unwrap().to_string();
    assert!(
        e.contains("t.trace:3: timestamp: ") && e.contains("beyond 64-bit nanoseconds; expected "),
        "{e}"
    );
    // 10 s at the same speed still fits: 1e19 ns.
    cfg.max_requests = Some(2);
    let (v, _) = replay_all(&cfg, dir.path(), 1 << 30).unwrap();
    assert_eq!(v[1].time_ns, 10_000_000_000_000_000_000);
}

/// Replay selects several volumes with one filter.
#[test]
fn replay_selects_volumes() {
    let dir = tmp_dir("replay-volumes");
    std::fs::write(
        dir.path().join("t.trace"),
        "0 0 0 8 0\n1 1 8 8 0\n2 2 16 8 0\n3 3 24 8 0\n4 0 32 8 0\n",
    )
    .unwrap();
    let mut cfg = ReplayConfig::new("t.trace");
    cfg.format = Format::Mqsim;
    cfg.device = Devices::only([0, 3]);
    let (v, src) = replay_all(&cfg, dir.path(), 1 << 30).unwrap();
    assert_eq!(v.iter().map(|r| r.offset).collect::<Vec<_>>(), [0, 24 * 512, 32 * 512]);
    assert_eq!((src.counters().read, src.counters().filtered), (5, 2));
}

/// One valid record of every text format (the examples of docs/traces.md).
const VALID_LINES: &[(Format, &str)] = &[
    (Format::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833"),
    (Format::MsrCut, "223.412 0 3159347200 36864 0"),
    (Format::Spc, "0,303567,3584,w,0.026214"),
    (Format::Mqsim, "938513000 4 264719034 16 0"),
    (Format::Ssdsim, "26214000 0 303574 7 0"),
    (Format::Disksim, "5265.313 0 6357144 8 0"),
    (Format::SsdsimOriginal, "1\t0\t0\t1\tWrite\t55584\t16\t1"),
    (
        Format::Blkparse,
        "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]",
    ),
    (
        Format::BlkparseD,
        "  8,0    3        1     0.000000000   697  D   R 223490 + 8 [kjournald]",
    ),
    (Format::FioIolog, "fio version 3 iolog\n120 /dev/nvme0n1 read 0 4096"),
    (
        Format::Systor17,
        "1456095145.133076000,0.000806000,R,0,899056122368,131072",
    ),
    (Format::Tencent, "1538323200,12469600,16,1,1283"),
    (Format::CloudPhysics, "1,5633898,2a,512,42932745"),
];

/// The unmutated lines are valid, and guessed as their format (or an equivalent one).
#[test]
fn valid_lines_read_and_are_guessed() {
    for &(format, line) in VALID_LINES {
        let text = format!("{line}\n");
        assert_eq!(check_reader(text.as_bytes(), format), 2, "{format}: {line}");
        if format == Format::BlkparseD {
            continue; // dispatch events are not guessed: `blkparse` reads queue events
        }
        let r = TraceReader::from_read(
            "v",
            Box::new(std::io::Cursor::new(text.into_bytes())),
            &ReaderOptions::default(),
        )
        .unwrap();
        let guessed = r.format();
        let same = guessed == format || (format == Format::Ssdsim && guessed == Format::Mqsim);
        assert!(same, "{line}: guessed {guessed}, not {format}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// No reader panics on arbitrary lines, with or without skipping; errors are one line.
    #[test]
    fn readers_never_panic(lines in proptest::collection::vec("[0-9a-zA-Z ,.+\\-\\t\\[\\]:#]{0,60}", 0..12), header in 0usize..4) {
        let headers = ["", "fio version 2 iolog\n", "fio version 3 iolog\n", "Timestamp,Response,IOType,LUN,Offset,Size\n"];
        let text = format!("{}{}", headers[header], lines.join("\n"));
        for f in FORMATS.iter().map(|i| i.format).chain([Format::Auto]) {
            check_reader(text.as_bytes(), f);
        }
    }

    /// Arbitrary bytes (binary formats and compressed streams included) never panic either.
    #[test]
    fn readers_never_panic_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300), prefix in 0usize..4) {
        let prefixes: [&[u8]; 4] = [b"", b"SSDLABTR\x01\0\0\0\0\0\0\0", &[0x1f, 0x8b, 8, 0], b"BZh9"];
        let mut data = prefixes[prefix].to_vec();
        data.extend_from_slice(&bytes);
        for f in FORMATS.iter().map(|i| i.format).chain([Format::Auto]) {
            check_reader(&data, f);
        }
        check_stats(&data);
    }

    /// Valid lines of every text format, mutated (bytes replaced, deleted or inserted, fields
    /// made huge): records or one-line errors naming what was expected, never a panic.
    #[test]
    fn mutated_valid_lines(
        which in 0usize..VALID_LINES.len(),
        copies in 1usize..4,
        edits in proptest::collection::vec((any::<usize>(), 0u8..4, any::<u8>()), 0..4),
    ) {
        let (format, line) = VALID_LINES[which];
        let mut data = Vec::new();
        for _ in 0..copies {
            data.extend_from_slice(line.as_bytes());
            data.push(b'\n');
        }
        for (pos, kind, byte) in edits {
            let at = pos % data.len();
            match kind {
                0 => data[at] = byte,
                1 => {
                    data.remove(at);
                }
                2 => data.insert(at, byte),
                _ => {
                    data.splice(at..at, *b"184467440737095516159");
                }
            }
            if data.is_empty() {
                data.push(b'0');
            }
        }
        check_reader(&data, format);
        check_reader(&data, Format::Auto);
    }

    /// Statistics kept as runs of pages equal those counted page by page.
    #[test]
    fn stats_runs_match_page_by_page(recs in proptest::collection::vec((0u64..256, 1u64..200_000, 0u8..3), 1..40)) {
        use ssdlab_core::trace::stats::StatsBuilder;
        let recs: Vec<TraceRecord> = recs
            .iter()
            .enumerate()
            .map(|(i, &(page, len, op))| TraceRecord {
                time_ns: i as u64,
                device: 0,
                op: [Op::Read, Op::Write, Op::Trim][op as usize],
                offset: page * 1000,
                len,
            })
            .collect();
        let mut b = StatsBuilder::default();
        for r in &recs {
            b.add(r).unwrap();
        }
        let s = b.finish("p", "test", 0);
        let (footprint, pages, accesses, top) = naive_page_stats(&recs);
        prop_assert_eq!(s.footprint_pages, footprint);
        let c = &s.access_classes;
        prop_assert_eq!([c.read_intensive.pages, c.write_intensive.pages, c.mixed.pages], pages);
        prop_assert_eq!([c.read_intensive.accesses, c.write_intensive.accesses, c.mixed.accesses], accesses);
        let reads: u64 = recs.iter().filter(|r| r.op == Op::Read).map(|r| (r.offset + r.len - 1) / 4096 - r.offset / 4096 + 1).sum();
        for (k, c) in s.read_concentration.iter().enumerate() {
            let want = if reads == 0 { 0.0 } else { top[k] as f64 / reads as f64 };
            prop_assert!((c.read_share - want).abs() < 1e-12, "{} vs {}", c.read_share, want);
        }
    }

    /// Valid lines of each text family parse back to what was written.
    #[test]
    fn valid_lines_parse(t in 0u64..1 << 40, dev in 0u32..100, lba in 0u64..1 << 32, n in 1u64..4096, read in any::<bool>()) {
        let line = format!("{t} {dev} {lba} {n} {}\n", read as u8);
        let r: Vec<TraceRecord> = TraceReader::from_read("p", Box::new(std::io::Cursor::new(line.into_bytes())), &ReaderOptions { format: Format::Mqsim, skip_bad_lines: false }).unwrap().map(|x| x.unwrap()).collect();
        prop_assert_eq!(r, vec![TraceRecord { time_ns: t, device: dev, op: if read { Op::Read } else { Op::Write }, offset: lba * 512, len: n * 512 }]);
    }
}
