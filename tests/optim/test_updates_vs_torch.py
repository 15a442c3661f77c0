"""SGD and Adam take exactly PyTorch's steps, for every option, over several steps."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the reference for optimizer updates")

SGD_OPTIONS = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.5},
    {"momentum": 0.9, "nesterov": True},
    {"weight_decay": 0.1},
    {"momentum": 0.8, "weight_decay": 0.01, "nesterov": True},
    {"momentum": 0.9, "maximize": True},
]
ADAM_OPTIONS = [
    {},
    {"betas": (0.8, 0.99)},
    {"eps": 1e-3},
    {"weight_decay": 0.1},
    {"amsgrad": True},
    {"amsgrad": True, "weight_decay": 0.05, "betas": (0.5, 0.9)},
    {"maximize": True},
]


def _start_values(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((3, 4)).astype(np.float32),
            "b": rng.standard_normal(4).astype(np.float32),
            "x": rng.standard_normal((5, 3)).astype(np.float32)}


def _loss(lib, w, b, x):
    """The same graph in both libraries: a ReLU layer, a squared error and an L1 term."""
    h = lib.relu(lib.matmul(x, w) + b)
    return ((h - 0.5) ** 2).mean() + 0.1 * w.abs().sum()


def _run(lib, optimizer_class, options, lr, steps=5):
    values = _start_values()
    w = lib.tensor(values["w"], requires_grad=True)
    b = lib.tensor(values["b"], requires_grad=True)
    x = lib.tensor(values["x"])
    optimizer = optimizer_class([w, b], lr=lr, **options)
    for _ in range(steps):
        optimizer.zero_grad()
        _loss(lib, w, b, x).backward()
        optimizer.step()
    return w.detach().numpy(), b.detach().numpy(), optimizer


def _assert_same_run(ours, theirs):
    for a, e in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
def test_sgd_matches_torch(options):
    _assert_same_run(_run(mt, mt.optim.SGD, options, lr=0.05),
                     _run(torch, torch.optim.SGD, options, lr=0.05))


@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
def test_adam_matches_torch(options):
    ours = _run(mt, mt.optim.Adam, options, lr=0.01)
    theirs = _run(torch, torch.optim.Adam, options, lr=0.01)
    _assert_same_run(ours, theirs)
    ours_state = ours[2].state_dict()["state"]
    theirs_state = theirs[2].state_dict()["state"]
    for index in (0, 1):
        assert sorted(ours_state[index]) == sorted(theirs_state[index])
        for key, value in theirs_state[index].items():
            np.testing.assert_allclose(ours_state[index][key].numpy(), value.numpy(),
                                       rtol=1e-5, atol=1e-7)


def test_sgd_momentum_buffer_matches_torch():
    ours = _run(mt, mt.optim.SGD, {"momentum": 0.9, "dampening": 0.3}, lr=0.05, steps=3)
    theirs = _run(torch, torch.optim.SGD, {"momentum": 0.9, "dampening": 0.3}, lr=0.05, steps=3)
    for index in (0, 1):
        np.testing.assert_allclose(ours[2].state[ours[2].param_groups[0]["params"][index]]
                                   ["momentum_buffer"].numpy(),
                                   theirs[2].state_dict()["state"][index]["momentum_buffer"],
                                   rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_param_groups_with_their_own_lr_match_torch(name):
    def run(lib):
        values = _start_values(1)
        w = lib.tensor(values["w"], requires_grad=True)
        b = lib.tensor(values["b"], requires_grad=True)
        x = lib.tensor(values["x"])
        optimizer = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.2}],
                                             lr=0.01)
        for _ in range(4):
            optimizer.zero_grad()
            _loss(lib, w, b, x).backward()
            optimizer.step()
        return w.detach().numpy(), b.detach().numpy()

    _assert_same_run(run(mt), run(torch))


def test_float64_parameters_match_torch():
    def run(lib):
        w = lib.tensor(_start_values()["w"].astype(np.float64), requires_grad=True)
        optimizer = lib.optim.Adam([w], lr=0.1, amsgrad=True)
        for _ in range(5):
            optimizer.zero_grad()
            (w * w * w).sum().backward()
            optimizer.step()
        return w.detach().numpy()

    ours, theirs = run(mt), run(torch)
    assert ours.dtype == np.float64
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
