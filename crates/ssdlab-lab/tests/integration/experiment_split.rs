//! An experiment run point by point elsewhere (the Python package's Ray backend, or the
//! command's point files): each point's outcome crosses as bytes and the result assembled from
//! them is the one `run` gives; the points an experiment runs under its first seed only enter
//! none of its claims; and points that share a device and precondition start from one
//! preconditioned state (`ssdlab_core::aged`) with the result, byte for byte, of points that
//! each precondition their own drive.
//!
//! The shared run of each experiment is the quick run the whole test suite shares
//! ([`quick_outcomes`]: `ssdlab experiment NAME --quick --out $CARGO_TARGET_TMPDIR/quick/NAME`,
//! whose point files the command keeps; run here with the command's code when no earlier test
//! left it). The one run made here on purpose is the unshared one, which no other test makes.

use ssdlab_lab::experiment::cache::PointCache;
use ssdlab_lab::experiment::{self, default_seeds, run_points, Experiment, Outcome, Point, Scale, Work};

/// Sharing of preconditioned states is process-wide: a run with sharing on (any `run_cached`)
/// would let a run meant to precondition its own drives copy; the tests of this file take turns.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The suite's shared quick folder of `name`, as the command's tests and the Python tests find it.
fn quick_dir(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("quick")
        .join(name)
}

/// The quick run the suite shares (seeds as the command's default): its points and their
/// outcomes read back from the point files, with the result `run_cached` assembles from the
/// same folder. Runs the missing points with the command's code under the folder's lock (an
/// earlier test, or the command's, has usually left them all); `ran` says whether any ran here.
struct Quick {
    points: Vec<Point>,
    outcomes: Vec<Outcome>,
    result: experiment::ExperimentResult,
    ran: bool,
}

fn quick_outcomes(exp: &dyn Experiment) -> Quick {
    let seeds = default_seeds(Scale::Quick);
    let cache = PointCache::new(quick_dir(exp.name()).join("points"), false);
    // The lock file beside the folder that every test taking this run holds while it runs
    // or reads it (the command's and the Python tests' too).
    std::fs::create_dir_all(quick_dir("")).unwrap();
    let held = std::fs::File::create(quick_dir(&format!("{}.lock", exp.name()))).unwrap();
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let before = ssdlab_lab::aged::copies();
    let result = experiment::run_cached(exp, Scale::Quick, seeds, 0, Some(&cache), &|_, _| {}).unwrap();
    let ran = cache.stored() > 0;
    // Points on one device and precondition started from copies of one state (an experiment
    // whose drives start fresh, as zns's zoned drives do, has none to copy).
    let preconditioned = exp.points(Scale::Quick).unwrap().iter().any(|p| match &p.work {
        Work::Ssd(c) => c.precondition.mode != ssdlab_lab::precondition::PreconditionMode::None,
        Work::Zones { .. } => false,
        _ => true,
    });
    if ran && preconditioned {
        assert!(
            ssdlab_lab::aged::copies() > before,
            "{}: no point started from a copy",
            exp.name()
        );
    }
    let points = experiment::points_of(exp, Scale::Quick, seeds).unwrap();
    let outcomes = points
        .iter()
        .map(|p| {
            let o = cache
                .load(&PointCache::key(exp, p))
                .unwrap()
                .expect("every point of the run is in its folder");
            // Exact: the same bytes again, and the same JSON.
            let bytes = o.to_bytes();
            let b = Outcome::from_bytes(&bytes).unwrap();
            assert_eq!(b.to_bytes(), bytes, "{}", exp.name());
            assert_eq!(
                serde_json::to_string(&b).unwrap(),
                serde_json::to_string(&o).unwrap(),
                "{}",
                exp.name()
            );
            o
        })
        .collect();
    Quick {
        points,
        outcomes,
        result,
        ran,
    }
}

/// Outcomes crossed as bytes assemble into the result `run` gives, wall-clock fields aside,
/// and the points kept out of the other seeds enter no claim.
fn check_split(name: &str) {
    let _turn = turn();
    let exp = experiment::find(name).unwrap();
    let Quick {
        points,
        outcomes,
        result,
        ..
    } = quick_outcomes(exp);
    let seeds = default_seeds(Scale::Quick);
    let mut back = outcomes.clone();
    // Wall-clock fields differ from run to run, an array's members' included: the
    // deterministic form leaves them out.
    let mut members = 0;
    for o in &mut back {
        if let Outcome::Ssd(r) = o {
            r.ssd.wall_time_s += 1.0;
            r.ssd.sim_requests_per_wall_s += 1.0;
            for m in r.members.iter_mut().flatten() {
                if let Some(ssd) = &mut m.ssd {
                    ssd.wall_time_s += 1.0;
                    ssd.sim_requests_per_wall_s += 1.0;
                    ssd.precondition["wall_time_s"] = serde_json::json!(1.5);
                    members += 1;
                }
            }
        }
    }
    assert_eq!(members > 0, name == "rodi", "{name}");
    // The points an experiment keeps out of the other seeds enter no claim: with their
    // outcomes swapped for a claim's point's, every claim is the same.
    let first_seed = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let claimed: Vec<bool> = first_seed.iter().map(|p| exp.in_claims(p)).collect();
    let first = claimed.iter().position(|&c| c).expect("a claim's point");
    let one: Vec<Outcome> = outcomes[..first_seed.len()].to_vec();
    let swapped: Vec<Outcome> = claimed
        .iter()
        .zip(&one)
        .map(|(&c, o)| if c { o } else { &one[first] }.clone())
        .collect();
    assert_eq!(
        claimed.contains(&false),
        ["plan", "hotr", "fdp"].contains(&name),
        "{name}"
    );
    let swapped = experiment::assemble(exp, Scale::Quick, 1, &first_seed, swapped, 0.0);
    let direct = experiment::assemble(exp, Scale::Quick, 1, &first_seed, one, 0.0);
    let values = |r: &experiment::ExperimentResult| -> Vec<(String, String)> {
        r.claims
            .iter()
            .map(|c| (c.id.clone(), format!("{:?}", c.our_value)))
            .collect()
    };
    assert_eq!(
        values(&swapped),
        values(&direct),
        "{name}: a claim reads a point left out of the other seeds"
    );
    assert!(!direct.claims.is_empty());
    // And `run` is the same assembly: the result of the folder's run, assembled again from
    // outcomes that crossed as bytes (under every seed).
    let moved = experiment::assemble(exp, Scale::Quick, seeds, &points, back, 0.0);
    assert_eq!(result.deterministic_json(), moved.deterministic_json(), "{name}");
}

/// The first seed's points run here without sharing, each preconditioning its own drive,
/// give the outcomes the shared run gave them.
fn check_shared(name: &str) {
    let _turn = turn();
    let exp = experiment::find(name).unwrap();
    let shared = quick_outcomes(exp);
    let points = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    // The first seed's points lead the shared run's, in the same order.
    let ids = |ps: &[Point]| ps.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&points), ids(&shared.points[..points.len()]), "{name}");
    assert!(!ssdlab_lab::aged::sharing(), "{name}: no sharing outside a run");
    let before = ssdlab_lab::aged::copies();
    let own: Vec<Outcome> = run_points(&points, &|_, _| {}, |p| experiment::run_point(exp, p))
        .into_iter()
        .collect::<ssdlab_lab::Result<_>>()
        .unwrap();
    assert_eq!(
        ssdlab_lab::aged::copies(),
        before,
        "{name}: no sharing without the guard"
    );
    let own = experiment::assemble(exp, Scale::Quick, 1, &points, own, 0.0);
    let from_shared = experiment::assemble(
        exp,
        Scale::Quick,
        1,
        &points,
        shared.outcomes[..points.len()].to_vec(),
        0.0,
    );
    assert!(
        own.deterministic_json() == from_shared.deterministic_json(),
        "{name}: a shared preconditioned state changed the result"
    );
    eprintln!(
        "{name}: {} points checked against their own preconditioning{}",
        points.len(),
        if shared.ran { " (the shared run made here)" } else { "" }
    );
}

/// The devices a point preconditions through `aged` (a lone SSD, or an array's simulated
/// members), with the precondition of each: those that could start from a shared state.
fn shared_devices(
    p: &Point,
) -> Vec<(
    ssdlab_core::config::DeviceConfig,
    ssdlab_core::config::PreconditionConfig,
)> {
    use ssdlab_core::config::{member_precondition, members, MemberSpec, PreconditionMode};
    let Work::Ssd(cfg) = &p.work else {
        return Vec::new(); // a characterization preconditions once itself; a disk not at all
    };
    let all = if cfg.array.is_some() {
        members(cfg)
            .unwrap()
            .into_iter()
            .enumerate()
            .filter_map(|(i, (_, m))| match m {
                MemberSpec::Device(dc) => Some((dc, member_precondition(cfg, i).unwrap())),
                MemberSpec::Profile(_) => None,
            })
            .collect()
    } else {
        vec![(cfg.device.clone(), cfg.precondition.clone())]
    };
    all.into_iter()
        .filter(|(_, pc)| pc.mode != PreconditionMode::None && pc.utilisation > 0.0)
        .collect()
}

/// Every device of the first seed's points preconditioned on its own (no sharing): within each
/// group that shares one state in a run (equal `aged::key`), one state, byte for byte (the
/// FTL's serialised state and its maps), which is the state every point of the group starts
/// from when shared. Preconditioning writes only the FTL's state, and a run is a function of
/// its device and that state, so this is the shared run's result, point for point, at the
/// cost of the preconditioning alone; the experiments whose points are cheap also run every
/// point to the end without sharing ([`check_shared`]). How many states each group has is
/// returned (groups of one share nothing).
fn check_shared_state(name: &str) -> Vec<usize> {
    use rayon::prelude::*;
    use sha2::{Digest, Sha256};
    let _turn = turn();
    let exp = experiment::find(name).unwrap();
    let points = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let devices: Vec<_> = points.iter().flat_map(shared_devices).collect();
    assert!(!ssdlab_lab::aged::sharing(), "{name}: no sharing outside a run");
    let before = ssdlab_lab::aged::copies();
    let states: Vec<(String, Vec<u8>)> = devices
        .par_iter()
        .map(|(dc, pc)| {
            let (d, _) = ssdlab_lab::aged::preconditioned(dc, pc, &mut |_, _| {}).unwrap();
            let mut h = Sha256::new();
            h.update(rmp_serde::to_vec(&d.ftl).unwrap());
            for m in d.ftl.map_bytes() {
                h.update(m);
            }
            (ssdlab_lab::aged::key(dc, pc), h.finalize().to_vec())
        })
        .collect();
    assert_eq!(
        ssdlab_lab::aged::copies(),
        before,
        "{name}: no sharing without the guard"
    );
    let mut groups: std::collections::BTreeMap<&str, Vec<&[u8]>> = Default::default();
    for (k, h) in &states {
        groups.entry(k).or_default().push(h);
    }
    let mut sizes = Vec::new();
    for (i, g) in groups.values().enumerate() {
        assert!(
            g.iter().all(|h| *h == g[0]),
            "{name}: group {i} of {} devices sharing a state preconditions to {} different states",
            g.len(),
            g.iter().collect::<std::collections::BTreeSet<_>>().len()
        );
        sizes.push(g.len());
    }
    sizes
}

#[test]
fn plan_points_sharing_a_state_precondition_to_it() {
    let sizes = check_shared_state("plan");
    // Most of plan's points share: its five workloads under each reading run on few devices.
    assert!(sizes.iter().filter(|&&n| n > 1).sum::<usize>() > 100, "{sizes:?}");
}

#[test]
fn fdp_points_sharing_a_state_precondition_to_it() {
    let sizes = check_shared_state("fdp");
    assert!(sizes.iter().any(|&n| n > 1), "{sizes:?}");
}

#[test]
fn rodi_members_sharing_a_state_precondition_to_it() {
    let sizes = check_shared_state("rodi");
    assert!(sizes.iter().any(|&n| n > 1), "{sizes:?}");
}

#[test]
fn friendly_outcomes_cross_as_bytes_disks_included() {
    check_split("friendly");
}

#[test]
fn fdp_outcomes_cross_as_bytes() {
    check_split("fdp");
}

#[test]
fn plan_outcomes_cross_as_bytes() {
    check_split("plan");
}

#[test]
fn openssd_outcomes_cross_as_bytes() {
    check_split("openssd");
}

#[test]
fn zns_outcomes_cross_as_bytes_zone_tests_included() {
    check_split("zns");
}

/// zns's writes, appends and zone programs draw no random number: under another simulation
/// seed they give the same outcome (their claims' noise is 0 for that reason), where a
/// random read's changes.
#[test]
fn zns_sequential_points_are_the_same_under_another_seed() {
    let exp = experiment::find("zns").unwrap();
    let first = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let outcome = |id: &str, k: u64| {
        let p = first.iter().find(|p| p.id == id).unwrap();
        let o = experiment::run_point(exp, &experiment::with_seed(p, k)).unwrap();
        format!("{:?} {:?}", experiment::row_metrics(&o), o.zones())
    };
    for id in ["write/4k/4z/qd1", "append/4k/1z/qd4", "zone/reset/68928"] {
        assert_eq!(outcome(id, 0), outcome(id, 1), "{id} under another seed");
    }
    assert_ne!(outcome("randread/4k/1z/qd64", 0), outcome("randread/4k/1z/qd64", 1));
}

#[test]
fn rodi_outcomes_cross_as_bytes_profiles_and_arrays_included() {
    check_split("rodi");
}

/// hotr reads the public traces from the traces folder, found as the experiment finds it.
fn with_traces(f: impl FnOnce()) {
    match experiment::hotr::traces_base() {
        Ok(_) => f(),
        Err(e) => ssdlab_core::skip::skip(&e.to_string(), ssdlab_core::trace::catalogue::TEST_SOURCE),
    }
}

#[test]
fn hotr_outcomes_cross_as_bytes() {
    with_traces(|| check_split("hotr"));
}

#[test]
fn hotr_points_share_preconditioned_drives_with_the_same_result() {
    with_traces(|| check_shared("hotr"));
}

#[test]
fn openssd_points_share_preconditioned_drives_with_the_same_result() {
    check_shared("openssd");
}

#[test]
fn friendly_points_share_preconditioned_drives_with_the_same_result() {
    check_shared("friendly");
}

/// Sharing happens: an experiment run with sharing starts points from copies (checked here on
/// every run, on openssd's quick points, whatever the shared folder holds).
#[test]
fn an_experiments_points_start_from_copies() {
    let _turn = turn();
    let exp = experiment::find("openssd").unwrap();
    let before = ssdlab_lab::aged::copies();
    let whole = experiment::run(exp, Scale::Quick, 1, 2, &|_, _| {}).unwrap();
    assert!(ssdlab_lab::aged::copies() > before, "no point started from a copy");
    let shared = quick_outcomes(exp);
    let points = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let from_folder = experiment::assemble(
        exp,
        Scale::Quick,
        1,
        &points,
        shared.outcomes[..points.len()].to_vec(),
        0.0,
    );
    assert_eq!(whole.deterministic_json(), from_folder.deterministic_json());
}

#[test]
fn a_damaged_outcome_is_an_error() {
    let e = Outcome::from_bytes(b"\x92\x01").unwrap_err().to_string();
    assert!(e.contains("expected the bytes of Outcome::to_bytes"), "{e}");
}
