"""``torch.poisson``, ``torch.binomial`` and ``torch._standard_gamma``: shapes, dtypes and
devices; statistics of 100k draws against the exact moments (6 standard errors); seeds;
grad_fn names and gradients (``_standard_gamma``'s against PyTorch's
``_standard_gamma_grad``); meta shapes; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device

N = 100_000


def _assert_moments(values, mean, variance):
    values = values.astype(np.float64)
    n = values.shape[0]
    np.testing.assert_array_less(np.abs(values.mean(0) - mean), 6 * np.sqrt(variance / n))
    fourth = ((values - values.mean(0)) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(values.var(0) - variance),
                                 6 * np.sqrt((fourth - variance ** 2) / n))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16])
def test_poisson_moments_dtype_and_device(dtype, device):
    rate = mt.tensor([0.2, 3.0, 40.0], dtype=dtype, device=device).expand(N, 3)
    draws = mt.poisson(rate)
    assert draws.shape == (N, 3) and draws.dtype is dtype
    assert draws.device == tensor_device(device)
    values = draws.cpu().numpy()
    assert (values == np.floor(values)).all() and (values >= 0).all()
    _assert_moments(values, np.array([0.2, 3.0, 40.0]), np.array([0.2, 3.0, 40.0]))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_binomial_moments_broadcast_and_device(dtype, device):
    count = mt.tensor([[10.0], [3.0]], dtype=dtype, device=device)
    prob = mt.tensor([0.1, 0.5, 1.0], dtype=dtype, device=device)
    draws = mt.binomial(count.expand(N, 2, 1), prob)
    assert draws.shape == (N, 2, 3) and draws.dtype is dtype
    assert draws.device == tensor_device(device)
    values = draws.cpu().numpy()
    n, p = np.array([[10.0], [3.0]]), np.array([0.1, 0.5, 1.0])
    assert (values[..., 2] == n[:, 0]).all()  # a sure success every trial
    _assert_moments(values[..., :2], (n * p)[:, :2], (n * p * (1 - p))[:, :2])


def test_binomial_truncates_a_fractional_count():
    draws = mt.binomial(mt.full((1000,), 2.7), mt.full((1000,), 1.0))
    assert (draws == 2).all()


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_standard_gamma_moments_dtype_and_device(dtype, device):
    alpha = mt.tensor([0.3, 1.0, 7.5], dtype=dtype, device=device)
    draws = mt._standard_gamma(alpha.expand(N, 3))
    assert draws.shape == (N, 3) and draws.dtype is dtype
    assert draws.device == tensor_device(device)
    _assert_moments(draws.cpu().numpy(), np.array([0.3, 1.0, 7.5]), np.array([0.3, 1.0, 7.5]))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_standard_gamma_clamps_underflow_to_the_smallest_normal(dtype):
    draws = mt._standard_gamma(mt.full((1000,), 1e-4, dtype=dtype))
    assert float(draws.min()) == mt.finfo(dtype).tiny


def test_the_same_seed_gives_the_same_draws():
    rate = mt.full((50,), 4.0)
    for draw in (lambda: mt.poisson(rate), lambda: mt._standard_gamma(rate),
                 lambda: mt.binomial(rate, rate / 8)):
        mt.manual_seed(11)
        first = draw().tolist()
        mt.manual_seed(11)
        assert draw().tolist() == first
    generator = mt.Generator().manual_seed(3)
    first = mt.poisson(rate, generator=generator).tolist()
    assert mt.poisson(rate, generator=mt.Generator().manual_seed(3)).tolist() == first


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_standard_gamma_gradient_is_torchs(dtype, device):
    torch = pytest.importorskip("torch")
    alpha = mt.tensor([0.02, 0.5, 1.0, 2.0, 12.0, 250.0], dtype=dtype, device=device,
                      requires_grad=True)
    x = mt._standard_gamma(alpha.expand(30, 6))
    assert x.grad_fn.name() == "StandardGammaBackward0"
    upstream = mt.tensor(np.random.default_rng(0).standard_normal((30, 6)), dtype=dtype,
                         device=device)
    x.backward(upstream)
    assert alpha.grad.dtype is dtype
    t_alpha = torch.tensor(alpha.detach().cpu().numpy()).expand(30, 6).double()
    t_x = torch.tensor(x.detach().cpu().numpy()).double()
    expected = (torch._standard_gamma_grad(t_alpha, t_x).numpy()
                * upstream.cpu().numpy()).sum(0)
    # PyTorch's _standard_gamma_grad is an approximation good to about 1e-3
    np.testing.assert_allclose(alpha.grad.cpu().numpy(), expected, rtol=2e-3, atol=1e-6)


def test_poisson_gradient_is_zero_and_binomial_refuses_backward():
    torch = pytest.importorskip("torch")
    rate = mt.tensor([1.0, 2.0], requires_grad=True)
    out = mt.poisson(rate)
    assert out.grad_fn.name() == torch.poisson(torch.ones(1, requires_grad=True)).grad_fn.name()
    out.sum().backward()
    assert rate.grad.tolist() == [0.0, 0.0]
    count, prob = mt.full((2,), 5.0, requires_grad=True), mt.full((2,), 0.5, requires_grad=True)
    out = mt.binomial(count, prob)
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        out.sum().backward()


def test_meta_shapes_and_no_values_read():
    meta = mt.empty(4, 3, device="meta", requires_grad=True)
    for out in (mt.poisson(meta), mt.binomial(meta, meta), mt._standard_gamma(meta)):
        assert out.is_meta and out.shape == (4, 3) and out.dtype is mt.float32
    out = mt._standard_gamma(meta)
    out.sum().backward()
    assert meta.grad.is_meta and meta.grad.shape == (4, 3)
    assert mt.binomial(mt.empty(2, 1, device="meta"), mt.empty(3, device="meta")).shape == (2, 3)


def test_empty_inputs():
    for out in (mt.poisson(mt.empty(0, 3)), mt.binomial(mt.empty(0), mt.empty(0)),
                mt._standard_gamma(mt.empty(2, 0))):
        assert out.numel() == 0


@pytest.mark.parametrize("call", [
    lambda T: T.poisson(T.tensor([1, 2])),
    lambda T: T._standard_gamma(T.tensor([1, 2])),
    lambda T: T.binomial(T.tensor([1]), T.tensor([0.5])),
    lambda T: T.poisson([1.0]),
    lambda T: T.poisson(T.tensor([1.0, -1.0])),
    lambda T: T.poisson(T.tensor([float("nan")])),
])
def test_errors_are_torchs(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(mt)
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize("call, error, message", [
    (lambda: mt.binomial(mt.tensor([-1.0]), mt.tensor([0.5])), RuntimeError,
     "binomial expects a non-negative count, got values from -1.0 to -1.0"),
    (lambda: mt.binomial(mt.tensor([2.0]), mt.tensor([1.5])), RuntimeError,
     r"binomial expects probabilities in \[0, 1\], got values from 1.5 to 1.5"),
    (lambda: mt.binomial(mt.tensor([2.0]), mt.tensor([0.5], dtype=mt.float64)), RuntimeError,
     "binomial expects prob of count's dtype torch.float32, got torch.float64"),
    (lambda: mt.binomial(mt.ones(2), mt.ones(3)), mt.ShapeError, "cannot be broadcast"),
    (lambda: mt.poisson(mt.tensor([1e19])), RuntimeError, "expected rates of at most 1e"),
])
def test_errors_say_what_was_expected_and_what_arrived(call, error, message):
    with pytest.raises(error, match=message):
        call()
