"""The three discrete Fourier transform ops every ``torch.fft`` function is made of, as
PyTorch's own primitives: ``FftC2C`` (complex to complex), ``FftR2C`` (real to complex,
full or one-sided) and ``FftC2R`` (one-sided Hermitian complex to real, the inverse
direction). ``fft.py`` resizes, promotes and conjugates around them.

Each transform is linear, so its gradient is its adjoint applied to the outgoing gradient,
in PyTorch's convention (``z.grad = dL/dx + i dL/dy``): the adjoint of an unscaled forward
transform is the unscaled inverse one, so the backward runs the opposite direction with
the same ``scale``. The real <-> complex ones add the halving/doubling of the one-sided
half (see ``FftR2C.backward`` and ``FftC2R.backward``).

``scale`` is the kernels' ("none", "sqrt_n", "n": divide by 1, sqrt(N) or N; see
``backends/base.py``), fixed by ``fft.py`` from ``norm`` and the direction.
"""

from __future__ import annotations

from .. import dtypes
from .function import Function


def _require(op: str, x, want_complex: bool) -> None:
    """The input kind each primitive takes (``fft.py`` promotes before calling)."""
    dtype = x._dtype
    if dtype.is_complex != want_complex or not (dtype.is_complex or dtype.is_floating_point):
        kind = "complex" if want_complex else "real floating-point"
        raise RuntimeError(f"{op} expects a {kind} input tensor, but got {dtype}")


class FftC2C(Function):
    """The complex transform over ``axes``, forward or (``inverse``) inverse, scaled by
    ``scale``.

    Shape:
        unchanged, complex.
    """

    op_name, backward_name = "_fft_c2c", "FftC2CBackward0"
    complex_aware = True
    axes, inverse, scale = (), False, "none"

    def infer(self, x):
        _require(self.op_name, x, want_complex=True)
        return x._data.shape, x._dtype

    def forward(self, backend, x):
        return backend.fft_c2c(x, self.axes, not self.inverse, self.scale)

    def backward(self, backend, grad):
        return (backend.fft_c2c(grad, self.axes, self.inverse, self.scale),)

    def backward_graph(self, grad):
        return (FftC2C(axes=self.axes, inverse=not self.inverse, scale=self.scale)(grad),)


class FftR2C(Function):
    """The forward transform of a real tensor over ``axes``; ``onesided``: only the
    ``n // 2 + 1`` non-redundant elements along the last of ``axes``.

    Shape:
        the input's, with ``n // 2 + 1`` along ``axes[-1]`` when ``onesided``; the complex
        dtype of the input's precision.
    """

    op_name, backward_name = "_fft_r2c", "FftR2CBackward0"
    complex_aware = True
    axes, scale, onesided = (), "none", True

    def infer(self, x):
        _require(self.op_name, x, want_complex=False)
        shape = list(x._data.shape)
        if self.onesided:
            shape[self.axes[-1]] = shape[self.axes[-1]] // 2 + 1
        return tuple(shape), x._dtype.to_complex()

    def forward(self, backend, x):
        return backend.fft_r2c(x, self.axes, self.scale, self.onesided)

    def backward(self, backend, grad):
        # The one-sided output is the full transform cropped: its adjoint pads the gradient
        # with zeros back to the full length, then runs the adjoint of the full transform,
        # whose real part is the real input's gradient.
        shape, dtype = self.input_specs[0]
        if self.onesided:
            full = backend.full(tuple(shape), 0, dtypes.from_numpy(grad.dtype))
            backend.setitem(full, _leading(len(shape), self.axes[-1], grad.shape), grad)
            grad = full
        full_grad = backend.fft_c2c(grad, self.axes, False, self.scale)
        return (backend.astype(full_grad, dtype),)  # astype keeps the real parts

    def backward_graph(self, grad):
        from .. import factories, functions

        shape, dtype = self.input_specs[0]
        if self.onesided:
            axis = self.axes[-1]
            missing = list(shape)
            missing[axis] = shape[axis] - grad.shape[axis]
            zeros = factories.zeros(tuple(missing), dtype=grad.dtype, device=grad.device)
            grad = functions.cat([grad, zeros], axis)
        return (FftC2C(axes=self.axes, inverse=True, scale=self.scale)(grad).real,)


class FftC2R(Function):
    """The inverse transform over ``axes`` of the one-sided half of a Hermitian signal:
    a real signal with ``last_size`` elements along ``axes[-1]``.

    Shape:
        the input's, with ``last_size`` along ``axes[-1]`` (where the input has
        ``last_size // 2 + 1``); the real dtype of the input's precision.
    """

    op_name, backward_name = "_fft_c2r", "FftC2RBackward0"
    complex_aware = True
    axes, scale, last_size = (), "none", 1

    def infer(self, x):
        _require(self.op_name, x, want_complex=True)
        shape = list(x._data.shape)
        axis = self.axes[-1]
        if shape[axis] != self.last_size // 2 + 1:
            raise RuntimeError(f"{self.op_name}: the input has {shape[axis]} elements along "
                               f"dim {axis}, expected {self.last_size // 2 + 1} (the one-sided "
                               f"half of {self.last_size})")
        shape[axis] = self.last_size
        return tuple(shape), x._dtype.to_real()

    def forward(self, backend, x):
        return backend.fft_c2r(x, self.axes, self.scale, self.last_size)

    def backward(self, backend, grad):
        # Each stored element other than the self-conjugate ones (index 0, and n / 2 for an
        # even n) stands for itself and its mirrored conjugate in the full signal, so it
        # receives the gradient of both: twice the one-sided forward transform's.
        half = backend.fft_r2c(grad, self.axes, self.scale, True)
        return (backend.binary("mul", half, self._doubling(backend, half)),)

    def backward_graph(self, grad):
        half = FftR2C(axes=self.axes, scale=self.scale, onesided=True)(grad)
        return (half * self.constant(self._doubling(self.backend, half._data)),)

    def _doubling(self, backend, half):
        """1 for the self-conjugate elements along the last axis, 2 for the others, shaped
        to broadcast against ``half``."""
        axis, size = self.axes[-1], half.shape[self.axes[-1]]
        broadcast = [1] * half.ndim
        broadcast[axis] = size
        real = dtypes.from_numpy(half.dtype).to_real()
        weights = backend.full((size,), 2, real)
        backend.setitem(weights, 0, 1)
        doubled = self.last_size - size  # how many elements have a mirrored twin
        if doubled + 1 < size:
            backend.setitem(weights, slice(doubled + 1, None), 1)
        return backend.reshape(weights, tuple(broadcast))


def _leading(ndim: int, axis: int, sizes) -> tuple:
    """The index of the first ``sizes[axis]`` elements along ``axis``."""
    return tuple(slice(0, sizes[axis]) if d == axis else slice(None) for d in range(ndim))
