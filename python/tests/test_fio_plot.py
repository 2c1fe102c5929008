"""fio-plot, the plotting tool of fio's ecosystem, reads the command's JSON as fio's."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

JOB = """[global]
ioengine=libaio
direct=1
bs=4k
size=64m
number_ios=2000
time_based
runtime=10s

[rr]
rw=randread
iodepth={depth}
numjobs=1
"""


def _fio_plot():
    exe = shutil.which("fio-plot")
    if exe is None:
        msg = "fio-plot is not installed (pip install fio-plot)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


def test_fio_plot_takes_our_json_for_fios_and_draws_it(cli, tmp_path):
    exe = _fio_plot()
    data = tmp_path / "data"
    data.mkdir()
    for depth in (1, 4):
        job = tmp_path / f"rr{depth}.fio"
        job.write_text(JOB.format(depth=depth))
        out = subprocess.run([cli, "run", "slc-sata", "--job", str(job), "--output-format", "json"],
                             capture_output=True, text=True, check=True).stdout
        doc = json.loads(out)
        # fio's top level: its version key naming ssdlab, time stamps, the job file's
        # [global] options with a value (fio leaves out bare flags such as time_based).
        assert doc["fio version"].startswith("ssdlab-") and "fio-3.33" in doc["fio version"]
        assert (doc["timestamp"], doc["timestamp_ms"], doc["time"]) == (0, 0, "Thu Jan  1 00:00:00 1970")
        assert doc["global options"] == {"ioengine": "libaio", "direct": "1", "bs": "4k",
                                         "size": "64m", "number_ios": "2000", "runtime": "10s"}
        (data / f"randread-iodepth-{depth}-numjobs-1.json").write_text(out)
    png = tmp_path / "iodepth.png"
    p = subprocess.run([exe, "-i", str(data), "-T", "ssdlab", "-l", "-r", "randread", "-d", "1", "4",
                        "-n", "1", "-o", str(png)], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "does not appear to be a valid fio json" not in p.stdout + p.stderr
    # A PNG with content: fio-plot found both files' data.
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000


def test_a_run_files_own_jobs_have_no_global_options(cli):
    # Any run file's jobs: the small example's (the built-in default run's are the same kind,
    # at 60 times the time).
    doc = json.loads(subprocess.run([cli, "run", str(ROOT / "examples" / "small.toml"), "--output-format", "json"],
                                    capture_output=True, text=True, check=True).stdout)
    assert "global options" not in doc
    assert list(doc)[:4] == ["fio version", "timestamp", "timestamp_ms", "time"]


def test_the_docs_fio_plot_block_runs_as_written(cli, tmp_path):
    """docs/config.md's fio-plot example, run as it stands (ssdlab and fio-plot on the PATH)."""
    exe = _fio_plot()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = open(os.path.join(root, "docs", "config.md"), encoding="utf-8").read()
    section = text[text.index("### Drawing ours with fio-plot"):]
    block = section[section.index("```sh\n") + 6:]
    block = block[:block.index("```")]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(cli, bindir / "ssdlab")
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.path.dirname(exe)}{os.pathsep}{os.environ['PATH']}")
    p = subprocess.run(["bash", "-euc", block], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    png = tmp_path / "iodepth.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000
