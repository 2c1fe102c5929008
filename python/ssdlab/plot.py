"""Plots with matplotlib: each function draws on ``ax`` (a new figure's when None) and
returns the axes, so they compose in a notebook."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ._experiment import Experiment
    from ._result import Result


# The command's colours (crates/ssdlab-lab/src/plot.rs): Okabe-Ito, then grey, brown, indigo and wine, which no
# common colour-vision deficiency confuses; no red-green pair separates two series.
COLOURS = ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#000000", "#f0e442",
           "#808080", "#8c564b", "#332288", "#882255"]


def _is(name, v, cls):
    """``v``, an instance of ``cls``, or the package's ConfigError naming ``name``."""
    if not isinstance(v, cls):
        from ._native import ConfigError

        raise ConfigError(f"{name}: got {type(v).__name__}; expected {cls.__module__.split('.')[0]}.{cls.__name__}")
    return v


def _axes(ax, size=(6.4, 4.0)):
    if ax is not None:
        from matplotlib.axes import Axes

        _is("ax", ax, Axes)
    if ax is None:
        import matplotlib.pyplot as plt

        # Constrained layout: the axis titles and tick labels stay inside the figure when it is
        # saved (`ax.figure.savefig(...)`), however long they are.
        _, ax = plt.subplots(figsize=size, layout="constrained")
        ax.set_prop_cycle(color=COLOURS)
    return ax


def latency_cdf(result: Result, job: int | str = 0, ops: tuple[str, ...] = ("read", "write"), ax: Axes | None = None) -> Axes:
    """Completion-latency CDF of ``job`` per operation (from the json+ histogram bins)."""
    import numpy as np

    from ._result import Result

    _is("result", result, Result)
    if not isinstance(ops, (tuple, list)) or not all(isinstance(o, str) for o in ops):
        from ._native import ConfigError

        raise ConfigError(f"ops: got {ops!r}; expected a tuple of operations, e.g. ('read', 'write')")
    ax = _axes(ax)
    for op in ops:
        values, counts = result.latency(job, op)
        if counts.sum() == 0:
            continue
        ax.step(values / 1e3, np.cumsum(counts) / counts.sum(), where="post", label=op)
    ax.set_xscale("log")
    ax.set_xlabel("completion latency (µs, log scale)")
    ax.set_ylabel("share of the I/Os at or below")
    ax.set_ylim(0, 1.0)
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    return ax


def _series(result, column, ylabel, scale=1.0, ax=None):
    from ._result import Result

    _is("result", result, Result)
    ax = _axes(ax)
    ts = result.timeseries.dropna(subset=[column])
    ax.plot(ts["time_s"], ts[column] * scale)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return ax


def latency_over_time(result: Result, ax: Axes | None = None) -> Axes:
    """Mean completion latency of each sampling interval over simulated time."""
    return _series(result, "latency_ns", "mean latency (µs)", 1e-3, ax)


def waf_over_time(result: Result, ax: Axes | None = None) -> Axes:
    """Write amplification of each sampling interval over simulated time."""
    return _series(result, "waf", "WAF", 1.0, ax)


def free_blocks_over_time(result: Result, ax: Axes | None = None) -> Axes:
    """Free blocks of the device over simulated time."""
    return _series(result, "free_blocks", "free blocks", 1.0, ax)


def bandwidth_over_time(result: Result, ax: Axes | None = None) -> Axes:
    """Bytes per second of the I/Os completed in each sampling interval (MB/s)."""
    return _series(result, "bandwidth_bytes_s", "bandwidth (MB/s)", 1e-6, ax)


def claims(experiment: Experiment, ax: Axes | None = None) -> Axes:
    """An experiment's claims: ours over the seed's value, one bar per claim, blue where
    reproduced and vermillion where missed (the palette's first and fourth colours, which no
    common colour-vision deficiency confuses); the line at 1 is the seed's. A claim whose seed
    value is 0 has no ratio: a hatched bar at 1 stands for it, labelled with our value."""
    from ._experiment import Experiment

    _is("experiment", experiment, Experiment)
    c = experiment.claims
    # A new figure tall enough for one readable label per claim.
    ax = _axes(ax, size=(8.0, 1.5 + 0.22 * len(c)))
    seed, ours = list(c["seed_value"]), list(c["our_value"])
    ratio = [o / s if s else 1.0 for o, s in zip(ours, seed)]
    colors = [COLOURS[0] if r else COLOURS[3] for r in c["reproduced"]]
    bars = ax.barh(range(len(c)), ratio, color=colors)
    for i, (b, s, o) in enumerate(zip(bars, seed, ours)):
        if not s:
            b.set_hatch("//")
            b.set_alpha(0.5)
            ax.annotate(f"seed 0, ours {o:g}", (1.0, i), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=7)
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=COLOURS[0], label="reproduced"), Patch(color=COLOURS[3], label="missed")],
              loc="lower right", fontsize=8)
    ax.set_yticks(range(len(c)))
    ax.set_yticklabels(c["id"], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    # Ratios far apart (a reading several hundred times off beside ones near 1): a logarithmic
    # axis keeps every bar visible.
    positive = [r for r in ratio if r > 0]
    if positive and (max(positive) > 10 or min(positive) < 0.1):
        ax.set_xscale("log")
        ax.set_xlabel("ours / seed's (log scale)")
    else:
        ax.set_xlabel("ours / seed's")
    summary = experiment.json.get("summary", {})
    ax.set_title(
        f"{experiment.json['experiment']}: {summary.get('seed_reproduced', int(c['reproduced'].sum()))} of "
        f"{summary.get('seed_claims', len(c))} seed claims reproduced ({len(c)} claims drawn)"
    )
    return ax
