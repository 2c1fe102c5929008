//! Bad input as a new user writes it: every case exits with status 2 and one line
//! `ssdlab: error: FILE[:LINE[:COL]]: KEY: what was wrong; expected WHAT`, never a panic, an
//! abort or a silently wrong run. Each case names the exact origin and key it must report.

use std::path::Path;
use std::process::Command;

fn ssdlab(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ssdlab")
}

/// Run `args` in `dir` and check the one-line error starts with `prefix` (origin and key)
/// and says what was expected.
fn refused(dir: &Path, args: &[&str], prefix: &str) -> String {
    let o = ssdlab(dir, args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: status {:?}: {err}", o.status);
    assert!(
        o.stdout.is_empty(),
        "{args:?}: printed a result: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("ssdlab: preconditioning"))
        .collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line expected: {err}");
    let line = lines[0];
    let msg = line
        .strip_prefix("ssdlab: error: ")
        .unwrap_or_else(|| panic!("{args:?}: {line}"));
    assert!(
        msg.starts_with(prefix),
        "{args:?}:\n  got      {msg}\n  expected {prefix}..."
    );
    assert!(
        msg.contains("; expected") || msg.contains(" expected "),
        "{args:?}: says what was expected: {msg}"
    );
    msg.to_string()
}

const BASE: &str = "[device]\npreset = \"mlc-sata\"\n";

#[test]
fn config_values_are_reported_at_their_line_and_key() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        // A zero rate as an integer once divided by zero in the device.
        ("[device.nand]\nchannel_rate = 0\n", "c.toml:4:1: device.nand.channel_rate: got 0 bytes/s", ""),
        ("[device.nand]\ncell = \"pentalc\"\n", "c.toml:4:1: device.nand.cell: unknown variant `pentalc`; expected one of", ""),
        ("[device.nand]\nread = [\"75us\", \"x\"]\n", "c.toml:4:17: device.nand.read[1]: 'x' is not a duration; expected", ""),
        ("[device.nand]\nread = true\n", "c.toml:4:1: device.nand.read: invalid type: boolean `true`; expected a duration", ""),
        ("[device.nand]\nread = [\"75us\", \"80us\", \"90us\"]\n", "c.toml:4:1: device.nand.read: got 3 durations; expected one, or 2", ""),
        ("[device.nand]\nerase = \"3 furlongs\"\n", "c.toml:4:1: device.nand.erase: '3 furlongs': unknown time unit 'furlongs'; expected", ""),
        ("[device.nand]\nerase = -5\n", "c.toml:4:1: device.nand.erase: got -5; expected a duration of at least 0", ""),
        ("[device.nand]\nendurance = 0\n", "c.toml:4:1: device.nand.endurance: got 0; expected at least 1", ""),
        ("[device.geometry]\nchannels = 0\n", "c.toml:4:1: device.geometry.channels: got 0; expected at least 1", ""),
        ("[device.geometry]\nchannels = -1\n", "c.toml:4:1: device.geometry.channels: invalid value: integer `-1`; expected a whole number", ""),
        ("[device.geometry]\nchannels = 4294967296\n", "c.toml:4:1: device.geometry.channels: invalid value", ""),
        // Products that overflow: checked, not wrapped.
        (
            "[device.geometry]\nchannels = 4294967295\nways = 4294967295\nblocks_per_plane = 4294967295\n",
            "c.toml:3:9: device.geometry: ",
            "do not fit 32-bit unit numbers",
        ),
        ("[device.geometry]\noverprovisioning = 0\n", "c.toml:4:1: device.geometry.overprovisioning: got 0; expected a share above 0", ""),
        ("[device.geometry]\nmapping_unit = \"3000B\"\n", "c.toml:4:1: device.geometry.mapping_unit: a mapping unit of 3000 bytes with pages of 8192; expected a mapping unit that is a multiple of 512 bytes", ""),
        ("[device.ftl]\nwrite_buffer = \"1KiB\"\n", "c.toml:4:1: device.ftl.write_buffer: got 1024 bytes; expected 0 (write-through) or at least one page", ""),
        ("[device.ftl]\ngc_threshold = 1000\n", "c.toml:4:1: device.ftl.gc_threshold: ", "spare blocks per plane"),
        ("[device.ftl]\ngc_policy = \"lru\"\n", "c.toml:4:1: device.ftl.gc_policy: ", ""),
        ("[device.scheduler]\npolicy = \"lifo\"\n", "c.toml:4:1: device.scheduler.policy: unknown variant `lifo`; expected", ""),
        ("warp = 9\n", "c.toml:3:1: device.warp: unknown key `warp`; expected one of", ""),
        ("[precondition]\nutilisation = 2\n", "c.toml:4:1: precondition.utilisation: got 2; expected a share between 0 and 1", ""),
        (
            "[precondition]\nmode = \"steady\"\nmax_overwrites = 2\nmin_overwrites = 3\n",
            "c.toml:6:1: precondition.min_overwrites: 3 is above max_overwrites = 2",
            "expected at most max_overwrites",
        ),
        ("[[job]]\nrw = \"randread\"\niodepth = \"x\"\n", "c.toml:5:1: job[0].iodepth: invalid type: string \"x\"; expected a whole number", ""),
        ("[[job]]\nrw = \"randread\"\nio_size = 0\n", "c.toml:5:1: job[0].io_size: got 0; expected a positive size", ""),
        ("[[job]]\nrw = \"randread\"\nbssplit = \"4k/4294967295:8k/1\"\n", "c.toml:5:1: job[0].bssplit: weight 4294967295 is above 100", ""),
        ("[[job]]\nrw = \"randread\"\nbssplit = \"4k/60:8k/60\"\n", "c.toml:5:1: job[0].bssplit: the weights add up to 120; expected", ""),
        ("[[job]]\nrw = \"randread\"\noffset = \"300GiB\"\n", "c.toml:5:1: job[0].offset: offset 322122547200 is past the end", ""),
        ("[[job]]\nrw = \"randread\"\nruntime = \"5000000000s\"\n", "c.toml:5:1: job[0].runtime: got 5000000000000000000 ns; expected at most", ""),
        ("[[job]]\nrw = \"randread\"\nruntime = \"18446744073709551615ns\"\n", "c.toml:5:1: job[0].runtime: '18446744073709551615ns' is not a whole number of nanoseconds below 2^64; expected", ""),
        ("[[job]]\nrw = \"randread\"\nrandom_distribution = \"pareto:2\"\n", "c.toml:5:1: job[0].random_distribution: 'pareto:2': got h 2; expected h between 0 and 1", ""),
        // A key left at its default is reported at its job's header.
        ("[[job]]\nrw = \"randread\"\nsize = \"1KiB\"\n", "c.toml:5:1: job[0].size: the range (1024 bytes) is smaller than the block size; expected", ""),
        ("[[job]]\nrw = \"randread\"\ntime_based = true\n", "c.toml:5:1: job[0].time_based: set without a runtime; expected", ""),
        ("[device\n", "c.toml:3:8: invalid table header; expected `.`, `]`", ""),
        // A literal TOML cannot hold, at its key (once only the line and column).
        (
            "[[job]]\nrw = \"randread\"\n[[job]]\niodepth = 18446744073709551616\n",
            "c.toml:6:11: job[1].iodepth: number too large to fit in target type; expected a whole number",
            "",
        ),
        // Once reported as job[0].size on the size's line.
        (
            "[[job]]\nrw = \"randread\"\nsize = \"10%\"\noffset = \"100%\"\n",
            "c.toml:6:1: job[0].offset: offset ",
            "is at the end of the device",
        ),
        // Once reported as array.layout on the layout's line.
        (
            "[array]\nlayout = \"raid0\"\nstripe_unit = 0\n[[array.member]]\n[[array.member]]\n",
            "c.toml:5:1: array.stripe_unit: 0 B; expected a positive multiple of 512 bytes",
            "",
        ),
        // Once a zero-capacity volume, reported at the preset's job (a file the user never named).
        (
            "[array]\nlayout = \"raid0\"\nstripe_unit = \"1TiB\"\n[[array.member]]\n[[array.member]]\n",
            "c.toml:5:1: array.stripe_unit: 1099511627776 B is more than a member holds",
            "expected at most the smallest member's capacity",
        ),
        // A single table where a list of them belongs (once `invalid type: map`).
        ("[job]\nrw = \"randread\"\n", "c.toml:3:2: job: a single [job] table; expected [[job]]", ""),
        // Once the loader's message with a second `expected` after it.
        (
            "[[array.member]]\nconfig = \"nosuch.toml\"\n",
            "c.toml:4:1: array.member[0].config: 'nosuch.toml': no such file; expected a run file with a [device]",
            "",
        ),
        // Once the trace's name alone, without the run file's line.
        (
            "[[job]]\nname = \"t\"\n[job.trace]\nfile = \"nosuch.csv\"\n",
            "c.toml:6:1: job[0].trace.file: 'nosuch.csv': no such file; expected a trace file",
            "",
        ),
    ];
    for (extra, prefix, contains) in cases {
        std::fs::write(d.path().join("c.toml"), format!("{BASE}{extra}")).unwrap();
        let msg = refused(d.path(), &["run", "c.toml", "-q"], prefix);
        assert!(msg.contains(contains), "{extra}: {msg}");
    }
}

/// `[job.hpc]` (the HPC-like generator): each bad key at its line, under its job's key path.
#[test]
fn hpc_keys_are_reported_at_their_line_and_key() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "read_share = 46",
            "c.toml:5:1: job[0].hpc.read_share: got 46; expected a share from 0 to 1",
        ),
        (
            "rate = -2000",
            "c.toml:5:1: job[0].hpc.rate: got -2000; expected a positive rate in requests per second",
        ),
        (
            "read_locality = 1.01",
            "c.toml:5:1: job[0].hpc.read_locality: got 1.01; expected a share from 0 to 1",
        ),
        (
            "hot_share = 0",
            "c.toml:5:1: job[0].hpc.hot_share: got 0; expected a share of the region above 0 and below 1",
        ),
        (
            "sequentiality = -0.3",
            "c.toml:5:1: job[0].hpc.sequentiality: got -0.3; expected a share from 0 to 1",
        ),
        (
            "bs = \"3KB\"",
            "c.toml:5:1: job[0].hpc.bs: got 2.93KiB; expected a multiple of 512 bytes",
        ),
        (
            "locality = 0.9",
            "c.toml:5:1: job[0].hpc.locality: unknown key `locality`; expected one of",
        ),
    ];
    for (hpc, prefix) in cases {
        std::fs::write(d.path().join("c.toml"), format!("{BASE}[[job]]\n[job.hpc]\n{hpc}\n")).unwrap();
        refused(d.path(), &["run", "c.toml", "-q"], prefix);
    }
    // A rate_iops beside the table: the job's key, at its line.
    std::fs::write(
        d.path().join("c.toml"),
        format!("{BASE}[[job]]\nrate_iops = 100\n[job.hpc]\n"),
    )
    .unwrap();
    refused(
        d.path(),
        &["run", "c.toml", "-q"],
        "c.toml:4:1: job[0].rate_iops: set on an HPC job; expected none",
    );
}

#[test]
fn preset_and_command_line_origins_are_named() {
    let d = tempfile::tempdir().unwrap();
    // A key of the preset that a change elsewhere made invalid: the preset's line.
    std::fs::write(
        d.path().join("p.toml"),
        format!("{BASE}[device.ftl]\nbg_gc_threshold = 2\n"),
    )
    .unwrap();
    refused(
        d.path(),
        &["run", "p.toml", "-q"],
        "p.toml:4:1: device.ftl.bg_gc_threshold: got 2 with gc_threshold 3; expected 0 (off) or above",
    );
    refused(
        d.path(),
        &["run", "slc-sata", "-q", "--set", "device.ftl.power_loss_protection=true"],
        "--set device.ftl.power_loss_protection=true: device.ftl.power_loss_protection: set with write_buffer = 0 bytes and design \"page\"; expected the \"page\" design with a write buffer (it protects the engine's buffer)",
    );
    // FEMU's background GC: a threshold to act on, the engine's own FTL, a share below 1,
    // and no share where nothing reads it.
    refused(
        d.path(),
        &["run", "slc-sata", "-q", "--set", "device.ftl.bg_gc=\"after-request\""],
        "--set device.ftl.bg_gc=\"after-request\": device.ftl.bg_gc: \"after-request\" with bg_gc_threshold = 0; expected bg_gc_threshold above gc_threshold (the free blocks below which a request is followed by a collection), or bg_gc = \"idle\"",
    );
    refused(
        d.path(),
        &["run", "cosmos-openssd", "-q", "--set", "device.ftl.bg_gc=\"after-request\"", "--set", "device.ftl.bg_gc_threshold=8"],
        "--set device.ftl.bg_gc=\"after-request\": device.ftl.bg_gc: \"after-request\" with design \"openssd\"; expected the \"page\" design (a firmware design runs its own GC)",
    );
    refused(
        d.path(),
        &["run", "femu-bbssd", "-q", "--set", "device.ftl.bg_gc_min_invalid=1"],
        "--set device.ftl.bg_gc_min_invalid=1: device.ftl.bg_gc_min_invalid: got 1; expected a share of the victim's units from 0 up to (not including) 1",
    );
    refused(
        d.path(),
        &["run", "slc-sata", "-q", "--set", "device.ftl.bg_gc_min_invalid=0.125"],
        "--set device.ftl.bg_gc_min_invalid=0.125: device.ftl.bg_gc_min_invalid: set while bg_gc is \"idle\", which does not use it; expected bg_gc = \"after-request\" (or no bg_gc_min_invalid)",
    );
    refused(
        d.path(),
        &["run", "slc-sata", "-q", "--set", "device.ftl.flush_wait=true"],
        "--set device.ftl.flush_wait=true: device.ftl.flush_wait: got true with design \"page\", where it does nothing; expected it only with design \"openssd\"",
    );
    refused(
        d.path(),
        &[
            "run",
            "cosmos-openssd",
            "-q",
            "--set",
            r#"device.host.read_dma=[["8KiB", "90MB/s"], ["4KiB", "60MB/s"]]"#,
        ],
        r#"--set device.host.read_dma=[["8KiB", "90MB/s"], ["4KiB", "60MB/s"]]: device.host.read_dma[1]: got [4096 bytes, 60000000 bytes/s]; expected sizes above 0 in increasing order and rates of at least 1MB/s"#,
    );
    refused(
        d.path(),
        &["run", "mlc-sata", "-q", "--set", "device.geometry.pages_per_block=0"],
        "--set device.geometry.pages_per_block=0: device.geometry.pages_per_block: got 0; expected at least 1",
    );
    refused(
        d.path(),
        &["run", "-q", "--set", "job.4.bs=4k"],
        "--set job.4.bs=4k: job[4].bs: 'job' has 1 entries; expected an index below 1",
    );
    refused(
        d.path(),
        &["run", "-q", "--set", "bs"],
        "--set bs: not KEY=VALUE; expected",
    );
    std::fs::create_dir(d.path().join("adir")).unwrap();
    refused(
        d.path(),
        &["run", "adir"],
        "adir: is a directory; expected a config file or a preset name",
    );
    refused(
        d.path(),
        &["run", "mlc-sata", "--job", "adir"],
        "adir: it is a directory, not a regular file; expected a fio job file",
    );
    refused(
        d.path(),
        &["run", "nosuch.toml"],
        "nosuch.toml: no such file or preset; expected a config file or one of the presets tlc-nvme, ",
    );
}

/// A member whose run file names the file itself, or two files naming each other, once
/// loaded without end (a stack overflow, exit 134) in every command that loads a run file.
#[test]
fn member_run_files_that_lead_back_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let member =
        |to: &str| format!("{BASE}[[array.member]]\npreset = \"mlc-sata\"\n[[array.member]]\nconfig = \"{to}\"\n");
    std::fs::write(d.path().join("self.toml"), member("self.toml")).unwrap();
    std::fs::write(d.path().join("a.toml"), member("b.toml")).unwrap();
    std::fs::write(d.path().join("b.toml"), member("a.toml")).unwrap();
    let msg = refused(
        d.path(),
        &["run", "self.toml", "-q"],
        "self.toml:6:1: array.member[1].config: 'self.toml' leads back to a run file already on the way",
    );
    assert!(msg.contains("self.toml -> "), "{msg}");
    for args in [
        &["run", "a.toml", "-q"][..],
        &["lint", "a.toml"][..],
        &["characterize", "a.toml", "--quick", "-o", "p.json"][..],
    ] {
        let msg = refused(
            d.path(),
            args,
            "a.toml:6:1: array.member[1].config: 'b.toml' leads back to a run file already on the way",
        );
        assert!(
            msg.contains("b.toml -> ") && msg.ends_with("a.toml); expected a run file whose members do not name it"),
            "{msg}"
        );
    }
    // A member file shared by two members is no cycle.
    std::fs::write(d.path().join("m.toml"), BASE).unwrap();
    std::fs::write(
        d.path().join("two.toml"),
        format!("{BASE}[[array.member]]\nconfig = \"m.toml\"\n[[array.member]]\nconfig = \"m.toml\"\n[precondition]\nmode = \"none\"\n[[job]]\nnumber_ios = 10\n"),
    )
    .unwrap();
    let o = ssdlab(d.path(), &["run", "two.toml", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn memory_is_estimated_before_it_is_allocated() {
    let d = tempfile::tempdir().unwrap();
    // About 15 TiB at 4 KiB mapping units: 4.0e9 units, about 30 GiB of tables.
    std::fs::write(
        d.path().join("big.toml"),
        "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 20000\n",
    )
    .unwrap();
    let msg = refused(
        d.path(),
        &["run", "big.toml", "-q", "--max-memory", "8GiB"],
        "big.toml:4:1: device.geometry.blocks_per_plane: the run needs about ",
    );
    assert!(msg.contains("above the limit of 8.00 GiB"), "{msg}");
    // 1 PiB at 1 MiB mapping units (1 MiB pages): 2^30 units, about 8 GiB of tables.
    std::fs::write(
        d.path().join("pib.toml"),
        "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\npage_size = \"1MiB\"\nmapping_unit = \"1MiB\"\nblocks_per_plane = 1024\npages_per_block = 1024\nchannels = 16\nways = 16\n",
    )
    .unwrap();
    let msg = refused(
        d.path(),
        &["run", "pib.toml", "-q", "--max-memory", "4GiB"],
        "pib.toml:",
    );
    assert!(
        msg.contains("the run needs about 7.9") && msg.contains("GiB of memory"),
        "{msg}"
    );
    // 4,000 job sections: each job's statistics (a latency histogram per operation, fio's
    // bins, its result), once estimated at 0.52 GiB against a peak of 922 MiB, so 700 MiB
    // let it run; refused at the job file, whose jobs are what take the memory.
    let mut jobs = String::from("[global]\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=10\n");
    for i in 0..4000 {
        jobs += &format!("[j{i}]\n");
    }
    std::fs::write(d.path().join("many.fio"), jobs).unwrap();
    let msg = refused(
        d.path(),
        &["run", "slc-sata", "--job", "many.fio", "-q", "--max-memory", "700MiB"],
        "many.fio:6:1: job[0]: the run needs about 1.",
    );
    assert!(
        msg.contains("of it for the statistics of its 4000 jobs, above the limit of 0.68 GiB; expected fewer jobs"),
        "{msg}"
    );
    refused(
        d.path(),
        &["run", "--max-memory", "lots"],
        "--max-memory: 'lots' is not a size; expected",
    );
}

#[test]
fn fio_job_files_are_reported_at_their_line() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "[global]\nbs=4k\n[a]\nrw=randread\niodepth=0\n",
            "j.fio:5:1: job[0].iodepth: got 0; expected at least 1",
        ),
        (
            "[global]\nbs=3000\n[a]\nrw=randread\n",
            "j.fio:2:1: job[0].bs: got 3000; expected a positive multiple of 512",
        ),
        (
            "[a]\nrw=randread\n[b]\nrw=write\nio_size=0\n",
            "j.fio:5:1: job[1].io_size: got 0; expected",
        ),
        (
            "[a]\nrw=randread\niodepth=4294967297\n",
            "j.fio:3: iodepth: got '4294967297'; expected a whole number from 0 to 4294967295",
        ),
        (
            "[a]\nrw=sideways\n",
            "j.fio:2: rw: got 'sideways'; expected read, write",
        ),
        (
            "[a]\nfrobnicate=1\n",
            "j.fio:2: frobnicate: not an option of fio's; expected",
        ),
        (
            "rw=read\n",
            "j.fio:1: rw: option outside a section; expected [global] or [jobname] first",
        ),
        ("[a\n", "j.fio:1: section header without closing ']'; expected [NAME]"),
        (
            "[global]\nbs=4k\n",
            "j.fio: no job section; expected at least one [jobname]",
        ),
        (
            "[a]\nrw=randread\nruntime=18446744073709551615\n",
            "j.fio:3: runtime: got 18446744073709551615 s; expected at most 2^64 ns",
        ),
        (
            "[a]\nrw=randread\nrwmixwrite=101\n",
            "j.fio:3: rwmixwrite: got 101; expected a percentage from 0 to 100",
        ),
    ];
    for (text, prefix) in cases {
        std::fs::write(d.path().join("j.fio"), text).unwrap();
        refused(d.path(), &["run", "--job", "j.fio", "mlc-sata", "-q"], prefix);
    }
}

#[test]
fn command_line_errors_are_one_line() {
    let d = tempfile::tempdir().unwrap();
    for (args, prefix) in [
        (
            &["run", "--output-format", "xml"][..],
            "--output-format: invalid value 'xml'; expected one of normal, json",
        ),
        (
            &["runn"][..],
            "runn: unknown command (did you mean run?); expected one of run, config, trace, traces, bench",
        ),
        (&["run", "--frob"][..], "--frob: unknown option"),
        // An extra word was once called an unknown option.
        (
            &["run", "a.toml", "b.toml"][..],
            "b.toml: an argument more than the command takes; expected the usage in --help",
        ),
        (
            &["run", "--seed", "x"][..],
            "--seed: invalid value 'x'; expected a whole number from 0 to 18446744073709551615",
        ),
        // A negative number was once taken for an unknown option `-1`.
        (
            &["run", "--seed", "-1"][..],
            "--seed: invalid value '-1'; expected a whole number from 0 to 18446744073709551615",
        ),
        (
            &["run", "--seed", "18446744073709551616"][..],
            "--seed: invalid value '18446744073709551616'; expected a whole number from 0",
        ),
        (
            &["experiment", "friendly", "--threads", "-2"][..],
            "--threads: invalid value '-2'; expected a value that is not negative",
        ),
        // Once silently the quick size.
        (
            &["bench", "--quick", "--requests", "0"][..],
            "--requests: invalid value '0'; expected a whole number of at least 1",
        ),
        (&["run", "--set"][..], "--set: "),
        (
            &[][..],
            "missing command; expected one of run, config, trace, traces, bench",
        ),
        (
            &["experiment", "nope"][..],
            "NAME: unknown experiment 'nope'; expected one of friendly",
        ),
        (
            &["experiment", "friendly", "--threads", "0"][..],
            "--threads: invalid value '0'; expected a whole number from 1 to 1024",
        ),
        (
            &["experiment", "friendly", "--quick", "--max-memory", "1MiB"][..],
            "--threads: ",
        ),
    ] {
        refused(d.path(), args, prefix);
    }
}
