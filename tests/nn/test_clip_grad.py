"""nn.utils.clip_grad_norm_ / clip_grad_value_ against PyTorch on the same gradients."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.utils import clip_grad_norm_, clip_grad_value_

SHAPES = [(3, 4), (4,), (2, 2, 3)]


def _pair(torch_ref, device, scale=1.0, none_at=None, dtype=np.float32):
    """The same parameters and gradients in both libraries (``none_at``: a grad left None)."""
    rng = np.random.default_rng(0)
    ours, theirs = [], []
    for k, shape in enumerate(SHAPES):
        value = rng.standard_normal(shape).astype(dtype)
        grad = (rng.standard_normal(shape) * scale).astype(dtype)
        p = mt.nn.Parameter(mt.tensor(value, device=device))
        q = torch_ref.nn.Parameter(torch_ref.tensor(value))
        if k != none_at:
            p.grad, q.grad = mt.tensor(grad, device=device), torch_ref.tensor(grad)
        ours.append(p)
        theirs.append(q)
    return ours, theirs


def _same_grads(ours, theirs):
    for p, q in zip(ours, theirs):
        if q.grad is None:
            assert p.grad is None
        else:
            np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-5,
                                       atol=1e-7)


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, "inf", 3.0, 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_torch(torch_ref, device, norm_type, max_norm):
    ours, theirs = _pair(torch_ref, device)
    total = clip_grad_norm_(ours, max_norm, norm_type)
    expected = torch_ref.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total.dtype is mt.float32 and total.shape == () and total.grad_fn is None
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-5)
    _same_grads(ours, theirs)


def test_a_none_grad_is_skipped_and_a_generator_is_read_once(torch_ref):
    ours, theirs = _pair(torch_ref, "cpu", none_at=1)
    total = clip_grad_norm_((p for p in ours), 0.1)
    expected = torch_ref.nn.utils.clip_grad_norm_((q for q in theirs), 0.1)
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-5)
    _same_grads(ours, theirs)
    assert ours[1].grad is None


def test_a_single_tensor_and_reached_as_torch_nn_utils(torch_ref):
    ours, theirs = _pair(torch_ref, "cpu")
    total = mt.nn.utils.clip_grad_norm_(ours[0], 1.0, norm_type=2)
    expected = torch_ref.nn.utils.clip_grad_norm_(theirs[0], 1.0, norm_type=2)
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-5)
    _same_grads(ours, theirs)


def test_a_small_norm_is_multiplied_by_a_coefficient_of_one(torch_ref):
    ours, theirs = _pair(torch_ref, "cpu", scale=1e-3)
    before = [p.grad.numpy().copy() for p in ours]
    clip_grad_norm_(ours, 10.0)
    torch_ref.nn.utils.clip_grad_norm_(theirs, 10.0)
    _same_grads(ours, theirs)
    for p, b in zip(ours, before):
        np.testing.assert_array_equal(p.grad.numpy(), b)


def test_no_gradients_gives_zero_and_an_empty_generator_warns(torch_ref):
    assert clip_grad_norm_([], 1.0).item() == 0.0
    p = mt.nn.Parameter(mt.ones(2))  # grad None
    assert clip_grad_norm_([p], 1.0).item() == 0.0 and p.grad is None
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient "
                                         "clipping will occur."):
        total = clip_grad_norm_((q for q in []), 1.0)
    assert total.item() == torch_ref.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_error_if_nonfinite(torch_ref, bad):
    ours, theirs = _pair(torch_ref, "cpu")
    ours[0].grad[0, 0] = bad
    theirs[0].grad[0, 0] = bad
    with pytest.raises(RuntimeError) as error:
        clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as expected:
        torch_ref.nn.utils.clip_grad_norm_(theirs, 1.0, error_if_nonfinite=True)
    assert str(error.value) == str(expected.value)
    assert "The total norm of order 2.0 for gradients from `parameters` is non-finite" \
        in str(error.value)
    # without the flag, the gradients are scaled by the non-finite norm, as in PyTorch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        total = clip_grad_norm_(ours, 1.0)
    expected_total = torch_ref.nn.utils.clip_grad_norm_(theirs, 1.0)
    np.testing.assert_equal(total.item(), expected_total.item())
    for p, q in zip(ours, theirs):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_clipping_records_no_graph_and_runs_on_meta():
    p = mt.nn.Parameter(mt.ones(3, device="meta"))
    p.grad = mt.ones(3, device="meta")
    total = clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert total.is_meta and total.grad_fn is None and not total.requires_grad
    q = mt.nn.Parameter(mt.ones(3))
    (q * 3).sum().backward()
    assert clip_grad_norm_(q, 1.0).grad_fn is None and q.grad.grad_fn is None


def test_mixed_dtypes_give_the_promoted_norm(torch_ref):
    ours, theirs = _pair(torch_ref, "cpu")
    doubles, doubles_ref = _pair(torch_ref, "cpu", dtype=np.float64)
    ours[0], theirs[0] = doubles[0], doubles_ref[0]
    total = clip_grad_norm_(ours, 0.5)
    expected = torch_ref.nn.utils.clip_grad_norm_(theirs, 0.5)
    assert total.dtype is mt.float64 and expected.dtype == torch_ref.float64
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-6)
    _same_grads(ours, theirs)
    assert ours[0].grad.dtype is mt.float64 and ours[1].grad.dtype is mt.float32


@pytest.mark.parametrize("clip_value", [0.3, 2])
def test_clip_grad_value_matches_torch(torch_ref, device, clip_value):
    ours, theirs = _pair(torch_ref, device, none_at=2)
    assert clip_grad_value_(ours, clip_value) is None
    torch_ref.nn.utils.clip_grad_value_(theirs, clip_value)
    _same_grads(ours, theirs)
    clip_grad_value_(ours[0], 0.1)  # a single tensor
    torch_ref.nn.utils.clip_grad_value_(theirs[0], 0.1)
    _same_grads(ours, theirs)
