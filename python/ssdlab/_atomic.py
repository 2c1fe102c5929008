"""Files written whole or not at all, as the command writes them: into a temporary beside
the target, synced and renamed over it; on any error the temporary is removed. A target that
exists and is not a regular file (a device such as /dev/null, a pipe) is written in place, and
a symbolic link keeps pointing at its file, which is what gets replaced."""

import os
import stat
import tempfile


def write_text(path, text):
    """Write ``text`` to ``path`` whole (nothing at ``path`` until it is complete)."""
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        with open(path, "w") as f:
            f.write(text)
        return
    if os.path.islink(path):
        path = os.path.realpath(path)
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private; give it what a newly created file gets.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
