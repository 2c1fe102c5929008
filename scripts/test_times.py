#!/usr/bin/env python3
"""Where the test suite's minutes went: printed by scripts/test.sh when it ends.

    test_times.py STAGES RUST_LOG PYTHON_LOG START [BINARIES]

STAGES has a line `NAME<TAB>SECONDS` per stage that ran; RUST_LOG is `cargo test`'s output
(each test binary's `Running` line and its `test result: ... finished in Xs`), PYTHON_LOG is
pytest's (with `--durations`); START is the suite's start in seconds since the epoch;
BINARIES, cargo's JSON messages of the test build, names each test binary's crate.
Prints the stage table, the total, the test counts and the ten slowest of each kind.
"""

import json
import os
import re
import sys
import time


def stages(path):
    out = []
    with open(path) as f:
        for line in f:
            name, _, secs = line.rstrip("\n").partition("\t")
            if secs:
                out.append((name, int(secs)))
    return out


RUNNING = re.compile(r"^\s+(Running|Doc-tests)\s+(\S+(?: [^\s(]\S*)?)(?:\s+\((.*)\))?$")
RESULT = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; (\d+) filtered out; finished in ([\d.]+)s"
)


def crates(path):
    """{binary file name: "crate target"} from cargo's JSON messages (compiler-artifact)."""
    names = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                exe = m.get("executable") if isinstance(m, dict) else None
                if m.get("reason") == "compiler-artifact" and exe:
                    # `path+file:///…/crates/NAME#VERSION` or `registry+…#NAME@VERSION`
                    url, _, tail = m["package_id"].partition("#")
                    pkg = tail.split("@")[0] if "@" in tail else url.rstrip("/").rsplit("/", 1)[-1]
                    names[os.path.basename(exe)] = f"{pkg} {m['target']['name']}"
    except OSError:
        pass
    return names


def rust(path, names=None):
    """[(binary, passed, failed, ignored, seconds)] in the order cargo ran them."""
    names = names or {}
    out, current = [], None
    with open(path, errors="replace") as f:
        for line in f:
            m = RUNNING.match(line)
            if m:
                if m.group(1) == "Doc-tests":
                    current = "doc-tests " + m.group(2)
                else:
                    # `unittests src/lib.rs (target/ci-test/deps/ssdlab_core-HASH)`: the crate
                    # from the binary's name; an integration test's path names itself.
                    exe = (m.group(3) or "").rsplit("/", 1)[-1]
                    binary = names.get(exe) or re.sub(r"-[0-9a-f]+$", "", exe)
                    current = m.group(2) + (f" [{binary}]" if binary else "")
                continue
            m = RESULT.match(line)
            if m and current is not None:
                out.append((current, int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(5))))
                current = None
    return out


def python(path):
    """(summary line, [slowest duration lines])"""
    summary, slow, in_slow = "", [], False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if "slowest" in line and "durations" in line:
                in_slow = True
                continue
            if in_slow:
                if re.match(r"^[\d.]+s (call|setup|teardown)", line):
                    slow.append(line)
                    continue
                if slow:
                    in_slow = False
            if re.search(r"\d+ (passed|failed)", line) and " in " in line:
                summary = line.strip("= ")
    return summary, slow


def fmt(secs):
    return f"{secs // 60:d} min {secs % 60:02d} s"


def main(argv):
    times, rust_log, py_log, start = argv[1], argv[2], argv[3], int(argv[4])
    rows = stages(times)
    print("test.sh: wall time by stage")
    print("| stage | seconds | |")
    print("|---|---:|---|")
    for name, secs in rows:
        print(f"| {name} | {secs} | {fmt(secs)} |")
    total = int(time.time()) - start
    print(f"| total (to the end of the suite) | {total} | {fmt(total)} |")
    bins = rust(rust_log, crates(argv[5]) if len(argv) > 5 else None)
    if bins:
        passed = sum(b[1] for b in bins)
        failed = sum(b[2] for b in bins)
        ignored = sum(b[3] for b in bins)
        print(f"test.sh: Rust: {passed} passed, {failed} failed, {ignored} ignored in {len(bins)} test binaries")
        print("test.sh: the ten slowest Rust test binaries (seconds running, as cargo reports them)")
        for name, p, _f, _i, secs in sorted(bins, key=lambda b: -b[4])[:10]:
            print(f"  {secs:8.2f} s  {p:4d} tests  {name}")
    summary, slow = python(py_log)
    if summary:
        print(f"test.sh: Python: {summary}")
    if slow:
        print("test.sh: the ten slowest Python tests (pytest --durations)")
        for line in slow[:10]:
            print("  " + line)


if __name__ == "__main__":
    main(sys.argv)
