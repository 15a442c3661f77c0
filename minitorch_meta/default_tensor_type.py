"""``set_default_tensor_type``: PyTorch's deprecated way to set the default float dtype
(and, with a ``torch.cuda`` type, the default device)."""

from __future__ import annotations

from .caller_warnings import warn_at_caller

#: PyTorch's deprecation warning, word for word (without its C++ location)
DEPRECATION = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.")


def set_default_tensor_type(t, /) -> None:
    """``set_default_dtype`` of the type's dtype; a CUDA type (``'torch.cuda.FloatTensor'``)
    also makes cuda the default device (a CPU type leaves the default device as it is, as
    in PyTorch). Warns with PyTorch's ``UserWarning``.

    Raises:
        TypeError: a type that is not floating point, or a value that names no type.
        ValueError: a string that names no tensor type.
    """
    from . import tensor_type
    from .device import set_default_device
    from .dtypes import set_default_dtype
    from .legacy import _LegacyTensorType

    warn_at_caller(DEPRECATION, UserWarning)
    if isinstance(t, type) and issubclass(t, _LegacyTensorType):
        dtype, device = t.dtype, "cpu"
    elif isinstance(t, str):
        dtype, device = tensor_type._parse(t)
    else:
        raise TypeError(f"invalid type object: only floating-point types are supported as the "
                        f"default type (got {t!r}; pass torch.DoubleTensor or "
                        "'torch.FloatTensor', or use torch.set_default_dtype)")
    if not dtype.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type (got "
                        f"{dtype})")
    set_default_dtype(dtype)
    if device == "cuda":
        set_default_device("cuda")
