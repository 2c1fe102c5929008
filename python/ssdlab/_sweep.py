"""Parameter sweeps: the product of a grid of config keys and seeds, one run per point."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

import hashlib
import itertools
import json
import os

from . import _args, _native
from ._atomic import write_text
from ._backend import map_points
from ._frames import no_io_is_nan


def _point(cfg, kind, jobs, seed, sets, max_memory):
    """Run one point (in this process or a Ray worker): its JSON result and headline figures."""
    plain, _plus, metrics = _native.run(cfg, kind, jobs, seed, sets, max_memory)
    return plain, metrics


def sweep(
    base: str | os.PathLike | dict | None = None,
    grid: dict[str, list] | None = None,
    seeds: list[int] | None = None,
    backend: str = "local",
    out: str | os.PathLike | None = None,
    jobs: str | os.PathLike | None = None,
    set: dict[str, str | int | float | bool] | None = None,
    threads: int = 0,
    progress: bool | None = None,
    ray_address: str | None = None,
    max_memory: int | str | None = None,
) -> pd.DataFrame:
    """Run every point of ``grid`` x ``seeds`` on ``base`` and return one row per point.

    ``base``: what :func:`ssdlab.run` takes as ``config`` (preset, path, TOML text or dict),
    with ``jobs`` and ``set`` as there. ``grid``: ``{"dotted.key": [values]}``, e.g.
    ``{"device.ftl.gc_policy": ["greedy", "cost-benefit"], "job.0.iodepth": [1, 8]}``.
    ``seeds``: a list of seeds (default: the config's own). ``backend``: ``"local"`` (this
    machine's cores, ``threads`` at once, 0 for one per core) or ``"ray"`` (one task per
    point on the cluster ``ray.init(address=ray_address)`` joins; ``None`` starts a local
    one). Both give the same rows.

    ``out``: a folder; each point's full result is written there as
    ``points/KEY.json``, KEY being a hash of the point's full config and seed and of the
    engine's build (``ssdlab.BUILD_ID``), and a point already there is read back instead of
    run again (a sweep is resumable; a point of another build is run again). Files are
    written whole or not at all.

    The rows (a DataFrame, in grid order): the grid's keys, ``seed``, ``key``, and the
    headline figures every experiment table has (``read_iops``, ``read_mb_s``,
    ``read_mean_us``, ``read_p99_us``, the same for writes, ``waf``, ``lifetime_days``), in
    the vocabulary of ``Result.jobs`` (NaN latencies for a direction with no I/O);
    ``ssdlab.long(rows)`` gives them in long form.
    """
    import pandas as pd

    from . import _config_args, _toml_value

    grid = dict(_args.mapping("grid", grid, 'a dict of {"dotted.key": [values]}'))
    for k, v in grid.items():
        if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
            raise _native.ConfigError(f"grid: {k}: {v!r}; expected a list of values")
    cfg, kind, base_sets = _config_args(base, set)
    jobs = _args.text_or_path("jobs", jobs, "a fio job file's text")
    seeds = _args.seeds("seeds", seeds)
    threads = _args.whole("threads", threads, 0, 4096)
    out = _args.optional_path("out", out)
    if backend not in ("local", "ray"):
        raise _native.ConfigError(f"backend: {backend!r}; expected 'local' or 'ray'")
    if ray_address is not None:
        ray_address = _args.string("ray_address", ray_address, "a Ray cluster's address (str) or None")
    progress = _args.optional_flag("progress", progress)
    if out is not None and os.path.exists(out) and not os.path.isdir(out):
        raise _native.ConfigError(f"out: {out}: not a folder; expected a folder (or a path for a new one)")
    seed_list = [None] if seeds is None else seeds
    keys = list(grid)
    points = []
    for combo in itertools.product(*(list(grid[k]) for k in keys)):
        sets = base_sets + [f"{k}={_toml_value(v)}" for k, v in zip(keys, combo)]
        for seed in seed_list:
            full = json.loads(_native.resolve(cfg, kind, jobs, seed, sets))
            # The engine's build (its version and a hash of its source): a point saved by
            # another build is run again, never reused.
            blob = json.dumps({"build": _native.BUILD_ID, "config": full}, sort_keys=True)
            key = hashlib.sha256(blob.encode()).hexdigest()[:20]
            params = dict(zip(keys, combo))
            params["seed"] = full["precondition"]["seed"]
            points.append((params, key, (cfg, kind, jobs, seed, sets, max_memory)))

    done = {}
    if out is not None:
        os.makedirs(os.path.join(out, "points"), exist_ok=True)
        for _, key, _ in points:
            path = os.path.join(out, "points", f"{key}.json")
            if os.path.exists(path):
                try:
                    with open(path) as f:
                        saved = json.load(f)
                    # A file copied over another point's carries the other key: not reused.
                    if saved["key"] == key:
                        done[key] = (saved["metrics"], saved["result"])
                except (OSError, ValueError, KeyError, TypeError):
                    pass  # a point cut short while written, or another's: run it again
    todo = [p for p in points if p[1] not in done]
    # A key twice (the same config from two grid cells) runs once.
    unique = list({p[1]: p for p in todo}.values())
    # Points here on the same device and precondition start from one preconditioned state
    # (the result is the same as preconditioning each; Ray's workers precondition their own).
    with _native.share_preconditioning():
        results = map_points(
            _point, [p[2] for p in unique], backend, progress, "sweep", threads=threads, ray_address=ray_address
        )
    for (params, key, _), (plain, metrics) in zip(unique, results):
        metrics = [list(m) for m in metrics]
        result = json.loads(plain)
        done[key] = (metrics, result)
        if out is not None:
            path = os.path.join(out, "points", f"{key}.json")
            write_text(path, json.dumps({"params": params, "key": key, "metrics": metrics, "result": result}))

    rows = []
    for params, key, _ in points:
        metrics, _result = done[key]
        row = dict(params)
        row["key"] = key
        row.update({k: (float("nan") if v is None else v) for k, v in metrics})
        rows.append(no_io_is_nan(row))
    df = pd.DataFrame(rows)
    if out is not None:
        write_text(os.path.join(out, "sweep.csv"), df.to_csv(index=False))
    return df
