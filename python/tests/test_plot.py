"""The matplotlib plots draw the result's data."""

import matplotlib

matplotlib.use("Agg")

import shutil  # noqa: E402

import numpy as np  # noqa: E402

import ssdlab  # noqa: E402
from ssdlab import plot  # noqa: E402
from conftest import SMALL  # noqa: E402


def test_run_plots_draw_the_series(tmp_path):
    r = ssdlab.run(SMALL, seed=1)
    ax = plot.latency_cdf(r)
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["read", "write"]
    y = lines[0].get_ydata()
    assert y[-1] == 1.0 and np.all(np.diff(y) >= 0)
    values, _ = r.latency(0, "read")
    assert np.allclose(lines[0].get_xdata(), values / 1e3)
    ts = r.timeseries
    for fn, col, scale in (
        (plot.waf_over_time, "waf", 1.0),
        (plot.free_blocks_over_time, "free_blocks", 1.0),
        (plot.latency_over_time, "latency_ns", 1e-3),
        (plot.bandwidth_over_time, "bandwidth_bytes_s", 1e-6),
    ):
        ax = fn(r)
        (line,) = ax.get_lines()
        assert np.allclose(line.get_ydata(), ts[col].dropna() * scale)
        ax.figure.savefig(tmp_path / f"{col}.svg")
    assert (tmp_path / "waf.svg").stat().st_size > 1000


def test_claims_chart_has_a_bar_per_claim(quick, tmp_path):
    # plan: its claims include seed values of 0 (drawn hatched). Its points are the suite's
    # quick run's (copied from its folder and taken as the command resumes): the chart is tested.
    shutil.copytree(quick("plan") / "points", tmp_path / "plan" / "points")
    e = ssdlab.experiment("plan", quick=True, out=tmp_path / "plan")
    assert any(c["seed_value"] == 0 for c in e.json["claims"])
    ax = plot.claims(e)
    bars = ax.patches
    c = e.claims
    assert len(bars) == len(c)
    i = next(k for k in range(len(c)) if c["seed_value"][k])
    assert bars[i].get_width() == c["our_value"][i] / c["seed_value"][i]
    # Missed claims in the palette's vermillion, reproduced ones in its blue (no red-green pair).
    from matplotlib.colors import to_hex

    colours = [to_hex(b.get_facecolor()[:3]) for b in bars]
    assert colours.count(plot.COLOURS[3]) == int((~c["reproduced"]).sum())
    assert colours.count(plot.COLOURS[0]) == int(c["reproduced"].sum())
    # A claim whose seed value is 0 keeps a bar: hatched, at 1.
    zero = [k for k in range(len(c)) if not c["seed_value"][k]]
    for k in zero:
        assert bars[k].get_width() == 1.0 and bars[k].get_hatch() == "//"
    # The figure is tall enough for one label per claim, and the labels fit once saved.
    assert ax.figure.get_size_inches()[1] >= 0.2 * len(c)


def test_the_command_and_the_package_draw_in_the_same_colours():
    """ssdlab.plot's colour list is the command's (crates/ssdlab-lab/src/plot.rs), in order."""
    import pathlib
    import re

    from ssdlab import plot

    src = pathlib.Path(__file__).resolve().parents[2] / "crates" / "ssdlab-lab" / "src" / "plot.rs"
    text = src.read_text()
    block = text[text.index("pub const COLOURS"):]
    block = block[: block.index("];")]
    rust = ["#%02x%02x%02x" % tuple(map(int, c)) for c in re.findall(r"RGBColor\((\d+), (\d+), (\d+)\)", block)]
    assert rust == plot.COLOURS and len(rust) == 12
