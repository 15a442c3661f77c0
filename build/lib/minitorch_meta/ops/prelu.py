"""``prelu``: leaky ReLU whose negative slope is a learnable tensor, one per channel or one
shared by all.

The weight (``(1,)`` or ``(C,)``, or 0-d) is laid along dimension 1 of the input, PyTorch's
channel dimension; a 1-D input has one channel. Both inputs get a gradient: the weight's is
``x * grad`` summed over every position where ``x <= 0``.
"""

from __future__ import annotations

from .function import Function


class Prelu(Function):
    """``x`` where ``x > 0``, else ``weight * x``, with ``weight`` broadcast per channel.

    Shape:
        input ``(N, C, *)``, ``(C,)``-less 1-D ``(L,)`` or 0-d, weight ``(C,)`` or ``(1,)``
        (0-d allowed) -> the input's shape.

    Raises:
        RuntimeError: the weight's size is neither 1 nor the channel count, the weight has
            more than one dimension, or the two dtypes differ (PyTorch's messages).
        TypeError: the tensors are not floating-point.
    """

    op_name, backward_name = "prelu", "PreluKernelBackward0"
    saved_for_backward = (0, 1)

    def infer(self, x, weight):
        shape, count = x._data.shape, weight._data.size
        if weight._dtype is not x._dtype:
            raise RuntimeError(f"prelu: Type promoting not supported. Got {x._dtype} and "
                               f"{weight._dtype}; convert the weight with .to(input.dtype)")
        if count != 1:
            if not shape:
                raise RuntimeError("Not allow zero-dim input tensor.")
            channels = shape[1] if len(shape) > 1 else 1
            if channels != count:
                raise RuntimeError(f"Mismatch of parameter numbers and input channel size. "
                                   f"Found parameter numbers = {count} and channel size = "
                                   f"{channels}.")
        if weight._data.ndim > 1:
            raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                               f"ndim = {weight._data.ndim}")
        if not x._dtype.is_floating_point:
            raise NotImplementedError(f"prelu: expected a floating-point tensor, got dtype "
                                      f"{x._dtype}; convert it with .float()")
        # The weight as a tensor of the input's rank: (1, C, 1, ...) or, up to 1-D, (1,)/().
        laid = [1] * len(shape)
        if len(shape) > 1:
            laid[1] = count
        self.laid_shape = tuple(laid)
        return shape, x._dtype

    def forward(self, backend, x, weight):
        w = backend.reshape(weight, self.laid_shape)
        positive = backend.binary("gt", x, x.dtype.type(0))
        if self.recording:
            self.x, self.w, self.weight, self.positive = x, w, weight, positive
        return backend.where(positive, x, backend.binary("mul", w, x))

    def backward(self, backend, gy):
        zero = gy.dtype.type(0)
        gx = gw = None
        if self.needs_input_grad[0]:
            gx = backend.where(self.positive, gy, backend.binary("mul", self.w, gy))
        if self.needs_input_grad[1]:
            shape = tuple(self.input_specs[1][0])
            slopes = backend.where(self.positive, zero, backend.binary("mul", self.x, gy))
            gw = backend.reshape(backend.sum_to_shape(slopes, self.laid_shape), shape)
        return gx, gw

    def backward_graph(self, grad):
        # ``backward`` with recorded ops: the mask is a constant, x and the weight are not
        positive = self.constant(self.positive)
        gx = gw = None
        if self.needs_input_grad[0]:
            w = self.graph_input(1, self.weight).reshape(self.laid_shape)
            gx = grad.where(positive, w * grad)
        if self.needs_input_grad[1]:
            slopes = (self.graph_input(0, self.x) * grad).where(positive.logical_not(), 0)
            gw = slopes.sum_to_size(self.laid_shape).reshape(tuple(self.input_specs[1][0]))
        return gx, gw


def check_weight_is_tensor(weight) -> None:
    """PyTorch's TypeError for a weight that is not a Tensor (a float slope, say)."""
    if not hasattr(weight, "_data"):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{type(weight).__name__}")
