"""``linalg.ldl_factor_ex`` and ``linalg.ldl_solve``: the symmetric indefinite
factorisation ``A = P L D Lᵀ Pᵀ`` with Bunch–Kaufman pivoting (LAPACK's ``sytrf``, only
``A``'s lower triangle read) in LAPACK's compact format, and the solve of ``A X = B`` from
it (``sytrs``), on the backend's ``ldl_factor``/``ldl_solve`` kernels. As in PyTorch
neither is differentiable: a result that needs a gradient gets a node whose backward
raises.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeRuntimeError
from . import linalg_checks as checks
from .function import Function

#: the message of ``ldl_factor``/``check_errors=True`` for a matrix with a zero pivot
SINGULAR_D = ("The factorization could not be completed because the block diagonal matrix "
              "D is exactly singular: its diagonal element {info} is zero")


def _square_float(op: str, a, name: str, kernel: str) -> tuple:
    """The shape of ``a``, (batches of) square float32/float64 matrices, checked in
    PyTorch's order: dims, squareness, then dtype."""
    shape = tuple(a._data.shape)
    if len(shape) < 2:
        raise ShapeRuntimeError(op, f"The input tensor {name} must have at least 2 "
                                    "dimensions.")
    if shape[-1] != shape[-2]:
        raise ShapeRuntimeError(op, f"{name} must be batches of square matrices, but they "
                                    f"are {shape[-2]} by {shape[-1]} matrices")
    if a._dtype is dtypes.float16:
        raise NotImplementedError(f"\"{kernel}_{a.device.type}\" not implemented for 'Half'; "
                                  "use a float32 or float64 tensor")
    checks.check_dtype(op, a)
    return shape


class LinalgLdlFactorEx(Function):
    """``LD``, ``pivots`` and ``info`` of each symmetric matrix (``LD`` lower triangular,
    LAPACK's format; ``pivots`` 1-based, negative on both columns of a 2 x 2 block;
    ``info`` 0 or the first zero diagonal element of ``D``, 1-based).

    Shape:
        ``(*, n, n)`` -> ``LD`` ``(*, n, n)``, ``pivots`` int32 ``(*, n)`` and ``info``
        int32 ``(*)``.

    Raises:
        RuntimeError for shapes or dtypes that do not fit (PyTorch's messages); with
        ``check_errors``, RuntimeError for a singular ``D``.
    """

    op_name, backward_name = "torch.linalg.ldl_factor_ex", "torch::autograd::NotImplemented"
    multiple_outputs = True
    check_errors, error_name = False, "torch.linalg.ldl_factor_ex"

    def infer(self, a):
        # PyTorch names ldl_factor_ex in these checks even when ldl_factor was called
        *batch, n, _ = _square_float(self.op_name, a, "A", "ldl_factor_kernel")
        batch = tuple(batch)
        return [((*batch, n, n), a._dtype), ((*batch, n), dtypes.int32), (batch, dtypes.int32)]

    def forward(self, backend, a):
        ld, pivots, info = backend.ldl_factor(a)
        if self.check_errors:
            checks.raise_for_info(backend, self.error_name, info, SINGULAR_D, RuntimeError)
        return ld, pivots, info

    def backward(self, backend, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


class LinalgLdlSolve(Function):
    """``X`` with ``A X = B`` from ``A``'s ``LD`` and ``pivots``; batch dims broadcast.

    Shape:
        ``LD`` ``(*, n, n)``, ``pivots`` ``(*, n)`` (an integer dtype), ``B`` ``(*, n, k)``
        -> ``(*, n, k)`` with the batch dims of ``LD`` and ``B`` broadcast.

    Raises:
        RuntimeError for shapes or dtypes that do not fit (PyTorch's messages).
    """

    op_name, backward_name = "torch.linalg.ldl_solve", "torch::autograd::NotImplemented"

    def infer(self, ld, pivots, b):
        op = self.op_name
        ld_shape = _square_float(op, ld, "A", "ldl_solve_kernel")
        if pivots._dtype.is_floating_point or pivots._dtype is dtypes.bool_:
            raise RuntimeError(f"{op}: Expected pivots to be integers. Got "
                               f"{checks.type_name(pivots._dtype)}")
        if tuple(pivots._data.shape) != ld_shape[:-1]:
            raise ShapeRuntimeError(op, f"Expected LD.shape[:-1] and pivots.shape to be the "
                                        f"same, but got pivots with shape "
                                        f"{list(pivots._data.shape)} instead")
        b_shape = tuple(b._data.shape)
        if len(b_shape) < 2:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(len(b_shape), 1)}, {max(len(b_shape), 1) - 1}], but "
                             "got -2); B must be a matrix or a batch of matrices")
        if b._dtype is not ld._dtype:
            raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                               f"{checks.type_name(b._dtype)} and A of type "
                               f"{checks.type_name(ld._dtype)} instead.")
        if b_shape[-2] != ld_shape[-1]:
            raise ShapeRuntimeError(f"Incompatible matrix sizes for {op}", f"each A matrix is "
                                    f"{ld_shape[-2]} by {ld_shape[-1]} but each b matrix is "
                                    f"{b_shape[-2]} by {b_shape[-1]}")
        batch = checks.batch_broadcast(op, ld_shape[:-2], b_shape[:-2])
        return (*batch, *b_shape[-2:]), b._dtype

    def forward(self, backend, ld, pivots, b):
        return backend.ldl_solve(ld, pivots, b)

    def backward(self, backend, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")
