"""Margin losses with a kernel of their own in PyTorch: ``soft_margin_loss``,
``multi_margin_loss`` and ``multilabel_margin_loss`` (``grad_fn`` ``SoftMarginLossBackward0``,
``MultiMarginLossBackward0``, ``MultilabelMarginLossBackward0``).

The other margin and embedding losses are compositions of ops in PyTorch, and so in
``nn/margin_loss_functions.py``. Here each loss is one op whose backward follows PyTorch's
kernel term by term; the per-class terms are computed for all classes at once with masks
(the class of each sample, the hinge's active side) instead of PyTorch's loop over classes.
Each has a graph form (``backward_graph``, ``create_graph=True``): the hinges' active sides
are piecewise constant, so the gradients are constants times the output's gradient, and
for ``p=2`` also linear in the input.
"""

from __future__ import annotations

from .. import dtypes
from ..autograd import is_grad_enabled
from ..errors import DtypeNotImplementedError
from . import shapes
from .function import Function
from .loss import _check_reduction, _reduce
from .shapes import ShapeError, fmt


def _refuse_grad(op: str, name: str, tensor) -> None:
    """As PyTorch: the kernel has no derivative for ``name`` (a target, a class weight)."""
    if tensor is not None and tensor.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument "
                           f"'{name}'. This input cannot have requires_grad True; pass "
                           f"{name}.detach()")


def _require_float_input(op: str, x) -> None:
    if not x._dtype.is_floating_point:
        raise DtypeNotImplementedError(f"{op}: expected a floating-point input, got {x.dtype}")


def _require_class_indices(op: str, t) -> None:
    if t._dtype is not dtypes.int64:
        raise TypeError(f"{op}: expected target to hold class indices as int64, got dtype "
                        f"{t.dtype}; convert it with target.long()")


def _require_vector_or_matrix(op: str, shape) -> None:
    """PyTorch's rule for the class losses: ``(C,)`` or ``(N, C)`` with ``C > 0``."""
    if len(shape) not in (1, 2) or shape[-1] == 0:
        raise ShapeError(op, f"expected a non-empty (C,) vector or (N, C) matrix of class "
                             f"scores (N may be 0), got input of shape {fmt(shape)}")


def _scaled_by_output_gradient_graph(g, grad, reduction: str, shape: tuple):
    """``_scaled_by_output_gradient`` for tensors, reshaped to the input's ``shape``."""
    if reduction == "none":
        grad = grad.reshape(g.shape[0], 1)
    return (g * grad).reshape(tuple(shape))


def _unit_gradient(node):
    """An output gradient of ones (one per row for ``'none'``): what makes ``backward``
    give the constant factor of a gradient that is linear in the output's gradient."""
    rows = (node.rows,) if node.reduction == "none" else ()
    return node.backend.full(rows, 1, node.input_specs[0][1])


def _scaled_by_output_gradient(backend, g, gy, reduction: str):
    """``g`` (rows of per-class gradients) times the output's gradient: one per row for
    ``'none'``, a single number otherwise."""
    if reduction == "none":
        gy = backend.reshape(gy, (g.shape[0], 1))
    return backend.binary("mul", g, gy)


class SoftMarginLoss(Function):
    """``log(1 + exp(-target * input))`` elementwise, targets being ±1 (PyTorch computes
    ``log1p(exp(...))`` as written, so it overflows where PyTorch does).

    Shape:
        ``input`` of any shape, ``target`` broadcastable to it (cast to the input's dtype)
        -> ``()`` for ``'mean'``/``'sum'``, the input's shape for ``'none'``.

    Raises:
        ShapeError: a target that does not broadcast to the input's shape. TypeError: a
            non-floating-point input. RuntimeError: a target that requires grad.
    """

    op_name, backward_name = "soft_margin_loss", "SoftMarginLossBackward0"
    saved_for_backward = (0, 1)
    reduction = "mean"

    def infer(self, x, t):
        op = self.op_name
        _check_reduction(op, self.reduction)
        _require_float_input(op, x)
        shape = x._data.shape
        if not shapes.broadcasts_to(t._data.shape, shape):
            raise ShapeError(op, f"expected target to broadcast to the input's shape "
                                 f"{fmt(shape)}, got target of shape {fmt(t.shape)}")
        _refuse_grad(op, "target", t)
        self.count = x._data.size
        return (shape if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, t):
        if t.dtype != x.dtype:  # PyTorch computes in the input's dtype
            t = backend.astype(t, dtypes.from_numpy(x.dtype))
        self.x, self.t = x, t
        self.z = backend.unary("exp", backend.binary("mul", backend.unary("neg", x), t))
        return _reduce(backend, backend.unary("log1p", self.z), self.reduction)

    def backward(self, backend, gy):
        # PyTorch's kernel: (target * z) * -norm / (1 + z) * grad, z = exp(-target * input)
        z = self.z
        norm = 1.0 / max(self.count, 1) if self.reduction == "mean" else 1.0
        g = backend.binary("mul", backend.binary("mul", self.t, z), z.dtype.type(-norm))
        g = backend.binary("div", g, backend.binary("add", z, z.dtype.type(1)))
        return backend.binary("mul", g, gy), None

    def backward_graph(self, grad):
        # ``backward`` with recorded ops, z recomputed from the input so that it is joined
        t = self.constant(self.t)
        z = (-self.graph_input(0, self.x) * t).exp()
        norm = 1.0 / max(self.count, 1) if self.reduction == "mean" else 1.0
        return (t * z * -norm) / (z + 1) * grad, None


class MultiMarginLoss(Function):
    """Multi-class hinge loss: for each sample with class ``y``,
    ``sum over i != y of w[y] * max(0, margin - x[y] + x[i]) ** p``, divided by ``C``.

    Shape:
        ``input`` ``(N, C)`` (or ``(C,)``), ``target`` ``(N,)`` int64 in ``[0, C)`` (for a
        vector input: ``()`` or ``(1,)``), ``weight`` ``(C,)`` or None -> ``()`` for
        ``'mean'``/``'sum'``, the target's shape for ``'none'``.

    Raises:
        ShapeError: shapes as above. TypeError: a non-floating-point input, a target that
            is not int64, a weight of another dtype than the input. IndexError: a class
            index outside ``[0, C)`` (not checked on meta). RuntimeError: a weight that
            requires grad.
    """

    op_name, backward_name = "multi_margin_loss", "MultiMarginLossBackward0"
    saved_for_backward = (0, 1, 2)
    reduction, p, margin = "mean", 1, 1.0

    def infer(self, x, t, weight=None):
        op = self.op_name
        _check_reduction(op, self.reduction)
        _require_float_input(op, x)
        _require_class_indices(op, t)
        shape, t_shape = x._data.shape, t._data.shape
        _require_vector_or_matrix(op, shape)
        rows = shape[0] if len(shape) == 2 else 1
        if t_shape != (rows,) and not (len(shape) == 1 and t_shape == ()):
            raise ShapeError(op, f"expected target of shape ({rows},) (one class index per "
                                 f"sample of the input {fmt(shape)}), got target of shape "
                                 f"{fmt(t_shape)}")
        if weight is not None:
            if weight._data.shape != (shape[-1],):
                raise ShapeError(op, f"expected weight of shape ({shape[-1]},) (one per class "
                                     f"of the input {fmt(shape)}), got weight of shape "
                                     f"{fmt(weight.shape)}")
            shapes.require_same_dtype(op, "input", x._dtype, "weight", weight._dtype)
            _refuse_grad(op, "weight", weight)
        self.rows, self.classes, self.none_shape = rows, shape[-1], t_shape
        return (t_shape if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, t, weight=None):
        n, c = self.rows, self.classes
        if self.recording and self.p == 2:  # the graph formula's gradient depends on it
            self.x = x
        x, t = backend.reshape(x, (n, c)), backend.reshape(t, (n,))
        _check_class_indices(backend, self.op_name, t, 0, c)
        rows = backend.arange(0, n, 1, dtypes.int64)
        self.index = (rows, t)
        picked = backend.reshape(backend.getitem(x, self.index), (n, 1))
        # PyTorch's order: (margin - x[y]) + x[i]
        self.z = backend.binary("add", backend.binary("sub", x.dtype.type(self.margin), picked), x)
        other_class = backend.binary("ne", backend.reshape(backend.arange(0, c, 1, dtypes.int64),
                                                           (1, c)), backend.reshape(t, (n, 1)))
        self.active = backend.binary("logical_and", other_class,
                                     backend.binary("gt", self.z, 0))
        self.class_weight = None if weight is None else backend.reshape(
            backend.getitem(weight, t), (n, 1))
        h = self.z if self.p == 1 else backend.binary("mul", self.z, self.z)
        losses = self._masked(backend, h)
        losses = backend.binary("div", backend.sum(losses, 1, False), x.dtype.type(c))
        if self.reduction == "none":
            return backend.reshape(losses, self.none_shape)
        return _reduce(backend, losses, self.reduction)

    def _masked(self, backend, h):
        """``h`` times the sample's class weight, zero where the hinge is inactive."""
        if self.class_weight is not None:
            h = backend.binary("mul", h, self.class_weight)
        return backend.where(self.active, h, h.dtype.type(0))

    def backward(self, backend, gy):
        (shape, dtype), n, c = self.input_specs[0], self.rows, self.classes
        g = self.z.dtype.type(self._scale())
        h = backend.full((n, c), g, dtype) if self.p == 1 else backend.binary(
            "mul", self.z, g * 2)
        h = self._masked(backend, h)
        # each active class i pushes x[i] up and the sample's own class down as much
        own = backend.unary("neg", backend.sum(h, 1, False))
        h = backend.binary("add", h, backend.index_add((n, c), self.index, own, dtype))
        gx = _scaled_by_output_gradient(backend, h, gy, self.reduction)
        return backend.reshape(gx, tuple(shape)), None, None

    def _scale(self) -> float:
        """The loss's divisor: ``C``, and ``N`` too for ``'mean'``."""
        return 1.0 / (self.rows * self.classes) if self.reduction == "mean" else \
            1.0 / self.classes

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``): for ``p=1`` constants
        times ``grad``; for ``p=2`` the hinges ``z`` are recomputed from the input."""
        shape, n, c = self.input_specs[0][0], self.rows, self.classes
        if self.p == 1:
            shares = self.backward(self.backend, _unit_gradient(self))[0]
            return (_scaled_by_output_gradient_graph(self.constant(shares).reshape(n, c), grad,
                                                     self.reduction, shape), None, None)
        from .selection_graph import picked, placed

        x = self.graph_input(0, self.x).reshape(n, c)
        z = (self.margin - picked(self, x, self.index).reshape(n, 1)) + x
        h = z * (2 * self._scale())
        if self.class_weight is not None:
            h = h * self.constant(self.class_weight)
        h = h.masked_fill(self.constant(self.backend.unary("logical_not", self.active)), 0)
        h = h + placed(self, -h.sum(1), self.index, (n, c), h.dtype)
        return _scaled_by_output_gradient_graph(h, grad, self.reduction, shape), None, None


class MultilabelMarginLoss(Function):
    """Multi-label hinge loss: for each sample, the classes listed in its target row (up to
    the first ``-1``) against every class not listed,
    ``sum over j, i of max(0, 1 - (x[y_j] - x[i]))``, divided by ``C``.

    Shape:
        ``input`` ``(N, C)`` (or ``(C,)``) and an int64 ``target`` of the same shape with
        values in ``[-1, C)`` -> ``()`` for ``'mean'``/``'sum'``, ``(N,)`` (``()`` for a
        vector) for ``'none'``.

    Raises:
        ShapeError: shapes as above. TypeError: a non-floating-point input, a target that
            is not int64. IndexError: a target value outside ``[-1, C)`` (not checked on
            meta).
    """

    op_name, backward_name = "multilabel_margin_loss", "MultilabelMarginLossBackward0"
    saved_for_backward = (0, 1)
    reduction = "mean"

    def infer(self, x, t):
        op = self.op_name
        _check_reduction(op, self.reduction)
        _require_float_input(op, x)
        _require_class_indices(op, t)
        shape = x._data.shape
        _require_vector_or_matrix(op, shape)
        if t._data.shape != shape:
            raise ShapeError(op, f"expected target of the input's shape {fmt(shape)} (class "
                                 f"indices, ended by -1), got target of shape {fmt(t.shape)}")
        self.rows = shape[0] if len(shape) == 2 else 1
        self.classes = shape[-1]
        self.none_shape = (shape[0],) if len(shape) == 2 else ()
        return (self.none_shape if self.reduction == "none" else ()), x._dtype

    def forward(self, backend, x, t):
        n, c = self.rows, self.classes
        x, t = backend.reshape(x, (n, c)), backend.reshape(t, (n, c))
        _check_class_indices(backend, self.op_name, t, -1, c)
        # the listed classes: the entries before the row's first -1
        ended = backend.cumsum(backend.astype(backend.binary("eq", t, -1), dtypes.int64), 1)
        listed = backend.binary("eq", ended, 0)
        safe_t = backend.where(listed, t, 0)
        self.index = (backend.reshape(backend.arange(0, n, 1, dtypes.int64), (n, 1)), safe_t)
        dtype = dtypes.from_numpy(x.dtype)
        counts = backend.index_add((n, c), self.index, backend.astype(listed, dtype), dtype)
        unlisted = backend.binary("eq", counts, 0)
        picked = backend.getitem(x, self.index)  # x[y_j], (n, c)
        # z[n, j, i] = (1 - x[y_j]) + x[i], PyTorch's order
        z = backend.binary("add", backend.reshape(backend.binary("sub", x.dtype.type(1), picked),
                                                  (n, c, 1)), backend.reshape(x, (n, 1, c)))
        pairs = backend.binary("logical_and", backend.reshape(listed, (n, c, 1)),
                               backend.reshape(unlisted, (n, 1, c)))
        self.active = backend.binary("logical_and", pairs, backend.binary("gt", z, 0))
        hinge = backend.where(self.active, z, x.dtype.type(0))
        losses = backend.binary("div", backend.sum(hinge, (1, 2), False), x.dtype.type(c))
        if self.reduction == "none":
            return backend.reshape(losses, self.none_shape)
        return _reduce(backend, losses, self.reduction)

    def backward(self, backend, gy):
        (shape, dtype), n, c = self.input_specs[0], self.rows, self.classes
        scale = 1.0 / (n * c) if self.reduction == "mean" else 1.0 / c
        g = backend.astype(self.active, dtype)
        g = backend.binary("mul", g, g.dtype.type(scale))
        # x[i] gains each active pair's share, x[y_j] loses it
        gx = backend.binary("add", backend.sum(g, 1, False), backend.index_add(
            (n, c), self.index, backend.unary("neg", backend.sum(g, 2, False)), dtype))
        gx = _scaled_by_output_gradient(backend, gx, gy, self.reduction)
        return backend.reshape(gx, tuple(shape)), None

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``): the loss is piecewise
        linear, so its gradient is a constant (the active pairs' shares) times ``grad``."""
        shape, n, c = self.input_specs[0][0], self.rows, self.classes
        shares = self.constant(self.backward(self.backend, _unit_gradient(self))[0])
        return _scaled_by_output_gradient_graph(shares.reshape(n, c), grad, self.reduction,
                                                shape), None


def _check_class_indices(backend, op: str, t, low: int, classes: int) -> None:
    """IndexError for a target value outside ``[low, classes)``, naming the first one."""
    if t.size == 0:
        return
    bad = backend.binary("logical_or", backend.binary("lt", t, low),
                         backend.binary("ge", t, classes))
    if int(backend.to_numpy(backend.sum(bad, None, False))):
        values = backend.to_numpy(t)
        first = int(values[(values < low) | (values >= classes)][0])
        raise IndexError(f"{op}: target {first} is out of range: expected class indices in "
                         f"[{low}, {classes}) for an input with {classes} classes")
