"""``cumsum``: the running sum along a dim, and the dtype rule it shares with ``prod``.

Integer and bool inputs accumulate in int64 (PyTorch's rule for sums and products), unless
``dtype=`` asks for another type; the input is converted first, then accumulated. The
gradient of a running sum is the running sum of the gradient taken from the other end.
"""

from __future__ import annotations

from .. import dtypes
from ..autograd import is_grad_enabled
from . import shapes
from .function import Function


class Cumsum(Function):
    """``out[..., i, ...] = sum(input[..., :i + 1, ...])`` along ``dim``.

    Shape:
        the input's shape; the dtype is ``dtype`` when given, else the input's for floating
        inputs and int64 for integer and bool ones. A 0-d input is its own running sum.

    Raises:
        IndexError for a dim out of range; RuntimeError for an integer ``dtype`` on an input
        that requires grad; NotImplementedError for ``dtype=torch.bool``.
    """

    op_name, backward_name = "cumsum", "CumsumBackward0"
    dim, dtype = 0, None
    #: what the op runs, in its error messages
    running = "sum"

    def infer(self, x):
        shape = x._data.shape
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        self.out_dtype = accumulation_dtype(self.op_name, x, self.dtype)
        if self.out_dtype is dtypes.bool_:
            raise NotImplementedError(f"{self.op_name}: a running {self.running} cannot be "
                                      "bool (PyTorch has no such kernel either); pass "
                                      "dtype=torch.int64 or leave dtype out")
        return shape, self.out_dtype

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        if x.ndim == 0:  # NumPy's cumsum would make it 1-d
            return backend.copy(x)
        return backend.cumsum(x, self.axis)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if gy.dtype != dtype.numpy:  # a ``dtype=`` result: the gradient comes back converted
            gy = backend.astype(gy, dtype)
        if not shape:
            return (gy,)
        # Input i reaches every output from i on: sum the gradient from the end back to i.
        return (flip(backend, backend.cumsum(flip(backend, gy, self.axis), self.axis),
                     self.axis),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        if grad._dtype is not dtype:
            grad = grad.to(dtype)
        if not shape:
            return (grad,)
        axis = self.axis
        return (grad.flip((axis,)).cumsum(axis).flip((axis,)),)


def accumulation_dtype(op: str, x, dtype):
    """The dtype a sum-like op (``cumsum``, ``prod``) returns: ``dtype`` when given, else the
    input's when it is floating, else int64.

    Raises:
        RuntimeError for an integer or bool result of an input autograd is recording
        (PyTorch: "Autograd not support dtype"): no gradient could flow through it.
    """
    if dtype is not None:
        out = dtypes.to_dtype(dtype)
    else:
        out = x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else dtypes.int64
    if not (out.is_floating_point or out.is_complex) and x.requires_grad and is_grad_enabled():
        raise RuntimeError(f"{op}: autograd does not support the result dtype {out} for an "
                           f"input that requires grad; pass a floating dtype, or detach the "
                           "input (or use no_grad) when no gradient is wanted")
    return out


def flip(backend, a, axis: int):
    """``a`` reversed along ``axis`` (a view on NumPy and CuPy)."""
    return backend.getitem(a, (slice(None),) * axis + (slice(None, None, -1),))
