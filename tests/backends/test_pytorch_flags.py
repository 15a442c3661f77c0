"""``torch.backends.cudnn`` and ``torch.backends.mps``: the flags and checks scripts use,
with the values a PyTorch build without cuDNN or Metal gives."""

from __future__ import annotations

import pytest

import minitorch_meta as mt


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_cudnn_flags_have_torchs_defaults():
    torch = _torch()
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(mt.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name


def test_setting_the_flags_as_scripts_do_changes_no_result(monkeypatch):
    x = mt.randn(2, 3, 8, 8)
    conv = mt.nn.Conv2d(3, 4, 3)
    before = conv(x).detach().numpy()
    monkeypatch.setattr(mt.backends.cudnn, "benchmark", True)
    monkeypatch.setattr(mt.backends.cudnn, "deterministic", True)
    assert (conv(x).detach().numpy() == before).all()


def test_no_cudnn_and_no_metal_device_here():
    assert mt.backends.cudnn.is_available() is False
    assert mt.backends.cudnn.version() is None
    assert mt.backends.mps.is_available() is False and mt.backends.mps.is_built() is False
    device = "mps" if mt.backends.mps.is_available() else "cpu"
    assert mt.ones(1, device=device).device.type == "cpu"
