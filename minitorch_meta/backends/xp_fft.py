"""The discrete Fourier transform kernels (``fft_c2c``, ``fft_r2c``, ``fft_c2r``), written
once over ``xp.fft`` for NumPy and CuPy.

``xp.fft`` names a normalisation by the pair of transforms ("backward": the forward one
unscaled, the inverse divided by N); the kernels take the scale of the one transform they
run, as PyTorch's ``_fft_*`` primitives do, so that a backward pass can run the opposite
transform with the same scale. NumPy may compute single precision in double: the result is
cast back, as PyTorch keeps complex64 for float32 and complex64 inputs.
"""

from __future__ import annotations

#: (forward?, scale) -> ``xp.fft``'s ``norm`` giving that scale to that direction
_XP_NORM = {(True, "none"): "backward", (True, "sqrt_n"): "ortho", (True, "n"): "forward",
            (False, "none"): "forward", (False, "sqrt_n"): "ortho", (False, "n"): "backward"}


class FftKernels:
    """The FFT kernels of ``XpBackend`` (a mixin: ``self.xp``)."""

    def _fft_dtypes(self, a):
        """The complex and the real dtype of ``a``'s precision."""
        single = a.dtype.itemsize == (8 if a.dtype.kind == "c" else 4)
        xp = self.xp
        return (xp.complex64, xp.float32) if single else (xp.complex128, xp.float64)

    def fft_c2c(self, a, axes, forward, scale):
        complex_dtype = self._fft_dtypes(a)[0]
        if not axes:  # xp.fft would return a real input as it is
            return a.astype(complex_dtype)
        transform = self.xp.fft.fftn if forward else self.xp.fft.ifftn
        return transform(a, axes=axes, norm=_XP_NORM[forward, scale]).astype(
            complex_dtype, copy=False)

    def fft_r2c(self, a, axes, scale, onesided):
        transform = self.xp.fft.rfftn if onesided else self.xp.fft.fftn
        return transform(a, axes=axes, norm=_XP_NORM[True, scale]).astype(
            self._fft_dtypes(a)[0], copy=False)

    def fft_c2r(self, a, axes, scale, last_size):
        sizes = tuple(a.shape[axis] for axis in axes[:-1]) + (last_size,)
        return self.xp.fft.irfftn(a, s=sizes, axes=axes, norm=_XP_NORM[False, scale]).astype(
            self._fft_dtypes(a)[1], copy=False)
