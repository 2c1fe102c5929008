#!/usr/bin/env bash
# Runs fuzz targets of fuzz/ with libFuzzer for a bounded time each, on the stable toolchain
# (libFuzzer's coverage instrumentation through stable rustc flags, as cargo-fuzz passes them
# with `--sanitizer none`; no nightly, no cargo-fuzz). A crash, a leak of a panic or a timeout
# fails the script and leaves the input that caused it in target/fuzz/TARGET/artifacts/.
#   scripts/fuzz.sh                      the targets CI runs (snapshot, output_path), 45 s each
#   scripts/fuzz.sh msr detect           other targets (docs/testing.md lists them)
#   FUZZ_SECONDS=600 scripts/fuzz.sh     longer
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(snapshot output_path)
seconds=${FUZZ_SECONDS:-45}
[ "$seconds" -gt 0 ] 2>/dev/null || { echo "fuzz.sh: FUZZ_SECONDS: $seconds is not a number of seconds; expected a whole number above 0" >&2; exit 2; }
triple=$(rustc -vV | sed -n 's/^host: //p')
# The flags cargo-fuzz gives rustc for libFuzzer's coverage (its `--sanitizer none` mode);
# with --target they reach the targets and their dependencies but not the build scripts.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
# fuzz/ is a crate of its own (not a workspace member), with its own lock file.
# FUZZ_BUILD_ONLY=1 builds and stops; FUZZ_RUN_ONLY=1 runs what is built (scripts/test.sh
# builds while other tests run).
[ -n "${FUZZ_RUN_ONLY:-}" ] || (cd fuzz && cargo build --locked --release --target "$triple" "${bins[@]}")
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
root="$PWD/target/fuzz"
# The targets run at once, one process each (libFuzzer uses one core): the bound is the
# time, so the step takes FUZZ_SECONDS however many targets there are (on as many cores).
pids=()
for t in "${targets[@]}"; do
  # A fresh corpus each time: the bound is the time, the start the same.
  rm -rf "$root/$t"
  mkdir -p "$root/$t/corpus" "$root/$t/artifacts"
  echo "fuzz.sh: $t for ${seconds} s" >&2
  # -seed fixes the generator's start; with a time bound the number of runs still varies.
  "fuzz/target/$triple/release/$t" "$root/$t/corpus" -seed=1 -max_total_time="$seconds" \
    -rss_limit_mb=4096 -timeout=60 -artifact_prefix="$root/$t/artifacts/" > "$root/$t/log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  if ! wait "${pids[$i]}"; then
    tail -n 40 "$root/$t/log" >&2
    echo "fuzz.sh: $t failed; the input is in $root/$t/artifacts/, the log in $root/$t/log" >&2
    failed=1
    continue
  fi
  grep -E '^Done' "$root/$t/log" | sed "s/^/fuzz.sh: $t: /" >&2
done
exit $failed
