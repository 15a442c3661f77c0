"""binary_cross_entropy_with_logits with input and target of different float dtypes:
computed in the target's dtype, as in PyTorch; each gradient in its input's dtype."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF

S = (3, 4)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("x_dtype, t_dtype", [("float32", "float64"), ("float64", "float32"),
                                              ("float16", "float32"), ("float32", "float16")])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight"])
def test_mixed_dtypes_as_torch(x_dtype, t_dtype, reduction, weights, device):
    torch = _torch()
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal(S) * 3, rng.uniform(0, 1, S)
    w = rng.uniform(0.5, 2, (4,))
    results = []
    for T, dev in ((mt, device), (torch, "cpu")):
        xt = T.tensor(x.astype(x_dtype), device=dev, requires_grad=True)
        tt = T.tensor(t.astype(t_dtype), device=dev, requires_grad=True)
        extra = {} if weights == "none" else {weights: T.tensor(w, device=dev)}
        out = T.nn.functional.binary_cross_entropy_with_logits(xt, tt, reduction=reduction,
                                                               **extra)
        out.backward(T.ones(tuple(out.shape), dtype=out.dtype, device=dev))
        results.append((out, xt, tt))
    (out, xt, tt), (ref, rx, rt) = results
    assert str(out.dtype) == str(ref.dtype)
    assert out.grad_fn.name() == type(ref.grad_fn).__name__
    tol = 1e-2 if "float16" in (x_dtype, t_dtype) else 1e-5  # float16 rounds at 5e-4
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=tol)
    for ours, theirs in ((xt, rx), (tt, rt)):
        assert ours.grad.dtype is ours.dtype and str(theirs.grad.dtype) == str(ours.dtype)
        # (sigmoid(x) - t cancels: float16's error is absolute, about 1e-3)
        np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=tol,
                                   atol=tol * 1e-1)


def test_mixed_dtypes_on_meta():
    x = mt.empty(2**20, 2**10, device="meta", requires_grad=True)
    t = mt.empty(2**20, 2**10, dtype=mt.float64, device="meta")
    out = mF.binary_cross_entropy_with_logits(x, t)
    assert out.dtype is mt.float64 and out.is_meta
    out.backward()
    assert x.grad.dtype is mt.float32 and x.grad.shape == x.shape


def test_a_float64_target_computes_in_float64():
    # In float32 the target just under 1 would round to 1 and the loss lose its first term.
    x = mt.tensor([30.0], requires_grad=True)
    t = mt.tensor([1 - 1e-12], dtype=mt.float64)
    out = mF.binary_cross_entropy_with_logits(x, t, reduction="sum")
    wide = mF.binary_cross_entropy_with_logits(x.double(), t, reduction="sum")
    assert out.dtype is mt.float64 and out.item() == wide.item()
    assert out.item() > 2.9e-11  # 30 * 1e-12 + log1p(exp(-30))


def test_probability_form_and_integer_targets_still_refused():
    # PyTorch refuses both too (RuntimeError there; ours names both dtypes)
    with pytest.raises(TypeError, match="expected input and target to have the same dtype"):
        mF.binary_cross_entropy(mt.rand(3), mt.rand(3, dtype=mt.float64))
    with pytest.raises(TypeError, match="expected input and target to have the same dtype"):
        mF.binary_cross_entropy_with_logits(mt.rand(3), mt.ones(3, dtype=mt.int64))
