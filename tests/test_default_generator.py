"""torch.default_generator: the CPU default generator as a Generator object, seeded by
torch.manual_seed and drawn from by torch.rand, as PyTorch's."""

from __future__ import annotations

import pytest

import minitorch_meta as mt


def test_its_manual_seed_is_torch_manual_seed_for_the_cpu():
    mt.default_generator.manual_seed(0)
    a = mt.rand(3)
    mt.manual_seed(0)
    b = mt.rand(3)
    assert a.tolist() == b.tolist()
    assert mt.default_generator.manual_seed(7) is mt.default_generator
    assert mt.manual_seed(0) is mt.default_generator
    assert isinstance(mt.default_generator, mt.Generator)
    assert mt.default_generator.device == mt.device("cpu")


def test_initial_seed_and_seed(torch_ref):
    for library in (mt, torch_ref):
        g = library.default_generator
        g.manual_seed(5)
        assert g.initial_seed() == library.initial_seed() == 5
        library.manual_seed(9)
        assert g.initial_seed() == 9
        value = g.seed()
        assert value == g.initial_seed() == library.initial_seed()
        g.manual_seed(value)
        first = library.rand(2).tolist()
        g.manual_seed(value)
        assert library.rand(2).tolist() == first


def test_state_round_trip_repeats_draws():
    g = mt.default_generator
    g.manual_seed(1)
    state = g.get_state()
    first = mt.randn(4).tolist()
    assert g.set_state(state) is g
    assert mt.randn(4).tolist() == first
    assert mt.get_rng_state().tolist() == g.get_state().tolist()


def test_it_drives_generator_keyword_draws_like_the_default():
    mt.manual_seed(3)
    a = mt.rand(3, generator=mt.default_generator)
    mt.manual_seed(3)
    assert mt.rand(3).tolist() == a.tolist()


def test_manual_seed_type_error_as_torch(torch_ref):
    for library in (mt, torch_ref):
        with pytest.raises(RuntimeError) as info:
            library.default_generator.manual_seed("a")
        assert str(info.value) == "manual_seed expected a long, but got str"
