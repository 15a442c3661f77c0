"""Version counters: backward refuses a tensor that was changed in place after an op saved
it (the gradient would silently use the new values), exactly where PyTorch refuses.

Each scenario is written once, run on minitorch_meta and on PyTorch (the reference, where
installed), and must raise in both or in neither.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

MODIFIED = "modified by an inplace operation"


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference for these checks")


def _w_and_x(T):
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = T.tensor([4.0, 5.0, 6.0])
    return w, x


def mul_then_change_the_other_operand(T):  # w's gradient is x: x is saved
    w, x = _w_and_x(T)
    loss = (w * x).sum()
    x.mul_(2)
    loss.backward()


def mul_then_change_weight(T):  # nothing reads w (x needs no gradient): allowed
    w, x = _w_and_x(T)
    loss = (w * x).sum()
    with T.no_grad():
        w.sub_(0.1)
    loss.backward()


def add_then_change_weight(T):  # AddBackward saves nothing: allowed
    w, x = _w_and_x(T)
    loss = (w + x).sum()
    with T.no_grad():
        w.sub_(0.1)
    loss.backward()


def change_through_a_view(T):
    w, x = _w_and_x(T)
    loss = (w * x).sum()
    x.view(3, 1)[0, 0] = 7.0
    loss.backward()


def change_through_a_row(T):
    w = T.ones(2, 3, requires_grad=True)
    x = T.ones(2, 3)
    loss = (w * x).sum()
    x[1].fill_(2.0)
    loss.backward()


def change_through_detach(T):
    w, x = _w_and_x(T)
    loss = (w * x).sum()
    x.detach().mul_(2)  # detach() shares the storage, and so the version counter
    loss.backward()


def change_a_saved_output(T):
    w, _ = _w_and_x(T)
    y = w.exp()
    with T.no_grad():
        y.add_(1)
    y.sum().backward()


def change_an_unsaved_output(T):  # AddBackward saves nothing, not even its output
    w, x = _w_and_x(T)
    y = w + x
    with T.no_grad():
        y.add_(1)
    y.sum().backward()


def _mlp(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    return model, T.optim.SGD(model.parameters(), lr=0.1)


def optimizer_step_before_backward(T):
    model, optimizer = _mlp(T)
    x = T.ones(5, 3)
    model(x).sum().backward()  # gradients exist, so step() changes the weights
    loss = model(x).sum()
    optimizer.step()  # the second layer's weight was saved (its input needs a gradient)
    loss.backward()


def optimizer_step_after_backward(T):  # the right order
    model, optimizer = _mlp(T)
    for _ in range(2):
        optimizer.zero_grad()
        model(T.ones(5, 3)).sum().backward()
        optimizer.step()


def change_between_two_backwards(T):
    w, x = _w_and_x(T)
    loss = (w * x).sum()
    loss.backward(retain_graph=True)
    with T.no_grad():
        x.mul_(2)
    loss.backward()


SCENARIOS = {
    mul_then_change_the_other_operand: True,
    mul_then_change_weight: False,
    change_through_a_row: True,
    add_then_change_weight: False,
    change_through_a_view: True,
    change_through_detach: True,
    change_a_saved_output: True,
    change_an_unsaved_output: False,
    optimizer_step_before_backward: True,
    optimizer_step_after_backward: False,
    change_between_two_backwards: True,
}


@pytest.mark.parametrize("scenario", list(SCENARIOS), ids=lambda f: f.__name__)
def test_backward_refuses_exactly_where_pytorch_does(scenario):
    raises = SCENARIOS[scenario]
    for T in (mt, _torch()):
        if raises:
            with pytest.raises(RuntimeError, match=MODIFIED):
                scenario(T)
        else:
            scenario(T)


def test_the_error_names_the_node_the_tensor_and_the_versions():
    with pytest.raises(RuntimeError) as info:
        mul_then_change_the_other_operand(mt)
    message = str(info.value)
    assert "MulBackward0" in message and "its input 1" in message
    assert "shape (3,)" in message and "torch.float32" in message
    assert "is at version 1; expected version 0" in message
    assert "after backward()" in message  # what to do about it


def test_version_counts_in_place_writes_as_pytorch_does():
    torch = _torch()

    def writes(T):
        t = T.zeros(2, 3)
        seen = [t._version]
        t.add_(1)
        seen.append(t._version)
        t[0] = 5.0
        seen.append(t._version)
        t.view(6).mul_(2)  # a view shares its base's counter
        seen.append(t._version)
        t[1].fill_(3.0)
        seen.append(t._version)
        t.copy_(T.ones(2, 3))
        seen.append(t._version)
        return seen, t.clone()._version  # a copy starts its own count

    ours, theirs = writes(mt), writes(torch)
    assert ours == theirs
    assert ours[0] == ([0, 1, 2, 3, 4, 5], 0)[0]


def test_gradients_are_right_when_nothing_was_changed():
    w, x = _w_and_x(mt)
    (w * x).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 5.0, 6.0])
