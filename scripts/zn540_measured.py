#!/usr/bin/env python3
"""The ZN540's measured figures, computed from the public NVMeBenchmarks data set
(stonet-research/NVMeBenchmarks, MIT; the subset at ../shared/nvmebenchmarks/, see its
MANIFEST.md), written as data/zn540/measured.csv: one row per measured point, each with the
file it was computed from, so that comparing with the drive needs no copy of the data set.

    scripts/zn540_measured.py [DATA_DIR]           write data/zn540/measured.csv
    scripts/zn540_measured.py --check [DATA_DIR]   exit 1 if the committed file differs

Rows: `fio` points (the SPDK and io_uring JSON results: bandwidth summed over the jobs,
IOPS summed, mean completion latency the mean of the jobs' means) and `op` points (the
per-operation latency files of data/custom: mean and count of each operation at each
occupancy, in ns as measured).
"""
import csv
import io
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "data", "zn540", "measured.csv")
FIELDS = ["kind", "engine", "op", "bs", "zones", "qd", "lbas", "mib_s", "iops", "lat_mean_us", "n", "source"]


def fio_json(path):
    """A fio JSON result's jobs; fio prints its errors before the JSON (a run that failed,
    such as an I/O error, is left out: None)."""
    text = open(path, errors="replace").read()
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]["jobs"]
    except (ValueError, KeyError):
        return None


def fio_rows(data):
    rows = []
    for engine in ("spdk", "io_uring"):
        base = os.path.join(data, engine, "zns-a", "lbaf2")
        if not os.path.isdir(base):
            continue
        for op in sorted(os.listdir(base)):
            for bsdir in sorted(os.listdir(os.path.join(base, op))):
                for zdir in sorted(os.listdir(os.path.join(base, op, bsdir))):
                    d = os.path.join(base, op, bsdir, zdir)
                    for f in sorted(os.listdir(d)):
                        if not f.endswith(".json"):
                            continue
                        jobs = fio_json(os.path.join(d, f))
                        if jobs is None:
                            continue
                        ddir = "read" if "read" in op else "write"
                        bw = sum(j[ddir]["bw_bytes"] for j in jobs) / 2**20
                        iops = sum(j[ddir]["iops"] for j in jobs)
                        lats = [j[ddir]["lat_ns"]["mean"] for j in jobs if j[ddir]["total_ios"]]
                        lat = sum(lats) / len(lats) / 1000 if lats else 0.0
                        rows.append({
                            "kind": "fio", "engine": engine, "op": op, "bs": int(bsdir[:-2]),
                            "zones": int(zdir[:-4]), "qd": int(f[:-5]), "lbas": "",
                            "mib_s": f"{bw:.1f}", "iops": f"{iops:.0f}", "lat_mean_us": f"{lat:.2f}",
                            "n": len(jobs),
                            "source": os.path.relpath(os.path.join(d, f), os.path.join(data, "..")),
                        })
    return rows


def op_rows(data):
    rows = []
    base = os.path.join(data, "custom", "zns-a")
    for test in sorted(os.listdir(base)):
        for f in sorted(os.listdir(os.path.join(base, test))):
            path = os.path.join(base, test, f)
            acc = {}
            for line in open(path, errors="replace"):
                name, _, value = line.strip().rpartition(",")
                if not name or not value.isdigit():
                    continue
                op, _, lbas = name.rpartition("_")
                if not lbas.isdigit():
                    op, lbas = name, ""
                s = acc.setdefault((op, lbas), [0, 0])
                s[0] += int(value)
                s[1] += 1
            for (op, lbas), (total, n) in acc.items():
                rows.append({
                    "kind": "op", "engine": "spdk", "op": f"{test}/{op}", "bs": "", "zones": "", "qd": "",
                    "lbas": lbas, "mib_s": "", "iops": "", "lat_mean_us": f"{total / n / 1000:.3f}", "n": n,
                    "source": os.path.relpath(path, os.path.join(data, "..")),
                })
    return rows


def render(data):
    out = io.StringIO()
    w = csv.DictWriter(out, FIELDS, lineterminator="\n")
    w.writeheader()
    for r in fio_rows(data) + op_rows(data):
        w.writerow(r)
    return out.getvalue()


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    data = args[0] if args else os.path.join(ROOT, "..", "shared", "nvmebenchmarks", "data")
    if not os.path.isdir(data):
        print(f"zn540_measured.py: {data}: not there; expected the NVMeBenchmarks data folder", file=sys.stderr)
        return 2
    text = render(data)
    if check:
        same = os.path.exists(OUT) and open(OUT).read() == text
        if not same:
            print(f"zn540_measured.py: {OUT} is not what {data} gives; write it again", file=sys.stderr)
        return 0 if same else 1
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, OUT)
    print(f"{OUT}: {text.count(chr(10)) - 1} rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
