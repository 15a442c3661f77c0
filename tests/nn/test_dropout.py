"""Dropout: PyTorch's scaling and repr, identity in eval mode, and its error."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.nn import functional as F


def test_training_zeroes_about_p_and_keeps_the_mean():
    x = mt.ones(200, 100, requires_grad=True)
    y = F.dropout(x, p=0.3, generator=mt.Generator().manual_seed(0))
    values = y.detach().numpy()
    kept = values != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(values[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), values)  # gradient = the same mask and scale


def test_module_is_identity_in_eval_mode_and_prints_like_pytorch():
    layer = nn.Dropout(0.25)
    assert repr(layer) == "Dropout(p=0.25, inplace=False)"
    x = mt.randn(3, 4)
    layer.eval()
    assert layer(x) is x
    layer.train()
    assert mt.summary(nn.Sequential(nn.Linear(4, 4), layer), input_size=(2, 4)).rows


def test_extreme_probabilities_and_the_error():
    x = mt.randn(5)
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 1.0).abs().sum().item() == 0
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="between 0 and 1, but got -0.1"):
        F.dropout(x, -0.1)
