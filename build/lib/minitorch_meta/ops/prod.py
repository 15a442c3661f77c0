"""``prod``: the product of all elements, or along one dim, with PyTorch's gradient at zeros.

The gradient of a product with respect to one factor is the product of the others. Without
zeros that is ``result / x``; with zeros it is not (0 / 0), so PyTorch then multiplies an
exclusive running product from the left by one from the right, which is exact at any
number of zeros. Which formula PyTorch takes depends on the data (any zero in the input;
for the product of everything, how many), and the two differ where the input holds inf
or nan, so backward computes both and picks with ``where``, as PyTorch picks: no branch on
the data, hence no device-to-host read on CUDA.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .cumulative import accumulation_dtype, flip
from .function import Function
from .layout import Cat
from .reduction import drop_reduced_dims


class Prod(Function):
    """The product of the elements over ``dim`` (an int), or of all of them (``dim=None``).

    Shape:
        ``()`` for all elements (``(1,) * ndim`` with ``keepdim``), else the input's shape
        without ``dim`` (kept as 1 with ``keepdim``); the dtype is ``dtype`` when given,
        else the input's for floating inputs and int64 for integer and bool ones.

    Raises:
        IndexError for a dim out of range; RuntimeError for an integer ``dtype`` on an input
        that requires grad.
    """

    op_name = "prod"
    saved_for_backward = (0, "output")
    dim, keepdim, dtype = None, False, None

    @property
    def backward_name(self):
        return "ProdBackward0" if self.dim is None else "ProdBackward1"

    def infer(self, x):
        shape = x._data.shape
        if self.dim is None:
            self.axes = tuple(range(len(shape)))
        else:
            axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
            self.axes = (axis,) if shape else ()  # a 0-d input has no axis to reduce
        self.out_dtype = accumulation_dtype(self.op_name, x, self.dtype)
        return shapes.reduce_shape(self.op_name, shape, self.axes, self.keepdim), self.out_dtype

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        axis = self.axes[0] if self.dim is not None and self.axes else None
        kept = backend.prod(x, axis, True)  # reduced dims kept as 1: backward broadcasts it
        if self.recording:
            self.x, self.kept = x, kept
        return drop_reduced_dims(backend, kept, self.axes, self.keepdim)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        x, kept = self.x, self.kept
        gy = backend.reshape(gy, kept.shape)
        if not shape:
            gx = gy
        elif self.dim is None:
            gx = _all_elements_gradient(backend, gy, x, kept)
        else:
            gx = _one_dim_gradient(backend, gy, x, kept, self.axes[0])
        return (gx if gx.dtype == dtype.numpy else backend.astype(gx, dtype),)

    def backward_graph(self, grad):
        # PyTorch's double backward: its first-order formula differentiated as written, and
        # that formula picks its branch by reading the data (any zero?). Under grad mode it
        # takes the products of the others at any number of zeros (exact to every order),
        # where the array formula gives zeros from two on.
        shape, dtype = self.input_specs[0]
        backend, x, kept = self.backend, self.x, self.kept
        grad = grad.reshape(kept.shape)
        if not shape:
            return (grad.to(dtype),)
        zeros = int(backend.to_numpy(_zero_count(backend, x)))
        xt = self.graph_input(0, x)
        if zeros == 0:  # the output depends on x too: through this node (graph_output)
            out = self.graph_output(drop_reduced_dims(backend, kept, self.axes, self.keepdim))
            gx = grad * (out.reshape(kept.shape) / xt)
        elif self.dim is not None:
            gx = grad * products_of_others_graph(xt, self.axes[0])
        else:
            gx = grad * products_of_others_graph(xt.reshape(-1), 0).reshape(shape)
        return (gx.to(dtype),)


def _one_dim_gradient(backend, gy, x, kept, axis: int):
    """PyTorch's rule along a dim: ``result / x`` when the input has no zero at all, else
    the product of the others along the dim."""
    zero_anywhere = backend.binary("gt", _zero_count(backend, x), 0)
    others = backend.binary("mul", gy, products_of_others(backend, x, axis))
    plain = backend.binary("mul", gy, backend.binary("div", kept, x))
    return backend.where(zero_anywhere, others, plain)


def _all_elements_gradient(backend, gy, x, kept):
    """PyTorch's rule for the product of everything: ``result / x`` without zeros, the
    product of the others with one zero, and zeros with several."""
    zeros = _zero_count(backend, x)
    flat = backend.reshape(x, (x.size,))
    others = backend.reshape(products_of_others(backend, flat, 0), x.shape)
    one_zero = backend.where(backend.binary("eq", zeros, 1), backend.binary("mul", gy, others),
                             gy.dtype.type(0))
    plain = backend.binary("mul", gy, backend.binary("div", kept, x))
    return backend.where(backend.binary("eq", zeros, 0), plain, one_zero)


def _zero_count(backend, x):
    return backend.sum(backend.binary("eq", x, x.dtype.type(0)), None, False)


def products_of_others(backend, x, axis: int):
    """For each element, the product of the other elements along ``axis``: the exclusive
    running product from the left times the one from the right (``[b*c, a*c, a*b]`` for
    ``[a, b, c]``). Exact with zeros; the factors are multiplied in PyTorch's order, so inf
    and nan come out where PyTorch's do.

    Shape:
        ``x``'s shape.
    """
    n = x.shape[axis]
    dtype = dtypes.from_numpy(x.dtype)

    def along(start, stop):
        return (slice(None),) * axis + (slice(start, stop),)

    shifted_right = backend.full(x.shape, 1, dtype)  # [1, a, b]
    backend.setitem(shifted_right, along(1, None), backend.getitem(x, along(0, max(n - 1, 0))))
    shifted_left = backend.full(x.shape, 1, dtype)  # [b, c, 1]
    backend.setitem(shifted_left, along(0, max(n - 1, 0)), backend.getitem(x, along(1, None)))
    from_left = backend.cumprod(shifted_right, axis)  # [1, a, a*b]
    from_right = flip(backend, backend.cumprod(flip(backend, shifted_left, axis), axis), axis)
    return backend.binary("mul", from_left, from_right)


def products_of_others_graph(x, axis: int):
    """``products_of_others`` of the tensor ``x`` with recorded ops (cat, narrow, cumprod
    and flip, PyTorch's composition), so that it can be differentiated again.

    Shape:
        ``x``'s shape.
    """
    n = x.shape[axis]
    ones_shape = tuple(1 if d == axis else size for d, size in enumerate(x.shape))
    ones = x.new_ones(ones_shape)
    from_left = Cat(dim=axis)(ones, x.narrow(axis, 0, max(n - 1, 0))).cumprod(axis)
    from_right = Cat(dim=axis)(ones, x.narrow(axis, min(1, n), max(n - 1, 0)).flip((axis,)))
    return from_left * from_right.cumprod(axis).flip((axis,))
