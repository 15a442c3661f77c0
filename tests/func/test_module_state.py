"""``torch.func.stack_module_state``, ``functionalize`` and
``replace_all_batch_norm_modules_`` against PyTorch: stacked values, names, leaves and
requires_grad, an ensemble run through ``vmap``, the errors, and batch norm's buffers."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

WEIGHTS = [np.arange(6, dtype=np.float32).reshape(2, 3) * k for k in (1.0, -0.5, 2.0)]


def _models(T, device="cpu"):
    """Three Linear(3, 2) + BatchNorm1d(2) models of known weights, both frameworks."""
    models = []
    for k, weight in enumerate(WEIGHTS):
        model = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2)).to(device)
        with T.no_grad():
            model[0].weight.copy_(T.tensor(weight, device=device))
            model[0].bias.fill_(k)
            model[1].running_mean.fill_(0.5 * k)
        models.append(model)
    return models


@pytest.mark.parametrize("name", ["stack_module_state", "functionalize",
                                  "replace_all_batch_norm_modules_"])
def test_names_and_signatures_are_torch_s(name):
    ours, theirs = getattr(mt.func, name), getattr(torch.func, name)
    assert list(inspect.signature(ours).parameters) == \
        list(inspect.signature(theirs).parameters)
    assert name in mt.func.__all__


def test_stack_module_state_equals_torch_s(device):
    params, buffers = mt.func.stack_module_state(_models(mt, device))
    want_params, want_buffers = torch.func.stack_module_state(_models(torch))
    for ours, theirs in ((params, want_params), (buffers, want_buffers)):
        assert list(ours) == list(theirs)
        for name, tensor in ours.items():
            assert tensor.shape == tuple(theirs[name].shape)
            assert tensor.dtype.name == str(theirs[name].dtype).removeprefix("torch.")
            assert tensor.device == tensor_device(device)
            assert tensor.requires_grad == theirs[name].requires_grad
            assert tensor.is_leaf
            np.testing.assert_array_equal(tensor.detach().cpu().numpy(),
                                          theirs[name].detach().numpy())


def test_stacked_parameters_are_new_leaves_an_optimizer_trains(device):
    models = _models(mt, device)
    params, _ = mt.func.stack_module_state(models)
    assert params["0.weight"].grad_fn is None
    params["0.weight"].sum().backward()
    assert models[0][0].weight.grad is None  # unrelated to the models' own
    np.testing.assert_array_equal(params["0.weight"].grad.cpu().numpy(), np.ones((3, 2, 3)))


def test_frozen_parameters_stack_without_grad(device):
    models = _models(mt, device)
    for model in models:
        model[0].bias.requires_grad_(False)
    params, _ = mt.func.stack_module_state(models)
    assert not params["0.bias"].requires_grad and params["0.weight"].requires_grad


def test_an_ensemble_runs_through_vmap_as_torch_s(device):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

    def run(T, dev):
        models = [model.eval() for model in _models(T, dev)]
        params, buffers = T.func.stack_module_state(models)

        def one(p, b, data):
            return T.func.functional_call(models[0], (p, b), (data,))

        return T.vmap(one, in_dims=(0, 0, None))(params, buffers,
                                                 T.tensor(x, device=dev)), params

    out, params = run(mt, device)
    want, want_params = run(torch, "cpu")
    np.testing.assert_allclose(out.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-5)
    out.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(params["0.weight"].grad.cpu().numpy(),
                               want_params["0.weight"].grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, message", [
    (lambda T: [], "stack_module_state: Expected at least one model, got 0."),
    (lambda T: [T.nn.Linear(2, 2), T.nn.Linear(2, 2).eval()],
     "stack_module_state: Expected all models to have the same training/eval mode."),
    (lambda T: [T.nn.Linear(2, 2), T.nn.Bilinear(2, 2, 2)],
     "stack_module_state: Expected all models to be of the same class."),
    (lambda T: [T.nn.Linear(2, 2), T.nn.Linear(2, 2).requires_grad_(False)],
     "Expected weight from each model to have the same .requires_grad"),
])
def test_stack_module_state_errors_are_torch_s(make, message):
    with pytest.raises(RuntimeError) as theirs:
        torch.func.stack_module_state(make(torch))
    with pytest.raises(RuntimeError) as ours:
        mt.func.stack_module_state(make(mt))
    assert str(ours.value) == str(theirs.value) == message


def test_stacking_a_module_list_works():
    params, _ = mt.func.stack_module_state(mt.nn.ModuleList([mt.nn.Linear(2, 3)] * 2))
    assert params["weight"].shape == (2, 3, 2)


def _mutating(T):
    def step(x, y):
        """Adds 1 to x in place and returns a product."""
        x.add_(1.0)
        return (x * y).sum(), [(x * y).exp()]
    return step


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_gives_torch_s_values_gradients_and_input_mutations(remove, device):
    def run(T, dev):
        # (In-place writes into graph tensors are refused here: x is not one.)
        leaf = T.tensor([0.5, -1.0, 2.0], device=dev, requires_grad=True)
        x, y = T.tensor([1.0, 2.0, 3.0], device=dev), leaf * 2
        total, (e,) = T.func.functionalize(_mutating(T), remove=remove)(x, y)
        (total + e.sum()).backward()
        return x, total, leaf.grad

    ours, theirs = run(mt, device), run(torch, "cpu")
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=1e-6)


def test_functionalize_keeps_the_function_s_name_and_doc():
    step = _mutating(mt)
    wrapped = mt.func.functionalize(step)
    assert wrapped.__name__ == "step" and wrapped.__doc__ == step.__doc__
    assert wrapped.__wrapped__ is step


def test_functionalize_refuses_other_remove_values_as_torch():
    with pytest.raises(RuntimeError) as theirs:
        torch.func.functionalize(abs, remove="views")
    with pytest.raises(RuntimeError) as ours:
        mt.func.functionalize(abs, remove="views")
    assert str(ours.value) == str(theirs.value)


def _with_batch_norms(T):
    return T.nn.Sequential(T.nn.BatchNorm2d(3), T.nn.Sequential(T.nn.BatchNorm1d(2)),
                           T.nn.BatchNorm3d(1, track_running_stats=False),
                           T.nn.LayerNorm(2), T.nn.InstanceNorm1d(2, track_running_stats=True))


def _state(model):
    return [(name, type(m).__name__, m.track_running_stats,
             [b for b, value in m._buffers.items() if value is not None])
            for name, m in model.named_modules() if hasattr(m, "track_running_stats")]


def test_replace_all_batch_norm_modules_as_torch():
    ours, theirs = _with_batch_norms(mt), _with_batch_norms(torch)
    assert mt.func.replace_all_batch_norm_modules_(ours) is ours
    torch.func.replace_all_batch_norm_modules_(theirs)
    assert _state(ours) == _state(theirs)
    assert ours[0].running_mean is None and not ours[1][0].track_running_stats
    assert ours[4].running_mean is not None  # instance norm is not batch norm
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_a_replaced_batch_norm_normalises_with_batch_statistics_in_eval(device):
    layer = mt.nn.BatchNorm1d(2, device=device)
    mt.func.replace_all_batch_norm_modules_(layer).eval()
    x = mt.tensor([[1.0, 10.0], [3.0, 30.0]], device=device)
    np.testing.assert_allclose(layer(x).detach().cpu().numpy(), [[-1, -1], [1, 1]], atol=1e-4)


def test_replacing_a_bare_batch_norm_root_changes_it():
    layer = mt.func.replace_all_batch_norm_modules_(mt.nn.BatchNorm1d(2))
    assert layer.running_var is None and layer.num_batches_tracked is None
