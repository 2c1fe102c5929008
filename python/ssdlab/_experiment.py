"""Seed reproductions from Python: here, or with their points spread over a Ray cluster."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

import json
import time

from . import _args, _native
from ._backend import map_points
from ._frames import long, no_io_is_nan


class Experiment:
    """An experiment's result: ``json`` is the CLI's ``result.json``; ``claims`` and ``runs``
    are DataFrames of it; ``deterministic_json`` is the JSON with its wall-clock fields zeroed
    (equal for any backend and thread count)."""

    def __init__(self, output: _native.ExperimentOutput) -> None:
        self._output = output
        self._text = output.json()
        self.json = json.loads(self._text)
        self.deterministic_json = output.deterministic_json()

    def __repr__(self) -> str:
        s = self.json["summary"]
        return (
            f"<ssdlab.Experiment {self.json['experiment']}: "
            f"{s['seed_reproduced']} of {s['seed_claims']} seed claims reproduced>"
        )

    @property
    def claims(self) -> pd.DataFrame:
        """One row per claim: id, kind (``seed``, ``known_difference``, ``check``, ``derived``,
        ``alternative``; only the first two are counted as seed claims), text,
        seed_value, our_value, noise (NaN with one seed), unit, tolerance, verdict,
        reproduced."""
        import pandas as pd

        cols = ["id", "kind", "text", "seed_value", "our_value", "noise", "unit", "tolerance", "verdict", "reproduced"]
        rows = [{c: cl.get(c, float("nan")) for c in cols} for cl in self.json["claims"]]
        return pd.DataFrame(rows, columns=cols)

    @property
    def runs(self) -> pd.DataFrame:
        """One row per point: its id, labels and the table's figures (as ``table.csv``), in
        the vocabulary of ``Result.jobs`` (NaN latencies for a direction with no I/O)."""
        import pandas as pd

        rows = []
        for r in self.json["runs"]:
            row = {"point": r["id"]}
            row.update(r["labels"])
            row.update({k: (float("nan") if v is None else v) for k, v in r["metrics"].items()})
            rows.append(no_io_is_nan(row))
        return pd.DataFrame(rows)

    @property
    def runs_long(self) -> pd.DataFrame:
        """``runs`` in long form: one row per point and direction (``op``), the headline
        figures as metric columns (``iops``, ``mb_s``, ``mean_us``, ``p99_us``)."""
        return long(self.runs)

    def write(self, out: str | os.PathLike) -> None:
        """Write into the folder ``out`` what ``ssdlab experiment --out`` writes, with the
        command's code: ``result.json``, ``table.md``, ``table.csv`` and one SVG per figure,
        each file whole or not at all."""
        self._output.write(_args.path("out", out))


def experiments() -> pd.DataFrame:
    """The experiments as a DataFrame: name, title, seed document."""
    import pandas as pd

    return pd.DataFrame(_native.experiments(), columns=["name", "title", "seed_document"])


def _run_point(name, quick, index, seeds):
    return _native.experiment_point(name, quick, index, seeds)


def experiment(
    name: str,
    quick: bool = False,
    backend: str = "local",
    threads: int = 0,
    out: str | os.PathLike | None = None,
    progress: bool | None = None,
    seeds: int | None = None,
) -> Experiment:
    """Reproduce a seed as ``ssdlab experiment NAME`` does, returning an :class:`Experiment`.

    ``seeds``: simulation seeds each point a claim reads runs under (default 3, 2 with
    ``quick``), as the CLI's ``--seeds``: how far each claim's value moves across them is its
    noise; the points only a figure shows run under the first.

    ``backend="local"`` runs the points on this machine's cores (``threads``, 0 for one per
    core); ``"ray"`` submits one Ray task per point to the cluster ``ray.init()`` joins (start
    it yourself for a remote cluster). Both give the CLI's result, byte for byte except its
    wall-clock fields. ``out`` writes there what the command writes (see :meth:`Experiment.write`);
    with the local backend it also keeps each finished point in ``out/points`` and takes the
    points already there, as the command does, so an interrupted experiment resumes.
    """
    name = _args.string("name", name, "an experiment's name (see ssdlab.experiments())")
    quick = _args.flag("quick", quick)
    threads = _args.whole("threads", threads, 0, 4096)
    seeds = _args.whole("seeds", seeds, 1, 64, optional=True)
    out = _args.optional_path("out", out)
    progress = _args.optional_flag("progress", progress)
    if backend == "local":
        # With `out`, finished points are kept in out/points and taken from there, as the
        # command keeps them: an interrupted experiment resumes where it stopped.
        points = None if out is None else os.path.join(os.fspath(out), "points")
        output = _native.experiment_run(name, quick, threads, seeds, points)
    elif backend == "ray":
        start = time.monotonic()
        n = len(_native.experiment_points(name, quick, seeds))
        outcomes = map_points(
            _run_point, [(name, quick, i, seeds) for i in range(n)], "ray", progress, f"{name} points"
        )
        output = _native.experiment_assemble(name, quick, outcomes, time.monotonic() - start, seeds)
    else:
        raise _native.ConfigError(f"backend: {backend!r}; expected 'local' or 'ray'")
    e = Experiment(output)
    if out is not None:
        e.write(out)
    return e
