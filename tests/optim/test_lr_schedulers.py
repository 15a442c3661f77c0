"""Learning-rate schedulers against PyTorch: the rates step by step, the momentum cycled by
OneCycleLR, ``last_epoch``, state dicts (resuming mid-schedule) and error messages."""

from __future__ import annotations

import io
import warnings

import pytest

import minitorch_meta as mt
from minitorch_meta.optim import lr_scheduler
from tests.optim.scheduler_harness import (
    STEPS,
    assert_raises_like_torch,
    assert_same,
    make_optimizer,
    make_scheduler,
    trace,
)

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the schedulers")



def _decay(epoch):
    return 0.95 ** epoch


def _harmonic(epoch):
    return 1.0 / (epoch + 1)


def _late_cut(epoch):
    return 1.0 if epoch < 5 else 0.8


# (scheduler, arguments); each runs with 1 and 2 param groups
CASES = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("StepLR", {"step_size": 1, "gamma": 0.7}),
    ("MultiStepLR", {"milestones": [3, 7, 7, 20]}),
    ("MultiStepLR", {"milestones": [15, 5, 10], "gamma": 0.5}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("ExponentialLR", {"gamma": 1.05}),
    ("CosineAnnealingLR", {"T_max": 10}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}),
    ("CosineAnnealingLR", {"T_max": STEPS}),
    ("LambdaLR", {"lr_lambda": _decay}),
    ("LambdaLR", {"lr_lambda": _harmonic}),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.95}),
    ("MultiplicativeLR", {"lr_lambda": _late_cut}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.1, "total_iters": 10}),
    ("LinearLR", {"start_factor": 1.0, "end_factor": 0.0, "total_iters": 20}),
    ("ConstantLR", {}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 10}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": STEPS}),
    ("OneCycleLR", {"max_lr": 0.5, "epochs": 5, "steps_per_epoch": 6,
                    "anneal_strategy": "linear"}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": STEPS, "three_phase": True,
                    "pct_start": 0.25, "div_factor": 10.0, "final_div_factor": 100.0}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": STEPS + 5, "cycle_momentum": False}),
]
# arguments with one value per group, for 2 groups
TWO_GROUP_CASES = [
    ("LambdaLR", {"lr_lambda": [_decay, _harmonic]}),
    ("MultiplicativeLR", {"lr_lambda": (_late_cut, lambda epoch: 0.9)}),
    ("OneCycleLR", {"max_lr": [1.0, 0.2], "total_steps": STEPS,
                    "max_momentum": [0.95, 0.9], "base_momentum": (0.85, 0.8)}),
]
ALL_CASES = ([(name, kwargs, groups) for name, kwargs in CASES for groups in (1, 2)]
             + [(name, kwargs, 2) for name, kwargs in TWO_GROUP_CASES])

METRICS = [1.0, 0.8, 0.8, 0.8, 0.8, 0.79995, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.6, 0.65,
           0.66, 0.6, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4]
PLATEAU_CASES = [
    ({"patience": 2}, 1),
    ({"patience": 0, "cooldown": 2}, 2),
    ({"mode": "max", "patience": 1}, 1),
    ({"threshold_mode": "abs", "threshold": 0.05, "patience": 1}, 1),
    ({"mode": "max", "threshold_mode": "abs", "threshold": 0.01, "patience": 1}, 2),
    ({"factor": 0.5, "patience": 1, "min_lr": [0.05, 0.001]}, 2),
    ({"factor": 0.5, "patience": 1, "min_lr": 0.03}, 1),
    ({"factor": 0.9, "patience": 1, "eps": 0.009}, 2),
]


# -- the schedules, step by step ----------------------------------------------------------
@pytest.mark.parametrize(("name", "kwargs", "groups"), ALL_CASES,
                         ids=[f"{n}-{i}-{g}groups" for i, (n, _, g) in enumerate(ALL_CASES)])
def test_schedule_matches_torch(name, kwargs, groups):
    ours = make_scheduler(mt, name, kwargs, groups)
    theirs = make_scheduler(torch, name, kwargs, groups)
    assert_same(trace(ours), trace(theirs))
    assert ours.base_lrs == pytest.approx(theirs.base_lrs)
    assert ours.optimizer.param_groups[0]["initial_lr"] == \
        pytest.approx(theirs.optimizer.param_groups[0]["initial_lr"])


@pytest.mark.parametrize("kwargs", [{"max_lr": 0.01, "total_steps": STEPS},
                                    {"max_lr": [0.01, 0.002], "total_steps": STEPS,
                                     "three_phase": True, "anneal_strategy": "linear",
                                     "max_momentum": 0.9, "base_momentum": [0.8, 0.7]}])
def test_one_cycle_cycles_adams_beta1_like_torch(kwargs):
    ours = make_scheduler(mt, "OneCycleLR", kwargs, 2, kind="Adam", betas=(0.9, 0.99))
    theirs = make_scheduler(torch, "OneCycleLR", kwargs, 2, kind="Adam", betas=(0.9, 0.99))
    seen = trace(ours)
    assert_same(seen, trace(theirs))
    assert {betas[1] for step in seen for betas in step["betas"]} == {0.99}


@pytest.mark.parametrize(("kwargs", "groups"), PLATEAU_CASES,
                         ids=[str(i) for i in range(len(PLATEAU_CASES))])
def test_reduce_lr_on_plateau_matches_torch(kwargs, groups):
    sign = -1.0 if kwargs.get("mode") == "max" else 1.0
    metrics = [sign * m for m in METRICS]
    ours = make_scheduler(mt, "ReduceLROnPlateau", kwargs, groups)
    theirs = make_scheduler(torch, "ReduceLROnPlateau", kwargs, groups)
    seen = trace(ours, metrics=metrics)
    assert_same(seen, trace(theirs, metrics=metrics))
    assert seen[-1]["lr"] != seen[0]["lr"]  # the plateaus did cut the rate
    for key in ("best", "num_bad_epochs", "cooldown_counter", "min_lrs"):
        assert getattr(ours, key) == pytest.approx(getattr(theirs, key))


def test_reduce_lr_on_plateau_takes_tensor_metrics_and_new_groups():
    schedulers = []
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, "ReduceLROnPlateau", {"patience": 0, "min_lr": 1e-3})
        scheduler.step(lib.tensor(1.0))
        scheduler.optimizer.add_param_group({"params": [lib.zeros(1, requires_grad=True)],
                                             "lr": 0.5})
        for value in (1.0, 1.0, 0.5, 0.6):
            scheduler.step(lib.tensor(value))
        schedulers.append(scheduler)
    ours, theirs = schedulers
    assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr())
    assert ours.min_lrs == theirs.min_lrs == [1e-3, 1e-3]


def test_chained_schedulers_compose_like_torch():
    """Chainable forms: a warm-up and a decay on one optimizer multiply their factors."""
    def run(lib):
        optimizer = make_optimizer(lib, 2)
        warm_up = lib.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.2, total_iters=4)
        decay = lib.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        rates = []
        for _ in range(12):
            optimizer.step()
            warm_up.step()
            decay.step()
            rates.extend(decay.get_last_lr())
        return rates

    assert run(mt) == pytest.approx(run(torch), rel=1e-12)


# -- last_epoch, step(epoch), get_lr -----------------------------------------------------------
RESUMABLE = [("StepLR", {"step_size": 3}), ("MultiStepLR", {"milestones": [5, 6]}),
             ("ExponentialLR", {"gamma": 0.9}), ("CosineAnnealingLR", {"T_max": 8}),
             ("LambdaLR", {"lr_lambda": _decay}), ("MultiplicativeLR", {"lr_lambda": _late_cut}),
             ("LinearLR", {"total_iters": 8}), ("ConstantLR", {"total_iters": 4})]
BUILT_AT_AN_EPOCH = RESUMABLE + [
    ("PolynomialLR", {"total_iters": 10, "power": 2.0}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3})]


@pytest.mark.parametrize(("name", "kwargs"), BUILT_AT_AN_EPOCH,
                         ids=[n for n, _ in BUILT_AT_AN_EPOCH])
@pytest.mark.parametrize("last_epoch", [2, 3, 4, 5])
def test_last_epoch_argument_matches_torch(name, kwargs, last_epoch):
    """Built with ``last_epoch`` (groups holding ``initial_lr``): the initial step and the
    rest follow PyTorch, quirks included (StepLR decays in the initial step at a multiple)."""
    def build(lib):
        optimizer = make_optimizer(lib, 2)
        for group in optimizer.param_groups:
            group["initial_lr"] = 2 * group["lr"]
        return getattr(lib.optim.lr_scheduler, name)(optimizer, last_epoch=last_epoch, **kwargs)

    ours, theirs = build(mt), build(torch)
    assert ours.last_epoch == theirs.last_epoch == last_epoch + 1
    assert ours.base_lrs == pytest.approx(theirs.base_lrs)
    assert_same(trace(ours, 20), trace(theirs, 20))


def test_resuming_without_initial_lr_raises_torchs_key_error():
    errors = []
    for lib in (mt, torch):
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.StepLR(make_optimizer(lib, 2), step_size=2, last_epoch=3)
        errors.append(str(info.value).split("\\n")[0])
    assert errors[0] == errors[1]
    assert "param 'initial_lr' is not specified in param_groups[0]" in errors[0]


CLOSED_FORMS = RESUMABLE[:4] + RESUMABLE[5:]


@pytest.mark.parametrize(("name", "kwargs"), CLOSED_FORMS, ids=[n for n, _ in CLOSED_FORMS])
def test_step_with_epoch_uses_the_closed_form_like_torch(name, kwargs):
    def run(lib):
        scheduler = make_scheduler(lib, name, kwargs, 2)
        rates = []
        for epoch in (1, 2, 6, 3, 11, 0, 4):
            scheduler.optimizer.step()
            with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step"):
                scheduler.step(epoch)
            rates.extend([scheduler.last_epoch, *scheduler.get_last_lr()])
        return rates

    assert run(mt) == pytest.approx(run(torch), rel=1e-12)


def test_reduce_lr_on_plateau_step_with_epoch_warns():
    scheduler = make_scheduler(mt, "ReduceLROnPlateau", {})
    with pytest.warns(UserWarning, match="epoch parameter"):
        scheduler.step(1.0, epoch=7)
    assert scheduler.last_epoch == 7


def test_get_lr_outside_step_warns_to_use_get_last_lr():
    scheduler = make_scheduler(mt, "StepLR", {"step_size": 2})
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        scheduler.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.optimizer.step()
        scheduler.step()  # no warning inside step


# -- state dicts ---------------------------------------------------------------------------
def test_state_dicts_have_torchs_keys_and_values():
    for name, kwargs, groups in ALL_CASES + [("ReduceLROnPlateau", {"min_lr": [0.0, 0.1]}, 2)]:
        ours = make_scheduler(mt, name, kwargs, groups)
        theirs = make_scheduler(torch, name, kwargs, groups)
        metrics = [0.5] * 4 if name == "ReduceLROnPlateau" else None
        trace(ours, 4, metrics)
        trace(theirs, 4, metrics)
        mine, reference = ours.state_dict(), theirs.state_dict()
        assert sorted(mine) == sorted(reference), name
        for key, value in reference.items():
            if key in ("base_lrs", "_last_lr"):
                assert mine[key] == pytest.approx(value, rel=1e-12), (name, key)
            elif key != "_schedule_phases":
                assert mine[key] == value, (name, key)
        if name == "OneCycleLR":
            phases = [{**p, "end_step": pytest.approx(p["end_step"])}
                      for p in reference["_schedule_phases"]]
            assert mine["_schedule_phases"] == phases


ROUND_TRIPS = [(name, kwargs, groups) for name, kwargs, groups in ALL_CASES if groups == 2]


@pytest.mark.parametrize(("name", "kwargs", "groups"), ROUND_TRIPS + [
    ("ReduceLROnPlateau", {"patience": 1, "cooldown": 1, "min_lr": [0.05, 0.0]}, 2)],
    ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ROUND_TRIPS)] + ["ReduceLROnPlateau"])
@pytest.mark.parametrize("split", [1, 12])
def test_state_dict_round_trip_resumes_like_torch(name, kwargs, groups, split):
    """Save optimizer and scheduler after ``split`` steps (through minitorch_meta.save),
    build fresh ones, load both, and continue: the rates are those of an unbroken PyTorch run."""
    metrics = METRICS if name == "ReduceLROnPlateau" else None
    first = make_scheduler(mt, name, kwargs, groups)
    trace(first, split, metrics)
    buffer = io.BytesIO()
    mt.save({"optimizer": first.optimizer.state_dict(), "scheduler": first.state_dict()},
            buffer)
    buffer.seek(0)
    saved = mt.load(buffer)

    resumed = make_scheduler(mt, name, kwargs, groups)  # PyTorch's order: scheduler, then loads
    resumed.optimizer.load_state_dict(saved["optimizer"])
    resumed.load_state_dict(saved["scheduler"])
    rest = metrics[split:] if metrics else None
    theirs = trace(make_scheduler(torch, name, kwargs, groups), STEPS, metrics)
    assert_same(trace(resumed, STEPS - split, rest), theirs[split:])


@pytest.mark.parametrize(("name", "kwargs", "groups"), ROUND_TRIPS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ROUND_TRIPS)])
def test_torchs_state_dict_loads_into_ours(name, kwargs, groups):
    """The keys are PyTorch's, so a PyTorch scheduler's state continues here."""
    theirs = make_scheduler(torch, name, kwargs, groups)
    trace(theirs, 7)
    ours = make_scheduler(mt, name, kwargs, groups)
    for group, reference in zip(ours.optimizer.param_groups, theirs.optimizer.param_groups):
        group.update({k: v for k, v in reference.items() if k != "params"})
    ours.load_state_dict(theirs.state_dict())
    assert_same(trace(ours, STEPS - 7), trace(theirs, STEPS - 7))


def test_lambda_lr_saves_no_functions_but_callable_objects_state():
    class Warmup:
        def __init__(self, epochs):
            self.epochs = epochs

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.epochs)

    scheduler = make_scheduler(mt, "LambdaLR", {"lr_lambda": [_decay, Warmup(5)]}, 2)
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [None, {"epochs": 5}]
    state["lr_lambdas"][1]["epochs"] = 10
    other = make_scheduler(mt, "LambdaLR", {"lr_lambda": [_decay, Warmup(5)]}, 2)
    other.load_state_dict(state)
    assert other.lr_lambdas[0] is _decay and other.lr_lambdas[1].epochs == 10
    assert state["lr_lambdas"] == [None, {"epochs": 10}]  # the given dict is left as it was


def test_state_dict_is_a_copy():
    scheduler = make_scheduler(mt, "MultiStepLR", {"milestones": [2, 4]})
    state = scheduler.state_dict()
    state["base_lrs"].append(1.0)
    assert scheduler.base_lrs == [0.1]
    scheduler.load_state_dict(state)
    state["base_lrs"].clear()
    assert scheduler.base_lrs == [0.1, 1.0]
    assert type(scheduler.milestones).__name__ == "Counter"


def test_schedulers_run_on_meta_parameters():
    with mt.device("meta"):
        w = mt.empty(3, 4, requires_grad=True)
    optimizer = mt.optim.Adam([w], lr=0.1)
    scheduler = lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=5)
    for _ in range(4):  # the last step (number total_steps - 1) reaches min_lr
        optimizer.step()
        scheduler.step()
    assert scheduler.get_last_lr() == pytest.approx([0.1 / 25 / 1e4])
    assert optimizer.param_groups[0]["betas"] == pytest.approx((0.95, 0.999))


# -- errors --------------------------------------------------------------------------------
ERRORS = [
    ("ConstantLR", {"factor": 1.5}, 1, "SGD"),
    ("ConstantLR", {"factor": -0.1}, 1, "SGD"),
    ("LinearLR", {"start_factor": 0.0}, 1, "SGD"),
    ("LinearLR", {"start_factor": 1.5}, 1, "SGD"),
    ("LinearLR", {"end_factor": 1.5}, 1, "SGD"),
    ("LambdaLR", {"lr_lambda": [_decay]}, 2, "SGD"),
    ("MultiplicativeLR", {"lr_lambda": [_decay]}, 2, "SGD"),
    ("MultiplicativeLR", {"lr_lambda": 0.9}, 1, "SGD"),
    ("MultiplicativeLR", {"lr_lambda": [_decay, "fast"]}, 2, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 0}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 2.5}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "epochs": 3}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "epochs": 0, "steps_per_epoch": 3}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "epochs": 3, "steps_per_epoch": -1}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "pct_start": 1.5}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "pct_start": 1}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "anneal_strategy": "exp"}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": [1.0, 2.0], "total_steps": 10}, 1, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10, "base_momentum": [0.8]}, 2, "SGD"),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 10}, 1, "Adadelta"),
    ("ReduceLROnPlateau", {"factor": 1.0}, 1, "SGD"),
    ("ReduceLROnPlateau", {"mode": "avg"}, 1, "SGD"),
    ("ReduceLROnPlateau", {"threshold_mode": "percent"}, 1, "SGD"),
    ("ReduceLROnPlateau", {"min_lr": [0.1]}, 2, "SGD"),
]


@pytest.mark.parametrize(("name", "kwargs", "groups", "kind"), ERRORS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(ERRORS)])
def test_bad_arguments_raise_torchs_errors(name, kwargs, groups, kind):
    assert_raises_like_torch(name, kwargs, groups, kind)


@pytest.mark.parametrize("name", ["StepLR", "ExponentialLR", "OneCycleLR",
                                  "ReduceLROnPlateau"])
def test_non_optimizer_raises_type_error(name):
    kwargs = {"StepLR": {"step_size": 2}, "ExponentialLR": {"gamma": 0.5},
              "OneCycleLR": {"max_lr": 1.0, "total_steps": 4}, "ReduceLROnPlateau": {}}[name]
    for lib in (mt, torch):
        with pytest.raises(TypeError, match="^list is not an Optimizer$"):
            getattr(lib.optim.lr_scheduler, name)([], **kwargs)


def test_one_cycle_past_total_steps_raises_torchs_error():
    messages = []
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, "OneCycleLR", {"max_lr": 1.0, "total_steps": 4})
        trace(scheduler, 4)
        with pytest.raises(ValueError) as info:
            scheduler.step()
        messages.append(str(info.value))
    assert messages[0] == messages[1] == \
        "Tried to step 5 times. The specified number of total steps is 4"


def test_one_cycle_empty_phase_divides_by_zero_with_a_reason():
    kwargs = {"max_lr": 1.0, "total_steps": 10, "pct_start": 0.1}  # warm-up ends at step 0
    with pytest.raises(ZeroDivisionError):
        make_scheduler(torch, "OneCycleLR", kwargs)
    with pytest.raises(ZeroDivisionError, match="phase 0 of the schedule is empty"):
        make_scheduler(mt, "OneCycleLR", kwargs)


def test_plateau_with_min_lr_list_refuses_a_new_group_like_torch():
    messages = []
    for lib in (mt, torch):
        scheduler = make_scheduler(lib, "ReduceLROnPlateau", {"patience": 0, "min_lr": [0.0]})
        scheduler.optimizer.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        scheduler.step(1.0)
        with pytest.raises(RuntimeError) as info:
            scheduler.step(2.0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("T_max", [0, -3, "10"])
def test_cosine_annealing_rejects_bad_t_max(T_max):
    """Our addition: PyTorch divides by zero (or runs a mirrored schedule) later."""
    with pytest.raises(ValueError, match="T_max must be a positive number of epochs"):
        make_scheduler(mt, "CosineAnnealingLR", {"T_max": T_max})
