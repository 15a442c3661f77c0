"""``atomic_write``: write a file so that readers see either the old file or the new one.

The new content goes to a temporary file in the destination's folder (same filesystem, so
the final rename is atomic), is flushed and fsync'ed, then replaces the destination with
``os.replace``. If anything fails midway, the temporary file is removed and the previous
file, if any, is left untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator:
    """Open a binary temporary file beside ``path``; on success it atomically becomes ``path``.

    Raises:
        FileNotFoundError: the destination's folder does not exist.
        OSError: the folder is not writable, or the disk is full (``path`` is unchanged).
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {path}: the folder {folder} does not exist "
                                "(create it first)")
    descriptor, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                             dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            # mkstemp makes the file private (0600); give it the mode a plain open() would.
            os.chmod(temp_name, _mode_for(path))
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_folder(folder)


def _mode_for(path: Path) -> int:
    """The destination's current permissions, else those a new file gets under the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_UMASK


def _read_umask() -> int:
    # The umask can only be read by setting it; done once, at import, before any thread runs.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (a no-op where folders cannot be opened, e.g. Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
