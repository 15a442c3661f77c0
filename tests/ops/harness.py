"""One description per op case, checked three ways by every ``tests/ops/test_*.py``.

A ``Case`` says how to call the op (``fn(T, F, *inputs)`` where ``T`` is the library —
``minitorch_meta`` or ``torch`` — and ``F`` its ``nn.functional``) and what inputs to
make. ``check_gradients`` runs the float64 finite-difference gradcheck,
``check_against_torch`` compares float32 values and gradients with PyTorch, and
``check_meta`` compares meta output and gradient shapes with the real ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.gradcheck import gradcheck


@dataclass
class Arg:
    """One input: a shape and how to fill it.

    kind: ``normal``; ``positive`` (in [0.5, 2]); ``away0`` (|x| >= 0.2, for abs/relu kinks);
    ``distinct`` (well-separated values, for max and pooling); ``int:N`` (ints in [0, N));
    ``bool``; ``prob`` (rows summing to 1 over dim 1).
    """

    shape: tuple
    kind: str = "normal"
    grad: bool = True

    def make(self, rng):
        shape = self.shape
        if self.kind == "normal":
            return rng.standard_normal(shape)
        if self.kind == "positive":
            return rng.uniform(0.5, 2.0, shape)
        if self.kind == "away0":
            return rng.uniform(0.2, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        if self.kind == "distinct":
            n = int(np.prod(shape))
            return (rng.permutation(n) * 0.1 - n * 0.05).reshape(shape)
        if self.kind.startswith("int:"):
            return rng.integers(0, int(self.kind[4:]), shape).astype(np.int64)
        if self.kind == "bool":
            return rng.random(shape) < 0.5
        if self.kind == "prob":
            p = rng.uniform(0.1, 1.0, shape)
            return p / p.sum(axis=1, keepdims=True)
        raise ValueError(self.kind)

    @property
    def differentiable(self):
        return self.grad and not self.kind.startswith("int:") and self.kind != "bool"


@dataclass
class Case:
    id: str
    fn: object
    args: list = field(default_factory=list)
    #: gradcheck tolerance (float64 central differences)
    atol: float = 1e-5
    eps: float = 1e-6
    meta: bool = True

    def arrays(self, seed=0):
        rng = np.random.default_rng(seed)
        return [a.make(rng) for a in self.args]

    def __repr__(self):
        return self.id


def params(cases):
    return [pytest.param(c, id=c.id) for c in cases]


def first(out):
    return out[0] if isinstance(out, tuple) else out


def check_gradients(case, device):
    arrays = case.arrays()
    needs = [a.differentiable for a in case.args]
    if not any(needs):
        pytest.skip("no differentiable input")
    with mt.no_grad():
        probe = first(case.fn(mt, mF, *[mt.tensor(a) for a in arrays]))
    if not probe.is_floating_point():
        pytest.skip(f"the output is {probe.dtype}: nothing to differentiate")
    gradcheck(lambda *xs: case.fn(mt, mF, *xs), arrays, needs, atol=case.atol, eps=case.eps,
              device=device)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def check_against_torch(case, device, seed=0, rtol=1e-4, atol=1e-5, check_name=True):
    """float32 values and gradients equal PyTorch's; float32 stays float32."""
    torch = _torch()
    tF = torch.nn.functional
    arrays = case.arrays(seed)
    ours, theirs = [], []
    for a, arg in zip(arrays, case.args):
        if a.dtype == np.float64:
            a = a.astype(np.float32)
        grad = arg.differentiable
        ours.append(mt.tensor(a, device=device, requires_grad=grad))
        theirs.append(torch.tensor(a, requires_grad=grad))
    out = first(case.fn(mt, mF, *ours))
    ref = first(case.fn(torch, tF, *theirs))
    assert tuple(out.shape) == tuple(ref.shape)
    assert str(out.dtype) == str(ref.dtype), (out.dtype, ref.dtype)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=atol)
    if not ref.requires_grad:
        return
    assert out.grad_fn is not None
    if check_name:
        assert out.grad_fn.name() == ref.grad_fn.name()
    upstream = np.random.default_rng(seed + 1).standard_normal(tuple(ref.shape)).astype(
        np.float32)
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    for k, (o, r) in enumerate(zip(ours, theirs)):
        if r.grad is None:
            assert o.grad is None, f"input {k}: PyTorch gives no gradient, we do"
            continue
        assert o.grad is not None, f"input {k}: no gradient"
        assert o.grad.dtype is o.dtype, f"input {k}: gradient dtype {o.grad.dtype}"
        np.testing.assert_allclose(o.grad.cpu().numpy(), r.grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {k}")


def check_meta(case, device="cpu"):
    """On meta, the output's shape and dtype and each gradient's shape equal the real ones."""
    if not case.meta:
        pytest.skip("this case needs values (data-dependent output shape)")
    arrays = case.arrays()
    real = [mt.tensor(a.astype(np.float32) if a.dtype == np.float64 else a, device=device,
                      requires_grad=arg.differentiable) for a, arg in zip(arrays, case.args)]
    meta = [mt.empty(tuple(a.shape), dtype=r.dtype, device="meta",
                     requires_grad=arg.differentiable)
            for a, r, arg in zip(arrays, real, case.args)]
    out_real = case.fn(mt, mF, *real)
    out_meta = case.fn(mt, mF, *meta)
    for o_real, o_meta in zip(out_real if isinstance(out_real, tuple) else (out_real,),
                              out_meta if isinstance(out_meta, tuple) else (out_meta,)):
        assert o_meta.is_meta
        assert o_meta.shape == o_real.shape
        assert o_meta.dtype is o_real.dtype
    o_real, o_meta = first(out_real), first(out_meta)
    if o_real.grad_fn is None:
        return
    assert o_meta.grad_fn.name() == o_real.grad_fn.name()
    o_meta.backward(mt.ones(tuple(o_meta.shape), device="meta"))
    for m in meta:
        if m.requires_grad:
            assert m.grad is not None and m.grad.is_meta
            assert m.grad.shape == m.shape and m.grad.dtype is m.dtype


def check_same_error_on_cpu_and_meta(call, error, message, shape=(2, 3, 4)):
    """``call`` on a tensor of ``shape`` raises ``error`` with exactly ``message`` on cpu and
    on meta alike (the shape rule runs first on every backend)."""
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(*shape, device=device))
        assert str(info.value) == message, device


def three_way_tests(cases, seeds=(0, 1, 2), name_differs=(), rtol=1e-4, atol=1e-5):
    """The three checks over ``cases``, as test functions for a module to bind:

        test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

    ``name_differs`` lists case ids whose ``grad_fn`` name differs from PyTorch's by design
    (values and gradients are still compared).
    """

    @pytest.mark.parametrize("case", params(cases))
    def test_gradcheck(case, device):
        check_gradients(case, device)

    @pytest.mark.parametrize("case", params(cases))
    @pytest.mark.parametrize("seed", list(seeds))
    def test_against_torch(case, seed, device):
        check_against_torch(case, device, seed, rtol=rtol, atol=atol,
                            check_name=case.id not in name_differs)

    @pytest.mark.parametrize("case", params(cases))
    def test_meta_shapes(case):
        check_meta(case)

    return test_gradcheck, test_against_torch, test_meta_shapes
