#!/usr/bin/env python3
"""Print the Markdown table of every claim of the experiments' result.json files given.

    scripts/claims_table.py results/friendly/result.json results/plan/result.json ...
    scripts/claims_table.py --totals results/*/result.json
    scripts/claims_table.py --conditions results/plan/result.json
    scripts/claims_table.py --figure results/plan/result.json waf
    scripts/claims_table.py --points results/plan/result.json waf,write_mb_s
    scripts/claims_table.py --record results/plan/result.json docs/experiments/record/plan.json
    scripts/claims_table.py --docs [--check]

One row per claim: the experiment, the claim, its kind, the seed's own words it comes from
(checks are ours and quote nothing), the seed's value, ours under each simulation seed, the
rule, what would fail it (derived from the rule) and the verdict. `--totals`: one row per
result with its counts, and their sums. `--conditions`: the conditions of a result, with the
count under each reading of those the seed leaves open. `--figure RESULT ID`: a figure's data
(one row per category or x, one column per series). `--points RESULT [METRICS [MATCH]]`: one row
per point (those whose id matches the regular expression MATCH) with its labels and the
table's figures (all, or the comma-separated METRICS; `SECTION.KEY` reads a record's
counters, such as `redundancy.redirected_reads`).

`--record RESULT OUT` writes the compact record of a full run that the docs are made from:
the result without its runs' full outputs (each point keeps its labels and table figures) and
without its wall-clock time. `--docs` regenerates every block of docs/experiments/*.md and
README.md that starts with `<!-- generated: scripts/claims_table.py ARGS -->` and ends with
`<!-- end generated -->` by running this script with ARGS (paths from the project root);
with `--check` it changes nothing and exits 1 naming each block that differs. Only the
standard library is used.
"""

import glob
import io
import json
import os
import re
import sys
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def num(x):
    if x is None:
        return "–"
    if isinstance(x, float) and x != x:
        return "NaN"
    if isinstance(x, float) and x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
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
        return f"ours − {num(seed)} not above {num(r['margin'])} (minimum effect or noise), a tie included"
    if k == "not_below":
        return f"{num(seed)} − ours above {num(r['margin'])} (minimum effect or noise)"
    if k == "below":
        return f"{num(seed)} − ours not above {num(r['margin'])} (minimum effect or noise), a tie included"
    raise SystemExit(f"claims_table: unknown rule {k}")


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def load(path):
    with open(path) as f:
        return json.load(f)


def runs(scale):
    """`36 × 3`, or `128 (40 × 3, 88 × 1)` when the points only a figure shows ran under the
    first seed alone."""
    points, seeds = scale["points"], scale["seeds"]
    claimed = scale.get("claim_points", points)
    if claimed == points or seeds == 1:
        return f"{points} × {seeds}"
    return f"{points} ({claimed} × {seeds}, {points - claimed} × 1)"


KEYS = [
    "seed_claims",
    "seed_reproduced",
    "known_differences",
    "no_signal",
    "unstable",
    "checks",
    "checks_holding",
    "derived",
    "alternatives",
]


def totals(paths):
    """One row per result: its summary's counts, and a row of their sums."""
    print(
        "| experiment | seed claims reproduced | known differences | without signal | unstable "
        "| checks holding | derived, other readings (shown, not counted) | points × seeds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    sums = dict.fromkeys(KEYS, 0)
    for p in paths:
        r = load(p)
        s = r["summary"]
        for k in KEYS:
            sums[k] += s.get(k, 0)
        print(
            f"| {r['experiment']} | {s['seed_reproduced']} of {s['seed_claims']} | {s['known_differences']} | "
            f"{s['no_signal']} | {s.get('unstable', 0)} | {s['checks_holding']} of {s['checks']} | "
            f"{s.get('derived', 0)}, {s.get('alternatives', 0)} | {runs(r['scale'])} |"
        )
    print(
        f"| all | {sums['seed_reproduced']} of {sums['seed_claims']} | {sums['known_differences']} | "
        f"{sums['no_signal']} | {sums['unstable']} | {sums['checks_holding']} of {sums['checks']} | "
        f"{sums['derived']}, {sums['alternatives']} | |"
    )


def conditions(paths):
    """Each result's conditions: what the claims use and why, and for an open one the count
    under each reading."""
    print("| experiment | condition | the claims use | source or argument | count under each reading |")
    print("| --- | --- | --- | --- | --- |")
    for p in paths:
        r = load(p)
        s = r["summary"]
        for c in r.get("conditions", []):
            counts = "–"
            if c["open"]:
                counts = f"this reading: {s['seed_reproduced']} of {s['seed_claims']}"
                for label, what in c["others"]:
                    rc = next((x for x in r.get("readings", []) if x["label"] == label), None)
                    if rc is None:
                        counts += f"; {label} ({what}): no claim judged under it"
                    else:
                        counts += (
                            f"; {label} ({what}): {rc['seed_reproduced']} of {rc['seed_claims']} "
                            f"({rc['claims']} claim{'' if rc['claims'] == 1 else 's'} judged again)"
                        )
            row = [r["experiment"], c["name"], c["used"], c["source"], counts]
            print("| " + " | ".join(cell(x) for x in row) + " |")


def values(c):
    vs = c.get("values") or [c["our_value"]]
    return " / ".join(num(v) for v in vs)


def claims(paths):
    print("| experiment | claim | kind | seed's words | seed | ours (each seed) | rule | fails if | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for p in paths:
        r = load(p)
        for c in r["claims"]:
            row = [
                r["experiment"],
                f"{c['id']}: {c['text']}",
                c["kind"].replace("_", " "),
                c.get("source") or "–",
                num(c["seed_value"]) + " " + c["unit"],
                values(c),
                c["tolerance"],
                fails_if(c),
                c["verdict"].replace("_", " "),
            ]
            print("| " + " | ".join(cell(x) for x in row) + " |")


def figure(path, fid):
    """A figure's data as a table: a bar chart's categories or a line chart's x values as rows,
    its series as columns."""
    r = load(path)
    f = next((f for f in r["figures"] if f["id"] == fid), None)
    if f is None:
        raise SystemExit(f"claims_table: {path}: no figure {fid}; expected one of {', '.join(x['id'] for x in r['figures'])}")
    cats = f.get("categories") or []
    xs = []
    for s in f["series"]:
        for x, _ in s["points"]:
            if x not in xs:
                xs.append(x)
    head = f["x_label"] + (f" ({f['y_label']})" if f["y_label"] else "")
    print("| " + " | ".join(cell(x) for x in [head] + [s["name"] for s in f["series"]]) + " |")
    print("| " + " | ".join(["---"] * (1 + len(f["series"]))) + " |")
    for x in xs:
        name = cats[int(x)] if cats else num(x)
        row = [name]
        for s in f["series"]:
            row.append(next((num(y) for px, y in s["points"] if px == x), ""))
        print("| " + " | ".join(cell(v) for v in row) + " |")


def points(path, metrics=None, match=None):
    """One row per point (those whose id matches the regular expression `match`): its id,
    labels and figures (all, or `metrics`: metric names or `SECTION.KEY` counters)."""
    r = load(path)
    rows = r.get("points") or r["runs"]
    if match:
        rows = [p for p in rows if re.search(match, p["id"])]
    labels = []
    for p in rows:
        for k in p["labels"]:
            if k not in labels:
                labels.append(k)
    names = (metrics or list(rows[0]["metrics"])) if rows else []
    print("| " + " | ".join(["point"] + labels + names) + " |")
    print("| " + " | ".join(["---"] * (1 + len(labels) + len(names))) + " |")
    for p in rows:
        lab = p["labels"]
        vals = []
        for m in names:
            v = lookup(p, m)
            vals.append("" if v is None or (isinstance(v, float) and v != v) else (num(v) if isinstance(v, (int, float)) else str(v)))
        print("| " + " | ".join(cell(v) for v in [p["id"]] + [lab.get(k, "") for k in labels] + vals) + " |")


# The sections of an SSD point's result a record keeps (its counters, no time series).
COUNTERS = ["host", "flash", "gc", "interference", "redundancy", "firmware", "placement", "utilisation"]


def counters(p):
    """A point's counters: the small sections of its SSD result, per-die lists left out."""
    ssd = p["result"].get("ssd") if isinstance(p["result"], dict) else None
    if not isinstance(ssd, dict):
        return {}
    out = {}
    for k in COUNTERS:
        v = ssd.get(k)
        if isinstance(v, dict):
            out[k] = {a: b for a, b in v.items() if not isinstance(b, (dict, list)) or a == "victim_valid_percent"}
    return out


def lookup(point, name):
    """A point's figure: a metric, or `SECTION.KEY` of its counters."""
    if "." in name:
        section, key = name.split(".", 1)
        return point.get("counters", {}).get(section, {}).get(key)
    return point["metrics"].get(name)


def record(src, out):
    """The compact record of a full run (see the module's text), written whole or not at all."""
    r = load(src)
    rec = {k: r[k] for k in ("experiment", "title", "seed_document", "summary", "conditions", "readings", "claims", "figures")}
    rec["scale"] = {k: v for k, v in r["scale"].items() if k != "wall_time_s"}
    rec["points"] = [{"id": p["id"], "labels": p["labels"], "metrics": p["metrics"], "counters": counters(p)} for p in r["runs"]]
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rec, f, ensure_ascii=False, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, out)


GENERATED = re.compile(
    r"(<!-- generated: scripts/claims_table\.py (?P<args>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S
)


def run_args(args):
    """This script's output for ARGS (record globs expanded from the project root)."""
    words = args.split()
    expanded = []
    for w in words:
        if not w.endswith(".json"):
            expanded.append(w)
        else:
            hits = sorted(glob.glob(os.path.join(ROOT, w)))
            if not hits:
                raise SystemExit(f"claims_table: {w}: no such record; expected a path from the project root")
            expanded += hits
    buf = io.StringIO()
    with redirect_stdout(buf):
        main(expanded)
    return buf.getvalue()


def docs(check):
    """Regenerate (or with `check` compare) every generated block of the docs."""
    files = sorted(glob.glob(os.path.join(ROOT, "docs", "experiments", "*.md"))) + [os.path.join(ROOT, "README.md")]
    stale = []
    for path in files:
        with open(path) as f:
            text = f.read()

        def fill(m):
            body = run_args(m.group("args"))
            if body != m.group("body"):
                stale.append(f"{os.path.relpath(path, ROOT)}: the block of `{m.group('args')}`")
            return m.group(1) + body + m.group(4)

        new = GENERATED.sub(fill, text)
        if not check and new != text:
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(new)
            os.replace(tmp, path)
    if check and stale:
        for s in stale:
            print(f"claims_table: {s} differs from the committed records (run scripts/claims_table.py --docs)", file=sys.stderr)
        raise SystemExit(1)


def main(args):
    if not args:
        raise SystemExit(__doc__.strip().splitlines()[0])
    if args[0] == "--totals":
        return totals(args[1:])
    if args[0] == "--conditions":
        return conditions(args[1:])
    if args[0] == "--figure":
        if len(args) != 3:
            raise SystemExit("claims_table: --figure takes RESULT ID")
        return figure(args[1], args[2])
    if args[0] == "--points":
        if len(args) not in (2, 3, 4):
            raise SystemExit("claims_table: --points takes RESULT [METRICS [MATCH]]")
        return points(args[1], args[2].split(",") if len(args) >= 3 else None, args[3] if len(args) == 4 else None)
    if args[0] == "--record":
        if len(args) != 3:
            raise SystemExit("claims_table: --record takes RESULT OUT")
        return record(args[1], args[2])
    if args[0] == "--docs":
        return docs(check=args[1:] == ["--check"])
    return claims(args)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:
        # A reader that closed the pipe (`| head`) ends the output quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
