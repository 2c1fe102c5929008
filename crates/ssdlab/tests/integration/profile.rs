//! `ssdlab profile` from the command line: a live fio sweep on a file, fio missing, bad
//! paths and options (one line, status 2), and the block-device guard's detection.

use crate::common::{refused, ssdlab};
use ssdlab_core::array::profile::{disk_signature, DeviceProfile, Pattern, SIGNATURE_BYTES};
use std::process::Command;

/// Whether fio runs; absent, the test is skipped, except under CI where it fails.
fn have_fio() -> bool {
    ssdlab_core::skip::tool("fio", "fio").is_some()
}

#[test]
fn a_tiny_live_sweep_writes_a_profile_that_loads() {
    if !have_fio() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("drive.dat");
    let out = dir.path().join("p.json");
    let o = ssdlab(&[
        "profile",
        file.to_str().unwrap(),
        "--sizes",
        "1MiB",
        "--depths",
        "2",
        "--step",
        "50",
        "--patterns",
        "rand",
        "--runtime",
        "300ms",
        "--range",
        "16MiB",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("[3/3, "), "progress on standard error: {stderr}");
    let p = DeviceProfile::load(&out).unwrap();
    assert_eq!((p.name.as_str(), p.capacity), ("drive.dat", 16 << 20));
    assert!(
        p.source.starts_with("fio-") && p.source.contains("300ms per point"),
        "{}",
        p.source
    );
    let got: Vec<(Pattern, u64, u32, f64)> = p
        .points
        .iter()
        .map(|q| (q.pattern, q.bs, q.depth, q.read_share))
        .collect();
    assert_eq!(
        got,
        [0.0, 0.5, 1.0].map(|r| (Pattern::Random, 1 << 20, 2, r)),
        "one point per read share"
    );
    for q in &p.points {
        assert!(q.mb_s() > 0.0 && q.mean_lat_ns > 0.0, "{q:?}");
    }
    assert_eq!(p.points[0].read_bytes_s, 0.0);
    assert_eq!(p.points[2].write_bytes_s, 0.0);
    assert!(p.points[1].read_bytes_s > 0.0 && p.points[1].write_bytes_s > 0.0);
    // The file was laid out to the range.
    assert!(std::fs::metadata(&file).unwrap().len() >= 16 << 20);
    // The table: one row, MB/s at 0, 50 and 100 % reads, then the gain.
    let text = String::from_utf8_lossy(&o.stdout);
    let row = text.lines().find(|l| l.starts_with("rand ")).expect(&text);
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[..3], ["rand", "1MiB", "2"], "{row}");
    assert_eq!(cols.len(), 7, "{row}");
    for (c, q) in cols[3..6].iter().zip(&p.points) {
        assert_eq!(*c, format!("{:.1}", q.mb_s()));
    }
    let gain = p.curve(Pattern::Random, 1 << 20, 2).unwrap().readonly_gain();
    assert_eq!(cols[6], format!("{gain:.1}"));
}

#[test]
fn fio_missing_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let file = dir.path().join("f.dat");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["profile", file.to_str().unwrap()])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "ssdlab: error: fio: not found; expected fio installed (e.g. `apt-get install fio`)\n"
    );
    assert!(!file.exists(), "nothing created before fio is found");
}

#[test]
fn bad_paths_and_options_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    refused(
        &["profile", "/no/such/dir/f.dat"],
        "/no/such/dir/f.dat: directory /no/such/dir does not exist",
    );
    refused(&["profile", d], &format!("{d}: is a directory"));
    refused(
        &["profile", "/dev/null"],
        "/dev/null: neither a regular file nor a block device",
    );
    let f = format!("{d}/f.dat");
    refused(
        &["profile", &f, "-o", "/no/such/dir/p.json"],
        "/no/such/dir/p.json: directory /no/such/dir does not exist",
    );
    refused(&["profile", &f, "--step", "7"], "--step: got '7'");
    refused(&["profile", &f, "--sizes", "2MiB,1000"], "--sizes: got '1000'");
    refused(&["profile", &f, "--depths", "0"], "--depths: ");
    refused(&["profile", &f, "--runtime", "1us"], "--runtime: got '1us'");
    refused(&["profile", &f, "--patterns", "zig"], "--patterns: invalid value 'zig'");
    refused(
        &["profile", &f, "--range", "1MiB"],
        "--range: 1MiB is below the largest request size 8MiB",
    );
    assert!(!std::path::Path::new(&f).exists());
}

#[test]
fn fio_failing_is_one_line_quoting_its_error() {
    if !have_fio() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.dat");
    let f = f.to_str().unwrap();
    refused(
        &[
            "profile",
            f,
            "--ioengine",
            "nosuch",
            "--sizes",
            "1MiB",
            "--range",
            "1MiB",
            "--step",
            "100",
            "-q",
        ],
        &format!("fio failed on {f} (seq 1MiB depth 2, 0 % reads): \"fio: engine nosuch not loadable\""),
    );
}

/// The guard that keeps `ssdlab profile` off block devices holding data, on byte images of
/// each kind's start.
#[test]
fn block_devices_holding_data_are_recognised() {
    let image = |parts: &[(usize, &[u8])]| {
        let mut b = vec![0u8; SIGNATURE_BYTES];
        for (off, magic) in parts {
            b[*off..off + magic.len()].copy_from_slice(magic);
        }
        b
    };
    assert_eq!(disk_signature(&image(&[])), None, "a blank device");
    // A DOS partition table; a GPT disk (protective MBR and the GPT header).
    assert_eq!(
        disk_signature(&image(&[(446 + 4, &[0x83]), (510, &[0x55, 0xaa])])),
        Some("an MBR partition table or boot sector")
    );
    assert_eq!(
        disk_signature(&image(&[(450, &[0xee]), (510, &[0x55, 0xaa]), (512, b"EFI PART")])),
        Some("a GPT partition table")
    );
    for (parts, want) in [
        (vec![(1080, &[0x53u8, 0xef] as &[u8])], "an ext2/3/4 file system"),
        (vec![(0, b"XFSB")], "an XFS file system"),
        (vec![(65600, b"_BHRfS_M")], "a btrfs file system"),
        (vec![(4086, b"SWAPSPACE2")], "a swap area"),
        (vec![(512, b"LABELONE")], "an LVM physical volume"),
        (vec![(32769, b"CD001")], "an ISO 9660 file system"),
        (vec![(0, b"LUKS\xba\xbe")], "a LUKS encrypted volume"),
        (vec![(4096, &[0xfc, 0x4e, 0x2b, 0xa9])], "a Linux RAID (md) member"),
        // Boot sectors carry 0x55AA too: named by their own marker.
        (vec![(3, b"NTFS    "), (510, &[0x55, 0xaa])], "an NTFS file system"),
        (vec![(82, b"FAT32   "), (510, &[0x55, 0xaa])], "a FAT32 file system"),
        (vec![(54, b"FAT16   "), (510, &[0x55, 0xaa])], "a FAT16 file system"),
    ] {
        assert_eq!(disk_signature(&image(&parts)), Some(want));
    }
    // A device smaller than the bytes looked at.
    assert_eq!(
        disk_signature(&image(&[(0, b"XFSB")])[..4096]),
        Some("an XFS file system")
    );
    assert_eq!(disk_signature(&[0u8; 100]), None);
}

/// Where fio refuses libaio and O_DIRECT (a stand-in `fio` that says so, then runs the real
/// one): the sweep falls back to psync with one job per outstanding I/O and to buffered I/O,
/// says so on standard error and in the profile's source.
#[test]
fn without_libaio_or_o_direct_the_sweep_falls_back() {
    if !have_fio() {
        return;
    }
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("fio"))
        .find(|p| p.is_file())
        .expect("fio on PATH");
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("fio");
    std::fs::write(
        &fake,
        format!(
            r#"#!/bin/sh
for a in "$@"; do
  case "$a" in
    --ioengine=libaio) echo "fio: engine libaio not loadable" >&2; echo "fio: failed to load engine" >&2; exit 1;;
    --direct=1) echo "fio: looks like your file system does not support direct=1/buffered=0" >&2; exit 1;;
  esac
done
exec "{}" "$@"
"#,
            real.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let file = dir.path().join("d.dat");
    let out = dir.path().join("p.json");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["profile", file.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .args(["--sizes", "1MiB", "--depths", "3", "--step", "100", "--patterns", "seq"])
        .args(["--runtime", "200ms", "--range", "8MiB"])
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: fio cannot load the libaio engine; using psync"),
        "{stderr}"
    );
    assert!(stderr.contains("note: the file system refused O_DIRECT"), "{stderr}");
    let p = DeviceProfile::load(&out).unwrap();
    assert!(
        p.source.contains("ioengine psync, buffered I/O") && p.source.contains("refused O_DIRECT"),
        "{}",
        p.source
    );
    // Three psync jobs: depth 3.
    assert!(p
        .points
        .iter()
        .all(|q| q.depth == 3 && q.pattern == Pattern::Sequential));
    assert_eq!(p.points.len(), 2);
}

#[test]
fn help_gives_the_seeds_full_sweep() {
    let o = ssdlab(&["profile", "--help"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("--sizes 2MiB,8MiB,32MiB --depths 2,4,8 --step 5 --range 20GiB"),
        "{text}"
    );
    for default in [
        "[default: 2MiB,8MiB]",
        "[default: 2]",
        "[default: 25]",
        "[default: seq,rand]",
        "[default: 1GiB]",
        "[default: 1s]",
    ] {
        assert!(text.contains(default), "{default}: {text}");
    }
}
