"""state_dict / load_state_dict: keys, shapes, strict and non-strict loading, and weights
copied from PyTorch that give the same outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _model(torch):
    nn_ = torch.nn
    return nn_.Sequential(
        nn_.Conv2d(3, 4, 3, padding=1), nn_.ReLU(), nn_.MaxPool2d(2),
        nn_.Conv2d(4, 6, 3, stride=2, dilation=1, bias=False), nn_.Flatten(),
        nn_.Linear(6, 5), nn_.ReLU(), nn_.Linear(5, 3))


def test_keys_and_shapes_equal_pytorch(torch_ref):
    ours, theirs = _model(mt).state_dict(), _model(torch_ref).state_dict()
    assert [(k, tuple(v.shape)) for k, v in ours.items()] == \
           [(k, tuple(v.shape)) for k, v in theirs.items()]


def test_state_dict_is_detached_unless_keep_vars():
    layer = nn.Linear(2, 2)
    state = layer.state_dict()
    assert not state["weight"].requires_grad
    assert layer.state_dict(keep_vars=True)["weight"] is layer.weight
    assert list(layer.state_dict(prefix="fc.")) == ["fc.weight", "fc.bias"]


def test_non_persistent_buffers_are_left_out():
    m = nn.Module()
    m.register_buffer("kept", mt.zeros(1))
    m.register_buffer("dropped", mt.zeros(1), persistent=False)
    assert list(m.state_dict()) == ["kept"]


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-10), ("float32", 1e-4)])
def test_weights_from_pytorch_give_same_outputs_and_gradients(torch_ref, device, dtype, rtol):
    theirs = _model(torch_ref).to(getattr(torch_ref, dtype))
    ours = _model(mt).to(getattr(mt, dtype)).to(device)
    result = ours.load_state_dict({k: mt.from_numpy(v.numpy()) for k, v in
                                   theirs.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(dtype)
    x_theirs = torch_ref.from_numpy(x).requires_grad_()
    x_ours = mt.from_numpy(x).to(device).requires_grad_()
    y_theirs, y_ours = theirs(x_theirs), ours(x_ours)
    np.testing.assert_allclose(y_ours.detach().cpu().numpy(), y_theirs.detach().numpy(),
                               rtol=rtol, atol=rtol)
    (y_theirs ** 2).sum().backward()
    (y_ours ** 2).sum().backward()
    np.testing.assert_allclose(x_ours.grad.cpu().numpy(), x_theirs.grad.numpy(), rtol=rtol,
                               atol=rtol)
    for (name, p_ours), (_, p_theirs) in zip(ours.named_parameters(),
                                             theirs.named_parameters()):
        np.testing.assert_allclose(p_ours.grad.cpu().numpy(), p_theirs.grad.numpy(), rtol=rtol,
                                   atol=rtol, err_msg=name)


def test_loading_copies_values_in_place():
    source, target = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = target.weight
    target.load_state_dict(source.state_dict())
    assert target.weight is weight
    np.testing.assert_array_equal(target.weight.detach().numpy(), source.weight.detach().numpy())


def test_assign_replaces_the_parameters():
    source, target = nn.Linear(3, 2), nn.Linear(3, 2)
    target.load_state_dict(source.state_dict(), assign=True)
    assert isinstance(target.weight, nn.Parameter) and target.weight.requires_grad
    np.testing.assert_array_equal(target.bias.detach().numpy(), source.bias.detach().numpy())


def test_strict_loading_names_missing_and_unexpected_keys():
    net = nn.Sequential(nn.Linear(2, 2))
    state = {"0.weight": mt.ones(2, 2), "0.extra": mt.ones(1), "1.weight": mt.ones(1)}
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(state)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Sequential:\n"
        '\tMissing key(s) in state_dict: "0.bias". \n'
        '\tUnexpected key(s) in state_dict: "1.weight", "0.extra". ')


def test_non_strict_loading_reports_keys():
    net = nn.Sequential(nn.Linear(2, 2))
    result = net.load_state_dict({"0.weight": mt.ones(2, 2), "x": mt.ones(1)}, strict=False)
    assert result.missing_keys == ["0.bias"] and result.unexpected_keys == ["x"]
    assert repr(result) == "_IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=['x'])"
    assert net[0].weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_messages_equal_pytorch(torch_ref):
    def message(torch, state):
        net = torch.nn.Sequential(torch.nn.Linear(2, 2))
        with pytest.raises(RuntimeError) as info:
            net.load_state_dict(state)
        return str(info.value)

    mt_state = {"0.weight": mt.ones(3, 2), "0.bias": mt.ones(2), "zz": mt.ones(1)}
    torch_state = {"0.weight": torch_ref.ones(3, 2), "0.bias": torch_ref.ones(2),
                   "zz": torch_ref.ones(1)}
    assert message(mt, mt_state) == message(torch_ref, torch_state)


def test_size_mismatch_fails_even_when_not_strict():
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                           r"torch.Size\(\[3, 2\]\) from checkpoint, the shape in "
                                           r"current model is torch.Size\(\[2, 2\]\)"):
        nn.Linear(2, 2).load_state_dict({"weight": mt.ones(3, 2)}, strict=False)


def test_bad_inputs():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>"):
        nn.Linear(1, 1).load_state_dict([])
    with pytest.raises(RuntimeError, match='"weight", expected torch.Tensor or Tensor-like'):
        nn.Linear(1, 1).load_state_dict({"weight": [[1.0]], "bias": mt.ones(1)})


def test_meta_model_loads_real_weights():
    with mt.device("meta"):
        net = _model(mt)
    net.to_empty(device="cpu")
    source = _model(mt)
    net.load_state_dict(source.state_dict())
    x = mt.randn(1, 3, 8, 8)
    np.testing.assert_array_equal(net(x).detach().numpy(), source(x).detach().numpy())
