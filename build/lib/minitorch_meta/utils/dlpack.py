"""DLPack: tensors shared without a copy with NumPy, CuPy, PyTorch and any other library
that speaks the protocol (``torch.utils.dlpack``).

``Tensor.__dlpack__`` / ``__dlpack_device__`` export a tensor (so ``numpy.from_dlpack(t)``
and ``cupy.from_dlpack(t)`` view its memory), ``from_dlpack`` imports an object that has
them, or a capsule from ``to_dlpack``, onto the device the object names (CPU or CUDA).
The backend does the work (its ``dlpack``, ``dlpack_device`` and ``from_dlpack``
kernels); a meta tensor has no memory to share and refuses.
"""

from __future__ import annotations

import ctypes
import enum
from typing import TYPE_CHECKING

from ..backends.meta import HOW_TO_GET_DATA
from ..device import device as Device

if TYPE_CHECKING:  # tensor.py takes the methods from here, so no import at load time
    from ..tensor import Tensor


#: DLPack's device types, with PyTorch's member names (``DLDeviceType.kDLCPU``)
DLDeviceType = enum.IntEnum("DLDeviceType", [
    ("kDLCPU", 1), ("kDLCUDA", 2), ("kDLCUDAHost", 3), ("kDLOpenCL", 4), ("kDLVulkan", 7),
    ("kDLMetal", 8), ("kDLVPI", 9), ("kDLROCM", 10), ("kDLROCMHost", 11), ("kDLExtDev", 12),
    ("kDLCUDAManaged", 13), ("kDLOneAPI", 14), ("kDLWebGPU", 15), ("kDLHexagon", 16),
    ("kDLMAIA", 17)], module=__name__)


#: the DLPack device types minitorch_meta has a backend for
_DEVICE_TYPES = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "cuda"}


def tensor_dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule of this tensor's memory, for a consumer's
    ``from_dlpack``.

    Raises:
        BufferError: the tensor requires grad (export ``detach()``), or is on meta.
    """
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if not self._backend.stores_data:
        raise BufferError(f"Cannot pack tensors on meta: {HOW_TO_GET_DATA}")
    options = {name: value for name, value in (
        ("stream", stream), ("max_version", max_version), ("dl_device", dl_device),
        ("copy", copy)) if value is not None}
    return self._backend.dlpack(self._data, options)


def tensor_dlpack_device(self: Tensor) -> tuple[DLDeviceType, int]:
    """``Tensor.__dlpack_device__``: ``(DLDeviceType, index)`` of this tensor's device.

    Raises:
        ValueError: the tensor is on meta (DLPack has no such device).
    """
    if not self._backend.stores_data:
        raise ValueError(f"Unknown device type {self.device.type} for Dlpack")
    kind, index = self._backend.dlpack_device(self._data)
    return DLDeviceType(kind), index


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of ``tensor``'s memory (it can be imported once, by any
    library's ``from_dlpack``)."""
    # the versioned capsule (DLPack 1.0) carries the read-only flag, so NumPy imports it
    # writable; PyTorch and CuPy read both kinds
    return tensor_dlpack(tensor, max_version=(1, 0))


def from_dlpack(ext_tensor, *, device=None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor``: an object with ``__dlpack__`` (a NumPy
    or CuPy array, a PyTorch tensor, ...) or a capsule from ``to_dlpack``. ``device``
    moves it there (a copy unless it is already there); ``copy=True`` always copies,
    ``copy=False`` refuses to.

    Raises:
        RuntimeError: neither an exporter nor a valid (unused) capsule; BufferError: a
        device minitorch_meta has no backend for, or a copy needed under ``copy=False``.
    """
    from ..backends.registry import get_backend
    from ..tensor import Tensor

    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    kind, index = source.__dlpack_device__()
    if kind not in _DEVICE_TYPES:
        name = DLDeviceType(kind).name if kind in set(DLDeviceType) else kind
        raise BufferError(f"from_dlpack: the data lives on a DLPack device of type {name}, "
                          f"which minitorch_meta has no backend for (it has cpu and cuda)")
    home = Device(_DEVICE_TYPES[kind], index if kind == DLDeviceType.kDLCUDA else None)
    backend = get_backend(home)
    result = Tensor._make(backend.from_dlpack(source), backend)
    if device is not None and Device(device) != result.device:
        if copy is False:
            raise BufferError(f"from_dlpack: the data is on {result.device}; moving it to "
                              f"{Device(device)} needs a copy, but copy=False")
        return result.to(device)
    return result.clone() if copy else result


class _Capsule:
    """A DLPack capsule dressed as an exporter, so that the array module's ``from_dlpack``
    takes it; its device is read from the tensor the capsule holds."""

    def __init__(self, capsule):
        self.capsule = capsule
        self.device = _capsule_device(capsule)

    def __dlpack__(self, **options):
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


#: where ``DLTensor.device`` lies in the struct a capsule of each name points to: after
#: the data pointer in a ``DLManagedTensor``; after the version, the manager context, the
#: deleter and the flags (8 bytes each), then the data pointer, in a versioned one
_DEVICE_OFFSET = {b"dltensor": 8, b"dltensor_versioned": 40}


def _capsule_device(capsule) -> tuple[int, int]:
    """``(device type, index)`` of the unused DLPack capsule ``capsule``."""
    api = ctypes.pythonapi
    api.PyCapsule_IsValid.restype, api.PyCapsule_IsValid.argtypes = (
        ctypes.c_int, [ctypes.py_object, ctypes.c_char_p])
    api.PyCapsule_GetPointer.restype, api.PyCapsule_GetPointer.argtypes = (
        ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p])
    for name, offset in _DEVICE_OFFSET.items():
        if type(capsule).__name__ == "PyCapsule" and api.PyCapsule_IsValid(capsule, name):
            device = ctypes.cast(api.PyCapsule_GetPointer(capsule, name) + offset,
                                 ctypes.POINTER(ctypes.c_int32))
            return device[0], device[1]
    raise RuntimeError(f"from_dlpack received an invalid capsule. Note that DLTensor capsules "
                       f"can be consumed only once, so you might have already constructed a "
                       f"tensor from it once. (got {type(capsule).__name__}; pass an array "
                       f"with __dlpack__, such as a NumPy or CuPy array, or a capsule from "
                       f"to_dlpack)")


__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
