#!/usr/bin/env bash
# The test suite: the layers' import check, the Rust tests (with the nbdkit plugin they serve
# through), then the Python wheel built from this tree, installed and tested against the
# `ssdlab` command the Rust tests built, in a virtual environment of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tests that need what this machine lacks fail under CI and are skipped elsewhere; each skip
# is recorded here (ssdlab_core::skip) and listed when the suite ends, with what would run it.
mkdir -p target
SKIPPED="$PWD/target/skipped-tests.txt"
: > "$SKIPPED"
export SSDLAB_SKIPPED="$SKIPPED"
# The public traces the tests replay are read from the traces folder (ssdlab traces fetch
# fills it); beside the clone, ../shared/traces holds them, so no network is needed.
if [ -z "${SSDLAB_TRACES:-}" ] && [ -d ../shared/traces ]; then
  SSDLAB_TRACES="$(cd ../shared/traces && pwd)"
  export SSDLAB_TRACES
fi
missing_tools=$(scripts/system-deps.sh)
[ -z "$missing_tools" ] || echo "test.sh: $missing_tools; the tests that need them are skipped" >&2
report() {
  if [ -s "$SKIPPED" ]; then
    echo "test.sh: $(wc -l < "$SKIPPED") Rust test(s) skipped (they fail under CI):" >&2
    sort -u "$SKIPPED" | sed 's/^/  /' >&2
  fi
  [ -z "$missing_tools" ] || echo "test.sh: $missing_tools" >&2
}
# Each stage's wall time, and where the Rust tests' and Python tests' minutes went, are printed
# when the suite ends (pass or fail), so every CI log shows them (docs/testing.md keeps figures).
TIMES="$PWD/target/stage-times.txt"
: > "$TIMES"
RUSTLOG="$PWD/target/rust-tests.log"
PYLOG="$PWD/target/python-tests.log"
: > "$RUSTLOG"; : > "$PYLOG"
stage_start=$(date +%s)
suite_start=$stage_start
# .ci/run passes the time it started, so its toolchain and system-package step is counted too.
if [ -n "${SSDLAB_CI_START:-}" ]; then
  echo "toolchain and system packages	$((suite_start - SSDLAB_CI_START))" >> "$TIMES"
fi
stage() { # stage NAME: the time since the previous stage ended is NAME's
  local now; now=$(date +%s)
  echo "$1	$((now - stage_start))" >> "$TIMES"
  stage_start=$now
}
timings() {
  python3 scripts/test_times.py "$TIMES" "$RUSTLOG" "$PYLOG" "${SSDLAB_CI_START:-$suite_start}" >&2 || true
}
trap 'timings; report' EXIT
# The layers: no crate's modules import each other in a loop (ARCHITECTURE.md).
python3 scripts/import_loops.py --self-test
python3 scripts/import_loops.py
stage "import check"
# The nbdkit plugin behind `ssdlab serve` is a library nothing links: built for its tests.
cargo build --profile ci-test -p ssdlab-nbd
cargo test --profile ci-test --workspace --no-run
stage "Rust build"
cargo test --profile ci-test --workspace 2>&1 | tee "$RUSTLOG"
stage "Rust tests"
# The fuzz targets of snapshot loading and output paths, with libFuzzer for a bounded time each
# (scripts/fuzz.sh; FUZZ_SECONDS sets it, 45 s by default; FUZZ_SECONDS=0 skips them).
[ "${FUZZ_SECONDS:-45}" = 0 ] || scripts/fuzz.sh
stage "fuzz"
PY=${PYTHON:-python3}
# The Python side runs in a virtual environment of its own (target/py-venv): it sees the
# packages the system already has and installs only the missing ones into itself.
VENV="$PWD/target/py-venv"
[ -x "$VENV/bin/python" ] || "$PY" -m venv --system-site-packages "$VENV"
VPY="$VENV/bin/python"
missing=()
for m in pytest:pytest pandas:pandas numpy:numpy matplotlib:matplotlib ray:ray tqdm:tqdm fio_plot:fio-plot==1.1.21; do
  "$VPY" -c "import ${m%%:*}" 2>/dev/null || missing+=("${m##*:}")
done
# maturin runs as a program: the venv's own, installed there even when the system has one.
[ -x "$VENV/bin/maturin" ] || missing+=("maturin>=1.5,<2")
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]} with pip into $VENV" >&2
  # --no-warn-conflicts: the system's own packages (seen through --system-site-packages) may
  # pin versions of what is installed here for the venv alone; pip would print an ERROR line
  # about a conflict that is not the venv's.
  "$VPY" -m pip install --quiet --no-warn-conflicts --ignore-installed "${missing[@]}"
fi
# The wheel a user installs without Rust (abi3, the release build without debug information,
# stripped; python/pyproject.toml), built into target/wheels and installed from there.
rm -rf target/wheels
(cd python && "$VENV/bin/maturin" build --quiet --out ../target/wheels)
"$VPY" -m pip install --quiet --force-reinstall --no-deps target/wheels/ssdlab-*.whl
stage "Python venv and wheel"
PATH="$VENV/bin:$PATH" SSDLAB_CLI="$PWD/target/ci-test/ssdlab" "$VPY" -m pytest -q -rs -p no:cacheprovider \
  --durations=10 python/tests 2>&1 | tee "$PYLOG"
stage "Python tests"
