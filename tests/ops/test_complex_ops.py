"""The complex-aware ops: values and gradients (PyTorch's conjugate convention) against
PyTorch, complex128 finite differences on real and imaginary parts, meta shapes; the
views (real, imag, view_as_real, view_as_complex) and their errors; the central refusal
of every other op."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.complex_harness import ComplexCase as C
from tests.ops.complex_harness import complex_three_way_tests

S = (2, 3)
CASES = [
    C("real", lambda T, z: z.real * 1, [("c", S)]),
    C("imag", lambda T, z: T.imag(z) * 1, [("c", S)]),
    C("real_function", lambda T, z: T.real(z) + T.imag(z), [("c", S)]),
    C("view_as_real", lambda T, z: T.view_as_real(z) * 1, [("c", S)]),
    C("view_as_complex", lambda T, x: T.view_as_complex(x) * 1, [("r", (3, 2))]),
    C("complex", lambda T, a, b: T.complex(a, b), [("r", S), ("r", S)]),
    C("complex_broadcast", lambda T, a, b: T.complex(a, b), [("r", (3,)), ("r", S)]),
    C("polar", lambda T, r, t: T.polar(r, t), [("p", S), ("r", S)]),
    C("polar_broadcast", lambda T, r, t: T.polar(r, t), [("p", (2, 1)), ("r", S)]),
    C("abs", lambda T, z: z.abs(), [("cnz", S)]),
    C("abs_function", lambda T, z: T.abs(z), [("cnz", S)]),
    C("angle", lambda T, z: z.angle(), [("cnz", S)]),
    C("angle_real", lambda T, x: T.angle(x) + x, [("r", S)]),
    C("conj", lambda T, z: z.conj() * 1, [("c", S)]),
    C("conj_physical", lambda T, z: T.conj_physical(z), [("c", S)]),
    C("sgn", lambda T, z: z.sgn(), [("cnz", S)]),
    C("add", lambda T, a, b: a + b, [("c", S), ("c", S)]),
    C("add_real", lambda T, a, x: a + x, [("c", S), ("r", (3,))]),
    C("sub", lambda T, a, b: T.sub(a, b), [("c", S), ("c", (3,))]),
    C("rsub_scalar", lambda T, a: 2 - a, [("c", S)]),
    C("mul", lambda T, a, b: a * b, [("c", S), ("c", S)]),
    C("mul_real", lambda T, a, x: a * x, [("c", S), ("r", S)]),
    C("mul_complex_scalar", lambda T, a: a * (2 - 1j), [("c", S)]),
    C("real_times_complex_scalar", lambda T, x: x * (0.5 + 2j), [("r", S)]),
    C("div", lambda T, a, b: a / b, [("c", S), ("cnz", S)]),
    C("div_real", lambda T, x, b: x / b, [("r", S), ("cnz", S)]),
    C("rdiv_scalar", lambda T, b: (1 + 1j) / b, [("cnz", S)]),
    C("neg", lambda T, z: -z, [("c", S)]),
    C("pow_2", lambda T, z: z ** 2, [("c", S)]),
    C("pow_half", lambda T, z: z.pow(0.5), [("cnz", S)]),
    C("pow_complex_exponent", lambda T, z: z ** (1 + 1j), [("cnz", S)]),
    C("exp", lambda T, z: T.exp(z), [("c", S)]),
    C("log", lambda T, z: z.log(), [("cnz", S)]),
    C("sqrt", lambda T, z: T.sqrt(z), [("cnz", S)]),
    C("sum", lambda T, z: z.sum(), [("c", S)]),
    C("sum_dim", lambda T, z: T.sum(z, dim=-1, keepdim=True), [("c", S)]),
    C("mean", lambda T, z: z.mean(), [("c", S)]),
    C("mean_dim", lambda T, z: z.mean(0), [("c", S)]),
    C("reshape_view", lambda T, z: z.reshape(3, 2).view(6) * 1, [("c", S)]),
    C("transpose_permute", lambda T, z: z.transpose(0, 1).permute(1, 0).t() * 1,
      [("c", S)]),
    C("indexing", lambda T, z: z[1, ::2] * 1, [("c", S)]),
    C("indexing_tensor", lambda T, z: z[T.tensor([1, 0, 1])], [("c", S)]),
    C("cat", lambda T, a, b: T.cat([a, b], dim=1), [("c", S), ("c", (2, 1))]),
    C("cat_real", lambda T, a, x: T.cat([a, x]), [("c", S), ("r", S)]),
    C("stack", lambda T, a, b: T.stack([a, b], dim=-1), [("c", S), ("c", S)]),
    C("clone", lambda T, z: z.clone(), [("c", S)]),
    C("to_complex", lambda T, x: x.to(T.promote_types(x.dtype, T.complex64)) * 1, [("r", S)]),
    C("mm", lambda T, a, b: T.mm(a, b), [("c", (2, 3)), ("c", (3, 4))]),
    C("matmul_batched", lambda T, a, b: a @ b, [("c", (2, 2, 3)), ("c", (3,))]),
    C("matmul_vector_matrix", lambda T, a, b: T.matmul(a, b), [("c", (3,)), ("c", (3, 2))]),
    C("bmm", lambda T, a, b: T.bmm(a, b), [("c", (2, 2, 3)), ("c", (2, 3, 2))]),
    C("abs_of_product", lambda T, a, b: (a * b.conj()).abs().sum(), [("c", S), ("c", S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = complex_three_way_tests(CASES)


def _z(device, dtype=mt.complex64):
    return mt.tensor([[1 + 2j, -3j, 0.5], [2 - 1j, 0j, -1 + 1j]], dtype=dtype, device=device)


# -- views ------------------------------------------------------------------------------
def test_real_and_imag_are_views_of_the_complex_tensor(device):
    z = _z(device)
    z.real[0, 0] = 7.0
    z.imag[1] = mt.tensor([5.0, 6.0, 7.0], device=device)
    assert z[0, 0].item() == 7 + 2j
    assert z[1].tolist() == [2 + 5j, 6j, -1 + 7j]
    assert tensor_device(device) == z.real.device


def test_real_and_imag_setters(device, torch_ref):
    ours = mt.zeros(2, dtype=mt.complex64, device=device)
    theirs = torch_ref.zeros(2, dtype=torch_ref.complex64)
    for t, T in ((ours, mt), (theirs, torch_ref)):
        t.real = T.ones(2, device=device) if T is mt else T.ones(2)
        t.imag = 3
    assert ours.tolist() == theirs.tolist() == [1 + 3j, 1 + 3j]


def test_real_of_a_real_tensor_is_itself_and_its_imag_raises(device):
    x = mt.ones(3, device=device)
    assert x.real is x and mt.real(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                           "non-complex dtypes"):
        _ = x.imag
    x.real = mt.full((3,), 2.0, device=device)
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_view_as_real_and_back_share_memory(device):
    z = _z(device)
    parts = mt.view_as_real(z)
    assert parts.shape == (2, 3, 2) and parts.dtype is mt.float32
    parts[0, 1, 0] = 4.0
    assert z[0, 1].item() == 4 - 3j
    back = mt.view_as_complex(parts)
    back[1, 1] = 9j
    assert z[1, 1].item() == 9j
    assert mt.view_as_complex(mt.ones(2, dtype=mt.float64, device=device)).dtype \
        is mt.complex128


def test_view_as_real_of_a_strided_tensor(device, torch_ref):
    values = np.arange(12).reshape(3, 4) + 1j * np.arange(12).reshape(3, 4)
    ours = mt.view_as_real(mt.tensor(values, device=device)[:, ::2])
    theirs = torch_ref.view_as_real(torch_ref.tensor(values)[:, ::2])
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


@pytest.mark.parametrize("make, message", [
    (lambda d: mt.ones(3, 2, dtype=mt.int64, device=d),
     "view_as_complex is only supported for half, float and double tensors, but got a "
     "tensor of scalar type: Long"),
    (lambda d: mt.tensor(1.0, device=d), "Input tensor must have one or more dimensions"),
    (lambda d: mt.ones(2, 3, device=d), "Tensor must have a last dimension of size 2"),
    (lambda d: mt.ones(3, 2, device=d).t(), "Tensor must have a last dimension of size 2"),
    (lambda d: mt.ones(2, 4, device=d)[:, ::2], "Tensor must have a last dimension with "
                                                "stride 1"),
    (lambda d: mt.ones(4, 3, device=d)[:, 1:], "Tensor must have a stride divisible by 2 for "
                                               "all but last dimension"),
    (lambda d: mt.ones(4, 2, device=d)[::2].t().t(), None),
    (lambda d: mt.ones(9, device=d)[1:].view(4, 2), "Tensor must have a storage_offset "
                                                     "divisible by 2"),
])
def test_view_as_complex_errors(make, message, device, torch_ref):
    if message is None:  # a stride of 4 is even: allowed
        assert mt.view_as_complex(make(device)).shape == (2,)
        return
    with pytest.raises(RuntimeError) as info:
        mt.view_as_complex(make(device))
    assert str(info.value).startswith(message)


def test_view_as_real_and_part_errors(device):
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex "
                                           "tensors"):
        mt.view_as_real(mt.ones(3, device=device))
    with pytest.raises(TypeError, match="complex32"):
        mt.view_as_complex(mt.ones(3, 2, dtype=mt.float16, device=device))


@pytest.mark.parametrize("op", [mt.complex, mt.polar])
def test_complex_and_polar_dtype_errors(op, device):
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double "
                                           "tensors but got Long and Long"):
        op(mt.ones(2, dtype=mt.int64, device=device), mt.ones(2, dtype=mt.int64,
                                                               device=device))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got "
                                           "scalar type Double for second argument"):
        op(mt.ones(2, device=device), mt.ones(2, dtype=mt.float64, device=device))
    with pytest.raises(TypeError, match=r"argument 'imag' \(position 2\) must be Tensor, not "
                                        "float|argument 'angle'"):
        op(mt.ones(2, device=device), 1.0)


def test_complex_keeps_infinite_parts_apart(device):
    inf = float("inf")
    z = mt.complex(mt.tensor([inf, 1.0], device=device), mt.tensor([0.0, -inf], device=device))
    assert z.tolist() == [complex(inf, 0), complex(1, -inf)]


def test_angle_of_real_tensors_as_torch(device, torch_ref):
    values = [-2.0, -0.0, 0.0, 3.0, float("inf"), -float("inf"), float("nan")]
    ours = mt.angle(mt.tensor(values, device=device)).cpu().numpy()
    np.testing.assert_array_equal(ours, torch_ref.angle(torch_ref.tensor(values)).numpy())
    integers = mt.angle(mt.tensor([-1, 0, 2], device=device))
    assert integers.dtype is mt.float32
    np.testing.assert_allclose(integers.cpu().numpy(), [np.pi, 0, 0], rtol=1e-6)


def test_gradients_at_zero_are_zero_as_torch(device, torch_ref):
    for name in ("abs", "angle", "sgn"):
        ours = mt.zeros(2, dtype=mt.complex128, device=device, requires_grad=True)
        theirs = torch_ref.zeros(2, dtype=torch_ref.complex128, requires_grad=True)
        getattr(ours, name)().abs().sum().backward() if name == "sgn" else \
            getattr(ours, name)().sum().backward()
        getattr(theirs, name)().abs().sum().backward() if name == "sgn" else \
            getattr(theirs, name)().sum().backward()
        assert ours.grad.tolist() == theirs.grad.tolist(), name


# -- conjugation --------------------------------------------------------------------------
def test_conj_of_real_is_itself_and_nothing_is_lazily_conjugated(device):
    x = mt.ones(2, device=device)
    assert x.conj() is x and mt.conj_physical(x) is x and mt.resolve_conj(x) is x
    z = _z(device)
    assert z.conj().tolist() == [[v.conjugate() for v in row] for row in z.tolist()]
    assert not z.conj().is_conj()  # a copy here (PyTorch: a lazy view with the bit set)
    assert mt.resolve_conj(z) is z


# -- comparisons and closeness ------------------------------------------------------------
def test_equality_and_closeness(device, torch_ref):
    nan = float("nan")
    a = [1 + 1j, complex(nan, 1), 2j, 1e-9 + 3j]
    b = [1 + 1j, complex(1, nan), 2.0000001j, 3j]
    for name, kwargs in (("isclose", {}), ("isclose", {"equal_nan": True}),
                         ("eq", {}), ("ne", {}), ("isnan", None), ("isinf", None),
                         ("isfinite", None)):
        ours_args = [mt.tensor(a, device=device)] + ([mt.tensor(b, device=device)]
                                                     if kwargs is not None else [])
        theirs_args = [torch_ref.tensor(a)] + ([torch_ref.tensor(b)]
                                               if kwargs is not None else [])
        ours = getattr(mt, name)(*ours_args, **(kwargs or {}))
        theirs = getattr(torch_ref, name)(*theirs_args, **(kwargs or {}))
        assert ours.tolist() == theirs.tolist(), name
    assert mt.allclose(mt.tensor(a[:1], device=device), mt.tensor(b[:1], device=device))
    assert (mt.tensor([1j], device=device) == 1j).tolist() == [True]


# -- autograd rules -----------------------------------------------------------------------
def test_complex_tensors_require_grad_and_backward_needs_a_real_scalar(device):
    z = mt.ones(2, dtype=mt.complex64, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real "
                                           "scalar outputs but got torch.complex64"):
        z.sum().backward()
    (z * z).abs().sum().backward()
    assert z.grad.dtype is mt.complex64


def test_second_order_through_complex_ops(device, torch_ref):
    values = np.array([1 + 2j, -0.5 + 1j])
    ours = mt.tensor(values, device=device, requires_grad=True)
    theirs = torch_ref.tensor(values, requires_grad=True)
    results = []
    for T, z in ((mt, ours), (torch_ref, theirs)):
        loss = (z * z * z.conj()).exp().real.sum() + (z / (z + 2)).log().imag.sum()
        (g,) = T.autograd.grad(loss, z, create_graph=True)
        (gg,) = T.autograd.grad((g * g.conj()).real.sum(), z)
        results.append((g.detach().cpu().numpy() if T is mt else g.detach().numpy(),
                        gg.cpu().numpy() if T is mt else gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)


# -- the refusal --------------------------------------------------------------------------
TORCH_REFUSES = [  # (call, PyTorch's error type)
    (lambda T, z: z < 0, NotImplementedError),
    (lambda T, z: T.gt(z, z), NotImplementedError),
    (lambda T, z: z.max(), NotImplementedError),
    (lambda T, z: z.max(0), RuntimeError),
    (lambda T, z: T.maximum(z, z), RuntimeError),
    (lambda T, z: z.sort(), RuntimeError),
    (lambda T, z: z.argmax(), RuntimeError),
    (lambda T, z: z.topk(1), RuntimeError),
    (lambda T, z: z.clamp(0, 1), NotImplementedError),
    (lambda T, z: T.relu(z), NotImplementedError),
    (lambda T, z: z.floor(), NotImplementedError),
    (lambda T, z: z.ceil(), NotImplementedError),
    (lambda T, z: z.round(), NotImplementedError),
    (lambda T, z: z.sign(), NotImplementedError),
    (lambda T, z: z % 2, NotImplementedError),
]


@pytest.mark.parametrize("call, error", TORCH_REFUSES)
def test_ops_pytorch_refuses_raise_its_error_type(call, error, device, torch_ref):
    for T, z in ((mt, _z(device)), (torch_ref, torch_ref.tensor([1 + 2j, 3j]))):
        with pytest.raises(error) as info:
            call(T, z)
        if error is RuntimeError:  # and not the subclass NotImplementedError
            assert not isinstance(info.value, NotImplementedError), T


@pytest.mark.parametrize("call, name", [
    (lambda z: mt.sin(z), "sin"),
    (lambda z: mt.tanh(z), "tanh"),
    (lambda z: z.prod(), "prod"),
    (lambda z: z.cumsum(0), "cumsum"),
    (lambda z: mt.where(mt.ones(2, 3, dtype=mt.bool, device=z.device), z, z), "where"),
    (lambda z: mt.ones(2, 3, device=z.device).pow(z), "pow"),
    (lambda z: mt.ones(3, device=z.device).dot(z[0]), "dot"),
    (lambda z: mt.nn.functional.softmax(z, -1), "softmax"),
    (lambda z: mt.nn.functional.conv1d(z[None], z[:, :, None]), "conv1d"),
    (lambda z: mt.ones(2, 3, device=z.device).atan2(z), "atan2"),
])
def test_ops_not_written_for_complex_refuse_clearly(call, name, device):
    with pytest.raises(NotImplementedError) as info:
        call(_z(device))
    message = str(info.value)
    assert "complex" in message and "not supported yet" in message, message


def test_refusal_happens_on_meta_too():
    z = mt.empty(2, 3, dtype=mt.complex64, device="meta")
    with pytest.raises(NotImplementedError, match="sin: complex tensors are not supported yet"):
        mt.sin(z)
    with pytest.raises(NotImplementedError, match="lt is not supported for complex tensors"):
        _ = z < 0


def test_a_python_complex_scalar_reaches_only_aware_ops(device):
    x = mt.ones(3, device=device)
    assert (x * 1j).dtype is mt.complex64
    with pytest.raises(NotImplementedError, match="complex numbers have no order"):
        x.fmod(1j)
    with pytest.raises(NotImplementedError, match="complex numbers have no order"):
        mt.remainder(x, 2j)
    assert (x / 2j).tolist() == [-0.5j] * 3


def test_real_dtype_ops_keep_working_next_to_complex(device):
    x = mt.tensor([1.0, -2.0], device=device, requires_grad=True)
    (x.abs() * 2).sum().backward()
    assert x.grad.tolist() == [2.0, -2.0]
    assert mt.sqrt(mt.tensor([-1.0], device=device)).isnan().item()  # no complex result


def test_in_place_complex_result_into_a_real_tensor_is_refused(device, torch_ref):
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the "
                                           "desired output type Float"):
        mt.ones(2, device=device).mul_(1j)
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast"):
        torch_ref.ones(2).mul_(1j)
    z = mt.ones(2, dtype=mt.complex64, device=device)
    z.mul_(2j).add_(mt.ones(2, device=device))
    assert z.tolist() == [1 + 2j, 1 + 2j]


def test_isreal(device, torch_ref):
    values = [1 + 0j, 1j, complex(float("nan"), 0), -0j]
    ours = mt.isreal(mt.tensor(values, device=device)).tolist()
    assert ours == torch_ref.isreal(torch_ref.tensor(values)).tolist()
