"""The hook-based nn.utils.weight_norm / spectral_norm (and their removal) against PyTorch:
the deprecation warning, state_dict keys, values, gradients, buffers and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.utils import (
    remove_spectral_norm,
    remove_weight_norm,
    spectral_norm,
    weight_norm,
)
from tests.nn.utils_pairs import assert_close, copy_state, pair, same_input, to_numpy

DEPRECATED = "`torch.nn.utils.weight_norm` is deprecated in favor of " \
             "`torch.nn.utils.parametrizations.weight_norm`."


def _weight_normed(torch_ref, device, cls_name, args, **kwargs):
    ours, theirs = pair(torch_ref, device, getattr(mt.nn, cls_name),
                        getattr(torch_ref.nn, cls_name), *args)
    with pytest.warns(FutureWarning, match=DEPRECATED):
        weight_norm(ours, **kwargs)
    with pytest.warns(FutureWarning, match=DEPRECATED):
        torch_ref.nn.utils.weight_norm(theirs, **kwargs)
    return ours, theirs


def _step(torch_ref, device, ours, theirs, x_shape):
    x, tx = same_input(torch_ref, device, *x_shape)
    y, ty = ours(x), theirs(tx)
    assert_close(y, ty)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    for (name, p), (tname, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        assert_close(p.grad, q.grad)


@pytest.mark.parametrize("cls_name,args,x_shape", [
    ("Linear", (4, 3), (2, 4)), ("Conv1d", (2, 3, 2), (2, 2, 5)),
    ("ConvTranspose2d", (2, 3, 2), (1, 2, 3, 3))])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(torch_ref, device, cls_name, args, x_shape, dim):
    ours, theirs = _weight_normed(torch_ref, device, cls_name, args, dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight_g.shape == theirs.weight_g.shape
    assert not isinstance(ours.weight, mt.nn.Parameter)
    assert_close(ours.weight, theirs.weight)
    with mt.no_grad():  # the hook recomputes the weight from g and v before each call
        ours.weight_g.mul_(1.5)
    with torch_ref.no_grad():
        theirs.weight_g.mul_(1.5)
    _step(torch_ref, device, ours, theirs, x_shape)


def test_weight_norm_removal_and_errors(torch_ref, device):
    ours, theirs = _weight_normed(torch_ref, device, "Linear", (3, 2))
    with mt.no_grad():
        ours.weight_g.mul_(2.0)
    with torch_ref.no_grad():
        theirs.weight_g.mul_(2.0)
    remove_weight_norm(ours)
    torch_ref.nn.utils.remove_weight_norm(theirs)
    assert isinstance(ours.weight, mt.nn.Parameter) and not ours._forward_pre_hooks
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.weight, theirs.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        remove_weight_norm(ours)
    layer = mt.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match=DEPRECATED):
        weight_norm(layer)
    with pytest.warns(FutureWarning, match=DEPRECATED), pytest.raises(
            RuntimeError, match="Cannot register two weight_norm hooks on the same parameter "
                                "weight"):
        weight_norm(layer)
    with pytest.warns(FutureWarning, match=DEPRECATED), pytest.raises(
            ValueError, match="can't have uninitialized parameters"):
        weight_norm(mt.nn.LazyLinear(2))


def _spectral_normed(torch_ref, device, cls_name, args, **kwargs):
    ours, theirs = pair(torch_ref, device, getattr(mt.nn, cls_name),
                        getattr(torch_ref.nn, cls_name), *args)
    spectral_norm(ours, **kwargs)
    torch_ref.nn.utils.spectral_norm(theirs, **kwargs)
    copy_state(ours, theirs, device)  # PyTorch's random start vectors
    return ours, theirs


@pytest.mark.parametrize("cls_name,args,x_shape", [
    ("Linear", (4, 3), (2, 4)), ("Conv2d", (2, 3, 2), (1, 2, 3, 3)),
    ("ConvTranspose1d", (2, 3, 2), (2, 2, 5))])
def test_spectral_norm_matches_torch(torch_ref, device, cls_name, args, x_shape):
    ours, theirs = _spectral_normed(torch_ref, device, cls_name, args, n_power_iterations=3)
    assert list(ours.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for _ in range(2):  # the second call starts from the first call's in-place updates
        _step(torch_ref, device, ours, theirs, x_shape)
        assert_close(ours.weight_u, theirs.weight_u)
        assert_close(ours.weight_v, theirs.weight_v)


def test_spectral_norm_two_calls_before_backward(torch_ref, device):
    # each call's graph keeps its own copies of u and v: the next call's in-place
    # update must not change the first call's gradient
    ours, theirs = _spectral_normed(torch_ref, device, "Linear", (4, 3))
    x, tx = same_input(torch_ref, device, 2, 4)
    (ours(x).pow(2).sum() + ours(x).sum()).backward()
    (theirs(tx).pow(2).sum() + theirs(tx).sum()).backward()
    assert_close(ours.weight_orig.grad, theirs.weight_orig.grad)


def test_spectral_norm_eval_mode_and_removal(torch_ref, device):
    ours, theirs = _spectral_normed(torch_ref, device, "Linear", (4, 3))
    ours.eval()
    theirs.eval()
    u_before = to_numpy(ours.weight_u).copy()
    _step(torch_ref, device, ours, theirs, (2, 4))
    np.testing.assert_array_equal(to_numpy(ours.weight_u), u_before)
    remove_spectral_norm(ours)
    torch_ref.nn.utils.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    assert isinstance(ours.weight, mt.nn.Parameter)
    assert_close(ours.weight, theirs.weight)


def test_spectral_norm_errors_match_torch(torch_ref):
    for lib in (mt, torch_ref):
        utils = lib.nn.utils
        layer = utils.spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on "
                                               "the same parameter weight"):
            utils.spectral_norm(layer)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but "
                                             "got n_power_iterations=0"):
            utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in "
                                             r"Linear\(in_features=2"):
            utils.remove_spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(ValueError, match="`SpectralNorm` cannot be applied as parameter "
                                             "`bias` is None"):
            utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), "bias")
        with pytest.raises(KeyError, match="foo"):
            utils.spectral_norm(lib.nn.Linear(2, 2), "foo")


def test_meta_hooks_keep_shapes():
    layer = spectral_norm(mt.nn.Linear(4, 3, device="meta"))
    out = layer(mt.empty(2, 4, device="meta"))
    assert out.shape == (2, 3) and layer.weight_u.shape == (3,) and layer.weight_v.shape == (4,)
    out.sum().backward()
    assert layer.weight_orig.grad.shape == (3, 4)
    with pytest.warns(FutureWarning, match=DEPRECATED):
        normed = weight_norm(mt.nn.Linear(4, 3, device="meta"))
    assert normed(mt.empty(2, 4, device="meta")).shape == (2, 3)
    assert normed.weight_g.shape == (3, 1)
