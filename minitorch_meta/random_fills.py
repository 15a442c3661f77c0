"""In-place random fills as Tensor methods: ``bernoulli_``, ``exponential_``, ``cauchy_``,
``log_normal_``, ``geometric_`` and ``random_`` (``normal_`` and ``uniform_`` are in
``tensor.py``, which asks ``require_real_samples`` here for their dtype rule).

Each draws uniform (or normal) numbers with the backend's ``uniform``/``normal`` kernels and
the tensor's device generator (or ``generator=``), so ``manual_seed`` reproduces them on every
device, and maps them to the distribution by its inverse CDF with elementwise kernels (CuPy's
``Generator`` has no ``exponential`` or ``geometric``, so one code path serves both devices).
The draws are made in float64 for a float64 tensor and in float32 otherwise, then written in
this tensor's dtype. On meta only the arguments are checked.

As every in-place op here, they are refused on a leaf that requires grad and inside a graph
while grad mode is on; each write bumps the version counter once.
"""

from __future__ import annotations

import math
from numbers import Number

from . import dtypes
from .caller_warnings import warn_at_caller
from .number_arguments import as_float
from .ops.unsigned_shell import refuse_dtype
from .type_info import finfo, iinfo

# ``random_()`` means ``[0, top]``, ``random_(to)`` ``[0, to)`` and ``random_(from_, None)``
# ``[from_, top]``: a default that no caller can pass tells the three apart.
_NOT_GIVEN = object()


def _work_dtype(tensor) -> dtypes.dtype:
    return dtypes.float64 if tensor._dtype is dtypes.float64 else dtypes.float32


def _uniform(tensor, generator):
    """Uniform numbers in [0, 1) of ``tensor``'s shape (see the module docstring)."""
    from .tensor import _rng

    return tensor._backend.uniform(tuple(tensor.shape), 0.0, 1.0, _work_dtype(tensor),
                                   _rng(generator, tensor))


def _log_of_one_minus(backend, u):
    """``log(1 - u)``: in (-inf, 0] for ``u`` in [0, 1), never ``log(0)``."""
    return backend.unary("log1p", backend.unary("neg", u))


def _fill(tensor, make_values):
    """Write ``make_values(backend)`` (an array of this shape) into ``tensor``; on meta
    nothing is drawn, but the version still counts the write, as on other devices."""
    backend = tensor._backend
    tensor._store(Ellipsis, make_values(backend) if backend.stores_data else None)
    return tensor


def _require_float(op: str, distribution: str, tensor) -> None:
    if not tensor._dtype.is_floating_point:
        raise RuntimeError(f"{distribution} distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified "
                           f"{tensor._dtype} (in {op}); call it on a float tensor")


def require_real_samples(op: str, tensor) -> None:
    """The dtype rule of the fills whose samples are real numbers (``normal_``,
    ``uniform_``, ``log_normal_``): PyTorch has no integer or bool kernel for them.

    Raises:
        NotImplementedError for a tensor that is not floating-point.
    """
    if not tensor._dtype.is_floating_point:
        raise NotImplementedError(f"{op} is not implemented for {tensor._dtype} tensors: its "
                                  "samples are real numbers; call it on a float tensor")


def exponential_(self, lambd: float = 1.0, *, generator=None):
    """Fill with samples of the exponential distribution of rate ``lambd``
    (``-log(1 - u) / lambd``).

    Raises:
        RuntimeError for ``lambd <= 0`` or a tensor that is not floating-point.
    """
    self._check_inplace("exponential_")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    _require_float("exponential_", "Exponential", self)

    def values(backend):
        drawn = _log_of_one_minus(backend, _uniform(self, generator))
        return backend.binary("div", backend.unary("neg", drawn), float(lambd))
    return _fill(self, values)


def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
    """Fill with samples of the Cauchy distribution (``median + sigma * tan(pi (u - 1/2))``).

    Raises:
        RuntimeError for ``sigma <= 0`` or a tensor that is not floating-point.
    """
    self._check_inplace("cauchy_")
    median, sigma = as_float("cauchy_", "median", median), as_float("cauchy_", "sigma", sigma)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    _require_float("cauchy_", "Cauchy", self)

    def values(backend):
        angle = backend.binary("mul", backend.binary("sub", _uniform(self, generator), 0.5),
                               math.pi)
        return backend.binary("add", backend.binary("mul", backend.unary("tan", angle),
                                                    sigma), median)
    return _fill(self, values)


def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """Fill with ``exp(x)`` for ``x`` drawn from N(``mean``, ``std``).

    Raises:
        RuntimeError for ``std <= 0``; NotImplementedError for a tensor that is not
        floating-point (as PyTorch, which has no such kernel).
    """
    from .tensor import _rng

    self._check_inplace("log_normal_")
    mean, std = as_float("log_normal_", "mean", mean), as_float("log_normal_", "std", std)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    require_real_samples("log_normal_", self)

    def values(backend):
        return backend.unary("exp", backend.normal(tuple(self.shape), mean, std,
                                                   _work_dtype(self), _rng(generator, self)))
    return _fill(self, values)


def geometric_(self, p: float, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...):
    ``ceil(log(1 - u) / log(1 - p))``, at least 1. Integer tensors are filled too.

    Raises:
        RuntimeError for ``p`` outside (0, 1); NotImplementedError for a bool tensor.
    """
    self._check_inplace("geometric_")
    refuse_dtype("geometric_", self._dtype)
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if self._dtype is dtypes.bool_:
        raise NotImplementedError("geometric_ is not implemented for torch.bool tensors: its "
                                  "samples are counts 1, 2, ...; use an integer or float tensor")

    def values(backend):
        trials = backend.binary("div", _log_of_one_minus(backend, _uniform(self, generator)),
                                math.log1p(-p))
        # u == 0 gives log(1) = 0 trials: the first trial always counts
        return backend.binary("maximum", backend.unary("ceil", trials), 1.0)
    return _fill(self, values)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 with probability ``p``, else 0, in this tensor's dtype. ``p`` is a number
    or a floating-point tensor that broadcasts to this tensor's shape.

    Raises:
        RuntimeError for a probability outside [0, 1] or a ``p`` of a shape that does not
        broadcast to this tensor's; NotImplementedError for an integer ``p`` tensor.
    """
    from .tensor import Tensor

    self._check_inplace("bernoulli_")
    refuse_dtype("bernoulli_", self._dtype)
    if isinstance(p, Tensor):
        return _bernoulli_of_tensor(self, p, generator)
    if not isinstance(p, Number) or isinstance(p, complex):
        raise TypeError(f"bernoulli_(): argument 'p' must be a float or a Tensor, not "
                        f"{type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _fill(self, lambda backend: backend.binary("lt", _uniform(self, generator),
                                                      float(p)))


def _bernoulli_of_tensor(self, p, generator):
    from .autograd import no_grad
    from .sampling import bernoulli

    if not p._dtype.is_floating_point:
        raise NotImplementedError(f"bernoulli_: the probabilities p must be a floating-point "
                                  f"tensor, but got {p._dtype}; convert them with p.float()")
    with no_grad():  # the samples carry no gradient, and this write is not recorded
        # ``expand`` checks p's shape against ours; ``bernoulli`` checks the values
        drawn = bernoulli(p.to(self.device).expand(tuple(self.shape)), generator=generator)
    return _fill(self, lambda backend: drawn._data)


def random_(self, from_=_NOT_GIVEN, to=_NOT_GIVEN, *, generator=None):
    """Fill with integers drawn uniformly from ``[from_, to)``, as PyTorch's three forms:
    ``random_()`` draws from ``[0, top]``, ``random_(to)`` from ``[0, to)`` and
    ``random_(from_, None)`` from ``[from_, top]``, where ``top`` is the dtype's largest
    value for integers (1 for bool) and the largest integer it holds exactly for floats
    (``2**24`` for float32, ``2**53`` for float64, ``2**11`` for float16).

    Raises:
        TypeError for bounds that are not ints; RuntimeError for ``from_ >= to`` or a bound
        outside an integer dtype's range. A float range beyond the exact integers warns,
        as PyTorch does.
    """
    from .tensor import _rng

    self._check_inplace("random_")
    refuse_dtype("random_", self._dtype)
    if from_ is _NOT_GIVEN:
        from_, to = 0, None
    elif to is _NOT_GIVEN:
        from_, to = 0, from_
    for name, bound in (("from", from_), ("to", to)):
        if bound is not None and not _is_int(bound):
            raise TypeError(f"random_(): argument '{name}' must be an int, not "
                            f"{type(bound).__name__}")
    low, high = _random_range(self._dtype, from_, to)
    return _fill(self, lambda backend: backend.integers(tuple(self.shape), low, high,
                                                        self._dtype, _rng(generator, self)))


def _is_int(value) -> bool:
    return hasattr(value, "__index__") and not isinstance(value, bool)


def _random_range(dtype, from_: int, to) -> tuple:
    """The half-open ``[low, high)`` that ``random_`` draws from in ``dtype``."""
    smallest, top = _random_limits(dtype)
    high = top + 1 if to is None else int(to)
    if from_ >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={high}")
    for name, bound in (("from", from_), ("to - 1", high - 1)):
        if not smallest <= bound <= top:
            _out_of_bounds(dtype, name, bound, smallest, top)
    return int(from_), high


def _random_limits(dtype) -> tuple:
    """The smallest and largest integers ``random_`` may draw in ``dtype``."""
    if dtype is dtypes.bool_:
        return 0, 1
    if dtype.is_floating_point:
        exact = round(2 / finfo(dtype).eps)  # 2**digits: every integer up to here is exact
        return -exact, exact
    limits = iinfo(dtype)
    return limits.min, limits.max


def _out_of_bounds(dtype, name: str, bound: int, smallest: int, top: int) -> None:
    message = (f"random_: {name} = {bound} is out of bounds for {dtype}, which holds "
               f"integers in [{smallest}, {top}]")
    if not dtype.is_floating_point:
        raise RuntimeError(message + "; choose bounds inside that range")
    # PyTorch warns here (an error "in a future release" since 1.7): beyond these bounds
    # a float cannot hold every integer, so the draws are not uniform over the range.
    warn_at_caller(message + " exactly; the draws are rounded to the float grid")
