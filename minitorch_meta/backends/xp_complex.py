"""Views of complex arrays' parts (``real``, ``imag``, ``view_as_real``,
``view_as_complex``), written once over ``xp`` for NumPy and CuPy.

Each is a view: writing into it writes into the complex array, as PyTorch's ``z.real``,
``z.imag`` and ``view_as_real(z)`` do. NumPy and CuPy give the parts as views already
(``a.real``, ``a.imag``); the last-dim layouts are strided views of the same memory.
"""

from __future__ import annotations


class ComplexKernels:
    """The complex-part kernels of ``XpBackend`` (a mixin: ``self.xp``, ``_as_strided``)."""

    def real(self, a):
        return a.real

    def imag(self, a):
        return a.imag

    def view_as_real(self, a):
        # The real parts' view has the complex array's byte strides; one more dim, a
        # float's width apart, reaches each imaginary part.
        parts = a.real
        return self._as_strided(parts, shape=a.shape + (2,),
                                strides=a.strides + (parts.itemsize,))

    def view_as_complex(self, a):
        # The last dim (size 2, stride 1) becomes one complex element: a dtype view of a
        # last axis that is contiguous keeps the other strides (NumPy and CuPy alike).
        complex_dtype = self.xp.dtype(f"complex{16 * a.itemsize}")
        return a.view(complex_dtype)[..., 0]
