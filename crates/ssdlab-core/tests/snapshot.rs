//! Snapshot files of preconditioned drives (`ssdlab_core::snapshot`): a run from a snapshot
//! gives the result of a run that preconditions itself, byte for byte, whatever the FTL holds
//! (each GC policy's index, superblocks, lent blocks, wear leveling, streams, arrays); a saved
//! state read back saves to the same bytes; a short, damaged, foreign or other build's file and
//! a run of another device are refused with one line.

use ssdlab_core::config::{member_precondition, members, parse_config, Config, MemberSpec};
use ssdlab_core::snapshot::Snapshot;
use ssdlab_core::Simulation;
use std::path::Path;

/// A 1 GiB MLC drive aged to steady state at 90 %, a 70/30 random mix on it, and `extra`.
fn config(extra: &str) -> Config {
    config_mode(extra, "steady")
}

/// As [`config`], preconditioned in `mode`.
fn config_mode(extra: &str, mode: &str) -> Config {
    let text = format!(
        r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 2
ways = 4
blocks_per_plane = 64
pages_per_block = 128
mapping_unit = "8KiB"
overprovisioning = 0.15
[precondition]
mode = "{mode}"
utilisation = 0.9
max_overwrites = 2.0
{extra}
[[job]]
rw = "randrw"
rwmixread = 70
bs = "8KiB"
iodepth = 8
number_ios = 20000
"#
    );
    parse_config(&text, "t.toml", Path::new(".")).unwrap()
}

/// The snapshot of `cfg`'s device preconditioned as it says.
fn aged(cfg: &Config) -> Snapshot {
    let (device, report) = ssdlab_core::aged::preconditioned(&cfg.device, &cfg.precondition, &mut |_, _| {}).unwrap();
    Snapshot {
        device: cfg.device.clone(),
        precondition: cfg.precondition.clone(),
        report,
        ftl: device.ftl,
    }
}

/// Sharing of preconditioned states is process-wide (a snapshot in an array turns it on): the
/// tests of this file take turns.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn tmp(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name).display().to_string();
    (dir, path)
}

/// Run `cfg` preconditioning itself, and from a snapshot saved to a file and read back: the
/// same result, and the state read back saves to the same bytes.
fn same_from_snapshot(what: &str, cfg: &Config) {
    let own = Simulation::new(cfg).unwrap().run(&mut |_| {}).unwrap();
    let (_dir, path) = tmp("a.snap");
    let bytes = aged(cfg).save(&path).unwrap();
    assert_eq!(bytes, std::fs::metadata(&path).unwrap().len(), "{what}");
    let back = Snapshot::load(&path).unwrap();
    let again = format!("{path}.again");
    back.save(&again).unwrap();
    assert!(
        std::fs::read(&path).unwrap() == std::fs::read(&again).unwrap(),
        "{what}: a state read back saves to other bytes"
    );
    let mut sim = Simulation::from_snapshot(cfg, back, &path, &mut |_, _| panic!("{what}: preconditioned")).unwrap();
    let from = sim.run(&mut |_| {}).unwrap();
    assert!(
        own.ssd.gc["finished"].as_u64().unwrap_or(0) > 0 || what == "sequential" || what == "hotr",
        "{what}: GC never ran: {}",
        own.ssd.gc
    );
    assert!(
        own.deterministic_json() == from.deterministic_json(),
        "{what}: a run from the snapshot differs from one that preconditions"
    );
}

#[test]
fn every_gc_policy_runs_the_same_from_a_snapshot() {
    let _turn = turn();
    for policy in ["greedy", "fifo", "random", "cost-benefit", "d-choices"] {
        same_from_snapshot(policy, &config(&format!("[device.ftl]\ngc_policy = \"{policy}\"\n")));
    }
}

#[test]
fn superblocks_streams_and_wear_leveling_run_the_same_from_a_snapshot() {
    let _turn = turn();
    same_from_snapshot("plan", &config("[device.placement]\npolicy = \"plan-pred-1/4\"\n"));
    same_from_snapshot("autostream", &config("[device.placement]\npolicy = \"autostream\"\n"));
    same_from_snapshot("streams", &config("[device.ftl]\nstreams = 2\n"));
    same_from_snapshot(
        "wear leveling",
        &config("[device.ftl]\nstatic_wl_threshold = 2\ngc_policy = \"fifo\"\n"),
    );
    same_from_snapshot("sequential", &config_mode("", "sequential"));
}

#[test]
fn hotr_with_blocks_lent_from_over_provisioning_runs_the_same_from_a_snapshot() {
    let _turn = turn();
    same_from_snapshot(
        "hotr",
        &config_mode(
            "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_share = 0.02\n",
            "sequential",
        ),
    );
}

/// The members of an array whose device and precondition are the snapshot's start from it; the
/// others precondition; the result is the one of an array that preconditions them all.
#[test]
fn an_arrays_matching_member_starts_from_the_snapshot() {
    let _turn = turn();
    let cfg = config("[array]\nlayout = \"raid0\"\nstripe_unit = \"64KiB\"\n[[array.member]]\n[[array.member]]\n");
    let own = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
    let MemberSpec::Device(dc) = members(&cfg).unwrap().remove(1).1 else {
        panic!("a simulated member")
    };
    let pc = member_precondition(&cfg, 1).unwrap();
    let (device, report) = ssdlab_core::aged::preconditioned(&dc, &pc, &mut |_, _| {}).unwrap();
    let snap = Snapshot {
        device: dc,
        precondition: pc,
        report,
        ftl: device.ftl,
    };
    let before = ssdlab_core::aged::copies();
    let mut preconditioned = 0;
    let from = Simulation::from_snapshot(&cfg, snap, "m1.snap", &mut |_, _| preconditioned += 1)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    assert_eq!(ssdlab_core::aged::copies() - before, 1, "member 1 starts from a copy");
    assert!(preconditioned > 0, "member 0 preconditions");
    assert!(own.deterministic_json() == from.deterministic_json());
    // Kept only while the run is being built.
    assert!(!ssdlab_core::aged::sharing());
}

trait With: Sized {
    fn with(self, f: impl FnOnce(&mut Self)) -> Self;
}

impl With for Config {
    fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }
}

fn err(r: ssdlab_core::Result<impl Sized>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// Why a run of `cfg` from `snap` (file `a.snap`) is refused.
fn refusal(cfg: &Config, snap: &Snapshot) -> String {
    err(Simulation::from_snapshot(cfg, snap.clone(), "a.snap", &mut |_, _| {}))
}

#[test]
fn a_run_of_another_device_or_precondition_is_refused_naming_the_key() {
    let _turn = turn();
    let cfg = config("");
    let snap = aged(&cfg);
    let other = config("[device.ftl]\ngc_policy = \"fifo\"\n");
    let e = refusal(&other, &snap);
    assert_eq!(
        e,
        "--from-snapshot: a.snap: device.ftl.gc_policy is \"fifo\" in the run but \"greedy\" in the snapshot; expected a run whose device and [precondition] are the snapshot's (mlc-sata preconditioned steady)"
    );
    let other = cfg.clone().with(|c| c.precondition.utilisation = 0.8);
    let e = refusal(&other, &snap);
    assert!(
        e.contains("precondition.utilisation is 0.8 in the run but 0.9 in the snapshot"),
        "{e}"
    );
    // An array none of whose members is the snapshot's (member 1 is seeded 2).
    let arr = config(
        "[device.ftl]\ngc_policy = \"fifo\"\n[array]\nlayout = \"raid0\"\nstripe_unit = \"64KiB\"\n[[array.member]]\n[[array.member]]\n",
    );
    let e = refusal(&arr, &snap);
    assert!(e.contains(": member 0: device.ftl.gc_policy is \"fifo\""), "{e}");
}

/// A saved snapshot's bytes, and its path.
fn saved() -> (tempfile::TempDir, String, Vec<u8>) {
    let (dir, path) = tmp("s.snap");
    aged(&config("")).save(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

fn load_bytes(path: &str, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    err(Snapshot::load(path))
}

/// A run of another device is refused from the snapshot's header, before its maps are read:
/// a file cut short after its header is refused for the device it is of, and read (and found
/// cut short) only for a run it could start.
#[test]
fn another_device_is_refused_from_the_header_alone() {
    let _turn = turn();
    let (_dir, path, good) = saved();
    let header = u64::from_le_bytes(good[20..28].try_into().unwrap()) as usize;
    std::fs::write(&path, &good[..28 + header + 4]).unwrap();
    let from = |cfg: &Config| {
        err(Snapshot::open(&path).and_then(|o| Simulation::from_opened_snapshot(cfg, o, &path, &mut |_, _| {})))
    };
    let e = from(&config("[device.ftl]\ngc_policy = \"fifo\"\n"));
    assert!(
        e.contains("device.ftl.gc_policy is \"fifo\" in the run but \"greedy\" in the snapshot"),
        "{e}"
    );
    let e = from(&config(""));
    assert!(e.contains("cut short"), "{e}");
    // Whole, it starts the run it was made for.
    std::fs::write(&path, &good).unwrap();
    let o = Snapshot::open(&path).unwrap();
    assert_eq!(o.device().name, config("").device.name);
    assert!(o.mismatch(&config("").device, &config("").precondition).is_none());
    Simulation::from_opened_snapshot(&config(""), o, &path, &mut |_, _| panic!("preconditioned")).unwrap();
}

#[test]
fn a_short_or_damaged_file_is_refused() {
    let _turn = turn();
    let (_dir, path, good) = saved();
    let expect = "; expected a snapshot written by `ssdlab precondition -o` of this build";
    for cut in [
        0,
        10,
        16,
        19,
        20,
        30,
        200,
        good.len() / 2,
        good.len() - 5,
        good.len() - 1,
    ] {
        let e = load_bytes(&path, &good[..cut]);
        assert!(
            e.starts_with(&format!("{path}: ")) && e.ends_with(expect),
            "cut at {cut}: {e}"
        );
        assert!(e.contains("cut short"), "cut at {cut}: {e}");
    }
    // A flipped bit in the maps, in the state, and the checksum itself.
    for at in [good.len() - 100, good.len() / 2, good.len() - 2] {
        let mut b = good.clone();
        b[at] ^= 0x10;
        let e = load_bytes(&path, &b);
        assert!(e.contains("checksum does not match"), "flip at {at}: {e}");
    }
    // A length past the end of the file (the header's), refused before anything is allocated.
    let mut b = good.clone();
    b[20..28].copy_from_slice(&(u64::MAX >> 1).to_le_bytes());
    let e = load_bytes(&path, &b);
    assert!(e.contains("a part of 9223372036854775807 bytes at byte 28"), "{e}");
    let mut b = good.clone();
    b.push(0);
    assert!(load_bytes(&path, &b).contains("1 bytes follow its end"));
    let mut b = good.clone();
    b[16] = 2;
    assert!(load_bytes(&path, &b).contains("snapshot format 2, which this build does not read"));
    let e = load_bytes(&path, b"a text file that is long enough\n");
    assert!(e.contains("not an ssdlab snapshot"), "{e}");
    assert!(err(Snapshot::load("/nonexistent/s.snap")).starts_with("/nonexistent/s.snap: "));
    // The good one still reads.
    std::fs::write(&path, &good).unwrap();
    Snapshot::load(&path).unwrap();
}

#[test]
fn a_snapshot_says_its_byte_order_and_another_is_refused() {
    let _turn = turn();
    let (_dir, path, mut b) = saved();
    let said = if cfg!(target_endian = "little") {
        "little"
    } else {
        "big"
    };
    let at = b
        .windows(11 + said.len())
        .position(|w| w == format!("\"endian\":\"{said}\"").as_bytes())
        .expect("the byte order in the header");
    // Another byte order, of the same length.
    let other = if said == "little" { "middle" } else { "BIG" };
    b[at + 10..at + 10 + said.len()].copy_from_slice(other.as_bytes());
    let e = load_bytes(&path, &b);
    assert!(e.contains(&format!("written on a {other}-endian machine")), "{e}");
}

#[test]
fn another_builds_snapshot_is_refused() {
    let _turn = turn();
    let (_dir, path, mut b) = saved();
    let build = ssdlab_core::output::BUILD_ID.as_bytes();
    let at = b
        .windows(build.len())
        .position(|w| w == build)
        .expect("the build in the header");
    // Another source hash, of the same length.
    let last = at + build.len() - 1;
    b[last] = if b[last] == b'0' { b'1' } else { b'0' };
    let e = load_bytes(&path, &b);
    assert!(e.starts_with(&format!("{path}: written by ssdlab build ")), "{e}");
    assert!(
        e.contains(&format!("not by this one ({})", ssdlab_core::output::BUILD_ID)),
        "{e}"
    );
}

/// Where each part of a snapshot file lies: (first byte, length) of the header, the FTL's
/// state, L2P, P2L and the valid bitmap.
fn parts(b: &[u8]) -> Vec<(usize, usize)> {
    let mut at = 20;
    (0..5)
        .map(|_| {
            let n = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
            at += 8 + n;
            (at - n, n)
        })
        .collect()
}

use ssdlab_core::contract::{check_snapshot_edits, check_snapshot_file, resum, Edited};

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A snapshot whose maps were edited and whose checksum was recomputed is refused with one
/// line naming what does not hold, before anything indexes with it.
#[test]
fn edited_maps_with_a_recomputed_checksum_are_refused() {
    let _turn = turn();
    let (_dir, path, good) = saved();
    let p = parts(&good);
    let (l2p, p2l, bits) = (p[2], p[3], p[4]);
    let units = p2l.1 / 4;
    // The first mapped logical unit and its physical unit, and a second one.
    let mapped: Vec<(usize, u32)> = (0..l2p.1 / 4)
        .map(|l| (l, u32_at(&good, l2p.0 + 4 * l)))
        .filter(|&(_, p)| p != u32::MAX)
        .take(2)
        .collect();
    let [(l0, p0), (l1, p1)] = mapped[..] else {
        panic!("nothing mapped")
    };
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "an L2P entry past the physical units",
            Box::new(move |b| set_u32(b, l2p.0 + 4 * l0, units as u32 + 7)),
            format!("L2P[{l0}] = {} out of range", units + 7),
        ),
        (
            "a P2L entry past the logical units",
            Box::new(move |b| set_u32(b, p2l.0 + 4 * p0 as usize, u32::MAX - 1)),
            format!("P2L[{p0}] = {}, outside its", u32::MAX - 1),
        ),
        (
            "two L2P entries swapped",
            Box::new(move |b| {
                set_u32(b, l2p.0 + 4 * l0, p1);
                set_u32(b, l2p.0 + 4 * l1, p0);
            }),
            format!("L2P[{l0}] = {p1} but P2L[{p1}] = {l1}"),
        ),
        (
            "a valid bit cleared",
            Box::new(move |b| b[bits.0 + p0 as usize / 8] &= !(1 << (p0 % 8))),
            format!("L2P[{l0}] = {p0} but its valid bit is clear"),
        ),
    ];
    let expect = "; expected a snapshot written by `ssdlab precondition -o` of this build";
    for (what, edit, says) in cases {
        let mut b = good.clone();
        edit(&mut b);
        resum(&mut b);
        let e = load_bytes(&path, &b);
        assert!(
            e.starts_with(&format!("{path}: its FTL state does not hold together (")),
            "{what}: {e}"
        );
        assert!(
            e.contains(&says) && e.ends_with(expect),
            "{what}: {e}\n  expected it to say: {says}"
        );
        assert_eq!(e.lines().count(), 1, "{what}: {e}");
    }
}

/// A bounded fuzzing of snapshot loading that CI runs (the cargo-fuzz target `snapshot` runs
/// the same edits unbounded): numbers in the FTL's state and bytes anywhere after the header
/// edited, the checksum recomputed. Every edited file is refused with an error or starts a
/// run that ends, never a panic; and the load checks, not only the decoder, refuse some.
#[test]
fn edited_states_are_refused_or_run_never_panic() {
    let _turn = turn();
    let cases: u32 = std::env::var("SNAPSHOT_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    // The index of each kind of GC policy (buckets, a queue, a candidate set) and superblocks.
    for extra in [
        "",
        "[device.ftl]\ngc_policy = \"fifo\"\n",
        "[device.ftl]\ngc_policy = \"cost-benefit\"\n",
        "[device.placement]\npolicy = \"plan-pred-1/4\"\n",
    ] {
        fuzz_snapshot(&config(extra), cases / 4);
    }
}

/// [`edited_states_are_refused_or_run_never_panic`] of `cfg`'s snapshot, `cases` edits.
fn fuzz_snapshot(cfg: &Config, cases: u32) {
    use rand::{Rng, SeedableRng};
    let (_dir, path) = tmp("s.snap");
    aged(cfg).save(&path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let mut cfg = cfg.clone();
    cfg.job[0].number_ios = Some(2000);
    let p = parts(&good);
    let state = rmpv::decode::read_value(&mut &good[p[1].0..p[1].0 + p[1].1]).unwrap();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(46);
    let (mut refused_by_checks, mut ran) = (0, 0);
    for case in 0..cases {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if case % 2 == 0 {
                // One number of the state replaced by a value near a boundary.
                let mut s = state.clone();
                let mut leaves = Vec::new();
                collect_numbers(&s, &mut Vec::new(), &mut leaves);
                let at = &leaves[rng.gen_range(0..leaves.len())];
                let pick = rng.gen_range(0..8);
                edit_number(&mut s, at, |old| {
                    [
                        0,
                        1,
                        old.wrapping_sub(1),
                        old.wrapping_add(1),
                        old.wrapping_mul(2).wrapping_add(3),
                        u32::MAX as u64,
                        u32::MAX as u64 - 1,
                        u64::MAX,
                    ][pick]
                });
                let mut bytes = Vec::new();
                rmpv::encode::write_value(&mut bytes, &s).unwrap();
                let mut b = good[..p[1].0 - 8].to_vec();
                b.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                b.extend_from_slice(&bytes);
                b.extend_from_slice(&good[p[1].0 + p[1].1..]);
                resum(&mut b);
                check_snapshot_file(&b, &path, &cfg)
            } else {
                // A few bytes anywhere after the preamble, as the fuzz target edits them.
                let edits: Vec<u8> = (0..5 * rng.gen_range(1..4)).map(|_| rng.gen()).collect();
                check_snapshot_edits(&good, &edits, &path, &cfg)
            }
        }));
        match outcome {
            Err(_) => panic!("case {case}: an edited snapshot panicked"),
            Ok(Edited::RefusedByChecks) => refused_by_checks += 1,
            Ok(Edited::Refused) => {}
            Ok(Edited::Ran) => ran += 1,
        }
    }
    let what = format!("{} {}", cfg.device.ftl.gc_policy, cfg.device.placement.policy);
    eprintln!("{what}: {cases} edited snapshots: {refused_by_checks} refused by the load checks, {ran} ran");
    assert!(refused_by_checks > 0, "{what}: the load checks refused none of {cases}");
}

/// Paths (indexes into arrays, maps' values and binaries) of every integer and byte in `v`.
fn collect_numbers(v: &rmpv::Value, at: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    use rmpv::Value;
    let each = |i: usize, x: Option<&Value>, at: &mut Vec<usize>, out: &mut Vec<Vec<usize>>| {
        at.push(i);
        match x {
            Some(x) => collect_numbers(x, at, out),
            None => out.push(at.clone()),
        }
        at.pop();
    };
    match v {
        Value::Integer(_) => out.push(at.clone()),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| each(i, Some(x), at, out)),
        Value::Map(m) => m.iter().enumerate().for_each(|(i, (_, x))| each(i, Some(x), at, out)),
        Value::Binary(b) => (0..b.len()).for_each(|i| each(i, None, at, out)),
        _ => {}
    }
}

/// The integer at `at` (a byte of a binary counts as one), set to what `f` makes of it.
fn edit_number(v: &mut rmpv::Value, at: &[usize], f: impl FnOnce(u64) -> u64) {
    use rmpv::Value;
    match (v, at) {
        (Value::Integer(n), []) => *n = f(n.as_u64().unwrap_or(0)).into(),
        (Value::Binary(b), [i]) => b[*i] = f(b[*i] as u64) as u8,
        (Value::Array(a), [i, rest @ ..]) => edit_number(&mut a[*i], rest, f),
        (Value::Map(m), [i, rest @ ..]) => edit_number(&mut m[*i].1, rest, f),
        _ => unreachable!("a path collect_numbers gave"),
    }
}

/// A state of another placement under a snapshot's header, the file written whole (its
/// checksum holds): refused, not run with its GC slots mislabelled.
#[test]
fn a_state_of_another_isolation_is_refused_though_its_checksum_holds() {
    let _turn = turn();
    let fdp = |isolation: &str| {
        config(&format!(
            "[device.ftl]\ngc_frontier = \"separate\"\ngc_threshold = 4\n[device.placement]\npolicy = \"fdp\"\nopen_superblocks = 2\nisolation = \"{isolation}\"\n"
        ))
    };
    let (initial, persistent) = (fdp("initial"), fdp("persistent"));
    let (_dir, path) = tmp("fdp.snap");
    // Its own state loads and runs.
    aged(&initial).save(&path).unwrap();
    Simulation::from_snapshot(&initial, Snapshot::load(&path).unwrap(), &path, &mut |_, _| {}).unwrap();
    // Initial isolation's header (one GC slot) over persistent isolation's state (one per handle).
    let mut swapped = aged(&initial);
    swapped.ftl = aged(&persistent).ftl;
    swapped.save(&path).unwrap();
    let e = err(Snapshot::load(&path));
    assert!(
        e.contains("its FTL state is not its device's (its superblocks are laid out as 2 host slot(s) and 2 of GC's"),
        "{e}"
    );
    assert!(e.contains("where its device's placement gives 2 and 1"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}
