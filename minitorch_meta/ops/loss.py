"""Losses and ``log_softmax``: ``mse_loss``, ``l1_loss``, ``nll_loss`` (so ``cross_entropy``)."""

from __future__ import annotations

import warnings

from .. import dtypes
from . import shapes
from .function import Function
from .shapes import ShapeError, fmt

REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {REDUCTIONS}, got {reduction!r}")


def _reduce(backend, values, reduction: str):
    if reduction == "none":
        return values
    total = backend.asarray(backend.sum(values, None, False), None)
    if reduction == "sum":
        return total
    return backend.binary("div", total, total.dtype.type(max(values.size, 1)))


class _PointwiseLoss(Function):
    """Base of losses that compare ``input`` and ``target`` element by element.

    Shape:
        ``input`` and ``target`` of the same shape (broadcasting is accepted with a warning,
        as in PyTorch) -> ``()`` for ``'mean'``/``'sum'``, the broadcast shape for ``'none'``.
    """

    reduction = "mean"

    def infer(self, x, t):
        _check_reduction(self.op_name, self.reduction)
        if not x.dtype.is_floating_point:
            raise TypeError(f"{self.op_name}: expected a floating-point input, got {x.dtype}")
        shapes.require_same_dtype(self.op_name, "input", x.dtype, "target", t.dtype)
        shape = tuple(x.shape)
        if tuple(t.shape) != shape:
            shape = shapes.broadcast(self.op_name, x.shape, t.shape)
            warnings.warn(f"{self.op_name}: using a target size {fmt(t.shape)} that is different "
                          f"to the input size {fmt(x.shape)}; this will likely lead to incorrect "
                          "results due to broadcasting. Please ensure they have the same size.",
                          stacklevel=4)
        self.count = 1
        for s in shape:
            self.count *= s
        return (shape if self.reduction == "none" else ()), x.dtype

    def forward(self, backend, x, t):
        self.diff = backend.binary("sub", x, t)
        return _reduce(backend, self.pointwise(backend, self.diff), self.reduction)

    def backward(self, backend, gy):
        g = self.derivative(backend, self.diff)
        if self.reduction == "mean":
            gy = backend.binary("div", gy, gy.dtype.type(max(self.count, 1)))
        g = backend.binary("mul", g, gy)
        gx = None
        if self.needs_input_grad[0]:
            gx = backend.sum_to_shape(g, tuple(self.input_specs[0][0]))
        gt = None
        if self.needs_input_grad[1]:
            gt = backend.unary("neg", backend.sum_to_shape(g, tuple(self.input_specs[1][0])))
        return gx, gt


class MseLoss(_PointwiseLoss):
    """Mean (or sum) of squared differences."""

    op_name, backward_name = "mse_loss", "MseLossBackward0"
    saved_for_backward = (0, 1)

    def pointwise(self, backend, diff):
        return backend.binary("mul", diff, diff)

    def derivative(self, backend, diff):
        return backend.binary("mul", diff, diff.dtype.type(2))


class L1Loss(_PointwiseLoss):
    """Mean (or sum) of absolute differences."""

    op_name = "l1_loss"

    @property
    def backward_name(self):
        # PyTorch's l1_loss is the composite abs(input - target).mean() (or .sum()).
        return {"mean": "MeanBackward0", "sum": "SumBackward0"}.get(self.reduction,
                                                                    "AbsBackward0")

    def pointwise(self, backend, diff):
        return backend.unary("abs", diff)

    def derivative(self, backend, diff):
        return backend.unary("sign", diff)


class LogSoftmax(Function):
    """``x - log(sum(exp(x)))`` along ``dim``, computed stably.

    Shape:
        unchanged.
    """

    op_name, backward_name = "log_softmax", "LogSoftmaxBackward0"
    saved_for_backward = ("output",)

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise TypeError(f"log_softmax: expected a floating-point input, got {x.dtype}")
        self.axis = shapes.normalize_dim("log_softmax", self.dim, len(x._data.shape))
        return x._data.shape, x._dtype

    def forward(self, backend, x):
        shifted = backend.binary("sub", x, backend.max(x, self.axis, True))
        total = backend.sum(backend.unary("exp", shifted), self.axis, True)
        self.out = backend.binary("sub", shifted, backend.unary("log", total))
        return self.out

    def backward(self, backend, gy):
        total = backend.sum(gy, self.axis, True)
        return (backend.binary("sub", gy, backend.binary("mul", backend.unary("exp", self.out),
                                                          total)),)


class NllLoss(Function):
    """Negative log-likelihood of class indices under log-probabilities.

    Shape:
        input ``(N, C)`` log-probabilities and target ``(N,)`` class indices in ``[0, C)``
        (or ``ignore_index``) -> ``()`` for ``'mean'``/``'sum'``, ``(N,)`` for ``'none'``.
    """

    op_name, backward_name = "nll_loss", "NllLossBackward0"
    saved_for_backward = (0, 1)
    reduction, ignore_index = "mean", -100

    def infer(self, x, t):
        op = "nll_loss"
        _check_reduction(op, self.reduction)
        shape = x._data.shape  # a plain tuple: ``x.shape`` would build a Size per read
        shapes.require_ndim(op, "input", shape, (2,), " (N, C) log-probabilities")
        if t._dtype.is_floating_point or t._dtype is dtypes.bool_:
            raise TypeError(f"{op}: expected target to hold class indices (int64), got dtype "
                            f"{t.dtype}; for one-hot or probability targets use "
                            "cross_entropy with a float target of the input's shape")
        if tuple(t._data.shape) != (shape[0],):
            raise ShapeError(op, f"expected target of shape ({shape[0]},) (one class index per "
                                 f"row of the input {fmt(shape)}), got {fmt(t.shape)}")
        self.classes = shape[1]
        return ((shape[0],) if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, t):
        n = x.shape[0]
        self._check_targets(backend, t)
        keep = backend.binary("ne", t, self.ignore_index)
        safe_t = backend.where(keep, t, 0)
        rows = backend.arange(0, n, 1, dtypes.int64)
        self.index = (rows, safe_t)
        self.weight = backend.astype(keep, dtypes.from_numpy(x.dtype))
        picked = backend.binary("mul", backend.getitem(x, self.index), self.weight)
        losses = backend.unary("neg", picked)
        if self.reduction == "none":
            return losses
        total = backend.asarray(backend.sum(losses, None, False), None)
        if self.reduction == "sum":
            return total
        self.count = backend.sum(self.weight, None, False)
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

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        g = backend.binary("mul", backend.unary("neg", self.weight), gy)
        if self.reduction == "mean":
            g = backend.binary("div", g, self.count)
        return backend.index_add(tuple(shape), self.index, g, dtype), None
