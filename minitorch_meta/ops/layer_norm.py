"""``layer_norm``: normalise each sample over its last dimensions, then scale and shift.

One op with its own backward (PyTorch's ``NativeLayerNormBackward0``): the input's gradient
is the closed form ``rstd * (g - mean(g) - xhat * mean(g * xhat))`` over the normalised
dimensions, with ``g`` the output's gradient times the weight, rather than the chain
through a mean, a variance and a square root.
"""

from __future__ import annotations

import math

from . import shapes
from .function import Function


def _listed(shape) -> str:
    """A shape as PyTorch's layer_norm messages print it: ``[2, 3]``."""
    return str(list(shape))


class LayerNorm(Function):
    """``(x - mean) / sqrt(var + eps) * weight + bias``, the mean and the biased variance
    taken over the last ``len(normalized_shape)`` dimensions of each sample.

    The inputs are ``(input, weight, bias)``; ``weight`` and ``bias`` may be None.

    Shape:
        input ``(*, *normalized_shape)``; weight and bias ``normalized_shape``; the output
        has the input's shape and dtype.

    Raises:
        ShapeError: an empty ``normalized_shape``, an input whose last dimensions are not
            ``normalized_shape``, or a weight or bias of another shape.
        NotImplementedError: an input that is not floating-point.
        TypeError: a weight or bias of another dtype than the input.
    """

    op_name, backward_name = "layer_norm", "NativeLayerNormBackward0"
    # PyTorch saves all three (we keep the input as its statistics): changing one in place
    # before backward raises its error here too
    saved_for_backward = (0, 1, 2)
    normalized_shape, eps = (), 1e-5

    def infer(self, x, weight=None, bias=None):
        shape, normalized = x._data.shape, tuple(self.normalized_shape)
        if not normalized:
            raise shapes.ShapeError(self.op_name, "Expected normalized_shape to be at least "
                                    "1-dimensional, i.e., containing at least one element, but "
                                    "got normalized_shape = []")
        for name, tensor in (("weight", weight), ("bias", bias)):
            if tensor is not None and tensor._data.shape != normalized:
                raise shapes.ShapeError(
                    self.op_name, f"Expected {name} to be of same shape as normalized_shape, but "
                                  f"got {name} of shape {_listed(tensor._data.shape)} and "
                                  f"normalized_shape = {_listed(normalized)}")
        if len(shape) < len(normalized) or shape[-len(normalized):] != normalized:
            raise shapes.ShapeError(
                self.op_name, f"Given normalized_shape={_listed(normalized)}, expected input "
                              f"with shape [*, {', '.join(map(str, normalized))}], but got "
                              f"input of size{_listed(shape)}")
        if not x._dtype.is_floating_point:
            raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for "
                                      f"'{x._dtype}': layer_norm takes floating-point "
                                      "tensors; convert the input first, e.g. with .float()")
        for name, tensor in (("weight", weight), ("bias", bias)):
            if tensor is not None:
                shapes.require_same_dtype(self.op_name, "input", x._dtype, name, tensor._dtype)
        ndim = len(shape)
        self.axes = tuple(range(ndim - len(normalized), ndim))  # the normalised ones
        self.count = math.prod(normalized)
        return shape, x._dtype

    def forward(self, backend, x, weight=None, bias=None):
        xhat, rstd = self._normalise(backend, x)
        if self.recording:
            self.xhat, self.rstd, self.weight = xhat, rstd, weight
        out = xhat if weight is None else backend.binary("mul", xhat, weight)
        return out if bias is None else backend.binary("add", out, bias)

    def _normalise(self, backend, x):
        """``(xhat, rstd)``: the normalised input and ``1 / sqrt(var + eps)`` per sample."""
        count = x.dtype.type(self.count)
        mean = backend.binary("div", backend.sum(x, self.axes, True), count)
        # centring first avoids the cancellation of E[x²] - E[x]²
        centred = backend.binary("sub", x, mean)
        var = backend.binary("div", backend.sum(backend.binary("mul", centred, centred),
                                                self.axes, True), count)
        rstd = backend.binary("div", x.dtype.type(1), backend.unary(
            "sqrt", backend.binary("add", var, x.dtype.type(self.eps))))
        return backend.binary("mul", centred, rstd), rstd

    def backward(self, backend, gy):
        xhat = self.xhat
        needs = self.needs_input_grad
        gx = gw = gb = None
        leading = tuple(range(xhat.ndim - len(self.axes)))  # the sample dimensions
        if needs[0]:
            g = gy if self.weight is None else backend.binary("mul", gy, self.weight)
            count = gy.dtype.type(self.count)
            mean_g = backend.binary("div", backend.sum(g, self.axes, True), count)
            mean_gx = backend.binary("div", backend.sum(backend.binary("mul", g, xhat),
                                                        self.axes, True), count)
            gx = backend.binary("mul", backend.binary("sub", backend.binary(
                "sub", g, mean_g), backend.binary("mul", xhat, mean_gx)), self.rstd)
        if needs[1]:
            gw = backend.sum(backend.binary("mul", gy, xhat), leading, False)
        if needs[2]:
            gb = backend.sum(gy, leading, False)
        return gx, gw, gb
