"""LBFGS: PyTorch's iterates (fixed step and strong-Wolfe line search) on a quadratic,
Rosenbrock and a linear regression, the loss ``step`` returns, PyTorch's state layout and
state-dict round trips, argument errors, devices and meta."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import MetaDataError
from minitorch_meta.optim import LBFGS
from minitorch_meta.optim.line_search import Trial, cubic_minimum

torch = pytest.importorskip("torch", reason="PyTorch is the reference for optimizer updates")

F64 = {"rtol": 1e-10, "atol": 1e-10}
WOLFE = "strong_wolfe"


# -- the problems: the same graph in both libraries, parameters from NumPy -------------------
def _quadratic(lib, dtype, device="cpu"):
    """A badly conditioned convex quadratic 0.5 x'Ax - b'x in a (2, 3) matrix parameter."""
    rng = np.random.default_rng(0)
    m = rng.standard_normal((6, 6))
    a = lib.tensor((m @ m.T + 0.1 * np.eye(6)).astype(dtype), device=device)
    b = lib.tensor(rng.standard_normal(6).astype(dtype), device=device)
    x = lib.tensor(rng.standard_normal((2, 3)).astype(dtype), device=device, requires_grad=True)

    def loss():
        v = x.reshape(-1)
        return 0.5 * (v * lib.matmul(a, v)).sum() - (b * v).sum()

    return [x], loss


def _rosenbrock(lib, dtype, device="cpu"):
    """The Rosenbrock valley in five dimensions, from the classic start (-1.2, 1, ...)."""
    x = lib.tensor(np.array([-1.2, 1.0, -0.5, 0.8, 1.5], dtype=dtype), device=device,
                   requires_grad=True)

    def loss():
        return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()

    return [x], loss


def _regression(lib, dtype, device="cpu"):
    """Least squares of an ``nn.Linear`` (weight and bias) on noisy linear data."""
    rng = np.random.default_rng(1)
    inputs = rng.standard_normal((20, 4)).astype(dtype)
    targets = (inputs @ rng.standard_normal((4, 2)) + 0.1 * rng.standard_normal((20, 2)))
    model = lib.nn.Linear(4, 2, dtype=lib.float64 if dtype == np.float64 else lib.float32,
                          device=device)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(rng.standard_normal((2, 4)).astype(dtype)))
        model.bias.copy_(lib.tensor(rng.standard_normal(2).astype(dtype)))
    x = lib.tensor(inputs, device=device)
    y = lib.tensor(targets.astype(dtype), device=device)

    def loss():
        return lib.nn.functional.mse_loss(model(x), y)

    return list(model.parameters()), loss


PROBLEMS = {"quadratic": _quadratic, "rosenbrock": _rosenbrock, "regression": _regression}
OPTIONS = [
    {},
    {"line_search_fn": WOLFE},
    # Rosenbrock's valley multiplies rounding differences (BLAS dot products, fused
    # multiply-adds) by ~500 every 20 fixed steps of a one-pair history: keep that run short
    {"history_size": 1, "max_iter": 5},
    {"history_size": 3, "max_iter": 7},
    {"history_size": 2, "max_iter": 5, "line_search_fn": WOLFE},
    {"history_size": 5, "max_iter": 4, "max_eval": 6, "line_search_fn": WOLFE},
    {"max_iter": 1},  # one iteration per step: the direction carries over between steps
    {"max_iter": 6, "max_eval": 4},  # the evaluation budget ends the step
    {"max_iter": 6, "max_eval": 4, "line_search_fn": WOLFE},
    {"lr": 0.3},
    {"lr": 0.5, "line_search_fn": WOLFE, "history_size": 4},
    {"tolerance_grad": 1e-3, "tolerance_change": 1e-4, "max_iter": 50},
    {"tolerance_change": 1e-3, "line_search_fn": WOLFE},
]


def _run(lib, problem, options, steps=4, dtype=np.float64, device="cpu"):
    params, loss_fn = PROBLEMS[problem](lib, dtype, device)
    optimizer = lib.optim.LBFGS(params, **options)

    def closure():
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    losses = [optimizer.step(closure).item() for _ in range(steps)]
    return params, losses, optimizer


def _numbers(value):
    """A state entry as NumPy numbers (tensors, floats, lists of them, None as NaN)."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if value is None:
        return np.nan
    return np.asarray(value.detach().numpy() if hasattr(value, "detach") else value,
                      dtype=np.float64)


def _assert_same_state(ours: dict, theirs: dict, **tolerance):
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        if key in ("func_evals", "n_iter"):
            assert ours[key] == value, key
            continue
        expected, actual = _numbers(value), _numbers(ours[key])
        if isinstance(expected, list):
            assert len(actual) == len(expected), key
            for a, e in zip(actual, expected):
                np.testing.assert_allclose(a, e, **tolerance, err_msg=key)
        else:
            np.testing.assert_allclose(actual, expected, **tolerance, err_msg=key)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_iterates_losses_and_state_match_torch_in_float64(problem, options):
    ours, ours_losses, ours_opt = _run(mt, problem, options)
    theirs, theirs_losses, theirs_opt = _run(torch, problem, options)
    for a, e in zip(ours, theirs):
        assert a.dtype == mt.float64
        np.testing.assert_allclose(a.detach().numpy(), e.detach().numpy(), **F64)
    np.testing.assert_allclose(ours_losses, theirs_losses, **F64)
    # (the state's old_dirs are differences of gradients, so their rounding error is the
    # gradients' size, not their own: 1.2e-10 on an entry of 2e-5 on an AVX-512 machine)
    _assert_same_state(ours_opt.state_dict()["state"][0],
                       theirs_opt.state_dict()["state"][0], rtol=1e-6, atol=1e-9)
    assert sorted(ours_opt.state_dict()["state"]) == [0]  # all of it with the first parameter


@pytest.mark.parametrize("options", [{}, {"line_search_fn": WOLFE}], ids=str)
@pytest.mark.parametrize("problem", ["quadratic", "regression"])
def test_float32_follows_torch(problem, options):
    ours, _, ours_opt = _run(mt, problem, options, steps=2, dtype=np.float32)
    theirs, _, _ = _run(torch, problem, options, steps=2, dtype=np.float32)
    for a, e in zip(ours, theirs):
        assert a.dtype == mt.float32
        np.testing.assert_allclose(a.detach().numpy(), e.detach().numpy(), rtol=1e-3, atol=1e-4)
    state = ours_opt.state[ours[0]]
    assert state["d"].dtype == mt.float32 and state["ro"][0].dtype == mt.float32


@pytest.mark.parametrize("options", [
    {"lr": 1e-4, "tolerance_change": 1e-3},  # the step is tiny, the loss still moves
    {"lr": 1e-4, "tolerance_change": 1e-3, "line_search_fn": WOLFE},
    {"tolerance_grad": 1e4},  # already optimal
    {"tolerance_change": 1e3},  # the loss moves less than that
], ids=str)
def test_each_stopping_rule_stops_where_torchs_does(options):
    def run(lib):
        x = lib.tensor([3.0, -1.0, 0.5], dtype=lib.float64, requires_grad=True)
        optimizer = lib.optim.LBFGS([x], **options)

        def closure():
            optimizer.zero_grad()
            # steep: small steps, large loss changes; not isotropic, so that no step lands
            # exactly on the minimum (where the last bits of a fused multiply-add decide)
            loss = 1e6 * (lib.tensor([1.0, 2.0, 5.0], dtype=lib.float64) * (x - 1) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(2):
            optimizer.step(closure)
        state = optimizer.state_dict()["state"][0]
        return x.detach().numpy(), state["n_iter"], state["func_evals"]

    (ours, *ours_counts), (theirs, *theirs_counts) = run(mt), run(torch)
    assert ours_counts == theirs_counts
    np.testing.assert_allclose(ours, theirs, **F64)


def test_step_returns_the_closures_first_loss_and_counts_evaluations():
    x = mt.tensor([3.0, -2.0], dtype=mt.float64, requires_grad=True)
    optimizer = LBFGS([x], max_iter=5)
    returned = []

    def closure():
        optimizer.zero_grad()
        loss = ((x - 1) ** 2).sum() * (x * x).sum()
        loss.backward()
        returned.append(loss)
        return loss

    assert optimizer.step(closure) is returned[0]
    assert len(returned) == 5  # one per iteration: the last step is not re-evaluated
    assert optimizer.state[x]["func_evals"] == 5 and optimizer.state[x]["n_iter"] == 5
    assert optimizer._step_calls == 1


def test_an_optimal_start_returns_at_once_with_only_the_counts():
    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        optimizer = lib.optim.LBFGS([x])

        def closure():
            optimizer.zero_grad()
            loss = (x * 0).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
        return x, optimizer.state_dict()["state"][0]

    (x, ours), (_, theirs) = run(mt), run(torch)
    assert ours == theirs == {"func_evals": 1, "n_iter": 0}
    assert x.tolist() == [1.0, 2.0]


def test_a_parameter_without_gradient_counts_as_zero_gradient():
    def run(lib):
        x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        unused = lib.tensor([[1.0, 2.0]], dtype=lib.float64, requires_grad=True)
        optimizer = lib.optim.LBFGS([unused, x], line_search_fn=WOLFE)

        def closure():
            optimizer.zero_grad()
            loss = ((x - 3) ** 4).sum()
            loss.backward()
            return loss

        for _ in range(3):
            optimizer.step(closure)
        return x.detach().numpy(), unused.detach().numpy()

    for a, e in zip(run(mt), run(torch)):
        np.testing.assert_allclose(a, e, **F64)


def test_a_tensor_learning_rate_is_its_value():
    ours, _, _ = _run(mt, "quadratic", {"lr": 0.3})
    params, loss_fn = _quadratic(mt, np.float64)
    optimizer = LBFGS(params, lr=mt.tensor(0.3, dtype=mt.float64))

    def closure():
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(4):
        optimizer.step(closure)
    np.testing.assert_array_equal(params[0].detach().numpy(), ours[0].detach().numpy())


# -- state dicts --------------------------------------------------------------------------
@pytest.mark.parametrize("options, keys", [
    ({"max_iter": 1}, ["H_diag", "d", "func_evals", "n_iter", "old_dirs", "old_stps",
                       "prev_flat_grad", "prev_loss", "ro", "t"]),
    ({}, ["H_diag", "al", "d", "func_evals", "n_iter", "old_dirs", "old_stps",
          "prev_flat_grad", "prev_loss", "ro", "t"]),
], ids=["one-iteration", "default"])
def test_state_keys_are_torchs(options, keys):
    _, _, ours = _run(mt, "rosenbrock", options, steps=1)
    _, _, theirs = _run(torch, "rosenbrock", options, steps=1)
    assert sorted(ours.state_dict()["state"][0]) == sorted(theirs.state_dict()["state"][0]) == keys
    group = ours.state_dict()["param_groups"][0]
    assert group == {k: v for k, v in theirs.state_dict()["param_groups"][0].items()}


@pytest.mark.parametrize("options", [{"history_size": 3, "max_iter": 4},
                                     {"line_search_fn": WOLFE, "max_iter": 3}], ids=str)
def test_saved_and_loaded_state_resumes_exactly(options, tmp_path):
    straight, _, _ = _run(mt, "rosenbrock", options, steps=4)

    params, loss_fn = _rosenbrock(mt, np.float64)

    def train(optimizer, steps):
        def closure():
            optimizer.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss

        for _ in range(steps):
            optimizer.step(closure)

    first = LBFGS(params, **options)
    train(first, 2)
    mt.save(first.state_dict(), tmp_path / "lbfgs.ckpt")
    saved = first.state_dict()
    evals = saved["state"][0]["func_evals"]
    resumed = LBFGS(params, **options)
    resumed.load_state_dict(mt.load(tmp_path / "lbfgs.ckpt"))
    train(resumed, 2)
    np.testing.assert_array_equal(params[0].detach().numpy(), straight[0].detach().numpy())
    # loading copied the history: training on left the saved dict as it was
    assert saved["state"][0]["func_evals"] == evals
    assert resumed.state_dict()["state"][0]["func_evals"] > evals


def test_torchs_state_dict_loads_and_continues_like_torch():
    options = {"history_size": 4, "max_iter": 3}
    _, _, reference = _run(torch, "rosenbrock", options, steps=2)
    saved = reference.state_dict()

    def convert(value):
        if isinstance(value, list):
            return [convert(v) for v in value]
        return mt.tensor(value.numpy()) if isinstance(value, torch.Tensor) else value

    converted = {"state": {0: {k: convert(v) for k, v in saved["state"][0].items()}},
                 "param_groups": [dict(g) for g in saved["param_groups"]]}
    start = reference.param_groups[0]["params"][0].detach().numpy().copy()
    results = []
    for lib, state in ((mt, converted), (torch, saved)):
        x = lib.tensor(start, requires_grad=True)
        optimizer = lib.optim.LBFGS([x], **options)
        optimizer.load_state_dict(state)

        def closure(optimizer=optimizer, x=x, lib=lib):
            optimizer.zero_grad()
            loss = ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(2):
            optimizer.step(closure)
        results.append(x.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], **F64)


def test_loading_casts_the_history_to_the_parameters_dtype():
    _, _, source = _run(mt, "quadratic", {"history_size": 3}, steps=1)
    x = mt.zeros(2, 3, requires_grad=True)  # float32
    optimizer = LBFGS([x], history_size=3)
    optimizer.load_state_dict(source.state_dict())
    state = optimizer.state[x]
    assert state["d"].dtype == mt.float32 and state["prev_flat_grad"].dtype == mt.float32
    assert {v.dtype for v in state["old_dirs"] + state["old_stps"] + state["ro"]} == {mt.float32}
    assert state["old_dirs"][0] is not source.state_dict()["state"][0]["old_dirs"][0]


# -- arguments and errors ------------------------------------------------------------------
def test_signature_defaults_and_repr_are_torchs():
    ours = inspect.signature(LBFGS.__init__).parameters
    theirs = inspect.signature(torch.optim.LBFGS.__init__).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()]
    assert list(inspect.signature(LBFGS.step).parameters) == ["self", "closure"]
    x = [mt.zeros(1, requires_grad=True)]
    assert repr(LBFGS(x, max_iter=8)) == repr(
        torch.optim.LBFGS([torch.zeros(1, requires_grad=True)], max_iter=8))
    assert LBFGS(x).param_groups[0]["max_eval"] == 25
    assert LBFGS(x, max_iter=9, max_eval=3).param_groups[0]["max_eval"] == 3


def _params(lib):
    return [lib.zeros(2, requires_grad=True)]


def test_two_parameter_groups_are_refused_as_torch_refuses_them():
    def groups(lib):
        return [{"params": [lib.zeros(1, requires_grad=True)]},
                {"params": [lib.zeros(1, requires_grad=True)], "lr": 0.1}]

    with pytest.raises(ValueError) as theirs:
        torch.optim.LBFGS(groups(torch))
    with pytest.raises(ValueError) as ours:
        LBFGS(groups(mt))
    assert str(ours.value).startswith(str(theirs.value))
    assert "one list" in str(ours.value)
    optimizer = LBFGS(_params(mt))
    with pytest.raises(ValueError, match="per-parameter options"):
        optimizer.add_param_group({"params": [mt.zeros(1, requires_grad=True)]})
    assert len(optimizer.param_groups) == 1


@pytest.mark.parametrize("args", [(), (None,), (3.0,)], ids=["missing", "None", "a number"])
def test_a_step_without_closure_raises_typeerror(args):
    with pytest.raises(TypeError):
        torch.optim.LBFGS(_params(torch)).step(*args)
    with pytest.raises(TypeError, match="closure" if args else None):
        LBFGS(_params(mt)).step(*args)


def test_step_without_closure_says_what_it_needs():
    with pytest.raises(TypeError, match="needs a closure.*returns the loss.*got None"):
        LBFGS(_params(mt)).step(None)


@pytest.mark.parametrize("options, message", [
    ({"lr": -1}, "Invalid learning rate: -1"),
    ({"lr": -0.5}, "Invalid learning rate: -0.5"),
])
def test_invalid_learning_rate_is_torchs_valueerror(options, message):
    with pytest.raises(ValueError) as theirs:
        torch.optim.LBFGS(_params(torch), **options)
    with pytest.raises(ValueError, match=message) as ours:
        LBFGS(_params(mt), **options)
    assert str(ours.value).startswith(str(theirs.value))


def test_a_tensor_learning_rate_must_have_one_element():
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        torch.optim.LBFGS(_params(torch), lr=torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="Tensor lr must be 1-element, got 2 elements"):
        LBFGS(_params(mt), lr=mt.tensor([1.0, 2.0]))


@pytest.mark.parametrize("size", [0, -3, 2.5, True])
def test_history_size_must_be_a_positive_integer(size):
    with pytest.raises(ValueError, match=f"Invalid history_size: {size!r}.*integer >= 1"):
        LBFGS(_params(mt), history_size=size)


def test_an_unknown_line_search_is_torchs_runtimeerror():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    optimizer = LBFGS([x], line_search_fn="backtracking")
    calls = []

    def closure():
        calls.append(1)
        optimizer.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported.*'backtracking'"):
        optimizer.step(closure)
    assert not calls and x.tolist() == [1.0, 2.0]  # refused before anything moved
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    reference = torch.optim.LBFGS([tx], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        reference.step(lambda: (reference.zero_grad(), (tx * tx).sum().backward(),
                                (tx * tx).sum())[-1])


# -- devices --------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"line_search_fn": WOLFE}], ids=str)
@pytest.mark.parametrize("problem", ["quadratic", "regression"])
def test_every_device_takes_torchs_steps(problem, options, device):
    ours, ours_losses, optimizer = _run(mt, problem, options, steps=2, device=device)
    theirs, theirs_losses, _ = _run(torch, problem, options, steps=2)
    state = optimizer.state[ours[0]]
    assert all(v.device.type == device for v in [state["d"], *state["old_dirs"], *state["ro"]])
    for a, e in zip(ours, theirs):
        assert a.device.type == device
        np.testing.assert_allclose(a.detach().cpu().numpy(), e.detach().numpy(), **F64)
    np.testing.assert_allclose(ours_losses, theirs_losses, **F64)


def test_a_step_on_meta_raises_the_meta_error_after_the_closure():
    with mt.device("meta"):
        model = mt.nn.Linear(3, 2)
        inputs = mt.empty(4, 3)
    optimizer = LBFGS(model.parameters())
    calls = []

    def closure():
        calls.append(1)
        optimizer.zero_grad()
        loss = model(inputs).sum()
        loss.backward()
        return loss

    with pytest.raises(MetaDataError, match="LBFGS.step: L-BFGS chooses .* meta tensors do "
                                            "not have; a meta tensor has a shape"):
        optimizer.step(closure)
    assert calls == [1]  # the closure ran: the model's shapes were checked


# -- the line search's interpolation --------------------------------------------------------
@pytest.mark.parametrize("points, bounds", [
    (((0.0, 1.0, -2.0), (1.0, 0.5, 1.0)), None),
    (((2.0, 0.3, 0.5), (0.5, 1.0, -1.0)), None),  # the farther point first
    (((0.0, 1.0, -1.0), (0.2, 0.9, -0.8)), (0.202, 2.0)),  # extrapolating, clamped
    (((0.0, 0.0, 1.0), (1.0, 0.0, 1.0)), None),  # no minimum: the middle
    (((0.0, 1.0, -3.0), (1.0, -5.0, -4.0)), (1.01, 10.0)),
])
def test_cubic_minimum_is_torchs_interpolation(points, bounds):
    from torch.optim.lbfgs import _cubic_interpolate

    (t1, f1, g1), (t2, f2, g2) = points
    expected = float(_cubic_interpolate(t1, f1, torch.tensor(g1, dtype=torch.float64), t2, f2,
                                        torch.tensor(g2, dtype=torch.float64), bounds=bounds))
    ours = cubic_minimum(Trial(t1, f1, None, g1), Trial(t2, f2, None, g2), bounds)
    assert ours == pytest.approx(expected, rel=1e-15, abs=1e-15)


def test_cubic_minimum_of_coincident_points_is_nan_not_an_exception():
    # PyTorch's arithmetic on tensor step lengths gives inf/NaN there; the clamp keeps NaN
    assert np.isnan(cubic_minimum(Trial(1.0, 1.0, None, -1.0), Trial(1.0, 2.0, None, 1.0)))


def test_cubic_minimum_without_a_real_minimum_takes_the_middle():
    # equal losses at one point make the slope term NaN, which falls to the middle too
    assert cubic_minimum(Trial(1.0, 1.0, None, -1.0), Trial(1.0, 1.0, None, 1.0)) == 1.0
    assert cubic_minimum(Trial(0.0, 0.0, None, 1.0), Trial(2.0, 1.0, None, 1.0)) == 1.0


# -- the line search on its own, against PyTorch's, on 1-d curves that take every branch -----
# phi(t) = a (t - c)^2 + b sin(w t), started at t0, with a budget of evaluations and
# tolerance_change: each case was picked for the branches it takes (noted)
WOLFE_CASES = [
    pytest.param(2.7, 3.9, 1.4, 14.7, 0.98, 9, 1e-2, id="zoom-high-becomes-low-stall"),
    pytest.param(1.4, 2.4, 0.3, 12.8, 0.052, 1, 1e-2, id="evaluations-run-out"),
    pytest.param(2.6, 4.8, 0.4, 19.0, 0.025, 22, 1e-9, id="first-bracket-step-good"),
    pytest.param(4.2, 2.8, 1.5, 15.2, 0.0046, 14, 1e-2, id="slope-turns-positive"),
    pytest.param(1.0, 2.0, 2.5, 9.0, 5.0, 25, 1e-2, id="bracket-below-tolerance"),
    pytest.param(1.9, 2.8, 1.0, 2.6, 0.031, 3, 1e-9, id="out-of-evaluations-from-the-start"),
    pytest.param(4.7, 4.8, 1.5, 7.3, 2.2, 19, 1e-9, id="loss-rises-after-two-trials"),
]


@pytest.mark.parametrize("a, c, b, w, t0, budget, tolerance", WOLFE_CASES)
def test_strong_wolfe_takes_torchs_decisions(a, c, b, w, t0, budget, tolerance):
    import math

    from torch.optim.lbfgs import _strong_wolfe

    from minitorch_meta.optim.line_search import strong_wolfe

    def f(t):
        return a * (t - c) ** 2 + b * math.sin(w * t)

    def slope(t):
        return 2 * a * (t - c) + b * w * math.cos(w * t)

    def as_tensor(value):
        return torch.tensor([value], dtype=torch.float64)

    loss, _, t, evals = _strong_wolfe(
        lambda x, t, d: (f(float(t)), as_tensor(slope(float(t)))), None, t0, as_tensor(1.0),
        f(0.0), as_tensor(slope(0.0)), torch.tensor(slope(0.0), dtype=torch.float64),
        tolerance_change=tolerance, max_ls=budget)
    trials = []

    def probe(t):
        trials.append(t)
        return Trial(t, f(t), None, slope(t))

    found, ours_evals = strong_wolfe(probe, Trial(0.0, f(0.0), None, slope(0.0)), t0, 1.0,
                                     tolerance_change=tolerance, max_evals=budget)
    assert ours_evals == evals == len(trials)
    # PyTorch computes some step lengths as tensors (a reciprocal, then a product): the
    # decisions are the same, the last bit may differ
    assert found.t == pytest.approx(float(t), rel=1e-12)
    assert found.loss == pytest.approx(loss, rel=1e-12)
