"""IDX reading and writing: round trips, and every corruption named with file and problem."""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

from minitorch_meta.data.idx import IDXError, read_idx, write_idx


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32,
                                   np.float64])
@pytest.mark.parametrize("name", ["a.idx", "a.idx.gz"])
def test_round_trip(tmp_path, dtype, name):
    array = (np.arange(2 * 3 * 4) - 5).astype(dtype).reshape(2, 3, 4)
    write_idx(tmp_path / name, array)
    back = read_idx(tmp_path / name)
    assert back.dtype == np.dtype(dtype) and back.dtype.isnative
    np.testing.assert_array_equal(back, array)
    assert back.flags.writeable


def test_gzip_is_detected_by_content_not_name(tmp_path):
    array = np.arange(10, dtype=np.uint8)
    write_idx(tmp_path / "labels.raw", array, compress=True)
    write_idx(tmp_path / "labels.gz", array, compress=False)
    assert (tmp_path / "labels.raw").read_bytes()[:2] == b"\x1f\x8b"
    np.testing.assert_array_equal(read_idx(tmp_path / "labels.raw"), array)
    np.testing.assert_array_equal(read_idx(tmp_path / "labels.gz"), array)


def test_header_is_mnist_layout(tmp_path):
    write_idx(tmp_path / "x", np.zeros((2, 28, 28), np.uint8))
    raw = (tmp_path / "x").read_bytes()
    assert raw[:4] == bytes([0, 0, 0x08, 3])
    assert struct.unpack(">3I", raw[4:16]) == (2, 28, 28) and len(raw) == 16 + 2 * 28 * 28


def test_values_are_big_endian(tmp_path):
    write_idx(tmp_path / "x", np.array([1, 256], np.int32))
    assert (tmp_path / "x").read_bytes()[8:] == b"\x00\x00\x00\x01\x00\x00\x01\x00"


def _write_raw(path, data: bytes, compress: bool = False):
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.mark.parametrize("compress", [False, True], ids=["raw", "gzip"])
def test_bad_magic_is_not_idx(tmp_path, compress):
    path = _write_raw(tmp_path / "notes.txt", b"hello world, not idx", compress)
    with pytest.raises(IDXError, match=r"notes\.txt: not an IDX file: bad magic number "
                                       r"68656c6c"):
        read_idx(path)


def test_empty_file_is_not_idx(tmp_path):
    with pytest.raises(IDXError, match="bad magic number missing"):
        read_idx(_write_raw(tmp_path / "empty", b""))


def test_unknown_type_code(tmp_path):
    with pytest.raises(IDXError, match="unknown IDX type code 0x07"):
        read_idx(_write_raw(tmp_path / "x", bytes([0, 0, 7, 1]) + struct.pack(">I", 0)))


def test_rank_zero_is_rejected(tmp_path):
    with pytest.raises(IDXError, match="rank 0"):
        read_idx(_write_raw(tmp_path / "x", bytes([0, 0, 8, 0])))


def test_wrong_rank_for_images_names_both_ranks(tmp_path):
    write_idx(tmp_path / "labels", np.zeros(5, np.uint8))
    with pytest.raises(IDXError, match=r"labels: expected an IDX file of rank 3 \(images\) but "
                                       r"its header says rank 1 \(labels\)"):
        read_idx(tmp_path / "labels", rank=3)


@pytest.mark.parametrize("compress", [False, True], ids=["raw", "gzip"])
def test_truncated_data_says_expected_and_got(tmp_path, compress):
    write_idx(tmp_path / "full", np.zeros((3, 4, 4), np.uint8))
    data = (tmp_path / "full").read_bytes()[:-10]
    path = _write_raw(tmp_path / "cut", data, compress)
    with pytest.raises(IDXError, match=r"cut: truncated: expected 64 bytes for shape "
                                       r"\(3, 4, 4\) of uint8, got 54"):
        read_idx(path)


def test_truncated_header(tmp_path):
    with pytest.raises(IDXError, match="truncated header: expected 16 bytes for 3 dimensions, "
                                       "got 9"):
        read_idx(_write_raw(tmp_path / "x", bytes([0, 0, 8, 3, 0, 0, 0, 2, 0])))


def test_trailing_bytes_are_reported(tmp_path):
    write_idx(tmp_path / "x", np.zeros(4, np.uint8))
    path = _write_raw(tmp_path / "y", (tmp_path / "x").read_bytes() + b"junk")
    with pytest.raises(IDXError, match="4 unexpected bytes after the data"):
        read_idx(path)


def test_truncated_gzip_stream(tmp_path):
    write_idx(tmp_path / "x.gz", np.arange(1000, dtype=np.int32))
    data = (tmp_path / "x.gz").read_bytes()
    path = _write_raw(tmp_path / "cut.gz", data[: len(data) // 2])
    with pytest.raises(IDXError, match=r"cut\.gz: corrupt or truncated gzip data"):
        read_idx(path)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_idx(tmp_path / "nothing")


def test_write_rejects_unsupported_dtypes_and_shapes(tmp_path):
    with pytest.raises(TypeError, match="dtype int64 has no IDX type code"):
        write_idx(tmp_path / "x", np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"got shape \(\)"):
        write_idx(tmp_path / "x", np.zeros((), np.uint8))
    assert not list(tmp_path.iterdir())


def test_write_is_atomic_on_failure(tmp_path, monkeypatch):
    write_idx(tmp_path / "x", np.arange(3, dtype=np.uint8))

    def disk_full(descriptor):
        raise OSError(28, "No space left on device")

    import minitorch_meta.utils.atomic as atomic

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_idx(tmp_path / "x", np.arange(5, dtype=np.uint8))
    monkeypatch.undo()
    np.testing.assert_array_equal(read_idx(tmp_path / "x"), np.arange(3))
    assert [p.name for p in tmp_path.iterdir()] == ["x"]
