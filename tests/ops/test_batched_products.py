"""bmm, baddbmm, addbmm, addmv, addr (and their in-place forms), outer/ger, inner, tensordot,
kron, cross/linalg.cross and vdot: values, gradients and grad_fn names against PyTorch, meta
shapes, errors, dtypes and empty dims."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    Case("bmm", lambda T, F, a, b: T.bmm(a, b), [Arg((2, 3, 4)), Arg((2, 4, 5))]),
    Case("bmm_method_one_grad", lambda T, F, a, b: a.bmm(b),
         [Arg((3, 2, 4), grad=False), Arg((3, 4, 2))]),
    Case("bmm_empty_batch", lambda T, F, a, b: T.bmm(a, b), [Arg((0, 3, 4)), Arg((0, 4, 5))]),
    Case("bmm_empty_inner", lambda T, F, a, b: T.bmm(a, b), [Arg((2, 3, 0)), Arg((2, 0, 5))]),
    Case("baddbmm", lambda T, F, c, a, b: T.baddbmm(c, a, b),
         [Arg((2, 3, 5)), Arg((2, 3, 4)), Arg((2, 4, 5))]),
    Case("baddbmm_beta_alpha_broadcast", lambda T, F, c, a, b: T.baddbmm(c, a, b, beta=0.5,
                                                                          alpha=-2.0),
         [Arg((5,)), Arg((2, 3, 4)), Arg((2, 4, 5))]),
    Case("baddbmm_method", lambda T, F, c, a, b: c.baddbmm(a, b, beta=2, alpha=3),
         [Arg((3, 1)), Arg((2, 3, 4)), Arg((2, 4, 5))]),
    Case("addbmm", lambda T, F, c, a, b: T.addbmm(c, a, b),
         [Arg((3, 5)), Arg((4, 3, 2)), Arg((4, 2, 5))]),
    Case("addbmm_beta_alpha_broadcast", lambda T, F, c, a, b: c.addbmm(a, b, beta=-1.5,
                                                                       alpha=0.25),
         [Arg((1,)), Arg((2, 3, 4)), Arg((2, 4, 5))]),
    Case("addbmm_empty_batch", lambda T, F, c, a, b: T.addbmm(c, a, b),
         [Arg((3, 5)), Arg((0, 3, 4)), Arg((0, 4, 5))]),
    Case("addmv", lambda T, F, c, a, v: T.addmv(c, a, v), [Arg((3,)), Arg((3, 4)), Arg((4,))]),
    Case("addmv_method_scalars", lambda T, F, c, a, v: c.addmv(a, v, beta=3, alpha=0.5),
         [Arg((1,)), Arg((3, 4)), Arg((4,))]),
    Case("addr", lambda T, F, c, u, v: T.addr(c, u, v), [Arg((3, 4)), Arg((3,)), Arg((4,))]),
    Case("addr_method_scalars", lambda T, F, c, u, v: c.addr(u, v, beta=-1, alpha=2),
         [Arg((4,)), Arg((3,)), Arg((4,))]),
    Case("outer", lambda T, F, u, v: T.outer(u, v), [Arg((3,)), Arg((4,))]),
    Case("outer_method", lambda T, F, u, v: u.outer(v), [Arg((3,)), Arg((0,))]),
    Case("ger", lambda T, F, u, v: T.ger(u, v), [Arg((2,)), Arg((5,))]),
    Case("ger_method", lambda T, F, u, v: u.ger(v), [Arg((2,)), Arg((5,), grad=False)]),
    Case("inner", lambda T, F, a, b: T.inner(a, b), [Arg((2, 3)), Arg((4, 3))]),
    Case("inner_1d", lambda T, F, a, b: a.inner(b), [Arg((5,)), Arg((5,))]),
    Case("inner_3d", lambda T, F, a, b: T.inner(a, b), [Arg((2, 1, 3)), Arg((4, 3))]),
    Case("inner_0d", lambda T, F, a, b: T.inner(a, b), [Arg(()), Arg((4, 3))]),
    Case("tensordot_int", lambda T, F, a, b: T.tensordot(a, b, dims=2),
         [Arg((2, 3, 4)), Arg((3, 4, 5))]),
    Case("tensordot_lists", lambda T, F, a, b: T.tensordot(a, b, dims=([1, 2], [1, 0])),
         [Arg((2, 3, 4)), Arg((4, 3, 5))]),
    Case("tensordot_negative_dims", lambda T, F, a, b: T.tensordot(a, b, ([-1], [-2])),
         [Arg((2, 3)), Arg((3, 4))]),
    Case("tensordot_outer", lambda T, F, a, b: T.tensordot(a, b, dims=0),
         [Arg((2, 3)), Arg((4,))]),
    Case("tensordot_default", lambda T, F, a, b: T.tensordot(a, b),
         [Arg((2, 3, 4)), Arg((3, 4))]),
    Case("tensordot_empty", lambda T, F, a, b: T.tensordot(a, b, 1), [Arg((2, 0)), Arg((0, 3))]),
    Case("kron", lambda T, F, a, b: T.kron(a, b), [Arg((2, 3)), Arg((4, 5))]),
    Case("kron_ranks_differ", lambda T, F, a, b: a.kron(b), [Arg((2, 3)), Arg((4,))]),
    Case("kron_3d", lambda T, F, a, b: T.kron(a, b), [Arg((2, 1, 2)), Arg((3, 2))]),
    Case("kron_0d", lambda T, F, a, b: T.kron(a, b), [Arg(()), Arg((3,))]),
    Case("cross_dim", lambda T, F, a, b: T.cross(a, b, dim=1), [Arg((4, 3)), Arg((4, 3))]),
    Case("cross_method_dim0", lambda T, F, a, b: a.cross(b, 0), [Arg((3, 2)), Arg((3, 2))]),
    Case("linalg_cross", lambda T, F, a, b: T.linalg.cross(a, b), [Arg((2, 4, 3)), Arg((2, 4, 3))]),
    Case("linalg_cross_broadcast", lambda T, F, a, b: T.linalg.cross(a, b, dim=-1),
         [Arg((1, 3)), Arg((4, 3))]),
    Case("linalg_cross_dim_broadcast", lambda T, F, a, b: T.linalg.cross(a, b, dim=0),
         [Arg((3, 1, 2)), Arg((3, 4, 1))]),
    Case("vdot", lambda T, F, a, b: T.vdot(a, b), [Arg((4,)), Arg((4,))]),
    Case("vdot_method", lambda T, F, a, b: a.vdot(b), [Arg((3,), grad=False), Arg((3,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3(device):
    torch = _torch()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3))
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is "
                                         "deprecated"):
        ours = mt.cross(mt.tensor(a, device=device), mt.tensor(b, device=device))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-12)


def test_cross_of_the_axes_is_the_third_axis(device):
    x = mt.tensor([[1.0, 0, 0], [0, 1, 0]], device=device)
    y = mt.tensor([[0.0, 1, 0], [0, 0, 1]], device=device)
    assert mt.linalg.cross(x, y).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert mt.linalg.cross(mt.arange(3, device=device), mt.arange(3, device=device)).dtype \
        is mt.int64


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("call", [
    lambda a, b, c: mt.bmm(a, b),
    lambda a, b, c: mt.baddbmm(c.unsqueeze(0), a, b, beta=0.5),
    lambda a, b, c: mt.addbmm(c, a, b, alpha=2),
    lambda a, b, c: mt.addmv(c[:, 0], a[0], b[0, :, 0]),
    lambda a, b, c: mt.addr(c, a[0, :, 0], b[0, 0]),
    lambda a, b, c: mt.tensordot(a, b, ([0, 2], [0, 1])),
    lambda a, b, c: mt.kron(a, b),
    lambda a, b, c: mt.outer(a[0, 0], b[0, 0]),
])
def test_float32_and_float64_keep_their_dtype(call, dtype, device):
    a = mt.randn(2, 3, 4, dtype=dtype, device=device)
    b = mt.randn(2, 4, 5, dtype=dtype, device=device)
    c = mt.randn(3, 5, dtype=dtype, device=device)
    assert call(a, b, c).dtype is dtype


def test_integer_products_stay_integer(device):
    a = mt.arange(24, device=device).reshape(2, 3, 4)
    b = mt.arange(40, device=device).reshape(2, 4, 5)
    assert mt.bmm(a, b).tolist() == (a.double() @ b.double()).long().tolist()
    assert mt.bmm(a, b).dtype is mt.int64


def test_beta_zero_ignores_nan_in_input_as_torch(device):
    torch = _torch()
    bias = np.full((2, 3, 3), np.nan, dtype=np.float32)
    ones = np.ones((2, 3, 2), dtype=np.float32), np.ones((2, 2, 3), dtype=np.float32)
    c = mt.tensor(bias, device=device, requires_grad=True)
    tc = torch.tensor(bias, requires_grad=True)
    out = mt.baddbmm(c, *(mt.tensor(x, device=device) for x in ones), beta=0)
    ref = torch.baddbmm(tc, *(torch.tensor(x) for x in ones), beta=0)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), ref.detach().numpy())
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_array_equal(c.grad.cpu().numpy(), tc.grad.numpy())


@pytest.mark.parametrize("name, args", [
    ("baddbmm_", ((2, 3, 4), (2, 4, 5))), ("addbmm_", ((2, 3, 4), (2, 4, 5))),
    ("addmv_", ((3, 4), (4,))), ("addr_", ((3,), (5,))),
])
def test_in_place_forms_match_torch_and_bump_the_version(name, args):
    torch = _torch()
    rng = np.random.default_rng(0)
    out_shape = {"baddbmm_": (2, 3, 5), "addbmm_": (3, 5), "addmv_": (3,), "addr_": (3, 5)}[name]
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (out_shape,) + args]
    x = mt.tensor(arrays[0])
    tx = torch.tensor(arrays[0])
    returned = getattr(x, name)(*(mt.tensor(a) for a in arrays[1:]), beta=0.5, alpha=2)
    getattr(tx, name)(*(torch.tensor(a) for a in arrays[1:]), beta=0.5, alpha=2)
    assert returned is x and x._version == 1
    np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=1e-5, atol=1e-6)


def test_in_place_forms_are_refused_in_a_graph():
    leaf = mt.zeros(2, 3, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="baddbmm_: a leaf Variable that requires grad"):
        leaf.baddbmm_(mt.ones(2, 3, 4), mt.ones(2, 4, 5))
    with pytest.raises(mt.ShapeError, match=r"addbmm_: the result of shape \(3, 5\) cannot be "
                                            r"written in place into a tensor of shape \(5,\)"):
        mt.zeros(5).addbmm_(mt.ones(2, 3, 4), mt.ones(2, 4, 5))


def test_addbmm_is_one_gemm_over_the_batch():
    """No Python loop over the batch: one matmul kernel call forward, one per operand back."""
    calls = []
    backend = mt.ones(1)._backend
    original = backend.matmul

    def counting(a, b):
        calls.append((a.shape, b.shape))
        return original(a, b)

    a = mt.randn(50, 3, 4, requires_grad=True)
    b = mt.randn(50, 4, 5, requires_grad=True)
    backend.matmul = counting
    try:
        mt.addbmm(mt.zeros(3, 5), a, b).sum().backward()
        mt.bmm(a, b).sum().backward()
    finally:
        del backend.matmul
    assert calls[0] == ((3, 200), (200, 5))
    assert len(calls) == 6


def test_a_huge_meta_batch_is_multiplied_without_data():
    a = mt.empty(2**20, 2**10, 2**10, device="meta", requires_grad=True)
    b = mt.empty(2**20, 2**10, 2**8, device="meta", requires_grad=True)
    out = mt.baddbmm(mt.empty(2**8, device="meta"), a, b)
    out.sum().backward()
    assert out.shape == (2**20, 2**10, 2**8) and out.grad_fn.name() == "BaddbmmBackward0"
    assert a.grad.shape == a.shape and b.grad.is_meta


def _t(*shape):
    return mt.ones(*shape)


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.bmm(_t(3, 4), _t(2, 4, 5)), mt.ShapeRuntimeError,
     "bmm: batch1 must be a 3D tensor (batch, rows, columns), but got a 2-D tensor of shape "
     "(3, 4)"),
    (lambda: mt.bmm(_t(2, 3, 4), _t(4, 5)), mt.ShapeRuntimeError,
     "bmm: batch2 must be a 3D tensor (batch, rows, columns), but got a 2-D tensor of shape "
     "(4, 5)"),
    (lambda: mt.bmm(_t(1, 3, 4), _t(2, 4, 5)), mt.ShapeRuntimeError,
     "bmm: expected size for first two dimensions of batch2 tensor to be: [1, 4] but got: "
     "[2, 4] (batch1 (1, 3, 4), batch2 (2, 4, 5); the batches do not broadcast)"),
    (lambda: mt.bmm(_t(2, 3, 4), _t(2, 5, 5)), mt.ShapeRuntimeError,
     "bmm: expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
     "[2, 5] (batch1 (2, 3, 4), batch2 (2, 5, 5); the batches do not broadcast)"),
    (lambda: mt.bmm(_t(2, 3, 4), _t(2, 4, 5).double()), TypeError,
     "bmm: expected batch1 and batch2 to have the same dtype, but got "
     "batch1.dtype=torch.float32 and batch2.dtype=torch.float64"),
    (lambda: mt.baddbmm(_t(4), _t(2, 3, 4), _t(2, 4, 5)), mt.ShapeRuntimeError,
     "baddbmm: input of shape (4,) cannot be broadcast to the product's shape (2, 3, 5)"),
    (lambda: mt.baddbmm(_t(5).double(), _t(2, 3, 4), _t(2, 4, 5)), TypeError,
     "baddbmm: expected input and batch1 to have the same dtype, but got "
     "input.dtype=torch.float64 and batch1.dtype=torch.float32"),
    (lambda: mt.addbmm(_t(3, 5), _t(2, 3, 4), _t(3, 4, 5)), mt.ShapeRuntimeError,
     "addbmm: expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
     "[3, 4] (batch1 (2, 3, 4), batch2 (3, 4, 5); the batches do not broadcast)"),
    (lambda: mt.addbmm(_t(2, 5), _t(2, 3, 4), _t(2, 4, 5)), mt.ShapeRuntimeError,
     "addbmm: input of shape (2, 5) cannot be broadcast to the product's shape (3, 5)"),
    (lambda: mt.addmv(_t(3), _t(3, 4), _t(4, 1)), mt.ShapeRuntimeError,
     "addmv: vector + matrix @ vector expected, but got mat of shape (3, 4) and vec of shape "
     "(4, 1)"),
    (lambda: mt.addmv(_t(3), _t(3, 4), _t(5)), mt.ShapeRuntimeError,
     "addmv: size mismatch: mat (3, 4) has 4 columns but vec has 5 elements"),
    (lambda: mt.addmv(_t(2), _t(3, 4), _t(4)), mt.ShapeRuntimeError,
     "addmv: input of shape (2,) cannot be broadcast to the product's shape (3,)"),
    (lambda: mt.addr(_t(3, 4), _t(3, 1), _t(4)), mt.ShapeRuntimeError,
     "addr: expected 1-D argument vec1, but got 2-D (shape (3, 1))"),
    (lambda: mt.addr(_t(2, 4), _t(3), _t(4)), mt.ShapeRuntimeError,
     "addr: input of shape (2, 4) cannot be broadcast to the product's shape (3, 4)"),
    (lambda: mt.outer(_t(3, 1), _t(4)), mt.ShapeRuntimeError,
     "outer: Expected 1-D argument self, but got 2-D (shape (3, 1))"),
    (lambda: mt.ger(_t(3), _t()), mt.ShapeRuntimeError,
     "outer: Expected 1-D argument vec2, but got 0-D (shape ())"),
    (lambda: mt.inner(_t(2, 3), _t(4, 2)), mt.ShapeRuntimeError,
     "inner: the last dimension must match on both input tensors but got shapes (2, 3) and "
     "(4, 2)"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4), dims=-1), RuntimeError,
     "tensordot expects dims >= 0, but got dims=-1"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4), dims=3), RuntimeError,
     "tensordot expects dims < ndim_a or ndim_b, but got dims=3 (the inputs have 2 and 2 "
     "dims)"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4), dims=1.5), RuntimeError,
     "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
     "containing two lists, but got dims=1.5"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4), dims=([1], [0, 1])), mt.ShapeRuntimeError,
     "tensordot: both dimension lists should have same length, but got [1] and [0, 1]"),
    (lambda: mt.tensordot(_t(3, 3), _t(3, 3), dims=([0, 0], [0, 1])), RuntimeError,
     "tensordot: dim 0 appears multiple times in the list of dims"),
    (lambda: mt.tensordot(_t(2, 3, 4), _t(3, 4, 5), dims=([1], [1])), mt.ShapeRuntimeError,
     "tensordot: contracted dimensions need to match, but first has size 3 in dim 1 and "
     "second has size 4 in dim 1"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4).double(), dims=1), TypeError,
     "tensordot: expected a and b to have the same dtype"),
    (lambda: mt.tensordot(_t(2, 3), _t(3, 4), dims=([2], [0])), IndexError,
     "tensordot: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: mt.linalg.cross(_t(4, 4), _t(4, 4)), mt.ShapeRuntimeError,
     "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4 (shapes (4, 4) and "
     "(4, 4))"),
    (lambda: mt.linalg.cross(_t(3), _t(2, 3)), mt.ShapeRuntimeError,
     "linalg.cross: inputs must have the same number of dimensions, but got shapes (3,) and "
     "(2, 3)"),
    (lambda: mt.cross(_t(2, 3), _t(3, 3), dim=1), mt.ShapeRuntimeError,
     "linalg.cross: shapes (2, 3) and (3, 3) cannot be broadcast together"),
    (lambda: mt.cross(_t(2, 3), _t(2, 3), dim=2), IndexError,
     "linalg.cross: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: mt.linalg.cross(_t(3), _t(3).double()), TypeError,
     "linalg.cross: expected input and other to have the same dtype"),
    (lambda: mt.vdot(_t(3, 1), _t(3)), mt.ShapeRuntimeError,
     "vdot: 1D tensors expected, but got 2D and 1D tensors"),
    (lambda: mt.vdot(_t(3), _t(4)), mt.ShapeRuntimeError,
     "vdot: inconsistent tensor size: 3 and 4 elements; both vectors must have the same "
     "number of elements"),
    (lambda: mt.vdot(_t(3), _t(3).double()), TypeError,
     "vdot: expected self and other to have the same dtype"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)
    with mt.device("meta"), pytest.raises(error) as meta_info:
        call()
    assert str(meta_info.value) == str(info.value)


@pytest.mark.parametrize("call", [
    lambda T: T.bmm(T.ones(2, 3, 4), T.ones(2, 5, 5)),
    lambda T: T.addmv(T.ones(2), T.ones(3, 4), T.ones(4)),
    lambda T: T.inner(T.ones(2, 3), T.ones(4, 2)),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=-1),
    lambda T: T.linalg.cross(T.ones(4, 4), T.ones(4, 4)),
    lambda T: T.vdot(T.ones(3), T.ones(4)),
])
def test_shape_errors_are_runtime_errors_as_torchs(call):
    torch = _torch()
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError):
        call(mt)


def test_methods_and_functions_are_the_same():
    for name in ("bmm", "baddbmm", "addbmm", "addmv", "addr", "outer", "ger", "inner", "kron",
                 "cross", "vdot"):
        # one function under the wrappers (out_argument.py's out=, autocasting's casts)
        assert inspect.unwrap(getattr(mt.Tensor, name)) is inspect.unwrap(getattr(mt, name)), name
