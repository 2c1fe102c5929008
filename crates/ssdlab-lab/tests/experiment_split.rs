//! An experiment run point by point elsewhere (the Python package's Ray backend): each
//! point's outcome crosses as bytes and the result assembled from them is the one `run` gives;
//! and the points an experiment runs under its first seed only enter none of its claims.

use ssdlab_lab::experiment::{self, run_points, Outcome, Scale};

fn check(name: &str, whole: bool) {
    let exp = experiment::find(name).unwrap();
    let points = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let outcomes: Vec<Outcome> = run_points(&points, &|_, _| {}, |p| experiment::run_point(exp, p))
        .into_iter()
        .collect::<ssdlab_lab::Result<_>>()
        .unwrap();
    let mut back: Vec<Outcome> = outcomes
        .iter()
        .map(|o| {
            let bytes = o.to_bytes();
            let b = Outcome::from_bytes(&bytes).unwrap();
            // Exact: the same bytes again, and the same JSON.
            assert_eq!(b.to_bytes(), bytes, "{name}");
            assert_eq!(
                serde_json::to_string(&b).unwrap(),
                serde_json::to_string(o).unwrap(),
                "{name}"
            );
            b
        })
        .collect();
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
    let claimed: Vec<bool> = points.iter().map(|p| exp.in_claims(p)).collect();
    let first = claimed.iter().position(|&c| c).expect("a claim's point");
    let swapped: Vec<Outcome> = claimed
        .iter()
        .zip(&outcomes)
        .map(|(&c, o)| if c { o } else { &outcomes[first] }.clone())
        .collect();
    assert_eq!(
        claimed.contains(&false),
        ["plan", "hotr", "fdp"].contains(&name),
        "{name}"
    );
    let swapped = experiment::assemble(exp, Scale::Quick, 1, &points, swapped, 0.0);
    let direct = experiment::assemble(exp, Scale::Quick, 1, &points, outcomes, 0.0);
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
    let moved = experiment::assemble(exp, Scale::Quick, 1, &points, back, 0.0);
    assert_eq!(direct.deterministic_json(), moved.deterministic_json(), "{name}");
    assert!(!direct.claims.is_empty());
    // And `run` is the same assembly, its points starting from shared preconditioned states
    // (tests/shared_precondition.rs has the others).
    if whole {
        let before = ssdlab_lab::aged::copies();
        let whole = experiment::run(exp, Scale::Quick, 1, 2, &|_, _| {}).unwrap();
        assert!(
            ssdlab_lab::aged::copies() > before,
            "{name}: no point started from a copy"
        );
        assert_eq!(whole.deterministic_json(), direct.deterministic_json(), "{name}");
    }
}

#[test]
fn friendly_outcomes_cross_as_bytes_disks_included() {
    check("friendly", true);
}

#[test]
fn fdp_outcomes_cross_as_bytes() {
    check("fdp", true);
}

#[test]
fn plan_outcomes_cross_as_bytes() {
    check("plan", true);
}

#[test]
fn rodi_outcomes_cross_as_bytes_profiles_and_arrays_included() {
    check("rodi", false);
}

#[test]
fn hotr_outcomes_cross_as_bytes() {
    // hotr reads the public traces from the traces folder, found as the experiment finds it.
    match experiment::hotr::traces_base() {
        Ok(_) => check("hotr", false),
        Err(e) => ssdlab_core::skip::skip(&e.to_string(), ssdlab_core::trace::catalogue::TEST_SOURCE),
    }
}

#[test]
fn a_damaged_outcome_is_an_error() {
    let e = Outcome::from_bytes(b"\x92\x01").unwrap_err().to_string();
    assert!(e.contains("expected the bytes of Outcome::to_bytes"), "{e}");
}
