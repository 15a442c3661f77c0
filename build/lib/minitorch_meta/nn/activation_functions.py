"""More activations as functions (``nn.functional``): ``softplus``, ``elu``, ``selu``,
``relu6``, ``hardtanh``, ``hardsigmoid``, ``hardswish``, ``logsigmoid``, ``mish``,
``softsign`` and ``prelu``.

Thin wrappers over the ops in ``ops/activations.py``, ``ops/hard_activations.py`` and
``ops/prelu.py`` (``selu`` and ``prelu`` through ``torch.selu`` and ``torch.prelu``);
``softsign`` is composed, as PyTorch composes it. ``inplace=True`` is accepted and returns
a new tensor, as ``relu`` and ``leaky_relu`` do (docs/differences.md).
"""

from __future__ import annotations

from .. import functions
from ..autocasting import autocast_op
from ..ops import activations, hard_activations
from ..tensor import Tensor


@autocast_op("softplus")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``; ``x`` itself where ``beta * x > threshold``.

    Shape:
        unchanged.

    Raises:
        TypeError: ``input`` is not floating-point, or ``beta``/``threshold`` not numbers.
    """
    return activations.Softplus(beta, threshold)(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Shape:
        unchanged.
    """
    return activations.Elu(alpha)(input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with PyTorch's fixed ``alpha ≈ 1.6733``, ``scale ≈ 1.0507``.

    Shape:
        unchanged.
    """
    return functions.selu(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``input`` limited to ``[min_val, max_val]``; the gradient passes strictly inside.

    Shape:
        unchanged (an integer tensor keeps its dtype).

    Raises:
        ValueError: ``min_val > max_val``. RuntimeError: a bool input.
    """
    return hard_activations.Hardtanh(min_val, max_val)(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: ``hardtanh(x, 0, 6)``, as in PyTorch.

    Shape:
        unchanged.
    """
    return hard_activations.Hardtanh(0.0, 6.0)(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6``.

    Shape:
        unchanged.
    """
    return hard_activations.Hardsigmoid()(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6``.

    Shape:
        unchanged.
    """
    return hard_activations.Hardswish()(input)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, finite for large ``|x|``.

    Shape:
        unchanged.
    """
    return activations.LogSigmoid()(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    Shape:
        unchanged.
    """
    return activations.Mish()(input)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``, composed as PyTorch composes it (``grad_fn``: ``DivBackward0``).

    Shape:
        unchanged (an integer input gives float32, as a true division does).
    """
    return functions.div(input, functions.abs(input) + 1)


@autocast_op("prelu")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, else ``weight * x``, ``weight`` having one slope per channel
    (dimension 1) or one for all.

    Shape:
        input ``(N, C, *)`` (or 1-D, or 0-d), weight ``(C,)`` or ``(1,)`` -> unchanged.

    Raises:
        TypeError: ``weight`` is not a Tensor, or the input is not floating-point.
        RuntimeError: the weight's size or dtype does not fit the input (PyTorch's messages).
    """
    return functions.prelu(input, weight)
