"""F.channel_shuffle / nn.ChannelShuffle, F.gumbel_softmax and F.pdist: values and gradients
three ways (gradcheck, PyTorch, meta shapes), PyTorch's errors, dtypes, edge cases; for
gumbel_softmax (random) the distribution of its samples and the straight-through gradient."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

INF = math.inf

SHUFFLE_CASES = [
    Case("shuffle_2d_image", lambda T, F, x: F.channel_shuffle(x, 2), [Arg((2, 6, 3, 2))]),
    Case("shuffle_3_groups", lambda T, F, x: F.channel_shuffle(x, 3) * 1.5,
         [Arg((1, 6, 2, 2))]),
    Case("shuffle_1d", lambda T, F, x: F.channel_shuffle(x, 4), [Arg((2, 8, 5))]),
    Case("shuffle_3d", lambda T, F, x: F.channel_shuffle(x, 2), [Arg((1, 4, 2, 3, 2))]),
    Case("shuffle_one_group", lambda T, F, x: F.channel_shuffle(x, 1), [Arg((2, 3, 4))]),
    Case("shuffle_every_channel_a_group", lambda T, F, x: F.channel_shuffle(x, 5),
         [Arg((2, 5, 3))]),
    Case("shuffle_empty_batch", lambda T, F, x: F.channel_shuffle(x, 2), [Arg((0, 4, 3))]),
    # (no gradient: PyTorch's backward shuffles by C / g = 0 groups and raises)
    Case("shuffle_no_channels", lambda T, F, x: F.channel_shuffle(x, 3),
         [Arg((2, 0, 3), grad=False)]),
    Case("shuffle_layer", lambda T, F, x: T.nn.ChannelShuffle(2)(x), [Arg((2, 4, 3, 3))]),
    Case("shuffle_torch_function", lambda T, F, x: T.channel_shuffle(x, 3),
         [Arg((2, 6, 1))]),
    Case("shuffle_int", lambda T, F, x: F.channel_shuffle(x, 2), [Arg((2, 4, 3), "int:9")]),
]

def _pdist_with(p):
    return lambda T, F, x: F.pdist(x, p)


PDIST_CASES = [
    Case(f"pdist_p{p}", _pdist_with(p), [Arg((5, 3))]) for p in (2, 1, 3, 1.5, 0.5, INF)
] + [
    Case("pdist_p0", lambda T, F, x: F.pdist(x, 0), [Arg((4, 3))]),
    Case("pdist_default", lambda T, F, x: F.pdist(x) * 2, [Arg((6, 4))]),
    Case("pdist_torch_function", lambda T, F, x: T.pdist(x, p=2), [Arg((3, 2))]),
    Case("pdist_one_column", lambda T, F, x: F.pdist(x, 1.5), [Arg((5, 1))]),
    Case("pdist_two_rows", lambda T, F, x: F.pdist(x), [Arg((2, 7))]),
    Case("pdist_one_row", lambda T, F, x: F.pdist(x), [Arg((1, 3))]),
    # (no gradient: PyTorch 2.13's PdistBackward crashes the process on 0 rows)
    Case("pdist_no_rows", lambda T, F, x: F.pdist(x), [Arg((0, 3), grad=False)]),
    Case("pdist_no_columns", lambda T, F, x: F.pdist(x, 3), [Arg((4, 0))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(SHUFFLE_CASES
                                                                       + PDIST_CASES)


# -- channel_shuffle -------------------------------------------------------------------------
def test_channel_shuffle_order_like_torch_docs():
    x = mt.arange(1, 17, dtype=mt.float32).view(1, 4, 2, 2)
    out = mt.nn.ChannelShuffle(2)(x)
    assert out[0, :, 0, 0].tolist() == [1.0, 9.0, 5.0, 13.0]
    assert out.is_contiguous() and out.dtype is mt.float32


def test_channel_shuffle_inverse_is_shuffle_by_the_group_size(device):
    x = mt.randn(2, 12, 3, device=device)
    assert mt.equal(F.channel_shuffle(F.channel_shuffle(x, 3), 4), x)


def test_channel_shuffle_output_is_a_copy(device):
    x = mt.zeros(1, 4, 2, device=device)
    out = F.channel_shuffle(x, 1)
    out.fill_(1.0)
    assert x.sum().item() == 0.0


def test_channel_shuffle_of_no_channels_has_an_empty_gradient(device):
    x = mt.ones(2, 0, 3, device=device, requires_grad=True)
    F.channel_shuffle(x, 3).sum().backward()
    assert x.grad.shape == (2, 0, 3)


def test_channel_shuffle_layer_repr_like_torch(torch_ref):
    assert repr(mt.nn.ChannelShuffle(3)) == repr(torch_ref.nn.ChannelShuffle(3)) \
        == "ChannelShuffle(groups=3)"


@pytest.mark.parametrize("shape, groups, message", [
    ((2, 6, 3), 4, "channel_shuffle: Number of channels must be divisible by groups. Got 6 "
                   "channels and 4 groups."),
    ((2, 6, 3), 0, "channel_shuffle: Number of groups to divide channels in must be positive. "
                   "Value of groups:0"),
    ((2, 6, 3), -2, "channel_shuffle: Number of groups to divide channels in must be "
                    "positive. Value of groups:-2"),
    ((2, 6), 2, "channel_shuffle: expects input with > 2 dims (N, C, *), but got input with "
                "sizes [2, 6]"),
    ((6,), 1, "channel_shuffle: expects input with > 2 dims (N, C, *), but got input with "
              "sizes [6]"),
])
def test_channel_shuffle_errors(torch_ref, shape, groups, message):
    with pytest.raises(RuntimeError):
        torch_ref.nn.functional.channel_shuffle(torch_ref.ones(shape), groups)
    check_same_error_on_cpu_and_meta(lambda x: F.channel_shuffle(x, groups), RuntimeError,
                                     message, shape)


@pytest.mark.parametrize("groups", [2.0, True, "2"])
def test_channel_shuffle_groups_type_like_torch(torch_ref, groups):
    with pytest.raises(TypeError) as theirs:
        torch_ref.nn.functional.channel_shuffle(torch_ref.ones(2, 4, 2), groups)
    with pytest.raises(TypeError) as ours:
        F.channel_shuffle(mt.ones(2, 4, 2), groups)
    assert str(ours.value) == str(theirs.value)


# -- pdist ---------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, INF])
def test_pdist_gradient_at_equal_rows_and_ties_like_torch(device, torch_ref, p):
    """Equal rows (distance 0), zero differences and ties of the largest difference:
    PyTorch's subgradients."""
    for data in ([[1.0, 1.0], [1.0, 1.0], [2.0, 3.0]], [[1.0, 1.0], [1.0, 2.0], [2.0, 1.0]]):
        x = mt.tensor(data, dtype=mt.float64, device=device, requires_grad=True)
        ref = torch_ref.tensor(data, dtype=torch_ref.float64, requires_grad=True)
        out, expected = F.pdist(x, p), torch_ref.nn.functional.pdist(ref, p)
        np.testing.assert_allclose(out.detach().cpu().numpy(), expected.detach().numpy())
        out.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy(), atol=1e-15)


def test_pdist_float64_values_like_torch(device, torch_ref):
    data = np.random.default_rng(3).standard_normal((40, 6))
    for p in (0.7, 2, INF):
        out = F.pdist(mt.tensor(data, device=device), p)
        assert out.dtype is mt.float64
        np.testing.assert_allclose(out.cpu().numpy(),
                                   torch_ref.pdist(torch_ref.tensor(data), p).numpy(),
                                   rtol=1e-12)


def test_pdist_matches_cdist_upper_triangle_over_several_blocks(device, monkeypatch):
    from minitorch_meta.ops import cdist

    monkeypatch.setattr(cdist, "_BLOCK", 40)  # a few rows per block
    x = mt.randn(9, 4, dtype=mt.float64, device=device, requires_grad=True)
    out = F.pdist(x, 1.5)
    rows, cols = np.triu_indices(9, 1)
    full = mt.cdist(x, x, 1.5)
    np.testing.assert_allclose(out.detach().cpu().numpy(),
                               full.detach().cpu().numpy()[rows, cols], rtol=1e-12)
    weights = mt.tensor(np.arange(len(rows), dtype=np.float64), device=device)
    (out * weights).sum().backward()
    grad = x.grad.cpu().numpy()
    x.grad = None
    upstream = np.zeros((9, 9))
    upstream[rows, cols] = np.arange(len(rows))
    (mt.cdist(x, x, 1.5) * mt.tensor(upstream, device=device)).sum().backward()
    np.testing.assert_allclose(grad, x.grad.cpu().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make, error, message", [
    (lambda: mt.ones(3, dtype=mt.float32), RuntimeError,
     "pdist only supports 2D tensors, got: 1D (shape (3,))"),
    (lambda: mt.ones(2, 3, 3), RuntimeError,
     "pdist only supports 2D tensors, got: 3D (shape (2, 3, 3))"),
    (lambda: mt.ones(3, 2, dtype=mt.int64), RuntimeError,
     "pdist only supports floating-point dtypes"),
    (lambda: mt.ones(3, 2, dtype=mt.float16), NotImplementedError, "float16"),
])
def test_pdist_errors(torch_ref, make, error, message):
    x = make()
    with pytest.raises(error):
        torch_ref.pdist(torch_ref.ones(tuple(x.shape), dtype=getattr(torch_ref,
                                                                     str(x.dtype)[6:])))
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        F.pdist(x)


def test_pdist_negative_p_same_on_cpu_and_meta(torch_ref):
    with pytest.raises(RuntimeError, match="non-negative p"):
        torch_ref.pdist(torch_ref.ones(3, 2), -1)
    check_same_error_on_cpu_and_meta(lambda x: F.pdist(x, -1), RuntimeError,
                                     "pdist only supports non-negative p values, but got "
                                     "p=-1.0", (3, 2))


def test_pdist_of_no_rows_has_an_empty_gradient(device):
    x = mt.ones(0, 3, device=device, requires_grad=True)
    F.pdist(x).sum().backward()
    assert x.grad.shape == (0, 3)


def test_pdist_is_torch_pdist_and_grad_fn_name():
    assert F.pdist is mt.pdist
    out = mt.pdist(mt.randn(3, 2, requires_grad=True))
    assert out.grad_fn.name() == "PdistBackward0" and out.shape == (3,)


# -- gumbel_softmax ----------------------------------------------------------------------
def test_gumbel_soft_samples_are_distributions(device):
    logits = mt.randn(50, 7, device=device)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).cpu().numpy(), np.ones(50), rtol=1e-5)
    assert (y >= 0).all().item() and y.dtype is mt.float32 and y.shape == (50, 7)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gumbel_hard_samples_are_one_hot_along_dim(device, dim):
    logits = mt.randn(4, 5, 3, device=device)
    y = F.gumbel_softmax(logits, hard=True, dim=dim)
    values = y.cpu().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    np.testing.assert_array_equal(values.sum(axis=dim), np.ones(np.delete((4, 5, 3), dim)))


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_samples_follow_the_categorical_distribution(device, hard):
    """The largest entry of a sample is category k with probability softmax(logits)[k]
    (the Gumbel-max trick), whatever tau."""
    probabilities = np.array([0.5, 0.3, 0.15, 0.05])
    n = 40000
    logits = mt.tensor(np.log(np.tile(probabilities, (n, 1))), dtype=mt.float32, device=device)
    y = F.gumbel_softmax(logits, tau=2.0, hard=hard)
    counts = np.bincount(y.argmax(-1).cpu().numpy(), minlength=4) / n
    # four standard deviations of a proportion over n draws
    np.testing.assert_allclose(counts, probabilities, atol=4 * math.sqrt(0.25 / n))


def test_gumbel_noise_is_standard_gumbel(device):
    """With zero logits and tau = 1, log y + logsumexp recovers the Gumbel draws g: check
    their mean (Euler's constant) and variance (pi^2 / 6) through y's log-ratios."""
    y = F.gumbel_softmax(mt.zeros(200000, 2, dtype=mt.float64, device=device))
    difference = (y[:, 0].log() - y[:, 1].log()).cpu().numpy()  # g0 - g1: logistic
    assert abs(difference.mean()) < 0.02
    assert difference.var() == pytest.approx(math.pi ** 2 / 3, rel=0.02)


@pytest.mark.parametrize("tau", [1.0, 0.3])
def test_gumbel_soft_gradient_is_softmax_jacobian(device, tau):
    logits = mt.randn(6, 4, dtype=mt.float64, device=device, requires_grad=True)
    weights = np.random.default_rng(0).standard_normal((6, 4))
    y = F.gumbel_softmax(logits, tau=tau)
    assert y.grad_fn.name() == "SoftmaxBackward0"
    (y * mt.tensor(weights, device=device)).sum().backward()
    s = y.detach().cpu().numpy()
    expected = s * (weights - (weights * s).sum(-1, keepdims=True)) / tau
    np.testing.assert_allclose(logits.grad.cpu().numpy(), expected, rtol=1e-10, atol=1e-12)


def test_gumbel_hard_gradient_is_the_soft_samples(device):
    """Straight-through: with the same noise, the hard sample's gradient is the soft one's."""
    weights = mt.tensor(np.random.default_rng(1).standard_normal((5, 3)), device=device)
    grads, outputs = [], []
    for hard in (False, True):
        mt.manual_seed(11)
        logits = mt.tensor(np.linspace(-1, 1, 15).reshape(5, 3), device=device,
                           requires_grad=True)
        out = F.gumbel_softmax(logits, tau=0.7, hard=hard)
        (out * weights).sum().backward()
        grads.append(logits.grad.cpu().numpy())
        outputs.append(out.detach().cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(outputs[1], np.eye(3)[outputs[0].argmax(-1)])


def test_gumbel_hard_grad_fn_like_torch(torch_ref):
    ours = F.gumbel_softmax(mt.randn(2, 3, requires_grad=True), hard=True)
    theirs = torch_ref.nn.functional.gumbel_softmax(torch_ref.randn(2, 3, requires_grad=True),
                                                    hard=True)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__ == "AddBackward0"


def test_gumbel_eps_is_deprecated_like_torch(torch_ref):
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        torch_ref.nn.functional.gumbel_softmax(torch_ref.zeros(2, 3), eps=1e-5)
    with pytest.warns(UserWarning, match="^`eps` parameter is deprecated and has no effect.$"):
        F.gumbel_softmax(mt.zeros(2, 3), eps=1e-5)


def test_gumbel_seeded_and_on_meta():
    mt.manual_seed(5)
    first = F.gumbel_softmax(mt.zeros(3, 4))
    mt.manual_seed(5)
    assert mt.equal(first, F.gumbel_softmax(mt.zeros(3, 4)))
    for hard in (False, True):
        logits = mt.empty(3, 4, device="meta", requires_grad=True)
        out = F.gumbel_softmax(logits, hard=hard)
        assert out.is_meta and out.shape == (3, 4)
        out.sum().backward()
        assert logits.grad.is_meta and logits.grad.shape == (3, 4)


def test_gumbel_keeps_float64_and_float16():
    assert F.gumbel_softmax(mt.zeros(2, 3, dtype=mt.float64)).dtype is mt.float64
    y = F.gumbel_softmax(mt.zeros(2, 3, dtype=mt.float16), hard=True)
    assert y.dtype is mt.float16 and y.sum().item() == 2.0


def test_gumbel_refuses_integer_logits_like_torch(torch_ref):
    with pytest.raises(RuntimeError):
        torch_ref.nn.functional.gumbel_softmax(torch_ref.zeros(2, 3, dtype=torch_ref.int64))
    with pytest.raises(RuntimeError, match="logits must be floating-point .* torch.int64"):
        F.gumbel_softmax(mt.zeros(2, 3, dtype=mt.int64))
