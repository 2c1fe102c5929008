"""ssdlab.run and friends against the `ssdlab` command: same engine, same JSON."""

import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import ssdlab
from conftest import SMALL, without_wall


def cli_json(cli, *args):
    out = subprocess.run([cli, *args, "-q", "--output-format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def cli_error(cli, *args):
    out = subprocess.run([cli, *args], capture_output=True, text=True)
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssdlab: error: "), out.stderr
    return lines[0][len("ssdlab: error: "):]


def test_run_gives_the_cli_json_for_a_file_and_a_seed(cli, small_file):
    for seed in (1, 2):
        ours = ssdlab.run(str(small_file), seed=seed).json
        theirs = cli_json(cli, "run", str(small_file), "--seed", str(seed))
        assert without_wall(ours) == without_wall(theirs)
    # The seed matters here (random preconditioning), so the comparison is not vacuous.
    a = ssdlab.run(str(small_file), seed=1).json["ssd"]["gc"]
    b = ssdlab.run(str(small_file), seed=2).json["ssd"]["gc"]
    assert a != b


def test_run_from_a_snapshot_gives_the_run_that_preconditions(cli, small_file, tmp_path):
    snap = tmp_path / "aged.snap"
    out = subprocess.run([cli, "precondition", str(small_file), "-o", str(snap), "-q", "--seed", "3"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    own = ssdlab.run(str(small_file), seed=3).json
    for path in (snap, str(snap)):
        ours = ssdlab.run(str(small_file), seed=3, from_snapshot=path).json
        assert without_wall(ours) == without_wall(own)
    # Another seed is another precondition: refused as the command refuses it.
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(str(small_file), seed=4, from_snapshot=snap)
    assert str(e.value) == cli_error(cli, "run", str(small_file), "--seed", "4", "--from-snapshot", str(snap))
    assert "precondition.seed is 4 in the run but 3 in the snapshot" in str(e.value)


def test_run_gives_the_cli_json_for_a_preset_with_sets_and_a_fio_job_file(cli, tmp_path):
    job = tmp_path / "w.fio"
    job.write_text("[w]\nrw=randwrite\nbs=8k\niodepth=2\nsize=64m\nnumber_ios=4000\n")
    sets = {"precondition.mode": "none", "device.geometry.blocks_per_plane": 64}
    ours = ssdlab.run("slc-sata", jobs=job, set=sets, seed=5).json
    theirs = cli_json(
        cli, "run", "slc-sata", "--job", str(job), "--seed", "5",
        "--set", 'precondition.mode="none"', "--set", "device.geometry.blocks_per_plane=64",
    )
    assert without_wall(ours) == without_wall(theirs)
    assert ours["jobs"][0]["jobname"] == "w" and ours["jobs"][0]["write"]["total_ios"] == 4000
    # Job text instead of a path: the same run.
    text = ssdlab.run("slc-sata", jobs=job.read_text(), set=sets, seed=5).json
    assert without_wall(text) == without_wall(ours)


def test_a_dict_config_is_the_run_file_it_spells():
    d = {
        "device": {"preset": "slc-sata", "geometry": {"blocks_per_plane": 128}},
        "precondition": {"mode": "steady"},
        "job": [{"name": "mixed", "rw": "randrw", "rwmixread": 50, "bs": "4KiB", "iodepth": 4, "number_ios": 30000}],
    }
    assert without_wall(ssdlab.run(d, seed=3).json) == without_wall(ssdlab.run(SMALL, seed=3).json)


def test_jobs_frame_matches_the_json(small_file):
    r = ssdlab.run(str(small_file), seed=1)
    df = r.jobs
    j = r.json["jobs"][0]
    assert list(df["job"]) == ["mixed"] and list(df["clones"]) == [1] and list(df["group"]) == [0]
    assert df["write_iops"].dtype == np.float64 and df["read_ios"].dtype == np.int64
    assert df.loc[0, "read_ios"] == j["read"]["total_ios"] > 0
    assert df.loc[0, "write_mb_s"] == j["write"]["bw_bytes"] / 1e6 > 0
    assert df.loc[0, "write_bytes"] == j["write"]["io_bytes"]
    assert df.loc[0, "read_p99_us"] == j["read"]["clat_ns"]["percentile"]["99.000000"] / 1e3
    assert df.loc[0, "read_p99_9_us"] == j["read"]["clat_ns"]["percentile"]["99.900000"] / 1e3
    assert df.loc[0, "read_mean_us"] == pytest.approx(j["read"]["clat_ns"]["mean"] / 1e3)
    assert df.loc[0, "read_min_us"] <= df.loc[0, "read_p50_us"] <= df.loc[0, "read_max_us"]
    assert df.loc[0, "runtime_s"] == j["job_runtime"] / 1e3
    assert df.loc[0, "read_ios"] + df.loc[0, "write_ios"] == 30000


def test_one_vocabulary_for_result_sweep_and_experiment_frames(small_file):
    # The same run through ssdlab.run and a one-point sweep: the headline columns of the
    # sweep's row are the Result's, with the same values (the sweep's rounded to the table's
    # digits); the experiment frame uses the same names.
    r = ssdlab.run(str(small_file), seed=1)
    row = ssdlab.sweep(str(small_file), {}, seeds=[1]).iloc[0]
    jobs = r.jobs.iloc[0]
    headline = [f"{op}_{m}" for op in ("read", "write") for m in ("iops", "mb_s", "mean_us", "p99_us")]
    for col in headline:
        assert col in r.jobs.columns, col
        assert row[col] == pytest.approx(jobs[col], abs=0.05), col
    assert set(headline) <= set(row.index)
    import ssdlab._frames as frames

    for col in row.index:
        op, _, metric = col.partition("_")
        if op in frames.OPS:
            assert metric in frames.METRICS, col


def test_long_frames_have_a_row_per_job_and_op(tmp_path):
    job = "[a]\nrw=randrw\nbs=4k\nsize=16m\nnumber_ios=2000\nnumjobs=2\n[b]\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=500\n"
    r = ssdlab.run("slc-sata", jobs=job, set={"precondition.mode": "none", "device.geometry.blocks_per_plane": 64}, seed=2)
    wide = r.jobs
    # One entry per clone (no group_reporting), as fio writes them.
    assert list(wide["job"]) == ["a", "a", "b"]
    long = r.jobs_long
    assert list(long.columns[:5]) == ["job", "group", "clones", "runtime_s", "op"]
    assert list(long["op"]) == ["read", "write", "trim"] * 3
    assert list(long["job"]) == ["a"] * 6 + ["b"] * 3
    assert set(long.columns[5:]) == {"iops", "mb_s", "ios", "bytes", "mean_us", "min_us", "max_us", "p50_us", "p99_us", "p99_9_us"}
    for i, entry in enumerate(wide.itertuples()):
        for k, op in enumerate(("read", "write", "trim")):
            got = long.iloc[3 * i + k]
            assert got["ios"] == getattr(entry, f"{op}_ios")
            assert got["iops"] == getattr(entry, f"{op}_iops")
    b_write = long[(long["job"] == "b") & (long["op"] == "write")].iloc[0]
    assert b_write["ios"] == 0 and np.isnan(b_write["p99_us"])
    assert ssdlab.long(wide).equals(long)


def test_ssd_frame_is_one_row_of_dotted_keys(small_file):
    r = ssdlab.run(str(small_file), seed=1)
    s = r.ssd
    assert s.shape[0] == 1
    assert s.loc[0, "waf"] == r.json["ssd"]["waf"] > 1.0
    assert s.loc[0, "device"] == "slc-sata"
    assert "free_blocks_over_time" not in s.columns
    gc = [c for c in s.columns if c.startswith("gc.")]
    assert gc, "nested keys are flattened with dots"


def test_latency_histogram_counts_every_io_in_ascending_bins(small_file):
    r = ssdlab.run(str(small_file), seed=1)
    for op in ("read", "write"):
        values, counts = r.latency("mixed", op)
        assert values.dtype == np.int64 and counts.dtype == np.int64
        assert counts.sum() == r.json["jobs"][0][op]["total_ios"]
        assert np.all(np.diff(values) > 0)
        lat = r.json["jobs"][0][op]["clat_ns"]
        # Bins are fio's: each within 1/64 of the latencies it holds.
        assert values[0] <= lat["min"] * 1.02 and values[-1] >= lat["max"] * 0.98
    assert np.array_equal(r.latency(0, "read")[0], r.latency("mixed", "read")[0])
    with pytest.raises(KeyError):
        r.latency("nope")


def test_timeseries_cover_the_run_and_bandwidth_adds_up_to_the_bytes(small_file):
    r = ssdlab.run(str(small_file), seed=1)
    ts = r.timeseries
    assert list(ts.columns) == ["time_s", "free_blocks", "waf", "latency_ns", "bandwidth_bytes_s"]
    assert ts["time_s"].is_monotonic_increasing
    assert ts["free_blocks"].notna().sum() == len(r.json["ssd"]["free_blocks_over_time"])
    # Bytes per second of each interval times its length: every measured byte once.
    bw = r.json["ssd"]["bandwidth_over_time"]
    times = [t for t, _ in r.json["ssd"]["free_blocks_over_time"]]
    total = 0.0
    for (t, rate) in bw:
        prev = max(x for x in times if x < t)
        total += rate * (t - prev) / 1e9
    j = r.json["jobs"][0]
    assert total == pytest.approx(j["read"]["io_bytes"] + j["write"]["io_bytes"], rel=1e-6)


def test_errors_carry_the_cli_one_line_message(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[device]\npreset = "slc-sata"\n[device.geometry]\nchannels = "many"\n')
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(str(bad))
    assert str(e.value) == cli_error(cli, "run", str(bad))
    assert "bad.toml:4" in str(e.value)
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run("no-such-preset")
    assert str(e.value) == cli_error(cli, "run", "no-such-preset")
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,1,Read,383496192,32768,113330\nnot,a,line\n")
    with pytest.raises(ssdlab.TraceError) as e:
        ssdlab.trace_stats(trace, format="msr")
    assert str(e.value) == cli_error(cli, "trace", "stats", str(trace), "--format", "msr")
    assert issubclass(ssdlab.ConfigError, ssdlab.SsdlabError)
    assert issubclass(ssdlab.TraceError, ssdlab.SsdlabError)
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.run({"device": {"preset": None}})


def test_arguments_take_what_the_command_line_takes(small_file):
    # Sizes with units, as --max-memory (once a TypeError).
    with pytest.raises(ssdlab.ConfigError, match=r"the run needs about .* above the limit of 0\.00 GiB"):
        ssdlab.run(small_file, max_memory="1KiB")
    assert ssdlab.run(small_file, max_memory="64GiB").waf > 1
    for bad in ["lots", -1]:
        with pytest.raises(ssdlab.ConfigError, match=r"^max_memory: invalid value .*; expected a size such as"):
            ssdlab.run(small_file, max_memory=bad)
    # A seed out of range says which range (once an OverflowError).
    for bad in [-1, 2**64, "x"]:
        with pytest.raises(ssdlab.ConfigError) as e:
            ssdlab.run(small_file, seed=bad)
        assert str(e.value) == f"seed: invalid value {bad!r}; expected a whole number from 0 to 18446744073709551615"


def test_a_missing_trace_is_a_file_not_found(cli, tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text('[device]\npreset = "slc-sata"\n[[job]]\nname = "t"\n[job.trace]\nfile = "nosuch.csv"\n')
    with pytest.raises(ssdlab.TraceNotFoundError) as e:
        ssdlab.run(str(cfg))
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, ssdlab.TraceError)
    assert str(e.value) == cli_error(cli, "run", str(cfg), "-q")
    assert "t.toml:6:1: job[0].trace.file: " in str(e.value)
    missing = tmp_path / "nosuch.csv"
    with pytest.raises(FileNotFoundError) as e:
        ssdlab.trace_stats(missing)
    assert isinstance(e.value, ssdlab.TraceError)
    assert str(e.value) == cli_error(cli, "trace", "stats", str(missing))


def test_a_job_index_out_of_range_names_the_range(small_file):
    r = ssdlab.run(small_file)
    with pytest.raises(IndexError, match=r"^job 5: the run has 1 job\(s\); expected an index from 0 to 0"):
        r.latency(5)
    with pytest.raises(IndexError, match=r"^job -2: "):
        r.latency(-2)
    assert r.latency(-1)[1].sum() == r.latency(0)[1].sum() > 0


def test_a_dict_config_is_cited_by_key_path():
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run({"device": {"preset": "slc-sata", "geometry": {"channels": 0}}})
    # A dict has no lines: no `<dict>:5:1` for TOML the user never wrote.
    assert str(e.value).startswith("<dict>: device.geometry.channels: got 0; expected at least 1"), str(e.value)


def test_presets_and_trace_stats(cli, shared_traces):
    p = ssdlab.presets()
    assert list(p.columns) == ["name", "description"]
    assert {"tlc-nvme", "slc-sata", "samsung-830"} <= set(p["name"])
    trace = shared_traces / "msr.cut.per_10k.rw_40_60.1370.trace"
    ours = ssdlab.trace_stats(trace)
    out = subprocess.run([cli, "trace", "stats", str(trace), "--output-format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert ours == json.loads(out.stdout)
    assert ours["requests"] > 0


def test_lifetime_is_the_formula_and_reads_a_result(cli, small_file, tmp_path):
    l = ssdlab.lifetime(capacity="1TB", pe=3000, write_rate="100MB/s", waf=2.0)
    assert l["seconds"] == pytest.approx(1e12 * 3000 / (1e8 * 2.0))
    r = ssdlab.run(str(small_file), seed=1)
    ours = ssdlab.lifetime(result=r)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(r.json))
    out = subprocess.run([cli, "lifetime", "--from", str(path), "--output-format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert ours["seconds"] == pytest.approx(json.loads(out.stdout)["seconds"], rel=1e-12)
    assert ssdlab.lifetime(result=r, waf=1.0)["inputs"]["waf"] == {"value": 1.0, "source": "waf"}
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.lifetime(capacity="1TB", pe=3000)


# io_size beyond one pass over the drive: number_ios alone stops at one pass, as fio's does.
LONG = SMALL.replace("number_ios = 30000", 'number_ios = 200000000\nio_size = "1000TiB"')


def test_the_gil_is_released_while_simulating():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    ssdlab.run(SMALL.replace("number_ios = 30000", 'number_ios = 600000\nio_size = "1000TiB"'), seed=1)
    stop.set()
    t.join()
    # A run of about a second: a thread that could not take the GIL would not count at all.
    assert len(ticks) > 50


def test_ctrl_c_interrupts_a_run_and_the_next_run_works():
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    # Python's own Ctrl-C handler, whatever this process inherited: a test suite started in
    # the background of a non-interactive shell inherits SIGINT ignored, and then Ctrl-C
    # rightly interrupts nothing.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ssdlab.run(LONG, seed=1)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
    # Within a fraction of a second of the signal (the run alone would take minutes).
    assert time.monotonic() - sent[0] < 0.5
    r = ssdlab.run(SMALL, seed=1)
    assert r.json["jobs"][0]["read"]["total_ios"] + r.json["jobs"][0]["write"]["total_ios"] == 30000


def test_a_result_file_of_the_command_loads_back_as_the_runs_result(cli, small_file, tmp_path):
    import subprocess

    plus = tmp_path / "r.json"
    subprocess.run([cli, "run", str(small_file), "--seed", "1", "--output-format", "json+", "-q", "-o", str(plus)],
                   check=True)
    plain = tmp_path / "p.json"
    subprocess.run([cli, "run", str(small_file), "--seed", "1", "--output-format", "json", "-q", "-o", str(plain)],
                   check=True)
    a, b, r = ssdlab.load(plus), ssdlab.load(plain), ssdlab.run(str(small_file), seed=1)
    assert without_wall(a.json) == without_wall(b.json) == without_wall(r.json)
    va, ca = a.latency(0, "read")
    vr, cr = r.latency(0, "read")
    assert list(va) == list(vr) and list(ca) == list(cr) and ca.sum() == r.json["jobs"][0]["read"]["total_ios"]
    assert len(b.latency(0, "read")[0]) == 0  # json has no bins
    pd_a, pd_r = a.jobs, r.jobs
    assert pd_a.equals(pd_r) or (pd_a.fillna(-1) == pd_r.fillna(-1)).all().all()
    bad = tmp_path / "bad.json"
    # Whatever the file holds, the package's own error with one line naming the file.
    for content, says in [
        (b'{"a": 1}', "missing field"),
        (b'{"jobs": [], "ssd": {}}', "ssd: missing field"),
        (b'{"jobs": [1], "ssd": {}}', "jobs[0]: invalid type"),
        (b"\xff\xfe not text", "not UTF-8 text"),
        # Nested deep enough to exhaust Python's own parser: refused at the first wrong type.
        (b"[" * 100000, "[0]: invalid type"),
        (b"% not json", "expected value"),  # "n" would start `null`: "expected ident"
        (b"not json", "expected ident"),
    ]:
        bad.write_bytes(content)
        with pytest.raises(ssdlab.ConfigError) as e:
            ssdlab.load(bad)
        msg = str(e.value)
        assert msg.startswith(f"{bad}: ") and says in msg and "\n" not in msg, msg
        assert msg.endswith("expected the JSON of `ssdlab run --output-format json` or json+"), msg
    with pytest.raises(ssdlab.ConfigError, match="cannot read it"):
        ssdlab.load(tmp_path / "missing.json")


def test_an_operation_without_io_has_no_latency(small_file):
    r = ssdlab.run(str(small_file), seed=1)
    row = r.jobs.loc[0]
    assert row["trim_ios"] == 0 and row["trim_iops"] == 0.0
    for col in ("trim_mean_us", "trim_min_us", "trim_p99_us", "trim_p99_9_us"):
        assert np.isnan(row[col]), col
    assert not np.isnan(row["read_p99_us"])


def test_progress_reaches_a_callback_and_ends_at_the_total():
    seen = []
    r = ssdlab.run(SMALL, seed=1, progress=lambda phase, done, total: seen.append((phase, done, total)))
    # Preconditioning, then the run; the last report is the run's end: every request of the
    # known total.
    phases = [p for p, _, _ in seen]
    assert phases[0] == "precondition" and phases[-1] == "run"
    assert phases == sorted(phases, key=["precondition", "run"].index)
    assert seen[-1] == ("run", 30000, 30000)
    done = [d for p, d, _ in seen if p == "run"]
    assert done == sorted(done)
    pre = [(d, t) for p, d, t in seen if p == "precondition"]
    assert all(t is not None and 0 <= d <= t for d, t in pre)
    assert r.json["ssd"]["requests"] == 30000


def test_progress_true_draws_a_bar_on_stderr_and_a_raising_callback_stops_the_run(capfd):
    ssdlab.run(SMALL, seed=1, progress=True)
    err = capfd.readouterr().err
    assert "precondition" in err and "run" in err and "30.0k/30.0k" in err

    def boom(phase, done, total):
        raise RuntimeError("stop here")

    with pytest.raises(ssdlab.ConfigError, match="progress: 'yes'; expected True, False, None or a callable"):
        ssdlab.run(SMALL, seed=1, progress="yes")
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="stop here"):
        ssdlab.run(LONG, seed=1, progress=boom)
    assert time.monotonic() - start < 2.0
