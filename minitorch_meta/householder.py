"""Householder reflections in LAPACK's compact form: ``torch.geqrf`` makes them (the op is
in ``ops/geqrf.py``), ``linalg.householder_product`` (``torch.orgqr``) and ``torch.ormqr``
multiply them out.

Column ``i`` of ``A`` below its diagonal, with a 1 on the diagonal, is the vector ``v_i``
of the reflection ``H_i = I - tau_i v_i v_iᵀ``. Both functions are composed of
differentiable matrix products, one reflection at a time, so values and gradients are
exact; the last node takes PyTorch's name. The reflections touch only ``A``'s strictly
lower triangle, so its other entries get a zero gradient, as in PyTorch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes, factories
from . import return_types as rt
from .ops import linalg_checks as checks
from .ops.geqrf import Geqrf
from .ops.matrix_arrays import split_result
from .ops.shapes import fmt
from .tensor_arguments import require_tensors

if TYPE_CHECKING:
    from .tensor import Tensor

_OP = "torch.linalg.householder_product"


def geqrf(input: Tensor):
    """``(a, tau)``: the QR factorisation of each matrix as LAPACK's geqrf leaves it, ``R``
    on and above the diagonal, the Householder vectors below it, and their scales ``tau``;
    ``linalg.householder_product(a, tau)`` is ``Q``. Not differentiable (as PyTorch's).

    Shape:
        ``(*, m, n)`` -> ``a`` ``(*, m, n)`` and ``tau`` ``(*, min(m, n))``.
    """
    op = Geqrf()
    return rt.GeqrfResult(*split_result(op(input), op.parts, op.backward_name))


def _check_reflectors(op: str, A: Tensor, tau: Tensor) -> None:
    """PyTorch's checks of ``(A, tau)``, in its order."""
    require_tensors(op, ("input", A), ("tau", tau))
    if A.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if tau.dim() - A.dim() != -1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{A.dim()}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{op}: tau dtype {checks.type_name(tau.dtype)} does not match "
                           f"input dtype {checks.type_name(A.dtype)}")
    if A.dtype not in (dtypes.float32, dtypes.float64):
        # LAPACK's orgqr/ormqr have no other real types (PyTorch's dispatch error)
        raise NotImplementedError(f"\"{op}\" not implemented for '{checks.type_name(A.dtype)}'"
                                  "; use a float32 or float64 tensor")


def _reflect(Q: Tensor, V: Tensor, tau: Tensor, order) -> Tensor:
    """``Q`` with the reflections ``H_i`` (``i`` in ``order``) applied from the left, the
    first of ``order`` first."""
    for i in order:
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mT @ Q))
    return Q


def _vectors(A: Tensor) -> Tensor:
    """The reflection vectors: ``A`` below the diagonal, ones on it, zeros above."""
    return A.tril(-1) + factories.eye(A.size(-2), A.size(-1), dtype=A.dtype, device=A.device)


def _connected(result: Tensor, *inputs: Tensor) -> Tensor:
    """``result`` still linked to ``inputs`` (with zero gradients) when no reflection ran,
    as PyTorch's node is; NaN-safe, unlike adding ``0 * x``."""
    everywhere = factories.ones((), dtype=dtypes.bool_, device=result.device)
    for x in inputs:
        if x.requires_grad:
            result = result + x.masked_fill(everywhere, 0.0).sum()
    return result


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_0 H_1 ... H_{k-1}`` for ``A`` ``(*, m, n)`` and ``tau``
    ``(*, k)``, ``k <= n <= m`` (the ``Q`` of a QR factorisation from ``geqrf``'s output).

    Shape:
        ``A`` ``(*, m, n)``, ``tau`` ``(*, k)`` -> ``(*, m, n)``.

    Raises:
        RuntimeError for shapes or dtypes that do not fit (PyTorch's messages);
        NotImplementedError for a dtype other than float32/float64.
    """
    _check_reflectors(_OP, A, tau)
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{_OP}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    k = tau.shape[-1]
    if n < k:
        raise RuntimeError(f"{_OP}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    eye = factories.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape)
    # H_{k-1} first: each product is then (m, 1) @ (1, n), never an m x m matrix
    Q = _reflect(eye, _vectors(A), tau, reversed(range(k)))
    if k == 0:
        Q = _connected(Q, A, tau)
    return named_as(Q, "LinalgHouseholderProductBackward0", A, tau)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``linalg.householder_product`` under LAPACK's name."""
    return householder_product(input, tau)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True,
          transpose: bool = False) -> Tensor:
    """``Q other`` (``other Q`` when not ``left``; ``Qᵀ`` with ``transpose``) for the
    ``m x m`` orthogonal ``Q = H_0 ... H_{k-1}`` held in compact form by ``(input, tau)``.

    Shape:
        ``input`` ``(*, mn, k)``, ``tau`` ``(*, min(mn, k))``, ``other`` ``(*, m, n)`` with
        ``mn = m`` when ``left`` else ``n`` -> ``(*, m, n)``.

    Raises:
        RuntimeError for shapes or dtypes that do not fit (PyTorch's messages).
    """
    op = "torch.ormqr"
    _check_ormqr(op, input, tau, other, left)
    k = tau.shape[-1]
    V = _vectors(input)
    # Q C applies H_{k-1} first; Qᵀ C = H_{k-1} ... H_0 C applies H_0 first; a right
    # product is the transpose of a left one: C Q = (Qᵀ Cᵀ)ᵀ.
    first_last = transpose == left
    order = range(k) if first_last else reversed(range(k))
    target = other if left else other.mT
    result = _reflect(target, V, tau, order)
    result = result if left else result.mT
    if k == 0:
        result = _connected(result, input, tau, other)
    return named_as(result, "OrmqrBackward0", input, tau, other)


def _check_ormqr(op: str, input: Tensor, tau: Tensor, other: Tensor, left: bool) -> None:
    require_tensors(op, ("input", input), ("input2", tau), ("input3", other))
    if input.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    mn = other.shape[side]
    if mn != input.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if mn < tau.shape[-1]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be greater than or equal to "
                           "tau.shape[-1]")
    if min(mn, input.shape[-1]) != tau.shape[-1]:
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError(f"{op}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {other.dim()} and input.ndim "
                           f"is equal to {input.dim()}")
    batch = tuple(input.shape[:-2])
    if tuple(tau.shape[:-1]) != batch:
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tuple(other.shape[:-2]) != batch:
        raise RuntimeError(f"{op}: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(other.shape[:-2])}")
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype is not input.dtype:
            raise RuntimeError(f"{op}: Expected input and {name} to have the same dtype, but "
                               f"input has dtype {checks.type_name(input.dtype)} and {name} "
                               f"has dtype {checks.type_name(t.dtype)}")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"{op}\" not implemented for "
                                  f"'{checks.type_name(input.dtype)}' (shape "
                                  f"{fmt(tuple(input.shape))}); use float32 or float64")


def named_as(output: Tensor, backward_name: str, *inputs: Tensor) -> Tensor:
    """``output``'s node named as PyTorch's op, whose value and gradient it has (and, given
    the op's ``inputs``, showing PyTorch's one node: ``functions._composed``)."""
    from .functions import _composed

    return _composed(output, backward_name, *inputs)
