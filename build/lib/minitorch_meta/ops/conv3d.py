"""Volumetric (3-D) convolution and transposed convolution: the 2-D ops' shape rules (written
for any number of spatial dimensions), run on the 3-D kernels (``backends/xp_conv3d.py``)."""

from __future__ import annotations

from .conv import Conv2d
from .conv_transpose import ConvTranspose2d


class Conv3d(Conv2d):
    """Cross-correlate a batch of volumes with a bank of filters, in ``groups`` independent
    groups of channels.

    Shape:
        input ``(N, C_in, D, H, W)``, weight ``(C_out, C_in / groups, kD, kH, kW)``, bias
        ``(C_out,)`` -> output ``(N, C_out, D_out, H_out, W_out)`` with
        ``D_out = conv_out_size(D, kD, stride, padding, dilation)`` (likewise H and W).

    Raises:
        ShapeError, TypeError: as ``Conv2d``.
    """

    op_name = "conv3d"
    dims = 3

    def forward(self, backend, x, w, b=None):
        stride, padding, dilation, out_size = self.geometry
        if self.recording:  # references only: for the graph formula (``backward_graph``)
            self.x, self.w = x, w
        y, self.saved = backend.conv3d(x, w, b, stride, padding, dilation, out_size,
                                       for_backward=self.recording, groups=self.groups)
        return y

    def backward(self, backend, gy):
        grads = backend.conv3d_backward(gy, self.saved, self.needs_input_grad)
        return grads[:len(self.input_specs)]

    # the 2-D op's formula, written for any rank (a subclass that changes ``backward``
    # inherits none: see ``graph_backward.formula_applies``)
    backward_graph = Conv2d.backward_graph


class ConvTranspose3d(ConvTranspose2d):
    """Spread each input voxel through the filters into an output ``stride`` times larger
    (the gradient of ``conv3d`` with respect to its input).

    Shape:
        input ``(N, C_in, D, H, W)``, weight ``(C_in, C_out / groups, kD, kH, kW)``, bias
        ``(C_out,)`` -> output ``(N, C_out, D_out, H_out, W_out)`` with ``D_out = (D - 1) *
        stride - 2 * padding + dilation * (kD - 1) + output_padding + 1`` (likewise H, W).

    Raises:
        ShapeError, TypeError: as ``ConvTranspose2d``.
    """

    op_name = "conv_transpose3d"
    dims = 3

    def forward(self, backend, x, w, b=None):
        stride, padding, dilation, out_size = self.geometry
        if self.recording:
            self.x, self.w = x, w
        return backend.conv_transpose3d(x, w, b, stride, padding, dilation, out_size,
                                        self.groups)

    def backward(self, backend, gy):
        stride, padding, dilation, _ = self.geometry
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0] or needs[1]:
            # As in 2-D: the input's gradient is the convolution this op is the transpose
            # of, and that convolution's weight gradient against ``x`` is the weight's.
            gx, saved = backend.conv3d(gy, self.w, None, stride, padding, dilation,
                                       self.in_hw, for_backward=needs[1], groups=self.groups)
            if needs[1]:
                _, gw, _ = backend.conv3d_backward(self.x, saved, (False, True))
        if len(needs) > 2 and needs[2]:
            gb = backend.sum(gy, (0, 2, 3, 4), False)
        return (gx if needs[0] else None, gw, gb)[:len(needs)]

    backward_graph = ConvTranspose2d.backward_graph  # as ``Conv3d``'s
