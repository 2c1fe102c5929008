//! Simulated time past the horizon (2^62 ns) stops a run with an error instead of wrapping.

use ssdlab_core::config::parse_config;

#[test]
fn an_arrival_past_the_horizon_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // MQSim format: time (ns), device, LBA (sectors), sectors, 0 = write / 1 = read.
    let late = ssdlab_core::sim::HORIZON_NS + 1;
    std::fs::write(dir.path().join("t.trace"), format!("0 0 0 8 0\n{late} 0 8 8 0\n")).unwrap();
    let text = "[device]\npreset = \"mlc-sata\"\n[precondition]\nmode = \"none\"\n[[job]]\nname = \"late\"\n[job.trace]\nfile = \"t.trace\"\nformat = \"mqsim\"\n";
    let cfg = parse_config(text, "h.toml", dir.path()).unwrap();
    let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
    let e = sim.run(&mut |_| {}).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "a request's arrival at {late} ns passes the simulated-time horizon; expected"
        )),
        "{e}"
    );
    // An arrival at a quarter of the horizon is still a run (and its idle gap of 2^60 ns of
    // empty sample windows costs nothing).
    let ok = ssdlab_core::sim::HORIZON_NS / 4;
    std::fs::write(dir.path().join("t.trace"), format!("0 0 0 8 0\n{ok} 0 8 8 0\n")).unwrap();
    let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    assert_eq!(r.jobs[0].write.total_ios, 2);
}
