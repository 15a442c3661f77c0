"""The public functions of complex numbers: ``real``, ``imag``, ``view_as_real``,
``view_as_complex``, ``complex``, ``polar`` and ``angle``, and the ``Tensor.real`` /
``Tensor.imag`` properties with their setters (ops in ``ops/complex_parts.py``).
"""

from __future__ import annotations

from numbers import Number
from typing import TYPE_CHECKING

from .ops.complex_parts import Angle, Complex, Part, Polar, ViewAsComplex, ViewAsReal
from .tensor_arguments import require_tensor

if TYPE_CHECKING:  # tensor_methods.py imports this module: no import of tensor.py here
    from .tensor import Tensor


def real(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """The real parts of a complex tensor, as a view (writing into it writes into
    ``input``); a real tensor is its own real part (``input`` itself).

    Shape:
        unchanged; the dtype is the parts' (complex64 -> float32).
    """
    require_tensor("real", "input", input, 1)
    return Part()(input) if input.dtype.is_complex else input


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary parts of a complex tensor, as a view.

    Shape:
        unchanged; the dtype is the parts' (complex64 -> float32).

    Raises:
        RuntimeError: ``input`` is real (PyTorch's error).
    """
    require_tensor("imag", "input", input, 1)
    if not input.dtype.is_complex:
        raise RuntimeError(f"imag is not implemented for tensors with non-complex dtypes "
                           f"(got {input.dtype}); a real tensor's imaginary part is "
                           "torch.zeros_like(input)")
    return Part(imaginary=True)(input)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """A complex tensor as a real view with a last dim of size 2 (real, imaginary).

    Shape:
        ``(*s)`` -> ``(*s, 2)``.
    """
    require_tensor("view_as_real", "input", input, 1)
    return ViewAsReal()(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """A real tensor with a last dim of size 2 (real, imaginary) as a complex view.

    Shape:
        ``(*s, 2)`` -> ``(*s)``.
    """
    require_tensor("view_as_complex", "input", input, 1)
    return ViewAsComplex()(input)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    """The complex tensor ``real + i imag`` (both real, of one floating dtype).

    Shape:
        ``real`` and ``imag`` broadcast together.
    """
    require_tensor("complex", "real", real, 1)
    require_tensor("complex", "imag", imag, 2)
    return Complex()(real, imag)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """The complex tensor of magnitudes ``abs`` and arguments ``angle`` (both real, of one
    floating dtype): ``abs * (cos(angle) + i sin(angle))``.

    Shape:
        ``abs`` and ``angle`` broadcast together.
    """
    require_tensor("polar", "abs", abs, 1)
    require_tensor("polar", "angle", angle, 2)
    return Polar()(abs, angle)


def angle(input: Tensor) -> Tensor:  # noqa: A002
    """The argument of each element in (-pi, pi] (a real tensor: pi where negative, else 0;
    NaN stays NaN).

    Shape:
        unchanged; the dtype is real (complex64 -> float32, integers -> the default float).
    """
    require_tensor("angle", "input", input, 1)
    return Angle()(input)


def _write_part(part: Tensor, value) -> None:
    """``part`` (a view) overwritten with ``value``, a tensor or a number."""
    if isinstance(value, Number) and not hasattr(value, "_data"):
        part.fill_(value)
    else:
        part.copy_(value)


def set_real(self: Tensor, value) -> None:
    """``t.real = value``: writes ``value`` into the real parts of ``t`` (all of a real
    ``t``)."""
    _write_part(real(self), value)


def set_imag(self: Tensor, value) -> None:
    """``t.imag = value``: writes ``value`` into the imaginary parts of a complex ``t``."""
    _write_part(imag(self), value)
