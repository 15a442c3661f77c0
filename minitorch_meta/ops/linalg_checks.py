"""The shape and dtype rules shared by the ``torch.linalg`` ops, with PyTorch's messages.

Every rule here raises what PyTorch raises (``RuntimeError``; shape problems as
``ShapeRuntimeError``, which is also a ``ShapeError``), so code written for PyTorch
catches the same exceptions. ``raise_for_info`` turns a factorisation's ``info`` into
``LinAlgError``, the error of a matrix that is singular or not positive-definite.
"""

from __future__ import annotations

import math

from .. import dtypes
from ..errors import LinAlgError, ShapeRuntimeError
from . import shapes


class LowPrecisionError(NotImplementedError, RuntimeError):
    """A linalg op asked for float16 or bfloat16, which LAPACK (and so PyTorch) does not
    factor."""


def type_name(dtype) -> str:
    """PyTorch's name of ``dtype`` in messages (``Float``, ``Long``)."""
    return dtypes.SCALAR_TYPE_NAMES[dtype]


def check_dtype(op: str, tensor, half: bool = False) -> None:
    """A float32 or float64 tensor (LAPACK has no other real types), or float16 and
    bfloat16 too when ``half`` (the ops that need no factorisation, such as the 1-, inf-
    and Frobenius norms).

    Raises:
        RuntimeError: another dtype, with PyTorch's message. For float16 or bfloat16 the
        error is also a ``NotImplementedError``: PyTorch raises that from most
        factorisations ("not implemented for 'Half'") and ``RuntimeError`` from a few
        (``inv``), so code written for PyTorch catches ours with either.
    """
    dtype = tensor._dtype
    if dtype in (dtypes.float16, dtypes.bfloat16) and not half:
        raise LowPrecisionError(f"{op}: Low precision dtypes not supported. Got "
                                f"{type_name(dtype)}; convert the input with .float() or "
                                ".double()")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. "
                           f"Got {type_name(dtype)}")


def check_kernel_dtype(kernel: str, tensor, even_empty: bool = False) -> None:
    """A float32, float64 or complex tensor, for the ops whose only check of the dtype is
    PyTorch's kernel dispatch (``eigh``, ``solve_triangular``): another dtype is its
    NotImplementedError naming the (CPU) kernel, raised only when the kernel would run (not
    for an empty tensor, unless ``even_empty``: PyTorch dispatches some kernels anyway)."""
    dtype = tensor._dtype
    if (dtype not in (dtypes.float32, dtypes.float64) and not dtype.is_complex
            and (even_empty or math.prod(tensor._data.shape))):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(dtype)}\'')


def matrix_shape(op: str, tensor, name: str = "A", half: bool = False,
                 any_dtype: bool = False) -> tuple:
    """The shape of a float tensor of (batches of) matrices, at least 2-D (float16 allowed
    when ``half``: see ``check_dtype``; every dtype when ``any_dtype``, for the ops that
    only multiply)."""
    shape = tuple(tensor._data.shape)
    if len(shape) < 2:
        raise ShapeRuntimeError(op, f"The input tensor {name} must have at least 2 dimensions.")
    if not any_dtype:
        check_dtype(op, tensor, half)
    return shape


def square_shape(op: str, tensor, name: str = "A", any_dtype: bool = False) -> tuple:
    """The shape of a float tensor (any tensor when ``any_dtype``) of (batches of) square
    matrices."""
    shape = matrix_shape(op, tensor, name, any_dtype=any_dtype)
    if shape[-1] != shape[-2]:
        raise ShapeRuntimeError(op, f"{name} must be batches of square matrices, but they are "
                                    f"{shape[-2]} by {shape[-1]} matrices")
    return shape


def check_same_dtype(op: str, a, b) -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of type "
                           f"{type_name(a._dtype)} and B of type {type_name(b._dtype)} instead")


def batch_broadcast(op: str, a_batch: tuple, b_batch: tuple) -> tuple:
    """The batch dims of two operands broadcast together (PyTorch's message)."""
    try:
        return shapes.broadcast(op, a_batch, b_batch)
    except shapes.ShapeError:
        width = max(len(a_batch), len(b_batch))
        a = (1,) * (width - len(a_batch)) + tuple(a_batch)
        b = (1,) * (width - len(b_batch)) + tuple(b_batch)
        dim = next(d for d in range(width) if a[d] != b[d] and 1 not in (a[d], b[d]))
        raise ShapeRuntimeError(op, f"The size of tensor a ({a[dim]}) must match the size of "
                                    f"tensor b ({b[dim]}) at non-singleton dimension {dim}; "
                                    f"batch shapes {shapes.fmt(a_batch)} and "
                                    f"{shapes.fmt(b_batch)}") from None


def incompatible(op: str, a_shape, b_shape, left: bool = True) -> ShapeRuntimeError:
    """PyTorch's error for matrices that do not fit ``A X = B`` (or ``X A = B``)."""
    equation = "AX = B" if left else "XA = B"
    return ShapeRuntimeError(op, f"Incompatible shapes of A and B for the equation {equation} "
                                 f"({a_shape[-2]}x{a_shape[-1]} and "
                                 f"{b_shape[-2]}x{b_shape[-1]})")


def raise_for_info(backend, op: str, info, reason: str, error=LinAlgError) -> None:
    """Raise ``error`` (``LinAlgError`` unless told) if a factorisation's ``info`` (int32,
    the batch's shape) is nonzero anywhere; ``reason`` formats the message from the first
    failing ``info``."""
    values = backend.to_numpy(info).reshape(-1)  # one small copy; PyTorch syncs here too
    failed = [k for k, value in enumerate(values) if value != 0]
    if not failed:
        return
    where = f"(Batch element {failed[0]}): " if info.ndim else ""
    raise error(f"{op}: {where}{reason.format(info=int(values[failed[0]]))}")


SINGULAR = ("The diagonal element {info} is zero, the inversion could not be completed "
            "because the input matrix is singular.")
NOT_POSITIVE_DEFINITE = ("The factorization could not be completed because the input is not "
                         "positive-definite (the leading minor of order {info} is not "
                         "positive-definite).")
