"""What the second-order gradient tests share: the gradients made with ``create_graph`` and
the gradient of their squared sum (compared with PyTorch's by each test file), seeded
inputs per case, and a Hessian-vector product checked against central differences of the
first-order gradient (independent of PyTorch)."""

from __future__ import annotations

import numpy as np

import minitorch_meta as mt


def assert_hvp_matches_finite_differences(fn, arrays, directions, atol: float = 1e-6,
                                          eps: float = 1e-6) -> None:
    """``d/dx <grad f(x), v>`` (double backward) against
    ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``; ``fn(lib, device, *inputs)``."""
    def gradient(values):
        xs = [mt.tensor(a, requires_grad=True) for a in values]
        return [g.numpy() for g in mt.autograd.grad(fn(mt, "cpu", *xs), xs)]

    xs = [mt.tensor(a, requires_grad=True) for a in arrays]
    grads = mt.autograd.grad(fn(mt, "cpu", *xs), xs, create_graph=True)
    inner = sum((g * mt.tensor(v)).sum() for g, v in zip(grads, directions))
    hvp = [h.numpy() for h in mt.autograd.grad(inner, xs)]
    plus = gradient([a + eps * v for a, v in zip(arrays, directions)])
    minus = gradient([a - eps * v for a, v in zip(arrays, directions)])
    for h, p, m in zip(hvp, plus, minus):
        np.testing.assert_allclose(h, (p - m) / (2 * eps), rtol=1e-5, atol=atol)


def gradients_and_their_gradient(lib, device, fn, arrays) -> tuple:
    """The gradients of ``fn(lib, device, *inputs)`` (made with ``create_graph``) and the
    gradient of their squared sum, as NumPy arrays; ``lib`` is minitorch_meta or torch."""
    kwargs = {"device": device} if lib is mt else {}
    xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
    grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs)
    return [g.detach().cpu().numpy() for g in grads], [h.cpu().numpy() for h in second]


def seeded_arrays(name: str, shapes) -> list:
    """Standard normal float64 inputs of ``shapes``, seeded by the case's name."""
    rng = np.random.default_rng(sum(map(ord, name)))
    return [rng.standard_normal(shape) for shape in shapes]


def assert_graph_and_array_gradients_agree(fn, arrays, rtol: float, atol: float) -> None:
    """The first-order gradients of ``fn(mt, "cpu", *inputs)`` are the same made by the
    graph formulas (``create_graph=True``) and by the array ones."""
    results = []
    for create_graph in (False, True):
        xs = [mt.tensor(a, requires_grad=True) for a in arrays]
        grads = mt.autograd.grad(fn(mt, "cpu", *xs), xs, create_graph=create_graph)
        results.append([g.detach().numpy() for g in grads])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def assert_second_order_equal_pytorchs(fn, arrays, device, rtol: float = 1e-9,
                                       atol: float = 1e-10) -> None:
    """Our gradients (made with ``create_graph``) and the gradient of their squared sum,
    on ``device``, against PyTorch's on the CPU."""
    import torch

    ours = gradients_and_their_gradient(mt, device, fn, arrays)
    theirs = gradients_and_their_gradient(torch, None, fn, arrays)
    for our_list, their_list in zip(ours, theirs):
        for a, b in zip(our_list, their_list):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def functional(lib):
    """``lib.nn.functional`` of the framework a case runs in (minitorch_meta or torch)."""
    return lib.nn.functional


def constant_on(lib, device, values, dtype=None):
    """A constant tensor (a target, a weight) on the case's device, in ``lib``."""
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, dtype=dtype or lib.float64, **kwargs)


class ScaledWithoutGraphFormula:
    """``Scaled(x) = 2 x``: an op with an array ``backward`` and no ``backward_graph``, for
    the tests of what happens to such ops under ``create_graph`` (every op of the library
    that PyTorch differentiates twice may gain a formula, so the tests bring their own)."""

    @staticmethod
    def apply(x):
        from minitorch_meta.ops.function import Function

        class Scaled(Function):
            op_name, backward_name = "scaled_for_test", "ScaledBackward0"

            def infer(self, x):
                return tuple(x._data.shape), x._dtype

            def forward(self, backend, x):
                return backend.binary("mul", x, x.dtype.type(2))

            def backward(self, backend, gy):
                return (backend.binary("mul", gy, gy.dtype.type(2)),)

        return Scaled()(x)
