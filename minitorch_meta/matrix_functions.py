"""The ``torch.linalg`` functions composed of other ops, as PyTorch composes them (so that
values, gradients and ``grad_fn`` names follow): ``matrix_norm``, ``norm``,
``matrix_power``, ``multi_dot``, ``vecdot``, ``lstsq`` and ``matrix_rank``.
"""

from __future__ import annotations

import math

from . import dtypes
from . import linalg_tolerances as _tolerances
from . import return_types as rt
from .autocasting import autocast_op
from .autograd import no_grad
from .autograd.graph_node import show_as_op
from .caller_warnings import warn_at_caller
from .errors import ShapeRuntimeError
from .functions import _composed
from .int_arguments import is_int
from .ops import linalg_checks as checks
from .ops import norms
from .ops.linalg_spectral import LinalgEigh, LinalgPinv, LinalgSvd, tolerances
from .ops.shapes import normalize_dim
from .tensor_arguments import require_tensor_list

_INF = math.inf
_SVD_ORDERS = ("nuc", 2, -2)


def _vector_norm(x, ord, dim, keepdim):
    return norms.LinalgVectorNorm(ord=norms.vector_norm_order(ord), dim=dim, keepdim=keepdim)(x)


@autocast_op("linalg_matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None):
    """The matrix norm of each matrix over the two dims ``dim``: ``'fro'``, ``'nuc'`` (sum
    of singular values), ``2``/``-2`` (largest/smallest singular value), ``1``/``-1``
    (largest/smallest column sum of ``|A|``), ``inf``/``-inf`` (row sums).

    Shape:
        ``A`` without the two dims (kept as 1 with ``keepdim``).

    Raises:
        RuntimeError for a tensor of fewer than 2 dims, equal dims or another ``ord``.
    """
    op = "linalg.matrix_norm"
    # Only the singular-value orders factor the matrix; the others are sums, as in float16.
    shape = checks.matrix_shape(op, A, half=ord not in _SVD_ORDERS)
    A = norm_input(op, A, dtype)
    if is_int(dim) or len(dim) != 2:
        given = " ".join(str(d) for d in ((dim,) if is_int(dim) else dim))
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {given}")
    dims = tuple(normalize_dim(op, d, len(shape)) for d in dim)
    if dims[0] == dims[1]:
        raise RuntimeError(f"{op}: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord == "fro":
        return _vector_norm(A, 2, dims, keepdim)
    if ord not in (*_SVD_ORDERS, 1, -1, _INF, -_INF):
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if ord in _SVD_ORDERS:
        values = svdvals_of(A.movedim(dims, (-2, -1)))
        result = values.sum(-1) if ord == "nuc" else _largest_or_smallest(values, -1, False, ord)
        if keepdim:  # PyTorch puts the kept dims back with a permute: its node name
            low, high = sorted(dims)
            result = _composed(result.unsqueeze(low).unsqueeze(high), "PermuteBackward0")
        return result
    # The inf-norm is the 1-norm of the transpose: column sums of |A|, then max or min.
    summed, other = dims if abs(ord) == 1 else dims[::-1]
    if not keepdim and summed < other:
        other -= 1
    sums = _vector_norm(A, 1, (summed,), keepdim)
    return _largest_or_smallest(sums, other, keepdim, ord)


def _largest_or_smallest(values, dim: int, keepdim: bool, ord):
    """``amax`` for a positive ``ord``, ``amin`` for a negative one. Over an empty ``dim``
    the largest is 0 with no graph (PyTorch's value for an empty matrix), while the
    smallest raises ``amin``'s IndexError, as PyTorch's."""
    if ord < 0:
        return values.amin(dim, keepdim)
    if values.shape[dim] == 0:
        shape = list(values.shape)
        shape[dim] = 1
        return values.new_zeros(tuple(shape) if keepdim else tuple(s for k, s in enumerate(
            shape) if k != dim % len(shape)))
    return values.amax(dim, keepdim)


def norm_input(op: str, A, dtype):
    """``A`` cast to a norm's ``dtype`` (None: itself), with PyTorch's checks: a floating
    input, a floating ``dtype``, and no narrowing (float64 to float32 is refused).

    Raises:
        RuntimeError for an integer input or ``dtype``, or a ``dtype`` narrower than ``A``'s.
    """
    if dtype is None:
        return A
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{checks.type_name(A.dtype)}")
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got "
                           f"{checks.type_name(dtype)}")
    if dtypes.promote(A.dtype, dtype) is not dtype:
        raise RuntimeError(f"{op}: the dtype of the input ({checks.type_name(A.dtype)}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({checks.type_name(dtype)})")
    return A.to(dtype)


def svdvals_of(A):
    return LinalgSvd(values_only=True)(A)


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None):
    """A vector norm (``dim`` an int or one dim; or no ``dim``: the whole tensor, or a 1-D
    one with ``ord``) or a matrix norm (``dim`` two dims; or no ``dim``, a 2-D tensor and an
    ``ord``), as PyTorch decides.

    Shape:
        ``A`` without the reduced dims (kept as 1 with ``keepdim``).
    """
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return vector_norm_cast(A, 2 if ord is None else ord, dims, keepdim, dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dims)}")
    if ord is None:
        return vector_norm_cast(A, 2, None, keepdim, dtype)
    ndim = A.dim()
    if ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if ndim == 1:
        return vector_norm_cast(A, ord, None, keepdim, dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                       f"1D or 2D. Got {ndim}D.")


def vector_norm_cast(A, ord, dim, keepdim, dtype):
    return _vector_norm(norm_input("linalg.vector_norm", A, dtype), ord, dim, keepdim)


def matrix_power(A, n: int):
    """``A`` multiplied by itself ``n`` times (``n`` < 0: its inverse's power; 0: the
    identity), by repeated squaring as in PyTorch. Any dtype that ``matmul`` takes, as in
    PyTorch (so integers; bool only for ``n`` 0 and 1); a negative ``n`` needs floats
    (``inv``'s error).

    Shape:
        ``(*, m, m)`` -> ``(*, m, m)``.
    """
    from .factories import eye
    from .linalg import inv

    shape = checks.square_shape("linalg.matrix_power", A, any_dtype=True)
    if not is_int(n):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not "
                        f"{type(n).__name__}")
    if n == 0:
        # The identity, still connected to A (with a zero gradient), as PyTorch's copy is.
        everywhere = eye(1, dtype=dtypes.bool_, device=A.device)
        return A.masked_fill(everywhere, 0.0) + eye(shape[-1], dtype=A.dtype, device=A.device)
    if n < 0:
        A, n = inv(A), -n
        if n == 1:
            return A
    if n == 1:
        return A.clone()
    if n == 2:
        return A.matmul(A)
    if n == 3:
        return A.matmul(A).matmul(A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z.matmul(z)
        if bit:
            result = z if result is None else result.matmul(z)
    return result


@autocast_op("linalg_multi_dot")
def multi_dot(tensors):
    """The product of the matrices ``tensors``, multiplied in the cheapest order; the first
    may be a row vector and the last a column vector (1-D).

    Shape:
        ``(a, b), (b, c), ..., (y, z)`` -> ``(a, z)``, without the dims of 1-D ends.
    """
    tensors = list(tensors)
    _check_chain(tensors)
    first, last = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first:
        mats[0] = mats[0].unsqueeze(0)
    if last:
        mats[-1] = mats[-1].unsqueeze(-1)
    result = _chain(mats, _chain_order(mats), 0, len(mats) - 1)
    rows, cols = result.shape
    return result.view(tuple(size for size, drop in ((rows, first), (cols, last)) if not drop))


def _check_chain(tensors) -> None:
    op = "multi_dot()"
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors but got {count}")
    for k, t in enumerate(tensors):
        ndim = t.dim()
        if k in (0, count - 1) and ndim not in (1, 2):
            which = "first" if k == 0 else "last"
            raise RuntimeError(f"{op}: the {which} tensor must be 1D or 2D but got {ndim}D")
        if 0 < k < count - 1 and ndim != 2:
            raise RuntimeError(f"{op}: tensor {k} must be 2D but got {ndim}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"{op}: all tensors must have be the same dtype but tensor 0 is "
                               f"{checks.type_name(tensors[0].dtype)} and tensor {k} is "
                               f"{checks.type_name(t.dtype)}")
    for k in range(count - 1):
        a, b = tensors[k].shape, tensors[k + 1].shape
        if a[-1] != b[0]:
            raise ShapeRuntimeError(op, f"tensors {k} and {k + 1} with shapes {list(a)} and "
                                        f"{list(b)} cannot be multiplied")


def _chain_order(mats) -> list:
    """``split[i][j]``: where the cheapest product of ``mats[i..j]`` splits (the textbook
    dynamic programme over scalar multiplications, as PyTorch's)."""
    sizes = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    count = len(mats)
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i: int, j: int):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain(mats, split, i, k).mm(_chain(mats, split, k + 1, j))


@autocast_op("chain_matmul")
def chain_matmul(*matrices):
    """The product of 2-D ``matrices`` (deprecated in PyTorch for ``linalg.multi_dot``)."""

    warn_at_caller("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.")
    require_tensor_list("chain_matmul", matrices)
    for k, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor {k} must be 2D but got {m.dim()}D")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


@autocast_op("linalg_vecdot")
def vecdot(x, y, *, dim: int = -1):
    """The dot product of ``x`` and ``y`` along ``dim``, after broadcasting.

    Shape:
        the broadcast shape without ``dim``.
    """
    if not (x.dtype.is_floating_point or x.dtype.is_complex):  # (checked first, as PyTorch)
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {checks.type_name(x.dtype)}")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {checks.type_name(x.dtype)} and y of type "
                           f"{checks.type_name(y.dtype)} instead")
    return (x * y).sum(dim)


@autocast_op("linalg_lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution ``X`` of ``A X = B`` (minimum norm when ``A`` is rank
    deficient), computed as ``pinv(A) @ B``, whatever the driver; the other outputs are
    those of PyTorch's CPU ``driver`` (``gelsy`` by default): ``rank`` (empty for
    ``gels``), ``singular_values`` (``gelsd``/``gelss`` only; empty otherwise) and
    ``residuals``, ``||A X - B||^2`` per column, when ``m > n`` and the driver is not
    ``gelsy`` (``gelsd``/``gelss``: only when every matrix has full rank, which shape-only
    meta tensors are taken to have); empty otherwise. ``solution`` and ``residuals`` show
    PyTorch's one node, ``LinalgLstsqBackward0``, with edges to ``A`` and ``B``.

    Shape:
        ``A`` ``(*, m, n)``, ``B`` ``(*, m, k)`` or ``(*, m)`` -> ``X`` ``(*, n, k)`` or
        ``(*, n)``, batch broadcast; ``residuals`` ``(*, k)`` (``(*, 1)`` for a vector
        ``B``) or ``(0,)``.
    """
    op = "torch.linalg.lstsq"
    a_shape = checks.matrix_shape(op, A, "input")
    checks.check_same_dtype("torch.linalg.lstsq", A, B)
    vector = B.dim() == A.dim() - 1
    if not vector and B.dim() != A.dim():
        raise RuntimeError(f"{op}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != a_shape[-2]:
        which = "other.size(-1)" if vector else "other.size(-2)"
        raise ShapeRuntimeError(op, f"input.size(-2) should match {which}")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    driver = driver or "gelsy"
    pseudo = LinalgPinv(rtol=rcond)(A)
    columns = B.unsqueeze(-1) if vector else B
    solution = pseudo.matmul(columns)
    empty = A.new_empty((0,))
    rank = empty.long() if driver == "gels" else matrix_rank(A, rtol=rcond)
    residuals = _residuals(A, columns, solution, rank, driver)
    if vector:  # PyTorch keeps the residuals' column dim: ``(*, 1)``
        solution = solution.squeeze(-1)
    if driver in ("gelsd", "gelss"):
        with no_grad():
            values = LinalgSvd(values_only=True)(A)
    else:
        values = empty
    result = rt.LinalgLstsqResult(solution, residuals, rank, values)
    show_as_op(result[:2], "LinalgLstsqBackward0", (A, B))
    return result


def _residuals(A, columns, solution, rank, driver: str):
    """``lstsq``'s squared residuals ``||A X - B||^2`` of each column, where the driver
    gives them; else an empty tensor, which carries the solution's graph (PyTorch's
    empty residuals have the op's node too, and a zero gradient)."""
    m, n = A.shape[-2:]
    full_rank = driver == "gels" or rank.is_meta or bool((rank == n).all())
    if m > n and driver != "gelsy" and full_rank:
        return (A.matmul(solution) - columns).square().sum(-2)
    return solution.reshape(-1)[:0]


def matrix_rank(A, tol=_tolerances.UNSET, hermitian: bool = False, *, atol=None, rtol=None):
    """How many singular values (``hermitian``: |eigenvalues|) of each matrix exceed
    ``max(atol, rtol * largest)``, with ``pinv``'s defaults. PyTorch's older overload
    ``matrix_rank(A, tol)`` is ``atol=tol`` with ``rtol`` 0. The tolerances are numbers or
    tensors; tensors broadcast against ``A``'s batch dimensions (``linalg_tolerances.py``).

    Shape:
        ``(*, m, n)`` -> int64 ``(*)``, where ``*`` is ``A``'s batch broadcast with the
        shapes of tolerance tensors.
    """
    op = "torch.linalg.matrix_rank"
    atol, rtol = _tolerances.resolve("matrix_rank", A, tol, atol, rtol, hermitian)
    *batch, m, n = checks.matrix_shape(op, A, "input")
    with no_grad():
        values = (LinalgEigh(values_only=True)(A).abs() if hermitian
                  else LinalgSvd(values_only=True)(A))
        if min(m, n) == 0:
            return values.sum(-1).to(dtypes.int64)
        largest = values.amax(-1, keepdim=True)
        if _tolerances.is_tensor(atol):
            _tolerances.batch("matrix_rank", A, atol, rtol)  # (refuses what does not broadcast)
            # in float64, as PyTorch's; the tolerances' shapes join the batch
            tol = atol.unsqueeze(-1).maximum(rtol.unsqueeze(-1) * largest.to(dtypes.float64))
        else:
            atol, rtol = tolerances(atol, rtol, A.dtype.itemsize, m, n)
            tol = (largest * rtol).clamp_min(atol)
        return (values > tol).sum(-1)
