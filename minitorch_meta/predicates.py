"""Questions about a tensor: ``is_floating_point``, ``is_complex``, ``is_signed``,
``is_nonzero``, ``is_same_size`` (functions and methods), and the methods ``get_device``,
``ndimension``, ``is_inference``, ``is_cpu``, and ``byte``, ``char`` and ``short``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes
from .tensor_arguments import require_tensor

if TYPE_CHECKING:  # tensor.py imports the methods from here, so no import at load time
    from .tensor import Tensor


def is_floating_point(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """Whether ``input``'s dtype is a floating-point one (float16, float32, float64)."""
    require_tensor("is_floating_point", "input", input, 1)
    return input.dtype.is_floating_point


def is_complex(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype is complex (complex64, complex128)."""
    require_tensor("is_complex", "input", input, 1)
    return input.dtype.is_complex


def is_signed(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input``'s dtype holds negative numbers (all but bool and the unsigned)."""
    require_tensor("is_signed", "input", input, 1)
    return input.dtype not in (dtypes.bool_, dtypes.uint8) and \
        input.dtype not in dtypes.UNSIGNED_SHELL


def is_nonzero(input: Tensor) -> bool:  # noqa: A002
    """Whether the single element of ``input`` is not zero (``bool(input)``).

    Raises:
        RuntimeError: ``input`` has no element or more than one; or it is on meta (no value).
    """
    require_tensor("is_nonzero", "input", input, 1)
    count = input.numel()
    if count != 1:
        amount = "no values" if count == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous: is_nonzero "
                           f"takes a tensor of exactly one element, got shape "
                           f"{tuple(input.shape)}")
    return bool(input.item())


def is_same_size(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """Whether ``input`` and ``other`` have the same shape."""
    require_tensor("is_same_size", "input", input, 1)
    require_tensor("is_same_size", "other", other, 2)
    return input.shape == other.shape


def get_device(self: Tensor) -> int:
    """The CUDA device index of a CUDA tensor; -1 for any other (cpu, meta)."""
    if self.device.type != "cuda":
        return -1
    return self._backend.device.index  # "cuda" means the current device: its index


def ndimension(self: Tensor) -> int:
    """The number of dimensions (``dim()``)."""
    return self.dim()


def is_inference(input: Tensor) -> bool:  # noqa: A002
    """Whether this is a PyTorch "inference tensor": never here, as tensors made under
    ``inference_mode`` are ordinary ones (docs/differences.md)."""
    require_tensor("is_inference", "input", input, 1)
    return False


def is_cpu(self: Tensor) -> bool:
    """Whether the tensor lives on the cpu (``Tensor.is_cpu``, a property)."""
    return self.device.type == "cpu"


def byte(self: Tensor) -> Tensor:
    """This tensor as uint8 (``to(torch.uint8)``: a float is truncated toward zero)."""
    return self.to(dtypes.uint8)


def char(self: Tensor) -> Tensor:
    """This tensor as int8 (``to(torch.int8)``)."""
    return self.to(dtypes.int8)


def short(self: Tensor) -> Tensor:
    """This tensor as int16 (``to(torch.int16)``)."""
    return self.to(dtypes.int16)


def is_distributed(input: Tensor) -> bool:  # noqa: A002 - PyTorch's name
    """False: no tensor here is a distributed tensor (PyTorch's answer for ordinary ones).

    Raises:
        TypeError: ``input`` is not a tensor.
    """
    require_tensor("is_distributed", "input", input, 1)
    return False
