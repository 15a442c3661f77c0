"""normal, bernoulli, multinomial, randint_like and logspace: PyTorch's forms, dtypes, zero
gradients and grad_fn names, errors, distributions, reproducibility, meta shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _draws(device):
    """One draw of every sampler, as host arrays."""
    m = mt.zeros(3, 4, device=device)
    s = mt.full((4,), 2.0, device=device)
    p = mt.tensor([0.1, 0.0, 0.6, 0.3], device=device)
    return [mt.normal(m, s), mt.normal(m, 3.0), mt.normal(1.0, s), mt.normal(0.0, 1.0, (5,),
                                                                             device=device),
            mt.bernoulli(m + 0.5), mt.multinomial(p, 3), mt.multinomial(p, 20, True),
            mt.multinomial(p.expand(2, 4), 2), mt.randint_like(m, 3, 9)]


def test_manual_seed_reproduces_every_draw(device):
    mt.manual_seed(7)
    first = [t.cpu().numpy() for t in _draws(device)]
    mt.manual_seed(7)
    again = [t.cpu().numpy() for t in _draws(device)]
    mt.manual_seed(8)
    other = [t.cpu().numpy() for t in _draws(device)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other))


@pytest.mark.parametrize("draw", [
    lambda d, g: mt.normal(mt.zeros(50, device=d), mt.ones(50, device=d), generator=g),
    lambda d, g: mt.normal(mt.zeros(50, device=d), 2.0, generator=g),
    lambda d, g: mt.normal(1.0, mt.ones(50, device=d), generator=g),
    lambda d, g: mt.normal(0.0, 1.0, size=(50,), generator=g, device=d),
    lambda d, g: mt.bernoulli(mt.full((50,), 0.5, device=d), generator=g),
    lambda d, g: mt.full((50,), 0.5, device=d).bernoulli(generator=g),
    lambda d, g: mt.multinomial(mt.ones(50, device=d), 10, generator=g),
    lambda d, g: mt.ones(3, 50, device=d).multinomial(10, True, generator=g),
    lambda d, g: mt.randint_like(mt.zeros(50, device=d), 100, generator=g),
])
def test_a_generator_is_its_own_stream(draw, device):
    first = draw(device, mt.Generator(device).manual_seed(3)).cpu().numpy()
    mt.manual_seed(0)
    again = draw(device, mt.Generator(device).manual_seed(3)).cpu().numpy()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, draw(device, None).cpu().numpy())


def test_a_generator_of_another_device_is_refused():
    with pytest.raises(RuntimeError, match="expected a 'meta' generator for a tensor on 'meta'"):
        mt.bernoulli(mt.zeros(3, device="meta"), generator=mt.Generator("cpu"))


@pytest.mark.parametrize("call, name, grads", [
    (lambda T, m, s: T.normal(m, s), "NormalBackward3", (True, True)),
    (lambda T, m, s: T.normal(m, 2.0), "NormalBackward1", (True, False)),
    (lambda T, m, s: T.normal(-1.0, s), "NormalBackward2", (False, True)),
    (lambda T, m, s: T.normal(mean=m), "NormalBackward1", (True, False)),
    (lambda T, m, s: T.bernoulli(s * 0.25), "BernoulliBackward0", (False, True)),
    (lambda T, m, s: (s * 0.1).bernoulli(), "BernoulliBackward0", (False, True)),
])
def test_gradients_are_zeros_as_in_torch(call, name, grads, device):
    torch = _torch()
    m, s = mt.zeros(2, 3, device=device, requires_grad=True), mt.ones(3, device=device,
                                                                        requires_grad=True)
    tm, ts = torch.zeros(2, 3, requires_grad=True), torch.ones(3, requires_grad=True)
    out, ref = call(mt, m, s), call(torch, tm, ts)
    assert out.grad_fn.name() == ref.grad_fn.name() == name
    assert tuple(out.shape) == tuple(ref.shape) and str(out.dtype) == str(ref.dtype)
    (out * 3).sum().backward()
    (ref * 3).sum().backward()
    for ours, theirs, wanted in ((m, tm, grads[0]), (s, ts, grads[1])):
        assert (ours.grad is not None) == (theirs.grad is not None) == wanted
        if wanted:
            assert ours.grad.shape == ours.shape and not ours.grad.cpu().numpy().any()


@pytest.mark.parametrize("call", [
    lambda T: T.normal(T.zeros(2, 3, dtype=T.float64), T.ones(3)),
    lambda T: T.normal(T.zeros(1, 3), T.ones(4, 1, dtype=T.float64)),
    lambda T: T.normal(T.zeros(3, dtype=T.float64), 1.0),
    lambda T: T.normal(0.0, T.ones(2, 2)),
    lambda T: T.normal(2.0, 3.0, (2, 3)),
    lambda T: T.normal(2.0, 3.0, size=(4,), dtype=T.float64),
    lambda T: T.normal(2, 3, (0, 2)),
    lambda T: T.bernoulli(T.zeros(2, 5, dtype=T.float64)),
    lambda T: T.bernoulli(T.ones(())),
    lambda T: T.multinomial(T.ones(5, dtype=T.float64), 3),
    lambda T: T.multinomial(T.ones(4, 5), 7, replacement=True),
    lambda T: T.multinomial(T.ones(0, 5), 2),
    lambda T: T.randint_like(T.zeros(2, 3), 10),
    lambda T: T.randint_like(T.zeros(2, 3, dtype=T.int32), 3, 10),
    lambda T: T.randint_like(T.zeros(4), 10, dtype=T.int64),
    lambda T: T.randint_like(T.zeros(4, dtype=T.uint8), high=7),
])
def test_shapes_and_dtypes_as_torch_and_on_meta(call):
    torch = _torch()
    ours, theirs = call(mt), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    with mt.device("meta"):
        meta = call(mt)
    assert meta.is_meta and meta.shape == ours.shape and meta.dtype is ours.dtype


def test_meta_parameter_tensors_give_meta_samples_without_data():
    p = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    assert mt.normal(p, p).shape == p.shape and mt.bernoulli(p).is_meta
    assert mt.multinomial(p, 5).shape == (2**20, 5)
    assert mt.randint_like(p, 4).shape == p.shape and mt.normal(p, 1.0).grad_fn is not None


def test_values_follow_the_distributions(device):
    mt.manual_seed(1)
    n = 200_000
    x = mt.normal(mt.full((n,), 3.0, device=device), mt.full((n,), 2.0, device=device))
    values = x.cpu().numpy()
    assert abs(values.mean() - 3.0) < 0.03 and abs(values.std() - 2.0) < 0.03
    y = mt.normal(-1.0, 0.5, (n,), dtype=mt.float64, device=device).cpu().numpy()
    assert abs(y.mean() + 1.0) < 0.01 and abs(y.std() - 0.5) < 0.01
    b = mt.bernoulli(mt.tensor([0.0, 0.25, 1.0], device=device).expand(n, 3)).cpu().numpy()
    assert set(np.unique(b)) <= {0.0, 1.0}
    assert b[:, 0].sum() == 0 and b[:, 2].sum() == n and abs(b[:, 1].mean() - 0.25) < 0.01
    r = mt.randint_like(mt.zeros(n, device=device), -2, 3).cpu().numpy()
    assert set(np.unique(r)) == {-2, -1, 0, 1, 2}


@pytest.mark.parametrize("rows", [1, 3])
def test_multinomial_with_replacement_follows_the_weights(rows, device):
    mt.manual_seed(2)
    weights = mt.tensor([[2.0, 0.0, 3.0, 5.0], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]][:rows],
                        device=device)
    drawn = mt.multinomial(weights if rows > 1 else weights[0], 100_000, True)
    counts = np.array([np.bincount(r, minlength=4) for r in drawn.cpu().numpy().reshape(rows,
                                                                                        -1)])
    expected = weights.cpu().numpy() / weights.cpu().numpy().sum(1, keepdims=True)
    np.testing.assert_allclose(counts / 100_000, expected, atol=0.01)
    assert (counts[expected == 0] == 0).all()  # a zero weight is never drawn


def test_multinomial_without_replacement_never_repeats_and_ranks_by_weight(device):
    mt.manual_seed(3)
    weights = mt.tensor([1.0, 0.0, 2.0, 7.0], device=device)
    drawn = mt.multinomial(weights.expand(50_000, 4), 3).cpu().numpy()
    assert all(len(set(row)) == 3 for row in drawn[:1000])
    assert not (drawn == 1).any()  # three positive weights for three samples: never the zero
    first = np.bincount(drawn[:, 0], minlength=4) / 50_000
    np.testing.assert_allclose(first, [0.1, 0.0, 0.2, 0.7], atol=0.01)
    everything = mt.multinomial(mt.ones(6, device=device), 6).cpu().numpy()
    assert sorted(everything.tolist()) == list(range(6))


def test_without_replacement_zero_weights_come_last_as_in_torch(device):
    torch = _torch()
    assert mt.multinomial(mt.tensor([1.0, 0.0, 0.0], device=device), 2).tolist() == \
        torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 2).tolist() == [0, 1]
    # PyTorch's order among the zero weights is its topk's; ours is the index order
    ours = mt.multinomial(mt.tensor([0.0, 2.0, 0.0, 0.0], device=device), 4).tolist()
    theirs = torch.multinomial(torch.tensor([0.0, 2.0, 0.0, 0.0]), 4).tolist()
    assert ours[0] == theirs[0] == 1 and sorted(ours) == sorted(theirs) and ours == [1, 0, 2, 3]
    pair = mt.multinomial(mt.tensor([[1.0, 1.0, 0.0]], device=device), 3)[0].tolist()
    assert sorted(pair[:2]) == [0, 1] and pair[2] == 2


def test_categorical_kernel_edges():
    from minitorch_meta.backends.registry import get_backend

    backend = get_backend(mt.device("cpu"))
    weights = np.array([[0.0, 1.0, 0.0, 1.0, 0.0], [3.0, 0.0, 0.0, 0.0, 0.0]])
    u = np.array([[0.0, 0.5 - 1e-12, 0.5, 1.0 - 2.0**-53], [0.0, 0.3, 0.9, 1.0 - 2.0**-53]])
    assert backend.categorical(weights, u).tolist() == [[1, 1, 3, 3], [0, 0, 0, 0]]
    assert backend.categorical(weights[:1], u[:1]).tolist() == [[1, 1, 3, 3]]
    assert backend.categorical(weights, u).dtype == np.int64


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.normal(T.zeros(3), -1.0), RuntimeError,
     "normal expects std >= 0.0, but found std -1"),
    (lambda T: T.normal(0.0, -2.0, (3,)), RuntimeError,
     "normal expects std >= 0.0, but found std -2"),
    (lambda T: T.normal(T.zeros(3), -T.ones(3)), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda T: T.normal(T.zeros(2, 3), T.ones(6)), (RuntimeError, ValueError), None),
    (lambda T: T.normal(0.0, 1.0), TypeError, "normal() received an invalid combination of "
                                              "arguments"),
    (lambda T: T.normal(T.zeros(3), T.ones(3), size=(3,)), TypeError, None),
    (lambda T: T.normal(T.zeros(3, dtype=T.int64), 1.0), NotImplementedError, None),
    (lambda T: T.bernoulli(T.full((3,), 2.0)), RuntimeError, None),
    (lambda T: T.bernoulli(T.full((3,), float("nan"))), RuntimeError, None),
    (lambda T: T.bernoulli(T.ones(3, dtype=T.int64)), NotImplementedError, None),
    (lambda T: T.multinomial(T.tensor([0.5, 0.5]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda T: T.multinomial(T.tensor([-1.0, 1.0]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda T: T.multinomial(T.tensor([float("inf"), 1.0]), 1, True), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda T: T.multinomial(T.tensor([float("nan"), 1.0]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda T: T.multinomial(T.tensor([[1.0, 1.0], [0.0, 0.0]]), 1, True), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda T: T.multinomial(T.ones(2, 2, 2), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
    (lambda T: T.multinomial(T.tensor(1.0), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
    (lambda T: T.multinomial(T.ones(3), 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
    (lambda T: T.multinomial(T.ones(3), -1, True), RuntimeError,
     "cannot sample n_sample <= 0 samples"),
    (lambda T: T.multinomial(T.ones(3, dtype=T.int64), 1), RuntimeError,
     "multinomial only supports floating-point dtypes for input, got: "),
    (lambda T: T.multinomial(T.ones(3), 2.0), TypeError,
     "multinomial(): argument 'num_samples' (position 2) must be int, not float"),
    (lambda T: T.randint_like(T.zeros(3), 3, 3), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=3 >= to=3"),
    (lambda T: T.randint_like(T.zeros(3), 0), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"),
    (lambda T: T.logspace(0, 1, -1), RuntimeError, "number of steps must be non-negative"),
])
def test_errors_as_torch(call, error, message):
    torch = _torch()
    with pytest.raises(error) as ours:
        call(mt)
    with pytest.raises(error) as theirs:
        call(torch)
    if message is not None:
        assert str(ours.value).startswith(message), str(ours.value)
        assert str(theirs.value).startswith(message), str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda T: T.multinomial(T.ones(3, 4, dtype=T.int64, device="meta"), 1),
    lambda T: T.multinomial(T.ones(4, device="meta"), 5),
    lambda T: T.normal(T.zeros(3, device="meta"), -1.0),
    lambda T: T.bernoulli(T.ones(3, dtype=T.int32, device="meta")),
])
def test_rule_errors_are_raised_on_meta_too(call):
    with pytest.raises((RuntimeError, NotImplementedError)):
        call(mt)


@pytest.mark.parametrize("args, kwargs", [
    ((0, 2, 3), {}), ((-1, 1, 5), {"dtype": "float64"}), ((0, 3, 4), {"base": 2}),
    ((0, 2, 3), {"dtype": "int64"}), ((2, 0, 5), {"base": 3.0}), ((0, 1, 0), {}),
    ((0, 1, 1), {}), ((1.5, -0.5, 4), {"base": 0.5, "dtype": "float64"}),
])
def test_logspace_matches_torch(args, kwargs, any_device):
    torch = _torch()
    dtype = kwargs.pop("dtype", None)
    ours = mt.logspace(*args, **kwargs, dtype=getattr(mt, dtype) if dtype else None,
                       device=any_device)
    theirs = torch.logspace(*args, **kwargs, dtype=getattr(torch, dtype) if dtype else None)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    if any_device != "meta":
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="argument 'steps'"):
        mt.logspace(0, 1, 2.0)
