"""The one vocabulary of ssdlab's DataFrames (docs/python.md, "Frames").

Every per-operation figure is a column ``{op}_{metric}`` in a wide frame (``read_iops``,
``write_p99_us``) and a column ``metric`` beside ``op`` in a long one. The metrics, with their
units in their names:

- ``iops``: I/Os per second; ``mb_s``: bandwidth, MB/s (10^6 bytes);
- ``ios``: I/Os completed; ``bytes``: bytes transferred;
- ``mean_us``, ``min_us``, ``max_us``, ``p50_us``, ``p99_us``, ``p99_9_us``: completion
  latency, microseconds, NaN for an operation with no I/O (there is no latency to report).

``Result.jobs`` has them all per job; sweep rows and experiment runs have the headline ones
every experiment table shows (``iops``, ``mb_s``, ``mean_us``, ``p99_us``), summed or worst
over the run's jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

OPS = ("read", "write", "trim")
METRICS = ("iops", "mb_s", "ios", "bytes", "mean_us", "min_us", "max_us", "p50_us", "p99_us", "p99_9_us")
LATENCY = ("mean_us", "min_us", "max_us", "p50_us", "p99_us", "p99_9_us")
_PCTS = {"p50_us": "50.000000", "p99_us": "99.000000", "p99_9_us": "99.900000"}


def op_figures(o: dict) -> dict[str, float | int]:
    """The metrics of one operation of a fio ``jobs[]`` entry (``entry["read"]``)."""
    nan = float("nan")
    none = int(o["total_ios"]) == 0
    lat = o["clat_ns"]
    out: dict[str, float | int] = {
        "iops": float(o["iops"]),
        "mb_s": int(o["bw_bytes"]) / 1e6,
        "ios": int(o["total_ios"]),
        "bytes": int(o["io_bytes"]),
        "mean_us": nan if none else float(lat["mean"]) / 1e3,
        "min_us": nan if none else float(lat["min"]) / 1e3,
        "max_us": nan if none else float(lat["max"]) / 1e3,
    }
    for name, key in _PCTS.items():
        p = lat.get("percentile", {}).get(key)
        out[name] = nan if none or p is None else float(p) / 1e3
    return out


def no_io_is_nan(row: dict) -> dict:
    """A row of headline figures with the latencies of an operation that did no I/O (IOPS 0)
    as NaN rather than 0."""
    for op in OPS:
        if row.get(f"{op}_iops") == 0:
            for m in LATENCY:
                if f"{op}_{m}" in row:
                    row[f"{op}_{m}"] = float("nan")
    return row


def long(wide: pd.DataFrame) -> pd.DataFrame:
    """A wide frame of this vocabulary (``Result.jobs``, a sweep's rows, ``Experiment.runs``)
    in long form: one row per original row and operation, its other columns kept, then
    ``op`` and one column per metric the wide frame has. Operations the frame has no column
    for are left out."""
    import pandas as pd

    if not isinstance(wide, pd.DataFrame):
        from ._native import ConfigError

        raise ConfigError(f"wide: got {type(wide).__name__}; expected a DataFrame (Result.jobs, a sweep's rows, Experiment.runs)")
    per_op = {op: [c for c in wide.columns if c.startswith(f"{op}_") and c[len(op) + 1 :] in METRICS] for op in OPS}
    taken = {c for cols in per_op.values() for c in cols}
    ids = [c for c in wide.columns if c not in taken]
    metrics = [m for m in METRICS if any(f"{op}_{m}" in wide.columns for op in OPS)]
    frames = []
    for op, cols in per_op.items():
        if not cols:
            continue
        part = wide[ids].copy()
        part["op"] = op
        for m in metrics:
            part[m] = wide[f"{op}_{m}"] if f"{op}_{m}" in wide.columns else float("nan")
        part["_row"] = range(len(wide))
        part["_op"] = OPS.index(op)
        frames.append(part)
    if not frames:
        return pd.DataFrame(columns=ids + ["op"])
    out = pd.concat(frames, ignore_index=True).sort_values(["_row", "_op"], kind="stable")
    return out.drop(columns=["_row", "_op"]).reset_index(drop=True)
