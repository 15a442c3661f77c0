"""``Tensor.unfold(dimension, size, step)``: every window of ``size`` elements, ``step``
apart, along one dim, as a strided view (``nn.functional.unfold``, im2col, is
``ops/fold.py``).

Window ``i`` starts ``i * step`` elements along the dim, so the windows are one
``as_strided`` view: the dim's stride times ``step`` between windows, the dim's own stride
within one. Windows may overlap, so backward adds the gradient back one window position
at a time (``size`` strided slices, none of which overlaps itself).
"""

from __future__ import annotations

from . import shapes
from .function import Function


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
        scalar = x.ndim == 0
        if scalar:
            x = backend.reshape(x, (1,))
        strides = list(backend.strides(x))
        along = strides[self.axis]
        strides[self.axis] = along * self.step
        windows = backend.as_strided(x, self.windows_shape, tuple(strides) + (along,))
        return backend.reshape(windows, (self.size,)) if scalar else windows

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gy = backend.reshape(gy, self.windows_shape)
        gx = backend.full(self.full, 0, dtype)
        lead = (slice(None),) * self.axis
        reach = self.step * (self.count - 1) + 1
        for k in range(self.size):  # the k-th element of every window
            backend.accumulate(gx, lead + (slice(k, k + reach, self.step),),
                               backend.getitem(gy, (Ellipsis, k)))
        return (backend.reshape(gx, tuple(shape)),)
