"""``CrossMapLRN2d``: PyTorch's legacy (Lua Torch) cross-channel local response
normalisation, forward and backward exactly as its Python implementation computes them.

Forward: ``out = x * scale ** -beta`` with ``scale = k + alpha / size * S``, ``S[c]`` the
sum of ``x²`` over channels ``[c - h, c + h]`` (``h = (size - 1) // 2``, cut at the
edges). The legacy running sum never takes channel 0 out again once it is in, so for
``c > h`` channel 0 also counts in ``S[c]``.

Backward: PyTorch's formula ``gx = gy * scale ** -beta - 2 alpha beta / size * x * R[c]``,
``R[c]`` the sum of ``gy * out / scale`` over channels ``[c - p, c + size - 1 - p]``
(``p = size - (size - 1) / 2`` cut to an int). That window is not the forward's, so the
gradient is PyTorch's, not the derivative of the forward (finite differences disagree; the
tests compare with PyTorch instead). Both window sums are one product with a 0/1
channel-mixing matrix of shape ``(C, C)``.
"""

from __future__ import annotations

from ..int_arguments import is_int
from .function import Function


def forward_window(channels: int, size: int) -> list[list[int]]:
    """``M[j][c] = 1`` when channel ``j``'s square counts in ``S[c]`` (the legacy sum)."""
    pre_pad = int((size - 1) / 2 + 1)
    half = pre_pad - 1
    return [[int(c - half <= j <= c + half or (j == 0 and c >= pre_pad))
             for c in range(channels)] for j in range(channels)]


def backward_window(channels: int, size: int) -> list[list[int]]:
    """``M[j][c] = 1`` when channel ``j``'s ratio counts in ``R[c]`` (PyTorch's backward)."""
    shift = int(size - (size - 1) / 2)
    return [[int(c - shift <= j <= c + size - 1 - shift) for c in range(channels)]
            for j in range(channels)]


class CrossMapLrn2d(Function):
    """``x / (k + alpha / size * (sum of x² over neighbouring channels)) ** beta``.

    Shape:
        input ``(N, C, H, W)`` -> output of the same shape and dtype.

    Raises:
        ValueError: an input that is not 4-D (PyTorch's message), or ``size`` < 1.
        RuntimeError: an input that is not floating point, or without channels.
    """

    op_name = "CrossMapLRN2d"
    backward_name = "CrossMapLRN2dBackward"
    size = 5
    alpha = 1e-4
    beta = 0.75
    k = 1.0

    def infer(self, x):
        shape = x._data.shape
        if len(shape) != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {len(shape)}D "
                             "instead.")
        if not is_int(self.size) or self.size < 1:
            raise ValueError(f"CrossMapLRN2d: size must be a positive int, got {self.size!r}")
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"CrossMapLRN2d: expected a floating-point input, got "
                               f"{x._dtype}; convert it with .float()")
        if shape[1] == 0:
            raise RuntimeError(f"CrossMapLRN2d: the input has no channels (shape "
                               f"{tuple(shape)}); it needs at least one")
        self.dtype = x._dtype
        return tuple(shape), x._dtype

    def forward(self, backend, x):
        number = x.dtype.type
        mix = backend.asarray(forward_window(x.shape[1], self.size), self.dtype)
        sums = channel_sums(backend, backend.binary("mul", x, x), mix)
        scale = backend.binary("add", backend.binary("mul", sums,
                                                     number(self.alpha / self.size)),
                               number(self.k))
        factor = backend.binary("pow", scale, number(-self.beta))
        out = backend.binary("mul", x, factor)
        if self.recording:
            self.x, self.scale, self.factor, self.out = x, scale, factor, out
        return out

    def backward(self, backend, gy):
        if self.size == 1:
            raise RuntimeError("CrossMapLRN2d: backward is undefined for size=1 in PyTorch's "
                               "legacy kernel (its window runs past the channels); use "
                               "nn.LocalResponseNorm(1) instead")
        number = gy.dtype.type
        ratio = backend.binary("div", backend.binary("mul", gy, self.out), self.scale)
        mix = backend.asarray(backward_window(gy.shape[1], self.size), self.dtype)
        sums = channel_sums(backend, ratio, mix)
        correction = backend.binary("mul", backend.binary("mul", self.x, sums),
                                    number(2 * self.alpha * self.beta / self.size))
        return (backend.binary("sub", backend.binary("mul", gy, self.factor), correction),)


def channel_sums(backend, a, mix):
    """``out[n, c, h, w] = sum over j of a[n, j, h, w] * mix[j, c]``: one GEMM over the
    channels, the positions gathered as rows."""
    n, channels, height, width = a.shape
    rows = backend.reshape(backend.transpose(a, (0, 2, 3, 1)), (n * height * width, channels))
    mixed = backend.reshape(backend.matmul(rows, mix), (n, height, width, channels))
    return backend.transpose(mixed, (0, 3, 1, 2))


def cross_map_lrn2d(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                    k: float = 1.0):
    """PyTorch's ``CrossMapLRN2d`` computation on a tensor (see the module's docstring)."""
    return CrossMapLrn2d(size=size, alpha=alpha, beta=beta, k=k)(input)
