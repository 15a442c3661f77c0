"""nn.init.trunc_normal_ and nn.init.orthogonal_: bounds and moments of the truncated
normal (both of PyTorch's sampling methods), orthogonality, gain and shapes, generators,
meta, and PyTorch's errors and warning; the QR op they rest on."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn import init


def _truncated_moments(mean, std, a, b):
    """Mean and standard deviation of N(mean, std²) restricted to [a, b] (closed form)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    mass = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / mass
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - shift ** 2
    return mean + std * shift, std * math.sqrt(variance)


# the first two hold most of the mass (redrawn normals); the others little (accepted uniforms)
@pytest.mark.parametrize("mean, std, a, b", [
    (0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0), (0.0, 1.0, 0.5, 0.7), (0.0, 1.0, 1.5, 4.0),
])
def test_trunc_normal_stays_in_bounds_with_the_right_moments(mean, std, a, b, device):
    w = mt.empty(200, 1000, device=device)
    assert init.trunc_normal_(w, mean, std, a, b, generator=mt.Generator(device).manual_seed(0)) \
        is w
    values = w.cpu().numpy()
    assert values.min() >= a and values.max() <= b
    expected_mean, expected_std = _truncated_moments(mean, std, a, b)
    assert values.mean() == pytest.approx(expected_mean, abs=4 * expected_std / 400)
    assert values.std() == pytest.approx(expected_std, rel=0.02)


def test_trunc_normal_defaults_float64_generator_and_meta():
    w = init.trunc_normal_(mt.empty(50, 50, dtype=mt.float64))
    assert w.dtype is mt.float64 and -2 <= w.min().item() and w.max().item() <= 2
    a = init.trunc_normal_(mt.empty(30), generator=mt.Generator().manual_seed(1))
    b = init.trunc_normal_(mt.empty(30), generator=mt.Generator().manual_seed(1))
    assert mt.equal(a, b)
    meta = mt.empty(2**30, 2**20, device="meta")
    assert init.trunc_normal_(meta) is meta


def test_trunc_normal_writes_a_parameter_without_a_graph():
    layer = mt.nn.Linear(3, 4)
    init.trunc_normal_(layer.weight, std=0.02)
    assert layer.weight.requires_grad and layer.weight.grad_fn is None
    assert layer.weight.abs().max().item() <= 2.0


def test_trunc_normal_warns_as_pytorch_when_the_mean_is_far():
    with pytest.warns(UserWarning, match=r"^mean is more than 2 std from \[a, b\] in "
                                         r"nn.init.trunc_normal_. The distribution of values "
                                         r"may be incorrect.$"):
        w = init.trunc_normal_(mt.empty(100), mean=10.0, a=-1.0, b=1.0)
    assert -1 <= w.min().item() and w.max().item() <= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(mt.empty(10), mean=3.9, a=-2.0, b=2.0)  # within 2 std: silent


@pytest.mark.parametrize("shape", [(6, 6), (4, 10), (10, 4), (8, 3, 2, 2), (5, 1)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, device):
    w = mt.empty(*shape, device=device)
    assert init.orthogonal_(w, generator=mt.Generator(device).manual_seed(0)) is w
    flat = w.cpu().numpy().reshape(shape[0], -1)
    rows, cols = flat.shape
    gram = flat @ flat.T if rows <= cols else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_gain_dtype_and_the_sign_convention():
    w = init.orthogonal_(mt.empty(5, 5, dtype=mt.float64), gain=3.0)
    np.testing.assert_allclose(w.numpy() @ w.numpy().T, 9 * np.eye(5), atol=1e-12)
    # PyTorch multiplies Q by the signs of R's diagonal: the same normal draws give the
    # same matrix as theirs
    draws = mt.empty(4, 3, dtype=mt.float64).normal_(generator=mt.Generator().manual_seed(2))
    expected = _orthogonal_from(draws.numpy())
    ours = init.orthogonal_(mt.empty(4, 3, dtype=mt.float64),
                            generator=mt.Generator().manual_seed(2))
    np.testing.assert_allclose(ours.numpy(), expected, atol=1e-12)


def _orthogonal_from(draws):
    q, r = np.linalg.qr(draws)
    return q * np.sign(np.diag(r))


def test_orthogonal_matches_pytorch_on_the_same_draws():
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference")
    draws = np.random.default_rng(0).standard_normal((3, 7))
    q, r = torch.linalg.qr(torch.tensor(draws).t())
    theirs = (q * torch.diag(r).sign()).t().numpy()
    ours = mt.tensor(draws).t()
    q_ours, r_ours = mt.linalg.qr(ours)
    signs = np.sign(np.diag(r_ours.numpy()))
    np.testing.assert_allclose((q_ours.numpy() * signs).T, theirs, atol=1e-12)


def test_orthogonal_errors_empty_and_meta():
    with pytest.raises(ValueError, match="^Only tensors with 2 or more dimensions are "
                                         "supported$"):
        init.orthogonal_(mt.empty(5))
    empty = mt.empty(0, 3)
    assert init.orthogonal_(empty) is empty
    meta = mt.empty(2**20, 2**20, device="meta")
    assert init.orthogonal_(meta) is meta
