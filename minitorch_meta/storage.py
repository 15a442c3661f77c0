"""Storages: the memory block under tensors, as ``torch.UntypedStorage`` (its bytes) and
the deprecated ``torch.TypedStorage`` (its elements of one dtype), with PyTorch's legacy
classes (``torch.FloatStorage``...), ``torch.is_storage`` and the Tensor methods that
reach storages (``untyped_storage``, ``storage``, ``storage_type``, ``set_``,
``is_set_to``).

A storage wraps the whole memory block its tensor views, never a copy: a view and its
base have one storage (the same ``data_ptr()``), writes through the storage reach the
tensors. On meta a storage has a size but no memory (``data_ptr()`` 0, reading it
raises), as PyTorch's. A tensor holds its backend array, not a storage object, so an
operation that gives a storage new memory (``share_memory_``, ``resize_``) does not move
the tensors already viewing the old one (docs/differences.md).
"""

from __future__ import annotations

from . import dtypes
from .caller_warnings import warn_at_caller
from .device import to_device
from .int_arguments import is_int

_TYPED_STORAGE_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
    "be the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")

#: PyTorch warns once per process about TypedStorage (its ``has_warned`` flag); this cell
#: is that flag, reset by ``_reset_warn_typed_storage_removal`` as in ``torch.storage``.
_TYPED_STORAGE_WARNED = [False]

#: PyTorch's C++ names of the dtypes, in its ``set_`` errors
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                 "int64": "long int", "int32": "int", "int16": "short int",
                 "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _warn_typed_storage_removal() -> None:
    """PyTorch's deprecation warning for TypedStorage, the first time only."""
    if not _TYPED_STORAGE_WARNED[0]:
        _TYPED_STORAGE_WARNED[0] = True
        warn_at_caller(_TYPED_STORAGE_DEPRECATED)


def _reset_warn_typed_storage_removal() -> None:
    """Let the next TypedStorage use warn again (``torch.storage``'s helper of the name)."""
    _TYPED_STORAGE_WARNED[0] = False


def _backend_of(device):
    from .backends.registry import get_backend
    from .device import get_default_device

    return get_backend(to_device(get_default_device() if device is None else device))


def _block_bytes(tensor):
    """The bytes (1-D uint8 array) of the whole memory block ``tensor`` views (meta: an
    array of its size: meta views keep no base, so the tensor's own bytes)."""
    backend, data = tensor._backend, tensor._data
    if not backend.stores_data:
        return backend.empty((tensor.numel() * tensor.element_size(),), dtypes.uint8)
    whole = backend.as_strided(data, (backend.storage_size(data),), (1,),
                               -backend.storage_offset(data))
    return backend.bitcast(whole, dtypes.uint8)


class UntypedStorage:
    """``torch.UntypedStorage``: a block of bytes on a device.

    ``UntypedStorage()`` is empty, ``UntypedStorage(n)`` holds ``n`` uninitialised bytes,
    ``UntypedStorage([1, 2, 3])`` those bytes (each taken modulo 256, as PyTorch's);
    ``device=`` places it. ``tensor.untyped_storage()`` is the block under a tensor.
    """

    is_sparse = False
    is_sparse_csr = False

    def __init__(self, *args, device=None):
        backend = _backend_of(device)
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): expected a size or a sequence of bytes, got "
                            f"{len(args)} arguments")
        if not args:
            data = backend.empty((0,), dtypes.uint8)
        elif isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"UntypedStorage(): the size must be non-negative, got "
                                   f"{args[0]} bytes")
            data = backend.empty((args[0],), dtypes.uint8)
        elif isinstance(args[0], (list, tuple)):
            values = [int(v) & 0xFF for v in args[0]]
            data = backend.asarray(values, dtypes.uint8) if backend.stores_data else \
                backend.empty((len(values),), dtypes.uint8)
        else:
            raise TypeError(f"UntypedStorage(): expected a size (int) or a sequence of bytes, "
                            f"got {type(args[0]).__name__}")
        self._bytes, self._backend, self._filename = data, backend, None

    @classmethod
    def _wrap(cls, data, backend, filename=None) -> UntypedStorage:
        """The storage over the uint8 array ``data`` (no copy)."""
        storage = object.__new__(cls)
        storage._bytes, storage._backend, storage._filename = data, backend, filename
        return storage

    @classmethod
    def _of(cls, tensor) -> UntypedStorage:
        from .shared_memory import mapped_filename

        data = _block_bytes(tensor)
        return cls._wrap(data, tensor._backend, mapped_filename(tensor._backend, data))

    # -- what it is -------------------------------------------------------------------
    @property
    def device(self):
        return self._backend.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    @property
    def filename(self) -> str | None:
        """The file this storage maps (``from_file`` with ``shared=True``), else None."""
        return self._filename

    def nbytes(self) -> int:
        return int(self._bytes.shape[0])

    size = nbytes

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte (0 on meta, which has no memory)."""
        return self._backend.data_ptr(self._bytes)

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def untyped(self) -> UntypedStorage:
        return self

    # -- bytes ------------------------------------------------------------------------
    def _tensor(self, dtype=dtypes.uint8):
        """The bytes read as a 1-D tensor of ``dtype`` sharing the memory."""
        from .tensor import Tensor

        data = self._bytes
        if self._backend.stores_data:
            data = self._backend.bitcast(data, dtype)
        else:
            data = self._backend.empty((self.nbytes() // dtype.itemsize,), dtype)
        return Tensor._make(data, self._backend)

    def _readable(self) -> None:
        if not self._backend.stores_data:
            raise NotImplementedError("Not available for 'meta' device type")

    def __getitem__(self, index):
        self._readable()
        if isinstance(index, slice):
            start, stop, step = index.indices(self.nbytes())
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step "
                                   "of 1 is supported")
            return UntypedStorage._wrap(self._backend.getitem(self._bytes, slice(start, stop)),
                                        self._backend)
        return self._tensor()[_element_index(index, self.nbytes())].item()

    def __setitem__(self, index, value) -> None:
        self._readable()
        if not isinstance(index, slice):
            index = _element_index(index, self.nbytes())
        self._tensor()[index] = int(value) & 0xFF

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        self._readable()
        return self._tensor().tolist()

    def __repr__(self) -> str:
        info = f"[{self.type()}(device={self.device}) of size {len(self)}]"
        if not self._backend.stores_data:
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__

    def __reduce__(self):
        # pickling (``copy``, ``pickle``): the bytes, on the storage's device
        values = bytes(self.tolist()) if self._backend.stores_data else self.nbytes()
        return (_rebuild_untyped, (values, str(self.device)))

    # -- copies and moves -------------------------------------------------------------
    def fill_(self, value) -> UntypedStorage:
        self._tensor().fill_(int(value) & 0xFF)
        return self

    def copy_(self, source, non_blocking=None) -> UntypedStorage:
        """Copy ``source``'s bytes (a storage of the same size in bytes, any device)."""
        source = source.untyped() if isinstance(source, TypedStorage) else source
        if not isinstance(source, UntypedStorage):
            raise TypeError(f"copy_(): argument 'src' must be a storage, got "
                            f"{type(source).__name__}")
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size does not match, self was {self.nbytes()} bytes but src "
                               f"was {source.nbytes()} bytes")
        self._tensor().copy_(source._tensor())
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage._wrap(self._backend.copy(self._bytes), self._backend)

    def to(self, *, device=None, non_blocking: bool = False) -> UntypedStorage:
        backend = _backend_of(device)
        if backend is self._backend:
            return self
        return UntypedStorage._wrap(self._tensor().to(backend.device)._data, backend)

    def cpu(self) -> UntypedStorage:
        return self.to(device="cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        return self.to(device="cuda" if device is None else device)

    def resize_(self, size: int) -> UntypedStorage:
        """Give the storage ``size`` bytes (the first ones keep their values). The storage
        gets new memory: tensors made from it before keep the old block."""
        from .shared_memory import is_shared_array

        if size < 0:
            raise RuntimeError(f"resize_(): the size must be non-negative, got {size}")
        if is_shared_array(self._backend, self._bytes):
            raise RuntimeError("Trying to resize storage that is not resizable")
        new = self._backend.empty((size,), dtypes.uint8)
        kept = min(size, self.nbytes())
        if self._backend.stores_data and kept:
            self._backend.setitem(new, slice(0, kept),
                                  self._backend.getitem(self._bytes, slice(0, kept)))
        self._bytes = new
        return self

    # -- shared and pinned memory (shared_memory.py) ----------------------------------
    def is_shared(self) -> bool:
        from .shared_memory import is_shared_array

        return self.is_cuda or is_shared_array(self._backend, self._bytes)

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes into shared memory (no-op for CUDA, or when already there). The
        tensors made from this storage before keep their memory."""
        from .shared_memory import shared_copy

        if not self.is_shared():
            self._bytes = shared_copy(self._backend, self._bytes)
        return self

    def is_pinned(self, device="cuda") -> bool:
        from .shared_memory import is_pinned_array

        return is_pinned_array(self._backend, self._bytes)

    def pin_memory(self, device="cuda") -> UntypedStorage:
        from .shared_memory import pinned_copy

        return UntypedStorage._wrap(pinned_copy(self._backend, self._bytes, "storage"),
                                    self._backend)

    @classmethod
    def from_file(cls, filename: str, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """A storage of ``nbytes`` bytes mapped from ``filename`` (see ``torch.from_file``)."""
        from .shared_memory import map_file

        return cls._wrap(map_file(filename, bool(shared), nbytes), _backend_of("cpu"),
                         filename if shared else None)


def _rebuild_untyped(values, device):
    if isinstance(values, int):
        return UntypedStorage(values, device=device)
    return UntypedStorage(list(values), device=device)


def _element_index(index, length: int) -> int:
    """``index`` (an int, negative from the end) checked against ``length`` elements."""
    if isinstance(index, bool) or not hasattr(index, "__index__"):
        raise TypeError(f"storage indices must be integers or slices, not "
                        f"{type(index).__name__}")
    index = int(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} out of range for storage of size {length}")
    return index % length


class _LegacyStorageMeta(type):
    """``isinstance(s, torch.FloatStorage)`` holds for every CPU TypedStorage of float32,
    as in PyTorch, whatever class made it."""

    dtype = None

    def __instancecheck__(cls, instance):
        if cls.dtype is None:
            return type.__instancecheck__(cls, instance)
        return (isinstance(instance, TypedStorage) and instance.dtype is cls.dtype
                and instance.device.type == "cpu")


class TypedStorage(metaclass=_LegacyStorageMeta):
    """``torch.TypedStorage`` (deprecated, and warns so once per process, as PyTorch):
    an ``UntypedStorage`` read as elements of ``dtype``.

    ``TypedStorage(n, dtype=..., device=...)``, ``TypedStorage([values], dtype=...)``,
    ``TypedStorage(wrap_storage=untyped, dtype=...)``; ``tensor.storage()`` is the one
    under a tensor.
    """

    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        if type(self).dtype is not None:  # FloatStorage(...) and friends
            dtype = type(self).dtype
        self.dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage(): wrap_storage takes no size, data or "
                                   "device; the wrapped storage has them")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"TypedStorage(): argument 'wrap_storage' must be "
                                f"UntypedStorage, but got {type(wrap_storage).__name__}")
            self._untyped_storage = wrap_storage
            return
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            from .factories import tensor

            made = tensor(list(args[0]), dtype=self.dtype, device=device)
            self._untyped_storage = UntypedStorage._of(made)
            return
        size = args[0] if args else 0
        if len(args) > 1 or not is_int(size):
            raise TypeError("TypedStorage(): expected a size (int) or a sequence of values")
        self._untyped_storage = UntypedStorage(size * self.dtype.itemsize, device=device)

    @classmethod
    def _wrap(cls, untyped: UntypedStorage, dtype) -> TypedStorage:
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self._untyped_storage.is_cuda

    @property
    def filename(self) -> str | None:
        return self._untyped_storage.filename

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def _name(self) -> str:
        return f"{dtypes.SCALAR_TYPE_NAMES.get(self.dtype, self.dtype.name)}Storage"

    def type(self, dtype=None, non_blocking: bool = False):
        """The legacy type name (``'torch.FloatStorage'``), or a copy of another dtype."""
        if dtype is not None:
            return self._to(dtypes.to_dtype(dtype))
        where = "" if self.device.type == "cpu" else f"{self.device.type}."
        return f"torch.{where}{self._name()}"

    def pickle_storage_type(self) -> str:
        return self._name()

    def _tensor(self):
        return self._untyped_storage._tensor(self.dtype)

    def __getitem__(self, index):
        self._untyped_storage._readable()
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._tensor()[_element_index(index, self.size())].item()

    def __setitem__(self, index, value) -> None:
        self._untyped_storage._readable()
        if not isinstance(index, slice):
            index = _element_index(index, self.size())
        self._tensor()[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        self._untyped_storage._readable()
        return self._tensor().tolist()

    def __repr__(self) -> str:
        info = (f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
                f"size {len(self)}]")
        if not self._untyped_storage._backend.stores_data:
            return "...\n" + info
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__

    def __reduce__(self):
        return (TypedStorage._wrap, (self._untyped_storage, self.dtype))

    def fill_(self, value) -> TypedStorage:
        self._tensor().fill_(value)
        return self

    def copy_(self, source, non_blocking=None) -> TypedStorage:
        if isinstance(source, TypedStorage):
            self._tensor().copy_(source._tensor())
        else:
            self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage._wrap(self._untyped_storage.clone(), self.dtype)

    def to(self, *, device=None, non_blocking: bool = False) -> TypedStorage:
        return TypedStorage._wrap(self._untyped_storage.to(device=device), self.dtype)

    def cpu(self) -> TypedStorage:
        return self.to(device="cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> TypedStorage:
        return TypedStorage._wrap(self._untyped_storage.cuda(device), self.dtype)

    def resize_(self, size: int) -> TypedStorage:
        self._untyped_storage.resize_(size * self.dtype.itemsize)
        return self

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda") -> bool:
        return self._untyped_storage.is_pinned()

    def pin_memory(self, device="cuda") -> TypedStorage:
        return TypedStorage._wrap(self._untyped_storage.pin_memory(), self.dtype)

    def _to(self, dtype) -> TypedStorage:
        """A copy holding these values converted to ``dtype`` (``float()``, ``long()``...)."""
        if dtype is self.dtype:
            return self
        return TypedStorage._wrap(UntypedStorage._of(self._tensor().to(dtype)), dtype)

    def float(self): return self._to(dtypes.float32)
    def double(self): return self._to(dtypes.float64)
    def half(self): return self._to(dtypes.float16)
    def long(self): return self._to(dtypes.int64)
    def int(self): return self._to(dtypes.int32)
    def short(self): return self._to(dtypes.int16)
    def char(self): return self._to(dtypes.int8)
    def byte(self): return self._to(dtypes.uint8)
    def bool(self): return self._to(dtypes.bool_)


def _legacy_class(dtype) -> type:
    """PyTorch's ``torch.<Name>Storage``: a TypedStorage of ``dtype`` on the CPU."""
    name = f"{dtypes.SCALAR_TYPE_NAMES.get(dtype, dtype.name)}Storage"
    return _LegacyStorageMeta(name, (TypedStorage,), {
        "dtype": dtype, "__doc__": f"``torch.{name}``: a deprecated TypedStorage of {dtype}.",
        "__module__": "torch"})


#: ``torch.FloatStorage`` and friends, by dtype (the dtypes PyTorch has a legacy class for)
LEGACY_CLASSES = {dtype: _legacy_class(dtype) for dtype in dtypes.SCALAR_TYPE_NAMES}
globals().update({cls.__name__: cls for cls in LEGACY_CLASSES.values()})


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (untyped or typed)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# -- the Tensor methods ---------------------------------------------------------------
def untyped_storage(tensor) -> UntypedStorage:
    """The bytes of the memory block ``tensor`` views (shared: no copy)."""
    return UntypedStorage._of(tensor)


def storage(tensor) -> TypedStorage:
    """The deprecated ``TypedStorage`` of ``tensor``'s memory, in its dtype (warns once)."""
    _warn_typed_storage_removal()
    return TypedStorage._wrap(UntypedStorage._of(tensor), tensor.dtype)


def storage_type(tensor):
    """The legacy storage class of ``tensor``'s dtype (``torch.FloatStorage``); None on a
    device other than the CPU and CUDA (meta), as PyTorch."""
    if tensor.device.type == "meta":
        return None
    return LEGACY_CLASSES[tensor.dtype]


def const_data_ptr(tensor) -> int:
    """``data_ptr()`` (PyTorch's read-only pointer: the same address)."""
    return tensor.data_ptr()


def set_(tensor, source=None, storage_offset: int = 0, size=None, stride=None):
    """Make ``tensor`` look into ``source``'s memory in place (PyTorch's ``set_``):
    ``set_()`` empties it, ``set_(other)`` makes it ``other``'s view (same memory, shape,
    strides and offset), ``set_(storage, storage_offset=0, size=None, stride=None)`` a
    view of a storage (all of it, 1-D, by default; C-ordered strides when only ``size``
    is given). The tensor keeps its dtype; an untyped storage is read in it. A storage too
    small for the view grows, as PyTorch's (into new memory: tensors already viewing it
    keep the old block).

    Raises:
        RuntimeError: another dtype (a tensor, a typed storage), another device, a view
            reaching past the end of a storage that cannot grow (shared memory, a mapped
            file), a leaf that requires grad.
        TypeError: ``source`` not a tensor or storage, or a tensor with an offset.
    """
    from .tensor import Tensor

    tensor._check_inplace("set_")
    if isinstance(source, Tensor):
        if size is not None or stride is not None or storage_offset:
            raise TypeError("set_(): a tensor source takes no storage_offset, size or stride "
                            "(give its storage: set_(t.untyped_storage(), offset, size, "
                            "stride))")
        _check_same_device(tensor, source.device)
        if source.dtype is not tensor.dtype:
            raise RuntimeError(f"Could not set tensor of type {_c_name(source.dtype)} to a "
                               f"tensor of type {_c_name(tensor.dtype)}")
        data = source._data
    else:
        untyped = _untyped_source(tensor, source)
        _check_same_device(tensor, untyped.device)
        data = _view_of(tensor.dtype, untyped, storage_offset, size, stride)
    tensor._data = data
    tensor._counter().value += 1
    return tensor


def _untyped_source(tensor, source) -> UntypedStorage:
    if source is None:
        return UntypedStorage(device=tensor.device)
    if isinstance(source, TypedStorage):
        if source.dtype is not tensor.dtype:
            names = dtypes.SCALAR_TYPE_NAMES
            raise RuntimeError(f"Expected a Storage of type {_c_name(tensor.dtype)} or an "
                               f"UntypedStorage, but got type "
                               f"{names.get(source.dtype, source.dtype.name)} for argument 1 "
                               "'storage'")
        return source.untyped()
    if isinstance(source, UntypedStorage):
        return source
    raise TypeError(f"set_(): expected a Tensor, a storage or nothing as 'source', got "
                    f"{type(source).__name__}")


def _view_of(dtype, untyped: UntypedStorage, offset: int, size, stride):
    """The backend array viewing ``untyped`` as elements of ``dtype`` with this geometry
    (all of it, 1-D, for ``size`` None; C-ordered for ``stride`` None)."""
    from .backends.base import contiguous_strides
    from .ops.strided_view import storage_span

    itemsize = dtype.itemsize
    available = untyped.nbytes() // itemsize
    size = (available,) if size is None else tuple(int(s) for s in size)
    stride = contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
    if len(stride) != len(size):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} strides "
                           f"for {len(size)} sizes")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = storage_span(size, stride, offset)
    if needed > available and 0 not in size:
        # PyTorch grows a storage that is too small (shared and mapped ones refuse)
        untyped.resize_(needed * itemsize)
        available = needed
    backend = untyped._backend
    if not backend.stores_data:
        return backend.empty(size, dtype)
    whole = backend.bitcast(backend.getitem(untyped._bytes, slice(0, available * itemsize)),
                            dtype)
    return backend.as_strided(whole, size, stride, offset)


def is_set_to(tensor, other) -> bool:
    """Whether ``tensor`` and ``other`` view the same memory the same way (one block, the
    same offset, shape and strides)."""
    from .tensor import Tensor

    if not isinstance(other, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    if tensor.device != other.device or tensor.dtype is not other.dtype:
        return False
    if not tensor._backend.stores_data:
        return tensor._data is other._data
    same_block = untyped_storage(tensor).data_ptr() == untyped_storage(other).data_ptr()
    return (same_block and tensor.data_ptr() == other.data_ptr()
            and tensor.shape == other.shape and tensor.stride() == other.stride())


def _check_same_device(tensor, device) -> None:
    if device != tensor.device:
        raise RuntimeError(f'Attempted to set the storage of a tensor on device '
                           f'"{tensor.device}" to a storage on different device "{device}".  '
                           "This is no longer allowed; the devices must match.")


def _c_name(dtype) -> str:
    return _C_TYPE_NAMES.get(dtype.name, dtype.name)
