"""torch.cond and torch.while_loop in eager mode: the branch taken, gradients through it,
PyTorch's checks of predicates, operands, carried values and outputs."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

VALUES = [0.3, -1.2, 2.0]


def _both(torch, device, pred_of, fn_pair, make_operands):
    """Our and PyTorch's output value, gradient and grad_fn name of one cond call."""
    results = []
    for lib, where in ((mt, device), (torch, "cpu")):
        x = lib.tensor(VALUES, device=where, requires_grad=True)
        out = lib.cond(pred_of(lib, where), *fn_pair, make_operands(lib, x))
        out.sum().backward()
        name = None if out.grad_fn is None else out.grad_fn.name()
        results.append((out.detach().cpu().numpy(), x.grad.cpu().numpy(), name))
    return results


PREDICATES = [
    ("python_true", lambda T, d: True),
    ("python_false", lambda T, d: False),
    ("python_int", lambda T, d: 0),
    ("python_float", lambda T, d: 2.5),
    ("bool_0d", lambda T, d: T.tensor(True, device=d)),
    ("bool_0d_false", lambda T, d: T.tensor(False, device=d)),
    ("bool_1_element", lambda T, d: T.tensor([False], device=d)),
    ("int_tensor", lambda T, d: T.tensor(3, device=d)),
    ("float_tensor", lambda T, d: T.tensor([[0.0]], device=d)),
]


@pytest.mark.parametrize("name,pred", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_cond_branch_value_gradient_and_node_as_torch(name, pred, device, torch_ref):
    branches = (lambda a, b: (a * b).sin(), lambda a, b: a.cos() + b)
    ours, theirs = _both(torch_ref, device, pred, branches,
                         lambda T, x: (x, x.detach() * 2))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2] == theirs[2]


def test_cond_nested_operands_and_outputs(device):
    # (PyTorch 2.13's compiler fails inside on this one: checked on our side only)
    def true_fn(pair):
        return {"s": pair[0].sin(), "c": [pair[1].cos()]}

    x = mt.tensor(VALUES, device=device, requires_grad=True)
    out = mt.cond(mt.tensor(True, device=device), true_fn, true_fn, [[x, x * 3]])
    assert set(out) == {"s", "c"} and isinstance(out["c"], list)
    (out["s"] + out["c"][0]).sum().backward()
    v = np.array(VALUES, dtype=np.float32)
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.cos(v) - 3 * np.sin(3 * v), rtol=1e-5)
    assert out["s"].grad_fn.name() == "CondAutogradOpBackward"


def test_cond_captured_tensor_gets_its_gradient(device):
    x = mt.tensor(VALUES, device=device, requires_grad=True)
    w = mt.tensor(2.0, device=device, requires_grad=True)
    out = mt.cond(x.sum() > 0, lambda a: a * w, lambda a: a - w, (x,))
    out.sum().backward()
    assert out.device == tensor_device(device)
    assert w.grad.item() == pytest.approx(sum(VALUES))


def test_cond_output_is_a_new_tensor():
    x = mt.tensor(VALUES)
    y = mt.ones(3)
    out = mt.cond(mt.tensor(True), lambda a: y, lambda a: a + 1, (x,))
    out.add_(1)
    assert y.tolist() == [1.0, 1.0, 1.0]


def test_cond_int_output_passes():
    assert mt.cond(mt.tensor(True), lambda a: 1, lambda a: 2, (mt.ones(1),)) == 1


def test_cond_second_order(torch_ref):
    x = mt.tensor(VALUES, requires_grad=True)
    out = mt.cond(mt.tensor(True), lambda a: (a ** 3).sum(), lambda a: a.sum(), (x,))
    (grad,) = mt.autograd.grad(out, x, create_graph=True)
    grad.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array(VALUES, dtype=np.float32),
                               rtol=1e-6)


COND_ERRORS = [
    ("pred_none", lambda T, x: T.cond(None, T.sin, T.cos, (x,)), RuntimeError,
     "Expected pred to be bool or tensor, but got None."),
    ("pred_str", lambda T, x: T.cond("a", T.sin, T.cos, (x,)), RuntimeError,
     "Expected pred to be bool or tensor, but got a."),
    ("pred_two_elements", lambda T, x: T.cond(T.tensor([True, False]), T.sin, T.cos, (x,)),
     RuntimeError, "Expected pred to be bool or single-element tensor, but got tensor("),
    ("operand_int", lambda T, x: T.cond(T.tensor(True), T.mul, T.add, (x, 2)),
     RuntimeError, "Expect operands to be a tuple of possibly nested dict/list/tuple that "
                   "only consists of tensor leaves, but got (tensor("),
    ("operands_tensor", lambda T, x: T.cond(T.tensor(True), T.sin, T.cos, x), RuntimeError,
     "Expect operands to be a tuple"),
    ("branch_not_callable", lambda T, x: T.cond(T.tensor(True), 1, T.cos, (x,)),
     RuntimeError, "Expect both branches to be callable."),
    ("returns_none", lambda T, x: T.cond(T.tensor(True), lambda a: None, lambda a: None,
                                         (x,)), RuntimeError, None),
    ("returns_operand", lambda T, x: T.cond(T.tensor(True), lambda a: a, lambda a: a + 1,
                                            (x,)), RuntimeError, None),
    ("returns_view", lambda T, x: T.cond(T.tensor(True), lambda a: a[:2], lambda a: a[1:] + 1,
                                         (x,)), RuntimeError, None),
    ("mutates_operand", lambda T, x: T.cond(T.tensor(True), lambda a: a.add_(1),
                                            lambda a: a + 1, (x.detach().clone(),)),
     RuntimeError, None),
    ("python_pred_unpacks", lambda T, x: T.cond(True, lambda a: a, lambda a: a, x),
     TypeError, None),
    ("too_many_positional", lambda T, x: T.cond(True, T.sin, T.cos, (x,), 1), TypeError,
     None),
]


@pytest.mark.parametrize("name,call,error,message", COND_ERRORS,
                         ids=[e[0] for e in COND_ERRORS])
def test_cond_errors_as_torch(name, call, error, message, torch_ref):
    with pytest.raises(error) as ours:
        call(mt, mt.tensor(VALUES))
    with pytest.raises(error) as theirs:
        call(torch_ref, torch_ref.tensor(VALUES))
    if message is not None:
        assert str(ours.value).startswith(message)
        assert str(theirs.value).startswith(message)


def test_cond_on_meta_needs_a_value():
    with pytest.raises(RuntimeError):
        mt.cond(mt.empty((), dtype=mt.bool, device="meta"), mt.sin, mt.cos,
                (mt.ones(2, device="meta"),))


# -- while_loop ----------------------------------------------------------------------


def _loop(T, where, s):
    return T.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2 + 1),
                        (T.tensor(0, device=where), s))


def test_while_loop_values_gradient_and_node_as_torch(device, torch_ref):
    results = []
    for lib, where in ((mt, device), (torch_ref, "cpu")):
        s = lib.tensor(VALUES, device=where, requires_grad=True)
        i, out = _loop(lib, where, s)
        out.sum().backward()
        results.append((i.item(), out.detach().cpu().numpy(), s.grad.cpu().numpy(),
                        out.grad_fn.name(), type(i).__name__))
    ours, theirs = results
    assert ours[0] == theirs[0] == 3 and ours[3:] == theirs[3:]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)


@pytest.mark.parametrize("carried", ["tuple", "list"])
def test_while_loop_returns_a_tuple(carried, torch_ref):
    for lib in (mt, torch_ref):
        start = (lib.tensor(0), lib.zeros(2))
        start = list(start) if carried == "list" else start
        ran = lib.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + 1), start)
        never = lib.while_loop(lambda i, s: i > 2, lambda i, s: (i + 1, s + 1), start)
        assert type(ran) is tuple and type(never) is tuple
        assert ran[1].tolist() == [2.0, 2.0] and never[1].tolist() == [0.0, 0.0]


def test_while_loop_int_carry_and_python_bool(torch_ref):
    for lib in (mt, torch_ref):
        n, s = lib.while_loop(lambda n, s: 2 * n < s.shape[0], lambda n, s: (n + 1, s + n),
                              (0, lib.zeros(5)))
        assert n == 3 and s.tolist() == [3.0] * 5


def test_while_loop_single_tensor_body_output(torch_ref):
    for lib in (mt, torch_ref):
        assert lib.while_loop(lambda i: i < 3, lambda i: i + 1, (lib.tensor(0),)).item() == 3


WHILE_ERRORS = [
    ("not_callable", lambda T: T.while_loop(1, lambda i: (i + 1,), (T.tensor(0),)),
     "Expect cond_fn and body_fn to be callable."),
    ("float_cond", lambda T: T.while_loop(lambda i: (i < 3).float(), lambda i: (i + 1,),
                                          (T.tensor(0),)), None),
    ("vector_cond", lambda T: T.while_loop(lambda i: i < 3, lambda i: (i + 1,),
                                           (T.zeros(2),)), None),
    ("dtype_changes", lambda T: T.while_loop(lambda i: i < 3, lambda i: (i + 1.5,),
                                             (T.tensor(0),)), None),
    ("shape_changes", lambda T: T.while_loop(lambda i: i.sum() < 3,
                                             lambda i: (T.cat([i, i]),), (T.ones(1),)), None),
    ("count_changes", lambda T: T.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,),
                                             (T.tensor(0), T.tensor(0))), None),
    ("aliases_input", lambda T: T.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j),
                                             (T.tensor(0), T.zeros(1))), None),
]


@pytest.mark.parametrize("name,call,message", WHILE_ERRORS, ids=[e[0] for e in WHILE_ERRORS])
def test_while_loop_errors_as_torch(name, call, message, torch_ref):
    with pytest.raises(RuntimeError) as ours:
        call(mt)
    with pytest.raises(RuntimeError) as theirs:
        call(torch_ref)
    if message is not None:
        assert str(ours.value) == str(theirs.value) == message


def test_while_loop_refuses_bad_carries():
    # PyTorch: an AssertionError; a RuntimeError that names what is allowed here
    with pytest.raises(RuntimeError, match="tensor or int leaves, but got \\[None\\]"):
        mt.while_loop(lambda i: i < 3, lambda i: (i + 1,), [None])
    with pytest.raises(RuntimeError, match="tensor or int leaves"):
        mt.while_loop(lambda i: i < 3, lambda i: (i + 1,), mt.tensor(0))


def test_while_loop_refuses_input_mutation():
    with pytest.raises(RuntimeError, match="input mutation"):
        mt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s.add_(1)),
                      (mt.tensor(0), mt.zeros(2)))
