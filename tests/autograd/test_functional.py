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


def _same(ours, theirs, requires_grad=None):
    """Same nesting (tuples, lists), shapes, dtypes and values, and the same
    ``requires_grad`` (or the one given)."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t, requires_grad)
        return
    assert isinstance(ours, mt.Tensor) and not isinstance(ours, tuple)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.requires_grad is (theirs.requires_grad if requires_grad is None
                                  else requires_grad)
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


SECOND_ORDER_CASES = [  # (name, func, inputs as indices into (A, B), v as indices or None)
    ("hessian", lambda x, y: ((x.sin() * x).sum() * (y ** 2).sum()).exp() * 0.01, (0, 1), None),
    ("hessian", lambda x: (x ** 3).sum(), 1, None),
    ("hvp", lambda x, y: ((x.sin() * x).sum() * (y ** 2).sum()).exp() * 0.01, (0, 1), (0, 1)),
    ("vhp", lambda x, y: ((x.sin() * x).sum() * (y ** 2).sum()).exp() * 0.01, (0, 1), (0, 1)),
    ("vhp", lambda x: (x ** 3).sum(), 1, 1),
    ("jvp", lambda x, y: (x * y.sum(), y.exp()), (0, 1), (0, 1)),
    ("jvp", lambda x: x.tanh() * 2, 0, 0),
    ("jacobian", lambda x, y: (x * y.sum(), y.exp()), (0, 1), None),
    ("vjp", lambda x: x.tanh() * 2, 0, 0),
]


def _pick(device, indices):
    """Tensors of (A, B) by index (one, or a tuple), ours and torch's."""
    if isinstance(indices, tuple):
        ours, theirs = _pair(device, *[(A, B)[i] for i in indices])
        return ours, theirs
    ours, theirs = _pair(device, (A, B)[indices])
    return ours[0], theirs[0]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", range(len(SECOND_ORDER_CASES)))
def test_second_order_tools_match_torch(case, create_graph, device):
    """Values, structure and requires_grad of hessian/hvp/vhp/jvp (and jacobian/vjp with
    create_graph) as PyTorch's."""
    name, func, inputs, v = SECOND_ORDER_CASES[case]
    ours, theirs = _pick(device, inputs)
    extra = () if v is None else (_pick(device, v),)
    our_call = getattr(F, name)(func, ours, *(e[0] for e in extra), create_graph=create_graph)
    their_call = getattr(TF, name)(func, theirs, *(e[1] for e in extra),
                                   create_graph=create_graph)
    _same(our_call, their_call)


def test_create_graph_results_differentiate_to_the_original_inputs():
    """With create_graph an input that requires grad stays joined: a Hessian entry can be
    differentiated once more (a third derivative)."""
    for lib, fw in ((mt, F), (torch, TF)):
        x = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        h = fw.hessian(lambda t: (t ** 4).sum(), x, create_graph=True)
        (third,) = lib.autograd.grad(h.sum(), x)
        np.testing.assert_allclose(third.numpy(), 24 * x.detach().numpy())


def test_second_order_errors_match_torch(device):
    (x, y), (tx, ty) = _pair(device, A, B)
    cases = [
        lambda ns, a, b: ns.hvp(lambda t: t, b),
        lambda ns, a, b: ns.hvp(lambda t: (t.sum(), t.sum()), b, b),
        lambda ns, a, b: ns.vhp(lambda t: t * 2, b, b),
        lambda ns, a, b: ns.jvp(lambda t: t * 2, b),
        lambda ns, a, b: ns.jvp(lambda t: t * 2, b, a),
        lambda ns, a, b: ns.hessian(lambda t: t * 2, b),
        lambda ns, a, b: ns.hessian(lambda t: (t.sum(), t.sum()), b),
    ]
    for case in cases:
        _errors(lambda c=case: c(F, x, y), lambda c=case: c(TF, tx, ty))


# PyTorch's forward-mode Jacobian imports torch.jit, which warns about its own deprecation
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_forward_mode_strategies_match_torch(device):
    (x, y), (tx, ty) = _pair(device, A, B)
    two = lambda a, b: ((a.t() * b).tanh(), (a.exp().sum(1) * b).sum())  # noqa: E731
    _same(F.jacobian(two, (x, y), vectorize=True, strategy="forward-mode"),
          TF.jacobian(two, (tx, ty), vectorize=True, strategy="forward-mode"))
    f = lambda a: (a.pow(3) * a.sin()).sum()  # noqa: E731
    # PyTorch's forward-over-reverse Hessian requires grad without create_graph (a leak of
    # its implementation); ours is detached, as every result without create_graph
    _same(F.hessian(f, y, vectorize=True, outer_jacobian_strategy="forward-mode"),
          TF.hessian(f, ty, vectorize=True, outer_jacobian_strategy="forward-mode"), False)
    for inputs, torch_inputs in (((x, y), (tx, ty)), ((x,), (tx,)), (x, tx)):
        _same(F.jacobian(lambda *a: (a[0].sin(), a[0]), inputs, vectorize=True,
                         strategy="forward-mode"),
              TF.jacobian(lambda *a: (a[0].sin(), a[0]), torch_inputs, vectorize=True,
                          strategy="forward-mode"))
    g = lambda a, b: (a.sin().sum(1) * b).sum()  # noqa: E731
    _same(F.hessian(g, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"),
          TF.hessian(g, (tx, ty), vectorize=True, outer_jacobian_strategy="forward-mode"),
          False)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_forward_mode_refusals_match_torch(device):
    (x,), (tx,) = _pair(device, B)
    f = lambda a: a.pow(3).sum()  # noqa: E731
    cases = [
        lambda ns, a: ns.jacobian(f, a, vectorize=True, strict=True, strategy="forward-mode"),
        lambda ns, a: ns.jacobian(f, a, vectorize=True, create_graph=True,
                                  strategy="forward-mode"),
        lambda ns, a: ns.hessian(f, a, outer_jacobian_strategy="forward-mode"),
        lambda ns, a: ns.hessian(f, a, vectorize=True, create_graph=True,
                                 outer_jacobian_strategy="forward-mode"),
    ]
    for case in cases:
        _errors(lambda c=case: c(F, x), lambda c=case: c(TF, tx))


def test_signatures_match_torch():
    for name in ("jacobian", "vjp", "jvp", "hessian", "hvp", "vhp"):
        ours = inspect.signature(getattr(F, name)).parameters.values()
        theirs = inspect.signature(getattr(TF, name)).parameters.values()
        assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]
