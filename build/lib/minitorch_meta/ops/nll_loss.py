"""``nll_loss``: the negative log-likelihood of class indices, with PyTorch's class weights,
``ignore_index``, unbatched ``(C,)`` inputs and K-dimensional ``(N, C, d1, ...)`` inputs
(``cross_entropy`` with class indices is ``log_softmax`` and this op)."""

from __future__ import annotations

from .. import dtypes
from ..autograd import is_grad_enabled
from .function import Function
from .loss import _check_reduction
from .shapes import ShapeError, fmt


class NllLoss(Function):
    """``-weight[t] x[..., t, ...]`` for each sample (0 where ``t == ignore_index``), summed,
    or for ``'mean'`` divided by the sum of the weights of the samples not ignored (NaN when
    that sum is 0, as in PyTorch). Without ``weight`` every class weighs 1.

    Shape:
        input ``(C,)`` and target ``()`` (or ``(1,)``); input ``(N, C)`` and target
        ``(N,)``; or input ``(N, C, d1, ..., dK)`` and target ``(N, d1, ..., dK)``; class
        indices in ``[0, C)`` or ``ignore_index``; ``weight`` ``(C,)`` of the input's dtype
        -> ``()`` for ``'mean'``/``'sum'``, the target's shape for ``'none'`` (``()`` for
        an unbatched input).
    """

    op_name = "nll_loss"
    saved_for_backward = (0, 1, 2)
    reduction, ignore_index = "mean", -100
    input_ndim = 2

    @property
    def backward_name(self):
        # PyTorch runs K-dimensional inputs through its 2-D kernel, viewing other ranks as
        # 4-D; the view is the last node of an unreduced loss.
        ndim = self.input_ndim
        if ndim <= 2:
            return "NllLossBackward0"
        return "ViewBackward0" if self.reduction == "none" and ndim != 4 else \
            "NllLoss2DBackward0"

    def infer(self, x, t, weight=None):
        op = "nll_loss"
        _check_reduction(op, self.reduction)
        shape = x._data.shape  # a plain tuple: ``x.shape`` would build a Size per read
        self.input_ndim = len(shape)  # for ``backward_name``, read also without a graph
        if t._dtype.is_floating_point or t._dtype is dtypes.bool_:
            raise TypeError(f"{op}: expected target to hold class indices (int64), got dtype "
                            f"{t.dtype}; for one-hot or probability targets use "
                            "cross_entropy with a float target of the input's shape")
        out_shape = _target_shape(op, shape, t._data.shape)
        self.classes = shape[0] if len(shape) == 1 else shape[1]
        if weight is not None:
            self._check_weight(x, weight)
        return (out_shape if self.reduction == "none" else ()), x._dtype

    def _check_weight(self, x, weight) -> None:
        op = "nll_loss"
        if tuple(weight._data.shape) != (self.classes,):
            raise ShapeError(op, f"weight tensor should be defined either for all "
                                 f"{self.classes} classes or no classes: expected weight of "
                                 f"shape ({self.classes},), got {fmt(weight.shape)}")
        if weight._dtype is not x._dtype:
            raise RuntimeError(f"{op}: expected weight of the input's dtype {x.dtype}, got "
                               f"{weight.dtype}; convert it, e.g. weight.to({x.dtype})")
        if weight.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function '{op}' is not differentiable with respect to "
                               "argument 'weight'. This input cannot have requires_grad True; "
                               "pass weight.detach()")

    def forward(self, backend, x, t, weight=None):
        self._check_targets(backend, t)
        unbatched = x.ndim == 1
        if unbatched:  # computed as a batch of one
            x, t = backend.reshape(x, (1,) + x.shape), backend.reshape(t, (1,))
        self.keep = backend.binary("ne", t, self.ignore_index)
        safe_t = backend.where(self.keep, t, 0)
        self.index = _gather_index(backend, x.shape, safe_t)
        # each sample's class weight (1 without ``weight``); ignored samples are left out
        # with ``where``, as PyTorch's kernel skips them (an ignored -inf is no NaN)
        float_dtype = dtypes.from_numpy(x.dtype)
        self.class_weight = backend.full(t.shape, 1, float_dtype) if weight is None else \
            backend.getitem(weight, safe_t)
        zero = x.dtype.type(0)
        losses = backend.where(self.keep, backend.unary("neg", backend.binary(
            "mul", backend.getitem(x, self.index), self.class_weight)), zero)
        if unbatched:
            losses = backend.reshape(losses, ())
        if self.reduction == "none":
            return losses
        total = backend.asarray(backend.sum(losses, None, False), None)
        if self.reduction == "sum":
            return total
        counted = backend.where(self.keep, self.class_weight, zero)
        self.count = backend.asarray(backend.sum(counted, None, False), None)
        return backend.binary("div", total, self.count)

    def _check_targets(self, backend, t):
        if t.size == 0:
            return
        valid = backend.binary("ne", t, self.ignore_index)
        in_range = backend.binary("mul", backend.binary("ge", t, 0),
                                  backend.binary("lt", t, self.classes))
        bad = backend.binary("mul", valid, backend.binary("eq", in_range, False))
        if int(backend.to_numpy(backend.sum(bad, None, False))):
            values = backend.to_numpy(t)
            first = int(values[(values != self.ignore_index) & ((values < 0) |
                                                                 (values >= self.classes))][0])
            raise IndexError(f"nll_loss: target {first} is out of bounds: class indices must be "
                             f"in [0, {self.classes}) for an input with {self.classes} classes")

    def _sample_gradient(self, backend, gy):
        """``gy`` spread over the samples: ``-class_weight gy`` (``gy`` over the weight sum
        for ``'mean'``, PyTorch's order), 0 for the ignored ones, in the samples' shape."""
        if self.reduction == "none":
            gy = backend.reshape(gy, self.keep.shape)
        elif self.reduction == "mean":
            gy = backend.binary("div", gy, self.count)
        g = backend.binary("mul", backend.unary("neg", self.class_weight), gy)
        return backend.where(self.keep, g, g.dtype.type(0))

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        g = self._sample_gradient(backend, gy)
        gx = backend.index_add(_batched(tuple(shape)), self.index, g, dtype)
        return backend.reshape(gx, tuple(shape)), None, None

    def backward_graph(self, grad):
        # Linear in the gradient, with constant coefficients: ``x[index]``'s gradient, as a
        # recorded op.
        from .layout import IndexedZeros

        shape, dtype = self.input_specs[0]
        if self.reduction == "none":
            grad = grad.reshape(self.keep.shape)
        elif self.reduction == "mean":
            grad = grad / self.constant(self.count)
        g = grad * self.constant(self.backend.unary("neg", self.class_weight))
        g = g.masked_fill(self.constant(_logical_not(self.backend, self.keep)), 0)
        shape_index = tuple(self.backend.to_numpy(i) for i in self.index)
        gx = IndexedZeros(self.index, shape_index, _batched(tuple(shape)), dtype, self.name())(g)
        return gx.reshape(tuple(shape)), None, None


def _target_shape(op: str, shape: tuple, target_shape: tuple) -> tuple:
    """The shape of the unreduced loss, after checking the target's shape against the
    input's (PyTorch's rules and error types)."""
    if len(shape) == 0:
        raise ShapeError(op, "expected input of 1 or more dimensions: (C,) or (N, C, ...) "
                             "log-probabilities, got a 0-d input")
    if len(shape) == 1:
        if target_shape not in ((), (1,)):
            raise ShapeError(op, f"for an unbatched input {fmt(shape)}, expected a 0-d target "
                                 f"(one class index), got target of shape {fmt(target_shape)}")
        return ()
    expected = (shape[0],) + tuple(shape[2:])
    if len(target_shape) == 0 or target_shape[0] != shape[0]:
        batch = target_shape[0] if target_shape else 0
        raise ShapeError(op, f"expected input batch_size ({shape[0]}) to match target "
                             f"batch_size ({batch}): target of shape {fmt(expected)} for the "
                             f"input {fmt(shape)}, got {fmt(target_shape)}")
    if tuple(target_shape) != expected:
        raise ShapeError(op, f"expected target of shape {fmt(expected)} (one class index per "
                             f"position of the input {fmt(shape)} without its class dimension"
                             f"), got {fmt(target_shape)}")
    return expected


def _batched(shape: tuple) -> tuple:
    """An unbatched ``(C,)`` input's shape as a batch of one; other shapes unchanged."""
    return (1,) + shape if len(shape) == 1 else shape


def _gather_index(backend, shape: tuple, safe_t):
    """The advanced index that picks ``x[n, t[n, d...], d...]`` for every sample: ``arange``
    along each dimension but the class one (shaped to broadcast against the target), and
    the target itself there."""
    sample_dims = (shape[0],) + tuple(shape[2:])
    index = []
    for axis, size in enumerate(sample_dims):
        positions = [1] * len(sample_dims)
        positions[axis] = size
        index.append(backend.reshape(backend.arange(0, size, 1, dtypes.int64), tuple(positions)))
    return (index[0], safe_t, *index[1:])


def _logical_not(backend, mask):
    """The logical not of a boolean array."""
    return backend.binary("eq", mask, False)
