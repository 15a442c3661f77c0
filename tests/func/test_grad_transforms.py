"""``torch.func.grad``/``grad_and_value``/``vjp``/``jacrev``/``hessian``: values, structures
and errors against PyTorch, nested transforms included (forward mode:
test_forward_transforms.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.func  # noqa: F401 - the reference's transforms

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.func.trees import as_numpy, assert_trees_close

X = np.array([0.5, -1.25, 2.0], dtype=np.float64)
Y = np.array([[1.0, 0.5, -0.5], [2.0, -1.0, 0.25]], dtype=np.float64)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")






def _loss(T, x, y):
    return ((y @ x).tanh() * (x * x).sum()).sum()


def _both(build):
    """``build(T, tensor)`` for each framework, ``tensor`` making float64 tensors."""
    torch = _torch()
    return (build(mt, lambda a: mt.tensor(a, dtype=mt.float64)),
            build(torch, lambda a: torch.tensor(a, dtype=torch.float64)))


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1,)])
def test_grad_matches_torch_for_each_argnums(argnums):
    ours, ref = _both(lambda T, t: T.func.grad(lambda x, y: _loss(T, x, y), argnums=argnums)(
        t(X), t(Y)))
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_grad_matches_finite_differences():
    x = mt.tensor(X, dtype=mt.float64)
    y = mt.tensor(Y, dtype=mt.float64)
    gradient = mt.func.grad(lambda x: _loss(mt, x, y))(x).numpy()
    eps = 1e-6
    for i in range(3):
        step = np.zeros(3)
        step[i] = eps
        up = _loss(mt, mt.tensor(X + step), y).item()
        down = _loss(mt, mt.tensor(X - step), y).item()
        assert abs((up - down) / (2 * eps) - gradient[i]) < 1e-6


def test_grad_on_each_device_returns_tensors_there(any_device):
    x = mt.tensor(X, dtype=mt.float32, device=any_device)
    gradient, value = mt.func.grad_and_value(lambda x: (x * x).sum())(x)
    assert gradient.device == tensor_device(any_device) and tuple(gradient.shape) == (3,)
    assert not gradient.requires_grad and value.grad_fn is None
    if any_device != "meta":
        np.testing.assert_allclose(gradient.cpu().numpy(), 2 * X, rtol=1e-6)
        assert value.item() == pytest.approx(float((X * X).sum()))


def test_grad_of_a_dict_of_parameters_has_the_dict_structure():
    def build(T, t):
        params = {"w": t(Y), "b": t(X[:2])}
        return T.func.grad(lambda p, x: ((p["w"] @ x + p["b"]) ** 2).sum())(params, t(X))

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_grad_and_value_with_aux_and_kwargs_match_torch():
    def build(T, t):
        def f(x, scale=1.0):
            loss = (x.sin() * scale).sum()
            return loss, {"doubled": x * 2}

        return T.func.grad_and_value(f, has_aux=True)(t(X), scale=t(Y[0]))

    (ours_g, (ours_v, ours_aux)), (ref_g, (ref_v, ref_aux)) = _both(build)
    assert_trees_close(as_numpy((ours_g, ours_v, ours_aux)), as_numpy((ref_g, ref_v, ref_aux)),
                       rtol=1e-10)
    ours_gr, ours_aux2 = mt.func.grad(lambda x: ((x * x).sum(), x), has_aux=True)(
        mt.tensor(X))
    np.testing.assert_allclose(ours_gr.numpy(), 2 * X)
    np.testing.assert_allclose(ours_aux2.numpy(), X)


def test_unused_inputs_and_outputs_without_graph_give_zeros_as_torch():
    ours, ref = _both(lambda T, t: T.func.grad(lambda x, y: y.sum(), argnums=(0, 1))(
        t(X), t(X)))
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)
    ours = mt.func.grad(lambda x: x.sum().long())(mt.tensor(X))
    assert ours.tolist() == [0.0, 0.0, 0.0]


GRAD_ERRORS = [
    ("not scalar", lambda T: T.func.grad(lambda x: x * 2)(T.ones(3)), RuntimeError,
     "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims"),
    ("not a tensor", lambda T: T.func.grad(lambda x: 3.0)(T.ones(3)), RuntimeError,
     "Expected f(*args) to return a Tensor, got <class 'float'>"),
    ("aux missing", lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(T.ones(3)),
     RuntimeError, "output of function f should be a tuple: (output, aux)"),
    ("aux not tensors", lambda T: T.func.grad(lambda x: (x.sum(), 1), has_aux=True)(T.ones(3)),
     RuntimeError, "Expected tensors, got unsupported type <class 'int'>"),
    ("argnum range", lambda T: T.func.grad(lambda x: x.sum(), argnums=1)(T.ones(3)),
     RuntimeError, "Got argnum=1, but only 1 positional inputs"),
    ("argnum negative", lambda T: T.func.grad(lambda x: x.sum(), argnums=-2)(T.ones(3)),
     RuntimeError, "Got argnum=-2, but only 1 positional inputs"),
    ("argnums empty", lambda T: T.func.grad(lambda x: x.sum(), argnums=())(T.ones(3)),
     RuntimeError, "argnums must be non-empty"),
    ("argnums list", lambda T: T.func.grad(lambda x: x.sum(), argnums=[0])(T.ones(3)),
     RuntimeError, "argnums must be int or Tuple[int, ...], got: <class 'list'>"),
    ("argnum float", lambda T: T.func.grad(lambda x: x.sum(), argnums=(0.5,))(T.ones(3)),
     RuntimeError, "argnum must be int, got: <class 'float'>"),
    ("argnums repeated", lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, 0))(
        T.ones(3), T.ones(3)), RuntimeError, "argnums elements must be unique, got (0, 0)"),
    ("integer input", lambda T: T.func.grad(lambda x: x.sum())(T.arange(3)), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    ("number input", lambda T: T.func.grad(lambda x: x * 2)(3.0), ValueError,
     "Thing passed to transform API must be Tensor, got <class 'float'>"),
]


@pytest.mark.parametrize("label, call, error, message", GRAD_ERRORS,
                         ids=[case[0] for case in GRAD_ERRORS])
def test_grad_errors_as_torch(label, call, error, message):
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(error) as info:
            call(T)
        assert message in str(info.value), (T.__name__, str(info.value))


def test_vjp_matches_torch_with_structured_primals_and_outputs():
    def build(T, t):
        def f(x, p):
            return x * p["k"], {"s": (x * x).sum()}

        out, vjp_fn = T.func.vjp(f, t(X), {"k": t(X[::-1].copy())})
        cotangents = (t(Y[0]), {"s": t(np.array(2.0))})
        return out, vjp_fn(cotangents), vjp_fn(cotangents)

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_vjp_with_aux_and_no_graph_left_on_results(device):
    x = mt.tensor(X, device=device)
    out, vjp_fn, aux = mt.func.vjp(lambda x: (x.exp(), x.sum()), x, has_aux=True)
    assert out.grad_fn is None and aux.grad_fn is None
    (gradient,) = vjp_fn(mt.ones(3, device=device, dtype=mt.float64))
    assert gradient.device == tensor_device(device)
    np.testing.assert_allclose(gradient.cpu().numpy(), np.exp(X))


VJP_ERRORS = [
    ("cotangent shape", lambda T: T.func.vjp(lambda x: x * 2, T.ones(3))[1](T.ones(2)),
     RuntimeError, "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                   "output[0] has a shape of torch.Size([3])."),
    ("cotangent structure", lambda T: T.func.vjp(lambda x: x * 2, T.ones(3))[1]([T.ones(3)]),
     RuntimeError, "Expected pytree structure of cotangents to be the same as pytree structure "
                   "of outputs to the function. cotangents: [*], primal output: *"),
    ("cotangent not tensor", lambda T: T.func.vjp(lambda x: x * 2, T.ones(3))[1](3.0),
     TypeError, "gradients can be either Tensors or None, but got float"),
    ("output not tensors", lambda T: T.func.vjp(lambda x: 3, T.ones(3)), RuntimeError,
     "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
     "<class 'int'>"),
    ("aux missing", lambda T: T.func.vjp(lambda x: x * 2, T.ones(3), has_aux=True),
     RuntimeError, "vjp(f, *primals): output of function f should be a tuple"),
    ("primal not tensor", lambda T: T.func.vjp(lambda x: x * 2, 3.0), ValueError,
     "Thing passed to transform API must be Tensor"),
]


@pytest.mark.parametrize("label, call, error, message", VJP_ERRORS,
                         ids=[case[0] for case in VJP_ERRORS])
def test_vjp_errors_as_torch(label, call, error, message):
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(error) as info:
            call(T)
        assert message in str(info.value), (T.__name__, str(info.value))


@pytest.mark.parametrize("case", ["vector", "scalar out", "scalar in", "matrix", "tuple out",
                                  "dict out", "argnums tuple", "empty"])
def test_jacrev_matches_torch(case):
    def build(T, t):
        functions = {
            "vector": (lambda x: x.sin() * x.sum(), (t(X),), 0),
            "scalar out": (lambda x: (x ** 3).sum(), (t(X),), 0),
            "scalar in": (lambda x: x * t(X), (t(np.array(1.5)),), 0),
            "matrix": (lambda y: (y @ y.t()).exp(), (t(Y),), 0),
            "tuple out": (lambda x: (x * 2, x.prod()), (t(X),), 0),
            "dict out": (lambda x, y: {"a": y @ x}, (t(X), t(Y)), 1),
            "argnums tuple": (lambda x, y: y @ x.cos(), (t(X), t(Y)), (0, 1)),
            "empty": (lambda x: x * 2, (t(np.zeros(0)),), 0),
        }
        f, args, argnums = functions[case]
        # PyTorch's chunk_size=1 path fails on an empty output (its own assertion)
        chunk_size = None if case == "empty" else 1
        return T.func.jacrev(f, argnums=argnums, chunk_size=chunk_size)(*args)

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_jacrev_with_aux_on_device(device):
    x = mt.tensor(X, device=device)
    jac, aux = mt.func.jacrev(lambda x: (x * 3, x.sum()), has_aux=True)(x)
    assert jac.device == tensor_device(device)
    np.testing.assert_allclose(jac.cpu().numpy(), 3 * np.eye(3))
    assert aux.item() == pytest.approx(X.sum())


@pytest.mark.parametrize("chunk_size", [0, -2])
def test_jacrev_chunk_size_must_be_positive_as_torch(chunk_size):
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0."):
            T.func.jacrev(lambda x: x, chunk_size=chunk_size)


def test_grad_of_grad_gives_pytorchs_higher_derivatives():
    for func in (mt.func, torch.func):
        lib = mt if func is mt.func else torch
        x = lib.tensor(0.7, dtype=lib.float64)
        f = lambda t: t.sin() * t ** 3  # noqa: E731
        second = func.grad(func.grad(f))(x)
        third = func.grad(func.grad(func.grad(f)))(x)
        assert not second.requires_grad
        assert (second.item(), third.item()) == pytest.approx(
            (6 * 0.7 * np.sin(0.7) + 6 * 0.49 * np.cos(0.7) - 0.343 * np.sin(0.7),
             6 * np.sin(0.7) + 18 * 0.7 * np.cos(0.7) - 9 * 0.49 * np.sin(0.7)
             - 0.343 * np.cos(0.7)), rel=1e-12)


def test_an_input_that_requires_grad_gives_a_differentiable_gradient():
    results = []
    for lib in (mt, torch):
        x = lib.tensor(X, requires_grad=True)
        gradient = lib.func.grad(lambda t: (t * t * t).sum())(x)
        assert gradient.requires_grad
        (second,) = lib.autograd.grad(gradient.sum(), x)
        results.append((gradient.detach().numpy(), second.numpy()))
        with lib.no_grad():
            assert not lib.func.grad(lambda t: (t * t).sum())(x).requires_grad
    np.testing.assert_allclose(results[0][0], 3 * X * X)
    np.testing.assert_allclose(results[0][1], results[1][1])


def test_closing_over_a_parameter_gives_a_gradient_differentiable_in_it():
    results = []
    for lib in (mt, torch):
        weight = lib.nn.Parameter(lib.tensor(X))
        gradient = lib.func.grad(lambda x, w=weight: (x * w).sin().sum())(lib.tensor(X))
        (by_weight,) = lib.autograd.grad(gradient.sum(), weight)
        output, vjp_fn = lib.func.vjp(lambda x, w=weight: x * w, lib.tensor(X))
        assert output.requires_grad
        results.append((gradient.detach().numpy(), by_weight.numpy()))
    np.testing.assert_allclose(results[0][0], np.cos(X * X) * X)
    np.testing.assert_allclose(results[0][1], results[1][1])


def test_vjp_fn_create_graph_gives_a_differentiable_product():
    for lib in (mt, torch):
        x = lib.tensor(X)
        _, vjp_fn = lib.func.vjp(lambda t: t.sin(), x)
        v = lib.ones(3, dtype=lib.float64, requires_grad=True)
        (product,) = vjp_fn(v, create_graph=True)
        (by_v,) = lib.autograd.grad((product * product).sum(), v)
        np.testing.assert_allclose(by_v.numpy(), 2 * np.cos(X) ** 2)


# torch.func.hessian's jacfwd imports torch.jit, which warns about its own deprecation
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_hessian_is_the_jacobian_of_the_jacobian():
    f = lambda t: (t.sin() * t.exp()).sum() * t.sum()  # noqa: E731
    ours = mt.func.hessian(f)(mt.tensor(X))
    theirs = torch.func.hessian(f)(torch.tensor(X))
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 3)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    pair = lambda t, u: (t * t * u).sum()  # noqa: E731
    for argnums in (0, (0, 1)):
        a = mt.func.hessian(pair, argnums)(mt.tensor(X), mt.tensor(X[::-1].copy()))
        b = torch.func.hessian(pair, argnums)(torch.tensor(X), torch.tensor(X[::-1].copy()))
        flat_a = a if argnums == 0 else [t for row in a for t in row]
        flat_b = b if argnums == 0 else [t for row in b for t in row]
        for p, q in zip([flat_a] if argnums == 0 else flat_a,
                        [flat_b] if argnums == 0 else flat_b):
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-12)


