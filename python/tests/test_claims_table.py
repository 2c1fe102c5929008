"""scripts/claims_table.py: one row per claim of a result.json, with what would fail it."""

import json
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from claims_table import num  # noqa: E402


def quick_result(quick, name):
    """The suite's quick run of experiment `name` (conftest's `quick`): its folder and its result."""
    out = quick(name)
    return out, json.loads((out / "result.json").read_text())


def test_every_claim_is_a_row_with_its_failing_condition(quick):
    out, result = quick_result(quick, "openssd")
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
            assert "a tie included" in cells[7] and "(minimum effect or noise)" in cells[7], row
        # Ours under each simulation seed, the first's first.
        assert cells[5].split(" / ")[0] == num(c["our_value"]) and len(cells[5].split(" / ")) == 2, row
    # A direction claim is among them, with the noise the second seed measured as its margin.
    assert any(c["rule"]["kind"] == "above" for c in claims)


def test_no_file_is_one_line_of_usage():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "claims_table.py")], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.strip().startswith("Print the Markdown table")


def test_totals_count_each_result_s_summary_and_sum_them(quick):
    results = [quick_result(quick, name)[1] for name in ("openssd", "friendly")]
    table = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "claims_table.py"), "--totals"]
        + [str(quick(n) / "result.json") for n in ("openssd", "friendly")],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert len(table) == 2 + 2 + 1
    rows = [[x.strip() for x in row.strip("|").split(" | ")] for row in table[2:]]
    for r, row in zip(results, rows):
        s = r["summary"]
        assert row[:7] == [
            r["experiment"],
            f"{s['seed_reproduced']} of {s['seed_claims']}",
            str(s["known_differences"]),
            str(s["no_signal"]),
            str(s["unstable"]),
            f"{s['checks_holding']} of {s['checks']}",
            f"{s['derived']}, {s['alternatives']}",
        ]
        # Every point of these two enters a claim, so all ran under each of the run's seeds.
        assert r["scale"]["claim_points"] == r["scale"]["points"]
        assert row[7] == f"{r['scale']['points']} × {r['scale']['seeds']}"
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
    last = [row.strip("|").split(" | ")[7].strip() for row in table[2:6]]
    assert last == ["128 (40 × 3, 88 × 1)", "246 × 3", "36 × 3", "128 × 1"]


def test_a_record_keeps_the_claims_and_the_points_figures_without_wall_time(quick, tmp_path):
    out, result = quick_result(quick, "openssd")
    rec_path = tmp_path / "openssd.json"
    script = str(ROOT / "scripts" / "claims_table.py")
    subprocess.run([sys.executable, script, "--record", str(out / "result.json"), str(rec_path)], check=True)
    rec = json.loads(rec_path.read_text())
    assert rec["claims"] == result["claims"] and rec["summary"] == result["summary"]
    assert rec["figures"] == result["figures"] and rec["conditions"] == result["conditions"]
    assert "wall_time_s" not in rec["scale"] and rec["scale"]["points"] == result["scale"]["points"]
    assert [p["id"] for p in rec["points"]] == [p["id"] for p in result["runs"]]
    assert rec["points"][0]["metrics"] == result["runs"][0]["metrics"]
    # The tables read a record as they read a result.
    one = subprocess.run([sys.executable, script, str(rec_path)], capture_output=True, text=True, check=True).stdout
    two = subprocess.run([sys.executable, script, str(out / "result.json")], capture_output=True, text=True, check=True).stdout
    assert one == two


def test_the_docs_blocks_are_the_committed_records_and_a_change_is_found(tmp_path):
    """Every generated block of the docs is what the committed records give; a block changed
    by hand (one digit) fails the check, and --docs puts it back."""
    script = str(ROOT / "scripts" / "claims_table.py")
    r = subprocess.run([sys.executable, script, "--docs", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    blocks = 0
    for md in [ROOT / "README.md", *sorted((ROOT / "docs" / "experiments").glob("*.md"))]:
        blocks += md.read_text().count("<!-- generated: scripts/claims_table.py ")
    assert blocks >= 7  # the totals, every claim, the conditions, and each page's claims
    # A copy of the project's docs and records with one number changed.
    import shutil

    copy = tmp_path / "p"
    (copy / "scripts").mkdir(parents=True)
    shutil.copy(script, copy / "scripts")
    shutil.copytree(ROOT / "docs" / "experiments", copy / "docs" / "experiments")
    shutil.copy(ROOT / "README.md", copy / "README.md")
    page = copy / "docs" / "experiments" / "README.md"
    text = page.read_text()
    start = text.index("<!-- generated: scripts/claims_table.py --totals")
    row = text.index("| all | ", start)
    digit = next(i for i in range(row, len(text)) if text[i].isdigit())
    page.write_text(text[:digit] + str((int(text[digit]) + 1) % 10) + text[digit + 1:])
    cp = [sys.executable, str(copy / "scripts" / "claims_table.py"), "--docs"]
    r = subprocess.run(cp + ["--check"], capture_output=True, text=True)
    assert r.returncode == 1 and "docs/experiments/README.md: the block of `--totals" in r.stderr, r.stderr
    subprocess.run(cp, check=True)
    assert page.read_text() == (ROOT / "docs" / "experiments" / "README.md").read_text()
