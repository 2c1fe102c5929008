#!/usr/bin/env python3
"""Compare the output of two ssdlab builds: byte-identical JSON, wall-clock fields aside.

    scripts/compare_builds.py OLD_BINARY NEW_BINARY [--shared ../shared] [--skip-experiments]

Runs both binaries on the same cases and compares their JSON after dropping the fields that
measure the machine rather than the simulation (wall time, requests per wall second, fio's
time stamps):
  - the default run (`ssdlab run`),
  - every preset's default job (`ssdlab run PRESET`),
  - the probes in SHARED/tools/probes (`ssdlab run FILE`),
  - the example arrays (examples/raid0-sata.toml, examples/rodi-sata.toml),
  - every experiment's `--quick` result.json (fresh, its default seeds and threads).
With --keep DIR a binary's outputs are computed once and read back on later comparisons;
--ignore KEY leaves out keys that one build adds on purpose.
Prints one line per case and a summary; exits 1 when any case differs or fails.
"""
import argparse
import json
import os
import subprocess
import sys
import hashlib
import tempfile

WALL = {"wall_time_s", "sim_requests_per_wall_s", "time", "timestamp", "timestamp_ms"}
# Keys left out on request (--ignore): what one of the builds added on purpose.
IGNORED = set()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip(x, keys=WALL):
    if isinstance(x, dict):
        return {k: strip(v, keys) for k, v in x.items() if k not in keys}
    if isinstance(x, list):
        return [strip(v, keys) for v in x]
    return x


def canonical(text):
    return json.dumps(strip(json.loads(text)), sort_keys=True)


def run_json(binary, args, cwd):
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    return canonical(p.stdout)


def experiment_json(binary, name, cwd, tmp, tag):
    out = os.path.join(tmp, f"{tag}-{name}")
    p = subprocess.run(
        [binary, "experiment", name, "--quick", "--fresh", "--quiet", "--out", out],
        cwd=cwd, capture_output=True, text=True)
    # An experiment whose claims miss exits 0 as well; anything else is a failure.
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    with open(os.path.join(out, "result.json")) as f:
        return canonical(f.read())


def presets(binary):
    p = subprocess.run([binary, "config", "list"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare_builds: `{binary} config list` failed: {p.stderr.strip()}")
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def experiments(binary):
    p = subprocess.run([binary, "experiment", "list"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare_builds: `{binary} experiment list` failed: {p.stderr.strip()}")
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--skip-experiments", action="store_true")
    ap.add_argument("--ignore", action="append", default=[], metavar="KEY",
                    help="leave out every key of this name, at any depth (repeatable): what one "
                         "build adds on purpose, e.g. --ignore 'fio version'")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep each binary's canonical outputs in DIR, keyed by the binary's "
                         "SHA-256, and take them from there on the next comparison")
    a = ap.parse_args()
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    IGNORED.update(a.ignore)
    cases = [("default run", ["run", "--output-format", "json"])]
    for name in presets(new):
        cases.append((f"preset {name}", ["run", name, "--output-format", "json"]))
    probes = os.path.join(a.shared, "tools", "probes")
    if os.path.isdir(probes):
        for f in sorted(os.listdir(probes)):
            if f.endswith(".toml"):
                cases.append((f"probe {f}", ["run", os.path.join(probes, f), "--output-format", "json"]))
    else:
        print(f"compare_builds: no probes at {probes}; skipped", file=sys.stderr)
    for f in ("raid0-sata.toml", "rodi-sata.toml"):
        cases.append((f"array {f}", ["run", os.path.join("examples", f), "--output-format", "json"]))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="ssdlab-compare-") as tmp:
        jobs = [(label, lambda b, args=args: run_json(b, args, ROOT)) for label, args in cases]
        if not a.skip_experiments:
            for name in experiments(new):
                jobs.append((f"experiment {name} --quick",
                             lambda b, n=name: experiment_json(
                                 b, n, ROOT, tmp, "old" if b == old else "new")))
        digests = {}

        def kept(binary, label, fn):
            if not a.keep:
                return fn(binary)
            if binary not in digests:
                with open(binary, "rb") as f:
                    digests[binary] = hashlib.sha256(f.read()).hexdigest()[:16]
            digest = digests[binary]
            name = hashlib.sha256(label.encode()).hexdigest()[:16]
            path = os.path.join(a.keep, digest, name + ".json")
            if os.path.exists(path):
                with open(path) as f:
                    return f.read()
            text = fn(binary)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".part", "w") as f:
                f.write(text)
            os.replace(path + ".part", path)
            return text

        for label, fn in jobs:
            try:
                x, y = kept(old, label, fn), kept(new, label, fn)
                if IGNORED:
                    x, y = (json.dumps(strip(json.loads(t), IGNORED), sort_keys=True) for t in (x, y))
                same = x == y
                print(f"{'same' if same else 'DIFFERS':8} {label} ({len(y)} bytes)", flush=True)
                bad += not same
            except RuntimeError as e:
                print(f"{'FAILED':8} {label}: {e}", flush=True)
                bad += 1
        print(f"{len(jobs) - bad} of {len(jobs)} cases byte-identical (wall-clock fields aside)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
