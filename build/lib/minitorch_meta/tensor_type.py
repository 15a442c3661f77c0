"""PyTorch's legacy tensor type names (``'torch.FloatTensor'``, ``'torch.cuda.LongTensor'``):
what ``Tensor.type()`` returns, and the conversions ``Tensor.type(...)`` accepts.

A type name says a dtype and a device kind together, so converting to one can move the
tensor: ``x.type('torch.DoubleTensor')`` is a float64 CPU tensor whatever ``x``'s device.
"""

from __future__ import annotations

from . import dtypes

#: the ``<Name>Tensor`` part of each dtype's type name
_NAMES = dtypes.SCALAR_TYPE_NAMES
_BY_NAME = {f"{name}Tensor": dtype for dtype, name in _NAMES.items()}


def type_name(dtype, device) -> str:
    """PyTorch's name of the type of a tensor of ``dtype`` on ``device``: the device kind
    is part of it except on the CPU (``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'``,
    ``'torch.meta.FloatTensor'``)."""
    where = "" if device.type == "cpu" else f"{device.type}."
    return f"torch.{where}{_NAMES[dtype]}Tensor"


def convert(tensor, target):
    """``tensor`` as ``target``: a dtype (same device), a type name or a legacy typed
    constructor such as ``torch.DoubleTensor`` (its dtype, on its device kind). ``tensor``
    itself when nothing changes.

    Raises:
        ValueError for a string or a Python type that names no tensor type (PyTorch's
        "invalid type"); TypeError for any other kind of value.
    """
    if isinstance(target, dtypes.dtype):
        return tensor.to(target)
    from .legacy import _LegacyTensorType

    if isinstance(target, type) and issubclass(target, _LegacyTensorType):
        return tensor.to("cpu", target.dtype)  # the legacy constructors make CPU tensors
    if isinstance(target, (str, type)):
        dtype, device = _parse(target if isinstance(target, str) else target.__name__)
        if device == "cuda" and tensor.device.type == "cuda":
            device = tensor.device  # a CUDA type keeps the tensor on its own GPU
        return tensor.to(device, dtype)
    raise TypeError(f"type(): dtype must be a type, str, or dtype object, got "
                    f"{type(target).__name__}; pass e.g. torch.float64 or 'torch.DoubleTensor'")


def _parse(name: str) -> tuple:
    """``(dtype, device kind)`` of a type name such as ``'torch.cuda.LongTensor'``."""
    parts = name.split(".")
    if parts[0] == "torch" and len(parts) in (2, 3) and parts[1:-1] in ([], ["cuda"]):
        device = "cuda" if len(parts) == 3 else "cpu"
        if parts[-1] == "Tensor":  # the default tensor type: the default float dtype
            return dtypes.get_default_dtype(), device
        if parts[-1] in _BY_NAME:
            return _BY_NAME[parts[-1]], device
    known = ", ".join(f"'torch.{n}'" for n in _BY_NAME)
    raise ValueError(f"invalid type: {name!r}; expected a tensor type name ({known}, or the "
                     "same with 'torch.cuda.') or a dtype such as torch.float64")


__all__ = ["convert", "type_name"]
