"""Regressions found by fuzzing ``nn.functional`` against PyTorch (random hyper-parameter
combinations on float64 inputs): one named test per bug, each comparing with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _pair(torch, device, array, requires_grad=False):
    """The same float64 (or int64) values as a PyTorch tensor and one of ours on ``device``."""
    ours = mt.tensor(array, device=device)
    theirs = torch.tensor(array)
    if requires_grad:
        ours.requires_grad_(True)
        theirs.requires_grad_(True)
    return ours, theirs


def _same_error(torch, call):
    """``call(library)`` raises in PyTorch and in ours, ours an instance of PyTorch's class."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(mt)


def _host(tensor):
    return tensor.detach().cpu().numpy()


# --- convolutions ---------------------------------------------------------------------------

@pytest.mark.parametrize("padding, stride", [("same", 2), ("full", 1)])
def test_conv_padding_string_errors_are_runtime_errors(torch_ref, padding, stride):
    """``F.conv2d(padding='same', stride=2)`` and an unknown padding string raise PyTorch's
    ``RuntimeError`` (they were plain ``ValueError``s); ``nn.Conv2d``'s stays a ValueError."""
    x, w = np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 3, 3))
    _same_error(torch_ref, lambda L: L.nn.functional.conv2d(
        L.tensor(x), L.tensor(w), stride=stride, padding=padding))
    _same_error(torch_ref, lambda L: L.nn.functional.conv1d(
        L.tensor(x[0]), L.tensor(w[0]), stride=stride, padding=padding))
    with pytest.raises(ValueError):
        mt.nn.Conv2d(1, 1, 3, stride=stride, padding=padding)
