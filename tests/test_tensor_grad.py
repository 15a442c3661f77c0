"""``Tensor.grad`` (tensor_grad.py): PyTorch's warning when a script reads the ``.grad`` of
a non-leaf tensor that does not retain it (text, category, conditions and the line it
names), and the library's own reads and writes, which go to the ``_grad`` slot and never
warn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta import nn
from minitorch_meta.models import LeNet
from minitorch_meta.tensor import Tensor
from minitorch_meta.tensor_grad import NON_LEAF_GRAD_WARNING


# -- the warning, case by case against PyTorch -----------------------------------------
def _subclass_leaf(T):
    """A leaf of a user's Tensor subclass (PyTorch: ``_make_subclass`` keeps it a leaf)."""
    class Mine(T.Tensor):
        pass

    if T is mt:
        return Mine([1.0, 2.0]).requires_grad_()
    return T.Tensor._make_subclass(Mine, T.tensor([1.0, 2.0]), True)


def _non_leaf_in_no_grad(T):
    y = T.ones(2, requires_grad=True) * 2
    with T.no_grad():
        return y.grad  # grad mode does not matter: still a non-leaf


def _retained_after_backward(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    return y


def _non_leaf_after_backward(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    return y


def _non_leaf_given_a_grad(T):
    y = T.ones(2, requires_grad=True) * 2
    y.grad = T.ones(2)  # a .grad that is set is returned without a word
    return y


def _non_leaf_filled_by_backward_inputs(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    (y * y).sum().backward(inputs=[y])
    return y


#: name -> f(T) returning the tensor whose .grad the test reads (or a function to call)
CASES = {
    "non_leaf": lambda T: T.ones(2, requires_grad=True) * 2,
    "non_leaf_of_a_parameter": lambda T: T.nn.Parameter(T.ones(2)) * 2,
    "view_of_a_leaf": lambda T: T.ones(2, requires_grad=True).view(2),
    "element_of_a_leaf": lambda T: T.ones(2, requires_grad=True)[0],
    "non_leaf_after_backward": _non_leaf_after_backward,
    "non_leaf_in_no_grad": lambda T: lambda: _non_leaf_in_no_grad(T),
    "non_leaf_retaining_grad": lambda T: (lambda y: (y.retain_grad(), y)[1])(
        T.ones(2, requires_grad=True) * 2),
    "retained_after_backward": _retained_after_backward,
    "non_leaf_given_a_grad": _non_leaf_given_a_grad,
    "non_leaf_filled_by_backward_inputs": _non_leaf_filled_by_backward_inputs,
    "leaf": lambda T: T.ones(2, requires_grad=True),
    "leaf_without_requires_grad": lambda T: T.ones(2),
    "op_result_without_requires_grad": lambda T: T.ones(2) * 2,
    "op_result_made_in_no_grad": lambda T: (lambda x: _in_no_grad(T, lambda: x * 2))(
        T.ones(2, requires_grad=True)),
    "detached_non_leaf": lambda T: (T.ones(2, requires_grad=True) * 2).detach(),
    "parameter": lambda T: T.nn.Parameter(T.ones(2)),
    "subclass_leaf": _subclass_leaf,
}


def _in_no_grad(T, make):
    with T.no_grad():
        return make()


def _read_grad(T, case):
    """The warnings and the value of one read of ``.grad`` in ``case``, built with ``T``."""
    made = CASES[case](T)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = made() if callable(made) and not isinstance(made, T.Tensor) else made.grad
    return caught, value


def _messages(caught):
    # PyTorch adds where in its C++ the warning was raised
    return [str(w.message).split(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("case", list(CASES))
def test_reading_grad_warns_exactly_when_pytorch_does(case, torch_ref):
    ours, our_value = _read_grad(mt, case)
    theirs, their_value = _read_grad(torch_ref, case)
    assert _messages(ours) == _messages(theirs)
    assert [w.category for w in ours] == [w.category for w in theirs]
    assert all(w.filename == __file__ for w in ours), [w.filename for w in ours]
    assert (our_value is None) == (their_value is None)
    if our_value is not None:
        np.testing.assert_allclose(our_value.numpy(), their_value.numpy())


def test_the_warning_is_pytorchs_text_and_names_the_reading_line():
    y = mt.ones(2, requires_grad=True) * 2
    with pytest.warns(UserWarning) as record:
        line = _line_after() + 1
        assert y.grad is None
    assert [str(w.message) for w in record] == [NON_LEAF_GRAD_WARNING]
    assert (record[0].filename, record[0].lineno) == (__file__, line)
    assert NON_LEAF_GRAD_WARNING.startswith("The .grad attribute of a Tensor that is not a "
                                            "leaf Tensor is being accessed.")


def _line_after() -> int:
    import sys

    return sys._getframe(1).f_lineno


def test_getattr_and_hasattr_read_through_the_property_too(torch_ref):
    name = "grad"  # as a script computing the attribute's name would
    for T in (mt, torch_ref):
        y = T.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="not a leaf Tensor"):
            assert getattr(y, name) is None
        with pytest.warns(UserWarning, match="not a leaf Tensor"):
            assert hasattr(y, name)


def test_assigning_and_deleting_grad_as_pytorch(torch_ref):
    for T in (mt, torch_ref):
        x = T.ones(2, requires_grad=True)
        g = T.full((2,), 3.0)
        x.grad = g
        assert x.grad is g
        del x.grad  # PyTorch: the same as x.grad = None
        assert x.grad is None
        x.grad = g
        x.grad = None
        assert x.grad is None


def test_a_retained_gradient_accumulates_over_backwards_without_a_warning():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * 2 * np.array([3.0, 6.0]))


# -- the library never reads .grad through the property --------------------------------
@pytest.fixture
def grad_property_forbidden(monkeypatch):
    """``Tensor.grad`` made to fail on any use: what still runs uses only ``_grad``."""
    def forbidden(*args):
        raise AssertionError("the library used Tensor.grad; it must use the _grad slot")

    monkeypatch.setattr(Tensor, "grad", property(forbidden, forbidden, forbidden))


def _train_steps(model, optimizer, x, target, steps=2):
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(x), target).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        optimizer.step()


OPTIMIZERS = {
    "sgd_momentum": lambda ps: mt.optim.SGD(ps, lr=0.01, momentum=0.9, weight_decay=1e-4),
    "adam": lambda ps: mt.optim.Adam(ps, lr=1e-3),
    "adamw_maximize": lambda ps: mt.optim.AdamW(ps, lr=1e-3, maximize=True),
    "adafactor": lambda ps: mt.optim.Adafactor(ps, lr=1e-3),
    "rmsprop": lambda ps: mt.optim.RMSprop(ps, lr=1e-3),
}


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_a_training_step_reads_no_grad_through_the_property(optimizer, grad_property_forbidden):
    model = LeNet()
    x, target = mt.randn(4, 3, 32, 32), mt.randint(0, 10, (4,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _train_steps(model, OPTIMIZERS[optimizer](model.parameters()), x, target)
        model.zero_grad(set_to_none=False)  # zeroes in place
        model.double()  # Module._apply converts every .grad too
    assert all(p._grad is not None and p._grad.dtype == mt.float64 for p in model.parameters())


def test_lbfgs_retain_grad_and_second_order_read_no_grad_through_the_property(
        grad_property_forbidden):
    w = nn.Parameter(mt.tensor([1.5, -0.5]))
    optimizer = mt.optim.LBFGS([w], max_iter=3)

    def closure():
        optimizer.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.step(closure)
        h = w * 2
        h.retain_grad()  # its hook fills the non-leaf's slot
        with pytest.warns(UserWarning, match="reference cycle") as record:  # PyTorch's too
            (h ** 3).sum().backward(create_graph=True)  # accumulates with a graph
        assert len(record) == 1
        (h * h).sum().backward(inputs=[h])  # writes a non-leaf's .grad
    assert h._grad is not None and w._grad.grad_fn is not None


def test_reentrant_checkpoint_reads_no_grad_through_the_property(grad_property_forbidden):
    from minitorch_meta.utils.checkpoint import checkpoint

    layer = nn.Linear(3, 2)
    x = mt.randn(4, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(layer, x, use_reentrant=True).sum().backward()
    assert x._grad is not None and layer.weight._grad is not None


@pytest.mark.parametrize("value", [
    lambda t, x: 3, lambda t, x: x, lambda t, x: t.ones(3),
    lambda t, x: t.ones(2, dtype=t.float64), lambda t, x: t.ones(2, device="meta"),
    lambda t, x: t.ones(1, 2), lambda t, x: None, lambda t, x: t.zeros(2),
], ids=["int", "itself", "size", "dtype", "device", "rank", "None", "fits"])
def test_assigning_grad_checks_what_pytorch_checks(torch_ref, value):
    """``x.grad = g`` refuses what PyTorch refuses, with the same exception type."""
    outcomes = []
    for framework in (mt, torch_ref):
        x = framework.ones(2, requires_grad=True)
        try:
            x.grad = value(framework, x)
            outcomes.append("ok")
        except (TypeError, RuntimeError) as error:
            outcomes.append(type(error).__name__)
    assert outcomes[0] == outcomes[1]
