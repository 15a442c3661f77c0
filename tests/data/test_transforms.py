"""Transforms: ToTensor, Normalize, mean/std of a split, and ±1 one-hot targets."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.data import transforms as T


def test_to_tensor_scales_and_adds_a_channel():
    images = np.array([[[0, 255], [51, 102]]], dtype=np.uint8)
    out = T.ToTensor()(images)
    assert out.dtype == mt.float32 and tuple(out.shape) == (1, 1, 2, 2)
    np.testing.assert_allclose(out.numpy().ravel(), [0, 1, 0.2, 0.4], rtol=1e-6)
    assert tuple(T.ToTensor()(mt.tensor(images[0])).shape) == (1, 2, 2)
    with pytest.raises(TypeError, match="expects uint8 images"):
        T.ToTensor()(np.zeros((2, 2), np.float32))


def test_normalize_per_channel_on_samples_and_batches():
    x = mt.ones(2, 3, 2, 2)
    out = T.Normalize((0.5, 0.0, 1.0), (0.5, 2.0, 1.0))(x)
    np.testing.assert_allclose(out.numpy()[:, :, 0, 0], [[1.0, 0.5, 0.0]] * 2)
    single = T.Normalize(0.5, 0.25)(mt.ones(1, 2, 2))
    np.testing.assert_allclose(single.numpy(), 2.0)


def test_normalize_errors():
    with pytest.raises(ValueError, match="std evaluated to zero"):
        T.Normalize(0.0, 0.0)
    with pytest.raises(ValueError, match="3 channel\\(s\\) but mean/std have 2"):
        T.Normalize((0.0, 0.0), (1.0, 1.0))(mt.ones(3, 2, 2))
    with pytest.raises(TypeError, match="apply ToTensor first"):
        T.Normalize(0.0, 1.0)(mt.ones(2, 2, dtype=mt.uint8))


def test_compute_mean_std_matches_the_float_computation():
    images = np.random.default_rng(0).integers(0, 256, (50, 8, 8), dtype=np.uint8)
    mean, std = T.compute_mean_std(images)
    scaled = images.astype(np.float64) / 255
    assert mean == pytest.approx(scaled.mean(), rel=1e-12)
    assert std == pytest.approx(scaled.std(), rel=1e-12)
    assert T.compute_mean_std(mt.from_numpy(images)) == (mean, std)

    class WithData:
        data = mt.from_numpy(images)

    assert T.compute_mean_std(WithData()) == (mean, std)
    with pytest.raises(TypeError, match="expects uint8"):
        T.compute_mean_std(scaled)


def test_normalized_training_split_has_zero_mean_unit_std():
    images = np.random.default_rng(1).integers(0, 256, (20, 6, 6), dtype=np.uint8)
    mean, std = T.compute_mean_std(images)
    out = T.Compose([T.ToTensor(), T.Normalize(mean, std)])(images).numpy().astype(np.float64)
    assert abs(out.mean()) < 1e-5 and out.std() == pytest.approx(1.0, rel=1e-5)


def test_signed_one_hot_for_labels_and_batches():
    encode = T.SignedOneHot(4)
    np.testing.assert_array_equal(encode(2).numpy(), [-1, -1, 1, -1])
    batch = T.SignedOneHot(3, scale=0.9)(mt.tensor([0, 2]))
    assert batch.dtype == mt.float32
    np.testing.assert_allclose(batch.numpy(), [[0.9, -0.9, -0.9], [-0.9, -0.9, 0.9]])
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\), got values from 0 to 4"):
        encode(mt.tensor([0, 4]))
    with pytest.raises(TypeError, match="integer class labels"):
        encode(mt.tensor([0.5]))
