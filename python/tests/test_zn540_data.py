"""data/zn540/measured.csv is what scripts/zn540_measured.py computes from the NVMeBenchmarks
data set (../shared/nvmebenchmarks/data beside the clone): the ZN540's measured figures the
project compares with, each with its source file, committed so that users need no copy of
the data set."""

import csv
import pathlib
import subprocess
import sys

import pytest

from conftest import _in_ci

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "nvmebenchmarks" / "data"


def test_the_committed_figures_are_the_data_sets():
    if not DATA.is_dir():
        msg = f"{DATA}: not there; the ZN540's measured figures not checked"
        if _in_ci():
            pytest.fail(msg + " and CI is set")
        pytest.skip(msg)
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "zn540_measured.py"), "--check", str(DATA)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(ROOT / "data" / "zn540" / "measured.csv")))
    # Every SPDK grid and the state-machine files are there, each row with its source.
    fio = [r for r in rows if r["kind"] == "fio"]
    assert {r["op"] for r in fio if r["engine"] == "spdk"} == {"write", "append", "randread"}
    assert all((DATA.parent / r["source"]).is_file() for r in rows)
    # The reference numbers docs/zns.md quotes: 4 KiB writes at depth 1 in one zone, 11.4 us,
    # 333 MiB/s; a full finished zone's reset, 15.4 ms.
    w = next(r for r in fio if (r["engine"], r["op"], r["bs"], r["zones"], r["qd"]) == ("spdk", "write", "4096", "1", "1"))
    assert (round(float(w["mib_s"])), round(float(w["lat_mean_us"]), 1)) == (333, 11.4)
    resets = [float(r["lat_mean_us"]) for r in rows if r["op"] == "partial_finish/reset_finished" and r["lbas"] == "275711"]
    assert resets and all(15300 < x < 15450 for x in resets), resets
