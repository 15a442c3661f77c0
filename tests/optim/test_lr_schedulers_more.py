"""PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR and ChainedScheduler
against PyTorch: the rates (and CyclicLR's momentum) step by step across restarts, cycles
and milestones, state dicts (the inner schedulers' too), the warning when the scheduler
steps before the optimizer, and argument errors."""

from __future__ import annotations

import io
import re
import warnings

import pytest

import minitorch_meta as mt
from tests.optim.scheduler_harness import (
    assert_raises_like_torch,
    assert_same,
    make_optimizer,
    make_scheduler,
    trace,
)

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the schedulers")

LONG = 50  # steps: several cycles, restarts and milestones


def _halving(cycle):
    return 0.5 ** (cycle - 1)


def _decaying(iteration):
    return 0.97 ** iteration


class _Damped:
    """A callable scale_fn with state (a state dict keeps its attributes)."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x):
        return 1.0 / (1.0 + self.rate * x)


# (scheduler, arguments); each runs with 1 and 2 param groups
CASES = [
    ("PolynomialLR", {}),
    ("PolynomialLR", {"total_iters": 10, "power": 2.0}),
    ("PolynomialLR", {"total_iters": 7, "power": 0.5}),
    ("PolynomialLR", {"total_iters": LONG - 10, "power": 0.9}),
    ("CosineAnnealingWarmRestarts", {"T_0": 5}),
    ("CosineAnnealingWarmRestarts", {"T_0": 1}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
    ("CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 3}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "step_size_down": 5,
                  "mode": "triangular2"}),
    ("CyclicLR", {"base_lr": 0.001, "max_lr": 0.05, "step_size_up": 5, "mode": "exp_range",
                  "gamma": 0.95, "base_momentum": 0.7, "max_momentum": 0.95}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 6, "step_size_down": 0}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "scale_fn": _halving}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "scale_fn": _decaying,
                  "scale_mode": "iterations", "mode": "ignored with a scale_fn"}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "scale_fn": _Damped(0.5),
                  "scale_mode": "iterations"}),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 0.01, "step_size_up": 2.5, "step_size_down": 4,
                  "cycle_momentum": False}),
]
TWO_GROUP_CASES = [
    ("CyclicLR", {"base_lr": [0.01, 0.002], "max_lr": (0.1, 0.02), "step_size_up": 4,
                  "mode": "triangular2", "base_momentum": [0.8, 0.7],
                  "max_momentum": (0.9, 0.85)}),
]
ALL_CASES = ([(name, kwargs, groups) for name, kwargs in CASES for groups in (1, 2)]
             + [(name, kwargs, 2) for name, kwargs in TWO_GROUP_CASES])
IDS = [f"{n}-{i}-{g}groups" for i, (n, _, g) in enumerate(ALL_CASES)]


# SequentialLR and ChainedScheduler: a function building the scheduler from ``lib`` and
# an optimizer
def _warm_up_then_cosine(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.SequentialLR(optimizer, [
        schedules.LinearLR(optimizer, start_factor=0.1, total_iters=5),
        schedules.CosineAnnealingLR(optimizer, T_max=20, eta_min=0.001)], milestones=[5])


def _constant_then_exponential(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.SequentialLR(optimizer, [
        schedules.ConstantLR(optimizer, factor=0.1, total_iters=20),
        schedules.ExponentialLR(optimizer, gamma=0.9)], milestones=[20])


def _three_phases(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.SequentialLR(optimizer, [
        schedules.LinearLR(optimizer, start_factor=0.25, total_iters=4),
        schedules.MultiStepLR(optimizer, milestones=[3, 6], gamma=0.5),
        schedules.CosineAnnealingWarmRestarts(optimizer, T_0=4, T_mult=2)],
        milestones=[4, 15])


def _polynomial_then_cyclic(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.SequentialLR(optimizer, (
        schedules.PolynomialLR(optimizer, total_iters=6, power=2.0),
        schedules.CyclicLR(optimizer, base_lr=0.01, max_lr=0.05, step_size_up=3)),
        milestones=(8,))


def _chain_first_in_a_sequence(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    chain = schedules.ChainedScheduler([
        schedules.LinearLR(optimizer, start_factor=0.5, total_iters=3),
        schedules.ExponentialLR(optimizer, gamma=0.95)])
    return schedules.SequentialLR(
        optimizer, [chain, schedules.StepLR(optimizer, step_size=4, gamma=0.5)], [10])


def _last_milestone_at_zero(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.SequentialLR(optimizer, [
        schedules.ExponentialLR(optimizer, gamma=0.5),
        schedules.PolynomialLR(optimizer, total_iters=10)], milestones=[0])


def _constant_and_exponential(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.ChainedScheduler([
        schedules.ConstantLR(optimizer, factor=0.1, total_iters=20),
        schedules.ExponentialLR(optimizer, gamma=0.9)], optimizer=optimizer)


def _warm_up_and_polynomial(lib, optimizer):
    schedules = lib.optim.lr_scheduler
    return schedules.ChainedScheduler((
        schedules.LinearLR(optimizer, start_factor=0.2, total_iters=6),
        schedules.PolynomialLR(optimizer, total_iters=30, power=1.5),
        schedules.MultiStepLR(optimizer, milestones=[10, 20])))


COMPOSITES = [_warm_up_then_cosine, _constant_then_exponential, _three_phases,
              _polynomial_then_cyclic, _chain_first_in_a_sequence, _last_milestone_at_zero,
              _constant_and_exponential, _warm_up_and_polynomial]
# a chain inside a sequence steps its schedulers when the sequence repeats its initial step,
# before any optimizer step: that warns at construction, in PyTorch too (tested below)
_WARNS_WHEN_BUILT = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler")
COMPOSITE_PARAMS = [pytest.param(build, id=build.__name__.strip("_"),
                                 marks=[_WARNS_WHEN_BUILT] if build is _chain_first_in_a_sequence
                                 else []) for build in COMPOSITES]


def _composite(lib, build, groups=2):
    return build(lib, make_optimizer(lib, groups))


# -- the schedules, step by step ----------------------------------------------------------
@pytest.mark.parametrize(("name", "kwargs", "groups"), ALL_CASES, ids=IDS)
def test_schedule_matches_torch(name, kwargs, groups):
    ours = make_scheduler(mt, name, kwargs, groups)
    theirs = make_scheduler(torch, name, kwargs, groups)
    seen = trace(ours, LONG)
    assert_same(seen, trace(theirs, LONG))
    assert ours.base_lrs == pytest.approx(theirs.base_lrs)
    if kwargs.get("T_0") != 1:  # (restarting every epoch, T_0=1 keeps the initial rate)
        assert len({step["lr"][0] for step in seen}) > 3  # the schedule did move


@pytest.mark.parametrize("kwargs", [
    {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 3},
    {"base_lr": [0.001, 0.002], "max_lr": 0.01, "step_size_up": 2, "step_size_down": 5,
     "mode": "exp_range", "gamma": 0.9, "max_momentum": [0.95, 0.9], "base_momentum": 0.85}])
def test_cyclic_lr_cycles_adams_beta1_like_torch(kwargs):
    ours = make_scheduler(mt, "CyclicLR", kwargs, 2, kind="Adam", betas=(0.9, 0.99))
    theirs = make_scheduler(torch, "CyclicLR", kwargs, 2, kind="Adam", betas=(0.9, 0.99))
    seen = trace(ours, LONG)
    assert_same(seen, trace(theirs, LONG))
    assert {betas[1] for step in seen for betas in step["betas"]} == {0.99}
    assert len({step["betas"][0][0] for step in seen}) > 2


def test_cyclic_lr_sets_the_momentum_of_sgd_without_momentum_like_torch():
    """As in PyTorch, SGD's momentum of 0 still has a "momentum" key, so it is cycled."""
    kwargs = {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2}
    ours = make_scheduler(mt, "CyclicLR", kwargs, 1, momentum=0.0)
    theirs = make_scheduler(torch, "CyclicLR", kwargs, 1, momentum=0.0)
    assert_same(trace(ours, 8), trace(theirs, 8))
    assert ours.optimizer.param_groups[0]["momentum"] == pytest.approx(0.9)


def _flat(rows):
    return [value for row in rows for value in row]


@pytest.mark.parametrize(("T_0", "T_mult", "iters"), [(3, 1, 5), (2, 2, 7), (1, 3, 4),
                                                      (5, 2, 3)])
def test_warm_restarts_per_batch_with_fractional_epochs_like_torch(T_0, T_mult, iters):
    """The documented use: ``scheduler.step(epoch + i / iters)`` after every batch."""
    def run(lib):
        scheduler = make_scheduler(lib, "CosineAnnealingWarmRestarts",
                                   {"T_0": T_0, "T_mult": T_mult, "eta_min": 0.001}, 2)
        seen = []
        for epoch in range(12):
            for i in range(iters):
                scheduler.optimizer.step()
                scheduler.step(epoch + i / iters)
                seen.append((scheduler.last_epoch, scheduler.T_cur, scheduler.T_i,
                             *scheduler.get_last_lr()))
        return seen

    ours, theirs = run(mt), run(torch)
    assert [row[0] for row in ours] == [row[0] for row in theirs]
    assert [row[2] for row in ours] == [row[2] for row in theirs]
    assert _flat(ours) == pytest.approx(_flat(theirs), rel=1e-12, abs=1e-15)
    periods = {row[2] for row in ours}
    assert periods == {T_0} if T_mult == 1 else len(periods) > 1
    assert any(row[1] == 0 for row in ours[iters:])  # it did restart


def test_warm_restarts_interleave_step_and_step_epoch_like_torch():
    def run(lib):
        scheduler = make_scheduler(lib, "CosineAnnealingWarmRestarts",
                                   {"T_0": 3, "T_mult": 2}, 1)
        seen = []
        for epoch in [None] * 5 + [26, None, None, 2.5, None, 0, None, 44.75, None]:
            scheduler.optimizer.step()
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no deprecation warning, as in PyTorch
                scheduler.step(epoch)
            seen.append((scheduler.last_epoch, scheduler.T_cur, scheduler.T_i,
                         *scheduler.get_last_lr()))
        return seen

    ours, theirs = run(mt), run(torch)
    assert _flat(ours) == pytest.approx(_flat(theirs), rel=1e-12, abs=1e-15)
    assert ours[6][0] == 27  # step() after step(26) goes on from 26


@pytest.mark.parametrize("build", COMPOSITE_PARAMS)
@pytest.mark.parametrize("groups", [1, 2])
def test_sequential_and_chained_match_torch(build, groups):
    ours, theirs = _composite(mt, build, groups), _composite(torch, build, groups)
    seen = trace(ours, LONG)
    assert_same(seen, trace(theirs, LONG))
    for mine, reference in zip(ours._schedulers, theirs._schedulers):
        assert getattr(mine, "last_epoch", None) == getattr(reference, "last_epoch", None)
        assert mine.get_last_lr() == pytest.approx(reference.get_last_lr(), rel=1e-12)
    assert len({step["lr"][0] for step in seen}) > 5


def test_sequential_lr_hands_over_at_the_milestone():
    """A warm-up to the base rate, then the cosine starts from it at its epoch 0."""
    scheduler = _composite(mt, _warm_up_then_cosine, 1)
    rates = [step["lr"][0] for step in trace(scheduler, 8)]
    assert rates[:6] == pytest.approx([0.01, 0.028, 0.046, 0.064, 0.082, 0.1])
    assert rates[6] < 0.1
    assert scheduler.last_epoch == 8
    assert scheduler._schedulers[1].last_epoch == 3


@pytest.mark.parametrize(("name", "kwargs"), [
    ("PolynomialLR", {"total_iters": 8, "power": 2.0}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3})])
def test_step_with_epoch_like_torch(name, kwargs):
    """PolynomialLR's closed form; CyclicLR has none, and computes the rate at the epoch."""
    def run(lib):
        scheduler = make_scheduler(lib, name, kwargs, 2)
        rates = []
        for epoch in (1, 2, 6, 3, 11, 0, 4, 9):
            scheduler.optimizer.step()
            with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step"):
                scheduler.step(epoch)
            rates.extend([scheduler.last_epoch, *scheduler.get_last_lr()])
        return rates

    assert run(mt) == pytest.approx(run(torch), rel=1e-12, abs=1e-15)


# -- state dicts ---------------------------------------------------------------------------
def _assert_state_equal(mine, reference, where):
    assert sorted(mine) == sorted(reference), where
    for key, value in reference.items():
        if key == "_schedulers":
            assert len(mine[key]) == len(value), where
            for number, (inner, inner_ref) in enumerate(zip(mine[key], value)):
                _assert_state_equal(inner, inner_ref, (*where, number))
        elif isinstance(value, float) or (isinstance(value, list) and value
                                          and isinstance(value[0], float)):
            assert mine[key] == pytest.approx(value, rel=1e-12), (*where, key)
        else:
            assert mine[key] == value, (*where, key)


@_WARNS_WHEN_BUILT
def test_state_dicts_have_torchs_keys_and_values():
    for name, kwargs, groups in ALL_CASES:
        ours = make_scheduler(mt, name, kwargs, groups)
        theirs = make_scheduler(torch, name, kwargs, groups)
        trace(ours, 7)
        trace(theirs, 7)
        _assert_state_equal(ours.state_dict(), theirs.state_dict(), (name,))
    for build in COMPOSITES:
        ours, theirs = _composite(mt, build), _composite(torch, build)
        trace(ours, 7)
        trace(theirs, 7)
        _assert_state_equal(ours.state_dict(), theirs.state_dict(), (build.__name__,))


def _saved_and_loaded(optimizer, scheduler):
    buffer = io.BytesIO()
    mt.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()},
            buffer)
    buffer.seek(0)
    return mt.load(buffer)


ROUND_TRIPS = [(name, kwargs) for name, kwargs, groups in ALL_CASES if groups == 2]


@pytest.mark.parametrize(("name", "kwargs"), ROUND_TRIPS,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(ROUND_TRIPS)])
@pytest.mark.parametrize("split", [1, 13])
def test_state_dict_round_trip_resumes_like_torch(name, kwargs, split):
    """Save after ``split`` steps (through minitorch_meta.save), build fresh, load both,
    continue: the rates are those of an unbroken PyTorch run."""
    first = make_scheduler(mt, name, kwargs, 2)
    trace(first, split)
    saved = _saved_and_loaded(first.optimizer, first)
    resumed = make_scheduler(mt, name, kwargs, 2)
    resumed.optimizer.load_state_dict(saved["optimizer"])
    resumed.load_state_dict(saved["scheduler"])
    theirs = trace(make_scheduler(torch, name, kwargs, 2), LONG)
    assert_same(trace(resumed, LONG - split), theirs[split:])


@pytest.mark.parametrize("build", COMPOSITE_PARAMS)
@pytest.mark.parametrize("split", [3, 17])
def test_sequential_and_chained_round_trip_resumes_like_torch(build, split):
    """The inner schedulers' states are saved and loaded with the outer one's."""
    first = _composite(mt, build)
    trace(first, split)
    saved = _saved_and_loaded(first.optimizer, first)
    resumed = _composite(mt, build)
    resumed.optimizer.load_state_dict(saved["optimizer"])
    resumed.load_state_dict(saved["scheduler"])
    assert len(saved["scheduler"]["_schedulers"]) == len(resumed._schedulers)
    theirs = trace(_composite(torch, build), LONG)
    assert_same(trace(resumed, LONG - split), theirs[split:])


@pytest.mark.parametrize("build", COMPOSITE_PARAMS)
def test_torchs_sequential_and_chained_state_dicts_load_into_ours(build):
    theirs = _composite(torch, build)
    trace(theirs, 9)
    ours = _composite(mt, build)
    for group, reference in zip(ours.optimizer.param_groups, theirs.optimizer.param_groups):
        group.update({k: v for k, v in reference.items() if k != "params"})
    state = theirs.state_dict()
    ours.load_state_dict(state)
    assert "_schedulers" in state  # the given dict is left whole
    assert_same(trace(ours, LONG - 9), trace(theirs, LONG - 9))


def test_composite_state_dict_is_a_copy_of_the_inner_states():
    scheduler = _composite(mt, _warm_up_then_cosine)
    state = scheduler.state_dict()
    state["_schedulers"][0]["base_lrs"].append(1.0)
    state["_milestones"].append(99)
    assert scheduler._schedulers[0].base_lrs == [0.1, 0.02]
    assert scheduler._milestones == [5]


def test_cyclic_lr_saves_a_callable_objects_state_but_no_function():
    kwargs = {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}
    with_function = make_scheduler(mt, "CyclicLR", {**kwargs, "scale_fn": _halving})
    assert with_function.state_dict()["_scale_fn_custom"] is None
    assert make_scheduler(mt, "CyclicLR", kwargs).state_dict()["_scale_fn_custom"] is None

    scheduler = make_scheduler(mt, "CyclicLR", {**kwargs, "scale_fn": _Damped(0.5)})
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] == {"rate": 0.5}
    state["_scale_fn_custom"]["rate"] = 2.0
    other = make_scheduler(mt, "CyclicLR", {**kwargs, "scale_fn": _Damped(0.5)})
    other.load_state_dict(state)
    assert other._scale_fn_custom.rate == 2.0
    assert state["_scale_fn_custom"] == {"rate": 2.0}  # the given dict is left whole
    assert scheduler._scale_fn_custom.rate == 0.5


# -- stepping the scheduler before the optimizer -------------------------------------------
WARNS = [("StepLR", {"step_size": 2}), ("PolynomialLR", {}),
         ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}),
         ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10})]
ORDER_WARNING = r"^Detected call of `lr_scheduler\.step\(\)` before `optimizer\.step\(\)`"


def _first_step_warnings(scheduler):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scheduler.step()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(("name", "kwargs"), WARNS, ids=[n for n, _ in WARNS])
def test_scheduler_step_before_optimizer_step_warns_like_torch(name, kwargs):
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, name, kwargs)
        with pytest.warns(UserWarning, match=ORDER_WARNING) as caught:
            scheduler.step()
        assert caught[0].filename == __file__  # points at the caller's line
        assert _first_step_warnings(scheduler) == []  # only the first step is checked


@pytest.mark.parametrize("build", COMPOSITE_PARAMS)
def test_sequential_and_chained_warn_through_their_schedulers_like_torch(build):
    """The inner schedulers' first steps warn (a chain inside a sequence already does when
    the sequence repeats its initial step, as in PyTorch)."""
    counts = []
    for lib in (mt, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler = _composite(lib, build)
            scheduler.step()
            scheduler.optimizer.step()
            scheduler.step()
        messages = [str(w.message) for w in caught]
        assert all(m.startswith("Detected call of `lr_scheduler.step()`") for m in messages)
        counts.append(len(messages))
    assert counts[0] == counts[1] > 0


def test_no_warning_when_the_optimizer_steps_first():
    for name, kwargs in WARNS:
        scheduler = make_scheduler(mt, name, kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):
                scheduler.optimizer.step()
                scheduler.step()
    scheduler = _composite(mt, _three_phases)
    scheduler.optimizer.step()
    assert _first_step_warnings(scheduler) == []


def test_warm_restarts_never_warn_like_torch():
    """PyTorch's CosineAnnealingWarmRestarts.step skips the check (and _step_count)."""
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, "CosineAnnealingWarmRestarts", {"T_0": 2})
        assert _first_step_warnings(scheduler) == []
        assert scheduler._step_count == 0


def test_a_resumed_scheduler_does_not_warn_like_torch():
    for lib in (mt, torch):
        first = make_scheduler(lib, "StepLR", {"step_size": 2})
        trace(first, 3)
        resumed = make_scheduler(lib, "StepLR", {"step_size": 2})
        resumed.load_state_dict(first.state_dict())
        assert _first_step_warnings(resumed) == []


def test_optimizers_count_their_steps_without_patching():
    optimizer = make_optimizer(mt, 1)
    step = type(optimizer).step
    mt.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    assert "step" not in vars(optimizer) and type(optimizer).step is step
    for _ in range(3):
        optimizer.step()
    assert optimizer._step_calls == 3
    assert make_optimizer(mt, 1)._step_calls == 0  # per optimizer, nothing global


class _Custom(mt.optim.Optimizer):
    """A custom optimizer overriding ``step``, as PyTorch tutorials write them."""

    def __init__(self, params, call_super):
        super().__init__(params, {"lr": 0.1})
        self.call_super = call_super
        self.calls = 0

    def step(self, closure=None):
        self.calls += 1
        if self.call_super:
            return super().step(closure)
        return None

    def _update(self, p, group):
        p.sub_(group["lr"] * p.grad)


@pytest.mark.parametrize("call_super", [False, True])
def test_custom_optimizer_steps_are_counted_once(call_super):
    optimizer = _Custom([mt.zeros(2, requires_grad=True)], call_super)
    scheduler = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    optimizer.step()
    optimizer.step()
    assert optimizer._step_calls == optimizer.calls == 2
    assert _first_step_warnings(scheduler) == []
    fresh = _Custom([mt.zeros(2, requires_grad=True)], call_super)
    scheduler = mt.optim.lr_scheduler.ExponentialLR(fresh, gamma=0.5)
    assert len(_first_step_warnings(scheduler)) == 1


def test_replaced_optimizer_step_is_named_in_the_warning():
    optimizer = make_optimizer(mt, 1)
    scheduler = mt.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    optimizer.step = lambda closure=None: None  # does not call the original step
    optimizer.step()
    [message] = _first_step_warnings(scheduler)
    assert message.startswith("Detected call of `lr_scheduler.step()`")
    assert "`optimizer.step` has been replaced on this optimizer" in message


# -- errors --------------------------------------------------------------------------------
TORCH_ERRORS = [  # PyTorch raises the same error with the same message
    ("CosineAnnealingWarmRestarts", {"T_0": 0}, 1, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": -2}, 1, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": 2.5}, 1, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 0}, 1, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 1.5}, 1, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "eta_min": "0"}, 1, "SGD"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0}, 1, "Adadelta"),
    ("CyclicLR", {"base_lr": [0.1], "max_lr": 1.0}, 2, "SGD"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": [1.0, 2.0, 3.0]}, 2, "SGD"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "base_momentum": [0.8]}, 2, "SGD"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "max_momentum": (0.9,)}, 2, "Adam"),
]


@pytest.mark.parametrize(("name", "kwargs", "groups", "kind"), TORCH_ERRORS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(TORCH_ERRORS)])
def test_bad_arguments_raise_torchs_errors(name, kwargs, groups, kind):
    assert_raises_like_torch(name, kwargs, groups, kind)


def test_cyclic_lr_unknown_mode_keeps_torchs_message_and_says_more():
    kwargs = {"base_lr": 0.1, "max_lr": 1.0, "mode": "sine"}
    with pytest.raises(ValueError) as theirs:
        make_scheduler(torch, "CyclicLR", kwargs)
    with pytest.raises(ValueError) as ours:
        make_scheduler(mt, "CyclicLR", kwargs)
    assert str(ours.value).startswith(str(theirs.value))
    assert "got 'sine'" in str(ours.value)


OUR_ERRORS = [  # PyTorch accepts these and fails later (or runs a wrong schedule)
    ("PolynomialLR", {"total_iters": 0}, ValueError,
     "PolynomialLR: expected total_iters to be a positive number of epochs, got 0"),
    ("PolynomialLR", {"total_iters": -3}, ValueError, "got -3"),
    ("PolynomialLR", {"total_iters": "5"}, ValueError, "got '5'"),
    ("PolynomialLR", {"power": -1.0}, ValueError,
     "PolynomialLR: expected power to be a number >= 0, got -1.0"),
    ("CosineAnnealingWarmRestarts", {"T_0": "3"}, ValueError,
     "Expected positive integer T_0, but got '3'"),
    ("CosineAnnealingWarmRestarts", {"T_0": True}, ValueError, "T_0, but got True"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 0}, ValueError,
     "CyclicLR: expected step_size_up to be a positive number of iterations, got 0"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": "10"}, ValueError,
     "step_size_up to be a positive number of iterations, got '10'"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_down": -1}, ValueError,
     "CyclicLR: expected step_size_down to be a non-negative number of iterations, got -1"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "scale_fn": _halving, "scale_mode": "epoch"},
     ValueError, "CyclicLR: expected scale_mode to be 'cycle' or 'iterations', got 'epoch'"),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "scale_fn": 0.5}, TypeError,
     "CyclicLR: expected scale_fn to be a function of one number, got float"),
]


@pytest.mark.parametrize(("name", "kwargs", "error", "message"), OUR_ERRORS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(OUR_ERRORS)])
def test_our_argument_checks(name, kwargs, error, message):
    with pytest.raises(error) as info:
        make_scheduler(mt, name, kwargs)
    assert message in str(info.value)


@pytest.mark.parametrize("epoch", [-1, -0.5, "3"])
def test_warm_restarts_step_rejects_a_bad_epoch(epoch):
    scheduler = make_scheduler(mt, "CosineAnnealingWarmRestarts", {"T_0": 2})
    if isinstance(epoch, str):
        with pytest.raises(ValueError, match="Expected a number epoch, but got '3'"):
            scheduler.step(epoch)
        return
    messages = []
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, "CosineAnnealingWarmRestarts", {"T_0": 2})
        with pytest.raises(ValueError) as info:
            scheduler.step(epoch)
        messages.append(str(info.value))
    assert messages[0] == messages[1] == f"Expected non-negative epoch, but got {epoch}"


def _composite_error(lib, kind):
    """Build a SequentialLR or ChainedScheduler from bad parts; return the exception."""
    optimizer = make_optimizer(lib, 1)
    other = make_optimizer(lib, 1)
    schedules = lib.optim.lr_scheduler
    step = schedules.StepLR(optimizer, step_size=2)
    builds = {
        "sequential-empty": lambda: schedules.SequentialLR(optimizer, [], []),
        "sequential-not-a-scheduler": lambda: schedules.SequentialLR(
            optimizer, [step, "cosine"], [3]),
        "sequential-plateau": lambda: schedules.SequentialLR(
            optimizer, [step, schedules.ReduceLROnPlateau(optimizer)], [3]),
        "sequential-other-optimizer": lambda: schedules.SequentialLR(
            optimizer, [step, schedules.ExponentialLR(other, gamma=0.9)], [3]),
        "sequential-milestones": lambda: schedules.SequentialLR(optimizer, [step], [3]),
        "chained-empty": lambda: schedules.ChainedScheduler([]),
        "chained-plateau": lambda: schedules.ChainedScheduler(
            [step, schedules.ReduceLROnPlateau(optimizer)]),
        "chained-other-optimizer": lambda: schedules.ChainedScheduler(
            [step, schedules.ExponentialLR(other, gamma=0.9)]),
        "chained-given-other-optimizer": lambda: schedules.ChainedScheduler(
            [step], optimizer=other),
    }
    with pytest.raises(Exception) as info:
        builds[kind]()
    return info


COMPOSITE_ERRORS = [  # (case, how much of PyTorch's message ours keeps)
    ("sequential-empty", None), ("sequential-not-a-scheduler", "attribute"),
    ("sequential-plateau", None), ("sequential-other-optimizer", "index 1"),
    ("sequential-milestones", None), ("chained-empty", None), ("chained-plateau", None),
    ("chained-other-optimizer", "index 1"), ("chained-given-other-optimizer", "index 0")]


@pytest.mark.parametrize(("kind", "prefix_until"), COMPOSITE_ERRORS,
                         ids=[kind for kind, _ in COMPOSITE_ERRORS])
def test_sequential_and_chained_bad_arguments_like_torch(kind, prefix_until):
    theirs, ours = _composite_error(torch, kind), _composite_error(mt, kind)
    assert ours.type is theirs.type
    expected = str(theirs.value)
    if prefix_until is None:
        assert str(ours.value) == expected
    else:  # PyTorch's text up to there, then ours (PyTorch prints the optimizers' reprs)
        prefix = expected[:expected.index(prefix_until) + len(prefix_until)]
        assert str(ours.value).startswith(prefix)
        assert str(ours.value) != prefix


@pytest.mark.parametrize("milestones", [[5, 3], [-1, 4], [2.5, 4], [True, 4], ["2", 4]])
def test_sequential_lr_rejects_bad_milestones(milestones):
    optimizer = make_optimizer(mt, 1)
    schedules = [mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9) for _ in range(3)]
    with pytest.raises(ValueError, match=r"SequentialLR: expected milestones to be "
                                         r"non-negative integers in non-decreasing order, "
                                         rf"got {re.escape(repr(milestones))}"):
        mt.optim.lr_scheduler.SequentialLR(optimizer, schedules, milestones)


def test_chained_scheduler_first_item_without_optimizer_raises_type_error():
    """PyTorch raises AttributeError reading ``schedulers[0].optimizer``; ours says what."""
    with pytest.raises(TypeError, match="ChainedScheduler at index 0 should have `optimizer` "
                                        r"as its attribute \(expected a learning-rate "
                                        r"scheduler, got str\)"):
        mt.optim.lr_scheduler.ChainedScheduler(["linear"])


def test_composite_load_state_dict_with_another_number_of_schedulers_raises():
    state = _composite(mt, _three_phases).state_dict()
    with pytest.raises(ValueError, match=r"SequentialLR\.load_state_dict: expected the states "
                                         "of 2 schedulers, got 3"):
        _composite(mt, _warm_up_then_cosine).load_state_dict(state)


def test_cyclic_lr_load_state_with_scale_fn_attributes_needs_a_scale_fn():
    kwargs = {"base_lr": 0.01, "max_lr": 0.1}
    state = make_scheduler(mt, "CyclicLR", {**kwargs, "scale_fn": _Damped(1.0)}).state_dict()
    with pytest.raises(ValueError, match="this scheduler has no scale_fn"):
        make_scheduler(mt, "CyclicLR", kwargs).load_state_dict(state)


def test_non_optimizer_raises_type_error():
    for lib in (mt, torch):
        for name, kwargs in [("PolynomialLR", {}), ("CosineAnnealingWarmRestarts", {"T_0": 2}),
                             ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0})]:
            with pytest.raises(TypeError, match="^list is not an Optimizer$"):
                getattr(lib.optim.lr_scheduler, name)([], **kwargs)
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        mt.optim.lr_scheduler.SequentialLR([], [], [])
