"""``asarray`` (a tensor from a Tensor, a NumPy array or Python data, sharing memory when it
can) and ``scalar_tensor`` (a 0-d tensor from a number)."""

from __future__ import annotations

from numbers import Number

import numpy as np

from . import dtypes
from .device import to_device
from .factories import from_numpy, full, tensor
from .ops.masked import fill_scalar
from .tensor import Tensor


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """``obj`` as a tensor, sharing its memory when ``dtype`` and ``device`` allow.

    A Tensor is returned itself when nothing changes; a (CPU) NumPy array is aliased as by
    ``from_numpy``; Python data is always copied (as by ``tensor()``). ``copy=True`` always
    copies, ``copy=False`` never does (an error when it would have to), ``copy=None`` copies
    only when needed. A copy of a tensor stays in its graph (``CloneBackward0`` or
    ``ToCopyBackward0``). ``requires_grad`` (default: the result's own) is set on the result:
    on an aliased leaf that is ``obj`` itself, as in PyTorch; a non-leaf is detached to stop.

    Raises:
        ValueError: ``copy=False`` but the dtype or device differs, or ``obj`` is Python data.
        TypeError: the NumPy dtype is unsupported.
    """
    if isinstance(obj, Tensor):
        result = _from_tensor(obj, dtype, device, copy)
    elif isinstance(obj, np.ndarray):
        result = _from_numpy_array(obj, dtype, device, copy)
    else:
        if copy is False:
            raise ValueError(f"can't alias arbitrary sequence into a tensor: a "
                             f"{type(obj).__name__} has no tensor memory to share; pass "
                             f"copy=None (or True) to copy it")
        result = tensor(obj, dtype=dtype, device=device)
    return _with_requires_grad(result, requires_grad)


def _from_tensor(obj: Tensor, dtype, device, copy) -> Tensor:
    target_device = obj.device if device is None else to_device(device)
    target_dtype = obj.dtype if dtype is None else dtypes.to_dtype(dtype)
    _check_alias(copy, obj.device, target_device, obj.dtype, target_dtype)
    if target_device != obj.device or target_dtype is not obj.dtype:
        return obj.to(device=target_device, dtype=target_dtype)
    return obj.clone() if copy else obj


def _from_numpy_array(obj: np.ndarray, dtype, device, copy) -> Tensor:
    source_dtype = dtypes.from_numpy(obj.dtype)  # raises for an unsupported NumPy dtype
    target_dtype = source_dtype if dtype is None else dtypes.to_dtype(dtype)
    target_device = to_device(device)
    _check_alias(copy, to_device("cpu"), target_device, source_dtype, target_dtype)
    if copy or target_device.type != "cpu" or target_dtype is not source_dtype:
        return tensor(obj, dtype=target_dtype, device=target_device)
    return from_numpy(obj)


def _check_alias(copy, device, target_device, dtype, target_dtype) -> None:
    """``copy=False`` promises the memory is shared: refuse what would need a copy."""
    if copy is not False:
        return
    if target_device != device:
        raise ValueError(f"can't alias tensor from device '{device}' to '{target_device}' "
                         f"(copy=False); pass copy=None to allow a copy")
    if target_dtype is not dtype:
        raise ValueError(f"can't alias tensor with dtype {dtype} into dtype {target_dtype} "
                         f"(copy=False); pass copy=None to allow a copy")


def _with_requires_grad(result: Tensor, requires_grad: bool | None) -> Tensor:
    if requires_grad is None or bool(requires_grad) == result.requires_grad:
        return result
    if requires_grad:
        return result.requires_grad_(True)
    # A leaf can drop the flag in place; a result of an op has to leave its graph.
    return result.requires_grad_(False) if result.grad_fn is None else result.detach()


def scalar_tensor(s: Number, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s``, of the default floating-point dtype unless ``dtype`` is
    given (``scalar_tensor(1)`` is ``tensor(1.)``).

    Shape:
        ``()``.

    Raises:
        TypeError: ``s`` is not a number.
        RuntimeError: ``s`` does not fit ``dtype`` (300 as uint8, NaN as int64).
    """
    if getattr(s, "shape", None) == () and (isinstance(s, np.generic) or hasattr(s, "_data")):
        s = s.item()  # a NumPy scalar or a 0-d tensor is a number here, as in PyTorch
    if not isinstance(s, Number) or isinstance(s, complex):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    return full((), fill_scalar("scalar_tensor", s, dtype), dtype=dtype, device=device,
                requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-D CPU tensor viewing the memory of ``buffer`` (any object of Python's buffer
    protocol: ``bytearray``, ``array.array``, ``memoryview``, ...): ``count`` elements of
    ``dtype`` (-1: all that fit) from byte ``offset`` on. Writes through the tensor reach
    the buffer; a read-only buffer (``bytes``) gives a read-only tensor, with a warning.

    Shape:
        ``(count,)``, or ``((len(buffer) - offset) / itemsize,)`` for ``count=-1``.

    Raises:
        ValueError: ``buffer`` has no buffer protocol, or the sizes do not fit (PyTorch's
        messages). RuntimeError: ``requires_grad`` with a dtype that is not floating-point.
    """
    from .caller_warnings import warn_at_caller

    dtype = dtypes.to_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, itemsize = view.nbytes, dtype.numpy.itemsize
    _check_buffer_sizes(length, itemsize, count, offset)
    available = (length - offset) // itemsize
    array = np.frombuffer(view, dtype=dtype.numpy, count=count if count > 0 else available,
                          offset=offset)
    if view.readonly:
        warn_at_caller("The given buffer is not writable: the tensor shares its memory and is "
                       "read-only here (in-place writes raise); copy the buffer first (e.g. "
                       "bytearray(buffer)) for a writable tensor", UserWarning)
    result = from_numpy(array)
    return result.requires_grad_(True) if requires_grad else result


def _check_buffer_sizes(length: int, itemsize: int, count: int, offset: int) -> None:
    """PyTorch's checks of ``frombuffer``'s ``count`` and ``offset`` against a buffer of
    ``length`` bytes."""
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % itemsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({itemsize})")
    if count > 0 and length - offset < count * itemsize:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
