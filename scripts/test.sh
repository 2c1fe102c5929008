#!/usr/bin/env bash
# The test suite: the layers' import check, the Rust tests (with the nbdkit plugin they serve
# through), the fuzz targets for a bounded time, then the Python wheel built from this tree,
# installed and tested against the `ssdlab` command the Rust tests built, in a virtual
# environment of its own. Every stage is timed; the table is printed when the suite ends.
#
#   scripts/test.sh           the whole suite (what .ci/run runs)
#   scripts/test.sh --fast    the inner loop: formatting, the import check and the Rust tests
#                             of the crates with uncommitted changes, their slowest modules
#                             left to the whole suite (docs/testing.md)
set -euo pipefail
cd "$(dirname "$0")/.."
FAST=0
case "${1:-}" in
  "") ;;
  --fast) FAST=1 ;;
  *) echo "test.sh: $1: unknown option; expected no option or --fast" >&2; exit 2 ;;
esac
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
RUSTLOG="$PWD/target/rust-tests.log"
PYLOG="$PWD/target/python-tests.log"
BINARIES="$PWD/target/test-binaries.json"
: > "$TIMES"; : > "$RUSTLOG"; : > "$PYLOG"; : > "$BINARIES"
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
  python3 scripts/test_times.py "$TIMES" "$RUSTLOG" "$PYLOG" "${SSDLAB_CI_START:-$suite_start}" "$BINARIES" >&2 || true
}
trap 'timings; report' EXIT

if [ "$FAST" = 1 ]; then
  cargo fmt --all -- --check
  python3 scripts/import_loops.py
  stage "formatting and import check"
  # The crates a change touches: uncommitted changes (tracked or new) under crates/NAME/.
  crates=$( (git diff --name-only HEAD; git ls-files --others --exclude-standard) \
    | sed -n 's|^crates/\([^/]*\)/.*|\1|p' | sort -u)
  if [ -z "$crates" ]; then
    echo "test.sh --fast: no crate has uncommitted changes; formatting and imports checked" >&2
    exit 0
  fi
  for c in $crates; do
    # The slowest modules (minutes each) are the whole suite's: validation's simulations,
    # the experiments' quick runs, every command of the docs.
    case "$c" in
      ssdlab-core) skip=(--skip validation:: --skip separation:: --skip gc_progress::) ;;
      ssdlab-lab) skip=(--skip experiment_split:: --skip rodi_presets::) ;;
      ssdlab) skip=(--skip docs:: --skip experiment:: --skip serve::) ;;
      ssdlab-nbd|ssdlab-py|ssdlab-buildhash) echo "test.sh --fast: $c has no Rust tests of its own; building it" >&2
        cargo build --profile ci-test -p "$c"; continue ;;
      *) skip=() ;;
    esac
    echo "test.sh --fast: cargo test -p $c -- ${skip[*]}" >&2
    cargo test --profile ci-test -p "$c" -- "${skip[@]}" 2>&1 | tee -a "$RUSTLOG"
  done
  stage "Rust tests of the changed crates"
  exit 0
fi

# The Python side: a virtual environment of its own (target/py-venv) that sees the packages
# the system already has and installs only the missing ones into itself, and the wheel a user
# installs without Rust (abi3, the release build without debug information, stripped;
# python/pyproject.toml), built into target/wheels, installed, then the Python tests. The
# fuzz targets are built and run too. Both run while the Rust tests do: the machine's cores
# are busy from the build to the end (docs/testing.md, "Where the suite's time goes").
PY=${PYTHON:-python3}
VENV="$PWD/target/py-venv"
VPY="$VENV/bin/python"
py_setup() {
  [ -x "$VPY" ] || "$PY" -m venv --system-site-packages "$VENV"
  local missing=() m
  for m in pytest:pytest pandas:pandas numpy:numpy matplotlib:matplotlib ray:ray tqdm:tqdm fio_plot:fio-plot==1.1.21; do
    "$VPY" -c "import ${m%%:*}" 2>/dev/null || missing+=("${m##*:}")
  done
  # maturin runs as a program: the venv's own, installed there even when the system has one.
  [ -x "$VENV/bin/maturin" ] || missing+=("maturin>=1.5,<2")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "test.sh: installing ${missing[*]} with pip into $VENV"
    # --no-warn-conflicts: the system's own packages (seen through --system-site-packages) may
    # pin versions of what is installed here for the venv alone; pip would print an ERROR line
    # about a conflict that is not the venv's. --no-compile: Python compiles what the tests
    # import when they import it, not the whole of every package (half of pip's time here).
    "$VPY" -m pip install --quiet --no-warn-conflicts --no-compile --ignore-installed "${missing[@]}"
  fi
  rm -rf target/wheels
  (cd python && "$VENV/bin/maturin" build --quiet --out ../target/wheels)
}
# The Python chain, beside the Rust tests: venv and wheel, the wheel installed, the tests
# (against the `ssdlab` command the Rust build made). Each part's time goes to the table.
python_chain() {
  local t0; t0=$(date +%s)
  py_setup
  "$VPY" -m pip install --quiet --force-reinstall --no-deps target/wheels/ssdlab-*.whl
  echo "Python venv, release wheel, wheel installed (beside the Rust tests)	$(( $(date +%s) - t0 ))" >> "$TIMES"
  t0=$(date +%s)
  local rc=0
  PATH="$VENV/bin:$PATH" SSDLAB_CLI="$PWD/target/ci-test/ssdlab" "$VPY" -m pytest -q -rs -p no:cacheprovider \
    --durations=10 python/tests > "$PYLOG" 2>&1 || rc=$?
  echo "Python tests (beside the Rust tests)	$(( $(date +%s) - t0 ))" >> "$TIMES"
  return $rc
}
# The fuzz targets of snapshot loading and output paths (scripts/fuzz.sh: FUZZ_SECONDS, 45 s
# by default, each at once; FUZZ_SECONDS=0 leaves them out), built then run beside the Rust
# tests: the bound is each target's wall time, so sharing the cores costs the tests about half
# of it where running after them would add all of it.
FUZZ=$([ "${FUZZ_SECONDS:-45}" = 0 ] && echo 0 || echo 1)
fuzz_chain() {
  [ "$FUZZ" = 1 ] || return 0
  local t0; t0=$(date +%s)
  FUZZ_BUILD_ONLY=1 scripts/fuzz.sh
  echo "fuzz targets' build (beside the Rust tests)	$(( $(date +%s) - t0 ))" >> "$TIMES"
  t0=$(date +%s)
  FUZZ_RUN_ONLY=1 scripts/fuzz.sh
  echo "fuzz, two targets at once (beside the Rust tests)	$(( $(date +%s) - t0 ))" >> "$TIMES"
}

# The layers: no crate's modules import each other in a loop (ARCHITECTURE.md).
python3 scripts/import_loops.py --self-test
python3 scripts/import_loops.py
stage "import check"
# Every test binary and the nbdkit plugin behind `ssdlab serve` (a library nothing links,
# built for its tests) in one build, so they share one build of the engine; listed as cargo's
# JSON so the timing table can name each binary's crate.
cargo build --profile ci-test --workspace --exclude ssdlab-py --all-targets \
  --message-format=json-render-diagnostics > "$BINARIES"
stage "Rust build"
# The experiments' quick runs the tests share (tests/integration/common.rs, python/tests/
# conftest.py): run once, into a fresh folder, by the first test that reads one (Rust or
# Python: a lock file beside each makes the other wait for it).
export SSDLAB_QUICK_DIR="$PWD/target/tmp/quick"
rm -rf "$SSDLAB_QUICK_DIR"
python_chain > target/python-chain.log 2>&1 &
python_pid=$!
fuzz_chain > target/fuzz-chain.log 2>&1 &
fuzz_pid=$!
rust_rc=0
cargo test --profile ci-test --workspace 2>&1 | tee "$RUSTLOG" || rust_rc=$?
stage "Rust tests"
failed=0
if ! wait "$python_pid"; then failed=1; fi
cat target/python-chain.log "$PYLOG" >&2
if [ "$failed" = 1 ]; then
  echo "test.sh: the Python setup, the wheel or the Python tests failed (their log is above)" >&2
fi
if ! wait "$fuzz_pid"; then
  cat target/fuzz-chain.log >&2
  echo "test.sh: the fuzz targets' build or run failed (its log is above)" >&2
  failed=1
else
  cat target/fuzz-chain.log >&2
fi
stage "waiting for the Python tests and the fuzz targets"
[ "$rust_rc" = 0 ] && [ "$failed" = 0 ]
