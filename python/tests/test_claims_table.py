"""scripts/claims_table.py: one row per claim of a result.json, with what would fail it."""

import json
import subprocess
import sys

from conftest import ROOT


def test_every_claim_is_a_row_with_its_failing_condition(cli, tmp_path):
    out = tmp_path / "openssd"
    run = subprocess.run(
        [cli, "experiment", "openssd", "--quick", "--seeds", "2", "-q", "--out", str(out)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads((out / "result.json").read_text())
    table = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claims_table.py"), str(out / "result.json")],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    claims = result["claims"]
    assert table[0].startswith("| experiment | claim | kind | seed's words |")
    assert len(table) == 2 + len(claims)
    for c, row in zip(claims, table[2:]):
        cells = [x.strip() for x in row.strip("|").split(" | ")]
        assert cells[0] == "openssd" and cells[1].startswith(c["id"] + ":")
        assert cells[2] == c["kind"].replace("_", " ") and cells[8] == c["verdict"].replace("_", " ")
        # A seed claim quotes the seed.
        assert cells[3] == (c.get("source") or "–").replace("|", "\\|").replace("\n", " ").strip()
        assert c["kind"] == "check" or cells[3] != "–", row
        kind = c["rule"]["kind"]
        if kind == "relative":
            t, s = c["rule"]["tolerance"], c["seed_value"]
            lo, hi = (float(x) for x in cells[7].removeprefix("ours outside [").removesuffix("]").split(", "))
            assert abs(lo - (s - t * abs(s))) <= 1e-3 * abs(s) and abs(hi - (s + t * abs(s))) <= 1e-3 * abs(s)
        elif kind in ("above", "below"):
            assert "a tie included" in cells[7] and "noise" in cells[7], row
    # A direction claim is among them, with the noise the second seed measured as its margin.
    assert any(c["rule"]["kind"] == "above" for c in claims)


def test_no_file_is_one_line_of_usage():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "claims_table.py")], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.strip().startswith("Print the Markdown table")


def test_totals_count_each_result_s_summary_and_sum_them(cli, tmp_path):
    results = []
    for name in ("openssd", "friendly"):
        out = tmp_path / name
        run = subprocess.run(
            [cli, "experiment", name, "--quick", "--seeds", "1", "-q", "--out", str(out)],
            capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stderr
        results.append(json.loads((out / "result.json").read_text()))
    table = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claims_table.py"), "--totals"]
        + [str(tmp_path / n / "result.json") for n in ("openssd", "friendly")],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert len(table) == 2 + 2 + 1
    rows = [[x.strip() for x in row.strip("|").split(" | ")] for row in table[2:]]
    for r, row in zip(results, rows):
        s = r["summary"]
        assert row[:5] == [
            r["experiment"],
            f"{s['seed_reproduced']} of {s['seed_claims']}",
            str(s["known_differences"]),
            str(s["no_signal"]),
            f"{s['checks_holding']} of {s['checks']}",
        ]
        assert row[5] == f"{r['scale']['points']} × 1"
    sums = [sum(r["summary"][k] for r in results) for k in ("seed_reproduced", "seed_claims")]
    assert rows[2][0] == "all" and rows[2][1] == f"{sums[0]} of {sums[1]}"


def test_totals_say_which_points_ran_under_every_seed(tmp_path):
    """Points only a figure shows run under the first seed alone: the row says how many."""
    summary = dict.fromkeys(
        ["seed_claims", "seed_reproduced", "known_differences", "no_signal", "checks", "checks_holding"], 1
    )
    for name, scale in [
        ("plan", {"points": 128, "seeds": 3, "claim_points": 40}),
        ("hotr", {"points": 246, "seeds": 3, "claim_points": 246}),
        ("old", {"points": 36, "seeds": 3}),
        ("one", {"points": 128, "seeds": 1, "claim_points": 40}),
    ]:
        (tmp_path / f"{name}.json").write_text(json.dumps({"experiment": name, "summary": summary, "scale": scale}))
    table = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claims_table.py"), "--totals"]
        + [str(tmp_path / f"{n}.json") for n in ("plan", "hotr", "old", "one")],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    last = [row.strip("|").split(" | ")[5].strip() for row in table[2:6]]
    assert last == ["128 (40 × 3, 88 × 1)", "246 × 3", "36 × 3", "128 × 1"]
