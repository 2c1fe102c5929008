"""Every public entry point, given a wrong value in any one argument, raises the package's own
exception (``ssdlab.SsdlabError`` or a subclass) with a one-line message naming what was
wrong and what was expected, or does its work: never a raw ``TypeError``, ``ValueError``,
``AttributeError``, ``OverflowError`` or ``NotADirectoryError`` from deeper down."""

import inspect
import os

import pytest

import ssdlab
import ssdlab.plot
from ssdlab import _native

# A run of a few milliseconds: no preconditioning, 100 I/Os.
TINY = """
[device]
preset = "slc-sata"
[device.geometry]
blocks_per_plane = 128
[precondition]
mode = "none"
[[job]]
name = "w"
rw = "randwrite"
bs = "4KiB"
number_ios = 100
"""

HOSTILE = [None, True, False, -1, 0, 1.5, float("nan"), 2**70, "x", "", b"x", "a\0b", [], {}, (1,), object()]


def _form(e, where):
    msg = str(e)
    assert "\n" not in msg, f"{where}: {msg}"
    assert "; expected" in msg or "expected" in msg, f"{where}: {msg}"


def _each_hostile(fn, base, where, skip=()):
    """Call ``fn(**base)`` with each argument replaced by each hostile value in turn."""
    tried = 0
    for name in inspect.signature(fn).parameters:
        if name in skip:
            continue
        for v in HOSTILE:
            if v is None and name in ("config", "base"):
                continue  # the default config's run: valid, and seconds long
            args = dict(base)
            args[name] = v
            try:
                fn(**args)
            except ssdlab.SsdlabError as e:
                _form(e, f"{where}({name}={v!r})")
            tried += 1
    assert tried >= len(HOSTILE)


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(TINY)
    # A two-line trace in the MSR Cambridge format.
    (tmp_path / "t.csv").write_text(
        "128166372003061629,hm,0,Read,0,4096,100\n128166372003061639,hm,0,Write,4096,4096,100\n"
    )
    return tmp_path


def test_run_refuses_wrong_arguments_with_its_own_errors(here):
    _each_hostile(ssdlab.run, {"config": "tiny.toml", "progress": False}, "run")


def test_load_trace_stats_and_lifetime_refuse_wrong_arguments(here):
    r = ssdlab.run("tiny.toml", progress=False)
    (here / "r.json").write_text(__import__("json").dumps(r.json))
    _each_hostile(ssdlab.load, {"path": "r.json"}, "load")
    _each_hostile(ssdlab.trace_stats, {"path": "t.csv"}, "trace_stats")
    _each_hostile(ssdlab.lifetime, {"capacity": "1TB", "pe": 3000, "write_rate": "100MB/s", "waf": 2.0}, "lifetime")
    _each_hostile(ssdlab.lifetime, {"result": r}, "lifetime")
    # A negative, zero or NaN figure is refused (it gave a negative or NaN lifetime).
    for bad in [-1, 0, float("nan"), float("inf")]:
        with pytest.raises(ssdlab.ConfigError, match=r"^capacity: got .*; expected a finite number above 0$"):
            ssdlab.lifetime(capacity=bad, pe=3000, write_rate=1, waf=1)
    with pytest.raises(ssdlab.ConfigError, match=r"^capacity: 'x' is not a size"):
        ssdlab.lifetime(capacity="x", pe=3000, write_rate=1, waf=1)
    # A path, never a file descriptor: `load(5)` read descriptor 5.
    with pytest.raises(ssdlab.ConfigError, match=r"^path: got 5; expected a path"):
        ssdlab.load(5)
    # Lookups in a result: the package's errors, which are KeyError and IndexError too.
    _each_hostile(r.latency, {"job": 0, "op": "write"}, "latency")
    with pytest.raises(ssdlab.JobNotFoundError) as e:
        r.latency("nope")
    assert isinstance(e.value, KeyError) and str(e.value) == "job 'nope'; expected one of w"
    with pytest.raises(ssdlab.JobIndexError) as e:
        r.latency(3)
    assert isinstance(e.value, IndexError)
    _each_hostile(ssdlab.long, {"wide": r.jobs}, "long")


def test_a_snapshot_that_cannot_be_read_is_a_config_error_not_a_trace_error(here):
    with pytest.raises(ssdlab.ConfigError, match=r"^nowhere\.snap: ") as e:
        ssdlab.run("tiny.toml", from_snapshot="nowhere.snap", progress=False)
    assert not isinstance(e.value, ssdlab.TraceError)


def test_experiment_checks_its_arguments_before_any_point_runs(here, monkeypatch):
    reached = []

    def engine(name, quick, threads, seeds, points=None):
        # What reaches the engine has the types it takes: no conversion fails there.
        assert type(name) is str and type(quick) is bool and type(threads) is int
        assert seeds is None or (type(seeds) is int and 1 <= seeds <= 64)
        reached.append(name)
        raise _native.ConfigError("stub: reached the engine; expected nothing")

    monkeypatch.setattr(_native, "experiment_run", engine)
    _each_hostile(ssdlab.experiment, {"name": "rodi", "quick": True}, "experiment")
    assert reached, "no valid argument reached the engine"
    for seeds in [0, 65, 100]:
        with pytest.raises(ssdlab.ConfigError, match=r"^seeds: got \d+; expected a whole number from 1 to 64"):
            ssdlab.experiment("rodi", quick=True, seeds=seeds)


def test_sweep_refuses_wrong_arguments_with_its_own_errors(here):
    _each_hostile(
        ssdlab.sweep,
        {"base": "tiny.toml", "grid": {"device.ftl.gc_policy": ["greedy"]}, "threads": 1},
        "sweep",
        skip=("ray_address",),
    )
    (here / "file").write_text("precious")
    with pytest.raises(ssdlab.ConfigError, match=r"^out: file: not a folder; expected a folder"):
        ssdlab.sweep("tiny.toml", grid={"device.ftl.gc_policy": ["greedy"]}, out="file")
    assert (here / "file").read_text() == "precious"


def test_a_sweep_point_file_copied_over_another_is_run_again_not_reused(here):
    grid = {"device.ftl.gc_policy": ["greedy", "fifo"]}
    first = ssdlab.sweep("tiny.toml", grid=grid, out="out", threads=1)
    points = here / "out" / "points"
    a, b = (points / f"{k}.json" for k in first["key"])
    b.write_bytes(a.read_bytes())
    again = ssdlab.sweep("tiny.toml", grid=grid, out="out", threads=1)
    assert again.equals(first)
    assert __import__("json").loads(b.read_text())["key"] == first["key"][1]


def test_plots_refuse_what_is_not_a_result(here):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    r = ssdlab.run("tiny.toml", progress=False)
    for name in ["latency_cdf", "latency_over_time", "waf_over_time", "free_blocks_over_time", "bandwidth_over_time"]:
        fn = getattr(ssdlab.plot, name)
        _each_hostile(fn, {"result": r}, f"plot.{name}")
    _each_hostile(ssdlab.plot.claims, {"experiment": None}, "plot.claims", skip=("experiment",))
    with pytest.raises(ssdlab.ConfigError, match=r"^experiment: got Result; expected ssdlab.Experiment$"):
        ssdlab.plot.claims(r)
    import matplotlib.pyplot as plt

    plt.close("all")
