"""ssdlab from Python: the same engine as the ``ssdlab`` command, results as DataFrames.

>>> import ssdlab
>>> r = ssdlab.run("slc-sata", jobs="[w]\\nrw=randwrite\\nbs=4k\\nsize=64m\\nnumber_ios=5000\\n")
>>> r.jobs[["job", "write_iops", "write_p99_us"]]

``run`` simulates one run; ``sweep`` runs a grid of them (here or on Ray); ``experiment``
reproduces a seed as ``ssdlab experiment NAME`` does. Errors raise ``ConfigError`` or
``TraceError`` (``TraceNotFoundError``, also a ``FileNotFoundError``, for a trace file that
does not exist) with the command line's one-line message; a wrong argument (type or range)
raises ``ConfigError`` naming it, before any work starts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import pandas as pd

from ._native import BUILD_ID, ConfigError, SsdlabError, TraceError, __version__
from . import _native
from . import _args


class TraceNotFoundError(TraceError, FileNotFoundError):
    """A trace file that does not exist: a :class:`TraceError` and a ``FileNotFoundError``."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _traces(f):
    """``f`` with a missing trace raised as :class:`TraceNotFoundError`."""
    import functools

    @functools.wraps(f)
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except _native._TraceNotFound as e:
            raise TraceNotFoundError(str(e)) from None

    return call


from ._result import JobIndexError, JobNotFoundError, Result
from ._frames import long
from ._experiment import Experiment, experiment, experiments
from ._sweep import sweep

__all__ = [
    "run",
    "load",
    "Result",
    "long",
    "presets",
    "trace_stats",
    "lifetime",
    "experiment",
    "experiments",
    "Experiment",
    "sweep",
    "ConfigError",
    "TraceError",
    "TraceNotFoundError",
    "JobNotFoundError",
    "JobIndexError",
    "SsdlabError",
    "__version__",
    "BUILD_ID",
]


def _config_args(config, set=None):
    """The native call's (config, kind, sets) for a preset name, path, TOML text or dict."""
    import json

    given = _args.mapping("set", set, 'a dict of {"dotted.key": value}')
    sets = [f"{k}={_toml_value(v)}" for k, v in given.items()]
    if config is None:
        return None, "auto", sets
    if isinstance(config, dict):
        try:
            return json.dumps(config, allow_nan=False), "json", sets
        except (TypeError, ValueError) as e:
            raise ConfigError(f"config: {e}; expected a dict of tables, strings, numbers and booleans") from None
    if hasattr(config, "__fspath__"):
        return _args.path("config", config), "auto", sets
    if isinstance(config, str):
        return _args.string("config", config, "a preset name, a path or TOML text without NUL characters"), "auto", sets
    raise ConfigError(f"config: got {type(config).__name__}; expected a preset name, a path, TOML text or a dict")


def _toml_value(v):
    """A Python value as a TOML value for ``KEY=VALUE`` (``--set``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ConfigError(f"set: {v!r}; expected a finite number")
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise ConfigError(f"set: {v!r}; expected a string, a number or a boolean")


@_traces
def run(
    config: str | os.PathLike | dict | None = None,
    jobs: str | os.PathLike | None = None,
    seed: int | None = None,
    set: dict[str, str | int | float | bool] | None = None,
    max_memory: int | str | None = None,
    progress: bool | Callable[[str, int, int | None], None] | None = None,
    from_snapshot: str | os.PathLike | None = None,
) -> Result:
    """Simulate one run, as ``ssdlab run`` does.

    ``config``: a preset name, a run file's path, TOML text, or a dict shaped as a run file
    (default: the ``tlc-nvme`` preset and its job). ``jobs``: a fio job file's path or text,
    whose jobs replace the config's. ``seed``: the run's seed, 0 to 2^64 - 1. ``set``:
    ``{"dotted.key": value}`` overrides, as ``--set``. ``max_memory``: refuse a run
    estimated above it, bytes or a size with units (``"4GiB"``), as ``--max-memory``.
    Errors about a dict config name its key path (a dict has no lines). Returns a
    :class:`Result`.

    ``progress``: a callable, called about five times a second from this thread with
    ``(phase, done, total)``: ``phase`` is ``"precondition"`` (units written of ``total``
    planned at most) or ``"run"`` (requests completed of ``total``, ``None`` when only the
    run tells); ``True`` shows a bar on stderr (tqdm's, if installed), ``None`` shows it on a
    terminal only, ``False`` never. Ctrl-C stops the run within a fraction of a second and
    raises ``KeyboardInterrupt``.

    ``from_snapshot``: a snapshot file (``ssdlab precondition CONFIG -o FILE``) to start from
    instead of preconditioning, as ``--from-snapshot``: the run's device and
    ``[precondition]`` must be the snapshot's (a :class:`ConfigError` names the first key that
    differs), and the result is the one preconditioning gives.
    """
    cfg, kind, sets = _config_args(config, set)
    from_snapshot = _args.optional_path("from_snapshot", from_snapshot)
    jobs = _args.text_or_path("jobs", jobs, "a fio job file's text")
    report, close = _progress(progress)
    try:
        plain, plus, _metrics = _native.run(cfg, kind, jobs, seed, sets, max_memory, report, from_snapshot)
    finally:
        close()
    return Result(plain, plus)


def _progress(progress):
    """The native run's progress callback for ``run(progress=...)`` and what ends it."""
    import sys

    if callable(progress):
        return progress, lambda: None
    if progress is not None and not isinstance(progress, bool):
        raise ConfigError(f"progress: {progress!r}; expected True, False, None or a callable (phase, done, total)")
    show = sys.stderr.isatty() if progress is None else progress
    if not show:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    state = {"phase": None, "bar": None}

    def report(phase, done, total):
        if state["phase"] != phase:
            close()
            state["phase"] = phase
            unit = "unit" if phase == "precondition" else "req"
            if tqdm is not None:
                state["bar"] = tqdm(total=total, desc=phase, unit=unit, unit_scale=True, file=sys.stderr)
        bar = state["bar"]
        if bar is not None:
            if total is not None and bar.total != total:
                bar.total = total
            bar.update(done - bar.n)
        else:
            of = f" of {total:,}" if total is not None else ""
            print(f"\rssdlab: {phase}: {done:,}{of}", end="", file=sys.stderr, flush=True)

    def close():
        if state["bar"] is not None:
            state["bar"].close()
            state["bar"] = None
        elif state["phase"] is not None and tqdm is None:
            print(file=sys.stderr)

    return report, close


def load(path: str | os.PathLike) -> Result:
    """A run's result from a file the command wrote (``ssdlab run --output-format json`` or
    ``json+``, or ``ssdlab serve``'s statistics): the same :class:`Result` as :func:`run`
    gives. From a ``json`` file, ``latency`` has no histogram bins (``json+`` has them)."""
    import copy
    import json

    expected = "expected the JSON of `ssdlab run --output-format json` or json+"
    path = _args.path("path", path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror or e}); {expected}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start}); {expected}") from None
    # The whole shape, checked by the engine that writes it (nesting depth included): what
    # follows reads no key that is not there.
    _native.check_result(str(path), text)
    doc = json.loads(text)
    plain = copy.deepcopy(doc)
    for j in plain["jobs"]:
        for op in ("read", "write", "trim"):
            if isinstance(j.get(op), dict):
                j[op].get("clat_ns", {}).pop("bins", None)
    return Result(json.dumps(plain), text)


def presets() -> "pd.DataFrame":
    """The device presets as a DataFrame: name, description."""
    import pandas as pd

    return pd.DataFrame(_native.presets(), columns=["name", "description"])


@_traces
def trace_stats(path: str | os.PathLike, format: str = "auto", skip_bad_lines: bool = False) -> dict[str, Any]:
    """A trace's statistics (dict), as ``ssdlab trace stats --output-format json`` gives them."""
    import json

    path = _args.path("path", path)
    format = _args.string("format", format, "a trace format name (see `ssdlab trace formats`)")
    skip_bad_lines = _args.flag("skip_bad_lines", skip_bad_lines)
    return json.loads(_native.trace_stats(path, format, skip_bad_lines))


def lifetime(
    capacity: int | float | str | None = None,
    pe: int | float | None = None,
    write_rate: int | float | str | None = None,
    waf: float | None = None,
    result: Result | dict | None = None,
) -> dict[str, Any]:
    """How long the flash lasts: capacity x P/E cycles / (write rate x WAF).

    ``capacity`` and ``write_rate`` take numbers (bytes, bytes/s) or strings with units
    (``"1TB"``, ``"100MB/s"``). Inputs not given are read from ``result`` (a
    :class:`Result` or a run's JSON dict). Returns a dict: ``seconds`` (``inf`` without
    writes), ``human``, and the ``inputs`` with where each came from.
    """
    import json

    from_run = None
    if result is not None:
        if isinstance(result, Result):
            d = result.json
        elif isinstance(result, dict):
            d = result
        else:
            raise ConfigError(f"result: got {type(result).__name__}; expected a Result or a run's JSON dict")
        try:
            text = json.dumps(d, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"result: {e}; expected a run's JSON dict") from None
        from_run = _native.lifetime_inputs(text)

    def sized(name, v, rate=False):
        if isinstance(v, str):
            v = _args.string(name, v, "a size with units")
            try:
                return _native.parse_size(v, rate)
            except ConfigError as e:
                raise ConfigError(f"{name}: {str(e).removeprefix(v + ': ')}") from None
        return v

    names = ["capacity", "pe", "write_rate", "waf"]
    given = [sized("capacity", capacity), pe, sized("write_rate", write_rate, True), waf]
    inputs = {}
    for i, (name, v) in enumerate(zip(names, given)):
        if v is not None:
            inputs[name] = {"value": _args.positive(name, v), "source": name}
        elif from_run is not None:
            inputs[name] = {"value": from_run[i], "source": "result"}
        else:
            raise ConfigError(f"{name}: missing; expected {name} with a value, or result=")
    seconds, human = _native.lifetime_seconds(*(inputs[n]["value"] for n in names))
    return {"seconds": seconds, "human": human, "inputs": inputs}
