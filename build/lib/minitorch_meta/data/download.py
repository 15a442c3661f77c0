"""Download dataset files from a list of mirrors, verifying each file's MD5.

Each file is fetched with ``urllib`` from the first mirror that serves it with the right
checksum; a mirror that is down, answers with an HTTP error or serves different bytes is
skipped for the next one. Bytes go to a temporary file beside the destination, which is
renamed into place only once its MD5 matches, so a half-downloaded file is never mistaken
for a good one.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from ..utils.atomic import atomic_write

_CHUNK = 1 << 20


class DownloadError(RuntimeError):
    """No mirror delivered a file with the expected checksum; the message says what to do."""


def file_md5(path: str | os.PathLike) -> str:
    """The hexadecimal MD5 digest of a file's bytes."""
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_file(filename: str, md5: str, folder: str | os.PathLike, mirrors: Sequence[str],
                  timeout: float = 30.0, hint: str = "") -> Path:
    """Fetch ``filename`` into ``folder`` from the first mirror giving the right MD5.

    A file already in ``folder`` with the right MD5 is kept without any network access.

    Args:
        filename: the file's name, appended to each mirror's base URL.
        md5: its expected hexadecimal MD5.
        folder: where to put it (created if missing).
        mirrors: base URLs tried in order (``"https://host/path/"``).
        timeout: seconds to wait for each connection or read.
        hint: what the user can do instead, added to the error when every mirror fails.

    Raises:
        DownloadError: every mirror failed; the message lists each failure and the hint.
    """
    folder = Path(folder)
    target = folder / filename
    if target.is_file() and file_md5(target) == md5:
        return target
    if not mirrors:
        raise DownloadError(f"cannot download {filename}: no mirrors given. {hint}".strip())
    folder.mkdir(parents=True, exist_ok=True)
    failures = []
    for mirror in mirrors:
        url = mirror.rstrip("/") + "/" + filename
        try:
            _fetch(url, target, md5, timeout)
            return target
        except (OSError, ValueError, http.client.HTTPException) as error:
            failures.append(f"  {url}: {_describe(error)}")
    raise DownloadError(f"could not download {filename} from any of {len(mirrors)} mirror(s):\n"
                        + "\n".join(failures) + (f"\n{hint}" if hint else ""))


def _fetch(url: str, target: Path, md5: str, timeout: float) -> None:
    """Stream ``url`` into ``target`` atomically; raise ValueError on a checksum mismatch."""
    digest = hashlib.md5(usedforsecurity=False)
    with contextlib.ExitStack() as stack:
        response = stack.enter_context(urllib.request.urlopen(url, timeout=timeout))
        handle = stack.enter_context(atomic_write(target))
        for chunk in iter(lambda: response.read(_CHUNK), b""):
            digest.update(chunk)
            handle.write(chunk)
        if digest.hexdigest() != md5:
            raise ValueError(f"checksum mismatch: expected MD5 {md5}, got {digest.hexdigest()}")


def _describe(error: Exception) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP error {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return f"cannot connect ({error.reason})"
    return str(error) or type(error).__name__
