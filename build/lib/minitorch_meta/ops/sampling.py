"""Random sampling from tensors of parameters: ``normal``, ``bernoulli``, ``multinomial``.

The random numbers come from the backend kernels (``normal``, ``uniform``) and the
generator of the inputs' device (or an explicit ``Generator``'s), so a seed reproduces a
draw on every device. Samples are not differentiable in their parameters; as in PyTorch,
``normal`` and ``bernoulli`` still record a node whose gradients are zeros
(``NormalBackward3``, ``BernoulliBackward0``), and ``multinomial`` records none.

Values are checked where PyTorch checks them (a negative std, a probability outside
[0, 1], an invalid distribution) on data backends only: meta has no values.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


def _require_float(op: str, name: str, dtype) -> None:
    if not dtype.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for {name} of dtype {dtype}; "
                                  "convert it to a floating-point dtype, e.g. with .float()")


def _host_float(backend, array) -> float:
    return float(backend.to_numpy(array))


def _zero_grads(fn) -> tuple:
    """Zeros of each input's shape for the inputs that need a gradient (PyTorch's rule)."""
    return tuple(fn.backend.full(tuple(shape), 0, dtype) if need else None
                 for (shape, dtype), need in zip(fn.input_specs, fn.needs_input_grad))


class Normal(Function):
    """Samples of N(mean, std) elementwise, with tensor ``mean`` and/or ``std``.

    Either input is a tensor, or a number given as ``mean_value``/``std_value`` (then the
    op has one input). Tensors broadcast together; the dtype is the first tensor's (the
    mean's when it is one: PyTorch does not promote here).

    Shape:
        the broadcast shape of the tensor parameters.

    Raises:
        NotImplementedError for an integer parameter tensor; RuntimeError for a negative std
        (a number, or on data backends any element).
    """

    op_name = "normal"
    mean_value = std_value = None
    generator = None
    saved_for_backward = ()

    @property
    def backward_name(self):
        if self.mean_value is None and self.std_value is None:
            return "NormalBackward3"
        return "NormalBackward1" if self.std_value is not None else "NormalBackward2"

    def infer(self, *tensors):
        for name, t in zip(self._tensor_names(), tensors):
            _require_float("normal", name, t._dtype)
        if self.std_value is not None and not self.std_value >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {self.std_value}")
        shape, dtype = tuple(tensors[0]._data.shape), tensors[0]._dtype
        if len(tensors) == 2:
            shape = shapes.broadcast("normal", shape, tensors[1]._data.shape)
        self.out_shape, self.out_dtype = shape, dtype
        return shape, dtype

    def _tensor_names(self) -> tuple:
        if self.mean_value is None and self.std_value is None:
            return ("mean", "std")
        return ("mean",) if self.std_value is not None else ("std",)

    def forward(self, backend, *arrays):
        if self.std_value is not None:
            mean, std = arrays[0], self.std_value
        elif self.mean_value is not None:
            mean, std = self.mean_value, arrays[0]
        else:
            mean, std = arrays
        if self.std_value is None and std.size and not _host_float(
                backend, backend.min(std, None, False)) >= 0:  # NaN is no std either
            raise RuntimeError("normal expects all elements of std >= 0.0")
        noise = backend.normal(self.out_shape, 0.0, 1.0, self.out_dtype, self.generator)
        out = backend.binary("add", backend.binary("mul", noise, std), mean)
        return out if out.dtype == self.out_dtype.numpy else backend.astype(out, self.out_dtype)

    def backward(self, backend, gy):
        return _zero_grads(self)


class Bernoulli(Function):
    """1 with probability ``p`` (elementwise), else 0, in ``p``'s dtype.

    Shape:
        unchanged.

    Raises:
        NotImplementedError for an integer ``p``; RuntimeError (data backends) for a
        probability outside [0, 1] or NaN.
    """

    op_name, backward_name = "bernoulli", "BernoulliBackward0"
    generator = None

    def infer(self, p):
        _require_float("bernoulli", "p", p._dtype)
        return tuple(p._data.shape), p._dtype

    def forward(self, backend, p):
        if p.size:
            low = _host_float(backend, backend.min(p, None, False))
            high = _host_float(backend, backend.max(p, None, False))
            if not (low >= 0.0 and high <= 1.0):  # NaN fails both
                raise RuntimeError(f"bernoulli: expected probabilities in [0, 1], but got values "
                                   f"from {low} to {high}")
        dtype = dtypes.from_numpy(p.dtype)
        u = backend.uniform(tuple(p.shape), 0.0, 1.0, dtype, self.generator)
        return backend.astype(backend.binary("lt", u, p), dtype)

    def backward(self, backend, gy):
        return _zero_grads(self)


class Multinomial(Function):
    """``num_samples`` category indices per row of non-negative weights ``probs``.

    With ``replacement`` each draw is independent (inverse CDF: one ``uniform`` number per
    draw, found in the row's cumulative weights by the ``categorical`` kernel); without,
    the categories are ranked by ``weight / Exp(1)`` keys (an exponential race, the rule
    PyTorch uses too) and the first ``num_samples`` kept, so a category comes at most once.

    Shape:
        ``(k,) -> (num_samples,)`` and ``(rows, k) -> (rows, num_samples)``, int64.

    Raises:
        RuntimeError for a non-float input, an input of other than 1 or 2 dims,
        ``num_samples <= 0``, more samples than categories without replacement, and (data
        backends) a negative, infinite or NaN weight, or a row summing to 0. Without
        replacement, more samples than positive weights is no error (PyTorch's CPU rule):
        the zero-weight categories come last, in index order (PyTorch's order among them
        is its ``topk``'s).
    """

    op_name, backward_name, differentiable = "multinomial", "MultinomialBackward0", False
    replacement = False
    generator = None

    def infer(self, probs):
        if not probs._dtype.is_floating_point:
            raise RuntimeError(f"multinomial only supports floating-point dtypes for input, "
                               f"got: {probs._dtype}")
        shape = tuple(probs._data.shape)
        if len(shape) not in (1, 2):
            raise RuntimeError(f"prob_dist must be 1 or 2 dim, but got a {len(shape)}-D input "
                               f"of shape {shapes.fmt(shape)}")
        if self.num_samples <= 0:
            raise RuntimeError(f"cannot sample n_sample <= 0 samples (num_samples="
                               f"{self.num_samples})")
        if not self.replacement and self.num_samples > shape[-1]:
            raise RuntimeError(f"cannot sample n_sample > prob_dist.size(-1) samples without "
                               f"replacement ({self.num_samples} samples from {shape[-1]} "
                               "categories)")
        return shape[:-1] + (self.num_samples,), dtypes.int64

    def forward(self, backend, probs):
        rows = probs if probs.ndim == 2 else backend.reshape(probs, (1, probs.shape[0]))
        n, s = rows.shape[0], self.num_samples
        if n == 0:
            return backend.empty((0, s), dtypes.int64)
        self._check(backend, rows)
        float64 = dtypes.float64
        if self.replacement:
            u = backend.uniform((n, s), 0.0, 1.0, float64, self.generator)
            out = backend.categorical(rows, u)
        else:
            u = backend.uniform(tuple(rows.shape), 0.0, 1.0, float64, self.generator)
            # -log(u) is Exp(1) and > 0 (u < 1): zero weights get key 0, ranked last
            race = backend.unary("neg", backend.unary("log", u))
            keys = backend.binary("div", backend.astype(rows, float64), race)
            order = backend.argsort(keys, 1, True)
            out = backend.getitem(order, (slice(None), slice(0, s)))
        return out if probs.ndim == 2 else backend.reshape(out, (s,))

    def _check(self, backend, rows) -> None:
        """PyTorch's checks of the weights' values, in its order."""
        if rows.shape[1] == 0:  # no category: every row sums to 0
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        low = _host_float(backend, backend.min(rows, None, False))
        high = _host_float(backend, backend.max(rows, None, False))
        if not low >= 0.0 or high == float("inf") or high != high:
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if _host_float(backend, backend.min(backend.sum(rows, 1, False), None, False)) <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
