"""The classical orthogonal polynomials of ``torch.special``: ``chebyshev_polynomial_t``
(``u``, ``v``, ``w``), ``shifted_chebyshev_polynomial_t`` (``u``, ``v``, ``w``),
``hermite_polynomial_h``, ``hermite_polynomial_he``, ``laguerre_polynomial_l`` and
``legendre_polynomial_p``, each ``(x, n)``: the polynomial of degree ``n`` at ``x``.

One op, ``OrthogonalPolynomial(kind)``, over the backend kernel ``orthogonal_polynomial``
(``backends/xp_orthogonal_polynomials.py``, which holds PyTorch's special cases). ``x`` and
``n`` are tensors or (one of them) a Python number, broadcast together; the result dtype is
PyTorch's promotion of the two (a number counts as a scalar, a 0-d tensor as PyTorch's
0-d tensors do), the default float dtype if that is not floating-point; ``n`` is cut toward
zero in that dtype. As in PyTorch 2.13 nothing records a graph, and float16 raises
``NotImplementedError``.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .special_bessel import refuse_half

#: ``torch.special`` name -> the kernel's kind
KINDS = {
    "chebyshev_polynomial_t": "chebyshev_t", "chebyshev_polynomial_u": "chebyshev_u",
    "chebyshev_polynomial_v": "chebyshev_v", "chebyshev_polynomial_w": "chebyshev_w",
    "shifted_chebyshev_polynomial_t": "shifted_chebyshev_t",
    "shifted_chebyshev_polynomial_u": "shifted_chebyshev_u",
    "shifted_chebyshev_polynomial_v": "shifted_chebyshev_v",
    "shifted_chebyshev_polynomial_w": "shifted_chebyshev_w",
    "hermite_polynomial_h": "hermite_h", "hermite_polynomial_he": "hermite_he",
    "laguerre_polynomial_l": "laguerre_l", "legendre_polynomial_p": "legendre_p",
}


class OrthogonalPolynomial(Function):
    """The polynomial ``op_name`` of degree ``n`` at ``x``; ``scalar`` holds the Python
    number given for ``x`` (``scalar_side`` 0) or ``n`` (1), the other being the one tensor.

    Shape:
        ``x`` and ``n`` broadcast together (NumPy rules); the output has the broadcast shape.
    """

    differentiable = False

    def __init__(self, op_name: str, scalar=None, scalar_side=None):
        super().__init__(op_name=op_name, scalar=scalar, scalar_side=scalar_side)

    @property
    def backward_name(self):
        return f"Special{self.op_name}Backward0"

    def infer(self, a, b=None):
        if b is None:
            shape = a._data.shape
            dtype = dtypes.scalar_result(a._dtype, self.scalar)
        else:
            shape = shapes.broadcast(self.op_name, a._data.shape, b._data.shape)
            dtype = dtypes.promote_tensors(a._dtype, not a._data.shape, b._dtype,
                                           not b._data.shape)
        if not dtype.is_floating_point:
            dtype = dtypes.get_default_dtype()
        refuse_half(self.op_name, dtype, a.device)
        self.out_dtype = dtype
        return shape, dtype

    def forward(self, backend, a, b=None):
        dtype = self.out_dtype
        a = a if a.dtype == dtype.numpy else backend.astype(a, dtype)
        if b is None:
            number = backend.full((), float(self.scalar), dtype)
            a, b = (number, a) if self.scalar_side == 0 else (a, number)
        elif b.dtype != dtype.numpy:
            b = backend.astype(b, dtype)
        return backend.orthogonal_polynomial(KINDS[self.op_name], a, b)
