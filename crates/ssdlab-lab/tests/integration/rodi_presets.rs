//! The RODI seed's four SATA presets (configs/samsung-830.toml, samsung-850pro.toml,
//! ocz-vector150.toml, intel-530.toml): what their calibration rests on, from quick sweeps
//! (8 MiB sequential at queue depth 2 over 20 GiB). Each bound is computed from the preset's
//! own parameters, so a changed parameter moves it; the ordering of read-only gains is the
//! seed's (section 3.3, Table 2). Long simulations: run with `--profile ci-test`.

use ssdlab_lab::array::profile::{DeviceProfile, Pattern};
use ssdlab_lab::characterize::{characterize, Sweep};
use ssdlab_lab::config::{load_config_with, CellType, Config};

const MIB: u64 = 1 << 20;

fn sweep(shares: Vec<u32>) -> Sweep {
    Sweep {
        read_shares: shares,
        per_point: 512 * MIB,
        ..Sweep::quick()
    }
}

fn profile(name: &str, set: &[&str], shares: Vec<u32>) -> (Config, DeviceProfile) {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let cfg = load_config_with(name, &set).unwrap();
    let p = characterize(&cfg, &sweep(shares), &|_, _| {}).unwrap();
    (cfg, p)
}

fn mb(p: &DeviceProfile, share: f64) -> f64 {
    p.points.iter().find(|q| q.read_share == share).unwrap().mb_s()
}

/// The flash's sustained host write rate, MB/s, from the preset's parameters: dies (times
/// planes when they program in parallel) x page / program time per page, the transfer over
/// the channels as the other bound, both scaled by compression; at most the link.
fn flash_write(c: &Config, program_ns: u64) -> f64 {
    let g = &c.device.geometry;
    let n = &c.device.nand;
    let dies = (g.channels * g.ways * g.dies_per_chip) as f64;
    let units = if n.plane_parallel {
        dies * g.planes_per_die as f64
    } else {
        dies
    };
    let ratio = c.device.ftl.compression;
    let dies_rate = units * g.page_size.0 as f64 / (program_ns as f64 * 1e-9) / ratio;
    let channels_rate = g.channels as f64 * n.channel_rate.0 as f64 / ratio;
    let link = c.device.link_bandwidth() as f64;
    dies_rate.min(channels_rate).min(link) / 1e6
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * want,
        "{what}: {got:.1} MB/s, expected {want:.1} within {:.0} %",
        100.0 * tol
    );
}

#[test]
fn pure_reads_reach_the_link_and_pure_writes_the_flash() {
    for name in ["samsung-830", "samsung-850pro", "ocz-vector150", "intel-530"] {
        let (c, p) = profile(name, &[], vec![0, 100]);
        let link = c.device.link_bandwidth() as f64 / 1e6;
        close(mb(&p, 1.0), link, 0.02, &format!("{name} pure reads"));
        let tprog = c.device.program_ns()[0];
        let tprog = if c.device.nand.pslc_fold > 0.0 {
            // Past the threshold (the presets precondition 90 %): SLC program, SLC read, the
            // cell's program.
            let (r, pr, _) = CellType::Slc.typical();
            r.0 + pr.0 + tprog
        } else {
            tprog
        };
        close(
            mb(&p, 0.0),
            flash_write(&c, tprog),
            0.05,
            &format!("{name} pure writes"),
        );
    }
}

#[test]
fn read_only_gains_order_as_the_seeds() {
    let gain = |name: &str| {
        let (_, p) = profile(name, &[], (0..=100).step_by(10).collect());
        p.curve(Pattern::Sequential, 8 * MIB, 2).unwrap().readonly_gain()
    };
    let (ocz, s830, s850, i530) = (
        gain("ocz-vector150"),
        gain("samsung-830"),
        gain("samsung-850pro"),
        gain("intel-530"),
    );
    // The seed (Table 2, 8 MB, d = 2): OCZ 183 > 830 105 > 850 47 > 530 15.
    assert!(ocz > s830 + 30.0, "OCZ {ocz:.1} vs 830 {s830:.1}");
    assert!(s830 > s850 + 30.0, "830 {s830:.1} vs 850 {s850:.1}");
    assert!(s850 > 0.0 && i530 > 0.0, "850 {s850:.1}, 530 {i530:.1}");
    assert!(ocz > 150.0 && s830 > 80.0 && s850 < 80.0 && i530 < 80.0);
}

#[test]
fn ocz_writes_fast_below_its_performance_mode_threshold() {
    // A drive 30 % full (below pslc_fold = 0.5): one-bit programs, the link limits.
    let (c, fresh) = profile("ocz-vector150", &["precondition.utilisation=0.3"], vec![0]);
    close(
        mb(&fresh, 0.0),
        c.device.link_bandwidth() as f64 / 1e6,
        0.05,
        "OCZ fresh writes",
    );
    // Without the mode: the MLC program time alone.
    let (c, off) = profile("ocz-vector150", &["device.nand.pslc_fold=0"], vec![0]);
    close(
        mb(&off, 0.0),
        flash_write(&c, c.device.program_ns()[0]),
        0.05,
        "OCZ without the mode",
    );
}

#[test]
fn the_530_on_incompressible_data_is_held_by_its_channels() {
    // compression = 1: 8 channels x 62.5 MB/s = 500 MB/s of flash data, below the link.
    let (c, p) = profile("intel-530", &["device.ftl.compression=1"], vec![0, 100]);
    let channels = c.device.geometry.channels as f64 * c.device.nand.channel_rate.0 as f64 / 1e6;
    assert!(mb(&p, 1.0) < channels, "{}", mb(&p, 1.0));
    close(mb(&p, 1.0), channels, 0.06, "530 incompressible reads");
    close(
        mb(&p, 0.0),
        flash_write(&c, c.device.program_ns()[0]),
        0.08,
        "530 incompressible writes",
    );
}
