"""The IDX file format of MNIST and Fashion-MNIST: ``read_idx`` and ``write_idx``.

An IDX file is a 4-byte magic number (two zero bytes, a type code, the number of
dimensions), then each dimension as a big-endian 32-bit integer, then the values in C
order, big-endian. Files may be gzip-compressed; compression is recognised by its magic
bytes, never by the file name.
"""

from __future__ import annotations

import gzip
import math
import os
import struct
import zlib
from pathlib import Path

import numpy as np

from ..utils.atomic import atomic_write

#: IDX type code -> big-endian NumPy dtype.
TYPE_CODES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
              0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_CODE_OF = {dtype.newbyteorder("="): code for code, dtype in TYPE_CODES.items()}
_GZIP_MAGIC = b"\x1f\x8b"


class IDXError(ValueError):
    """A file is not a valid IDX file; the message names the file and the problem."""


def read_idx(path: str | os.PathLike, rank: int | None = None) -> np.ndarray:
    """Read an IDX file (raw or gzip) into a NumPy array in native byte order.

    Args:
        path: the file.
        rank: if given, the number of dimensions the file must have (3 for images, 1 for
            labels).

    Raises:
        FileNotFoundError: no such file.
        IDXError: not IDX (bad magic number), unknown type code, wrong rank, a corrupt gzip
            stream, or a length that does not match the header (truncated or trailing bytes).
    """
    path = Path(path)
    raw = _decompressed(path, path.read_bytes())
    code, ndim = _magic(path, raw)
    if rank is not None and ndim != rank:
        raise IDXError(f"{path}: expected an IDX file of rank {rank} ({_KIND.get(rank, 'data')}) "
                       f"but its header says rank {ndim} ({_KIND.get(ndim, 'data')})")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise IDXError(f"{path}: truncated header: expected {header} bytes for {ndim} "
                       f"dimensions, got {len(raw)}")
    shape = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = TYPE_CODES[code]
    expected = header + math.prod(shape) * dtype.itemsize
    if len(raw) < expected:
        raise IDXError(f"{path}: truncated: expected {expected} bytes for shape {shape} of "
                       f"{dtype.newbyteorder('=')}, got {len(raw)}")
    if len(raw) > expected:
        raise IDXError(f"{path}: {len(raw) - expected} unexpected bytes after the data: "
                       f"expected {expected} bytes for shape {shape}, got {len(raw)}")
    array = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="))


_KIND = {1: "labels", 3: "images"}


def _decompressed(path: Path, data: bytes) -> bytes:
    if not data.startswith(_GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (EOFError, OSError, zlib.error) as error:
        raise IDXError(f"{path}: corrupt or truncated gzip data ({error}); delete the file and "
                       "download it again") from None


def _magic(path: Path, raw: bytes) -> tuple[int, int]:
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise IDXError(f"{path}: not an IDX file: bad magic number {raw[:4].hex() or 'missing'} "
                       "(an IDX file starts with two zero bytes, a type code and a rank)")
    code, ndim = raw[2], raw[3]
    if code not in TYPE_CODES:
        known = ", ".join(f"0x{c:02X}" for c in TYPE_CODES)
        raise IDXError(f"{path}: unknown IDX type code 0x{code:02X} (expected one of {known})")
    if ndim == 0:
        raise IDXError(f"{path}: IDX header says rank 0; expected at least one dimension")
    return code, ndim


def write_idx(path: str | os.PathLike, array: np.ndarray, compress: bool | None = None) -> None:
    """Write ``array`` as an IDX file, atomically; gzip it if ``compress`` (default: ``.gz``).

    Raises:
        TypeError: the array's dtype has no IDX type code (uint8, int8, int16, int32,
            float32 and float64 do).
        ValueError: the array is 0-d, has more than 255 dimensions or a dimension >= 2**32.
    """
    array = np.asarray(array)
    code = _CODE_OF.get(array.dtype.newbyteorder("="))
    if code is None:
        raise TypeError(f"write_idx: dtype {array.dtype} has no IDX type code; use uint8, int8, "
                        "int16, int32, float32 or float64")
    if not 1 <= array.ndim <= 255 or any(n >= 2**32 for n in array.shape):
        raise ValueError(f"write_idx: IDX holds 1 to 255 dimensions each below 2**32, got shape "
                         f"{array.shape}")
    payload = (bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
               + np.ascontiguousarray(array, dtype=TYPE_CODES[code]).tobytes())
    if compress is None:
        compress = str(path).endswith(".gz")
    if compress:
        payload = gzip.compress(payload, compresslevel=6, mtime=0)
    with atomic_write(path) as handle:
        handle.write(payload)
