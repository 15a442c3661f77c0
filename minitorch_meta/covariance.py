"""``cov`` and ``corrcoef``: the covariance and correlation matrices of variables observed
together (rows are variables, columns observations), ``Tensor.cov`` and ``Tensor.corrcoef``.

Both are PyTorch's own compositions of existing differentiable ops (its
``Correlation.cpp``), so values, gradients, dtypes and ``grad_fn`` names are PyTorch's:
the weighted mean of each variable, the centred observations' weighted Gram matrix
(``mm``), divided by the normalisation ``sum(w) - correction * sum(w * aweights) / sum(w)``
(``sum(w) - correction`` without ``aweights``), squeezed. ``corrcoef`` divides by the
standard deviations on both sides and clips to [-1, 1].

The checks of the weights' values (negative, summing to zero) and the warning for a
normalisation at or below zero need values: on meta they are skipped.
"""

from __future__ import annotations

from . import dtypes
from .caller_warnings import warn_at_caller
from .functions import clamp, mm, sqrt
from .int_arguments import is_int


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """The covariance matrix of the variables in ``input``'s rows (a 1-D ``input`` is one
    variable), each observation (column) counted ``fweights`` times (integers) and weighted
    by ``aweights`` (floats); ``correction`` 1 is Bessel's, 0 the population's.

    Shape:
        ``(variables, observations)`` -> ``(variables, variables)``; one variable (a 1-D or
        a one-row input) -> a 0-d tensor. Integer input gives the default float dtype.

    Raises:
        RuntimeError: ``input`` has more than 2 dims, or the weights have the wrong dtype,
            dims, length or sign, or sum to zero (PyTorch's messages).
        TypeError: ``correction`` is not an int.
    """
    if not is_int(correction):
        raise TypeError(f"cov(): argument 'correction' must be int, not "
                        f"{type(correction).__name__}")
    _check_input("cov", input)
    x = input.reshape(1, -1) if input.dim() < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", "integral", observations)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", "floating point", observations)
        w = aweights if w is None else w * aweights
    w_sum = observations if w is None else w.sum()
    if w is not None and w_sum._backend.stores_data and not bool(w_sum != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (x if w is None else x * w).sum(1) / w_sum
    if aweights is None or correction == 0:
        norm_factor = w_sum - correction
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    norm_factor = _degrees_of_freedom(norm_factor)
    centred = x - mean.unsqueeze(1)
    other = (centred if w is None else centred * w).t()
    if other.is_complex():  # the Hermitian product: PyTorch's ``.t().conj()``
        other = other.conj()
    gram = mm(centred, other)
    return (gram / norm_factor).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in ``input``'s rows:
    ``cov(input)`` divided by the standard deviations of both variables, clipped to
    [-1, 1].

    Shape:
        as ``cov``'s (one variable: a 0-d tensor, ``c / c``).

    Raises:
        RuntimeError: ``input`` has more than 2 dims.
    """
    _check_input("corrcoef", input)
    c = cov(input)
    if c.dim() == 0:
        return c / c  # 1, or NaN for a constant or empty variable: PyTorch's
    stddev = sqrt(c.diagonal())
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return clamp(c, -1, 1)


def _check_input(op: str, input) -> None:
    if input.dim() > 2:
        raise RuntimeError(f"{op}(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")


def _check_weights(weights, name: str, kind: str, observations: int) -> None:
    """PyTorch's checks of ``fweights`` (``kind`` "integral") or ``aweights``."""
    if weights.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {weights.dim()} dimensions")
    floating = weights.dtype.is_floating_point
    if floating != (kind == "floating point") or weights.dtype is dtypes.bool_:
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{dtypes.SCALAR_TYPE_NAMES[weights.dtype]} dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != "
                           f"{observations}")
    if weights._backend.stores_data and bool((weights < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _degrees_of_freedom(norm_factor):
    """The normalisation, or 0 (PyTorch's warning) when it is not positive: the covariances
    then come out infinite or NaN, as PyTorch's do."""
    if isinstance(norm_factor, int):
        if norm_factor > 0:
            return norm_factor
    elif not norm_factor._backend.stores_data or bool(norm_factor > 0):
        return norm_factor
    warn_at_caller("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                   "than the number of observations.")
    return 0 if isinstance(norm_factor, int) else norm_factor * 0
