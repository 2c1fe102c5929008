#!/usr/bin/env bash
# The test suite: the Rust tests (with the nbdkit plugin they serve through), then the Python package built from this tree, installed and
# tested against the `ssdlab` command the Rust tests built. Python packages the tests need
# and that are missing are installed with pip first.
set -euo pipefail
cd "$(dirname "$0")/.."
# The layers: no crate's modules import each other in a loop (ARCHITECTURE.md).
python3 scripts/import_loops.py --self-test
python3 scripts/import_loops.py
# The nbdkit plugin behind `ssdlab serve` is a library nothing links: built for its tests.
cargo build --profile ci-test -p ssdlab-nbd
cargo test --profile ci-test --workspace
PY=${PYTHON:-python3}
missing=()
for m in maturin:maturin pytest:pytest pandas:pandas numpy:numpy matplotlib:matplotlib ray:ray tqdm:tqdm fio_plot:fio-plot==1.1.21; do
  "$PY" -c "import ${m%%:*}" 2>/dev/null || missing+=("${m##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]} with pip" >&2
  "$PY" -m pip install --quiet "${missing[@]}"
fi
"$PY" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps ./python
SSDLAB_CLI="$PWD/target/ci-test/ssdlab" "$PY" -m pytest -q -p no:cacheprovider python/tests
