#!/usr/bin/env bash
# The system tools some tests drive, by the distribution package that provides each:
#   scripts/system-deps.sh            lists the missing ones and the command that installs them
#   scripts/system-deps.sh --install  installs them (apt-get; as root, or through sudo)
# Without them those tests fail under CI and are skipped and listed elsewhere (scripts/test.sh).
set -euo pipefail
# tool:package. fio (and its fio_jsonplus_clat2csv) for the fio-compatibility tests; nbdkit,
# nbdcopy/nbdinfo/nbdfuse, qemu-io, fusermount3, mkfs.ext4/debugfs/e2fsck for `ssdlab serve`'s;
# a C and C++ compiler for the decompression crates and libFuzzer (scripts/fuzz.sh); python3 with venv for the Python package's.
TOOLS="cc:build-essential c++:build-essential fio:fio nbdkit:nbdkit nbdcopy:libnbd-bin nbdinfo:libnbd-bin nbdfuse:libnbd-bin
qemu-io:qemu-utils fusermount3:fuse3 mkfs.ext4:e2fsprogs debugfs:e2fsprogs e2fsck:e2fsprogs"
need=()
for t in $TOOLS; do
  command -v "${t%%:*}" >/dev/null 2>&1 || need+=("${t##*:}")
done
if ! command -v python3 >/dev/null 2>&1; then
  need+=(python3 python3-venv python3-dev)
else
  python3 -c "import ensurepip" 2>/dev/null || need+=(python3-venv)
  python3 -c "import sysconfig, os; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null || need+=(python3-dev)
fi
[ ${#need[@]} -eq 0 ] && exit 0
pkgs=$(printf '%s\n' "${need[@]}" | sort -u | tr '\n' ' ')
if [ "${1:-}" != "--install" ]; then
  echo "missing system packages: ${pkgs}(install: scripts/system-deps.sh --install, or apt-get install -y ${pkgs% })"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs
