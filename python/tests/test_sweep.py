"""Sweeps and experiments: local threads against Ray, resuming, the CLI's result."""

import json
import shutil

import pytest

import ssdlab
from ssdlab import _sweep
from conftest import ROOT, SMALL

GRID = {"device.ftl.gc_policy": ["greedy", "random"], "job.0.iodepth": [1, 8]}


def test_sweep_runs_the_grid_times_the_seeds_in_order():
    before = ssdlab._native.shared_copies()
    df = ssdlab.sweep(SMALL, GRID, seeds=[1, 2])
    # Points of one policy and seed share a preconditioned drive (iodepth is the job's).
    assert ssdlab._native.shared_copies() - before >= 4
    assert len(df) == 8
    assert list(df.columns[:4]) == ["device.ftl.gc_policy", "job.0.iodepth", "seed", "key"]
    assert list(df["device.ftl.gc_policy"]) == ["greedy"] * 4 + ["random"] * 4
    assert list(df["job.0.iodepth"]) == [1, 1, 8, 8] * 2
    assert list(df["seed"]) == [1, 2] * 4
    assert df["key"].is_unique
    for col in ("read_iops", "write_mb_s", "read_p99_us", "waf", "lifetime_days"):
        assert col in df.columns
    # Each row is the run of its point, as if it had preconditioned its own drive.
    for i, row in df.iterrows():
        sets = {"device.ftl.gc_policy": row["device.ftl.gc_policy"], "job.0.iodepth": int(row["job.0.iodepth"])}
        one = ssdlab.run(SMALL, seed=int(row["seed"]), set=sets)
        assert row["waf"] == one.json["ssd"]["waf"], i
        assert row["write_iops"] == pytest.approx(one.json["jobs"][0]["write"]["iops"], abs=0.05), i
        assert row["read_p99_us"] == pytest.approx(one.jobs.loc[0, "read_p99_us"], abs=0.0005), i
    # The parameters reach the runs: deeper queues raise throughput under each policy, and
    # random victims copy more than greedy ones.
    for _, g in df.groupby("device.ftl.gc_policy"):
        assert g[g["job.0.iodepth"] == 8]["read_iops"].min() > g[g["job.0.iodepth"] == 1]["read_iops"].max()
    waf = df.groupby("device.ftl.gc_policy")["waf"].mean()
    assert waf["random"] > waf["greedy"] > 1.0


def test_sweep_resumes_from_its_folder(tmp_path, monkeypatch):
    first = ssdlab.sweep(SMALL, GRID, seeds=[1], out=tmp_path)
    files = sorted((tmp_path / "points").glob("*.json"))
    assert len(files) == 4 and (tmp_path / "sweep.csv").exists()
    saved = json.loads(files[0].read_text())
    assert set(saved) == {"params", "key", "metrics", "result"}
    calls = []
    real = _sweep._point

    def counting(*a):
        calls.append(a)
        return real(*a)

    monkeypatch.setattr(_sweep, "_point", counting)
    again = ssdlab.sweep(SMALL, GRID, seeds=[1], out=tmp_path)
    assert calls == [] and again.equals(first)
    # A point lost (or cut short) is the only one run again.
    (tmp_path / "points" / f"{first['key'][2]}.json").write_text("{")
    third = ssdlab.sweep(SMALL, GRID, seeds=[1], out=tmp_path)
    assert len(calls) == 1 and third.equals(first)
    # Another seed is another point.
    ssdlab.sweep(SMALL, GRID, seeds=[1, 9], out=tmp_path)
    assert len(calls) == 5
    # Another build of the engine reuses none of them, and leaves no temporary behind.
    monkeypatch.setattr(_sweep._native, "BUILD_ID", ssdlab.BUILD_ID + "-edited")
    other = ssdlab.sweep(SMALL, GRID, seeds=[1], out=tmp_path)
    assert len(calls) == 9 and set(other["key"]).isdisjoint(first["key"])
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_the_build_id_is_the_version_and_a_source_hash():
    version, source = ssdlab.BUILD_ID.split("+")
    assert version == ssdlab.__version__
    assert len(source) == 16 and int(source, 16) >= 0


def test_sweep_refuses_a_grid_value_that_is_not_a_list():
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.sweep(SMALL, {"job.0.iodepth": 4})
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.sweep(SMALL, {"job.0.iodepth": [0]})
    assert "iodepth" in str(e.value)


def test_ray_sweep_equals_the_local_one(ray_cluster):
    local = ssdlab.sweep(SMALL, GRID, seeds=[1, 2], backend="local")
    on_ray = ssdlab.sweep(SMALL, GRID, seeds=[1, 2], backend="ray")
    assert on_ray.equals(local)


def zero_wall(d):
    d["scale"]["wall_time_s"] = 0.0
    for r in d["runs"]:
        ssd = r["result"].get("ssd")
        if ssd is not None:
            ssd["wall_time_s"] = 0.0
            ssd["sim_requests_per_wall_s"] = 0.0
            if isinstance(ssd.get("precondition"), dict):
                ssd["precondition"].pop("wall_time_s", None)
    return d


def test_experiment_on_ray_is_the_cli_result(quick, shared_traces, ray_cluster, tmp_path):
    # hotr: the smallest quick run (35 CPU-seconds) with points that run under the first seed
    # only, so Ray's tasks index past them under the second seed as the command does (plan's
    # has them too, at six times the work). The Ray run is made here on purpose: it is what is
    # tested. The command's run is the suite's shared one; the local one assembles that
    # run's point files in this process.
    theirs = (quick("hotr") / "result.json").read_text()
    e = ssdlab.experiment("hotr", quick=True, backend="ray", out=tmp_path / "py")
    shutil.copytree(quick("hotr") / "points", tmp_path / "local" / "points")
    local = ssdlab.experiment("hotr", quick=True, out=tmp_path / "local")
    # Byte for byte once the wall-clock fields are zeroed.
    assert e.deterministic_json == local.deterministic_json
    assert json.loads(e.deterministic_json) == zero_wall(json.loads(theirs))
    ours = (tmp_path / "py" / "result.json").read_text()
    assert json.dumps(zero_wall(json.loads(ours))) == json.dumps(zero_wall(json.loads(theirs)))
    assert len(ours.splitlines()) == len(theirs.splitlines())
    claims = e.claims
    assert list(claims.columns) == [
        "id", "kind", "text", "seed_value", "our_value", "noise", "unit", "tolerance", "verdict", "reproduced"
    ]
    assert len(claims) == len(json.loads(theirs)["claims"]) and claims["reproduced"].dtype == bool
    # Two seeds in quick mode: every claim has its noise; the summary counts seed claims only.
    assert claims["noise"].notna().all() and e.json["scale"]["seeds"] == 2
    # Some points ran under the first seed only (Ray's run included).
    assert 0 < e.json["scale"]["claim_points"] < e.json["scale"]["points"]
    seed = claims[claims["kind"].isin(["seed", "known_difference"])]
    assert e.json["summary"]["seed_claims"] == len(seed)
    assert e.json["summary"]["seed_reproduced"] == int(seed["reproduced"].sum())
    assert f"{int(seed['reproduced'].sum())} of {len(seed)} seed claims reproduced" in repr(e)
    one = ssdlab.experiment("openssd", quick=True, seeds=1)
    assert one.json["scale"]["seeds"] == 1 and one.claims["noise"].isna().all()
    runs = e.runs
    assert len(runs) == e.json["scale"]["points"] and "waf" in runs.columns


def test_plans_claims_read_the_points_of_every_reading_under_both_seeds(quick):
    """Only the 144 points plan's claims read (its claims' condition and the other readings of
    GC's write pointer, of when GC runs, of what else GCC's device holds and of fileserver's
    routing) run under the second seed; its alternative readings are claims of their own."""
    d = json.loads((quick("plan") / "result.json").read_text())
    assert d["scale"]["seeds"] == 2 and d["scale"]["claim_points"] == 144
    kinds = [c["kind"] for c in d["claims"]]
    assert kinds.count("alternative") == d["summary"]["alternatives"] > 0


def test_experiment_errors():
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.experiment("nope", quick=True)
    assert "expected one of" in str(e.value)
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.experiment("friendly", quick=True, backend="spark")
    names = ssdlab.experiments()
    assert {"friendly", "openssd", "plan", "hotr", "rodi"} <= set(names["name"])


def test_whole_writes_leave_devices_and_links_as_they_are(tmp_path):
    import os
    import stat

    from ssdlab import _atomic

    _atomic.write_text("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old")
    link.symlink_to(real)
    _atomic.write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_experiment_write_writes_the_folder_the_command_writes(quick, tmp_path):
    # The Python run is made here (openssd: 10 CPU-seconds): its writing is what is tested.
    cli_dir = quick("openssd")
    e = ssdlab.experiment("openssd", quick=True, out=tmp_path / "py")
    cli_files = sorted(p.name for p in cli_dir.iterdir() if p.is_file())
    py_files = sorted(p.name for p in (tmp_path / "py").iterdir() if p.is_file())
    # Both keep their finished points in points/, one file per point; the other files are the same.
    assert sorted(p.name for p in (tmp_path / "py").iterdir() if p.is_dir()) == ["points"]
    assert len(list((tmp_path / "py" / "points").glob("*.bin"))) == e.json["scale"]["points"] + (
        e.json["scale"]["claim_points"] * (e.json["scale"]["seeds"] - 1)
    )
    assert py_files == cli_files
    assert {"result.json", "table.md", "table.csv"} <= set(py_files)
    assert sum(f.endswith(".svg") for f in py_files) == len(e.json["figures"]) > 0
    for name in py_files:
        ours, theirs = (tmp_path / "py" / name).read_text(), (cli_dir / name).read_text()
        if name == "result.json":
            assert zero_wall(json.loads(ours)) == zero_wall(json.loads(theirs))
        else:
            assert ours == theirs, name
    # Written again elsewhere, from the same object: the same bytes.
    e.write(tmp_path / "again")
    for name in py_files:
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "py" / name).read_bytes()
    # Runs in the one vocabulary, and in long form.
    runs, long = e.runs, e.runs_long
    assert {"read_iops", "read_mb_s", "read_mean_us", "read_p99_us"} <= set(runs.columns)
    assert len(long) == 2 * len(runs) and set(long["op"]) == {"read", "write"}
    assert {"iops", "mb_s", "mean_us", "p99_us"} <= set(long.columns)
    idle_reads = runs[runs["read_iops"] == 0]
    assert idle_reads["read_p99_us"].isna().all()


FDP_JOBS = """
[global]
fdp=1
[table]
rw=randwrite
bs=4k
size=1g
iodepth=8
fdp_pli=0
number_ios=50000
[log]
rw=write
bs=128k
offset=4g
size=4g
iodepth=2
fdp_pli=1
number_ios=8192
"""


def test_sweep_over_fdp_handles_and_reclaim_unit_size(tmp_path):
    # examples/fdp.toml: reclaim units of 128 MiB (a block on each of 64 planes); width "1/2"
    # halves them. The log writes 8192 x 128 KiB = 1 GiB through handle 1: exactly 8 full RUs,
    # or 16 half ones; its next RU opens only with a further write.
    grid = {"device.placement.open_superblocks": [2, 4], "device.placement.width": ["1", "1/2"]}
    df = ssdlab.sweep(ROOT / "examples" / "fdp.toml", grid, jobs=FDP_JOBS, out=tmp_path)
    assert len(df) == 4
    for _, row in df.iterrows():
        point = json.loads((tmp_path / "points" / f"{row['key']}.json").read_text())
        p = point["result"]["ssd"]["placement"]
        handles = int(row["device.placement.open_superblocks"])
        assert p["policy"] == "fdp" and p["open_superblocks"] == handles
        assert p["host_bytes_per_slot"][:2] == [50000 * 4096, 8192 * 131072]
        assert p["host_bytes_per_slot"][2:] == [0] * (handles - 2)
        ru = 128 << 20 if row["device.placement.width"] == "1" else 64 << 20
        assert p["superblocks_opened_per_slot"][1] == (1 << 30) // ru
        # The table's 200 MB open ceil(200 MB / RU) units.
        assert p["superblocks_opened_per_slot"][0] == -(-50000 * 4096 // ru)
        assert p["writes_without_placement_id"] == 0


def test_zone_keys_are_ordinary_sweep_keys():
    # A zoned drive's keys reach the runs as any other: an append's firmware time slows
    # 4 KiB appends at depth 1 (examples/zns.toml, its job made appends).
    zns = str(ROOT / "examples" / "zns.toml")
    grid = {
        "device.ftl.zones.append_time": ["0us", "20us"],
        "job.0.zone_append": [True],
        "job.0.bs": ["4KiB"],
        "job.0.iodepth": [1],
    }
    df = ssdlab.sweep(zns, grid, seeds=[1])
    assert list(df["device.ftl.zones.append_time"]) == ["0us", "20us"]
    fast, slow = df["write_iops"]
    assert fast > 2 * slow > 0
    # Each row is the run of its point.
    one = ssdlab.run(zns, seed=1, set={k: v[-1] for k, v in grid.items()})
    assert slow == pytest.approx(one.json["jobs"][0]["write"]["iops"], abs=0.05)
