"""Yet more activations as functions (``nn.functional``): ``glu``, ``softmin``,
``hardshrink``, ``softshrink``, ``tanhshrink``, ``threshold``, ``celu`` and ``rrelu``, and
the in-place forms ``relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``, ``selu_``,
``celu_``, ``threshold_`` and ``rrelu_``.

Thin wrappers over the ops in ``ops/glu.py``, ``ops/shrink.py``, ``ops/rrelu.py`` and
``ops/activations.py``; ``softmin`` and ``tanhshrink`` are composed, as PyTorch composes
them. ``inplace=True`` is accepted and returns a new tensor, as for ``relu``
(docs/differences.md). The in-place forms write into their input under the rules of
``Tensor.add_``: refused on a tensor that is part of an autograd graph while grad mode is
on.
"""

from __future__ import annotations

from .. import functions
from ..autocasting import autocast_op
from ..factories import rand
from ..ops import activations, elementwise, hard_activations, shrink
from ..ops import glu as glu_ops
from ..ops import rrelu as rrelu_ops
from ..tensor import Tensor


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)``, ``a`` and ``b`` the first and second halves of ``input`` along
    ``dim``.

    Shape:
        ``(*, 2 n, *)`` -> ``(*, n, *)``.

    Raises:
        RuntimeError: a 0-d input, or an odd size along ``dim``.
    """
    return glu_ops.Glu(dim)(input)


@autocast_op("softmin")
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """``softmax(-input)`` along ``dim`` (``dtype``: cast first); ``dim=None`` takes
    PyTorch's legacy implicit dim, with its warning.

    Shape:
        unchanged.
    """
    from .functional import _softmax_dim

    if dtype is not None:
        input = input.to(dtype)
    return functions.softmax(-input, _softmax_dim("softmin", input, dim))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0.

    Shape:
        unchanged.
    """
    return shrink.Hardshrink(lambd)(input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` moved ``lambd`` towards 0, and 0 where ``|input| <= lambd``.

    Shape:
        unchanged.

    Raises:
        RuntimeError: ``lambd`` is negative.
    """
    return shrink.Softshrink(lambd)(input)


def tanhshrink(input: Tensor) -> Tensor:
    """``input - tanh(input)``, composed as PyTorch composes it (``SubBackward0``).

    Shape:
        unchanged.
    """
    return input - functions.tanh(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold``, else ``input``.

    Shape:
        unchanged (an integer tensor keeps its dtype).
    """
    return shrink.Threshold(threshold, value)(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``alpha * (exp(input / alpha) - 1)``.

    Shape:
        unchanged.

    Raises:
        RuntimeError: ``alpha`` is 0.
    """
    return activations.Celu(alpha)(input)


def rrelu(input: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
          training: bool = False, inplace: bool = False) -> Tensor:
    """``input`` where positive, else ``slope * input``: while ``training``, a slope drawn
    from ``U(lower, upper)`` for each element (from the global generator); otherwise the
    mean slope ``(lower + upper) / 2``.

    Shape:
        unchanged.

    Raises:
        RuntimeError: ``lower > upper``.
    """
    op = rrelu_ops.RreluWithNoise(lower, upper)
    if not training:
        return op(input)
    # an integer input draws float32 noise, and the op then refuses it with its own error
    dtype = input.dtype if input.is_floating_point() else None
    noise = rand(tuple(input.shape), dtype=dtype, device=input.device)
    return op(input, noise * (op.upper - op.lower) + op.lower)


# -- in-place forms -------------------------------------------------------------------

def relu_(input: Tensor) -> Tensor:
    """``relu`` written into ``input``."""
    return input._inplace("relu_", functions.relu)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``elu`` written into ``input``."""
    return input._inplace("elu_", activations.Elu(alpha))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` written into ``input``."""
    return input._inplace("leaky_relu_", elementwise.LeakyRelu(negative_slope))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh`` written into ``input``."""
    return input._inplace("hardtanh_", hard_activations.Hardtanh(min_val, max_val))


def selu_(input: Tensor) -> Tensor:
    """``selu`` written into ``input``."""
    return input._inplace("selu_", functions.selu)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu`` written into ``input``."""
    return input._inplace("celu_", activations.Celu(alpha))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold`` written into ``input``."""
    return input._inplace("threshold_", shrink.Threshold(threshold, value))


def rrelu_(input: Tensor, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0,
           training: bool = False) -> Tensor:
    """``rrelu`` written into ``input``."""
    return input._inplace("rrelu_", rrelu, lower, upper, training)
