"""Files written whole or not at all, as the command writes them: into a temporary beside
the target, synced and renamed over it; on any error the temporary is removed."""

import os
import tempfile


def write_text(path, text):
    """Write ``text`` to ``path`` whole (nothing at ``path`` until it is complete)."""
    path = os.fspath(path)
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
