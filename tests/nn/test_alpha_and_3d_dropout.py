"""AlphaDropout, FeatureAlphaDropout, Dropout1d and Dropout3d (and their functions): reprs,
the identity in eval mode, the masks (per element or per channel), PyTorch's affine map
after alpha dropout (checked against its formula in float64), statistics, gradients, meta,
and the errors and warnings."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta import nn

SATURATION = 1.6732632423543772848170429916717 * 1.0507009873554804934193349852946


@pytest.mark.parametrize("name, args", [
    ("AlphaDropout", ()), ("AlphaDropout", (0.2, True)), ("FeatureAlphaDropout", (0.1,)),
    ("Dropout1d", ()), ("Dropout1d", (0.3, True)), ("Dropout3d", ()), ("Dropout3d", (0.2,))])
def test_repr_and_state_equal_pytorchs(name, args, torch_ref):
    ours, theirs = getattr(nn, name)(*args), getattr(torch_ref.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert (ours.p, ours.inplace) == (theirs.p, theirs.inplace)
    assert not isinstance(ours, nn.Dropout2d)  # siblings, as in PyTorch, not subclasses


@pytest.mark.parametrize("layer", [nn.AlphaDropout, nn.FeatureAlphaDropout, nn.Dropout1d,
                                   nn.Dropout3d])
def test_bad_probability_is_refused_at_construction(layer):
    with pytest.raises(ValueError, match=r"^dropout probability has to be between 0 and 1, "
                                         r"but got 1.5$"):
        layer(1.5)


def _alpha_expected(x, keep, p):
    """PyTorch's composition, in float64: x * (keep * a) + b."""
    a = 1.0 / math.sqrt((SATURATION ** 2 * p + 1) * (1 - p))
    return x * keep * a + (keep - 1) * SATURATION * a + SATURATION * a * p, keep * a


@pytest.mark.parametrize("function, per_channel", [(F.alpha_dropout, False),
                                                   (F.feature_alpha_dropout, True)])
def test_alpha_dropout_is_pytorchs_affine_map_of_the_mask(function, per_channel, device):
    p = 0.3
    x = mt.randn(4, 5, 6, 2, dtype=mt.float64, device=device, requires_grad=True)
    out = function(x, p, training=True)
    assert out.grad_fn.name() == "AddBackward0" and out.dtype is mt.float64
    values, xs = out.detach().cpu().numpy(), x.detach().cpu().numpy()
    a = 1.0 / math.sqrt((SATURATION ** 2 * p + 1) * (1 - p))
    dropped_value = SATURATION * a * (p - 1)
    keep = (~np.isclose(values, dropped_value, rtol=0, atol=1e-12)).astype(np.float64)
    if per_channel:  # one draw per (sample, channel), shared by the rest
        assert (keep == keep[:, :, :1, :1]).all()
    assert 0 < keep.mean() < 1
    expected, slope = _alpha_expected(xs, keep, p)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)
    upstream = np.random.default_rng(0).standard_normal(values.shape)
    out.backward(mt.tensor(upstream, device=device))
    np.testing.assert_allclose(x.grad.cpu().numpy(), upstream * slope, rtol=1e-12)


def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    x = mt.randn(400_000, dtype=mt.float64)
    for p in (0.1, 0.5):
        out = F.alpha_dropout(x, p, True).numpy()
        assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01
        a = 1.0 / math.sqrt((SATURATION ** 2 * p + 1) * (1 - p))
        dropped = np.isclose(out, SATURATION * a * (p - 1), rtol=0, atol=1e-12).mean()
        assert abs(dropped - p) < 0.005


def test_the_reference_formula_is_pytorchs(torch_ref):
    """PyTorch's own output, its mask read back from the dropped value, is
    ``_alpha_expected`` of that mask: the formula the tests above hold us to."""
    p = 0.4
    x = torch_ref.randn(10_000, dtype=torch_ref.float64)
    out = torch_ref.nn.functional.alpha_dropout(x, p, True).numpy()
    a = 1.0 / math.sqrt((SATURATION ** 2 * p + 1) * (1 - p))
    keep = ~np.isclose(out, SATURATION * a * (p - 1), rtol=0, atol=1e-12)
    assert 0.5 < keep.mean() < 0.7
    expected, _ = _alpha_expected(x.numpy(), keep.astype(np.float64), p)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("function", [F.alpha_dropout, F.feature_alpha_dropout, F.dropout1d,
                                      F.dropout3d])
def test_eval_mode_zero_p_and_empty_inputs_are_the_identity(function):
    x = mt.randn(2, 3, 4, 5, 2) if function is F.dropout3d else mt.randn(2, 3, 4)
    assert function(x, 0.5, training=False) is x
    assert function(x, 0.0, training=True) is x
    empty = mt.randn(0, 3, 4) if function is not F.dropout3d else mt.randn(0, 3, 1, 1, 2)
    assert function(empty, 0.5, training=True) is empty


def test_default_training_flags_are_pytorchs():
    x = -mt.ones(4, 5, 6)
    assert F.alpha_dropout(x) is x and F.feature_alpha_dropout(x) is x  # training=False
    assert F.dropout1d(x).tolist() != x.tolist()  # training=True


@pytest.mark.parametrize("function", [F.alpha_dropout, F.feature_alpha_dropout, F.dropout1d,
                                      F.dropout3d])
def test_p_one_gives_zeros_through_a_product(function):
    shape = (2, 3, 4) if function is F.dropout1d else (2, 3, 4, 5, 2)
    x = mt.randn(*shape, requires_grad=True)
    out = function(x, 1.0, training=True)
    assert out.grad_fn.name() == "MulBackward0" and not out.detach().numpy().any()


@pytest.mark.parametrize("function, shape", [(F.dropout1d, (20, 30, 5)), (F.dropout1d, (30, 5)),
                                             (F.dropout3d, (20, 30, 2, 3, 2)),
                                             (F.dropout3d, (30, 2, 3, 2))])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(function, shape, device):
    x = mt.ones(*shape, dtype=mt.float64, device=device, requires_grad=True)
    out = function(x, 0.25, training=True)
    values = out.detach().cpu().numpy()
    assert set(np.unique(values)) <= {0.0, 1 / 0.75}
    lead = 2 if len(shape) == (3 if function is F.dropout1d else 5) else 1
    channels = values.reshape(shape[:lead] + (-1,))
    assert (channels == channels[..., :1]).all()  # one draw per channel
    assert abs((values == 0).mean() - 0.25) < 0.1
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), values)


@pytest.mark.parametrize("function, shape", [(F.dropout1d, (3, 4)), (F.dropout3d, (3, 4, 2, 2)),
                                             (F.dropout1d, (2, 3, 4))])
def test_grad_fn_names_equal_pytorchs(function, shape, torch_ref):
    """An unbatched input runs as a batch of one, squeezed back even in eval mode."""
    tF = torch_ref.nn.functional
    for training in (True, False):
        ours = getattr(F, function.__name__)(mt.ones(*shape, requires_grad=True), 0.5,
                                             training=training)
        theirs = getattr(tF, function.__name__)(torch_ref.ones(*shape, requires_grad=True), 0.5,
                                                training=training)
        ours_name = ours.grad_fn.name() if ours.grad_fn is not None else None
        assert ours_name == (type(theirs.grad_fn).__name__ if theirs.grad_fn else None)


def test_layers_follow_the_training_flag(device):
    x = mt.randn(8, 6, 10, device=device)
    for layer in (nn.AlphaDropout(0.5), nn.FeatureAlphaDropout(0.5), nn.Dropout1d(0.5),
                  nn.Dropout3d(0.5)):
        y = x.reshape(8, 6, 10, 1, 1) if isinstance(layer, nn.Dropout3d) else x
        assert layer(y).tolist() != y.tolist()
        layer.eval()
        assert layer(y) is y or layer(y).tolist() == y.tolist()


def test_masks_follow_the_global_seed():
    x = mt.randn(5, 6, 7)
    for function in (F.alpha_dropout, F.feature_alpha_dropout, F.dropout1d):
        mt.manual_seed(4)
        first = function(x, 0.5, training=True).tolist()
        mt.manual_seed(4)
        assert function(x, 0.5, training=True).tolist() == first


def test_meta_keeps_shapes_and_gradients():
    for function, shape in ((F.alpha_dropout, (2, 3)), (F.feature_alpha_dropout, (2, 3, 4)),
                            (F.dropout1d, (3, 4)), (F.dropout3d, (2, 3, 1, 2, 2))):
        x = mt.empty(*shape, device="meta", requires_grad=True)
        out = function(x, 0.5, training=True)
        assert out.is_meta and out.shape == shape
        out.sum().backward()
        assert x.grad.is_meta and x.grad.shape == shape


def test_errors_and_warnings_are_pytorchs():
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but "
                                         "got -0.1$"):
        F.alpha_dropout(mt.ones(2), -0.1)
    with pytest.raises(RuntimeError, match="^Feature dropout requires at least 2 dimensions in "
                                           "the input$"):
        F.feature_alpha_dropout(mt.ones(3), 0.5, True)
    assert F.feature_alpha_dropout(mt.ones(3), 0.5, False).shape == (3,)
    with pytest.raises(RuntimeError, match=r"^dropout1d: Expected 2D or 3D input, but received "
                                           r"a 4D input\. Note that dropout1d exists"):
        F.dropout1d(mt.ones(2, 3, 4, 5), training=False)
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d, which "
                                         "is deprecated"):
        assert F.dropout3d(mt.ones(2, 3, 4), 0.5).shape == (2, 3, 4)
    with pytest.raises(RuntimeError, match="alpha dropout: expected a floating-point input, "
                                           "got torch.int64"):
        F.alpha_dropout(mt.ones(3, dtype=mt.int64), 0.5, True)
