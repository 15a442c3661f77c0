"""Dropout2d: whole channels zeroed, the rest scaled by 1 / (1 - p), identity in eval mode,
reproducible with a generator, PyTorch's warnings, errors and repr."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.nn import functional as F


def test_whole_channels_are_zeroed_and_the_rest_scaled(device):
    x = mt.ones(40, 50, 3, 4, device=device, requires_grad=True)
    y = F.dropout2d(x, p=0.3, generator=mt.Generator(device).manual_seed(0))
    values = y.detach().cpu().numpy()
    per_channel = values.reshape(40, 50, 12)
    kept = per_channel[:, :, 0] != 0
    # each channel is all kept or all zero
    assert (per_channel == per_channel[:, :, :1]).all()
    assert abs(kept.mean() - 0.7) < 0.03
    np.testing.assert_allclose(per_channel[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), values)  # the same mask and scale


def test_a_generator_makes_the_mask_reproducible():
    x = mt.randn(8, 16, 2, 2)
    first = F.dropout2d(x, 0.5, generator=mt.Generator().manual_seed(3))
    again = F.dropout2d(x, 0.5, generator=mt.Generator().manual_seed(3))
    other = F.dropout2d(x, 0.5, generator=mt.Generator().manual_seed(4))
    assert mt.equal(first, again) and not mt.equal(first, other)
    mt.manual_seed(5)
    a = F.dropout2d(x)
    mt.manual_seed(5)
    assert mt.equal(a, F.dropout2d(x))


def test_a_3d_input_is_n_c_l_with_pytorchs_warning():
    x = mt.ones(20, 30, 5)
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout behavior is "
                                         "desired - input is interpreted as shape \\(N, C, L\\)"):
        y = F.dropout2d(x, 0.5)
    values = y.numpy()
    assert (values == values[:, :, :1]).all() and 0 < (values == 0).mean() < 1


def test_other_ranks_warn_and_one_dimension_is_refused():
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d, which is "
                                         "deprecated"):
        y = F.dropout2d(mt.ones(6, 7), 0.5)
    assert y.shape == (6, 7)
    with pytest.warns(UserWarning, match="Received a 5-D input"):
        F.dropout2d(mt.ones(2, 3, 2, 2, 2), 0.5)
    with pytest.warns(UserWarning, match="Received a 1-D input"), \
            pytest.raises(RuntimeError, match="^Feature dropout requires at least 2 dimensions "
                                              "in the input$"):
        F.dropout2d(mt.ones(3), 0.5)
    # as in PyTorch, the early returns come before that check
    with pytest.warns(UserWarning):
        assert F.dropout2d(mt.ones(3), 1.0).tolist() == [0.0] * 3


def test_eval_mode_identity_extremes_and_meta():
    x = mt.randn(2, 3, 4, 4)
    layer = nn.Dropout2d(0.4)
    layer.eval()
    assert layer(x) is x
    assert F.dropout2d(x, 0.4, training=False) is x
    assert F.dropout2d(x, 0.0) is x
    assert F.dropout2d(x, 1.0).abs().sum().item() == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 4-D inputs do not warn
        meta = F.dropout2d(mt.empty(2**20, 64, 2**10, 2**10, device="meta"), 0.5)
    assert meta.is_meta and meta.shape == (2**20, 64, 2**10, 2**10)


def test_module_repr_and_errors_as_pytorch():
    assert repr(nn.Dropout2d()) == "Dropout2d(p=0.5, inplace=False)"
    assert repr(nn.Dropout2d(0.2, True)) == "Dropout2d(p=0.2, inplace=True)"
    x = mt.ones(2, 3, 4, 4)
    assert nn.Dropout2d(0.5, inplace=True)(x) is not x  # a new tensor, as Dropout's
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.Dropout2d(1.5)
    with pytest.raises(ValueError, match="between 0 and 1, but got -0.1"):
        F.dropout2d(x, -0.1)
