"""The Optimizer API: groups, zero_grad, closures, validation, state dicts, StepLR."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.optim import SGD, Adam
from minitorch_meta.optim.lr_scheduler import StepLR


def _params():
    return [mt.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True),
            mt.tensor([0.1, -0.2], requires_grad=True)]


def _train(optimizer, params, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        ((params[0] @ params[1]) ** 2).sum().backward()
        optimizer.step()


@pytest.mark.parametrize("make", [lambda p: SGD(p, lr=0.1, momentum=0.9, nesterov=True),
                                  lambda p: Adam(p, lr=0.1, amsgrad=True)],
                         ids=["sgd", "adam"])
def test_state_dict_round_trip_resumes_exactly(make):
    straight = _params()
    opt = make(straight)
    _train(opt, straight, 6)

    first = _params()
    opt_a = make(first)
    _train(opt_a, first, 3)
    saved = opt_a.state_dict()
    resumed = [mt.tensor(p.detach().numpy(), requires_grad=True) for p in first]
    opt_b = make(resumed)
    opt_b.load_state_dict(saved)
    _train(opt_b, resumed, 3)
    for a, b in zip(straight, resumed):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    # the loaded state is a copy: training on did not touch the dict it came from
    assert all(buffer is not loaded for index in saved["state"]
               for buffer, loaded in zip(saved["state"][index].values(),
                                         opt_b.state_dict()["state"][index].values()))


def test_state_dict_layout_is_pytorchs():
    params = _params()
    opt = SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.5}], lr=0.1,
              momentum=0.9)
    _train(opt, params, 1)
    state = opt.state_dict()
    assert sorted(state) == ["param_groups", "state"]
    assert [g["params"] for g in state["param_groups"]] == [[0], [1]]
    assert [g["lr"] for g in state["param_groups"]] == [0.1, 0.5]
    assert state["param_groups"][0]["momentum"] == 0.9  # defaults are filled in
    assert sorted(state["state"]) == [0, 1]
    assert sorted(state["state"][0]) == ["momentum_buffer"]


def test_load_state_dict_restores_hyper_parameters():
    params = _params()
    opt = Adam(params, lr=0.1)
    saved = opt.state_dict()
    saved["param_groups"][0]["lr"] = 0.02
    other = Adam(_params(), lr=0.5)
    other.load_state_dict(saved)
    assert other.param_groups[0]["lr"] == 0.02


def test_load_state_dict_rejects_mismatched_groups():
    opt = SGD(_params(), lr=0.1)
    with pytest.raises(ValueError, match="1 parameter group.* but this optimizer has 2"):
        SGD([{"params": [_params()[0]]}, {"params": [_params()[1]]}], lr=0.1).load_state_dict(
            opt.state_dict())
    with pytest.raises(ValueError, match="group \\(0\\) of 2 parameters.*has 1"):
        SGD(_params()[:1], lr=0.1).load_state_dict(opt.state_dict())
    with pytest.raises(ValueError, match="keys 'state' and 'param_groups'"):
        opt.load_state_dict({"weights": 1})


def test_zero_grad_sets_to_none_or_zeros():
    params = _params()
    opt = SGD(params, lr=0.1)
    _train(opt, params, 1)
    ((params[0] @ params[1]) ** 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in params)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_parameters_without_grad_are_left_alone():
    used, unused = mt.tensor([1.0], requires_grad=True), mt.tensor([5.0], requires_grad=True)
    opt = Adam([used, unused], lr=0.1)
    (used * 2).sum().backward()
    opt.step()
    assert unused.item() == 5.0 and used.item() != 1.0
    assert unused not in opt.state and len(opt.state) == 1


def test_step_with_closure_returns_the_loss():
    params = _params()
    opt = SGD(params, lr=0.01)

    def closure():
        opt.zero_grad()
        loss = ((params[0] @ params[1]) ** 2).sum()
        loss.backward()
        return loss

    with mt.no_grad():  # the closure still records its graph
        loss = opt.step(closure)
    assert loss.item() > 0


def test_add_param_group_fills_defaults():
    a, b = _params()
    opt = Adam([a], lr=0.1, betas=(0.5, 0.6))
    opt.add_param_group({"params": b, "eps": 1e-3})
    assert opt.param_groups[1]["lr"] == 0.1 and opt.param_groups[1]["betas"] == (0.5, 0.6)
    assert opt.param_groups[1]["eps"] == 1e-3 and opt.param_groups[1]["params"][0] is b


@pytest.mark.parametrize("make, message", [
    (lambda p: SGD(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: SGD(p, lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: SGD(p, lr=0.1, weight_decay=-1e-4), "Invalid weight_decay value: -0.0001"),
    (lambda p: SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum"),
    (lambda p: SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
     "zero dampening"),
    (lambda p: Adam(p, lr=-0.1), "Invalid learning rate: -0.1"),
    (lambda p: Adam(p, eps=-1.0), "Invalid epsilon value: -1.0"),
    (lambda p: Adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: Adam(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: Adam(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: SGD([{"params": p[:1], "lr": -2}], lr=0.1), "Invalid learning rate: -2"),
])
def test_invalid_hyper_parameters_are_rejected(make, message):
    with pytest.raises(ValueError, match=message):
        make(_params())


def test_non_number_learning_rate_is_a_type_error():
    with pytest.raises(TypeError, match="learning rate: expected a number, got '0.1'"):
        SGD(_params(), lr="0.1")


def test_bad_params_are_rejected():
    a, b = _params()
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        SGD([], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        SGD({a, b}, lr=0.1)
    with pytest.raises(TypeError, match="only optimize Tensors, but one of the params is list"):
        SGD([[1.0]], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        SGD([a * 2], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        SGD([{"params": [a]}, {"params": [a, b]}], lr=0.1)
    with pytest.raises(ValueError, match="same parameter twice"):
        SGD([a, a], lr=0.1)


def test_repr_lists_each_group():
    text = repr(SGD(_params(), lr=0.1))
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text


def test_step_runs_on_meta():
    with mt.device("meta"):  # the step counter still lives on the cpu, as in PyTorch
        w = mt.empty(3, 4, requires_grad=True)
        opt = Adam([w], lr=0.1)
        (w * w).sum().backward()
        opt.step()
    assert opt.state[w]["exp_avg"].is_meta and w.is_meta
    assert opt.state[w]["step"].item() == 1


def test_step_lr_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for StepLR")
    ours_opt = SGD(_params(), lr=1.0)
    theirs_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    ours, theirs = StepLR(ours_opt, step_size=3, gamma=0.5), \
        torch.optim.lr_scheduler.StepLR(theirs_opt, step_size=3, gamma=0.5)
    seen = []
    for _ in range(8):
        ours_opt.step()
        theirs_opt.step()
        ours.step()
        theirs.step()
        seen.append((ours.get_last_lr(), theirs.get_last_lr()))
    assert all(a == pytest.approx(b) for a, b in seen)
    assert ours.state_dict()["last_epoch"] == 8 and ours_opt.param_groups[0]["initial_lr"] == 1.0


def test_step_lr_rejects_bad_step_size():
    with pytest.raises(ValueError, match="step_size must be a positive integer, got 0"):
        StepLR(SGD(_params(), lr=0.1), step_size=0)
