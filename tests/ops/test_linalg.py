"""Matrix products: mm, mv, dot, matmul (1-D, 2-D, batched, broadcast) and addmm (beta, alpha)."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from tests.ops.harness import (
    Arg,
    Case,
    three_way_tests,
)

CASES = [
    Case("mm", lambda T, F, a, b: T.mm(a, b), [Arg((3, 4)), Arg((4, 2))]),
    Case("mm_method_one_grad", lambda T, F, a, b: a.mm(b), [Arg((3, 4)), Arg((4, 2), grad=False)]),
    Case("mv", lambda T, F, a, v: a.mv(v), [Arg((3, 4)), Arg((4,))]),
    Case("mv_function", lambda T, F, a, v: T.mv(a, v), [Arg((3, 4), grad=False), Arg((4,))]),
    Case("dot", lambda T, F, a, b: T.dot(a, b), [Arg((4,)), Arg((4,))]),
    Case("dot_method_one_grad", lambda T, F, a, b: a.dot(b), [Arg((5,), grad=False), Arg((5,))]),
    Case("matmul_1d_1d", lambda T, F, a, b: a @ b, [Arg((4,)), Arg((4,))]),
    Case("matmul_2d_1d", lambda T, F, a, b: a @ b, [Arg((3, 4)), Arg((4,))]),
    Case("matmul_1d_2d", lambda T, F, a, b: T.matmul(a, b), [Arg((4,)), Arg((4, 2))]),
    Case("matmul_2d_2d", lambda T, F, a, b: a.matmul(b), [Arg((3, 4)), Arg((4, 2))]),
    Case("matmul_3d_3d", lambda T, F, a, b: a @ b, [Arg((2, 3, 4)), Arg((2, 4, 2))]),
    Case("matmul_3d_2d", lambda T, F, a, b: a @ b, [Arg((2, 3, 4)), Arg((4, 2))]),
    Case("matmul_2d_3d", lambda T, F, a, b: a @ b, [Arg((3, 4)), Arg((2, 4, 2))]),
    Case("matmul_1d_3d", lambda T, F, a, b: a @ b, [Arg((4,)), Arg((2, 4, 2))]),
    Case("matmul_3d_1d", lambda T, F, a, b: a @ b, [Arg((2, 3, 4)), Arg((4,))]),
    Case("matmul_broadcast_4d", lambda T, F, a, b: a @ b, [Arg((2, 1, 3, 4)), Arg((3, 4, 2))]),
    Case("addmm", lambda T, F, c, a, b: T.addmm(c, a, b), [Arg((2,)), Arg((3, 4)), Arg((4, 2))]),
    Case("addmm_matrix_bias", lambda T, F, c, a, b: T.addmm(c, a, b),
         [Arg((3, 2)), Arg((3, 4)), Arg((4, 2))]),
    Case("addmm_column_bias", lambda T, F, c, a, b: T.addmm(c, a, b),
         [Arg((3, 1)), Arg((3, 4)), Arg((4, 2))]),
    Case("addmm_beta_alpha", lambda T, F, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=-2.0),
         [Arg((2,)), Arg((3, 4)), Arg((4, 2))]),
    Case("addmm_method", lambda T, F, c, a, b: c.addmm(a, b, beta=2, alpha=3),
         [Arg((3, 2)), Arg((3, 4)), Arg((4, 2))]),
    Case("linear", lambda T, F, x, w, b: F.linear(x, w, b), [Arg((5, 4)), Arg((3, 4)), Arg((3,))]),
    Case("linear_no_bias", lambda T, F, x, w: F.linear(x, w), [Arg((5, 4)), Arg((3, 4))]),
    Case("linear_1d", lambda T, F, x, w, b: F.linear(x, w, b), [Arg((4,)), Arg((3, 4)), Arg((3,))]),
    Case("linear_3d", lambda T, F, x, w, b: F.linear(x, w, b),
         [Arg((2, 5, 4)), Arg((3, 4)), Arg((3,))]),
]

# ``linear`` on 1-D or N-D input goes through nn.functional's own composition, whose last
# node differs from PyTorch's (a naming detail owned by nn/functional.py); PyTorch's own
# batched matmul ends in CloneBackward0 or UnsafeViewBackward0 depending on its internal path.
_NAME_DIFFERS = {"linear_1d", "linear_3d", "matmul_2d_3d"}


test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=_NAME_DIFFERS)


@pytest.mark.parametrize("call, message", [
    (lambda: mt.mm(mt.ones(2, 3), mt.ones(4, 5)),
     "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5): mat1's columns (3) must "
     "equal mat2's rows (4)"),
    (lambda: mt.mm(mt.ones(3), mt.ones(3, 2)),
     "mm: expected self to be 2-D (a matrix), but got a 1-D self of shape (3,)"),
    (lambda: mt.mv(mt.ones(2, 3), mt.ones(4)),
     "mv: size mismatch: matrix (2, 3) has 3 columns but the vector has 4 elements"),
    (lambda: mt.matmul(mt.ones(2, 3), mt.ones(2, 3)),
     "matmul: shapes (2, 3) and (2, 3) cannot be multiplied: 3 (last dim of the first) != 2 "
     "(second-to-last dim of the second)"),
    (lambda: mt.addmm(mt.ones(3), mt.ones(2, 3), mt.ones(3, 2)),
     "addmm: bias of shape (3,) cannot be broadcast to the product's shape (2, 2)"),
])
def test_shape_errors_same_on_cpu_and_meta(call, message):
    with pytest.raises(mt.ShapeError) as info:
        call()
    assert str(info.value) == message
    with mt.device("meta"), pytest.raises(mt.ShapeError) as meta_info:
        call()
    assert str(meta_info.value) == message


def test_matmul_of_0d_is_refused():
    with pytest.raises(mt.ShapeError, match="matmul: both arguments need at least 1 dimension"):
        mt.matmul(mt.tensor(2.0), mt.ones(2))


def test_dtype_mismatch_is_type_error():
    with pytest.raises(TypeError, match=r"mm: expected self and mat2 to have the same dtype, "
                                        r"but got self.dtype=torch.float32 and "
                                        r"mat2.dtype=torch.float64"):
        mt.mm(mt.ones(2, 2), mt.ones(2, 2, dtype=mt.float64))


def test_float32_products_stay_float32():
    a, b = mt.rand(3, 4, requires_grad=True), mt.rand(4, 2, requires_grad=True)
    for out in (a @ b, a.mv(b[:, 0]), mt.addmm(mt.rand(2), a, b, beta=0.5, alpha=2)):
        assert out.dtype is mt.float32
        out.sum().backward()
    assert a.grad.dtype is mt.float32 and b.grad.dtype is mt.float32


@pytest.mark.parametrize("a, b, message", [
    ((2, 2), (2,), "dot: 1D tensors expected, but got 2D and 1D tensors"),
    ((3,), (2,), "dot: inconsistent tensor size: 3 and 2 elements; both vectors must have "
                 "the same number of elements"),
])
def test_dot_shape_errors_are_runtime_errors_as_pytorchs(a, b, message):
    for device in ("cpu", "meta"):
        with pytest.raises(RuntimeError) as info:
            mt.dot(mt.ones(*a, device=device), mt.ones(*b, device=device))
        assert str(info.value) == message
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the error type")
    with pytest.raises(RuntimeError):
        torch.dot(torch.ones(*a), torch.ones(*b))


def test_dot_refuses_two_dtypes():
    with pytest.raises(TypeError, match="dot: expected self and tensor to have the same dtype"):
        mt.dot(mt.ones(2), mt.ones(2, dtype=mt.float64))
