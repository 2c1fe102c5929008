"""A run's result: the CLI's JSON, and views of it as DataFrames and arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

import json

from ._frames import METRICS, OPS, long, op_figures
from ._native import ConfigError


class JobNotFoundError(ConfigError, KeyError):
    """A job name, or an operation, a result does not have: a :class:`ConfigError` and a
    ``KeyError``."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class JobIndexError(ConfigError, IndexError):
    """A job index past a result's jobs: a :class:`ConfigError` and an ``IndexError``."""

_SERIES = {
    "free_blocks": "free_blocks_over_time",
    "waf": "waf_over_time",
    "latency_ns": "latency_over_time",
    "bandwidth_bytes_s": "bandwidth_over_time",
}


class Result:
    """One simulated run.

    ``json`` is exactly the dict ``ssdlab run --output-format json`` prints; ``jobs`` and
    ``ssd`` are DataFrames of it; ``latency(job, op)`` gives a latency histogram (from the
    json+ bins) and ``timeseries`` the sampled series over simulated time.
    """

    def __init__(self, plain_json: str, plus_json: str) -> None:
        self.json = json.loads(plain_json)
        self._plus = json.loads(plus_json)

    def __repr__(self) -> str:
        jobs = ", ".join(j["jobname"] for j in self.json["jobs"])
        return f"<ssdlab.Result {self.json['ssd']['device']!r}: jobs {jobs}; WAF {self.json['ssd']['waf']}>"

    @property
    def jobs(self) -> "pd.DataFrame":
        """One row per ``jobs[]`` entry (one per clone unless ``group_reporting``): ``job``
        (its name), ``group``, ``clones`` (the clones it reports), ``runtime_s``, then per
        operation ``{op}_iops``, ``_mb_s``, ``_ios``, ``_bytes`` and completion latency
        ``_mean_us``, ``_min_us``, ``_max_us``, ``_p50_us``, ``_p99_us``, ``_p99_9_us`` (NaN for
        an operation the job did not do). The vocabulary of sweep and experiment frames
        (docs/python.md)."""
        import pandas as pd

        rows = []
        for j in self.json["jobs"]:
            row = {
                "job": j["jobname"],
                "group": int(j["groupid"]),
                "clones": int(j.get("ssdlab", {}).get("numjobs", 1)),
                "runtime_s": int(j["job_runtime"]) / 1e3,
            }
            for op in OPS:
                row.update({f"{op}_{m}": v for m, v in op_figures(j[op]).items()})
            rows.append(row)
        columns = ["job", "group", "clones", "runtime_s"] + [f"{op}_{m}" for op in OPS for m in METRICS]
        return pd.DataFrame(rows, columns=columns)

    @property
    def jobs_long(self) -> "pd.DataFrame":
        """``jobs`` in long form: one row per entry and operation, with ``job``, ``group``,
        ``clones``, ``runtime_s``, ``op`` and the metric columns (``iops``, ``mb_s``, ...)."""
        return long(self.jobs)

    @property
    def ssd(self) -> "pd.DataFrame":
        """The device's figures as one row, nested keys joined with dots (``gc.collections``),
        one number or string per cell: the time series are left out (see ``timeseries``), and
        so are lists (an array's members, per-part figures; they are in ``json``)."""
        import pandas as pd

        ssd = {k: v for k, v in self.json["ssd"].items() if k not in _SERIES.values()}
        flat = pd.json_normalize(ssd, sep=".")
        # One value per cell: lists (an array's members, per-part figures) stay in ``json``.
        lists = [c for c in flat.columns if isinstance(flat.at[0, c], (list, dict))]
        return flat.drop(columns=lists)

    def latency(self, job: int | str, op: str = "read") -> tuple[np.ndarray, np.ndarray]:
        """Completion-latency histogram of ``job`` (index or name) for ``op``: (values in ns,
        counts), NumPy int64 arrays in ascending order of value."""
        import numpy as np

        jobs = self._plus["jobs"]
        if isinstance(job, str):
            match = [j for j in jobs if j["jobname"] == job]
            if not match:
                names = ", ".join(j["jobname"] for j in jobs)
                raise JobNotFoundError(f"job {job!r}; expected one of {names}")
            j = match[0]
        elif isinstance(job, bool) or not isinstance(job, int):
            raise ConfigError(f"job: got {job!r}; expected a job's index (int) or name (str)")
        else:
            if not -len(jobs) <= job < len(jobs):
                raise JobIndexError(
                    f"job {job}: the run has {len(jobs)} job(s); expected an index from 0 to {len(jobs) - 1}"
                    f" (or -{len(jobs)} to -1), or a job's name"
                )
            j = jobs[job]
        if not isinstance(op, str) or op not in OPS:
            raise JobNotFoundError(f"op {op!r}; expected one of {', '.join(OPS)}")
        bins = j[op]["clat_ns"].get("bins", {})
        pairs = sorted((int(v), int(c)) for v, c in bins.items())
        values = np.array([p[0] for p in pairs], dtype=np.int64)
        counts = np.array([p[1] for p in pairs], dtype=np.int64)
        return values, counts

    @property
    def timeseries(self) -> "pd.DataFrame":
        """The sampled series over simulated time, one row per sample: ``time_s``,
        ``free_blocks``, ``waf``, ``latency_ns``, ``bandwidth_bytes_s`` (NaN where a series has
        no sample at that time)."""
        import pandas as pd

        ssd = self.json["ssd"]
        frames = []
        for col, key in _SERIES.items():
            pts = ssd.get(key, [])
            frames.append(pd.DataFrame(pts, columns=["time_ns", col]).set_index("time_ns"))
        df = pd.concat(frames, axis=1).sort_index()
        df.insert(0, "time_s", df.index.to_numpy() / 1e9)
        return df.reset_index(drop=True)

    @property
    def waf(self) -> float:
        return self.json["ssd"]["waf"]
