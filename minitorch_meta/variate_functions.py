"""``torch.poisson``, ``torch.binomial`` and ``torch._standard_gamma``: draws from tensors of
parameters (the ops are in ``ops/random_variates.py``), from the generator of the
parameters' device or ``generator=``, so ``manual_seed`` reproduces them."""

from __future__ import annotations

from .ops import random_variates
from .random import generator_for
from .tensor import Tensor
from .tensor_arguments import require_tensor


def poisson(input, generator=None) -> Tensor:
    """Poisson counts of rate ``input`` (non-negative floats), elementwise, in ``input``'s
    dtype. The gradient through them is zero, as PyTorch's."""
    require_tensor("poisson", "input", input, 1)
    return random_variates.Poisson(generator=generator_for(generator, input._backend))(input)


def binomial(count, prob, generator=None) -> Tensor:
    """Successes in ``count`` trials of probability ``prob`` (float tensors of one dtype,
    broadcast together), elementwise. Not differentiable, as PyTorch's."""
    require_tensor("binomial", "count", count, 1)
    require_tensor("binomial", "prob", prob, 2)
    if count.shape != prob.shape:
        count, prob = count.broadcast_to(_both(count, prob)), prob.broadcast_to(
            _both(count, prob))
    return random_variates.Binomial(generator=generator_for(generator, count._backend))(count, prob)


def _both(a: Tensor, b: Tensor) -> tuple:
    from .ops import shapes

    return shapes.broadcast("binomial", tuple(a.shape), tuple(b.shape))


def _standard_gamma(input, generator=None) -> Tensor:
    """Gamma(``input``, 1) draws, elementwise, each at least the dtype's smallest normal
    number; differentiable in ``input`` (PyTorch's ``StandardGammaBackward0``: the implicit
    reparameterisation gradient)."""
    require_tensor("_standard_gamma", "input", input, 1)
    return random_variates.StandardGamma(generator=generator_for(generator, input._backend))(input)
