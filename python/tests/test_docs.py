"""The Python shown in docs/python.md runs (blocks marked `python no-run` excepted), and
what the text says of its results holds."""

import re

import matplotlib

matplotlib.use("Agg")

from conftest import ROOT  # noqa: E402


def blocks(path):
    text = path.read_text()
    return [m.group(1) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_python_md_examples_run_and_say_true(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = {}
    code = blocks(ROOT / "docs" / "python.md")
    assert len(code) >= 5
    for block in code:
        exec(compile(block, "docs/python.md", "exec"), ns)
    # "Random victims copy the most and greedy the least, and every policy's WAF falls as
    # the spare share grows."
    waf = ns["waf"].unstack(0)
    assert (waf["random"] > waf["cost-benefit"]).all()
    assert (waf["cost-benefit"] >= waf["greedy"]).all()
    for policy in waf.columns:
        assert waf[policy].is_monotonic_decreasing, policy
    assert (tmp_path / "results" / "sweep-gc-op" / "waf.svg").exists()
    assert len(list((tmp_path / "results" / "sweep-gc-op" / "points").glob("*.json"))) == 24
    assert ns["ssdlab"].lifetime(capacity="1TB", pe=3000, write_rate="100MB/s", waf=2.0)["human"] == "5.8 months"
    # "print(seen[-1])   # ('run', 50000, 50000)"
    assert ns["seen"][-1] == ("run", 50000, 50000)
    # e.write writes what the command writes.
    written = tmp_path / "results" / "openssd"
    assert {"result.json", "table.md", "table.csv"} <= {p.name for p in written.iterdir()}
    assert len(list(written.glob("*.svg"))) == len(ns["e"].json["figures"]) > 0
