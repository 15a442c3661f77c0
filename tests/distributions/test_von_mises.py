"""``VonMises``: log_prob values and gradients against PyTorch, the circular moments,
Best and Fisher's sampler checked by its sample statistics, shapes, meta and errors."""

import math

import numpy as np
import pytest
import torch

import minitorch_meta as mt
from minitorch_meta.distributions import VonMises
from tests.devices import tensor_device

LOC = [0.5, -2.0, 3.0, 0.0, 10.0]
KAPPA = [1e-3, 0.4, 2.0, 15.0, 700.0]
VALUE = [0.1, 0.2, -3.1, 7.0, 10.05]


def _both(device, dtype="float64", requires_grad=False):
    ours = [mt.tensor(v, dtype=getattr(mt, dtype), device=device, requires_grad=requires_grad)
            for v in (LOC, KAPPA, VALUE)]
    theirs = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=requires_grad)
              for v in (LOC, KAPPA, VALUE)]
    return ours, theirs


def _numpy(t):
    return t.detach().cpu().numpy().astype(np.float64)


def test_log_prob_values_and_gradients_match_torch(device):
    (loc, kappa, value), (t_loc, t_kappa, t_value) = _both(device, requires_grad=True)
    ours = VonMises(loc, kappa).log_prob(value)
    theirs = torch.distributions.VonMises(t_loc, t_kappa).log_prob(t_value)
    assert ours.device == tensor_device(device) and ours.dtype == mt.float64
    # PyTorch's log I0 is a polynomial fit good to about 1e-7; ours is i0e's series.
    np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-6, atol=1e-6)
    weights = [1.0, -2.0, 0.5, 3.0, 1.5]
    ours.backward(mt.tensor(weights, dtype=mt.float64, device=device))
    theirs.backward(torch.tensor(weights, dtype=torch.float64))
    for a, b in ((loc, t_loc), (kappa, t_kappa), (value, t_value)):
        np.testing.assert_allclose(_numpy(a.grad), _numpy(b.grad), rtol=1e-5, atol=1e-6)


def test_log_prob_passes_gradcheck():
    loc = mt.tensor([0.3, -1.0], dtype=mt.float64, requires_grad=True)
    kappa = mt.tensor([0.7, 25.0], dtype=mt.float64, requires_grad=True)
    value = mt.tensor([[1.0, 2.0], [-0.4, -1.1]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, k, x: VonMises(a, k).log_prob(x),
                                 (loc, kappa, value))


def test_density_integrates_to_one_and_is_periodic(device):
    grid = mt.linspace(-math.pi, math.pi, 20001, dtype=mt.float64, device=device)[:-1]
    dist = VonMises(mt.tensor([[1.0], [-2.5]], dtype=mt.float64, device=device),
                    mt.tensor([[0.3], [40.0]], dtype=mt.float64, device=device))
    density = dist.log_prob(grid).exp()
    np.testing.assert_allclose(_numpy(density.sum(-1) * (2 * math.pi / 20000)), [1.0, 1.0],
                               rtol=1e-9)
    np.testing.assert_allclose(_numpy(dist.log_prob(grid[:5] + 4 * math.pi)),
                               _numpy(dist.log_prob(grid[:5])), rtol=1e-9)


def test_moments_match_torch(device):
    (loc, kappa, _), (t_loc, t_kappa, _) = _both(device)
    ours, theirs = VonMises(loc, kappa), torch.distributions.VonMises(t_loc, t_kappa)
    for name in ("mean", "mode"):
        np.testing.assert_array_equal(_numpy(getattr(ours, name)), _numpy(getattr(theirs, name)))
    # PyTorch's polynomial fit of log I1 - log I0 is off by 3e-7 at 700.
    np.testing.assert_allclose(_numpy(ours.variance), _numpy(theirs.variance), rtol=1e-5,
                               atol=1e-6)
    k = KAPPA[-1]  # 1 - I1(k) / I0(k) = 1 / (2k) + 1 / (8k^2) + O(k^-3) for a large k
    assert abs(_numpy(ours.variance)[-1] - (1 / (2 * k) + 1 / (8 * k * k))) < 1e-9
    np.testing.assert_allclose(_numpy(ours.stddev), np.sqrt(_numpy(ours.variance)), rtol=1e-12)


def test_an_unchecked_negative_concentration_is_torchs_law():
    """With validate_args=False a negative concentration is the law turned by pi:
    log I0 and the circular variance are even in it, as PyTorch computes them."""
    kappa = [-0.3, -1.0, -5.0, 2.0]
    value = [3.0, 0.1, 1.0, -1.0]
    ours_k = mt.tensor(kappa, dtype=mt.float64, requires_grad=True)
    theirs_k = torch.tensor(kappa, dtype=torch.float64, requires_grad=True)
    ours = VonMises(mt.tensor(0.3, dtype=mt.float64), ours_k, validate_args=False)
    theirs = torch.distributions.VonMises(torch.tensor(0.3, dtype=torch.float64), theirs_k,
                                          validate_args=False)
    out = ours.log_prob(mt.tensor(value, dtype=mt.float64)) + ours.variance
    ref = theirs.log_prob(torch.tensor(value, dtype=torch.float64)) + theirs.variance
    np.testing.assert_allclose(_numpy(out), _numpy(ref), rtol=1e-5)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(_numpy(ours_k.grad), _numpy(theirs_k.grad), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samples_have_the_circular_mean_and_resultant_length(device, dtype):
    loc = mt.tensor([0.5, -2.0, 3.0, 0.0, 1.0, -3.1], device=device)
    kappa = mt.tensor([0.5, 2.0, 50.0, 1e-6, 8.0, 300.0], device=device)
    mt.manual_seed(1234)
    samples = VonMises(loc.to(getattr(mt, dtype)), kappa.to(getattr(mt, dtype))).sample((40000,))
    assert samples.shape == (40000, 6) and samples.dtype == getattr(mt, dtype)
    assert samples.device == tensor_device(device) and not samples.requires_grad
    x = _numpy(samples)
    assert (x >= -math.pi).all() and (x <= math.pi).all()
    resultant = np.exp(1j * x).mean(0)
    expected_length = _numpy(1 - VonMises(loc.double(), kappa.double()).variance)
    # Each length's standard error is below 0.004: 0.012 is 3 of them, and a sampler that
    # ignores the concentration misses by 0.1 or more.
    np.testing.assert_allclose(np.abs(resultant), expected_length, atol=0.012)
    # The direction is meaningless for the nearly uniform 1e-6; elsewhere its error is
    # below 0.006 rad (0.5: the widest, standard error about 0.02 / 0.24 / sqrt(2) ...).
    spread = np.abs(np.angle(resultant * np.exp(-1j * _numpy(loc))))
    np.testing.assert_array_less(np.delete(spread, 3), [0.05, 0.02, 0.01, 0.02, 0.01])


def test_samples_match_the_distribution_of_torchs_sampler():
    mt.manual_seed(7)
    torch.manual_seed(7)
    ours = np.sort(VonMises(mt.tensor(1.0), mt.tensor(3.0)).sample((30000,)).numpy())
    theirs = np.sort(torch.distributions.VonMises(torch.tensor(1.0), torch.tensor(3.0))
                     .sample((30000,)).numpy())
    quantiles = np.linspace(0.05, 0.95, 19)
    np.testing.assert_allclose(np.quantile(ours, quantiles), np.quantile(theirs, quantiles),
                               atol=0.04)


def test_sampling_is_seeded():
    dist = VonMises(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 4.0]))
    mt.manual_seed(3)
    first = dist.sample((100,))
    mt.manual_seed(3)
    assert mt.equal(first, dist.sample((100,)))


def test_shapes_expand_and_meta():
    dist = VonMises(mt.tensor([0.0, 1.0, 2.0]), 2.0)
    assert dist.batch_shape == (3,) and dist.event_shape == ()
    assert dist.sample((4, 2)).shape == (4, 2, 3)
    wide = dist.expand((5, 3))
    assert wide.batch_shape == (5, 3) and wide.sample().shape == (5, 3)
    np.testing.assert_allclose(_numpy(wide.variance), np.broadcast_to(_numpy(dist.variance),
                                                                      (5, 3)))
    meta = VonMises(mt.zeros(3, device="meta"), mt.ones(2, 1, device="meta"))
    assert meta.sample((4,)).shape == (4, 2, 3) and meta.sample().device == mt.device("meta")
    assert meta.log_prob(mt.zeros(3, device="meta")).shape == (2, 3)
    assert meta.variance.shape == (2, 3)


def test_constraints_and_errors_match_torch():
    for module in (mt, torch):
        cls = module.distributions.VonMises
        assert repr(cls.arg_constraints["concentration"]) == "GreaterThan(lower_bound=0.0)"
        assert repr(cls.support) == "Real()" and cls.has_rsample is False
        with pytest.raises(ValueError, match="Expected parameter concentration"):
            cls(module.tensor([0.0]), module.tensor([-1.0]))
        with pytest.raises(ValueError, match="Expected parameter loc"):
            cls(module.tensor([math.nan]), module.tensor([1.0]))
        with pytest.raises(NotImplementedError):
            cls(module.tensor([0.0]), module.tensor([1.0])).rsample()
