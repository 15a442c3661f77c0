"""manual_seed reproducibility and explicit Generators."""

from __future__ import annotations

import pytest

import minitorch_meta as mt


def test_manual_seed_reproduces_every_random_factory():
    def draw():
        return (mt.rand(5).tolist(), mt.randn(3).tolist(), mt.zeros(4).normal_().tolist(),
                mt.zeros(4).uniform_(-1, 1).tolist(), mt.rand_like(mt.zeros(2)).tolist())

    mt.manual_seed(123)
    first = draw()
    mt.manual_seed(123)
    assert draw() == first
    mt.manual_seed(124)
    assert draw() != first


def test_manual_seed_returns_a_generator_and_rejects_non_ints():
    assert isinstance(mt.manual_seed(1), mt.Generator)
    with pytest.raises(TypeError, match="manual_seed expects an int, got 1.5"):
        mt.manual_seed(1.5)


def test_explicit_generator_is_independent_and_reproducible():
    g = mt.Generator().manual_seed(7)
    a = mt.rand(4, generator=g).tolist()
    mt.rand(10)  # the default generator moving on does not affect g
    g.manual_seed(7)
    assert mt.rand(4, generator=g).tolist() == a
    assert mt.zeros(4).normal_(generator=mt.Generator().manual_seed(7)).tolist() == \
        mt.zeros(4).normal_(generator=mt.Generator().manual_seed(7)).tolist()
    assert g.initial_seed() == 7


def test_generator_device_must_match():
    with pytest.raises(RuntimeError, match="expected a 'meta' generator for a tensor on 'meta', "
                                           "got a generator on 'cpu'"):
        mt.rand(2, device="meta", generator=mt.Generator("cpu"))


def test_random_on_meta_allocates_nothing():
    assert mt.randn(2**30, 2**30, device="meta").shape == (2**30, 2**30)
