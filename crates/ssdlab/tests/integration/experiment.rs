//! `ssdlab experiment`: the quick version of each experiment, its result folder, and its
//! claims judged by their rules.

use serde_json::Value;
use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

/// The claim `id` of a result.
fn claim<'a>(r: &'a Value, id: &str) -> &'a Value {
    r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("claim {id}"))
}

fn ours(r: &Value, id: &str) -> f64 {
    claim(r, id)["our_value"].as_f64().unwrap()
}

/// The smallest effect a direction claim passes on (docs/experiments/README.md), as a share.
const MIN_EFFECT: f64 = 0.01;

/// Whether `rule` holds for the seed's value and ours (restated from the policy).
fn holds(rule: &Value, seed: f64, our: f64, c: &Value) -> bool {
    if !(seed.is_finite() && our.is_finite()) {
        return false;
    }
    match rule["kind"].as_str().unwrap() {
        "relative" => (our - seed).abs() <= rule["tolerance"].as_f64().unwrap() * seed.abs(),
        "absolute" => (our - seed).abs() <= rule["tolerance"].as_f64().unwrap(),
        "at_least" => our >= seed,
        "at_most" => our <= seed,
        "not_below" => seed - our <= rule["margin"].as_f64().unwrap(),
        k @ ("above" | "below") => {
            let m = rule["margin"].as_f64().unwrap();
            let d = if k == "above" { our - seed } else { seed - our };
            d > m && d != 0.0
        }
        k => panic!("rule {k} (a factor rule is not allowed): {c}"),
    }
}

/// Every claim judged by its rule under every simulation seed, never by hand, and printed with
/// its mark; no seed claim with a factor rule, no direction passing on a tie, inside its noise
/// or below the minimum effect; the summary counts seed claims only; one seed statement (and
/// case) is one counted claim, and no two counted claims are the same number against the same
/// figure; derived claims follow from claims of the result, alternative ones stand for a
/// counted one.
fn claims_judged_by_their_rules(r: &Value, stdout: &str) {
    let seed_text = seed_text(r["seed_document"].as_str().unwrap());
    let (mut seed_claims, mut seed_ok, mut known, mut quiet, mut checks, mut checks_ok) = (0, 0, 0, 0, 0, 0);
    let (mut unstable, mut derived, mut alternatives) = (0, 0, 0);
    let seeds = r["scale"]["seeds"].as_u64().unwrap() as usize;
    let claims = r["claims"].as_array().unwrap();
    let ids: std::collections::BTreeSet<&str> = claims.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), claims.len(), "claim ids are distinct");
    let mut statements = std::collections::BTreeMap::new();
    for c in claims {
        let (seed, our) = (c["seed_value"].as_f64().unwrap(), c["our_value"].as_f64().unwrap());
        let rule = &c["rule"];
        let noise = c.get("noise").and_then(|n| n.as_f64());
        assert_eq!(noise.is_some(), seeds > 1, "noise measured with several seeds: {c}");
        // Our value under each seed, the first's first; the noise is the largest distance.
        let values: Vec<f64> = match c.get("values") {
            Some(v) => v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN))
                .collect(),
            None => vec![our],
        };
        assert_eq!(values.len(), seeds, "{c}");
        assert!(values[0] == our || (values[0].is_nan() && our.is_nan()), "{c}");
        if let Some(n) = noise {
            let far =
                values
                    .iter()
                    .map(|v| (v - our).abs())
                    .fold(0.0f64, |w, d| if d.is_nan() { f64::INFINITY } else { w.max(d) });
            assert!(
                far == n || (far - n).abs() <= 1e-9 * far.abs(),
                "noise {n} against {far}: {c}"
            );
        }
        let kind_of_rule = rule["kind"].as_str().unwrap();
        if matches!(kind_of_rule, "above" | "below" | "not_below") {
            let m = rule["margin"].as_f64().unwrap();
            // The margin is at least the noise and the minimum effect.
            assert!(m >= noise.unwrap_or(0.0), "{c}");
            let effect = c["min_effect"]
                .as_f64()
                .unwrap_or_else(|| panic!("a direction without a minimum effect: {c}"));
            assert!(m >= effect && effect > 0.0, "{c}");
            if seed != 0.0 {
                assert!((effect - MIN_EFFECT * seed.abs()).abs() < 1e-12, "{c}");
            }
        }
        let first = holds(rule, seed, our, c);
        assert_eq!(c["rule_holds"].as_bool().unwrap(), first, "{c}");
        let held = values.iter().filter(|&&v| holds(rule, seed, v, c)).count();
        let no_signal = c.get("no_signal").is_some();
        let kind = c["kind"].as_str().unwrap();
        let verdict = match (kind, held, no_signal) {
            (_, _, true) => "no_signal",
            (_, 0, false) => "missed",
            (_, h, false) if h < values.len() => "unstable",
            ("known_difference", _, false) => "coincidence",
            (_, _, false) => "reproduced",
        };
        assert_eq!(c["verdict"], verdict, "{c}");
        assert_eq!(c["reproduced"].as_bool().unwrap(), verdict == "reproduced", "{c}");
        let id = c["id"].as_str().unwrap();
        match kind {
            "seed" | "known_difference" => {
                quoted_from_the_seed(c, seed_text.as_deref());
                seed_claims += 1;
                seed_ok += (verdict == "reproduced") as usize;
                known += (kind == "known_difference") as usize;
                quiet += no_signal as usize;
                unstable += (verdict == "unstable") as usize;
                // The statement a claim reads: the last part of its quote (the sentence that
                // holds the figure), the figure, and the case where one sentence covers several.
                let source = c["source"].as_str().unwrap();
                let statement = (
                    source
                        .rsplit('…')
                        .next()
                        .unwrap()
                        .split_whitespace()
                        .collect::<String>(),
                    seed.to_bits(),
                    c.get("case").and_then(|x| x.as_str()).unwrap_or("").to_string(),
                );
                if let Some(other) = statements.insert(statement, id.to_string()) {
                    panic!("{id} and {other} read the same seed statement: {c}");
                }
            }
            "check" => {
                checks += 1;
                checks_ok += (verdict == "reproduced") as usize;
            }
            "derived" => {
                derived += 1;
                let from = c["follows_from"].as_array().unwrap_or_else(|| panic!("{c}"));
                assert!(!from.is_empty(), "{c}");
                for f in from {
                    assert!(
                        claims.iter().any(|o| o["id"] == *f && o["kind"] != "derived"),
                        "{id} follows from {f}"
                    );
                }
            }
            "alternative" => {
                alternatives += 1;
                let of = c["replaces"].as_str().unwrap();
                assert!(id.starts_with(&format!("{of}@")), "{c}");
                let counted = claims
                    .iter()
                    .find(|o| o["id"] == of)
                    .unwrap_or_else(|| panic!("{id} stands for {of}"));
                assert!(
                    matches!(counted["kind"].as_str(), Some("seed" | "known_difference")),
                    "{c}"
                );
                assert_eq!(
                    (&counted["seed_value"], &counted["source"].is_string()),
                    (&c["seed_value"], &true),
                    "{c}"
                );
                assert!(c["reading"].is_string(), "{c}");
            }
            k => panic!("kind {k}"),
        }
        // A known difference names what the model lacks.
        if kind == "known_difference" {
            let why = c["known_difference"].as_str().unwrap();
            assert!(!why.contains("none of which the seed states"), "{c}");
        }
        let mark = match (kind, verdict) {
            ("check", "reproduced") => "✔ holds",
            ("check", "unstable") => "✘ holds under some seeds",
            ("check", _) => "✘ fails",
            ("derived" | "alternative", "reproduced") => "(✔, not counted)",
            ("derived" | "alternative", _) => "(✘, not counted)",
            (_, "reproduced") => "✔",
            (_, "missed") => "✘",
            (_, "unstable") => "✘ unstable",
            (_, "coincidence") => "✘ (rule holds, not counted)",
            _ => "✘ no signal",
        };
        // A row of the printed table: its first cell the claim, its last the verdict.
        let printed = stdout.lines().any(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').map(str::trim).collect();
            l.starts_with('|') && cells[0].starts_with(&format!("{id}: ")) && cells.last() == Some(&mark)
        });
        assert!(printed, "{id} printed with {mark}");
    }
    // No two counted claims are one number judged against one figure under every seed.
    let counted: Vec<&Value> = claims
        .iter()
        .filter(|c| matches!(c["kind"].as_str(), Some("seed" | "known_difference")) && c.get("no_signal").is_none())
        .collect();
    for (i, a) in counted.iter().enumerate() {
        for b in &counted[i + 1..] {
            let same = a["seed_value"] == b["seed_value"]
                && a["our_value"] == b["our_value"]
                && a.get("values") == b.get("values")
                && a["our_value"].as_f64().is_some_and(|v| v != 0.0);
            assert!(!same, "{} and {} count one number twice", a["id"], b["id"]);
        }
    }
    let s = &r["summary"];
    assert_eq!(
        [
            &s["seed_claims"],
            &s["seed_reproduced"],
            &s["known_differences"],
            &s["no_signal"],
            &s["unstable"],
            &s["checks"],
            &s["checks_holding"],
            &s["derived"],
            &s["alternatives"]
        ]
        .map(|v| v.as_u64().unwrap() as usize),
        [
            seed_claims,
            seed_ok,
            known,
            quiet,
            unstable,
            checks,
            checks_ok,
            derived,
            alternatives
        ]
    );
    assert!(
        stdout.contains(&format!("{seed_ok} of {seed_claims} seed claims reproduced (")),
        "{stdout}"
    );
    // Each other reading's count: the counted claims, with its claims in place of those they
    // stand for.
    for rc in r["readings"].as_array().unwrap() {
        let label = rc["label"].as_str().unwrap();
        let mut n = seed_ok as i64;
        let mut k = 0;
        for a in claims
            .iter()
            .filter(|c| c["kind"] == "alternative" && c["id"].as_str().unwrap().ends_with(&format!("@{label}")))
        {
            let of = claims.iter().find(|o| o["id"] == a["replaces"]).unwrap();
            n += a["reproduced"].as_bool().unwrap() as i64 - of["reproduced"].as_bool().unwrap() as i64;
            k += 1;
        }
        assert_eq!(
            (rc["seed_reproduced"].as_i64().unwrap(), rc["claims"].as_i64().unwrap()),
            (n, k),
            "{rc}"
        );
        assert_eq!(rc["seed_claims"].as_u64().unwrap() as usize, seed_claims, "{rc}");
        assert!(
            stdout.contains(&format!("; {n} of {seed_claims} under the reading {label} (")),
            "{stdout}"
        );
    }
    // The committed record of the full run has every claim this code makes, of the same
    // kind (a quick sweep leaves a few out), and the same conditions: a change to the claims
    // needs the full run again.
    let record = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/experiments/record")
        .join(format!("{}.json", r["experiment"].as_str().unwrap()));
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&record).expect("the full run's record")).unwrap();
    let kinds = |r: &Value| -> Vec<(String, String)> {
        r["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_string(),
                    c["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let recorded = kinds(&record);
    for c in kinds(r) {
        assert!(
            recorded.contains(&c),
            "claim {c:?} of this code is not in the full run's record"
        );
    }
    assert_eq!(
        record["conditions"], r["conditions"],
        "the record's conditions against this code's"
    );
    // Every condition has its source; an open one names its other readings.
    for c in r["conditions"].as_array().unwrap() {
        assert!(
            !c["source"].as_str().unwrap().is_empty() && !c["used"].as_str().unwrap().is_empty(),
            "{c}"
        );
        assert_eq!(
            c["open"].as_bool().unwrap(),
            !c["others"].as_array().unwrap().is_empty(),
            "{c}"
        );
    }
}

/// The seed document's text with its white space removed, or `None` (quotes checked for being
/// there only) when the shared folder is absent outside CI.
fn seed_text(doc: &str) -> Option<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // An experiment against published results keeps its sources in the repository (its
    // quotes in docs/, a drive's measurements as data/).
    if doc.starts_with("docs/") || doc.starts_with("data/") {
        let t = std::fs::read_to_string(root.join(doc)).expect("the experiment's sources");
        return Some(t.split_whitespace().collect());
    }
    let p = root.join("../shared/seeds").join(doc);
    match std::fs::read_to_string(&p) {
        Ok(t) => Some(t.split_whitespace().collect()),
        Err(e) => {
            ssdlab_core::skip::skip(
                &format!("{}: {e}; quotes not compared with the seed", p.display()),
                "../shared/seeds beside the clone",
            );
            None
        }
    }
}

/// A seed claim quotes the seed: its `source` is not empty and each of its parts (joined by
/// `…`) is in the seed's text, white space aside.
fn quoted_from_the_seed(c: &Value, seed: Option<&str>) {
    let source = c["source"]
        .as_str()
        .unwrap_or_else(|| panic!("a seed claim without its source: {c}"));
    assert!(!source.replace('…', "").trim().is_empty(), "{c}");
    if let Some(seed) = seed {
        for part in source.split('…').map(|p| p.split_whitespace().collect::<String>()) {
            assert!(
                part.is_empty() || seed.contains(&part),
                "not in the seed: {part:?} of {c}"
            );
        }
    }
}

/// The suite's quick run of `name` (`crate::common::quick_experiment`: run once, shared by
/// the tests that read it); check it wrote `files`; its folder and standard output.
fn run_quick(name: &str, files: &[&str]) -> (std::path::PathBuf, String) {
    let (out, stdout) = crate::common::quick_experiment(name);
    for f in files {
        assert!(out.join(f).is_file(), "{f} written");
    }
    (out, stdout)
}

#[test]
fn experiments_are_listed() {
    let o = ssdlab(&["experiment", "list"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("friendly "), "{text}");
    assert!(
        text.contains("\nopenssd ") && text.contains("(seed 002_989b305e125aad39.txt)"),
        "{text}"
    );
    assert!(text.contains("(seed 003_9d68ddde2e69269e.txt)"), "{text}");
    assert!(
        text.contains("\nplan ") && text.contains("(seed 001_7181d67761f0180d.txt)"),
        "{text}"
    );
    assert!(
        text.contains("\nrodi ") && text.contains("(seed 000_ae5ab6a51a4d6f1c.txt)"),
        "{text}"
    );
}

#[test]
fn friendly_quick_reproduces_the_seed_s_measurements() {
    let (out, stdout) = run_quick(
        "friendly",
        &[
            "result.json",
            "table.md",
            "table.csv",
            "threads_small.svg",
            "threads_large.svg",
            "threshold.svg",
            "gc_cost.svg",
        ],
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["experiment"], "friendly");
    assert_eq!(r["scale"]["scale"], "quick");
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), r["scale"]["points"].as_u64().unwrap() as usize);
    // Under each of 3 states of the drive: 8 thread sweeps, 2 updates, 4 multi-threaded
    // updates; then the drive alone at one thread, 2 sweeps again with read priority, 9
    // threshold sizes, 1 tiny update, 2 × 2 disk updates, 6 GC-cost points.
    assert_eq!(runs.len(), 3 * (8 + 2 + 4) + 1 + 2 + 9 + 1 + 4 + 6);
    // Each point carries its full run result.
    // Each point carries its full run result: the SSD's or the disk model's.
    for p in runs {
        let disk = p["id"].as_str().unwrap().starts_with("hdd-");
        let section = if disk {
            &p["result"]["hdd"]["rpm"]
        } else {
            &p["result"]["ssd"]["waf"]
        };
        assert!(section.is_number() && p["result"]["jobs"].is_array(), "{}", p["id"]);
    }
    let csv = std::fs::read_to_string(out.join("table.csv")).unwrap();
    assert_eq!(csv.lines().count(), runs.len() + 1);

    claims_judged_by_their_rules(&r, &stdout);

    // Principle 5: random victims clean 1/(1 − A) blocks per block freed (5 and 20) within
    // 10 %; greedy and FIFO clean fewer, as their analytic models at α = 1/A say: within 6 %
    // on this device of 256 blocks and short run (the full run is within 0.6 %).
    assert!(
        (ours(&r, "p5-0.8-random") / 5.0 - 1.0).abs() < 0.1,
        "{}",
        ours(&r, "p5-0.8-random")
    );
    assert!(
        (ours(&r, "p5-0.95-random") / 20.0 - 1.0).abs() < 0.1,
        "{}",
        ours(&r, "p5-0.95-random")
    );
    for (a, alpha) in [("0.8", 1.0 / 0.8), ("0.95", 1.0 / 0.95)] {
        let models = [
            ("greedy", ssdlab_core::analytic::greedy_waf(alpha, 64)),
            ("fifo", ssdlab_core::analytic::fifo_waf(alpha)),
        ];
        for (p, model) in models {
            let got = ours(&r, &format!("p5-{a}-{p}"));
            assert!((got / model - 1.0).abs() < 0.06, "{a} {p}: {got} vs model {model}");
        }
    }
    // Principle 6 on intel-750, whose buffer is power-protected: a 10 KiB write is
    // acknowledged from DRAM before the old data of its partial 4 KiB units is read, in
    // about the datasheet's 20 µs; the job's host time (69 µs) adds to each write's latency.
    // The read no longer gates the acknowledgement, so reading first changes little.
    let metric = |id: &str, m: &str| {
        runs.iter().find(|p| p["id"] == id).unwrap()["metrics"][m]
            .as_f64()
            .unwrap()
    };
    let drive = metric("small-writes/threads=1", "write_mean_us") - 69.0;
    assert!((15.0..30.0).contains(&drive), "{drive}");
    // Without the host time one thread drives the drive at its own rate, far faster.
    let alone = metric("small-writes/threads=1/device-only", "write_mb_s");
    assert!(alone > 1.5 * ours(&r, "p6-one-thread"), "{alone}");
    let rp1 = metric("small-writes/threads=1/read-priority", "write_mb_s");
    assert!((rp1 / ours(&r, "p6-one-thread") - 1.0).abs() < 0.1, "{rp1}");
    // A fresh drive writes 10 MiB requests faster than one at steady state (no GC).
    assert!(ours(&r, "p7-1-threads@fresh") > 2.0 * ours(&r, "p7-1-threads"));
    // The seed's example drive (4 KiB pages × 16 dies): one thread's writes reach 90 % of
    // their peak at 64 KiB, where every die takes one page of a request.
    assert_eq!(ours(&r, "threshold"), 64.0);
    assert!(claim(&r, "threshold")["reproduced"].as_bool().unwrap());
    // The server disk at QD1 with its write cache off: a random update pays the average seek
    // (8.2 ms), half a turn (4.17 ms) and the command overhead (0.3 ms): about 79 a second.
    let disk = ours(&r, "p1-hdd-random");
    assert!(
        (disk / (1e3 / (8.2 + 60e3 / 7200.0 / 2.0 + 0.3)) - 1.0).abs() < 0.05,
        "{disk}"
    );
    // Principle 7: one thread of 10 MiB writes already keeps the flash busy: more threads
    // gain nothing (within 10 %).
    assert!(ours(&r, "p7-2-threads") < 1.1 * ours(&r, "p7-1-threads"));
    assert!(claim(&r, "p7-8-threads")["known_difference"].is_string());
    // Principle 1: random updates run as fast as in-place ones on the SSD (both complete in
    // the write buffer), so the seed's "random slightly better" is a tie here and misses.
    let c = claim(&r, "p1-ssd-random-vs-inplace");
    assert!((ours(&r, "p1-ssd-random-vs-inplace") - 1.0).abs() < 0.02, "{c}");
    assert_eq!(c["rule"]["kind"], "above");
    // Checks are apart: the formula's examples and the greedy/FIFO bound.
    // So are the claims built into the model: the threshold (the drive is built from that
    // sentence), the 4 KiB mapping unit, the foreground stall and the random-victim bound.
    for id in [
        "lifetime-10-months",
        "lifetime-1-month",
        "p5-0.8-greedy",
        "p5-0.95-fifo",
        "threshold",
        "p3-small-update",
        "p4-foreground-stall",
        "p6-one-thread",
        "p5-0.8-random",
        "p5-0.95-random",
    ] {
        assert_eq!(claim(&r, id)["kind"], "check", "{id}");
    }
    assert_eq!(claim(&r, "threshold")["seed_value"], 64.0);
    // The disk ratio follows from the two disk figures; the laptop disk is the other reading.
    assert_eq!(claim(&r, "p1-hdd-inplace-vs-random")["kind"], "derived");
    for id in ["p1-hdd-random", "p1-hdd-inplace", "intro-hdd"] {
        assert_eq!(claim(&r, id)["kind"], "seed", "{id}");
        assert_eq!(claim(&r, &format!("{id}@laptop-disk"))["kind"], "alternative", "{id}");
    }
    assert!(
        stdout.contains("checks hold; 1 derived and 23 under other readings, shown and not counted; "),
        "{stdout}"
    );
    assert!(stdout.contains(")); 65 points × 2 seeds"), "{stdout}");
    // The introduction's threads: the best of 2 to 16 threads against one, each in the note.
    let c = claim(&r, "intro-threads");
    let note = c["note"].as_str().unwrap();
    for t in [2, 4, 8, 16] {
        assert!(note.contains(&format!("{t} threads ")), "{note}");
    }
    let iops = |id: &str| {
        let p = runs.iter().find(|p| p["id"] == id).unwrap_or_else(|| panic!("{id}"));
        p["result"]["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["write"]["iops"].as_f64().unwrap())
            .sum::<f64>()
    };
    let best = [2, 4, 8, 16]
        .map(|t| iops(&format!("updates/randwrite/threads={t}")))
        .into_iter()
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(
        (ours(&r, "intro-threads") - best / iops("updates/randwrite")).abs() < 1e-3 * best,
        "{c}"
    );
}

#[test]
fn openssd_quick_reproduces_the_seed_s_comparisons() {
    let (out, stdout) = run_quick(
        "openssd",
        &[
            "result.json",
            "table.md",
            "table.csv",
            "figure11_random_write.svg",
            "figure12_sequential_write.svg",
            "figure13_random_read.svg",
            "figure14_scheme_one.svg",
            "figure5_flash_parallelism.svg",
        ],
    );
    let svg = std::fs::read_to_string(out.join("figure11_random_write.svg")).unwrap();
    assert!(
        svg.contains("256 threads, GC") && svg.contains("optimised (seed)"),
        "bars with their categories and legend"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["experiment"], "openssd");
    let runs = r["runs"].as_array().unwrap();
    // 11 comparisons × 2 designs, 3 scheme-one policies, the sequential reads, 7 variants of
    // scheme two (2 buffer sizes × 2 loads, no prefetch, serial GC, 2 GC loads in the other
    // GC state, no firmware time), the 4 sequential-write comparisons × 2 designs under the
    // other reading of the DMA curve's large end, the 11 comparisons' optimised points with
    // the CPU waiting for the write-back, the 4 GC loads × 2 designs in the two other GC
    // states and with GC free for the firmware, and 6 flash geometries × reads and writes.
    assert_eq!(runs.len(), 11 * 2 + 3 + 1 + 9 + 8 + 11 + 4 * 2 * 3 + 12);
    assert!(
        stdout.contains("11 of 11 checks hold; 6 derived and 74 under other readings, shown and not counted;")
            && stdout.contains("; 90 points × 2 seeds: 180 runs in "),
        "{stdout}"
    );
    // The other DMA reading: its 12 sequential-write claims and the summary, each standing for
    // the counted claim of its id, on points of its own with the setup-line DMA table.
    let alternatives: Vec<&Value> = r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().ends_with("@dma-setup"))
        .collect();
    assert_eq!(alternatives.len(), 13);
    for c in &alternatives {
        assert_eq!(c["kind"], "alternative", "{c}");
        assert!(
            c["id"].as_str().unwrap().starts_with("seqwrite-") || c["id"].as_str().unwrap().starts_with("summary/")
        );
    }
    assert!(runs.iter().any(|p| p["id"] == "seqwrite-256t/openssd-dma-setup"));
    assert_eq!(r["readings"][0]["label"], "dma-setup");
    assert_eq!(r["readings"][0]["claims"], 13);
    // The CPU waiting for the write-back: every counted claim of the comparisons again (not
    // the checks: the 4 KiB writes' firmware time assumes no wait), from points of their own.
    // The GC points' other states and GC free for the firmware: the 4 GC comparisons' 12
    // claims each.
    for (i, label) in ["seq-fill", "board-steady", "gc-free"].iter().enumerate() {
        assert_eq!(r["readings"][1 + i]["label"], *label);
        assert_eq!(r["readings"][1 + i]["claims"], 12, "{label}");
    }
    assert_eq!(r["readings"][4]["label"], "flush-wait");
    assert_eq!(r["readings"][4]["claims"], 25);
    assert!(claim(&r, "seqwrite-1t/optimised@flush-wait")["kind"] == "alternative");
    assert!(r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["id"] != "randwrite-1t/optimised@flush-wait"));
    // Waiting costs the one-thread 120 KiB writes (a 16-page flush in nearly every request)
    // and the 4 KiB ones (one flush in 32 writes).
    let wait = |id: &str| {
        runs.iter().find(|p| p["id"] == id).unwrap()["metrics"]["write_iops"]
            .as_f64()
            .unwrap()
    };
    assert!(wait("seqwrite-1t/openssd-flush-wait") < 0.9 * wait("seqwrite-1t/openssd"));
    assert!(wait("randwrite-1t/openssd-flush-wait") < 0.8 * wait("randwrite-1t/openssd"));
    // A larger transfer is faster under both readings, more so under the claims': the
    // 120 KiB writes at 256 threads (one command at a time) gain from it.
    assert!(
        ours(&r, "seqwrite-256t/optimised") > ours(&r, "seqwrite-256t/optimised@dma-setup"),
        "{}",
        claim(&r, "seqwrite-256t/optimised")
    );
    // Figure 14's three policies and the ways on one channel are built in: checks. The ratios
    // the seed does not print, or whose optimised figure is built in, follow from the two
    // figures; the original FTL's 2,700 read IOPS is one figure, counted once.
    for id in ["figure14/lru", "figure14/cflru", "figure14/bplru", "figure5/read-ways"] {
        assert_eq!(claim(&r, id)["kind"], "check", "{id}");
    }
    for id in [
        "randwrite-1t/ratio",
        "randwrite-256t/ratio",
        "randread-1t/ratio",
        "randread-1t-hits/ratio",
        "randread-256t/ratio",
        "randread-1t-hits/original",
    ] {
        assert_eq!(claim(&r, id)["kind"], "derived", "{id}");
    }
    for id in ["seqwrite-1t/ratio", "randwrite-1t-gc/ratio"] {
        assert_eq!(claim(&r, id)["kind"], "seed", "{id}");
    }
    claims_judged_by_their_rules(&r, &stdout);

    // The original FTL's 4 KiB write from first principles (the preset's numbers): 68 us of
    // firmware per command, the 4 KiB DMA at 60 MB/s (68,267 ns), the page over the 100 MB/s
    // channel (81,920 ns), tPROG 1,450 us: 1,668.2 us, 599.5 IOPS; on the board written in
    // order (GC's victims empty) every write first reads its page's other half (tR 75 us +
    // 81,920 ns): 547.9.
    let orig = ours(&r, "randwrite-1t/original");
    assert!((orig / 599.5 - 1.0).abs() < 0.02, "{orig}");
    let orig_gc = ours(&r, "randwrite-1t-gc/original@seq-fill");
    assert!((orig_gc / 547.9 - 1.0).abs() < 0.02, "{orig_gc}");
    // The optimised FTL's no-GC random writes are built in by the firmware time: checks.
    for id in ["randwrite-1t/optimised", "randwrite-256t/optimised"] {
        assert_eq!(claim(&r, id)["kind"], "check", "{id}");
    }
    // The GC points start from the whole logical space written and the region overwritten to
    // steady state: GC copies (the board written in order only left it nearly nothing to
    // copy, the whole board overwritten a great deal). The loss under GC is a seed claim.
    let run = |id: &str| runs.iter().find(|p| p["id"] == id).unwrap_or_else(|| panic!("{id}"));
    let gc_run = run("randwrite-1t-gc/openssd");
    assert_eq!(gc_run["result"]["ssd"]["precondition"]["mode"], "steady");
    let waf = |id: &str| run(id)["metrics"]["waf"].as_f64().unwrap();
    assert!(
        waf("randwrite-1t-gc/openssd") > 1.02,
        "{}",
        waf("randwrite-1t-gc/openssd")
    );
    assert!(waf("randwrite-1t-gc/openssd-seq-fill") < waf("randwrite-1t-gc/openssd") - 0.1);
    assert!(waf("randwrite-1t-gc/openssd-board-steady") > 3.0);
    assert_eq!(
        run("randwrite-1t-gc/openssd-region-only")["result"]["ssd"]["precondition"]["mode"],
        "steady"
    );
    assert_eq!(claim(&r, "section5/gc-cost-optimised")["kind"], "seed");
    // GC's firmware time and copies through DRAM cost the CPU-bound optimised FTL: it is
    // faster with GC free for the firmware, on the same state and the same GC.
    assert!(wait("randwrite-1t-gc/openssd-gc-free") > 1.01 * wait("randwrite-1t-gc/openssd"));
    assert!((waf("randwrite-1t-gc/openssd-gc-free") / waf("randwrite-1t-gc/openssd") - 1.0).abs() < 0.02);
    // The optimised FTL: firmware time and the DMA (128.3 us) and a little of the flush's
    // issue time per write: about the seed's 7,007.
    let opt = ours(&r, "randwrite-1t/optimised");
    assert!((7000.0..7800.0).contains(&opt), "{opt}");
    for id in ["randwrite-1t/ratio", "seqwrite-1t/ratio", "randread-256t/optimised"] {
        assert!(
            claim(&r, id)["reproduced"].as_bool().unwrap(),
            "{id}: {}",
            claim(&r, id)
        );
    }
    // Scheme one below scheme two; the flash scales as Figure 5; no claim repeats a ratio's
    // direction.
    for c in r["claims"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        assert!(!id.ends_with("/direction"), "{id}");
        if id.starts_with("figure") {
            assert!(c["reproduced"].as_bool().unwrap(), "{c}");
        }
    }
    // 256 threads writing the same sequential offsets: the FIFO invalidates the older copies
    // and skips the pages left with no valid data.
    let seq = runs.iter().find(|p| p["id"] == "seqwrite-256t/openssd").unwrap();
    let fw = &seq["result"]["ssd"]["firmware"];
    assert_eq!(fw["design"], "openssd");
    assert!(fw["write_buffer_hits"].as_u64().unwrap() > 1000, "{fw}");
    assert!(
        fw["pages_skipped"].as_u64().unwrap() > 100 * fw["pages_flushed"].as_u64().unwrap().max(1) / 10,
        "{fw}"
    );
    // Without firmware time the optimised FTL is bound by the 4 KiB DMA alone: 68,267 ns per
    // write, 14,648 IOPS; the firmware's 68 us per write halves it ("about half the
    // theoretical IOPS").
    let bare = runs.iter().find(|p| p["id"] == "randwrite-1t/openssd-no-cpu").unwrap();
    let bare = bare["metrics"]["write_iops"].as_f64().unwrap();
    assert!((bare / 14_648.3 - 1.0).abs() < 0.005, "{bare}");
    assert!((ours(&r, "section5/half-theoretical-iops") - opt / bare).abs() < 1e-3);
    // Prefetch turns sequential neighbours into hits; a 16× buffer changes random writes
    // little. GC now costs the firmware's CPU, so parallel GC has a signal (it misses: the
    // CPU, not the dies, bounds these writes, and collecting on every die at once only
    // bunches the same copies).
    for id in [
        "section4/prefetch-small-sequential-reads",
        "section4/write-buffer-size/randwrite-1t",
    ] {
        assert!(
            claim(&r, id)["reproduced"].as_bool().unwrap(),
            "{id}: {}",
            claim(&r, id)
        );
    }
    assert_ne!(claim(&r, "section4/parallel-gc")["verdict"], "no_signal");
    for id in ["section4/flash-write-all-ways", "section4/dma-8k-equals-flash"] {
        assert_eq!(claim(&r, id)["kind"], "check", "{id}");
    }
    // All-hit reads are served from the read cache.
    let hits = runs.iter().find(|p| p["id"] == "randread-1t-hits/openssd").unwrap();
    let fw = &hits["result"]["ssd"]["firmware"];
    assert_eq!(fw["read_cache_misses"], 0, "{fw}");
    // Their cost is the preset's read costs alone: 30.34 us of firmware and 4 KiB at 135 MB/s
    // (30,341 ns rounded up), 60,681 ns a read, 16,479.6 IOPS; the seed's 16,482 they come
    // from makes the claim a check.
    let hit_iops = ours(&r, "randread-1t-hits/optimised");
    assert!((hit_iops / 16_479.6 - 1.0).abs() < 0.002, "{hit_iops}");
    assert_eq!(claim(&r, "randread-1t-hits/optimised")["kind"], "check");
}

#[test]
fn plan_quick_runs_every_policy_on_every_workload() {
    let workloads = ["fio", "tpcc", "ycsb", "fileserver", "gcc"];
    let mut files = vec![
        "result.json",
        "table.md",
        "table.csv",
        "waf.svg",
        "erases.svg",
        "bandwidth.svg",
    ];
    let victims: Vec<String> = workloads.iter().map(|w| format!("victims-{w}.svg")).collect();
    files.extend(victims.iter().map(|s| s.as_str()));
    files.extend([
        "waf-separate-gc.svg",
        "erases-separate-gc.svg",
        "waf-no-bg-gc.svg",
        "erases-no-bg-gc.svg",
        "waf-no-discard.svg",
        "erases-no-discard.svg",
        "waf-device-bound.svg",
        "erases-device-bound.svg",
        "bandwidth-device-bound.svg",
        "waf-gcc-fuller.svg",
        "erases-gcc-fuller.svg",
        "waf-gcc-long-lived.svg",
        "erases-gcc-long-lived.svg",
        "waf-fileserver-128k.svg",
        "erases-fileserver-128k.svg",
        "bandwidth-fileserver-128k.svg",
        "waf-fileserver-64k.svg",
        "erases-fileserver-64k.svg",
        "bandwidth-fileserver-64k.svg",
    ]);
    let (out, stdout) = run_quick("plan", &files);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["experiment"], "plan");
    let runs = r["runs"].as_array().unwrap();
    // 5 workloads × 8 policies under the claims' condition (FEMU's shared GC frontier and
    // its two GC watermarks, deleted files trimmed at once, TPC-C, YCSB and GCC bound by their
    // own work), again with a GC superblock of its own, again with foreground GC only, the 3
    // workloads that delete files without discard, the 3 CPU-bound ones issuing back to
    // back, GCC on a fuller device and beside long-lived files, and PLAN's 4 policies on
    // fileserver with two large-write thresholds.
    assert_eq!(runs.len(), 40 + 40 + 40 + 24 + 24 + 8 + 8 + 4 + 4);
    assert!(
        // Every point once, the 144 the claims read once more under the second seed: 336 runs,
        // what the progress bar counts.
        stdout.contains("; 192 points, the 144 the claims read × 2 seeds: 336 runs in "),
        "{stdout}"
    );
    claims_judged_by_their_rules(&r, &stdout);
    // GC's write pointer is open in the seed: every counted claim again with a GC superblock
    // of its own, and the count it would give; TPC-C's bandwidth is held by its think time.
    assert_eq!(claim(&r, "bandwidth/tpcc/direction")["kind"], "check");
    let counted = r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "seed")
        .count();
    let other = r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "alternative")
        .count();
    // Every counted claim under the GC readings; GCC's 6 and fileserver's 5 under theirs,
    // with the one that speaks of several workloads.
    assert_eq!((counted, other), (26, 52 + 2 * 7 + 2 * 6));
    assert_eq!(claim(&r, "erases/gcc@gcc-long-lived")["replaces"], "erases/gcc");
    assert!(r["claims"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["id"].as_str().unwrap().contains("fio/direction@gcc")));
    assert_eq!(
        claim(&r, "waf/fio/direction@separate-gc")["replaces"],
        "waf/fio/direction"
    );
    assert_eq!(r["readings"][0]["label"], "separate-gc");
    assert_eq!(r["readings"][1]["label"], "no-bg-gc");
    assert_eq!(claim(&r, "waf/fio/direction@no-bg-gc")["replaces"], "waf/fio/direction");
    let ssd =
        |w: &str, p: &str| -> &Value { &runs.iter().find(|x| x["id"] == format!("{w}/{p}")).unwrap()["result"]["ssd"] };
    let mean_valid = |s: &Value| -> f64 {
        let h: Vec<f64> = s["placement"]["victim_valid_percent"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        h.iter().enumerate().map(|(i, c)| i as f64 * c).sum::<f64>() / h.iter().sum::<f64>()
    };
    let bw = |w: &str, p: &str| -> f64 {
        let j = &runs.iter().find(|x| x["id"] == format!("{w}/{p}")).unwrap()["result"]["jobs"][0];
        j["read"]["bw_bytes"].as_f64().unwrap() + j["write"]["bw_bytes"].as_f64().unwrap()
    };
    for w in workloads {
        // The same application writes the same data whatever the placement.
        let host = ssd(w, "baseline")["host"]["write_units"].as_u64().unwrap();
        for p in [
            "partial-gc",
            "multi-stream",
            "autostream",
            "plan-nopred-1/4",
            "plan-pred-1/8",
        ] {
            let s = ssd(w, p);
            assert_eq!(s["host"]["write_units"].as_u64().unwrap(), host, "{w}/{p}");
            assert_eq!(s["placement"]["policy"], p);
        }
        // Block GC: one victim per collection.
        let pg = ssd(w, "partial-gc");
        assert_eq!(pg["placement"]["victims"], pg["gc"]["runs"], "{w}");
        // Half the chips per channel for small writes: slower on device-bound runs (YCSB's
        // writes are mostly large); an application bound by its own work does not notice.
        let device_bound = |p: &str| {
            if ["tpcc", "ycsb", "gcc"].contains(&w) {
                format!("{p}/device-bound")
            } else {
                p.to_string()
            }
        };
        if w != "ycsb" {
            let (wide, narrow) = (
                bw(w, &device_bound("plan-nopred-1/4")),
                bw(w, &device_bound("plan-nopred-1/8")),
            );
            // (At least 5 % slower, 17.8 % or more here; fileserver at least 2 %: under FEMU's
            // watermarks GC takes much of its device time whatever the width, and with all of
            // its writes on the small superblocks (routed by lifetime) 1/8 is 4.0 % slower
            // than 1/4 here.)
            let margin = if w == "fileserver" { 0.98 } else { 0.95 };
            assert!(narrow < margin * wide, "{w}: {narrow} against {wide}");
        }
        if ["tpcc", "ycsb", "gcc"].contains(&w) {
            // Each request's latency still counts against its slot's think time: GCC's small
            // writes on 1/8 of the chips wait a little longer (1.6 % here, 1.1 % on the full
            // run), and under FEMU's watermarks TPC-C's baseline waits for more GC work than
            // the narrow superblocks' (3.4 % here).
            let r = bw(w, "plan-nopred-1/8") / bw(w, "baseline");
            assert!((r - 1.0).abs() < 0.05, "{w}: {r}");
            // The think time lets the 16 slots offer 82 MB/s at most (at zero latency); the
            // device's latency takes a little of it.
            let b = bw(w, "baseline");
            assert!(b <= 82e6 && b > 0.5 * 82e6, "{w}: {b} B/s");
            let j = |p: &str| &runs.iter().find(|x| x["id"] == format!("{w}/{p}")).unwrap()["labels"];
            assert_eq!(j("baseline")["bound"], "application");
            assert_eq!(j("baseline/device-bound")["bound"], "device");
        }
    }
    // TPC-C: lifetime grouping empties the victims (the predictor at work).
    let (b, p) = (
        mean_valid(ssd("tpcc", "baseline")),
        mean_valid(ssd("tpcc", "plan-pred-1/4")),
    );
    assert!(
        p < b - 5.0,
        "TPC-C victims: PLAN-Pred {p:.1} % valid, baseline {b:.1} %"
    );
    // GCC: builds die whole, every victim is empty.
    assert_eq!(mean_valid(ssd("gcc", "baseline")), 0.0);
    // The other conditions: the same host writes; the GC rule and the discard as labelled;
    // without discard the device never hears of a deleted file, so GCC's builds leave valid
    // dead data that GC copies.
    let point = |id: String| -> &Value { runs.iter().find(|x| x["id"] == id).unwrap() };
    for w in workloads {
        for p in ["baseline", "multi-stream", "plan-pred-1/4"] {
            let claims = point(format!("{w}/{p}"));
            let separate = point(format!("{w}/{p}/separate-gc"));
            let units = |v: &Value, k: &str| v["result"]["ssd"]["host"][k].as_u64().unwrap();
            assert_eq!(units(claims, "write_units"), units(separate, "write_units"), "{w}/{p}");
            assert_eq!(claims["labels"]["gc_frontier"], "shared");
            assert_eq!(separate["labels"]["gc_frontier"], "separate");
            if ["ycsb", "fileserver", "gcc"].contains(&w) {
                let none = point(format!("{w}/{p}/no-discard"));
                assert_eq!(none["labels"]["discard"], "none");
                assert_eq!(units(none, "trim_units"), 0, "{w}/{p}");
                assert!(units(claims, "trim_units") > 0, "{w}/{p}");
                assert_eq!(units(claims, "write_units"), units(none, "write_units"), "{w}/{p}");
            }
        }
    }
    // GC's watermarks: FEMU's collect after requests, never a victim less than 1/8 invalid
    // (in whole superblocks, on a run without foreground GC); foreground only never does.
    let mut background = 0;
    for w in workloads {
        for p in ["baseline", "plan-pred-1/4"] {
            let femu = point(format!("{w}/{p}"));
            let fg_only = point(format!("{w}/{p}/no-bg-gc"));
            assert_eq!(femu["labels"]["gc"], "femu-watermarks");
            assert_eq!(fg_only["labels"]["gc"], "foreground-only");
            assert_eq!(fg_only["result"]["ssd"]["gc"]["background"], 0, "{w}/{p}");
            let gc = &femu["result"]["ssd"]["gc"];
            background += gc["background"].as_u64().unwrap();
            if gc["foreground"] == 0 && p == "baseline" {
                let h = femu["result"]["ssd"]["placement"]["victim_valid_percent"]
                    .as_array()
                    .unwrap();
                assert!(h[88..].iter().all(|c| c == 0), "{w}/{p}: a victim more than 7/8 valid");
            }
        }
    }
    assert!(background > 0);
    let gcc_none = &point("gcc/baseline/no-discard".into())["result"]["ssd"];
    assert!(mean_valid(gcc_none) > 0.0 && gcc_none["waf"].as_f64().unwrap() > 1.0);
    // GCC's other readings: half the space cold, or long-lived files among the sources (the
    // same builds, more host writes); either makes the baseline copy live data.
    let gcc = point("gcc/baseline".into());
    let units = |v: &Value, k: &str| v["result"]["ssd"]["host"][k].as_u64().unwrap();
    let fuller = point("gcc/baseline/gcc-fuller".into());
    assert_eq!(
        (fuller["labels"]["cold"].as_str(), gcc["labels"]["cold"].as_str()),
        (Some("50%"), Some("25%"))
    );
    let long = point("gcc/baseline/gcc-long-lived".into());
    assert_eq!(long["labels"]["other_files"], "long-lived");
    assert!(units(long, "write_units") > units(gcc, "write_units"));
    for v in [fuller, long] {
        assert!(mean_valid(&v["result"]["ssd"]) > 0.0, "{}", v["id"]);
        assert!(v["result"]["ssd"]["waf"].as_f64().unwrap() > 1.0, "{}", v["id"]);
    }
    // Fileserver under PLAN: every write by lifetime under the claims; whole-file writes of
    // 128 KiB, then of 64 KiB or more, wide under the readings. Other policies are not rerun.
    let placement = |id: &str, k: &str| point(id.into())["result"]["ssd"]["placement"][k].as_u64().unwrap();
    let p = "fileserver/plan-pred-1/4";
    assert_eq!(point(p.into())["labels"]["large_write"], "256KiB");
    assert_eq!(placement(p, "large_writes"), 0);
    let (l128, l64) = (
        placement(&format!("{p}/fileserver-128k"), "large_writes"),
        placement(&format!("{p}/fileserver-64k"), "large_writes"),
    );
    assert!(l128 > 0 && l64 > l128, "{l128} {l64}");
    assert_eq!(point("fileserver/baseline".into())["labels"]["large_write"], "-");
    assert!(!runs.iter().any(|x| x["id"] == "fileserver/baseline/fileserver-128k"));
}

#[test]
fn hotr_quick_runs_every_scheme_back_end_and_cell() {
    // The seed's traces are public traces, read from the traces folder.
    let names: Vec<&str> = ssdlab_core::trace::catalogue::TRACES.iter().map(|t| t.name).collect();
    if ssdlab_core::trace::catalogue::for_test(&names).is_none() {
        return;
    }
    let files = [
        "result.json",
        "table.md",
        "table.csv",
        "fig1c-page-classes.svg",
        "fig5-mean.svg",
        "fig6-redirected.svg",
        "fig7-cost-latency.svg",
        "fig8-tail.svg",
        "fig9-cells.svg",
        "backend.svg",
        "fig5-mean-reads.svg",
        "fig1b-blocked.svg",
        "fig1b-loss.svg",
        "capacity.svg",
        "track.svg",
        "theta.svg",
        "fig8-tail-reads.svg",
        "fig8-tail-reads-hpc46.svg",
        "fig9-cells-reads.svg",
        "backend-reads.svg",
    ];
    let (out, stdout) = run_quick("hotr", &files);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    let runs = r["runs"].as_array().unwrap();
    // 3 workloads × (2 back ends × 9 schemes + the ideal baseline + 3 more copy budgets + 2
    // more list lengths + 3 cells × 2 schemes), and HPC 46 at 4 more popularities × 2 schemes.
    assert_eq!(runs.len(), 98);
    for want in [
        "checks hold; 2 derived and 8 under other readings, shown and not counted;",
        "under the reading track-half (R-LRU lists tracking half as many pages",
        "98 points, the 39 the claims read × 2 seeds",
    ] {
        assert!(stdout.contains(want), "{want}: {stdout}");
    }
    claims_judged_by_their_rules(&r, &stdout);
    let ssd = |id: &str| -> &Value {
        &runs.iter().find(|x| x["id"] == id).unwrap_or_else(|| panic!("{id}"))["result"]["ssd"]
    };
    let red = |id: &str, k: &str| ssd(id)["redundancy"][k].as_f64().unwrap_or_else(|| panic!("{id} {k}"));
    for w in ["fin1", "msr-rw40", "hpc46"] {
        for b in ["fcfs", "rps"] {
            let base = format!("{w}/baseline/{b}/tlc");
            assert!(ssd(&base).get("redundancy").is_none());
            assert_eq!(
                ssd(&base)["scheduler"]["policy"],
                if b == "fcfs" { "fcfs" } else { "read-priority" }
            );
            let writes = ssd(&base)["host"]["write_units"].as_u64().unwrap();
            for (s, cost) in [
                ("hotr", 1.125),
                ("hotr-conflict", 1.125),
                ("hotr-op", 1.1005),
                ("hotr-slc", 1.125),
                ("hotr-2chips", 1.25),
                ("rails", 2.0),
                ("ttflash", 1.25),
            ] {
                let id = format!("{w}/{s}/{b}/tlc");
                // The same workload whatever the scheme, and never a stale read.
                assert_eq!(ssd(&id)["host"]["write_units"].as_u64().unwrap(), writes, "{id}");
                // hotr-op lends whole blocks: a hair above 10 % of the host capacity.
                assert!(
                    (red(&id, "space_cost") - cost).abs() < 1e-3,
                    "{id}: {}",
                    red(&id, "space_cost")
                );
                assert_eq!(red(&id, "stale_reads"), 0.0, "{id}");
                assert!(red(&id, "conflicts_avoided") <= red(&id, "home_conflicts"), "{id}");
            }
            // Rails' writes complete in its cache, sooner than when programmed.
            let wmean = |s: &str| -> f64 {
                let j = &runs.iter().find(|x| x["id"] == format!("{w}/{s}/{b}/tlc")).unwrap()["result"]["jobs"][0];
                j["write"]["clat_ns"]["mean"].as_f64().unwrap()
            };
            assert!(wmean("rails") < 0.5 * wmean("rails-flash"), "{w}/{b}");
            // Rails reads its mirror half when the primaries write: about half the reads.
            let rails = format!("{w}/rails/{b}/tlc");
            let share = red(&rails, "redirected_reads") / red(&rails, "reads");
            assert!((0.3..0.7).contains(&share), "{rails}: {share}");
            // TTFlash rebuilds every conflicting read from at most the 4 other chips.
            let tt = format!("{w}/ttflash/{b}/tlc");
            assert_eq!(red(&tt, "rebuilds"), red(&tt, "home_conflicts"), "{tt}");
            assert!(red(&tt, "rebuild_reads") <= 4.0 * red(&tt, "rebuilds"), "{tt}");
        }
    }
    let mean = |id: &str| -> f64 {
        let j = &runs.iter().find(|x| x["id"] == id).unwrap()["result"]["jobs"][0];
        let (r, w) = (&j["read"], &j["write"]);
        let n = |o: &Value| o["total_ios"].as_f64().unwrap();
        (n(r) * r["clat_ns"]["mean"].as_f64().unwrap() + n(w) * w["clat_ns"]["mean"].as_f64().unwrap()) / (n(r) + n(w))
    };
    for w in ["fin1", "msr-rw40", "hpc46"] {
        // Each workload replayed at the speed that brings the baseline's blocked reads to the
        // seed's 33 %.
        let base = format!("{w}/baseline/fcfs/tlc");
        let i = ssd(&base)["interference"]["conflicting_reads"].as_f64().unwrap();
        let h = &ssd(&base)["host"];
        let reads = ["read_units", "unmapped_read_units", "buffer_read_units"].map(|k| h[k].as_f64().unwrap());
        let blocked = 100.0 * i / (reads[0] - reads[1] - reads[2]);
        // fin1's first 3,000 requests jump from 26 % to 59 % between speeds 4.66 and 4.67 (a
        // burst of writes tips into a queue): the closer side is kept.
        let within = if w == "fin1" { 7.0 } else { 2.0 };
        assert!((blocked - 33.0).abs() <= within, "{w}: {blocked}");
        let speed = |id: &str| runs.iter().find(|x| x["id"] == id).unwrap()["labels"]["speed"].clone();
        assert_eq!(speed(&base), speed(&format!("{w}/hotr/fcfs/tlc")));
        // The ideal back end: reads first, suspension free; never slower than the baseline.
        let ideal = format!("{w}/baseline/ideal/tlc");
        assert_eq!(ssd(&ideal)["scheduler"]["policy"], "read-priority");
        assert!(mean(&ideal) <= mean(&base), "{w}");
    }
    // HotR holds more copies as its budget grows (HPC 46 re-reads its hot set), at most the
    // budget: ceil(share × the lists' length) per chip.
    let held = |c: &str| red(&format!("hpc46/{c}/fcfs/tlc"), "copies_held");
    assert!(held("hotr-1pc") < held("hotr-5pc") && held("hotr-5pc") < held("hotr") && held("hotr") < held("hotr-20pc"));
    // Skewed popularity inside the hot set: the copies serve more of the reads.
    let redirected =
        |w: &str| red(&format!("{w}/hotr/fcfs/tlc"), "redirected_reads") / red(&format!("{w}/hotr/fcfs/tlc"), "reads");
    assert!(
        redirected("hpc46-z1.5") > 4.0 * redirected("hpc46"),
        "{} {}",
        redirected("hpc46-z1.5"),
        redirected("hpc46")
    );
    // The cells' runs: HotR and baseline at SLC, MLC and QLC.
    for c in ["slc", "mlc", "qlc"] {
        assert!(
            ssd(&format!("hpc46/hotr/fcfs/{c}"))["redundancy"]["migrations"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}

#[test]
fn rodi_quick_characterizes_the_drives_and_sets_rodi_against_raid0() {
    let files = [
        "result.json",
        "table.md",
        "fig5-seq-2MiB.svg",
        "fig7-seq-2MiB.svg",
        "fig1-4-seq-8MiB-d2.svg",
    ];
    let (out, stdout) = run_quick("rodi", &files);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    let runs = r["runs"].as_array().unwrap();
    // 4 characterizations and the fresh OCZ's; RAID 0 and RODI-1 at 35, 85, 100 %; two RODI-2 at 70, 85, 100 %;
    // RAID 0 and RODI-1 at 35 % again with one member request per stripe unit.
    assert_eq!(runs.len(), 19);
    claims_judged_by_their_rules(&r, &stdout);
    // The open conditions' other readings: section 5.1's pair for the 670 MB/s sentence, one
    // member request per stripe unit, and the fresh OCZ's tables.
    let labels: Vec<&str> = r["readings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["per-unit", "pair-530", "ocz-fresh"]);
    assert_eq!(
        claim(&r, "array/rodi-2-largest-gain@pair-530")["replaces"],
        "array/rodi-2-largest-gain"
    );
    assert!(claim(&r, "array/rodi-2-largest-gain")["note"]
        .as_str()
        .unwrap()
        .starts_with("rodi-2-850:"));
    let run = |id: &str| -> &Value { &runs.iter().find(|x| x["id"] == id).unwrap_or_else(|| panic!("{id}"))["result"] };
    // A characterization is a profile of 5 points (8 MiB sequential, depth 2).
    let p = run("characterize/OCZ");
    assert_eq!(p["points"].as_array().unwrap().len(), 5);
    assert_eq!(p["name"], "ocz-vector150");
    // RODI-1: the OCZ only reads, the others mix at 3 % reads; RAID 0 spreads 35 % over all.
    let rodi = run("rodi-1/seq/2MiB/read=35");
    let m = rodi["members"].as_array().unwrap();
    assert_eq!(
        (m[2]["name"].as_str(), m[2]["readonly"].as_bool()),
        (Some("OCZ"), Some(true))
    );
    assert_eq!(m[2]["write_requests"], 0);
    assert!(m[0]["read_share"].as_f64().unwrap() < 0.1);
    let raid = run("raid0/seq/2MiB/read=35");
    for x in raid["members"].as_array().unwrap() {
        assert!((x["read_share"].as_f64().unwrap() - 0.35).abs() < 0.06, "{x}");
    }
    // One member request per 64 KiB stripe unit: a 2 MiB request is 32 member requests
    // (33 when it starts mid-unit), against 3 merged ones; the read-only OCZ's are not cut.
    let parts = |x: &Value| {
        x["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["read_requests"].as_u64().unwrap() + m["write_requests"].as_u64().unwrap())
            .sum::<u64>()
    };
    let per_unit = run("raid0-per-unit/seq/2MiB/read=35");
    let (jobs, jobs_cut) = (
        raid["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
            + raid["jobs"][0]["write"]["total_ios"].as_u64().unwrap(),
        per_unit["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
            + per_unit["jobs"][0]["write"]["total_ios"].as_u64().unwrap(),
    );
    // (Parts are counted as issued in the window and requests as completed in it: the six
    // in flight at either edge may differ.)
    assert!(
        parts(raid) <= 3 * (jobs + 6) && parts(per_unit) >= 32 * (jobs_cut - 6),
        "{} {}",
        parts(raid),
        parts(per_unit)
    );
    let ro_cut = run("rodi-1-per-unit/seq/2MiB/read=35")["members"][2].clone();
    assert_eq!(ro_cut["write_requests"], 0);
    // The OCZ at 35 % holds RAID 0 back: RODI is well above it; at 100 % reads they meet.
    assert!(ours(&r, "array/rodi-35-2MiB-seq") > 1.2 * ours(&r, "array/raid0-35-2MiB-seq"));
    assert!(ours(&r, "shape/converge-at-100") < 0.05);
    // The OCZ's gain comes from its performance mode (pure writes far below pure reads).
    assert!(ours(&r, "table2/OCZ-8MiB-d2") > 2.0 * ours(&r, "table2/850-8MiB-d2"));
}

#[test]
fn fdp_quick_runs_cachelib_and_warp_with_and_without_placement() {
    let files = [
        "result.json",
        "table.md",
        "cachelib-waf.svg",
        "cachelib-split.svg",
        "warp-handles.svg",
        "plan-waf.svg",
    ];
    let (out, stdout) = run_quick("fdp", &files);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["seed_document"], "docs/experiments/fdp-sources.md");
    let runs = r["runs"].as_array().unwrap();
    // CacheLib at 50 and 100 % with and without FDP, WARP with and without its overwrite
    // stream; the readings' (two byte splits and two spares at both sizes, the SOC of the
    // drive at 50 %; WARP again under each spare), and PLAN's 5 workloads under 4 schemes.
    assert_eq!(runs.len(), 4 + 2 + 4 * 4 + 2 + 2 * 2 + 5 * 4);
    claims_judged_by_their_rules(&r, &stdout);
    let run = |id: &str| -> &Value { &runs.iter().find(|x| x["id"] == id).unwrap_or_else(|| panic!("{id}"))["result"] };
    let placement = |id: &str, key: &str| -> Vec<u64> {
        run(id)["ssd"]["placement"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect()
    };
    // With FDP the SOC writes through handle 0 and the log through handle 1, and the log's
    // units are emptied by the log itself; without, every write is on handle 0 and is
    // counted as one without a placement identifier.
    let host = placement("cachelib-100/fdp", "host_bytes_per_slot");
    assert!(
        host[0] > 0 && host[1] > 0 && host[2..].iter().all(|&h| h == 0),
        "{host:?}"
    );
    assert_eq!(placement("cachelib-100/fdp", "gc_bytes_per_slot")[1], 0);
    let host = placement("cachelib-100/no-fdp", "host_bytes_per_slot");
    assert!(host[0] > 0 && host[1..].iter().all(|&h| h == 0), "{host:?}");
    assert!(
        run("cachelib-100/no-fdp")["ssd"]["placement"]["writes_without_placement_id"]
            .as_u64()
            .unwrap()
            > 0
    );
    // Mixing the two caches costs: without FDP the drive copies far more.
    let waf = |id: &str| run(id)["ssd"]["waf"].as_f64().unwrap();
    assert!(waf("cachelib-100/no-fdp") > 1.5 * waf("cachelib-100/fdp"));
    // WARP: the overwrite stream's handle 2 writes only when it is there.
    assert!(placement("warp/fdp", "host_bytes_per_slot")[2] > 0);
    assert_eq!(placement("warp-no-overwrite/fdp", "host_bytes_per_slot")[2], 0);
    // Theorem 1 of the paper beside the simulated SOC: a check that holds.
    let t = claim(&r, "cachelib-100/theorem1");
    assert_eq!(
        (t["kind"].as_str(), t["verdict"].as_str()),
        (Some("check"), Some("reproduced"))
    );
    let labels: Vec<&str> = r["readings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["soc75", "soc90", "soc-of-drive", "spare7", "spare20"]);
    // PLAN's workloads on FDP: the file system's streams reach their handles (more than one
    // handle writes).
    let host = placement("plan-fio/fdp", "host_bytes_per_slot");
    assert!(host.iter().filter(|&&h| h > 0).count() > 1, "{host:?}");
}

#[test]
fn zns_quick_compares_every_point_with_the_drives_measured_row() {
    let files = [
        "result.json",
        "table.md",
        "write-size.svg",
        "write-zones.svg",
        "append-depth.svg",
        "randread-depth.svg",
        "reset.svg",
        "finish.svg",
    ];
    let (out, stdout) = run_quick("zns", &files);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["seed_document"], "data/zn540/measured.csv");
    claims_judged_by_their_rules(&r, &stdout);
    let measured =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/zn540/measured.csv"))
            .unwrap();
    let claims = r["claims"].as_array().unwrap();
    for c in claims {
        // Each claim quotes the drive's rows: the measured value is theirs (one row, or the
        // mean of the runs' rows), with the source file each names.
        let rows: Vec<&str> = c["source"].as_str().unwrap().split('…').collect();
        assert!(rows.iter().all(|row| measured.lines().any(|l| l == *row)), "{c}");
        let col = if c["unit"] == "MiB/s" { 7 } else { 9 };
        let mean = rows
            .iter()
            .map(|row| row.split(',').nth(col).unwrap().parse::<f64>().unwrap())
            .sum::<f64>()
            / rows.len() as f64;
        assert!((c["seed_value"].as_f64().unwrap() - mean).abs() < 1e-9, "{c}");
        assert!(
            rows.iter()
                .all(|row| row.ends_with(".json") || row.contains("data/custom/")),
            "{c}"
        );
    }
    // The preset's inputs are checks; every other point a counted claim.
    let kind = |id: &str| claim(&r, id)["kind"].as_str().unwrap().to_string();
    assert_eq!(kind("randread/4k/1z/qd1"), "check");
    assert_eq!(kind("zone/write_explicit"), "check");
    assert_eq!(kind("write/4k/1z/qd1"), "seed");
    assert_eq!(kind("zone/finish/1"), "seed");
    let run = |id: &str| -> &Value {
        &r["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))["result"]
    };
    // Finish pads: its time falls with the data the zone holds; a reset of an open zone erases
    // first, so it takes longer than the firmware time alone (1.6 ms + 50 ns per LBA).
    assert!(ours(&r, "zone/finish/1") > ours(&r, "zone/finish/68928"));
    assert!(ours(&r, "zone/reset/68928") > 1600.0 + 0.05 * 68928.0 + 3000.0);
    assert!((ours(&r, "zone/reset/1") - (1600.0 + 0.05 + 5.381 + 1.0 + 4.15)).abs() < 1.0);
    let timed = run("zone/finish/1")["timed"].as_array().unwrap();
    assert_eq!(timed[0]["name"], "finish");
    // Random reads read what the fill job wrote: the zone is read, not its empty part.
    assert!(
        run("randread/4k/1z/qd64")["jobs"][1]["read"]["total_ios"]
            .as_u64()
            .unwrap()
            > 1000
    );
}
