"""In-place random fills as Tensor methods: ``bernoulli_``, ``exponential_``, ``cauchy_``,
``log_normal_`` and ``geometric_`` (``normal_``, ``uniform_`` and ``random_`` are in
``tensor.py``).

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
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    _require_float("cauchy_", "Cauchy", self)

    def values(backend):
        angle = backend.binary("mul", backend.binary("sub", _uniform(self, generator), 0.5),
                               math.pi)
        return backend.binary("add", backend.binary("mul", backend.unary("tan", angle),
                                                    float(sigma)), float(median))
    return _fill(self, values)


def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """Fill with ``exp(x)`` for ``x`` drawn from N(``mean``, ``std``).

    Raises:
        RuntimeError for ``std <= 0``; NotImplementedError for a tensor that is not
        floating-point (as PyTorch, which has no such kernel).
    """
    from .tensor import _rng

    self._check_inplace("log_normal_")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f"log_normal_ is not implemented for {self._dtype} tensors: "
                                  "its samples are real numbers; call it on a float tensor")

    def values(backend):
        return backend.unary("exp", backend.normal(tuple(self.shape), float(mean), float(std),
                                                   _work_dtype(self), _rng(generator, self)))
    return _fill(self, values)


def geometric_(self, p: float, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...):
    ``ceil(log(1 - u) / log(1 - p))``, at least 1. Integer tensors are filled too.

    Raises:
        RuntimeError for ``p`` outside (0, 1); NotImplementedError for a bool tensor.
    """
    self._check_inplace("geometric_")
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
