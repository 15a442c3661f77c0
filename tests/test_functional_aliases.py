"""The top-level forms of the layer functions (``torch.conv2d``, ``torch.kl_div``, ...):
their native signatures, values and gradients against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

R = np.random.default_rng(0)


def _randn(*shape):
    return R.standard_normal(shape)


def _positive(*shape):
    return R.uniform(0.1, 1.0, shape)


def _sign(*shape):
    return np.where(R.random(shape) < 0.5, -1.0, 1.0)


class Int:
    """An integer input (indices, class targets): never requires grad."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.int64)


class Fixed:
    """A float input that does not require grad (class weights)."""

    def __init__(self, values):
        self.values = values


# name -> (positional inputs, keyword arguments); float arrays require grad.
CASES = {
    "conv1d": ([_randn(2, 3, 7), _randn(4, 3, 3), _randn(4)], {"stride": 2, "padding": 1}),
    "conv2d": ([_randn(1, 2, 5, 5), _randn(3, 2, 3, 3)], {"dilation": 1, "groups": 1}),
    "conv_transpose1d": ([_randn(1, 2, 5), _randn(2, 3, 3), _randn(3)],
                         {"stride": 2, "output_padding": 1}),
    "conv_transpose2d": ([_randn(1, 2, 4, 4), _randn(2, 3, 3, 3)], {"padding": 1}),
    "max_pool1d": ([_randn(2, 3, 8), 3], {"stride": 2, "padding": 1}),
    "max_pool1d default stride": ([_randn(2, 3, 8), 2], {}),
    "max_pool2d": ([_randn(1, 2, 6, 6), 2], {"ceil_mode": True}),
    "avg_pool1d": ([_randn(2, 3, 8), 3], {"stride": 2, "count_include_pad": False,
                                          "padding": 1}),
    "adaptive_avg_pool1d": ([_randn(2, 3, 7), 3], {}),
    "batch_norm": ([_randn(4, 3), _randn(3), _randn(3), None, None, True, 0.1, 1e-5, False],
                   {}),
    "instance_norm": ([_randn(2, 3, 5), _randn(3), _randn(3), None, None, True, 0.1, 1e-5,
                       False], {}),
    "layer_norm": ([_randn(2, 3, 4), [3, 4], _randn(3, 4), _randn(3, 4)], {"eps": 1e-3}),
    "group_norm": ([_randn(2, 4, 3), 2, _randn(4), _randn(4)], {}),
    "rms_norm": ([_randn(2, 5), [5], _randn(5)], {"eps": 1e-4}),
    "dropout off": ([_randn(3, 4), 0.5, False], {}),
    "dropout p=0": ([_randn(3, 4), 0.0, True], {}),
    "embedding": ([_randn(5, 3), Int([[0, 4], [2, 0]])], {}),
    "embedding padding": ([_randn(5, 3), Int([0, 4, 2, 0])], {"padding_idx": 0}),
    "pairwise_distance": ([_randn(3, 4), _randn(3, 4)], {"p": 1.0, "keepdim": True}),
    "cosine_embedding_loss": ([_randn(3, 4), _randn(3, 4), _sign(3)], {"margin": 0.2}),
    "margin_ranking_loss": ([_randn(5), _randn(5), _sign(5)], {"reduction": 2}),
    "hinge_embedding_loss": ([_randn(5), _sign(5)], {"margin": 0.5, "reduction": 0}),
    "triplet_margin_loss": ([_randn(3, 4), _randn(3, 4), _randn(3, 4)], {"swap": True}),
    "poisson_nll_loss": ([_randn(5), _positive(5), True, True, 1e-8, 1], {}),
    "kl_div": ([_randn(4, 3), _positive(4, 3)], {}),
    "kl_div mean": ([_randn(4, 3), _positive(4, 3), 1], {}),
    "cosine_embedding_loss sum": ([_randn(3, 4), _randn(3, 4), _sign(3), 0.0, 2], {}),
    "hinge_embedding_loss mean": ([_randn(5), _sign(5)], {"reduction": 1}),
    "triplet_margin_loss mean": ([_randn(3, 4), _randn(3, 4), _randn(3, 4)], {"reduction": 1}),
    "binary_cross_entropy_with_logits default": ([_randn(4), R.random(4)], {}),
    "kl_div log_target": ([_randn(4, 3), _randn(4, 3)], {"reduction": 2, "log_target": True}),
    "binary_cross_entropy_with_logits": ([_randn(4), R.random(4), Fixed(_positive(4)),
                                          Fixed(_positive(4))],
                                         {"reduction": 0}),
}


def _convert(T, value, device):
    if isinstance(value, Int):
        return T.tensor(value.values, device=device)
    if isinstance(value, Fixed):
        return T.tensor(value.values, dtype=T.float64, device=device)
    if isinstance(value, np.ndarray):
        return T.tensor(value, dtype=T.float64, device=device, requires_grad=True)
    return value


@pytest.mark.parametrize("case", CASES)
def test_top_level_form_equals_torch(case, device):
    name = case.split()[0]
    positional, keywords = CASES[case]
    ours_in = [_convert(mt, v, device) for v in positional]
    theirs_in = [_convert(torch, v, "cpu") for v in positional]
    ours = getattr(mt, name)(*ours_in, **keywords)
    theirs = getattr(torch, name)(*theirs_in, **keywords)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.tolist(), theirs.tolist(), rtol=1e-10, atol=1e-12)
    weights = R.standard_normal(tuple(theirs.shape))
    (ours * mt.tensor(weights, device=device)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            assert (a.grad is None) == (b.grad is None), case
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.tolist(), b.grad.tolist(), rtol=1e-10,
                                           atol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_top_level_form_on_meta_gives_the_shape(case):
    name = case.split()[0]
    positional, keywords = CASES[case]
    ours = getattr(mt, name)(*[_convert(mt, v, "meta") for v in positional], **keywords)
    theirs = getattr(torch, name)(*[_convert(torch, v, "cpu") for v in positional], **keywords)
    assert ours.is_meta and tuple(ours.shape) == tuple(theirs.shape)


def test_dropout_in_training_drops_and_scales():
    out = mt.dropout(mt.ones(1000, dtype=mt.float64), 0.5, True)
    kept = out.tolist()
    assert set(kept) <= {0.0, 2.0} and 300 < kept.count(0.0) < 700


def test_native_signatures_require_what_torch_requires():
    x = mt.ones(2, 3)
    with pytest.raises(TypeError, match="train"):
        mt.dropout(x, 0.5)
    with pytest.raises(TypeError):
        torch.dropout(torch.ones(2, 3), 0.5)
    with pytest.raises(TypeError, match="cudnn_enabled"):
        mt.batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    with pytest.raises(TypeError, match="return_indices"):
        mt.max_pool1d(mt.ones(1, 2, 4), 2, return_indices=True)
    with pytest.raises(TypeError):
        torch.max_pool1d(torch.ones(1, 2, 4), 2, return_indices=True)


def test_reduction_must_be_the_int_enum():
    x, y = mt.ones(3), mt.ones(3)
    with pytest.raises(TypeError, match=r"kl_div\(\): argument 'reduction' must be int \(0 "
                                        r"none, 1 mean, 2 sum\), not str"):
        mt.kl_div(x, y, reduction="sum")
    with pytest.raises(TypeError, match="argument 'reduction' must be int"):
        torch.kl_div(torch.ones(3), torch.ones(3), reduction="sum")
    with pytest.raises(ValueError, match=r"hinge_embedding_loss\(\): reduction must be 0 "
                                         r"\(none\), 1 \(mean\) or 2 \(sum\), got 3"):
        mt.hinge_embedding_loss(x, y, reduction=3)
    with pytest.raises(TypeError, match="not bool"):
        mt.margin_ranking_loss(x, y, y, reduction=True)


def test_losses_keep_every_element_by_default_as_torch_does():
    x, y = mt.ones(2, 3), mt.ones(2, 3)
    assert mt.kl_div(x, y).shape == mt.binary_cross_entropy_with_logits(x, y).shape == (2, 3)
    assert torch.kl_div(torch.ones(2, 3), torch.ones(2, 3)).shape == (2, 3)


def test_kl_div_mean_does_not_warn(recwarn):
    mt.kl_div(mt.zeros(2, 3), mt.full((2, 3), 0.5), 1)
    assert not [w for w in recwarn if "batchmean" in str(w.message)]


def test_errors_come_from_the_functional_form():
    with pytest.raises(mt.ShapeError, match="conv2d"):
        mt.conv2d(mt.ones(1, 4, 5, 5), mt.ones(3, 2, 3, 3))
