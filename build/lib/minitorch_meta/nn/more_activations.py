"""More activation layers: ``Softplus``, ``ELU``, ``SELU``, ``Hardtanh``, ``ReLU6``,
``Hardsigmoid``, ``Hardswish``, ``LogSigmoid``, ``Mish``, ``Softsign``, ``Softmax2d`` and
``PReLU`` (with its learnable slopes).

Constructor arguments and reprs are PyTorch's. ``inplace=True`` is accepted and shown in
the repr where PyTorch shows it, but the result is always a new tensor, as for ``ReLU``
(docs/differences.md).
"""

from __future__ import annotations

from ..caller_warnings import warn_at_caller
from ..factories import empty
from ..ops.shapes import ShapeError, fmt
from ..tensor import Tensor
from . import activation_functions as A
from . import functional as F
from .activation import InplaceActivation
from .init import constant_
from .module import Module
from .parameter import Parameter


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``.

    Shape:
        unchanged.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return A.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class AlphaActivation(Module):
    """An activation with one ``alpha`` and PyTorch's ``inplace`` flag (ELU, CELU): their
    constructor and repr; each subclass's ``forward`` applies its function."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class ELU(AlphaActivation):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.elu(input, self.alpha)


class SELU(InplaceActivation):
    """Scaled ELU with PyTorch's fixed constants (self-normalising networks).

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.selu(input)


class Hardtanh(Module):
    """``x`` limited to ``[min_val, max_val]``.

    ``min_value``/``max_value`` are PyTorch's deprecated spellings (with its warning).

    Shape:
        unchanged.

    Raises:
        AssertionError: ``max_val <= min_val`` (PyTorch's type and message).
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        min_val = _renamed("min_value", "min_val", min_value, min_val)
        max_val = _renamed("max_value", "max_val", max_value, max_val)
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if max_val <= min_val:
            # PyTorch raises AssertionError explicitly; so do we (an ``assert`` would vanish
            # under ``python -O``).
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val "
                                 f"({min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return A.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


def _renamed(old: str, new: str, old_value, value):
    if old_value is None:
        return value
    warn_at_caller(f"keyword argument `{old}` is deprecated and renamed to `{new}`",
                   FutureWarning)
    return old_value


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``: a ``Hardtanh(0, 6)``, as in PyTorch.

    Shape:
        unchanged.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _QuietInplaceActivation(InplaceActivation):
    """The base of ``Hardsigmoid`` and ``Hardswish``: they take ``inplace``, but PyTorch's
    reprs never show it. Shared here rather than by deriving ``Hardswish`` from
    ``Hardsigmoid``, which PyTorch does not do."""

    def extra_repr(self) -> str:
        return ""


class Hardsigmoid(_QuietInplaceActivation):
    """``min(max(x + 3, 0), 6) / 6``; PyTorch's repr never shows ``inplace``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.hardsigmoid(input)


class Hardswish(_QuietInplaceActivation):
    """``x * min(max(x + 3, 0), 6) / 6`` (MobileNetV3); its repr never shows ``inplace``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.hardswish(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, finite for large ``|x|``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.logsigmoid(input)


class Mish(InplaceActivation):
    """``x * tanh(softplus(x))``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.mish(input)


class Softsign(Module):
    """``x / (1 + |x|)``.

    Shape:
        unchanged.
    """

    def forward(self, input: Tensor) -> Tensor:
        return A.softsign(input)


class Softmax2d(Module):
    """Softmax over the channels at each position: ``softmax`` along dim -3.

    Shape:
        ``(N, C, H, W)`` or ``(C, H, W)`` -> unchanged.

    Raises:
        ValueError: the input is not 3-D or 4-D (PyTorch's type; a ``ShapeError``, which is
            a ``ValueError``, with PyTorch's message).
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ShapeError("Softmax2d", f"expected input to be 3D or 4D, got {input.dim()}D "
                                          f"instead (input shape {fmt(input.shape)})")
        return F.softmax(input, -3)


class PReLU(Module):
    """``x`` where positive, else ``weight * x``, with ``num_parameters`` learnable slopes
    (1: one shared slope; else one per channel, dimension 1), all starting at ``init``.

    Shape:
        ``(N, C, *)`` -> unchanged; ``weight``: ``(num_parameters,)``.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope back to ``init``."""
        constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return A.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
