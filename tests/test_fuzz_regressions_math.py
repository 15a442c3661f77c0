"""Regressions found by fuzzing ``torch.linalg``, ``torch.special`` and
``torch.distributions`` against PyTorch: one test per bug, compared with the ``torch_ref``
fixture."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 3), (2, 0, 0), (2, 3, 0)])
@pytest.mark.parametrize("ord", [1, -1, math.inf, -math.inf, 2, -2, "nuc"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_of_an_empty_matrix(torch_ref, device, shape, ord, keepdim):
    """The positive orders of an empty matrix are 0 with no graph; the negative ones raise
    ``amin``'s IndexError (``ord=1`` of a ``(3, 0)`` matrix raised, ``ord=-2`` gave 0)."""
    tx = torch_ref.zeros(shape, requires_grad=True)
    mx = mt.zeros(shape, requires_grad=True, device=device)
    try:
        expected = torch_ref.linalg.matrix_norm(tx, ord=ord, keepdim=keepdim)
    except IndexError:
        with pytest.raises(IndexError, match="Expected reduction dim"):
            mt.linalg.matrix_norm(mx, ord=ord, keepdim=keepdim)
        return
    got = mt.linalg.matrix_norm(mx, ord=ord, keepdim=keepdim)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.device == tensor_device(device)
    assert (got.grad_fn is None) == (expected.grad_fn is None)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("a_shape,b_shape", [
    ((0, 0), (0, 0, 2)), ((2, 3, 3), (0, 2, 3, 1)), ((1, 3, 3), (0, 3, 2)), ((0, 3, 3), (1, 3, 2)),
])
def test_solve_with_an_empty_broadcast_batch(torch_ref, device, a_shape, b_shape):
    """A right side whose batch broadcasts ``A``'s to an empty one gives an empty solution
    and ``A``'s ``info`` of zeros (it raised an IndexError reading ``info``)."""
    n = a_shape[-1]
    ta = torch_ref.eye(n, dtype=torch_ref.float64).expand(a_shape).contiguous()
    ta.requires_grad_(True)
    ma = mt.eye(n, dtype=mt.float64, device=device).expand(a_shape).contiguous()
    ma.requires_grad_(True)
    tb, mb = torch_ref.ones(b_shape, dtype=torch_ref.float64), mt.ones(b_shape, dtype=mt.float64,
                                                                     device=device)
    expected, got = torch_ref.linalg.solve_ex(ta, tb), mt.linalg.solve_ex(ma, mb)
    assert tuple(got.result.shape) == tuple(expected.result.shape)
    assert tuple(got.info.shape) == tuple(expected.info.shape)
    assert got.info.dtype is mt.int32 and got.info.device == tensor_device(device)
    assert got.info.cpu().tolist() == expected.info.tolist()
    solution = mt.linalg.solve(ma, mb)
    assert tuple(solution.shape) == tuple(torch_ref.linalg.solve(ta, tb).shape)
    (grad,) = mt.autograd.grad(solution.sum(), ma)
    np.testing.assert_array_equal(grad.cpu().numpy(), np.zeros(a_shape))


def _nearly_singular(framework, device=None):
    data = np.random.default_rng(0).standard_normal((2, 3, 3))
    data[1, 2] = data[1, 0] * 1.01
    kwargs = {} if device is None else {"device": device}
    return framework.tensor(data, **kwargs)


@pytest.mark.parametrize("call", [
    lambda la, a: la.pinv(a, 0.1), lambda la, a: la.pinv(a, 0.1, True),
    lambda la, a: la.pinv(a, rcond=0.3), lambda la, a: la.matrix_rank(a, 0.5),
    lambda la, a: la.matrix_rank(a, tol=0.5, hermitian=True),
    lambda la, a: la.matrix_rank(a, 1.5),
], ids=["pinv-rcond", "pinv-rcond-hermitian", "pinv-rcond-keyword", "rank-tol",
        "rank-tol-hermitian", "rank-large-tol"])
def test_pinv_and_matrix_rank_take_the_one_tolerance_overload(torch_ref, device, call):
    """``linalg.pinv(A, rcond)`` and ``linalg.matrix_rank(A, tol)`` (PyTorch's overloads:
    ``rtol=rcond``, ``atol=tol``) raised TypeError."""
    expected = call(torch_ref.linalg, _nearly_singular(torch_ref))
    got = call(mt.linalg, _nearly_singular(mt, device))
    assert str(got.dtype) == str(expected.dtype) and got.device == tensor_device(device)
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


def test_the_one_tolerance_overload_refuses_atol_and_rtol(torch_ref):
    for framework in (torch_ref, mt):
        a = _nearly_singular(framework)
        with pytest.raises(TypeError):
            framework.linalg.pinv(a, 0.1, atol=0.2)
        with pytest.raises(TypeError):
            framework.linalg.matrix_rank(a, 0.1, rtol=0.2)


def _rank_varied(framework, device=None):
    """A (3, 4, 4) batch of ranks 1, 4 and 4 with spread singular values, so that the
    tolerances below cut differently per matrix."""
    data = np.random.default_rng(1).standard_normal((3, 4, 4)) * np.array([1.0, 3.0, 0.3])[
        :, None, None]
    data[0] = np.outer(data[0, :, 0], np.arange(1.0, 5.0))
    data = data + data.swapaxes(-1, -2)  # symmetric, for ``hermitian=True`` too
    kwargs = {} if device is None else {"device": device}
    return framework.tensor(data, **kwargs)


_TOLERANCE_TENSORS = {
    "atol-per-matrix": lambda f: {"atol": f.tensor([0.1, 1.0, 5.0])},
    "rtol-per-matrix": lambda f: {"rtol": f.tensor([1e-6, 0.3, 0.9])},
    "both-per-matrix": lambda f: {"atol": f.tensor([0.1, 0.0, 2.0]),
                                  "rtol": f.tensor([0.5, 0.2, 0.0])},
    "atol-grid": lambda f: {"atol": f.tensor([[0.1], [2.0]])},  # batch (2, 3)
    "atol-zeros-default-rtol": lambda f: {"atol": f.tensor([0.0, -1.0, 3.0])},
    "float32-int-tolerances": lambda f: {"atol": f.tensor([0.5, 1.0, 3.0], dtype=f.float32),
                                         "rtol": f.tensor([0, 0, 1])},
    "one-tolerance-tensor": lambda f: {"_one": f.tensor([0.1, 1.0, 5.0])},
}


#: PyTorch's matrix_rank warns (about its own ``out`` buffer) when the tolerances widen the batch
_PYTORCH_RESIZE_WARNING = "ignore:An output with one or more elements was resized"


def _with_tolerances(function, a, tolerances: dict, **kwargs):
    tolerances = dict(tolerances)
    one = tolerances.pop("_one", None)
    return function(a, one, **kwargs) if one is not None else function(a, **tolerances,
                                                                         **kwargs)


def _to_device(tolerances: dict, device) -> dict:
    return {key: value.to(device) for key, value in tolerances.items()}


@pytest.mark.filterwarnings(_PYTORCH_RESIZE_WARNING)
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("case", list(_TOLERANCE_TENSORS), ids=list(_TOLERANCE_TENSORS))
def test_pinv_and_matrix_rank_take_tolerance_tensors(torch_ref, device, case, hermitian):
    """Tolerance tensors of several elements broadcast against the batch, as PyTorch's (ours
    raised "only one element tensors can be converted"); ``pinv``'s gradient reaches ``A``
    summed over the broadcast batch."""
    ta = _rank_varied(torch_ref).requires_grad_(True)
    ma = _rank_varied(mt, device).requires_grad_(True)
    t_tol, m_tol = _TOLERANCE_TENSORS[case](torch_ref), _TOLERANCE_TENSORS[case](mt)
    expected = _with_tolerances(torch_ref.linalg.matrix_rank, ta.detach(), t_tol,
                                hermitian=hermitian)
    got = _with_tolerances(mt.linalg.matrix_rank, ma.detach(), _to_device(m_tol, device),
                           hermitian=hermitian)
    assert got.dtype is mt.int64 and got.cpu().tolist() == expected.tolist()
    expected = _with_tolerances(torch_ref.linalg.pinv, ta, t_tol, hermitian=hermitian)
    got = _with_tolerances(mt.linalg.pinv, ma, _to_device(m_tol, device), hermitian=hermitian)
    assert tuple(got.shape) == tuple(expected.shape) and got.grad_fn.name() == "LinalgPinvBackward0"
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    weights = np.random.default_rng(2).standard_normal(tuple(expected.shape))
    (expected * torch_ref.tensor(weights)).sum().backward()
    (got * mt.tensor(weights, device=device)).sum().backward()
    np.testing.assert_allclose(ma.grad.cpu().numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.filterwarnings(_PYTORCH_RESIZE_WARNING)
def test_tolerance_tensors_on_meta(torch_ref):
    """The broadcast batch on meta is the batch of the real result."""
    a = _rank_varied(mt, "meta")
    for case, make in _TOLERANCE_TENSORS.items():
        expected = _with_tolerances(torch_ref.linalg.pinv, _rank_varied(torch_ref),
                                    make(torch_ref))
        got = _with_tolerances(mt.linalg.pinv, a, _to_device(make(mt), "meta"))
        assert tuple(got.shape) == tuple(expected.shape), case
        got = _with_tolerances(mt.linalg.matrix_rank, a, _to_device(make(mt), "meta"))
        expected = _with_tolerances(torch_ref.linalg.matrix_rank, _rank_varied(torch_ref),
                                    make(torch_ref))
        assert tuple(got.shape) == tuple(expected.shape) and got.dtype is mt.int64, case


_TOLERANCE_ERRORS = {
    "rank-positional-None": lambda f, a: f.linalg.matrix_rank(a, None),
    "rank-keyword-None": lambda f, a: f.linalg.matrix_rank(a, tol=None),
    "rank-None-hermitian": lambda f, a: f.linalg.matrix_rank(a, None, True),
    "pinv-positional-None": lambda f, a: f.linalg.pinv(a, None),
    "pinv-keyword-None": lambda f, a: f.linalg.pinv(a, rcond=None),
    "rank-number-beside-tensor": lambda f, a: f.linalg.matrix_rank(
        a, atol=0.5, rtol=f.tensor([0.1, 0.2, 0.3])),
    "pinv-tensor-beside-number": lambda f, a: f.linalg.pinv(
        a, atol=f.tensor([0.1, 0.2, 0.3]), rtol=0.5),
    "pinv-rcond-and-atol": lambda f, a: f.linalg.pinv(a, f.tensor([0.1, 0.2, 0.3]), atol=0.1),
    "rank-hermitian-None": lambda f, a: f.linalg.matrix_rank(a, hermitian=None),
}


@pytest.mark.parametrize("call", list(_TOLERANCE_ERRORS.values()), ids=list(_TOLERANCE_ERRORS))
def test_tolerance_overloads_refuse_what_pytorch_refuses(torch_ref, call):
    """``matrix_rank(A, None)`` and the like fit none of PyTorch's overloads: its TypeError
    (ours took ``None`` as "no tolerance given")."""
    with pytest.raises(TypeError) as expected:
        call(torch_ref, _rank_varied(torch_ref))
    with pytest.raises(TypeError) as got:
        call(mt, _rank_varied(mt))
    head = str(expected.value).split(" - got ")[0]
    assert str(got.value).startswith(head + " - got (Tensor, ")
    assert str(got.value).split("but expected one of:")[1] == str(expected.value).split(
        "but expected one of:")[1]


def test_a_zero_dim_tensor_beside_a_number_is_a_number(torch_ref):
    for framework in (torch_ref, mt):
        a = _rank_varied(framework)
        assert framework.linalg.matrix_rank(a, atol=framework.tensor(2.0), rtol=0.1).tolist() \
            == torch_ref.linalg.matrix_rank(_rank_varied(torch_ref), atol=2.0, rtol=0.1).tolist()


_TOLERANCE_RUNTIME_ERRORS = {
    "pinv-complex-atol": lambda f, a: f.linalg.pinv(a, atol=f.ones(3, dtype=f.complex64)),
    "pinv-complex-rcond": lambda f, a: f.linalg.pinv(a, f.ones(3, dtype=f.complex128)),
    "rank-complex-rtol": lambda f, a: f.linalg.matrix_rank(a, rtol=f.ones(3, dtype=f.complex64)),
    "rank-complex-tol": lambda f, a: f.linalg.matrix_rank(a, f.ones(3, dtype=f.complex64)),
    "rank-meta-atol": lambda f, a: f.linalg.matrix_rank(a, atol=f.ones(3, device="meta")),
    "pinv-atol-requires-grad": lambda f, a: f.linalg.pinv(a, atol=f.ones(3, requires_grad=True)),
    "pinv-rcond-requires-grad": lambda f, a: f.linalg.pinv(a, f.ones(3, requires_grad=True)),
}


@pytest.mark.parametrize("call", list(_TOLERANCE_RUNTIME_ERRORS.values()),
                         ids=list(_TOLERANCE_RUNTIME_ERRORS))
def test_tolerance_tensors_are_checked(torch_ref, call):
    with pytest.raises(RuntimeError) as expected:
        call(torch_ref, _rank_varied(torch_ref))
    with pytest.raises(RuntimeError) as got:
        call(mt, _rank_varied(mt))
    assert str(got.value) == str(expected.value)


def test_tolerance_tensors_that_do_not_broadcast(torch_ref):
    for framework in (torch_ref, mt):
        a = _rank_varied(framework)
        with pytest.raises(RuntimeError):
            framework.linalg.pinv(a, atol=framework.ones(2))
        with pytest.raises(RuntimeError):
            framework.linalg.matrix_rank(a, rtol=framework.ones(2))
    with pytest.raises(RuntimeError, match="linalg.pinv: shapes"):
        mt.linalg.pinv(_rank_varied(mt), atol=mt.ones(2))


def test_pinverse_takes_a_number_only(torch_ref):
    for framework in (torch_ref, mt):
        a = _rank_varied(framework)
        for rcond in (None, framework.ones(3), "0.1"):
            with pytest.raises(TypeError, match="pinverse\\(\\): argument 'rcond' must be float"):
                framework.pinverse(a, rcond=rcond)
    got = mt.pinverse(_rank_varied(mt), rcond=mt.tensor(0.3))
    expected = torch_ref.pinverse(_rank_varied(torch_ref), rcond=torch_ref.tensor(0.3))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["eigh", "eigvalsh"])
def test_eigh_of_a_dtype_lapack_has_not(torch_ref, device, dtype, name):
    """PyTorch's kernel dispatch refuses it with NotImplementedError (ours raised a
    RuntimeError, float16 a LowPrecisionError with another message); shape errors come
    first, and an empty matrix never reaches the kernel."""
    if dtype == "bfloat16" and device == "cuda":
        pytest.skip("bfloat16 tensors cannot be made on CUDA here (CuPy has no bfloat16)")
    t_fn, m_fn = getattr(torch_ref.linalg, name), getattr(mt.linalg, name)
    t_dtype, m_dtype = getattr(torch_ref, dtype), getattr(mt, dtype)
    with pytest.raises(NotImplementedError) as expected:
        t_fn(torch_ref.ones(2, 2, dtype=t_dtype))
    with pytest.raises(NotImplementedError) as got:
        m_fn(mt.ones(2, 2, dtype=m_dtype, device=device))
    assert str(got.value) == str(expected.value)
    with pytest.raises(RuntimeError) as expected:
        t_fn(torch_ref.ones(2, 3, dtype=t_dtype))
    with pytest.raises(RuntimeError) as got:
        m_fn(mt.ones(2, 3, dtype=m_dtype, device=device))
    assert str(got.value) == str(expected.value)
    empty_t, empty_m = t_fn(torch_ref.ones(0, 0, dtype=t_dtype)), m_fn(
        mt.ones(0, 0, dtype=m_dtype, device=device))
    for e, g in zip(empty_t if name == "eigh" else [empty_t],
                    empty_m if name == "eigh" else [empty_m]):
        assert tuple(g.shape) == tuple(e.shape) and str(g.dtype) == str(e.dtype)


_NORMS_WITH_DTYPE = {
    "vector_norm-narrowing": lambda f, a: f.linalg.vector_norm(a, dtype=f.float32),
    "vector_norm-int-input": lambda f, a: f.linalg.vector_norm(a.int(), dtype=f.float32),
    "vector_norm-int-dtype": lambda f, a: f.linalg.vector_norm(a, dtype=f.int64),
    "matrix_norm-narrowing": lambda f, a: f.linalg.matrix_norm(a, dtype=f.float32),
    "matrix_norm-nuc-half": lambda f, a: f.linalg.matrix_norm(a, "nuc", dtype=f.float16),
    "linalg.norm-narrowing": lambda f, a: f.linalg.norm(a, dtype=f.float16),
    "torch.norm-narrowing": lambda f, a: f.norm(a, p=1, dim=0, dtype=f.float32),
}


@pytest.mark.parametrize("call", list(_NORMS_WITH_DTYPE.values()), ids=list(_NORMS_WITH_DTYPE))
def test_norms_refuse_a_narrowing_or_integer_dtype(torch_ref, device, call):
    """``dtype=`` of the norms must not narrow the input (float64 to float32) and must be
    floating, on a floating input: PyTorch's RuntimeErrors (ours cast silently)."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    with pytest.raises(RuntimeError) as expected:
        call(torch_ref, torch_ref.tensor(data))
    with pytest.raises(RuntimeError) as got:
        call(mt, mt.tensor(data, device=device))
    assert str(got.value) == str(expected.value)


def test_norms_take_a_widening_dtype(torch_ref, device):
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for call in (lambda f, a: f.linalg.vector_norm(a, dtype=f.float64),
                 lambda f, a: f.linalg.matrix_norm(a, "nuc", dtype=f.float64),
                 lambda f, a: f.norm(a.half(), dtype=f.float32)):
        expected = call(torch_ref, torch_ref.tensor(data))
        got = call(mt, mt.tensor(data, device=device))
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-6)


_NUCLEAR_NORMS = {
    "2-d": lambda f, a: f.norm(a[0], p="nuc"),
    "dims-keepdim": lambda f, a: f.norm(a, p="nuc", dim=(0, 2), keepdim=True),
    "method": lambda f, a: a.norm(p="nuc", dim=(1, 2)),
}


@pytest.mark.parametrize("call", list(_NUCLEAR_NORMS.values()), ids=list(_NUCLEAR_NORMS))
def test_torch_norm_nuc(torch_ref, device, call):
    """``torch.norm(p='nuc')`` is ``linalg.matrix_norm`` (ours raised NotImplementedError)."""
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    ta = torch_ref.tensor(data, requires_grad=True)
    ma = mt.tensor(data, requires_grad=True, device=device)
    expected, got = call(torch_ref, ta), call(mt, ma)
    assert tuple(got.shape) == tuple(expected.shape) and got.device == tensor_device(device)
    assert got.grad_fn.name() == type(expected.grad_fn).__name__
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=1e-12)
    upstream = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    expected.backward(torch_ref.tensor(upstream))
    got.backward(mt.tensor(upstream, device=device))
    np.testing.assert_allclose(ma.grad.cpu().numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda f, a: f.norm(a, p="nuc"), lambda f, a: f.norm(a, p="nuc", dim=1),
    lambda f, a: f.linalg.matrix_norm(a, dim=(0, 1, 1)),
], ids=["3-d", "one-dim", "three-dims"])
def test_matrix_norm_wants_two_dims(torch_ref, device, call):
    data = np.zeros((2, 3, 4))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple") as expected:
        call(torch_ref, torch_ref.tensor(data))
    with pytest.raises(RuntimeError) as got:
        call(mt, mt.tensor(data, device=device))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_log_ndtr_gradient_in_the_far_left_tail(torch_ref, device, dtype):
    """``log_ndtr'(x) = pdf / cdf`` is about ``-x`` in the left tail: PyTorch's (and our
    former) ``exp(-(out + x²/2))`` cancels there (0.399 at ``x = -1e10``); elsewhere the
    gradients are PyTorch's, to second order."""
    points = np.array([-30.0, -10.0, -1.0001, -1.0, -0.5, 0.0, 3.0, 30.0])
    tx = torch_ref.tensor(points, dtype=getattr(torch_ref, dtype), requires_grad=True)
    mx = mt.tensor(points, dtype=getattr(mt, dtype), requires_grad=True, device=device)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    (tg,) = torch_ref.autograd.grad(torch_ref.special.log_ndtr(tx).sum(), tx, create_graph=True)
    (mg,) = mt.autograd.grad(mt.special.log_ndtr(mx).sum(), mx, create_graph=True)
    np.testing.assert_allclose(mg.detach().cpu().numpy(), tg.detach().numpy(), rtol=rtol)
    (tg2,) = torch_ref.autograd.grad(tg.sum(), tx)
    (mg2,) = mt.autograd.grad(mg.sum(), mx)
    # PyTorch's float32 second derivative is itself 1% off at -30 (the cancellation)
    near = slice(None) if dtype == "float64" else slice(1, None)
    np.testing.assert_allclose(mg2.cpu().numpy()[near], tg2.numpy()[near], rtol=rtol * 100,
                               atol=1e-30)
    far = mt.tensor([-1e10, -1e5, -1e3], dtype=getattr(mt, dtype), requires_grad=True,
                    device=device)
    (slope,) = mt.autograd.grad(mt.special.log_ndtr(far).sum(), far)
    # pdf / cdf = -x + 1/x - ... : within 1e-6 of -x this far out
    np.testing.assert_allclose(slope.cpu().numpy(), [1e10, 1e5, 1e3], rtol=2e-6)


@pytest.mark.parametrize("eps", [-0.1, -1.0])
def test_logit_with_a_negative_eps_is_logit_without_eps(torch_ref, device, eps):
    """A negative ``eps`` clamps nothing and leaves NaN gradients outside ``[0, 1]``, as
    PyTorch's kernel (ours gave 0 beyond ``[eps, 1 - eps]`` and slopes between). PyTorch's
    ``create_graph`` formula is the clamped one; ours stays its first-order kernel's."""
    data = np.array([-2.0, -0.05, -1e-5, 0.0, 0.3, 1.0, 1.001, 1.05, 3.0])
    tx = torch_ref.tensor(data, requires_grad=True)
    mx = mt.tensor(data, requires_grad=True, device=device)
    ty, my = torch_ref.special.logit(tx, eps=eps), mt.special.logit(mx, eps=eps)
    np.testing.assert_allclose(my.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-14)
    upstream = np.linspace(-1.0, 1.0, data.size)
    (tg,) = torch_ref.autograd.grad(ty, tx, torch_ref.tensor(upstream))
    (mg,) = mt.autograd.grad(my, mx, mt.tensor(upstream, device=device))
    np.testing.assert_allclose(mg.cpu().numpy(), tg.numpy(), rtol=1e-14)
    (twice,) = mt.autograd.grad(mt.special.logit(mx, eps=eps).sum(), mx, create_graph=True)
    np.testing.assert_array_equal(np.isnan(twice.detach().cpu().numpy()), np.isnan(tg.numpy()))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sinc_gradient_where_pi_x_squared_underflows(torch_ref, device, dtype):
    """``sinc``'s slope is 0 where ``pi x²`` underflows, as PyTorch's (ours was 0 / 0 =
    NaN at ``x = 1e-310``, and at 1e-40 in float32)."""
    data = np.array([1e-310, -1e-300, 1e-200, 1e-40, 1e-20, 0.0, 0.3, -2.5])
    tx = torch_ref.tensor(data, dtype=getattr(torch_ref, dtype), requires_grad=True)
    mx = mt.tensor(data, dtype=getattr(mt, dtype), requires_grad=True, device=device)
    upstream = np.linspace(-1.0, 1.0, data.size)
    (tg,) = torch_ref.autograd.grad(torch_ref.special.sinc(tx), tx,
                                    torch_ref.tensor(upstream, dtype=tx.dtype))
    (mg,) = mt.autograd.grad(mt.special.sinc(mx), mx, mt.tensor(upstream, dtype=mx.dtype,
                                                                 device=device))
    np.testing.assert_allclose(mg.cpu().numpy(), tg.numpy(), rtol=1e-6, atol=0)


def test_sinc_second_derivative_near_zero(device):
    """``sinc''`` is ``-pi²/3`` to rounding near 0 (the quotient's cancellation gave -9.87
    at 1e-20 and NaN where ``pi x²`` underflows); mpmath's values at the other points."""
    data = np.array([1e-310, 1e-160, 1e-20, 1e-8, 9.9e-5, 1e-3, 0.3])
    exact = [-3.289868133696453, -3.289868133696453, -3.289868133696453, -3.289868133696452,
             -3.289868038225803, -3.289858392793072, -2.4584852862661744]
    x = mt.tensor(data, requires_grad=True, device=device)
    (slope,) = mt.autograd.grad(mt.special.sinc(x).sum(), x, create_graph=True)
    (curvature,) = mt.autograd.grad(slope.sum(), x)
    np.testing.assert_allclose(curvature.cpu().numpy(), exact, rtol=1e-9)


@pytest.mark.parametrize("call", [
    lambda f, x: f.softmax(x, 0), lambda f, x: f.log_softmax(x.int(), 0),
    lambda f, x: f.softmax(x.bool(), 1), lambda f, x: f.special.softmax(x, -1),
    lambda f, x: f.nn.functional.log_softmax(x.byte(), -1),
], ids=["softmax-dim0", "log_softmax-int", "softmax-bool", "special", "functional"])
def test_softmax_of_integers_raises_not_implemented(torch_ref, device, call):
    """An integer or bool input raises PyTorch's NotImplementedError naming its kernel
    (ours raised a TypeError naming log_softmax, also for softmax)."""
    data = np.ones((2, 3), dtype=np.int64)
    with pytest.raises(NotImplementedError) as expected:
        call(torch_ref, torch_ref.tensor(data))
    with pytest.raises(NotImplementedError) as got:
        call(mt, mt.tensor(data, device=device))
    assert str(got.value) == str(expected.value)
    assert isinstance(got.value, TypeError)  # the type raised here before


def test_uniform_mode_is_nan_with_a_graph(torch_ref, device):
    """``Uniform.mode`` is ``nan * high`` as PyTorch's (a gradient of NaN reaches ``high``);
    ours was a fresh NaN tensor, so backward through it raised."""
    th = torch_ref.tensor([1.0, 2.0], requires_grad=True)
    mh = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    tm = torch_ref.distributions.Uniform(torch_ref.zeros(2), th).mode
    mm = mt.distributions.Uniform(mt.zeros(2, device=device), mh).mode
    assert mm.grad_fn.name() == type(tm.grad_fn).__name__
    (tg,) = torch_ref.autograd.grad(tm.sum(), th)
    (mg,) = mt.autograd.grad(mm.sum(), mh)
    np.testing.assert_array_equal(mg.cpu().numpy(), tg.numpy())
    np.testing.assert_array_equal(mm.detach().cpu().numpy(), tm.detach().numpy())


def test_binomial_mode_at_its_bound_passes_no_gradient_to_total_count(torch_ref, device):
    """``Binomial.mode`` is clamped at ``total_count`` (PyTorch's ``clamp``): where the floor
    equals ``n``, ``n`` gets no gradient (``minimum`` split it between the two)."""
    counts, probs = np.array([5.0, 5.0, 3.0]), np.array([0.9, 0.4, 1.0])
    tn = torch_ref.tensor(counts, requires_grad=True)
    mn = mt.tensor(counts, requires_grad=True, device=device)
    tmode = torch_ref.distributions.Binomial(tn, torch_ref.tensor(probs)).mode
    mmode = mt.distributions.Binomial(mn, mt.tensor(probs, device=device)).mode
    np.testing.assert_array_equal(mmode.detach().cpu().numpy(), tmode.detach().numpy())
    assert mmode.grad_fn.name() == type(tmode.grad_fn).__name__
    (tg,) = torch_ref.autograd.grad(tmode.sum(), tn)
    (mg,) = mt.autograd.grad(mmode.sum(), mn)
    np.testing.assert_array_equal(mg.cpu().numpy(), tg.numpy())


@pytest.mark.parametrize("name", ["svd", "svdvals"])
def test_svd_driver_is_refused_on_the_cpu(torch_ref, name):
    """``driver=`` is CUDA-only: PyTorch's CPU raises (ours ignored it); meta takes it."""
    data = np.eye(3)
    with pytest.raises(RuntimeError, match="only supported on CUDA inputs") as expected:
        getattr(torch_ref.linalg, name)(torch_ref.tensor(data), driver="gesvd")
    with pytest.raises(RuntimeError) as got:
        getattr(mt.linalg, name)(mt.tensor(data), driver="gesvd")
    assert str(got.value) == str(expected.value)
    on_meta = getattr(mt.linalg, name)(mt.tensor(data, device="meta"), driver="gesvd")
    expected_meta = getattr(torch_ref.linalg, name)(torch_ref.tensor(data, device="meta"),
                                                    driver="gesvd")
    shapes = [tuple(t.shape) for t in (on_meta if name == "svd" else [on_meta])]
    assert shapes == [tuple(t.shape) for t in (expected_meta if name == "svd"
                                               else [expected_meta])]


def test_svd_driver_on_cuda(device):
    """On CUDA a cuSOLVER driver is taken (our one kernel computes it) and an unknown one
    is PyTorch's RuntimeError."""
    if mt.device(device).type != "cuda":
        pytest.skip("the driver is checked on CUDA only")
    a = mt.eye(3, device=device)
    assert tuple(mt.linalg.svd(a, driver="gesvdj").S.shape) == (3,)
    with pytest.raises(RuntimeError, match="unknown svd driver bad"):
        mt.linalg.svdvals(a, driver="bad")


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((2, 0), -1), ((3, 0, 2), 1), ((0, 3), -1)])
def test_softmax_over_an_empty_dim_is_empty_as_in_torch(torch_ref, device, name, shape, dim):
    """``softmax(x, dim)`` with an empty ``x`` gives an empty result and gradient (it raised
    NumPy's 'zero-size array to reduction operation maximum')."""
    results = []
    for lib, where in ((mt, device), (torch_ref, "cpu")):
        x = lib.zeros(*shape, requires_grad=True, device=where)
        y = getattr(lib, name)(x, dim)
        y.sum().backward()
        results.append((tuple(y.shape), y.dtype == lib.float32, tuple(x.grad.shape)))
    assert results[0] == results[1] == (shape, True, shape)


def _rank_deficient_integer_matrices(n: int, count: int, seed: int) -> np.ndarray:
    """``count`` exactly singular ``n x n`` matrices of small integers (rank 1 to n - 1)."""
    rng = np.random.default_rng(seed)
    mats = []
    for _ in range(count):
        r = int(rng.integers(1, n))
        mats.append(rng.integers(-5, 6, (n, r)) @ rng.integers(-5, 6, (r, n)))
    return np.stack(mats).astype(np.float64)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_exactly_singular_matrices_are_singular_as_in_pytorch(torch_ref, device, n, dtype):
    """Which exactly singular matrices meet an exact zero pivot depends on the LU's rounding:
    NumPy's OpenBLAS called 342 of 400 integer 3 x 3 singular, PyTorch's MKL 332 (ours
    followed OpenBLAS, with a search by SVD for ``info``). Now ``info`` is PyTorch's."""
    data = _rank_deficient_integer_matrices(n, 300, seed=n).astype(dtype)
    ta, ma = torch_ref.tensor(data), mt.tensor(data, device=device)
    tb, mb = torch_ref.ones(300, n, 2, dtype=ta.dtype), mt.ones(300, n, 2, dtype=ma.dtype,
                                                             device=device)
    expected, got = torch_ref.linalg.inv_ex(ta), mt.linalg.inv_ex(ma)
    assert got.info.cpu().tolist() == expected.info.tolist()
    assert bool((expected.info > 0).any())
    solved_t, solved_m = torch_ref.linalg.solve_ex(ta, tb), mt.linalg.solve_ex(ma, mb)
    assert solved_m.info.cpu().tolist() == solved_t.info.tolist()
    factored_t, factored_m = torch_ref.linalg.lu_factor_ex(ta), mt.linalg.lu_factor_ex(ma)
    assert factored_m.info.cpu().tolist() == factored_t.info.tolist()
    # a failed matrix is NaN (PyTorch's inf or NaN: docs/differences.md); the others' values
    # are rounding noise of ~1e15 (the last pivot is a rounding error), not compared
    failed = expected.info.numpy() > 0
    assert np.isnan(got.inverse.cpu().numpy()[failed]).all()
    assert np.isfinite(got.inverse.cpu().numpy()[~failed]).all()


def test_inv_raises_where_pytorch_does(torch_ref):
    """A matrix OpenBLAS meets a zero pivot in but MKL does not: inverted (ours raised), and
    the reverse: refused (ours returned values of ~1e16)."""
    data = _rank_deficient_integer_matrices(3, 400, seed=0)
    expected_info = torch_ref.linalg.inv_ex(torch_ref.tensor(data)).info.numpy()
    numpy_failed = []
    for a in data:
        try:
            np.linalg.inv(a)
            numpy_failed.append(False)
        except np.linalg.LinAlgError:
            numpy_failed.append(True)
    numpy_failed = np.array(numpy_failed)
    for picked in (numpy_failed & (expected_info == 0), ~numpy_failed & (expected_info > 0)):
        assert picked.any()
        a = data[picked][0]
        try:
            expected = torch_ref.linalg.inv(torch_ref.tensor(a)).numpy()
        except RuntimeError as error:
            with pytest.raises(mt.linalg.LinAlgError) as got:
                mt.linalg.inv(mt.tensor(a))
            assert str(got.value) == str(error)
            continue
        np.testing.assert_allclose(mt.linalg.inv(mt.tensor(a)).numpy(), expected, rtol=1e-6,
                                   atol=1e-6 * np.abs(expected).max())


_KERNEL_DTYPE_ERRORS = {
    "vecdot-int": lambda f, d: f.linalg.vecdot(f.ones(3, dtype=d), f.ones(3, dtype=d)),
    "vecdot-int-empty": lambda f, d: f.linalg.vecdot(f.ones(0, dtype=d), f.ones(0, dtype=d)),
    "vecdot-int-beside-float": lambda f, d: f.linalg.vecdot(f.ones(3, dtype=d), f.ones(3)),
    "cross-bool": lambda f, d: f.linalg.cross(f.ones(3, dtype=f.bool), f.ones(3, dtype=f.bool)),
    "cross-bool-empty": lambda f, d: f.linalg.cross(f.ones(0, 3, dtype=f.bool),
                                                    f.ones(0, 3, dtype=f.bool)),
    "solve_triangular-int": lambda f, d: f.linalg.solve_triangular(
        f.ones(3, 3, dtype=d), f.ones(3, 3, dtype=d), upper=True),
    "solve_triangular-int-empty": lambda f, d: f.linalg.solve_triangular(
        f.ones(0, 0, dtype=d), f.ones(0, 0, dtype=d), upper=False),
    "solve_triangular-half": lambda f, d: f.linalg.solve_triangular(
        f.ones(2, 3, 3, dtype=f.float16), f.ones(3, 1, dtype=f.float16), upper=True),
    "solve_triangular-int-not-square": lambda f, d: f.linalg.solve_triangular(
        f.ones(3, 2, dtype=d), f.ones(3, 3, dtype=d), upper=True),
}


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
@pytest.mark.parametrize("call", list(_KERNEL_DTYPE_ERRORS.values()),
                         ids=list(_KERNEL_DTYPE_ERRORS))
def test_linalg_dtype_errors_as_torch(torch_ref, device, call, dtype):
    """Found by fuzzing: ``vecdot`` of integers ran (PyTorch refuses), ``cross`` of booleans
    leaked NumPy's TypeError, ``solve_triangular`` of integers or float16 raised a
    RuntimeError (PyTorch's kernel: NotImplementedError), shape errors first."""
    with pytest.raises(Exception) as expected:
        call(torch_ref, getattr(torch_ref, dtype))
    with mt.device(device), pytest.raises(Exception) as got:
        call(mt, getattr(mt, dtype))
    assert isinstance(got.value, type(expected.value))
    assert str(got.value) == str(expected.value)
