#!/usr/bin/env bash
# Install ssdlab: the command (`cargo install --path crates/ssdlab`, in ROOT/bin) and the nbdkit
# plugin that `ssdlab serve` loads (built in release, in ROOT/lib/ssdlab, where serve looks).
# Usage: scripts/install.sh [--root ROOT]
#   ROOT: cargo's install root by default ($CARGO_INSTALL_ROOT, else $CARGO_HOME, else ~/.cargo).
set -euo pipefail
root="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}"
while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "install.sh: --root: missing; expected --root ROOT" >&2; exit 2; }
            root="$2"; shift 2 ;;
    --root=*) root="${1#--root=}"; shift ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "install.sh: $1: unknown argument; expected --root ROOT" >&2; exit 2 ;;
  esac
done
# A relative ROOT is the caller's, not the source tree's.
root="$(realpath -m -- "$root")"
cd "$(dirname "$0")/.."
cargo install --locked --path crates/ssdlab --root "$root"
cargo build --locked --release -p ssdlab-nbd
plugin="${CARGO_TARGET_DIR:-target}/release/libssdlab_nbd.so"
dir="$root/lib/ssdlab"
mkdir -p "$dir"
# Copied beside, then renamed: a server starting meanwhile never loads half a plugin.
cp -- "$plugin" "$dir/.libssdlab_nbd.so.new"
mv -f -- "$dir/.libssdlab_nbd.so.new" "$dir/libssdlab_nbd.so"
echo "install.sh: ssdlab in $root/bin, the plugin of ssdlab serve in $dir"
