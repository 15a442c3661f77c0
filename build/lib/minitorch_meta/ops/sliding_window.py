"""``Tensor.unfold(dimension, size, step)``: every window of ``size`` elements, ``step``
apart, along one dim, as a strided view (``nn.functional.unfold``, im2col, is
``ops/fold.py``).

Window ``i`` starts ``i * step`` elements along the dim, so the windows are one
``as_strided`` view: the dim's stride times ``step`` between windows, the dim's own stride
within one. Windows may overlap, so backward adds the gradient back one window position
at a time (``size`` strided slices, none of which overlaps itself). That sum is also a
recorded op (``WindowsSum``, for gradients of gradients), whose gradient is the windows
again.
"""

from __future__ import annotations

from . import shapes
from .function import Function
from .graph_backward import gradient_node_name


class SlidingWindows(Function):
    """The windows of ``size`` elements, ``step`` apart, along ``dimension``, as a view.

    Shape:
        the input's shape with the number of windows ``(length - size) // step + 1`` at
        ``dimension``, and a last dim of ``size``: ``(3, 8).unfold(1, 4, 2) -> (3, 3, 4)``;
        a 0-d input counts as one of one element.

    Raises:
        IndexError for a dim out of range; RuntimeError for a negative size, a size past the
        dim's length, or a step that is not positive.
    """

    op_name, backward_name = "unfold", "UnfoldBackward0"
    is_view = True

    def infer(self, x):
        shape = tuple(x._data.shape)
        axis = shapes.normalize_dim(self.op_name, self.dimension, len(shape))
        full = shape or (1,)
        if self.size < 0:
            raise RuntimeError(f"size is {self.size} but must be >= 0")
        if self.size > full[axis]:
            raise RuntimeError(f"maximum size for tensor at dimension {axis} is {full[axis]} "
                               f"but size is {self.size}")
        if self.step <= 0:
            raise RuntimeError(f"step is {self.step} but must be > 0")
        self.axis, self.full = axis, full
        self.count = (full[axis] - self.size) // self.step + 1
        self.windows_shape = full[:axis] + (self.count,) + full[axis + 1:] + (self.size,)
        # a 0-d input gives its one window alone, as in PyTorch
        return (self.windows_shape if shape else (self.size,)), x._dtype

    def forward(self, backend, x):
        return windows(backend, x, self.axis, self.step, self.windows_shape)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        return (windows_sum(backend, gy, self.axis, self.step, self.windows_shape,
                            tuple(shape), dtype),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        return (WindowsSum(self.dimension, self.size, self.step, tuple(shape), dtype,
                           self.name())(grad),)


class WindowsSum(Function):
    """``Tensor.unfold``'s gradient as a recorded op (``create_graph=True``): each window's
    gradient added back at the elements it holds. It is linear, and its own gradient is the
    windows of the incoming gradient (``SlidingWindows`` again), so any order works.

    Shape:
        ``grad`` the windows' shape -> the unfolded input's ``shape``.
    """

    op_name = "unfold_backward"
    _hyper = ("dimension", "size", "step", "shape", "dtype", "backward_name", "axis",
              "windows_shape")

    def __init__(self, dimension: int, size: int, step: int, shape: tuple, dtype,
                 unfold_name: str):
        self.dimension, self.size, self.step = dimension, size, step
        self.shape, self.dtype = shape, dtype
        self.backward_name = gradient_node_name(unfold_name)  # ``UnfoldBackwardBackward0``
        # the windows' layout: the unfold of a tensor of ``shape``
        full = shape or (1,)
        self.axis = shapes.normalize_dim(self.op_name, dimension, len(shape))
        self.count = (full[self.axis] - size) // step + 1
        self.windows_shape = full[:self.axis] + (self.count,) + full[self.axis + 1:] + (size,)

    def infer(self, grad):
        return self.shape, self.dtype

    def forward(self, backend, grad):
        return windows_sum(backend, grad, self.axis, self.step, self.windows_shape,
                           self.shape, self.dtype)

    def backward(self, backend, g):
        out = windows(backend, g, self.axis, self.step, self.windows_shape)
        return (backend.copy(out),)  # a gradient of its own, never a view of ``g``

    def backward_graph(self, grad):
        return (SlidingWindows(dimension=self.dimension, size=self.size, step=self.step)(grad),)


def windows(backend, x, axis: int, step: int, windows_shape: tuple):
    """The windows of ``x`` along ``axis`` (``windows_shape``: the unfold's, with a 0-d
    input counted as one element), as a strided view; a 0-d ``x`` gives its one window."""
    scalar = x.ndim == 0
    if scalar:
        x = backend.reshape(x, (1,))
    strides = list(backend.strides(x))
    along = strides[axis]
    strides[axis] = along * step
    out = backend.as_strided(x, windows_shape, tuple(strides) + (along,))
    return backend.reshape(out, windows_shape[-1:]) if scalar else out


def windows_sum(backend, gy, axis: int, step: int, windows_shape: tuple, shape: tuple, dtype):
    """The adjoint of ``windows``: each window's values added back at the elements it
    holds, into zeros of ``shape``."""
    size, count = windows_shape[-1], windows_shape[axis]
    full = shape or (1,)
    gy = backend.reshape(gy, windows_shape)
    gx = backend.full(full, 0, dtype)
    lead = (slice(None),) * axis
    reach = step * (count - 1) + 1
    for k in range(size):  # the k-th element of every window
        backend.accumulate(gx, lead + (slice(k, k + reach, step),),
                           backend.getitem(gy, (Ellipsis, k)))
    return backend.reshape(gx, shape)
