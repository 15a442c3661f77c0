"""Downloads from a local HTTP server on 127.0.0.1 only: checksums, mirrors, failures."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import threading

import numpy as np
import pytest

from minitorch_meta.data import datasets
from minitorch_meta.data.download import DownloadError, download_file, file_md5

from .fake_mnist import write_split_files


@contextlib.contextmanager
def serve(folder):
    """An HTTP server on a free port of 127.0.0.1 serving ``folder``; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _closed_port_url() -> str:
    """The URL of a port on 127.0.0.1 where nothing listens any more (a server that is down)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _QuietHandler)
    port = server.server_address[1]
    server.server_close()
    return f"http://127.0.0.1:{port}/"


@pytest.fixture()
def served(tmp_path):
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "file.bin").write_bytes(b"the right bytes")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "file.bin").write_bytes(b"some other bytes")
    return tmp_path, hashlib.md5(b"the right bytes").hexdigest()


def test_good_checksum_is_downloaded(served):
    root, md5 = served
    with serve(root / "good") as url:
        path = download_file("file.bin", md5, root / "out", [url])
    assert path == root / "out" / "file.bin" and path.read_bytes() == b"the right bytes"
    assert [p.name for p in (root / "out").iterdir()] == ["file.bin"]


def test_bad_checksum_falls_back_to_the_next_mirror(served):
    root, md5 = served
    with serve(root / "bad") as bad, serve(root / "good") as good:
        path = download_file("file.bin", md5, root / "out", [bad, good])
    assert file_md5(path) == md5
    assert [p.name for p in (root / "out").iterdir()] == ["file.bin"]


def test_every_mirror_failing_lists_each_failure_and_what_to_do(served):
    root, md5 = served
    down = _closed_port_url()
    with serve(root / "bad") as bad, serve(root / "good") as missing:
        with pytest.raises(DownloadError) as caught:
            download_file("nothere.bin", md5, root / "out", [down, bad, missing],
                          hint="Put the file in /some/folder.")
        with pytest.raises(DownloadError, match="checksum mismatch: expected MD5"):
            download_file("file.bin", md5, root / "out2", [bad])
    message = str(caught.value)
    assert "could not download nothere.bin from any of 3 mirror(s)" in message
    assert f"{down}nothere.bin: cannot connect" in message
    assert "HTTP error 404" in message and message.endswith("Put the file in /some/folder.")
    assert not list((root / "out").iterdir()) and not list((root / "out2").iterdir())


def test_existing_file_with_right_checksum_needs_no_network(served):
    root, md5 = served
    (root / "out").mkdir()
    (root / "out" / "file.bin").write_bytes(b"the right bytes")
    assert download_file("file.bin", md5, root / "out", [_closed_port_url()]).is_file()


def test_existing_file_with_wrong_checksum_is_replaced(served):
    root, md5 = served
    (root / "out").mkdir()
    (root / "out" / "file.bin").write_bytes(b"stale")
    with serve(root / "good") as url:
        download_file("file.bin", md5, root / "out", [url])
    assert (root / "out" / "file.bin").read_bytes() == b"the right bytes"


def test_dataset_download_from_local_mirror(tmp_path, monkeypatch):
    written = write_split_files(tmp_path / "mirror")
    resources = tuple((p.name, file_md5(p)) for p in sorted((tmp_path / "mirror").iterdir()))
    monkeypatch.setattr(datasets.MNIST, "resources", resources)
    with serve(tmp_path / "mirror") as url:
        train = datasets.MNIST(tmp_path / "root", train=True, download=True,
                               mirrors=[_closed_port_url(), url])
    np.testing.assert_array_equal(train.data.numpy(), written["train-images"])
    assert sorted(p.name for p in (tmp_path / "root" / "MNIST" / "raw").iterdir()) == [
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    # later runs find the files without any mirror
    assert len(datasets.MNIST(tmp_path / "root", train=True, mirrors=[])) == len(train)


def test_dataset_download_offline_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.FashionMNIST, "system_folders", ())
    with pytest.raises(DownloadError) as caught:
        datasets.FashionMNIST(tmp_path, download=True, mirrors=[_closed_port_url()])
    message = str(caught.value)
    assert "install the Debian package dataset-fashion-mnist" in message
    assert f"{tmp_path / 'FashionMNIST' / 'raw'}" in message
