"""Helpers shared by the learning-rate scheduler tests: build the same optimizer and
scheduler in minitorch_meta and in PyTorch (``lib`` is either module), run them step by
step, and compare what each step changed."""

from __future__ import annotations

import pytest

import minitorch_meta as mt

STEPS = 30
GROUP_LRS = {1: [0.1], 2: [0.1, 0.02]}


def make_optimizer(lib, groups, kind="SGD", **options):
    """An optimizer over one small parameter per group, with GROUP_LRS's rates."""
    param_groups = [{"params": [lib.zeros(2, requires_grad=True)], "lr": lr}
                    for lr in GROUP_LRS[groups]]
    if kind == "SGD":
        options.setdefault("momentum", 0.9)
    return getattr(lib.optim, kind)(param_groups, **options)


def make_scheduler(lib, name, kwargs, groups=1, kind="SGD", **options):
    """``lib``'s scheduler ``name`` (with ``kwargs``) over a fresh ``make_optimizer``."""
    optimizer = make_optimizer(lib, groups, kind, **options)
    return getattr(lib.optim.lr_scheduler, name)(optimizer, **kwargs)


def snapshot(scheduler):
    """What a step changes: the rates, the epoch (``ChainedScheduler`` has none), and the
    momentum (``OneCycleLR`` and ``CyclicLR`` cycle it)."""
    groups = scheduler.optimizer.param_groups
    return {"last_lr": scheduler.get_last_lr(), "lr": [g["lr"] for g in groups],
            "last_epoch": getattr(scheduler, "last_epoch", None),
            "momentum": [g.get("momentum") for g in groups],
            "betas": [tuple(g["betas"]) if "betas" in g else None for g in groups]}


def trace(scheduler, steps=STEPS, metrics=None):
    """The snapshots before and after each of ``steps`` optimizer-then-scheduler steps
    (``step(metric)`` when ``metrics`` are given)."""
    seen = [snapshot(scheduler)]
    for number in range(steps):
        scheduler.optimizer.step()
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[number])
        seen.append(snapshot(scheduler))
    return seen


def assert_same(ours, theirs):
    """Two traces agree step by step (rates to 1e-12, the epochs exactly)."""
    assert len(ours) == len(theirs)
    for number, (a, b) in enumerate(zip(ours, theirs)):
        assert a["last_epoch"] == b["last_epoch"], f"step {number}"
        for key in ("last_lr", "lr", "momentum", "betas"):
            assert len(a[key]) == len(b[key])
            for x, y in zip(a[key], b[key]):
                if x is None or y is None:  # an optimizer without momentum, or betas
                    assert x is y, f"{key}, step {number}"
                else:
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-15), f"{key}, step {number}"


def assert_raises_like_torch(name, kwargs, groups=1, kind="SGD"):
    """Building the scheduler raises PyTorch's exception type with PyTorch's message."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    with pytest.raises(Exception) as theirs:
        make_scheduler(torch, name, kwargs, groups, kind)
    with pytest.raises(type(theirs.value)) as ours:
        make_scheduler(mt, name, kwargs, groups, kind)
    assert str(ours.value) == str(theirs.value)
