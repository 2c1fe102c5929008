#!/usr/bin/env python3
"""Print the Markdown table of every claim of the experiments' result.json files given.

    scripts/claims_table.py results/friendly/result.json results/plan/result.json ...
    scripts/claims_table.py --totals results/*/result.json


One row per claim: the experiment, the claim, its kind, the seed's own words it comes from
(checks are ours and quote nothing), the seed's value, ours, the rule, what would fail it (derived from the rule) and
the verdict. Only the standard library is used.
"""

import json
import sys


def num(x):
    if x is None:
        return "–"
    if isinstance(x, float) and x != x:
        return "NaN"
    if float(x) == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"


def fails_if(c):
    r, seed = c["rule"], c["seed_value"]
    k = r["kind"]
    if k == "relative":
        t = r["tolerance"]
        return f"ours outside [{num(seed - t * abs(seed))}, {num(seed + t * abs(seed))}]"
    if k == "absolute":
        t = r["tolerance"]
        return f"ours outside [{num(seed - t)}, {num(seed + t)}]"
    if k == "at_least":
        return f"ours below {num(seed)}"
    if k == "at_most":
        return f"ours above {num(seed)}"
    if k == "above":
        return f"ours − {num(seed)} not above the noise ({num(r['margin'])}), a tie included"
    if k == "not_below":
        return f"{num(seed)} − ours above the noise ({num(r['margin'])})"
    if k == "below":
        return f"{num(seed)} − ours not above the noise ({num(r['margin'])}), a tie included"
    raise SystemExit(f"claims_table: unknown rule {k}")


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def runs(scale):
    """`36 × 3`, or `128 (40 × 3, 88 × 1)` when the points only a figure shows ran under the
    first seed alone."""
    points, seeds = scale["points"], scale["seeds"]
    claimed = scale.get("claim_points", points)
    if claimed == points or seeds == 1:
        return f"{points} × {seeds}"
    return f"{points} ({claimed} × {seeds}, {points - claimed} × 1)"


def totals(paths):
    """One row per result: its summary's counts, and a row of their sums."""
    keys = ["seed_claims", "seed_reproduced", "known_differences", "no_signal", "checks", "checks_holding"]
    print("| experiment | seed claims reproduced | known differences | without signal | checks holding | points × seeds |")
    print("| --- | --- | --- | --- | --- | --- |")
    sums = dict.fromkeys(keys, 0)
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        s = r["summary"]
        for k in keys:
            sums[k] += s[k]
        print(
            f"| {r['experiment']} | {s['seed_reproduced']} of {s['seed_claims']} | {s['known_differences']} | "
            f"{s['no_signal']} | {s['checks_holding']} of {s['checks']} | {runs(r['scale'])} |"
        )
    print(
        f"| all | {sums['seed_reproduced']} of {sums['seed_claims']} | {sums['known_differences']} | "
        f"{sums['no_signal']} | {sums['checks_holding']} of {sums['checks']} | |"
    )


def main(paths):
    if not paths:
        raise SystemExit(__doc__.strip().splitlines()[0])
    if paths[0] == "--totals":
        return totals(paths[1:])
    print("| experiment | claim | kind | seed's words | seed | ours | rule | fails if | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        for c in r["claims"]:
            row = [
                r["experiment"],
                f"{c['id']}: {c['text']}",
                c["kind"].replace("_", " "),
                c.get("source") or "–",
                num(c["seed_value"]) + " " + c["unit"],
                num(c["our_value"]),
                c["tolerance"],
                fails_if(c),
                c["verdict"].replace("_", " "),
            ]
            print("| " + " | ".join(cell(x) for x in row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
