"""``torch.autograd.forward_ad``: dual tensors' tangents against PyTorch's forward mode
and against finite differences, through ops, layers, no_grad, in-place writes and reverse
mode, on every device; and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_fwad

import minitorch_meta as mt
import minitorch_meta.autograd.forward_ad as fwad
from tests.autograd.second_order import ScaledWithoutGraphFormula
from tests.devices import tensor_device

RNG = np.random.default_rng(19)
X = RNG.standard_normal((2, 3, 6, 6))
T = RNG.standard_normal((2, 3, 6, 6))
V = RNG.standard_normal(5)
T_V = RNG.standard_normal(5)

# PyTorch's forward-mode formulas for some ops import torch.jit, which warns about itself
pytestmark = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _conv_net(T, x):
    f = T.nn.functional
    weight = T.tensor(np.linspace(-1, 1, 4 * 3 * 3 * 3).reshape(4, 3, 3, 3),
                      dtype=T.float64, device=x.device)
    hidden = f.max_pool2d(f.relu(f.conv2d(x, weight, padding=1)), 2)
    return f.mse_loss(hidden.flatten(1) @ hidden.flatten(1).t(), T.ones(2, 2, dtype=T.float64,
                                                                       device=x.device))


FUNCTIONS = {  # name: (f(T, x), primal, tangent)
    "elementwise": (lambda T, x: (x.sin() * x.exp()) / (1 + x * x), V, T_V),
    "reductions": (lambda T, x: T.stack([x.sum(), x.max(), x.norm(), x.prod()]), V, T_V),
    "softmax": (lambda T, x: T.nn.functional.log_softmax(x.reshape(1, 5), dim=1), V, T_V),
    "layout": (lambda T, x: T.cat([x.flip(0)[1:], x[:2] * x[3:]]).reshape(2, 3).t(), V, T_V),
    "selection": (lambda T, x: T.where(x > 0, x, x * x).sort().values.cumsum(0), V, T_V),
    "conv_net": (_conv_net, X, T),
}


def _jvp(T, ad, f, primal, tangent, device="cpu"):
    """``f``'s output and its tangent through ``T``'s dual tensors, as NumPy arrays."""
    x = T.tensor(primal, dtype=T.float64, device=device)
    t = T.tensor(tangent, dtype=T.float64, device=device)
    with ad.dual_level():
        out, out_tangent = ad.unpack_dual(f(T, ad.make_dual(x, t)))
        return out.detach().cpu().numpy(), out_tangent.cpu().numpy()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tangents_match_torch(name, device):
    f, primal, tangent = FUNCTIONS[name]
    ours = _jvp(mt, fwad, f, primal, tangent, device)
    ref = _jvp(torch, torch_fwad, f, primal, tangent)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-10, atol=1e-12)


def test_tangent_is_the_directional_derivative():
    """Against central differences along the tangent (independent of PyTorch)."""
    f = FUNCTIONS["conv_net"][0]
    _, product = _jvp(mt, fwad, f, X, T)
    eps = 1e-6

    def value(a):
        return f(mt, mt.tensor(a, dtype=mt.float64)).numpy()

    np.testing.assert_allclose(product, (value(X + eps * T) - value(X - eps * T)) / (2 * eps),
                               rtol=1e-6)


def test_a_layer_with_parameters_and_several_dual_inputs():
    """Tangents add up over dual inputs; the layer's parameters (no tangent) take part."""
    def run(T, ad):
        T.manual_seed(0) if T is mt else None
        layer = T.nn.Linear(5, 2).double()
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.arange(10.0).reshape(2, 5) / 10))
            layer.bias.fill_(0.5)
        with ad.dual_level():
            a = ad.make_dual(T.tensor(V).reshape(1, 5), T.tensor(T_V).reshape(1, 5))
            b = ad.make_dual(T.tensor(T_V).reshape(1, 5), T.ones(1, 5, dtype=T.float64))
            out = ad.unpack_dual(layer(a * b).tanh())
            return out.primal.detach().numpy(), out.tangent.detach().numpy()

    ours, ref = run(mt, fwad), run(torch, torch_fwad)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-12)


def test_what_carries_a_tangent(device):
    """As PyTorch: ops under no_grad do; detach, integer results, a max's indices and ops
    on tensors without tangents do not; make_dual's result is a view that requires grad
    only if the primal does."""
    x = mt.tensor(V, device=device)
    t = mt.tensor(T_V, device=device)
    with fwad.dual_level():
        dual = fwad.make_dual(x, t)
        assert not dual.requires_grad and dual.device == tensor_device(device)
        assert fwad.unpack_dual(dual).tangent is t  # the given tangent itself, as PyTorch
        with mt.no_grad():
            np.testing.assert_allclose(fwad.unpack_dual(dual.exp()).tangent.cpu().numpy(),
                                       np.exp(V) * T_V)
        assert fwad.unpack_dual(dual.detach()).tangent is None
        assert fwad.unpack_dual(dual.argmax()).tangent is None
        assert fwad.unpack_dual(dual > 0).tangent is None
        values, indices = dual.reshape(1, 5).max(dim=1)
        assert fwad.unpack_dual(indices).tangent is None
        assert fwad.unpack_dual(values).tangent.item() == pytest.approx(T_V[np.argmax(V)])
        assert fwad.unpack_dual(x.sin()).tangent is None
        primal, tangent = fwad.unpack_dual(dual)
        assert tangent is t and fwad.unpack_dual(primal).tangent is None
        np.testing.assert_array_equal(primal.cpu().numpy(), V)
    assert fwad.unpack_dual(dual) == (dual, None)  # the level's tangents are gone


def test_tangents_are_differentiable_in_reverse_mode():
    """Reverse over forward: the gradient of a tangent, as PyTorch's."""
    def run(T, ad):
        x = T.tensor(V, requires_grad=True)
        with ad.dual_level():
            dual = ad.make_dual(x, T.tensor(T_V))
            assert dual.requires_grad
            tangent = ad.unpack_dual((dual.sin() * dual).sum()).tangent
            assert tangent.requires_grad
            (gradient,) = T.autograd.grad(tangent, x, retain_graph=True)
        return tangent.detach().numpy(), gradient.numpy()

    ours, ref = run(mt, fwad), run(torch, torch_fwad)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-12)


@pytest.mark.parametrize("write", ["mul_", "copy_broadcast", "setitem", "zero_", "add_plain"])
def test_in_place_writes_carry_tangents_as_torch(write, device):
    def run(T, ad, device):
        with ad.dual_level():
            dual = ad.make_dual(T.tensor(V, device=device),
                                T.tensor(T_V, device=device))
            with T.no_grad():
                if write == "mul_":
                    target = dual.clone()
                    target.mul_(dual)
                elif write == "copy_broadcast":
                    target = T.zeros(2, 5, dtype=T.float64, device=device)
                    target.copy_(dual)
                elif write == "setitem":
                    target = T.ones(3, dtype=T.float64, device=device)
                    target[1] = dual[2]
                elif write == "zero_":
                    target = dual.clone()
                    target.zero_()
                else:  # a dual tensor plus a constant, written into a plain tensor
                    target = T.ones(5, dtype=T.float64, device=device)
                    target.add_(dual)
            return ad.unpack_dual(target).tangent.cpu().numpy()

    np.testing.assert_allclose(run(mt, fwad, device), run(torch, torch_fwad, "cpu"), rtol=1e-12)


def test_a_write_into_a_view_of_a_dual_tensor_makes_its_tangent_unknown():
    """PyTorch updates the base's tangent; minitorch_meta refuses to give a stale one."""
    with fwad.dual_level():
        base = fwad.make_dual(mt.tensor(V), mt.tensor(T_V)).clone()
        view = base[:2]
        with mt.no_grad():
            view.mul_(2.0)
        np.testing.assert_allclose(fwad.unpack_dual(view).tangent.numpy(), 2 * T_V[:2])
        with pytest.raises(NotImplementedError, match="in-place write went into a tensor "
                                                      "sharing its memory"):
            fwad.unpack_dual(base)
        with pytest.raises(NotImplementedError, match="sharing its memory"):
            base + 1


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_tangent_of_a_gradient_raises_instead_of_misleading(create_graph):
    with fwad.dual_level():
        x = mt.tensor(V, requires_grad=True)
        dual = fwad.make_dual(x, mt.tensor(T_V))
        (gradient,) = mt.autograd.grad((dual ** 3).sum(), x, create_graph=create_graph)
        np.testing.assert_allclose(gradient.detach().numpy(), 3 * V ** 2)
        with pytest.raises(NotImplementedError, match=r"torch.func.jvp\(torch.func.grad"):
            fwad.unpack_dual(gradient)
        with pytest.raises(NotImplementedError, match="forward-over-reverse"):
            gradient * dual
        (dual ** 2).sum().backward()  # again through make_dual's view, which saved nothing
        with pytest.raises(NotImplementedError, match="forward-over-reverse"):
            fwad.unpack_dual(x.grad)


def test_a_gradient_of_outputs_without_tangents_is_plain():
    with fwad.dual_level():
        x = mt.tensor(V, requires_grad=True)
        (gradient,) = mt.autograd.grad((x ** 2).sum(), x)
        assert fwad.unpack_dual(gradient).tangent is None


def test_an_op_without_a_second_order_formula_names_itself():
    with fwad.dual_level():
        dual = fwad.make_dual(mt.tensor(X[0, 0]), mt.tensor(T[0, 0]))
        with pytest.raises(NotImplementedError, match="forward-mode.*ScaledBackward0"):
            ScaledWithoutGraphFormula.apply(dual)


def test_meta_tensors_carry_tangents_of_the_right_shape():
    with fwad.dual_level():
        dual = fwad.make_dual(mt.empty(2, 3, 6, 6, device="meta"),
                              mt.empty(2, 3, 6, 6, device="meta"))
        out = mt.nn.functional.conv2d(dual, mt.empty(4, 3, 3, 3, device="meta"))
        tangent = fwad.unpack_dual(out).tangent
        assert tangent.is_meta and tuple(tangent.shape) == (2, 4, 4, 4)


def test_repr_shows_the_tangent_as_torch():
    def reprs(T, ad):
        with ad.dual_level():
            vector = ad.make_dual(T.tensor([1.0, 2.0], dtype=T.float64),
                                  T.tensor([0.5, 0.0], dtype=T.float64))
            scalar = ad.make_dual(T.tensor(2.0), T.tensor(1.0))
            return repr(vector), repr(scalar), repr(vector.detach())

    assert reprs(mt, fwad) == reprs(torch, torch_fwad)


def test_levels_functions_and_decorator():
    assert fwad.enter_dual_level() == torch_fwad.enter_dual_level() == 0
    torch_fwad.exit_dual_level()
    dual = fwad.make_dual(mt.tensor(V), mt.tensor(T_V), level=0)
    fwad.exit_dual_level(level=0)
    assert fwad.unpack_dual(dual).tangent is None

    @fwad.dual_level()
    def tangent_of_square(x, t):
        return fwad.unpack_dual(fwad.make_dual(x, t) ** 2).tangent

    np.testing.assert_allclose(tangent_of_square(mt.tensor(V), mt.tensor(T_V)).numpy(),
                               2 * V * T_V)
    assert fwad.current_level() is None
    assert fwad.UnpackedDualTensor._fields == torch_fwad.UnpackedDualTensor._fields
    assert mt.autograd.forward_ad is fwad


def test_errors_match_torch_types_and_say_what_to_do():
    x, t = mt.tensor(V), mt.tensor(T_V)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwad.make_dual(x, t)
    with pytest.raises(RuntimeError, match="no dual level is open"):
        fwad.exit_dual_level()
    assert fwad.unpack_dual(x) == (x, None)
    with fwad.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwad.enter_dual_level()
        with pytest.raises(RuntimeError, match=r"size \[5\] while the given forward gradient "
                                               r"is of size \[2\]"):
            fwad.make_dual(x, t[:2])
        with pytest.raises(ValueError, match="Expected primal to be floating point"):
            fwad.make_dual(mt.arange(5), t)
        with pytest.raises(ValueError, match="Expected tangent to be floating point"):
            fwad.make_dual(x, mt.arange(5))
        with pytest.raises(TypeError, match="tangent to be a Tensor, but got list"):
            fwad.make_dual(x, [1.0] * 5)
        with pytest.raises(RuntimeError, match="tangent is on 'meta' but the primal is on 'cpu'"):
            fwad.make_dual(x, mt.empty(5, device="meta"))
        dual = fwad.make_dual(x, t)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same "
                                               "level 0"):
            fwad.make_dual(dual, t)
        with pytest.raises(RuntimeError, match="invalid level 3"):
            fwad.make_dual(x, t, level=3)
    assert fwad.current_level() is None  # the with block closed the level after the errors


def test_a_partial_write_into_a_dual_tensor_keeps_the_rest_of_its_tangent():
    def run(T, ad):
        with ad.dual_level():
            target = ad.make_dual(T.tensor(V), T.tensor(T_V)).clone()
            with T.no_grad():
                target[1:3] = ad.make_dual(T.zeros(2, dtype=T.float64),
                                           T.tensor([10.0, 20.0], dtype=T.float64))
                target[4] = 7.0
            return ad.unpack_dual(target).tangent.numpy()

    np.testing.assert_allclose(run(mt, fwad), run(torch, torch_fwad), rtol=1e-12)
