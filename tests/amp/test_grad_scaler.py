"""``GradScaler`` against PyTorch's on the CPU: the same sequences of scale, unscale_,
step (skipped when a gradient is inf or NaN) and update give the same scales, growth counts,
parameters and errors; disabled, every method passes through."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

torch = pytest.importorskip("torch", reason="PyTorch's GradScaler is the reference")


def _setup(T, device="cpu", **scaler_kwargs):
    w = T.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
    b = T.tensor([0.5], device=device, requires_grad=True)
    optimizer = T.optim.SGD([w, b], lr=0.1)
    scaler = T.amp.GradScaler("cpu" if device == "cpu" else device, **scaler_kwargs)
    return w, b, optimizer, scaler


def _iteration(T, w, b, optimizer, scaler, poison=None, unscale_first=False):
    """One training step; ``poison`` (inf or nan) is written into w's gradient."""
    optimizer.zero_grad()
    loss = ((w * 2.0).sum() + b.sum()) ** 2
    scaler.scale(loss).backward()
    if poison is not None:
        with T.no_grad():
            w.grad[1] = poison
    if unscale_first:
        scaler.unscale_(optimizer)
    result = scaler.step(optimizer)
    scaler.update()
    return result


SEQUENCES = {
    "clean": [None] * 5,
    "inf then clean": [math.inf, None, None, None],
    "nan twice": [math.nan, None, math.nan, None, None],
    "-inf": [-math.inf, None, None],
}


@pytest.mark.parametrize("unscale_first", [False, True])
@pytest.mark.parametrize("name", list(SEQUENCES))
def test_step_sequences_match_torch(name, unscale_first):
    kwargs = dict(init_scale=8.0, growth_interval=2)
    runs = {}
    for label, T in (("ours", mt), ("torch", torch)):
        w, b, optimizer, scaler = _setup(T, **kwargs)
        history = []
        for poison in SEQUENCES[name]:
            _iteration(T, w, b, optimizer, scaler, poison, unscale_first)
            history.append((scaler.get_scale(), scaler._get_growth_tracker(),
                            w.detach().numpy().copy(), b.detach().numpy().copy()))
        runs[label] = (history, scaler.state_dict())
    (ours, our_state), (theirs, their_state) = runs["ours"], runs["torch"]
    assert our_state == their_state
    for (s1, g1, w1, b1), (s2, g2, w2, b2) in zip(ours, theirs):
        assert (s1, g1) == (s2, g2)
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
        np.testing.assert_allclose(b1, b2, rtol=1e-6)


def test_unscaled_gradients_are_torchs():
    grads = {}
    for label, T in (("ours", mt), ("torch", torch)):
        w, b, optimizer, scaler = _setup(T, init_scale=1024.0)
        loss = ((w * 2.0).sum() + b.sum()) ** 2
        scaler.scale(loss).backward()
        scaled = w.grad.numpy().copy()
        scaler.unscale_(optimizer)
        grads[label] = (scaled, w.grad.numpy().copy(), b.grad.numpy().copy())
    for ours, theirs in zip(grads["ours"], grads["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_growth_stops_where_the_scale_would_overflow():
    for T in (mt, torch):
        w, b, optimizer, scaler = _setup(T, init_scale=3e38, growth_interval=1)
        scaler.scale((w * 1e-30).sum()).backward()  # finite gradients at this scale
        scaler.step(optimizer)
        scaler.update()
        assert scaler.get_scale() == pytest.approx(3e38, rel=1e-6)
        assert scaler._get_growth_tracker() == 0


def test_update_with_a_new_scale():
    for T in (mt, torch):
        w, b, optimizer, scaler = _setup(T)
        _iteration(T, w, b, optimizer, scaler)
        scaler.update(4.0)
        assert scaler.get_scale() == 4.0
        scaler.update(T.tensor(2.0))
        assert scaler.get_scale() == 2.0
        with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
            scaler.update(T.tensor([1.0, 2.0]))
        with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
            scaler.update(T.tensor(2.0, requires_grad=True))
        with pytest.raises(RuntimeError):  # one element, but not 0-d like the scale
            scaler.update(T.tensor([2.0]))


@pytest.mark.parametrize("T", ["ours", "torch"])
def test_errors_as_torch(T):
    T = mt if T == "ours" else torch
    w, b, optimizer, scaler = _setup(T)
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(optimizer)
    with pytest.raises(AssertionError, match="Attempted unscale_ but _scale is None"):
        scaler.unscale_(optimizer)
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        scaler.update()
    loss = (w * 2.0).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called on this "
                                           "optimizer since the last update"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the "
                                           "last update"):
        scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(optimizer, closure=lambda: None)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0"):
        T.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0"):
        T.amp.GradScaler("cpu", backoff_factor=1.0)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale([1.0])
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        scaler.load_state_dict({})


@pytest.mark.parametrize("T", ["ours", "torch"])
def test_float16_gradients_are_refused_by_unscale(T):
    T = mt if T == "ours" else torch
    w = T.ones(3, dtype=T.float16, requires_grad=True)
    optimizer = T.optim.SGD([w], lr=0.1)
    scaler = T.amp.GradScaler("cpu")
    scaler.scale((w.float() * 2).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.step(optimizer)


def test_scale_of_nested_outputs_and_state_dict_round_trip():
    for T in (mt, torch):
        scaler = T.amp.GradScaler("cpu", init_scale=4.0)
        x = T.ones(2)
        a, (c, d) = scaler.scale([x, (x * 2, x * 3)])
        assert a.tolist() == [4.0, 4.0] and d.tolist() == [12.0, 12.0]
        other = T.amp.GradScaler("cpu")
        other.load_state_dict({"scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                               "growth_interval": 7, "_growth_tracker": 2})
        assert other.state_dict() == {"scale": 8.0, "growth_factor": 3.0,
                                      "backoff_factor": 0.25, "growth_interval": 7,
                                      "_growth_tracker": 2}
        assert (other.get_growth_factor(), other.get_backoff_factor(),
                other.get_growth_interval()) == (3.0, 0.25, 7)


@pytest.mark.parametrize("T", ["ours", "torch"])
def test_disabled_scaler_passes_everything_through(T):
    T = mt if T == "ours" else torch
    w, b, optimizer, scaler = _setup(T, enabled=False)
    loss = (w * 2.0).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    assert w.tolist() == pytest.approx([0.8, -2.2, 2.8])
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}
    scaler.load_state_dict({})


def test_cuda_scaler_without_a_gpu_warns_and_disables_as_torch():
    if mt.cuda.is_available():
        pytest.skip("CUDA is usable here")
    for T in (mt, torch):
        with pytest.warns(UserWarning, match="torch.cuda.amp.GradScaler is enabled, but CUDA "
                                             "is not available.  Disabling."):
            scaler = T.amp.GradScaler()
        assert not scaler.is_enabled()
        with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is "
                                               "deprecated"):
            with pytest.warns(UserWarning, match="CUDA is not available"):
                T.cuda.amp.GradScaler()


def test_training_step_on_the_device(device):
    w, b, optimizer, scaler = _setup(mt, device, init_scale=8.0, growth_interval=1)
    x = mt.ones(4, 3, device=device)
    with mt.autocast(device, dtype=mt.float16):
        loss = mt.nn.functional.mse_loss(x @ w.unsqueeze(1), mt.zeros(4, 1, device=device))
    assert loss.dtype is mt.float32
    scaler.scale(loss).backward()
    assert w.grad.dtype is mt.float32 and w.grad.device == tensor_device(device)
    scaler.step(optimizer)
    scaler.update()
    assert scaler.get_scale() == 16.0
    assert scaler._scale.device == tensor_device(device)
    w.grad[0] = math.inf
    before = w.detach().cpu().numpy().copy()
    scaler.step(optimizer)
    scaler.update()
    np.testing.assert_array_equal(w.detach().cpu().numpy(), before)
    assert scaler.get_scale() == 8.0
