"""The public functions of complex numbers: ``real``, ``imag``, ``view_as_real``,
``view_as_complex``, ``complex``, ``polar`` and ``angle``, and the ``Tensor.real`` /
``Tensor.imag`` properties with their setters (ops in ``ops/complex_parts.py``).
"""

from __future__ import annotations

from numbers import Number
from typing import TYPE_CHECKING

from .ops.complex_parts import Angle, Complex, Part, Polar, ViewAsComplex, ViewAsReal

if TYPE_CHECKING:  # tensor_methods.py imports this module: no import of tensor.py here
    from .tensor import Tensor


def _tensor(op: str, name: str, position: int, value) -> None:
    if not hasattr(value, "_data"):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def real(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """The real parts of a complex tensor, as a view (writing into it writes into
    ``input``); a real tensor is its own real part (``input`` itself).

    Shape:
        unchanged; the dtype is the parts' (complex64 -> float32).
    """
    _tensor("real", "input", 1, input)
    return Part()(input) if input.dtype.is_complex else input


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary parts of a complex tensor, as a view.

    Shape:
        unchanged; the dtype is the parts' (complex64 -> float32).

    Raises:
        RuntimeError: ``input`` is real (PyTorch's error).
    """
    _tensor("imag", "input", 1, input)
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
    _tensor("view_as_real", "input", 1, input)
    return ViewAsReal()(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """A real tensor with a last dim of size 2 (real, imaginary) as a complex view.

    Shape:
        ``(*s, 2)`` -> ``(*s)``.
    """
    _tensor("view_as_complex", "input", 1, input)
    return ViewAsComplex()(input)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    """The complex tensor ``real + i imag`` (both real, of one floating dtype).

    Shape:
        ``real`` and ``imag`` broadcast together.
    """
    _tensor("complex", "real", 1, real)
    _tensor("complex", "imag", 2, imag)
    return Complex()(real, imag)


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """The complex tensor of magnitudes ``abs`` and arguments ``angle`` (both real, of one
    floating dtype): ``abs * (cos(angle) + i sin(angle))``.

    Shape:
        ``abs`` and ``angle`` broadcast together.
    """
    _tensor("polar", "abs", 1, abs)
    _tensor("polar", "angle", 2, angle)
    return Polar()(abs, angle)


def angle(input: Tensor) -> Tensor:  # noqa: A002
    """The argument of each element in (-pi, pi] (a real tensor: pi where negative, else 0;
    NaN stays NaN).

    Shape:
        unchanged; the dtype is real (complex64 -> float32, integers -> the default float).
    """
    _tensor("angle", "input", 1, input)
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
