"""Shared and pinned host memory: ``Tensor.share_memory_()``/``is_shared()``,
``Tensor.pin_memory()``/``is_pinned()``, ``torch.from_file`` and the sharing strategies
of ``torch.multiprocessing``.

Shared memory is an ``mmap`` with ``MAP_SHARED`` of an OS shared-memory object: a
``memfd`` (the ``"file_descriptor"`` strategy, PyTorch's default on Linux; its file
descriptor travels to other processes) or a named file in ``/dev/shm`` (``"file_system"``:
its name travels; the process that made it unlinks it when it frees the memory). A child
forked afterwards inherits the mapping; another process attaches to it through the
descriptor or the name (multiprocessing/reductions.py). Writes show both ways.

``share_memory_`` copies the tensor's whole memory block there once and points the tensor
at the copy, keeping its dtype, shape, strides and offset; other tensors still viewing the
old block do not move with it (PyTorch moves the storage they share: docs/differences.md).
CUDA memory is shareable as it is (a no-op, ``is_shared()`` True, as PyTorch); meta has no
memory to share (PyTorch's error).
"""

from __future__ import annotations

import errno
import itertools
import mmap
import os
import tempfile
import weakref

import numpy as np

from .backends.numpy_backend import _owner

SHARING_STRATEGIES = frozenset({"file_descriptor", "file_system"})
#: the process's sharing strategy, as PyTorch keeps it (``set_sharing_strategy``)
_STRATEGY = ["file_descriptor"]
_NAMES = itertools.count()


def get_sharing_strategy() -> str:
    """How new shared memory is made and sent: ``"file_descriptor"`` or ``"file_system"``."""
    return _STRATEGY[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose the sharing strategy of this process (one of ``get_all_sharing_strategies()``)."""
    if new_strategy not in SHARING_STRATEGIES:  # PyTorch's exception type and words
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{set(SHARING_STRATEGIES)}")
    _STRATEGY[0] = new_strategy


def get_all_sharing_strategies() -> set:
    return set(SHARING_STRATEGIES)


class SharedBlock(mmap.mmap):
    """A ``MAP_SHARED`` mapping, with how another process reaches it: ``fd`` (a file
    descriptor this block keeps open) or ``name`` (a path)."""

    fd: int | None = None
    name: str | None = None
    filename: str | None = None  # the user's file, for a ``from_file`` mapping


def _map(fd: int, nbytes: int, name: str | None, keep_fd: bool) -> np.ndarray:
    """The bytes of a new ``SharedBlock`` over ``fd``'s first ``nbytes`` bytes."""
    block = SharedBlock(fd, max(nbytes, 1), access=mmap.ACCESS_WRITE)  # mmap refuses 0
    block.name = name
    if keep_fd:
        block.fd = fd
        weakref.finalize(block, os.close, fd)
    else:
        os.close(fd)
    return np.frombuffer(block, np.uint8)[:nbytes]


def new_shared_bytes(nbytes: int) -> np.ndarray:
    """``nbytes`` zero bytes of new shared memory, made by the process's strategy."""
    if _STRATEGY[0] == "file_system":
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        path = os.path.join(folder, f"minitorch_meta_{os.getpid()}_{next(_NAMES)}_"
                                    f"{os.urandom(4).hex()}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.ftruncate(fd, max(nbytes, 1))
        data = _map(fd, nbytes, path, keep_fd=False)
        # the maker removes the name when its memory is freed (or at exit); mappings of
        # other processes stay valid after that, new ones by name fail
        weakref.finalize(_block_of(data), _unlink, path)
        return data
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("minitorch_meta_shared", os.MFD_CLOEXEC)
    else:  # no memfd: an unlinked temporary file, which is the same to mmap
        fd, path = tempfile.mkstemp(prefix="minitorch_meta_")
        os.unlink(path)
    os.ftruncate(fd, max(nbytes, 1))
    return _map(fd, nbytes, None, keep_fd=True)


def attach_fd(fd: int, nbytes: int) -> np.ndarray:
    """The bytes of the shared memory behind ``fd`` (this process's own descriptor, which
    the block keeps and closes when freed)."""
    return _map(fd, nbytes, None, keep_fd=True)


def attach_name(name: str, nbytes: int) -> np.ndarray:
    """The bytes of the shared memory file ``name``."""
    return _map(os.open(name, os.O_RDWR), nbytes, name, keep_fd=False)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _block_of(array):
    """The ``SharedBlock`` (or other mapping) whose memory a NumPy array views, or None."""
    base = _owner(array).base
    base = getattr(base, "obj", base)  # np.frombuffer keeps a memoryview of the mapping
    return base if isinstance(base, mmap.mmap) else None


def shared_block(array) -> SharedBlock | None:
    block = _block_of(array)
    return block if isinstance(block, SharedBlock) else None


def block_address(block) -> int:
    """The address of the first byte of a mapping."""
    return np.frombuffer(block, np.uint8, count=1).__array_interface__["data"][0]


def mapped_filename(backend, array) -> str | None:
    """The file ``array``'s memory maps (``from_file`` with ``shared=True``), else None."""
    block = shared_block(array) if backend.device.type == "cpu" else None
    return None if block is None else block.filename


def is_shared_array(backend, array) -> bool:
    """Whether ``array``'s memory is shared memory (host memory only; meta has none)."""
    return backend.device.type == "cpu" and shared_block(array) is not None


def shared_copy(backend, data):
    """A copy of the uint8 array ``data`` in new shared memory."""
    shared = new_shared_bytes(int(data.shape[0]))
    shared[...] = data
    return shared


# -- Tensor methods -------------------------------------------------------------------
def is_shared(tensor) -> bool:
    """Whether the tensor's memory is shared memory (CUDA memory always is, as PyTorch)."""
    return tensor.is_cuda or is_shared_array(tensor._backend, tensor._data)


def share_memory_(tensor):
    """Move the tensor's memory into shared memory, in place (no-op for CUDA, or when it
    is there already); returns the tensor.

    Raises:
        RuntimeError: on meta, which has no memory (PyTorch's message).
    """
    backend = tensor._backend
    if tensor.is_cuda or is_shared(tensor):
        return tensor
    if not backend.stores_data:
        kind = "filename" if _STRATEGY[0] == "file_system" else "fd"
        raise RuntimeError(f"_share_{kind}_: only available on CPU")
    from .storage import _block_bytes

    data = tensor._data
    geometry = (tuple(data.shape), backend.strides(data), backend.storage_offset(data))
    whole = backend.bitcast(shared_copy(backend, _block_bytes(tensor)), tensor.dtype)
    tensor._data = backend.as_strided(whole, *geometry)
    return tensor


def is_pinned_array(backend, array) -> bool:
    """Whether ``array`` is page-locked host memory (CuPy's pinned allocations)."""
    if backend.device.type != "cpu":
        return False
    base = _owner(array).base
    return type(base).__name__ == "PinnedMemoryPointer"


def pinned_copy(backend, data, what: str):
    """A copy of the host array ``data`` in page-locked memory, for faster copies to the
    GPU; only with an accelerator, as PyTorch."""
    from . import cuda

    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if is_pinned_array(backend, data):
        return data
    import cupyx

    pinned = cupyx.empty_pinned(data.shape, data.dtype)
    pinned[...] = data
    return pinned


def is_pinned(tensor, device="cuda") -> bool:
    return is_pinned_array(tensor._backend, tensor._data)


def pin_memory(tensor, device="cuda"):
    """A copy of this CPU tensor in pinned memory (itself if pinned already).

    Raises:
        RuntimeError: a tensor not on the CPU; no accelerator present (PyTorch's
            messages).
    """
    if tensor.device.type != "cpu":
        from .dtypes import SCALAR_TYPE_NAMES
        from .tensor_type import type_name

        name = (f"Meta{SCALAR_TYPE_NAMES.get(tensor.dtype, tensor.dtype.name)}Type"
                if tensor.is_meta else type_name(tensor.dtype, tensor.device))
        raise RuntimeError(f"cannot pin '{name}' only dense CPU tensors can be pinned")
    data = pinned_copy(tensor._backend, tensor._data, "tensor")
    return tensor if data is tensor._data else tensor._wrap(data)


# -- torch.from_file ------------------------------------------------------------------
def map_file(filename, shared: bool, nbytes: int) -> np.ndarray:
    """The first ``nbytes`` bytes of ``filename`` mapped: shared (writes reach the file,
    which is made or grown to ``nbytes``) or private (copy-on-write; the file must exist
    and hold them), as ``torch.from_file``."""
    filename = os.fspath(filename)
    flags = os.O_RDWR | os.O_CREAT if shared else os.O_RDONLY
    try:
        fd = os.open(filename, flags, 0o644)
    except OSError as error:
        mode = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: "
                           f"{os.strerror(error.errno or errno.EIO)} ({error.errno})") from None
    size = os.fstat(fd).st_size
    if size < nbytes:
        if not shared:
            os.close(fd)
            raise RuntimeError(f"file <{filename}> size <{size}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        os.ftruncate(fd, nbytes)
    if nbytes == 0:
        os.close(fd)
        return np.empty((0,), np.uint8)
    if shared:
        data = _map(fd, nbytes, os.path.abspath(filename), keep_fd=False)
        shared_block(data).filename = filename
        return data
    private = mmap.mmap(fd, nbytes, access=mmap.ACCESS_COPY)
    os.close(fd)
    return np.frombuffer(private, np.uint8)


def from_file(filename, shared=None, size: int = 0, *, dtype=None, layout=None,
              device=None, pin_memory: bool = False, requires_grad: bool = False):
    """A 1-D tensor of ``size`` elements of ``dtype`` read from the file ``filename`` by
    mapping it: ``shared=True`` maps it shared (writes reach the file; it is made or
    grown to fit), otherwise privately (copy-on-write; the file must be large enough).

    Raises:
        RuntimeError: a missing or too small file (private mapping).
        NotImplementedError: ``device="meta"`` (PyTorch has no meta kernel for it).
    """
    from . import dtypes
    from .backends.registry import get_backend
    from .device import to_device
    from .storage import UntypedStorage, _view_of
    from .tensor import Tensor

    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    target = to_device("cpu" if device is None else device)
    if target.type == "meta":
        raise NotImplementedError("aten::from_file: attempted to run this operator with Meta "
                                  "tensors, but there was no fake impl or Meta kernel "
                                  "registered")
    storage = UntypedStorage.from_file(filename, bool(shared), size * dtype.itemsize)
    made = Tensor._make(_view_of(dtype, storage, 0, (size,), None),
                        get_backend(to_device("cpu")))
    if pin_memory:
        made = made.pin_memory()
    if target.type != "cpu":
        made = made.to(target)
    return made.requires_grad_(requires_grad) if requires_grad else made

