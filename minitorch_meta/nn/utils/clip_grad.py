"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``, PyTorch's semantics.

Gradients are scaled or clamped in place, under ``no_grad``, so no graph node is made.
Parameters whose ``grad`` is None are skipped.
"""

from __future__ import annotations

import math
import types
from collections.abc import Iterable

from ... import factories, functions
from ...autograd import no_grad
from ...caller_warnings import warn_at_caller
from ...linalg import vector_norm
from ...tensor import Tensor

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list:
    """A single tensor or an iterable of them (a generator too: read once) as a list."""
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


@no_grad()
def get_total_norm(tensors: TensorOrTensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as if concatenated into one
    vector (the norm of their norms), on the first tensor's device; ``tensor(0.)`` for none.

    ``foreach`` is accepted for PyTorch's signature; there is one implementation.

    Raises:
        RuntimeError when ``error_if_nonfinite`` and the norm is nan or infinite.
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return factories.tensor(0.0)
    first_device = tensors[0].device
    norms = [vector_norm(t, norm_type).to(first_device) for t in tensors]
    total = vector_norm(functions.stack(norms), norm_type)
    if error_if_nonfinite and total._backend.stores_data and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters: TensorOrTensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every gradient in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    The product is taken even when the coefficient is 1 (PyTorch's choice: testing it would
    wait for the device), so the gradients are always rewritten.
    """
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = functions.clamp(clip_coef, max=1.0)
    for grad in grads:
        grad.mul_(clip_coef_clamped.to(grad.device))


@no_grad()
def clip_grad_norm_(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total norm (see
    ``get_total_norm``) is at most about ``max_norm``; return that total norm, before
    clipping.

    ``norm_type`` may be ``float('inf')`` or ``'inf'``.

    Raises:
        RuntimeError when ``error_if_nonfinite`` and the total norm is nan or infinite.
    """
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and not parameters:
        warn_at_caller("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p._grad for p in parameters if p._grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@no_grad()
def clip_grad_value_(parameters: TensorOrTensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p._grad is not None:
            p._grad.clamp_(min=-clip_value, max=clip_value)
