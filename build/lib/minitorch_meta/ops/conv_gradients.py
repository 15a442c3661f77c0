"""Gradients of gradients through convolutions (``create_graph=True``).

A convolution ``y = conv(x, w)`` is bilinear, and so are its gradients: the input's,
``gx = conv_transpose(gy, w)``, and the weight's, ``gw = weight_gradient(x, gy)``. Each is
an op here, run on the existing kernels, whose own gradients are again these three ops
(PyTorch's ``convolution_backward`` double backward does the same), so any order works:

- ``Convolution``: ``(x, w) -> y``, gradients ``InputGradient(gy, w)`` and
  ``WeightGradient(x, gy)``;
- ``InputGradient``: ``(gy, w) -> gx``, gradients ``Convolution(g, w)`` and
  ``WeightGradient(g, gy)``;
- ``WeightGradient``: ``(x, gy) -> gw``, gradients ``InputGradient(gy, g)`` and
  ``Convolution(x, g)``.

``ConvGeometry`` fixes one convolution's stride, padding, dilation, groups and sizes for
all three, in the kernels' terms: a 1-D convolution runs the 2-D kernels on a height of 1,
a 3-D one the 3-D kernels. ``convolution_graph_gradients`` is the ``backward_graph`` of the
convolution ops (``conv1d/2d/3d``) and ``transposed_graph_gradients`` that of the
transposed ones, which are ``InputGradient`` run as an op.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import dtypes
from .conv import with_height, without_height
from .function import Function

#: PyTorch's name of a convolution's gradient's node (its inputs', weight's and bias's)
GRADIENT_NODE_NAME = "ConvolutionBackwardBackward0"


class ConvGeometry(NamedTuple):
    """One convolution, in the kernels' terms (1-D lifted to 2-D: a height of 1)."""

    dims: int        # spatial dimensions of the user's tensors: 1, 2 or 3
    stride: tuple
    padding: tuple   # (before, after) per kernel dimension, flattened
    dilation: tuple
    groups: int
    x_size: tuple    # the convolution's input sizes (spatial), lifted
    y_size: tuple    # its output sizes (spatial), lifted
    kernel: tuple    # the filters' sizes (spatial), lifted

    def user_size(self, size) -> tuple:
        """Spatial sizes as the user's tensors have them (a 1-D op drops the height)."""
        return tuple(size[1:]) if self.dims == 1 else tuple(size)

    def _lift(self, backend, *arrays):
        if self.dims != 1:
            return arrays
        return tuple(with_height(backend, a) for a in arrays)

    def _unlift(self, backend, a):
        return a if self.dims != 1 or a is None else without_height(backend, a)

    def conv(self, backend, x, w, for_backward: bool):
        """``(y, saved)``: the convolution, and what its backward kernel needs."""
        x, w = self._lift(backend, x, w)
        kernel = backend.conv3d if self.dims == 3 else backend.conv2d
        y, saved = kernel(x, w, None, self.stride, self.padding, self.dilation, self.y_size,
                          for_backward=for_backward, groups=self.groups)
        return self._unlift(backend, y), saved

    def weight_gradient(self, backend, gy, saved):
        """The weight's gradient from ``gy`` and what ``conv`` saved of the input."""
        (gy,) = self._lift(backend, gy)
        kernel = backend.conv3d_backward if self.dims == 3 else backend.conv2d_backward
        return self._unlift(backend, kernel(gy, saved, (False, True))[1])

    def transpose(self, backend, gy, w):
        """The input's gradient from ``gy``: the transposed convolution."""
        gy, w = self._lift(backend, gy, w)
        kernel = backend.conv_transpose3d if self.dims == 3 else backend.conv_transpose2d
        gx = kernel(gy, w, None, self.stride, self.padding, self.dilation, self.x_size,
                    self.groups)
        return self._unlift(backend, gx)


def convolution_graph_gradients(node, grad):
    """``backward_graph`` of ``conv1d/2d/3d`` (``Conv2d`` and its subclasses): the input's
    and weight's gradients as ops of this module, the bias's a recorded sum."""
    x_shape, w_shape = node.input_specs[0][0], node.input_specs[1][0]
    geometry = ConvGeometry(node.dims, *node.geometry[:3], node.groups,
                            _lifted(node.dims, x_shape[2:]), node.geometry[3],
                            _lifted(node.dims, w_shape[2:]))
    needs = node.needs_input_grad
    x, w = node.graph_input(0, node.x), node.graph_input(1, node.w)
    gx = InputGradient(geometry)(grad, w) if needs[0] else None
    # forward's im2col serves this first weight gradient (it is the same input)
    gw = WeightGradient(geometry, node.saved)(x, grad) if needs[1] else None
    return (gx, gw, _bias_gradient(grad, needs))[:len(needs)]


def transposed_graph_gradients(node, grad):
    """``backward_graph`` of ``conv_transpose1d/2d/3d``: the op is ``InputGradient`` of
    the convolution whose input has the op's output's size, so its gradients are that
    convolution (the input's) and its weight gradient with the roles of input and output
    gradient swapped (the weight's)."""
    stride, padding, dilation, out = node.geometry
    geometry = ConvGeometry(node.dims, stride, padding, dilation, node.groups, out,
                            node.in_hw, _lifted(node.dims, node.input_specs[1][0][2:]))
    needs = node.needs_input_grad
    # forward kept the 1-D op's arrays with a height of 1
    x = node.graph_input(0, geometry._unlift(node.backend, node.x))
    w = node.graph_input(1, geometry._unlift(node.backend, node.w))
    gx = _named(Convolution(geometry)(grad, w)) if needs[0] else None
    gw = WeightGradient(geometry)(grad, x) if needs[1] else None
    return (gx, gw, _bias_gradient(grad, needs))[:len(needs)]


def _lifted(dims: int, size) -> tuple:
    return (1,) + tuple(size) if dims == 1 else tuple(size)


def _bias_gradient(grad, needs):
    """The bias's gradient: ``grad`` summed over all but the channels."""
    if len(needs) < 3 or not needs[2]:
        return None
    return _named(grad.sum((0,) + tuple(range(2, grad.ndim))))


def _named(gradient):
    """``gradient`` on a node named as PyTorch's: one node there gives all of a
    convolution's gradients, whatever op computes each here."""
    if gradient.grad_fn is not None:
        gradient.grad_fn.show_as(GRADIENT_NODE_NAME)
    return gradient


class Convolution(Function):
    """The convolution of ``geometry`` (no bias) as a graph formula's op: what a
    convolution's gradients are differentiated into.

    Shape:
        ``x`` ``(N, C, *x_size)``, ``w`` ``(O, C / groups, *kernel)`` -> ``(N, O, *y_size)``.
    """

    op_name, backward_name = "convolution", "ConvolutionBackward0"
    saved_for_backward = (0, 1)
    _hyper = ("geometry",)

    def __init__(self, geometry: ConvGeometry):
        self.geometry = geometry

    def infer(self, x, w):
        g = self.geometry
        return (x.shape[0], w.shape[0]) + g.user_size(g.y_size), x.dtype

    def forward(self, backend, x, w):
        y, self.saved = self.geometry.conv(backend, x, w, for_backward=self.recording)
        if self.recording:
            self.x, self.w = x, w
        return y

    def backward(self, backend, gy):
        need_x, need_w = self.needs_input_grad
        g = self.geometry
        return (g.transpose(backend, gy, self.w) if need_x else None,
                g.weight_gradient(backend, gy, self.saved) if need_w else None)

    def backward_graph(self, grad):
        need_x, need_w = self.needs_input_grad
        return (InputGradient(self.geometry)(grad, self.graph_input(1, self.w))
                if need_x else None,
                WeightGradient(self.geometry, self.saved)(self.graph_input(0, self.x), grad)
                if need_w else None)


class InputGradient(Function):
    """A convolution's input gradient, ``conv_transpose(gy, w)``, as a recorded op.

    Shape:
        ``gy`` ``(N, O, *y_size)``, ``w`` ``(O, C / groups, *kernel)`` ->
        ``(N, C, *x_size)``.
    """

    op_name, backward_name = "convolution_backward", GRADIENT_NODE_NAME
    saved_for_backward = ((0, 1), (1, 0))  # gy for the weight's gradient, w for gy's
    _hyper = ("geometry",)

    def __init__(self, geometry: ConvGeometry):
        self.geometry = geometry

    def infer(self, gy, w):
        g = self.geometry
        return (gy.shape[0], w.shape[1] * g.groups) + g.user_size(g.x_size), gy.dtype

    def forward(self, backend, gy, w):
        if self.recording:
            self.gy, self.w = gy, w
        return self.geometry.transpose(backend, gy, w)

    def backward(self, backend, g):
        need_gy, need_w = self.needs_input_grad
        geometry = self.geometry
        g_gy = g_w = None
        if need_gy or need_w:
            # d/dgy is the convolution of g; its im2col of g gives the weight's gradient
            conv, saved = geometry.conv(backend, g, self.w, for_backward=need_w)
            g_gy = conv if need_gy else None
            if need_w:
                g_w = geometry.weight_gradient(backend, self.gy, saved)
        return g_gy, g_w

    def backward_graph(self, grad):
        need_gy, need_w = self.needs_input_grad
        return (Convolution(self.geometry)(grad, self.graph_input(1, self.w))
                if need_gy else None,
                WeightGradient(self.geometry)(grad, self.graph_input(0, self.gy))
                if need_w else None)


class WeightGradient(Function):
    """A convolution's weight gradient from its input ``x`` and output gradient ``gy``,
    as a recorded op. ``saved`` is the forward's im2col of ``x`` when the caller has it;
    otherwise forward builds it (by a convolution with zero filters, whose output it
    drops: the kernels build im2col only inside a convolution).

    Shape:
        ``x`` ``(N, C, *x_size)``, ``gy`` ``(N, O, *y_size)`` -> ``(O, C / groups, *kernel)``
        (the kernel's size is the geometry's).
    """

    op_name, backward_name = "convolution_backward", GRADIENT_NODE_NAME
    saved_for_backward = ((0, 1), (1, 0))  # x for gy's gradient, gy for x's
    _hyper = ("geometry",)

    def __init__(self, geometry: ConvGeometry, saved=None):
        self.geometry, self.saved = geometry, saved

    def infer(self, x, gy):
        g = self.geometry
        self.w_shape = (gy.shape[1], x.shape[1] // g.groups) + g.user_size(g.kernel)
        return self.w_shape, x.dtype

    def forward(self, backend, x, gy):
        geometry, saved = self.geometry, self.saved
        self.saved = None  # only this forward reads it
        if saved is None:
            zeros = backend.full(self.w_shape, 0, dtypes.from_numpy(x.dtype))
            _, saved = geometry.conv(backend, x, zeros, for_backward=True)
        if self.recording:
            self.x, self.gy = x, gy
        return geometry.weight_gradient(backend, gy, saved)

    def backward(self, backend, g):
        need_x, need_gy = self.needs_input_grad
        geometry = self.geometry
        return (geometry.transpose(backend, self.gy, g) if need_x else None,
                geometry.conv(backend, self.x, g, for_backward=False)[0] if need_gy else None)

    def backward_graph(self, grad):
        need_x, need_gy = self.needs_input_grad
        return (InputGradient(self.geometry)(self.graph_input(1, self.gy), grad)
                if need_x else None,
                Convolution(self.geometry)(self.graph_input(0, self.x), grad)
                if need_gy else None)

