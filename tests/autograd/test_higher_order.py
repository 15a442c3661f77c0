"""Gradients of gradients (``create_graph=True``): values against PyTorch and against finite
differences of the first-order gradient, ``.grad`` accumulation, meta shapes, and the clear
error of an op whose backward has no recorded form."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import (
    ScaledWithoutGraphFormula,
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
    seeded_arrays,
)
from tests.devices import tensor_device


def _functional(lib):
    return lib.nn.functional


def _targets(lib, device):
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor([0, 2, 1], **kwargs)


def _ones(lib, device, *shape):
    kwargs = {"device": device} if lib is mt else {}
    return lib.ones(*shape, dtype=lib.float64, **kwargs)


# name -> (f(lib, device, *inputs) -> scalar, input shapes). Each exercises a family of
# graph formulas (``backward_graph``) twice: the gradient, and the gradient of its square.
CASES = {
    "linear_tanh_cross_entropy": (
        lambda L, d, x, w, b: _functional(L).cross_entropy(
            L.tanh(_functional(L).linear(x, w, b)), _targets(L, d)),
        [(3, 4), (5, 4), (5,)]),
    "mse_of_matmul": (
        lambda L, d, x, w: _functional(L).mse_loss(x @ w.t(), _ones(L, d, 3, 2)),
        [(3, 4), (2, 4)]),
    "mse_sum_against_input": (
        lambda L, d, x, y: _functional(L).mse_loss(x.sin(), y, reduction="sum"),
        [(3, 4), (3, 4)]),
    "softmax": (lambda L, d, x: (_functional(L).softmax(x, 1) ** 2).sum(), [(3, 4)]),
    "indexing": (lambda L, d, x: (x[1:, ::2] ** 3).sum() + x[[0, 1, 1]].exp().sum()
                 + (x[1] ** 3).sum(), [(3, 4)]),
    "reductions_and_views": (
        lambda L, d, x: (x.mean(1) ** 2).sum() + x.sum(0).sin().sum()
        + x.t().reshape(12).cos().sum() + (x.mean() ** 3), [(3, 4)]),
    "cat": (lambda L, d, x, y: (L.cat([x, y * 2], 0) ** 3).sum(), [(3, 4), (2, 4)]),
    "maximum_clamp_where": (
        lambda L, d, x, y: (L.maximum(x, y) ** 2).sum() + (L.minimum(x, y) ** 3).sum()
        + (x.clamp(-0.5, 0.5) ** 3).sum() + (L.where(x > 0, x, y) ** 3).sum(),
        [(3, 4), (3, 4)]),
    "division_and_powers": (
        lambda L, d, x, y: (x / (y * y + 1)).sum() + ((x * x + 1) ** y).sum()
        + (2 ** x).sum() + (1 / (y * y + 1)).sum() + (x ** 3 - 2 * x).sum()
        + (3 - x * y).pow(2).sum(), [(3, 4), (3, 4)]),
    "matrix_products": (
        lambda L, d, a, b, v, m: ((a @ b) ** 2).sum() + ((a @ v) ** 3).sum() + (v @ v) ** 2
        + (L.mv(m, v) ** 2).sum() + (L.mm(m.t(), m) ** 2).sum()
        + (L.addmm(v, m, m.t().mm(m), alpha=0.5, beta=2) ** 2).sum(),
        [(2, 3, 4), (4, 5), (4,), (3, 4)]),
    "unary": (
        lambda L, d, x: (x.abs() * x.relu() + _functional(L).leaky_relu(x, 0.1) ** 3
                         + L.sigmoid(x) * x.exp() + (x * x + 1).sqrt() + (x * x + 1).log()
                         + (x * x).log1p() + x.expm1() + (x * x + 1).rsqrt()
                         + (x * x + 1).reciprocal() + x.sin() * x.cos() - x.neg() ** 3
                         + (x * x + 1).log2() + (x * x + 1).log10()).sum(), [(3, 4)]),
    "expand_and_squeeze": (
        lambda L, d, x: (x.unsqueeze(0).expand(2, 3, 4) ** 3).sum()
        + (x.view(3, 1, 4).squeeze(1) ** 3).sum() + (x.permute(1, 0) ** 3).sum()
        + (x.transpose(0, 1).flatten() ** 3).sum() + (x.clone() ** 3).sum(), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    fn, shapes = CASES[name]
    arrays = seeded_arrays(name, shapes)
    assert_second_order_equal_pytorchs(fn, arrays, device)


@pytest.mark.parametrize("name", ["linear_tanh_cross_entropy", "division_and_powers",
                                  "unary", "indexing"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch."""
    fn, shapes = CASES[name]
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    directions = [rng.standard_normal(shape) for shape in shapes]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-6)


def test_third_order_derivative():
    x = mt.tensor([1.5, -2.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad((x ** 4).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x, create_graph=True)
    (k,) = mt.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), 4 * x.detach().numpy() ** 3)
    np.testing.assert_allclose(h.detach().numpy(), 12 * x.detach().numpy() ** 2)
    np.testing.assert_allclose(k.numpy(), 24 * x.detach().numpy())


def test_gradient_penalty_trains_through_the_gradient(device):
    """The WGAN-GP pattern: a loss built from a gradient's norm, backpropagated into the
    weights."""
    def penalty(lib, w_array, x_array):
        kwargs = {"device": device} if lib is mt else {}
        w = lib.tensor(w_array, requires_grad=True, **kwargs)
        x = lib.tensor(x_array, requires_grad=True, **kwargs)
        score = lib.tanh(x @ w.t()).sum()
        (gx,) = lib.autograd.grad(score, x, create_graph=True)
        loss = ((gx.pow(2).sum(1) + 1e-12).sqrt() - 1).pow(2).mean()
        loss.backward()
        return loss.item(), w.grad.cpu().numpy()

    rng = np.random.default_rng(3)
    w_array, x_array = rng.standard_normal((2, 3)), rng.standard_normal((4, 3))
    ours, theirs = penalty(mt, w_array, x_array), penalty(torch, w_array, x_array)
    assert ours[0] == pytest.approx(theirs[0], rel=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)


def test_backward_create_graph_keeps_a_graph_in_grad_and_warns():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    for a in (x, t):
        with pytest.warns(UserWarning, match="reference cycle between the parameter and its "
                                             "gradient"):
            (a ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy())
    # a second backward adds out of place, keeping the graph of both
    with pytest.warns(UserWarning):
        (x ** 3).sum().backward(create_graph=True)
    (second,) = mt.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(second.numpy(), 2 * 6 * x.detach().numpy())
    assert x.grad.grad_fn.name() == "AddBackward0"


def test_create_graph_retains_the_graph_by_default():
    x = mt.tensor(3.0, requires_grad=True)
    y = x * x
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (again,) = mt.autograd.grad(y, x)  # the graph was kept
    assert g.item() == again.item() == 6.0


def test_a_constant_gradient_has_no_graph():
    """As in PyTorch, ``d sum(x) / dx`` is ones with no ``grad_fn``: nothing depends on x."""
    x = mt.ones(3, requires_grad=True)
    (g,) = mt.autograd.grad(x.sum(), x, create_graph=True)
    assert g.grad_fn is None and not g.requires_grad


def test_grad_outputs_that_require_grad_are_differentiable():
    """The double-vjp trick of a Jacobian-vector product: differentiate ``J^T u`` by ``u``."""
    x = mt.tensor([0.5, -1.0, 2.0], dtype=mt.float64, requires_grad=True)
    u = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    (vjp,) = mt.autograd.grad(x.sin() * x, x, grad_outputs=u, create_graph=True)
    v = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64)
    (jvp,) = mt.autograd.grad(vjp, u, grad_outputs=v)
    xs = x.detach().numpy()
    np.testing.assert_allclose(jvp.numpy(), (np.cos(xs) * xs + np.sin(xs)) * v.numpy())


def test_an_op_without_a_graph_formula_is_differentiable_once_then_raises():
    x = mt.randn(2, 5, dtype=mt.float64, requires_grad=True)
    w = mt.randn(2, 5, dtype=mt.float64, requires_grad=True)
    y = (ScaledWithoutGraphFormula.apply(x * w) ** 2).sum()
    gx, gw = mt.autograd.grad(y, [x, w], create_graph=True)
    plain = mt.autograd.grad((ScaledWithoutGraphFormula.apply(x * w) ** 2).sum(), [x, w])
    np.testing.assert_allclose(gx.detach().numpy(), plain[0].numpy())  # right values
    np.testing.assert_allclose(gx.detach().numpy(), (8 * x * w * w).detach().numpy())
    # PyTorch's naming: ConvolutionBackward0 gives ConvolutionBackwardBackward0
    assert gx.grad_fn.next_functions[0][0].name() == "ScaledBackwardBackward0"
    with pytest.raises(NotImplementedError, match="the derivative of ScaledBackward0"):
        (gx.sum() + gw.sum()).backward()


def test_a_subclass_with_another_gradient_does_not_inherit_the_graph_formula():
    """A subclass of ``maximum`` with another first-order rule must not be served by the
    graph formula written for ``maximum`` (it is differentiable once instead); ``fmax``,
    such a subclass, has a graph formula of its own."""
    from minitorch_meta.ops import graph_backward
    from minitorch_meta.ops.elementwise import Maximum
    from minitorch_meta.ops.float_parts import Fmax

    class OtherGradient(Maximum):
        def grads(self, backend, gy):
            return gy, gy

    assert graph_backward.formula_applies(Maximum)
    assert not graph_backward.formula_applies(OtherGradient)
    assert graph_backward.formula_applies(Fmax)


def test_on_meta_second_order_gradients_have_the_inputs_shapes():
    x = mt.empty(8, 4, device="meta", requires_grad=True)
    w = mt.empty(5, 4, device="meta", requires_grad=True)
    (gx,) = mt.autograd.grad((mt.tanh(x @ w.t()) ** 2).sum(), x, create_graph=True)
    assert gx.shape == (8, 4) and gx.requires_grad
    gw, gx2 = mt.autograd.grad((gx ** 2).sum(), [w, x])
    assert (gw.shape, gx2.shape) == ((5, 4), (8, 4))
    assert tensor_device("meta") == gw.device


def _cube_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad  # differentiable tensor ops: a double backward for free

    return Cube


def test_a_custom_function_backward_is_differentiated_as_written():
    results = []
    for lib in (mt, torch):
        x = lib.tensor([0.5, -2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(_cube_function(lib).apply(x).sin().sum(), x,
                                 create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_once_differentiable_refuses_a_second_derivative_with_pytorchs_message():
    from minitorch_meta.autograd.function import once_differentiable

    messages = []
    for lib, decorator in ((mt, once_differentiable),
                           (torch, torch.autograd.function.once_differentiable)):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @decorator
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x = lib.tensor([1.0, 3.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), [2.0, 6.0])  # first order is right
        assert not g.requires_grad  # as in PyTorch: the output gradient needs none
        u = lib.ones(2, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(Square.apply(x), x, grad_outputs=u, create_graph=True)
        with pytest.raises(RuntimeError) as error:
            g.sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert "@once_differentiable" in messages[0]
