"""``torch.func.jvp``/``jacfwd``/``linearize``: values, structures and errors against
PyTorch (its forward mode), against finite differences, nested in other transforms, on
every device."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.func  # noqa: F401 - the reference's transforms

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.func.trees import as_numpy, assert_trees_close

X = np.array([0.5, -1.25, 2.0], dtype=np.float64)
T_X = np.array([0.3, 0.7, -1.1], dtype=np.float64)
T_Y = np.array([[0.2, -0.4, 0.1], [0.9, 0.3, -0.6]], dtype=np.float64)
Y = np.array([[1.0, 0.5, -0.5], [2.0, -1.0, 0.25]], dtype=np.float64)

# PyTorch's forward-mode transforms import torch.jit, which warns about its own deprecation,
# and its linearize traces the function with torch.fx, which warns about its own graph
pytestmark = [
    pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node:UserWarning"),
]


def _both(build, device="cpu"):
    """``build(T, tensor)`` for each framework, ``tensor`` making float64 tensors."""
    return (build(mt, lambda a: mt.tensor(a, dtype=mt.float64, device=device)),
            build(torch, lambda a: torch.tensor(a, dtype=torch.float64)))


def _net(T, x, y):
    return (y @ x).tanh() * (x * x).sum()


FUNCTIONS = {  # name: f(T, *primals) taking (X, Y)-shaped arguments
    "elementwise": lambda T, x, y: (x.sin() * x.exp()) / (1 + x * x),
    "matmul": _net,
    "reduction": lambda T, x, y: (y * x).sum(1).pow(3),
    "softmax_loss": lambda T, x, y: T.nn.functional.log_softmax(y * x, dim=1).mean(),
    "layout": lambda T, x, y: T.cat([x.flip(0), (y.t() @ y @ x)[1:]]).reshape(1, 5),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp_matches_torch(name, device):
    f = FUNCTIONS[name]
    ours, ref = _both(lambda T, t: T.func.jvp(lambda x, y: f(T, x, y), (t(X), t(Y)),
                                              (t(T_X), t(T_Y))), device)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)
    assert ours[1].device == tensor_device(device) and not ours[1].requires_grad



def test_jvp_is_the_directional_derivative():
    """Against central differences along the tangent (independent of PyTorch)."""
    x, t = mt.tensor(X), mt.tensor(T_X)
    y = mt.tensor(Y)
    _, product = mt.func.jvp(lambda a: _net(mt, a, y), (x,), (t,))
    eps = 1e-6
    up = _net(mt, mt.tensor(X + eps * T_X), y).numpy()
    down = _net(mt, mt.tensor(X - eps * T_X), y).numpy()
    np.testing.assert_allclose(product.numpy(), (up - down) / (2 * eps), rtol=1e-7)


def test_jvp_trees_aux_and_outputs_that_ignore_the_primals_match_torch():
    def build(T, t):
        def f(p, scale):
            out = {"a": p["w"] @ p["b"] * scale, "b": (p["b"].exp(), t(X))}
            return out, {"norm": p["w"].norm()}

        primals = ({"w": t(Y), "b": t(X)}, t(np.array(2.0)))
        tangents = ({"w": t(T_Y), "b": t(T_X)}, t(np.array(0.5)))
        return T.func.jvp(f, primals, tangents, has_aux=True)

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_jvp_casts_a_tangent_to_the_primals_dtype():
    ours, ref = _both(lambda T, t: T.func.jvp(T.sin, (t(X),), (t(T_X).float(),)))
    assert ours[1].dtype == mt.float64 and ref[1].dtype == torch.float64
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-7)


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1,)])
def test_jacfwd_matches_torch_and_jacrev(argnums, device):
    def build(T, t):
        f = lambda x, y: (_net(T, x, y), y.sum() * x)  # noqa: E731
        # PyTorch 2.13's jacfwd gives zeros for argnums=-1 (its jacrev does not): compare
        # with its argnums=1
        return T.func.jacfwd(f, argnums=1 if T is torch and argnums == -1 else argnums)(
            t(X), t(Y))

    ours, ref = _both(build, device)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)
    backward = mt.func.jacrev(lambda x, y: (_net(mt, x, y), y.sum() * x), argnums=argnums)(
        mt.tensor(X, device=device), mt.tensor(Y, device=device))
    assert_trees_close(as_numpy(ours), as_numpy(backward), rtol=1e-12)


def test_jacfwd_has_aux_kwargs_and_scalars_match_torch():
    def build(T, t):
        f = lambda x, scale: ((x.sin() * scale).sum(), x.cos())  # noqa: E731
        return (T.func.jacfwd(f, has_aux=True)(t(X), 3.0),
                T.func.jacfwd(T.sin)(t(np.array(1.0))),
                T.func.jacfwd(lambda x: x.sum())(t(np.zeros((0, 2)))))

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-12)


def test_jacfwd_of_jacrev_is_the_hessian():
    f = lambda t: (t.sin() * t.exp()).sum() * t.sum()  # noqa: E731
    ours = mt.func.jacfwd(mt.func.jacrev(f))(mt.tensor(X))
    theirs = torch.func.hessian(f)(torch.tensor(X))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    twice = mt.func.jacfwd(mt.func.jacfwd(f))(mt.tensor(X))
    np.testing.assert_allclose(twice.numpy(), theirs.numpy(), rtol=1e-12)


def test_jacfwd_randomness_modes_match_torch():
    x = mt.tensor(X)
    with pytest.raises(RuntimeError, match="called random operation while in randomness "
                                           "error mode"):
        mt.func.jacfwd(lambda a: a + mt.randn(3))(x)
    for mode in ("same", "different"):
        jac = mt.func.jacfwd(lambda a: a * mt.rand(3), randomness=mode)(x)
        assert tuple(jac.shape) == (3, 3) and bool((jac.diagonal() > 0).all())
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        mt.func.jacfwd(mt.sin, randomness="sometimes")


def test_linearize_matches_torch_for_several_tangents():
    tangents = [T_X, -2 * T_X, np.zeros(3)]

    def build(T, t):
        output, jvp_fn = T.func.linearize(lambda x: _net(T, x, t(Y)), t(X))
        return output, [jvp_fn(t(v)) for v in tangents]

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_jvp_nested_in_grad_matches_torch():
    """The product is differentiable in the primal (forward-over-reverse's sibling)."""
    def build(T, t):
        tangent = t(T_X)
        return T.func.grad(lambda x: T.func.jvp(lambda a: (a.sin() * a).sum() * a,
                                                (x,), (tangent,))[1].sum())(t(X))

    ours, ref = _both(build)
    assert_trees_close(as_numpy(ours), as_numpy(ref), rtol=1e-10)


def test_a_tangent_that_requires_grad_gives_a_differentiable_product():
    for lib in (mt, torch):
        x = lib.tensor(X)
        t = lib.tensor(T_X, requires_grad=True)
        _, product = lib.func.jvp(lambda a: a.exp() * a, (x,), (t,))
        assert product.requires_grad
        (by_t,) = lib.autograd.grad((product * product).sum(), t)
        np.testing.assert_allclose(by_t.numpy(), 2 * T_X * ((1 + X) * np.exp(X)) ** 2,
                                   rtol=1e-12)


def test_forward_transforms_on_meta_give_shapes():
    x = mt.empty(4, 3, device="meta")
    w = mt.empty(5, 3, device="meta")
    out, product = mt.func.jvp(lambda a: (a @ w.t()).relu(), (x,), (mt.empty(4, 3,
                                                                             device="meta"),))
    assert tuple(out.shape) == tuple(product.shape) == (4, 5)
    assert product.device.type == "meta"
    jac = mt.func.jacfwd(lambda a: (a @ w.t()).sum(0))(x)
    assert tuple(jac.shape) == (5, 4, 3) and jac.device.type == "meta"


def test_an_op_without_a_second_order_formula_names_forward_mode():
    x = mt.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=mt.float64)

    class Square(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @mt.autograd.function.once_differentiable
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return grad * 2 * a

    with pytest.raises(RuntimeError, match="once_differentiable"):
        mt.func.jvp(Square.apply, (x,), (x,))


def _errors(call_ours, call_theirs):
    with pytest.raises(Exception) as theirs:
        call_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        call_ours()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda T, x: T.func.jvp(T.sin, x, (x,)),
    lambda T, x: T.func.jvp(T.sin, (x,), (x[:2],)),
    lambda T, x: T.func.jvp(lambda a: 3, (x,), (x,)),
    lambda T, x: T.func.jvp(T.sin, (), ()),
    lambda T, x: T.func.jvp(lambda a: a, (x,), (x,), has_aux=True),
    lambda T, x: T.func.jvp(lambda a: (a, 2), (x,), (x,), has_aux=True),
    lambda T, x: T.func.jvp(T.sin, (T.arange(3),), (T.arange(3),)),
    lambda T, x: T.func.jacfwd(T.sin, argnums=2)(x),
    lambda T, x: T.func.jacfwd(T.sin, argnums=(0, 0))(x),
    lambda T, x: T.func.linearize(T.sin, x)[1](x[:2]),
])
def test_errors_match_torch(call):
    _errors(lambda: call(mt, mt.tensor(X)), lambda: call(torch, torch.tensor(X)))


def test_jvp_structure_errors_say_what_was_expected():
    x = mt.tensor(X)
    for tangents in (x, (x, x)):  # PyTorch's words, with our pytree's spelling of structures
        with pytest.raises(RuntimeError, match=r"Expected primals and tangents to have the "
                                               r"same python structure. .* Got primals with "
                                               r"structure \(\*,\) and tangents with"):
            mt.func.jvp(mt.sin, (x,), tangents)
    with pytest.raises(RuntimeError, match="expected the tangents to have the structure of "
                                           "the primals"):
        mt.func.linearize(mt.sin, x)[1](x, x)
