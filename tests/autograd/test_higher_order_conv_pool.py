"""Gradients of gradients (``create_graph=True``) through convolutions, poolings, padding
and upsampling: values against PyTorch (second and third order), Hessian-vector products
against finite differences, PyTorch's node names, and a graph freed as it goes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from tests.autograd.second_order import assert_hvp_matches_finite_differences
from tests.autograd.second_order import functional as _f
from tests.devices import tensor_device


def _samples(lib, device, *shape):
    """Fixed ``_random_samples`` for the fractional max pooling, on ``device``."""
    kwargs = {"device": device} if lib is mt else {}
    return lib.full(shape, 0.4, dtype=lib.float64, **kwargs)


# name -> (f(lib, device, *inputs) -> scalar, input shapes). The cube makes every
# second derivative depend on the inputs.
CASES = {
    "conv2d": (lambda L, d, x, w, b: (_f(L).conv2d(x, w, b, stride=2, padding=1,
                                                   dilation=(1, 2), groups=2) ** 3).sum(),
               [(2, 4, 7, 8), (6, 2, 3, 3), (6,)]),
    "conv2d_same_even_kernel": (lambda L, d, x, w: (_f(L).conv2d(x, w, padding="same") ** 3)
                                .sum(), [(2, 3, 5, 5), (4, 3, 2, 3)]),
    "conv2d_winograd": (lambda L, d, x, w: (_f(L).conv2d(x, w, padding=1) ** 3).sum(),
                        [(1, 64, 24, 24), (64, 64, 3, 3)]),
    "conv1d": (lambda L, d, x, w, b: (_f(L).conv1d(x, w, b, stride=2, padding=2) ** 3).sum(),
               [(2, 3, 9), (4, 3, 3), (4,)]),
    "conv3d": (lambda L, d, x, w, b: (_f(L).conv3d(x, w, b, stride=(1, 2, 1), padding=1,
                                                   groups=2) ** 3).sum(),
               [(2, 4, 4, 5, 4), (2, 2, 3, 2, 3), (2,)]),
    "conv_transpose2d": (lambda L, d, x, w, b: (_f(L).conv_transpose2d(
        x, w, b, stride=2, padding=1, output_padding=1, groups=2) ** 3).sum(),
        [(2, 4, 4, 3), (4, 3, 3, 3), (6,)]),
    "conv_transpose1d": (lambda L, d, x, w: (_f(L).conv_transpose1d(
        x, w, stride=3, padding=1, dilation=2) ** 3).sum(), [(2, 4, 5), (4, 3, 3)]),
    "conv_transpose3d": (lambda L, d, x, w, b: (_f(L).conv_transpose3d(x, w, b, stride=2)
                                                ** 3).sum(),
                         [(1, 2, 3, 2, 3), (2, 3, 2, 2, 2), (3,)]),
    "conv_layer_reflect_padding": (
        lambda L, d, x, w: (_f(L).conv2d(_f(L).pad(x, (1, 1, 2, 0), mode="reflect"), w) ** 3)
        .sum(), [(2, 2, 5, 5), (3, 2, 3, 3)]),
    "max_pool2d": (lambda L, d, x: (_f(L).max_pool2d(x, 3, 2, padding=1) ** 3).sum(),
                   [(2, 3, 7, 8)]),
    "max_pool2d_overlapping_ceil": (lambda L, d, x: (_f(L).max_pool2d(
        x, (3, 2), (2, 1), dilation=(1, 2), ceil_mode=True) ** 3).sum(), [(2, 2, 7, 6)]),
    "max_pool1d": (lambda L, d, x: (_f(L).max_pool1d(x, 3, 2) ** 3).sum(), [(2, 3, 9)]),
    "adaptive_max_pool2d": (lambda L, d, x: (_f(L).adaptive_max_pool2d(x, (3, 4)) ** 3).sum(),
                            [(2, 3, 7, 6)]),
    "adaptive_max_pool2d_unbatched": (lambda L, d, x: (_f(L).adaptive_max_pool2d(x, 2) ** 3)
                                      .sum(), [(3, 5, 5)]),
    "max_pool3d": (lambda L, d, x: (_f(L).max_pool3d(x, 2, 1) ** 3).sum(), [(2, 2, 4, 4, 3)]),
    "max_pool3d_unbatched": (lambda L, d, x: (_f(L).max_pool3d(x, 2) ** 3).sum(),
                             [(2, 4, 4, 4)]),
    "adaptive_max_pool3d": (lambda L, d, x: (_f(L).adaptive_max_pool3d(x, (2, 3, 2)) ** 3)
                            .sum(), [(2, 2, 4, 5, 3)]),
    "fractional_max_pool2d": (lambda L, d, x: (_f(L).fractional_max_pool2d(
        x, 2, output_size=3, _random_samples=_samples(L, d, 2, 3, 2)) ** 3).sum(),
        [(2, 3, 7, 6)]),
    "avg_pool2d": (lambda L, d, x: (_f(L).avg_pool2d(x, 3, 2, padding=1, ceil_mode=True,
                                                     count_include_pad=False) ** 3).sum(),
                   [(2, 3, 7, 8)]),
    "avg_pool2d_divisor_unbatched": (lambda L, d, x: (_f(L).avg_pool2d(
        x, 2, divisor_override=3) ** 3).sum(), [(3, 6, 6)]),
    "avg_pool1d": (lambda L, d, x: (_f(L).avg_pool1d(x, 3, 2) ** 3).sum(), [(2, 3, 9)]),
    "adaptive_avg_pool2d": (lambda L, d, x: (_f(L).adaptive_avg_pool2d(x, (3, 4)) ** 3).sum(),
                            [(2, 3, 7, 6)]),
    "adaptive_avg_pool2d_1x1": (lambda L, d, x: (_f(L).adaptive_avg_pool2d(x, 1) ** 3).sum(),
                                [(2, 3, 7, 6)]),
    "avg_pool3d": (lambda L, d, x: (_f(L).avg_pool3d(x, 2, 1, padding=1) ** 3).sum(),
                   [(2, 2, 4, 4, 3)]),
    "adaptive_avg_pool3d": (lambda L, d, x: (_f(L).adaptive_avg_pool3d(x, (2, 3, 2)) ** 3)
                            .sum(), [(2, 2, 4, 5, 3)]),
    "pad_constant_and_crop": (lambda L, d, x: (_f(L).pad(x, (1, -1, 2, 0), value=1.5) ** 3)
                              .sum(), [(2, 3, 4, 5)]),
    "pad_replicate": (lambda L, d, x: (_f(L).pad(x, (1, 2, 2, 0), mode="replicate") ** 3)
                      .sum(), [(2, 3, 4, 5)]),
    "pad_circular": (lambda L, d, x: (_f(L).pad(x, (1, 2, 2, 0), mode="circular") ** 3).sum(),
                     [(2, 3, 4, 5)]),
    "upsample_nearest": (lambda L, d, x: (_f(L).interpolate(x, size=(5, 7)) ** 3).sum(),
                         [(2, 3, 4, 5)]),
    "upsample_nearest_scale": (lambda L, d, x: (_f(L).interpolate(x, scale_factor=2) ** 3)
                               .sum(), [(2, 3, 4, 5)]),
    "upsample_bilinear": (lambda L, d, x: (_f(L).interpolate(
        x, size=(7, 3), mode="bilinear", align_corners=True) ** 3).sum(), [(2, 3, 4, 5)]),
    "upsample_linear": (lambda L, d, x: (_f(L).interpolate(x, scale_factor=1.5, mode="linear")
                                         ** 3).sum(), [(2, 3, 4)]),
}

# PyTorch's own third derivative of a transposed convolution with output_padding fails
# ("output_padding is not supported for non-transposed convolutions").
THIRD_ORDER = [name for name in CASES if name != "conv_transpose2d"]


def _arrays(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    return [rng.standard_normal(shape) for shape in CASES[name][1]]


def _run(lib, device, fn, arrays, third=False):
    """The gradients (made with ``create_graph``), the gradient of their squared sum, and
    with ``third`` the gradient of the squared sum of those."""
    kwargs = {"device": device} if lib is mt else {}
    xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in arrays]
    grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs, create_graph=third)
    results = [g.detach().cpu().numpy() for g in grads + second]
    if third:
        results += [h.cpu().numpy() for h in
                    lib.autograd.grad(sum((h * h).sum() for h in second), xs)]
    return results


def _assert_close(ours, theirs):
    for a, b in zip(ours, theirs, strict=True):
        scale = max(1.0, float(np.abs(b).max(initial=0)))
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10 * scale)


def _torch_run(name, third=False):
    fn = CASES[name][0]
    if "even_kernel" not in name:
        return _run(torch, None, fn, _arrays(name), third)
    # PyTorch warns (once per process: not assertable) that it pads a copy for an odd
    # total of 'same' padding; we pad in the convolution itself, and do not warn
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Using padding='same'", UserWarning)
        return _run(torch, None, fn, _arrays(name), third)


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_gradients_equal_pytorchs(name, device):
    _assert_close(_run(mt, device, CASES[name][0], _arrays(name)), _torch_run(name))


@pytest.mark.parametrize("name", THIRD_ORDER)
def test_third_order_gradients_equal_pytorchs(name):
    _assert_close(_run(mt, "cpu", CASES[name][0], _arrays(name), third=True),
                  _torch_run(name, third=True))


@pytest.mark.parametrize("name", ["conv2d", "conv1d", "conv3d", "conv_transpose2d",
                                  "conv2d_same_even_kernel", "max_pool2d", "avg_pool2d",
                                  "adaptive_max_pool3d", "upsample_bilinear",
                                  "pad_replicate"])
def test_hessian_vector_products_match_finite_differences(name):
    """``d/dx <grad f(x), v>`` against ``(grad f(x + eps v) - grad f(x - eps v)) / 2 eps``:
    independent of PyTorch. (Small steps keep the max poolings' winners.)"""
    fn = CASES[name][0]
    arrays = _arrays(name)
    rng = np.random.default_rng(7)
    directions = [rng.standard_normal(a.shape) for a in arrays]

    assert_hvp_matches_finite_differences(fn, arrays, directions, atol=1e-5)


@pytest.mark.parametrize("name", ["conv2d", "conv1d", "conv3d", "conv_transpose2d",
                                  "conv_transpose1d", "max_pool2d", "adaptive_max_pool2d",
                                  "max_pool3d", "adaptive_max_pool3d", "fractional_max_pool2d",
                                  "avg_pool2d", "adaptive_avg_pool2d", "avg_pool3d",
                                  "adaptive_avg_pool3d", "pad_constant_and_crop",
                                  "pad_replicate", "pad_circular", "upsample_nearest",
                                  "upsample_bilinear", "upsample_linear"])
def test_gradient_nodes_are_named_as_pytorchs(name, device):
    fn = CASES[name][0]
    names = []
    for lib, kwargs in ((mt, {"device": device}), (torch, {})):
        xs = [lib.tensor(a, requires_grad=True, **kwargs) for a in _arrays(name)]
        grads = lib.autograd.grad(fn(lib, device, *xs), xs, create_graph=True)
        names.append([g.grad_fn.name() for g in grads])
        if lib is mt:
            assert all(g.device == tensor_device(device) for g in grads)
    assert names[0] == names[1]


# name -> (convolution(lib, x, w), shapes of x and w)
CONVOLUTIONS = {
    "conv2d": (lambda L, x, w: _f(L).conv2d(x, w, stride=2, groups=2), [(2, 4, 7, 8),
                                                                      (6, 2, 3, 3)]),
    "conv1d": (lambda L, x, w: _f(L).conv1d(x, w, padding=1), [(2, 3, 9), (4, 3, 3)]),
    "conv3d": (lambda L, x, w: _f(L).conv3d(x, w), [(1, 2, 4, 3, 4), (3, 2, 2, 2, 3)]),
    "conv_transpose2d": (lambda L, x, w: _f(L).conv_transpose2d(x, w, stride=2),
                         [(2, 4, 4, 3), (4, 3, 3, 3)]),
}


@pytest.mark.parametrize("name", list(CONVOLUTIONS))
def test_a_graph_freed_by_the_first_backward_still_differentiates_its_gradient(name):
    """``retain_graph=False`` frees what the convolution's node saved (its im2col); the
    recorded gradients keep what their own ops need. The output is weighed by constants,
    so that the second backward does not lead back into the freed node (which raises,
    here as in PyTorch)."""
    conv, shapes = CONVOLUTIONS[name]
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    results = []
    for lib in (mt, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = conv(lib, *xs)
        weights = lib.tensor(np.linspace(-1.0, 1.0, y.numel()).reshape(tuple(y.shape)))
        grads = lib.autograd.grad((y * weights).sum(), xs, create_graph=True,
                                  retain_graph=False)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs)
        results.append([h.numpy() for h in second])
    _assert_close(*results)


def test_on_meta_second_order_gradients_through_conv_and_pooling_have_the_inputs_shapes():
    x = mt.empty(2, 3, 8, 8, device="meta", requires_grad=True)
    w = mt.empty(4, 3, 3, 3, device="meta", requires_grad=True)
    y = mt.nn.functional.max_pool2d(mt.nn.functional.conv2d(x, w, padding=1), 2)
    gx, gw = mt.autograd.grad((y ** 2).sum(), [x, w], create_graph=True)
    assert (gx.shape, gw.shape) == ((2, 3, 8, 8), (4, 3, 3, 3))
    hx, hw = mt.autograd.grad((gx ** 2).sum() + (gw ** 2).sum(), [x, w])
    assert (hx.shape, hw.shape) == ((2, 3, 8, 8), (4, 3, 3, 3))


def test_a_gradient_penalty_through_a_conv_net_trains_its_weights(device):
    """The WGAN-GP pattern through conv, pooling and upsampling layers: a loss built from
    the input gradient's norm, backpropagated into every weight."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in ((2, 2, 6, 6), (3, 2, 3, 3), (3,), (1, 3, 2, 2))]

    def penalty(lib):
        kwargs = {"device": device} if lib is mt else {}
        x, w1, b1, w2 = (lib.tensor(a, requires_grad=True, **kwargs) for a in arrays)
        h = lib.tanh(_f(lib).conv2d(x, w1, b1, padding=1))
        h = _f(lib).interpolate(_f(lib).avg_pool2d(_f(lib).max_pool2d(h, 2), 1),
                                scale_factor=2, mode="bilinear")
        score = _f(lib).conv_transpose2d(h, w2.transpose(0, 1)).sum()
        (gx,) = lib.autograd.grad(score, x, create_graph=True)
        loss = ((gx.pow(2).sum((1, 2, 3)) + 1e-12).sqrt() - 1).pow(2).mean()
        loss.backward()
        return [loss.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in (w1, b1, w2)]

    _assert_close(penalty(mt), penalty(torch))


@pytest.mark.parametrize("name", ["max_pool2d", "adaptive_max_pool3d", "avg_pool2d", "conv2d",
                                  "conv_transpose1d"])
def test_fourth_order_derivatives_equal_pytorchs(name):
    """Every twin op's own graph formula (a max pooling's gather's, for one) is reached
    only at the fourth order."""
    fn = CASES[name][0]
    results = []
    for lib in (mt, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in _arrays(name)]
        out = fn(lib, "cpu", *xs)
        for _ in range(3):
            grads = lib.autograd.grad(out, xs, create_graph=True)
            out = sum((g * g).sum() for g in grads) * 1e-3
        results.append([h.numpy() for h in lib.autograd.grad(out, xs)])
    _assert_close(*results)
