"""torch.autograd.functional.jacobian and vjp: values and output structure as PyTorch's."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch
from torch.autograd import functional as TF

import minitorch_meta as mt
from minitorch_meta.autograd import functional as F

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B = np.array([0.3, -0.6])


def _pair(device, *arrays):
    ours = tuple(mt.tensor(a, dtype=mt.float64, device=device) for a in arrays)
    theirs = tuple(torch.tensor(a, dtype=torch.float64) for a in arrays)
    return ours, theirs


def _same(ours, theirs):
    """Same nesting (tuples), shapes, dtypes and values."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert isinstance(ours, mt.Tensor) and not isinstance(ours, tuple)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.requires_grad is theirs.requires_grad
    np.testing.assert_allclose(ours.cpu().detach().numpy(), theirs.detach().numpy(),
                               rtol=1e-12, atol=1e-12)


CASES = [  # (func, inputs as indices into (A, B), tuple inputs?)
    (lambda fw: (lambda a: a.sin() * 2), (0,), False),
    (lambda fw: (lambda a: (a.exp(), a.sum(0))), (0,), False),
    (lambda fw: (lambda a, b: (a * b[:, None]).sum()), (0, 1), True),
    (lambda fw: (lambda a, b: (a.T @ b, b.pow(2))), (0, 1), True),
    (lambda fw: (lambda a: (a.tanh(),)), (0,), False),
    (lambda fw: (lambda a: (a.sum(),)), (0,), True),
    (lambda fw: (lambda a, b: a.sum() * 2), (0, 1), True),  # b unused: zeros
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jacobian_matches_torch(device, case):
    make, picks, as_tuple = CASES[case]
    ours, theirs = _pair(device, *[(A, B)[k] for k in picks])
    if not as_tuple:
        ours, theirs = ours[0], theirs[0]
    expected = TF.jacobian(make(torch), theirs)
    _same(F.jacobian(make(mt), ours), expected)
    _same(F.jacobian(make(mt), ours, vectorize=True), expected)
    assert mt.autograd.functional.jacobian is F.jacobian


@pytest.mark.parametrize("case", range(len(CASES)))
def test_vjp_matches_torch(device, case):
    make, picks, as_tuple = CASES[case]
    ours, theirs = _pair(device, *[(A, B)[k] for k in picks])
    if not as_tuple:
        ours, theirs = ours[0], theirs[0]
    out = make(torch)(*(theirs if as_tuple else (theirs,)))
    outs = out if isinstance(out, tuple) else (out,)
    rng = np.random.default_rng(case)
    vs = [rng.standard_normal(tuple(o.shape)) for o in outs]
    tv = tuple(torch.tensor(v) for v in vs)
    v = tuple(mt.tensor(x, dtype=mt.float64, device=device) for x in vs)
    if not isinstance(out, tuple):
        tv, v = tv[0], v[0]
    _same(F.vjp(make(mt), ours, v), TF.vjp(make(torch), theirs, tv))


def test_vjp_without_v_for_one_element(device):
    (x,), (tx,) = _pair(device, A)
    _same(F.vjp(lambda a: a.pow(2).sum(), x), TF.vjp(lambda a: a.pow(2).sum(), tx))


def test_inputs_are_not_touched_and_results_are_detached(device):
    x = mt.tensor(A, dtype=mt.float64, device=device, requires_grad=True)
    jac = F.jacobian(lambda a: a * 3, x)
    out, grad = F.vjp(lambda a: a * 3, x, mt.ones_like(x))
    assert x.grad is None and not jac.requires_grad
    assert not out.requires_grad and out.grad_fn is None and not grad.requires_grad


def test_empty_output_and_zero_dim(device):
    (x,), (tx,) = _pair(device, A)
    # PyTorch fails here ("stack expects a non-empty TensorList"); ours is empty
    with pytest.raises(RuntimeError, match="non-empty TensorList"):
        TF.jacobian(lambda a: a[:0], tx)
    empty = F.jacobian(lambda a: a[:0], x)
    assert tuple(empty.shape) == (0, 3, 2, 3) and empty.dtype == mt.float64
    (s,), (ts,) = _pair(device, np.array(0.7))
    _same(F.jacobian(lambda a: a.sin(), s), TF.jacobian(lambda a: a.sin(), ts))
    _same(F.jacobian(lambda a: a * s, x), TF.jacobian(lambda a: a * ts, tx))


def _errors(call_ours, call_theirs):
    with pytest.raises(Exception) as theirs:
        call_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        call_ours()
    assert str(ours.value) == str(theirs.value)


def test_errors_match_torch(device):
    (x, y), (tx, ty) = _pair(device, A, B)
    cases = [
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t * 2, 3)),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t * 2, [a])),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t * 2, (a, 3))),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: 3, a)),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: [t], a)),
        (lambda ns, fw, a, b: ns.jacobian(lambda t, u: t.sum(), (a, b), strict=True)),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t.detach() * 2, a, strict=True)),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t * 2, a, strategy="sideways")),
        (lambda ns, fw, a, b: ns.jacobian(lambda t: t * 2, a, strategy="forward-mode")),
        (lambda ns, fw, a, b: ns.vjp(lambda t: t * 2, a)),
        (lambda ns, fw, a, b: ns.vjp(lambda t: t * 2, a, b)),
        (lambda ns, fw, a, b: ns.vjp(lambda t: (t * 2, t), a, (a,))),
        (lambda ns, fw, a, b: ns.vjp(lambda t: (t * 2, t), a, (a, b))),
        (lambda ns, fw, a, b: ns.vjp(lambda t: t.sum(), a, 3)),
        (lambda ns, fw, a, b: ns.vjp(lambda t, u: t.sum(), (a, b), strict=True)),
        (lambda ns, fw, a, b: ns.vjp(lambda t: t.detach().sum(), a, strict=True)),
    ]
    for case in cases:
        _errors(lambda c=case: c(F, mt, x, y), lambda c=case: c(TF, torch, tx, ty))


def test_double_backward_tools_are_refused(device):
    (x,), _ = _pair(device, B)
    f = lambda a: a.pow(3).sum()  # noqa: E731
    for call in (lambda: F.hessian(f, x), lambda: F.hvp(f, x, x), lambda: F.vhp(f, x, x),
                 lambda: F.jvp(lambda a: a * 2, x, x),
                 lambda: F.jacobian(f, x, create_graph=True),
                 lambda: F.vjp(f, x, create_graph=True),
                 lambda: F.jacobian(f, x, vectorize=True, strategy="forward-mode")):
        with pytest.raises(NotImplementedError, match="not supported by minitorch_meta"):
            call()


def test_signatures_match_torch():
    for name in ("jacobian", "vjp", "jvp", "hessian", "hvp", "vhp"):
        ours = inspect.signature(getattr(F, name)).parameters.values()
        theirs = inspect.signature(getattr(TF, name)).parameters.values()
        assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]
