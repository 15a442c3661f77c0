"""Draws of the gamma, Poisson and binomial families from parameter tensors:
``_standard_gamma``, ``poisson`` and ``binomial`` (the samplers of the distributions).

The numbers come from the backend kernels of those names and the generator of the
inputs' device (or an explicit ``Generator``'s). ``poisson`` and ``binomial`` samples are
not differentiable (PyTorch: ``PoissonBackward0`` gives zeros, ``binomial`` refuses);
``_standard_gamma`` is: its backward is the implicit reparameterisation gradient
``d x / d alpha = -(d P(alpha, x) / d alpha) / p(x; alpha)`` (``P`` the regularised lower
incomplete gamma function, ``p`` the density), what PyTorch's ``_standard_gamma_grad``
approximates, summed here from its series to float64 precision.

Parameter values are checked where PyTorch checks them, on data backends only.
"""

from __future__ import annotations

from .. import dtypes
from . import graph_backward, shapes
from .function import Function
from .sampling import _host_float, _zero_grads


def _require_float(op: str, kernel: str, dtype) -> None:
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_short(dtype)}\' ({op} '
                                  f"takes a floating-point tensor, got {dtype})")


def _low_high(backend, array) -> tuple:
    return (_host_float(backend, backend.min(array, None, False)),
            _host_float(backend, backend.max(array, None, False)))


class StandardGamma(Function):
    """Gamma(``alpha``, 1) draws, elementwise, in ``alpha``'s dtype; each at least the
    dtype's smallest normal number (PyTorch's clamp of draws that underflow).

    Shape:
        unchanged.

    Raises:
        NotImplementedError for an integer ``alpha``.
    """

    op_name, backward_name = "_standard_gamma", "StandardGammaBackward0"
    generator = None
    saved_for_backward = (0, "output")

    def infer(self, alpha):
        _require_float("_standard_gamma", "gamma_cpu", alpha._dtype)
        return tuple(alpha._data.shape), alpha._dtype

    def forward(self, backend, alpha):
        out = backend.standard_gamma(alpha, dtypes.from_numpy(alpha.dtype), self.generator)
        if self.recording:
            self.alpha, self.out = alpha, out
        return out

    def backward(self, backend, gy):
        grad = standard_gamma_grad(backend, self.alpha, self.out)
        return (backend.binary("mul", gy, grad),)

    def backward_graph(self, grad):
        """``grad`` times the implicit gradient, recorded as PyTorch's: linear in ``grad``,
        while the implicit gradient itself (``_standard_gamma_grad``) has no derivative
        and raises PyTorch's error when a backward reaches it."""
        refusal = graph_backward.PyTorchRefusal(
            "StandardGammaGradBackward0", NotImplementedError,
            "the derivative for '_standard_gamma_grad' is not implemented.", self.backend,
            (self._next_nodes[0], self))
        slope = standard_gamma_grad(self.backend, self.alpha, self.out)
        return (grad * graph_backward.refused_tensor(slope, self.backend, refusal),)


def standard_gamma_grad(backend, alpha, x):
    """``d x / d alpha`` of a Gamma(``alpha``, 1) draw ``x`` held at its quantile, in
    ``alpha``'s dtype (computed in float64).

    With ``t_n = x^(n+1) Gamma(alpha) / Gamma(alpha + n + 1)`` (so ``t_0 = x / alpha``,
    ``t_n = t_(n-1) x / (alpha + n)``), the derivative of the series ``P(alpha, x) =
    sum_n e^-x x^(alpha+n) / Gamma(alpha + n + 1)`` divided by the density is
    ``sum_n t_n (digamma(alpha + n + 1) - log x)``. The terms grow while ``alpha + n < x``
    and then shrink geometrically; the sum stops when the largest remaining tail, bounded
    by ``t_n |digamma - log x| / (1 - x / (alpha + n + 1))``, is below float64's
    resolution of the sum for every element (checked every 16 terms). It takes about
    ``max(x - alpha, 0) + 9 sqrt(x)`` terms: draws lie within a few ``sqrt(alpha)`` of
    ``alpha``. Far in the upper tail (``x`` beyond ``alpha`` by more than about 7 standard
    deviations, a chance below 1e-12) the alternating terms cancel and digits are lost.
    """
    float64 = dtypes.float64
    out_dtype = dtypes.from_numpy(alpha.dtype)
    a, x = backend.astype(alpha, float64), backend.astype(x, float64)
    b = backend.binary
    log_x = backend.unary("log", x)
    term = b("div", x, a)
    psi = backend.unary("digamma", b("add", a, 1.0))
    total = b("mul", term, b("sub", psi, log_x))
    n = 0
    while True:
        n += 1
        shifted = b("add", a, float(n))  # alpha + n
        term = b("mul", term, b("div", x, shifted))
        psi = b("add", psi, b("div", 1.0, shifted))
        part = b("mul", term, b("sub", psi, log_x))
        total = b("add", total, part)
        if n % 16 == 0 and _converged(backend, part, total, x, b("add", shifted, 1.0)):
            return backend.astype(total, out_dtype)


def _converged(backend, part, total, x, next_shift) -> bool:
    """Whether every element's remaining tail is below 1e-17 of its sum (NaN counts as
    done: a NaN input gives a NaN gradient, not an endless loop)."""
    b = backend.binary
    # the tail after ``part`` is at most |part| / (1 - x / next_shift); it only shrinks
    # once next_shift > x: before, its bound is +inf
    room = b("sub", next_shift, x)
    shrinking = b("gt", room, 0.0)
    tail = b("div", b("mul", backend.unary("abs", part), next_shift),
             backend.where(shrinking, room, 1.0))
    tail = backend.where(shrinking, tail, float("inf"))
    excess = b("sub", tail, b("mul", backend.unary("abs", total), 1e-17))
    if excess.size == 0:
        return True
    return not _host_float(backend, backend.max(excess, None, False)) > 0


class Poisson(Function):
    """Poisson(``rate``) counts, elementwise, in ``rate``'s float dtype; the gradient
    through them is zero (PyTorch's ``PoissonBackward0``).

    Shape:
        unchanged.

    Raises:
        NotImplementedError for an integer ``rate``; RuntimeError (data backends) for a
        negative or NaN rate, or one too large for the generator (above 1e18).
    """

    op_name, backward_name = "poisson", "PoissonBackward0"
    generator = None

    def infer(self, rate):
        _require_float("poisson", "poisson_cpu", rate._dtype)
        return tuple(rate._data.shape), rate._dtype

    def forward(self, backend, rate):
        if rate.size:
            low, high = _low_high(backend, rate)
            if not low >= 0.0 or high != high:
                raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
            if high > _MAX_POISSON_RATE:
                raise RuntimeError(f"invalid Poisson rate, expected rates of at most "
                                   f"{_MAX_POISSON_RATE:g} (the generator's limit), got {high}")
        return backend.poisson(rate, dtypes.from_numpy(rate.dtype), self.generator)

    def backward(self, backend, gy):
        return _zero_grads(self)


#: NumPy's ``Generator.poisson`` refuses larger rates (its draws would overflow int64)
_MAX_POISSON_RATE = 1e18


class Binomial(Function):
    """Binomial(``count``, ``prob``) successes, elementwise, in the inputs' float dtype.
    ``count`` is truncated to a whole number of trials. Not differentiable: backward
    raises, as PyTorch's.

    Shape:
        ``count`` and ``prob`` of one shape (``torch.binomial`` broadcasts them first),
        unchanged.

    Raises:
        ValueError for an integer ``count``; RuntimeError for dtypes that differ, and (data
        backends) a negative or NaN count, or a probability outside [0, 1].
    """

    op_name, backward_name = "binomial", "torch::autograd::NotImplemented"
    generator = None

    def infer(self, count, prob):
        if not count._dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                             f"{_short(count._dtype)}")
        if prob._dtype != count._dtype:
            raise RuntimeError(f"binomial expects prob of count's dtype {count._dtype}, got "
                               f"{prob._dtype}")
        shape = tuple(count._data.shape)
        if tuple(prob._data.shape) != shape:
            raise RuntimeError(f"binomial expects count and prob of one shape, got "
                               f"{shapes.fmt(shape)} and {shapes.fmt(prob._data.shape)}")
        return shape, count._dtype

    def forward(self, backend, count, prob):
        if count.size:
            low, high = _low_high(backend, count)
            if not low >= 0.0 or high != high:
                raise RuntimeError(f"binomial expects a non-negative count, got values from "
                                   f"{low} to {high}")
            low, high = _low_high(backend, prob)
            if not (low >= 0.0 and high <= 1.0):
                raise RuntimeError(f"binomial expects probabilities in [0, 1], got values from "
                                   f"{low} to {high}")
        return backend.binomial(backend.unary("trunc", count), prob,
                                dtypes.from_numpy(count.dtype), self.generator)

    def backward(self, backend, gy):
        raise RuntimeError("derivative for aten::binomial is not implemented")


_SHORT_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool"}


def _short(dtype) -> str:
    """PyTorch's C++ name of an integer dtype (``Long``), as its kernel errors print it."""
    name = str(dtype).split(".")[-1]
    return _SHORT_NAMES.get(name, name)
