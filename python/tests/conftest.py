"""Fixtures of the Python tests: the `ssdlab` command to compare with, small configs, Ray."""

import fcntl
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A run of about 0.2 s: a small SLC drive, preconditioned at random so the seed matters,
# random writes through GC.
SMALL = """
[device]
preset = "slc-sata"
[device.geometry]
blocks_per_plane = 128
[precondition]
mode = "steady"
[[job]]
name = "mixed"
rw = "randrw"
rwmixread = 50
bs = "4KiB"
iodepth = 4
number_ios = 30000
"""


def _in_ci():
    return bool(os.environ.get("CI"))


@pytest.fixture(scope="session")
def cli():
    """The `ssdlab` command built from this tree ($SSDLAB_CLI, or target/*/ssdlab)."""
    cand = [os.environ.get("SSDLAB_CLI")] + [
        str(ROOT / "target" / p / "ssdlab") for p in ("ci-test", "release", "debug")
    ]
    for c in cand:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("ssdlab")
    if found:
        return found
    msg = "the ssdlab command is not built (cargo build); set SSDLAB_CLI"
    if _in_ci():
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def shared_traces():
    """The traces folder, as the ssdlab command finds it: $SSDLAB_TRACES (scripts/test.sh
    points it at ../shared/traces when that is beside the clone), else the one
    `ssdlab traces fetch` fills in the platform's cache folder."""
    env = os.environ.get("SSDLAB_TRACES")
    if env:
        d = pathlib.Path(env)
    else:
        d = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "ssdlab" / "traces"
    if (d / "msr.cut.per_10k.rw_40_60.1370.trace").is_file():
        return d
    msg = f"the traces folder {d} lacks the public traces (`ssdlab traces fetch`, or SSDLAB_TRACES)"
    if _in_ci():
        pytest.fail(msg + " and CI is set")
    pytest.skip(msg)


@pytest.fixture(scope="session")
def quick(cli, tmp_path_factory):
    """The suite's one quick run of an experiment: `quick(NAME)` is the folder of
    `ssdlab experiment NAME --quick --out DIR/NAME -q`. DIR is $SSDLAB_QUICK_DIR, which
    scripts/test.sh points at the folder the Rust tests ran them into (their point files
    are taken as the command resumes, so a run costs its assembly only), else a folder of
    this session. Processes take turns on a folder (a lock file beside it)."""
    base = pathlib.Path(os.environ.get("SSDLAB_QUICK_DIR") or tmp_path_factory.mktemp("quick"))
    base.mkdir(parents=True, exist_ok=True)

    def run(name):
        out = base / name
        with open(base / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            r = subprocess.run(
                [cli, "experiment", name, "--quick", "--out", str(out), "-q"], capture_output=True, text=True
            )
        assert r.returncode == 0, r.stderr
        return out

    return run


@pytest.fixture
def small_file(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray cluster of 2 CPUs for the session."""
    ray = pytest.importorskip("ray") if not _in_ci() else __import__("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def without_wall(d):
    """A run's JSON without its wall-clock fields (the only ones that vary between runs)."""
    ssd = d["ssd"]
    ssd.pop("wall_time_s", None)
    ssd.pop("sim_requests_per_wall_s", None)
    if isinstance(ssd.get("precondition"), dict):
        ssd["precondition"].pop("wall_time_s", None)
    return d
