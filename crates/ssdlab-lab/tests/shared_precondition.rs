//! Points that share a device and precondition start from one preconditioned state
//! (`ssdlab_core::aged`): the result is byte for byte the one of points that each precondition
//! their own drive, and the sharing happens (runs start from copies).

use ssdlab_lab::experiment::{self, run_points, Outcome, Scale};

/// The experiment's quick result, its points run with or without sharing.
fn assembled(name: &str, shared: bool) -> (String, u64) {
    let exp = experiment::find(name).unwrap();
    let points = experiment::points_of(exp, Scale::Quick, 1).unwrap();
    let guard = shared.then(ssdlab_lab::aged::share);
    let before = ssdlab_lab::aged::copies();
    let outcomes: Vec<Outcome> = run_points(&points, &|_, _| {}, |p| experiment::run_point(exp, p))
        .into_iter()
        .collect::<ssdlab_lab::Result<_>>()
        .unwrap();
    let copies = ssdlab_lab::aged::copies() - before;
    drop(guard);
    let r = experiment::assemble(exp, Scale::Quick, 1, &points, outcomes, 0.0);
    (r.deterministic_json(), copies)
}

/// Sharing is process-wide: the tests of this file take turns.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn check(name: &str) {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let (own, none) = assembled(name, false);
    assert_eq!(none, 0, "{name}: no sharing without the guard");
    let (shared, copies) = assembled(name, true);
    assert!(copies > 0, "{name}: no point started from a copy");
    eprintln!("{name}: {copies} points started from a copy");
    assert!(
        own == shared,
        "{name}: a shared preconditioned state changed the result"
    );
}

#[test]
fn hotr_points_share_preconditioned_drives_with_the_same_result() {
    check("hotr");
}

#[test]
fn rodi_members_share_preconditioned_drives_with_the_same_result() {
    check("rodi");
}

#[test]
fn openssd_points_share_preconditioned_drives_with_the_same_result() {
    check("openssd");
}
