"""nn.utils.parametrize against PyTorch: the class swap, state_dict keys, values and
gradients through parametrizations, right_inverse, stacking, caching, removal and errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.utils import parametrize as P
from tests.nn.utils_pairs import assert_close, copy_state, pair, same_input


def _symmetric(nn):
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric


def _scale(nn):
    class Scale(nn.Module):
        def forward(self, X):
            return X * 3.0

        def right_inverse(self, A):
            return A / 3.0
    return Scale


def _no_inverse(nn):
    class Double(nn.Module):
        def forward(self, X):
            return X * 2.0
    return Double


def _split(nn):
    class Split(nn.Module):  # two originals: the weight is their sum
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 4.0, X * 0.75
    return Split


def _both(torch_ref, device, make, tensor_name="weight", **kwargs):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 3)
    P.register_parametrization(ours, tensor_name, make(mt.nn)(), **kwargs)
    torch_ref.nn.utils.parametrize.register_parametrization(theirs, tensor_name,
                                                            make(torch_ref.nn)(), **kwargs)
    return ours, theirs


def _check_forward_backward(torch_ref, device, ours, theirs):
    x, tx = same_input(torch_ref, device, 2, 3)
    y, ty = ours(x), theirs(tx)
    assert_close(y, ty)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    for (name, p), (tname, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        assert_close(p.grad, q.grad)


@pytest.mark.parametrize("make", [_symmetric, _scale, _no_inverse, _split])
def test_values_gradients_keys_and_class_match_torch(torch_ref, device, make):
    ours, theirs = _both(torch_ref, device, make)
    assert type(ours).__name__ == type(theirs).__name__ == "ParametrizedLinear"
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert P.type_before_parametrizations(ours) is mt.nn.Linear
    assert isinstance(ours, mt.nn.Linear)
    assert_close(ours.weight, theirs.weight)
    _check_forward_backward(torch_ref, device, ours, theirs)


def test_repr_matches_torch(torch_ref):
    ours, theirs = _both(torch_ref, "cpu", _symmetric)
    assert repr(ours) == repr(theirs)


def test_assignment_goes_through_right_inverse(torch_ref, device):
    ours, theirs = _both(torch_ref, device, _scale)
    value = np.arange(9.0).reshape(3, 3)
    original = ours.parametrizations.weight.original
    ours.weight = mt.tensor(value, device=device)
    theirs.weight = torch_ref.tensor(value)
    assert ours.parametrizations.weight.original is original  # same parameter, new data
    assert_close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    assert_close(ours.weight, theirs.weight)


def test_assignment_without_right_inverse_raises_as_torch(torch_ref):
    ours, theirs = _both(torch_ref, "cpu", _no_inverse)
    with pytest.raises(RuntimeError, match="parametrization Double does not implement "
                                           "right_inverse."):
        ours.weight = mt.zeros(3, 3)
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        theirs.weight = torch_ref.zeros(3, 3)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        ours.weight = mt.nn.Parameter(mt.zeros(3, 3))


def test_stacked_parametrizations_apply_in_order(torch_ref, device):
    ours, theirs = _both(torch_ref, device, _symmetric)
    P.register_parametrization(ours, "weight", _scale(mt.nn)())
    torch_ref.nn.utils.parametrize.register_parametrization(theirs, "weight",
                                                            _scale(torch_ref.nn)())
    assert len(ours.parametrizations.weight) == 2
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _check_forward_backward(torch_ref, device, ours, theirs)


def test_a_buffer_and_the_bias_can_be_parametrized(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.BatchNorm1d, torch_ref.nn.BatchNorm1d, 3)
    for lib, module in ((mt, ours), (torch_ref, theirs)):
        parametrize = lib.nn.utils.parametrize
        parametrize.register_parametrization(module, "running_var", _scale(lib.nn)())
        parametrize.register_parametrization(module, "bias", _scale(lib.nn)())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert_close(ours.running_var, theirs.running_var)
    assert_close(ours.bias, theirs.bias)


def test_remove_leaves_the_parametrized_value_or_the_original(torch_ref, device):
    for leave in (True, False):
        ours, theirs = _both(torch_ref, device, _scale)
        original = ours.parametrizations.weight.original
        P.remove_parametrizations(ours, "weight", leave_parametrized=leave)
        torch_ref.nn.utils.parametrize.remove_parametrizations(theirs, "weight",
                                                               leave_parametrized=leave)
        assert type(ours) is mt.nn.Linear and not hasattr(ours, "parametrizations")
        assert ours.weight is original and isinstance(ours.weight, mt.nn.Parameter)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert_close(ours.weight, theirs.weight)
        assert not P.is_parametrized(ours)


def test_remove_with_several_originals(torch_ref, device):
    ours, theirs = _both(torch_ref, device, _split)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(ours, "weight", leave_parametrized=False)
    P.remove_parametrizations(ours, "weight")
    torch_ref.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    assert isinstance(ours.weight, mt.nn.Parameter)
    assert_close(ours.weight, theirs.weight)


def test_is_parametrized_and_the_class_stays_while_one_is_left(torch_ref):
    ours, _ = _both(torch_ref, "cpu", _scale)
    P.register_parametrization(ours, "bias", _scale(mt.nn)(), unsafe=True)
    assert P.is_parametrized(ours) and P.is_parametrized(ours, "bias")
    assert not P.is_parametrized(mt.nn.Linear(2, 2))
    P.remove_parametrizations(ours, "bias")
    assert type(ours).__name__ == "ParametrizedLinear"
    assert P.is_parametrized(ours) and not P.is_parametrized(ours, "bias")
    assert P.type_before_parametrizations(mt.nn.ReLU()) is mt.nn.ReLU


def test_cached_computes_once_per_block(torch_ref):
    calls = []

    class Counting(mt.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X + 1.0

    layer = mt.nn.Linear(2, 2)
    P.register_parametrization(layer, "weight", Counting())
    calls.clear()
    with P.cached():
        first = layer.weight
        with P.cached():
            assert layer.weight is first
        assert layer.weight is first
    assert len(calls) == 1
    assert layer.weight is not first and len(calls) == 2


def test_state_dict_round_trip_and_load_from_torch(torch_ref, device):
    ours, theirs = _both(torch_ref, device, _symmetric)
    theirs.parametrizations.weight.original.data.mul_(2.0)
    copy_state(ours, theirs, device)
    assert_close(ours.weight, theirs.weight)


def test_deepcopy_works_and_pickle_refuses(torch_ref):
    ours, theirs = _both(torch_ref, "cpu", _scale)
    replica = copy.deepcopy(ours)
    assert type(replica).__name__ == "ParametrizedLinear"
    assert replica.parametrizations.weight.original is not ours.parametrizations.weight.original
    assert_close(replica.weight, ours.weight)
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only "
                                           "supported through state_dict()"):
        pickle.dumps(ours)


def test_meta_module_keeps_shapes():
    layer = mt.nn.Linear(3, 3, device="meta")
    P.register_parametrization(layer, "weight", _symmetric(mt.nn)())
    out = layer(mt.empty(5, 3, device="meta"))
    assert out.shape == (5, 3) and layer.weight.device.type == "meta"
    out.sum().backward()
    assert layer.parametrizations.weight.original.grad.shape == (3, 3)


class _Reshape:
    @staticmethod
    def make(nn):
        class Flat(nn.Module):
            def forward(self, X):
                return X.reshape(-1)
        return Flat


class _Cast:
    @staticmethod
    def make(nn):
        class Cast(nn.Module):
            def forward(self, X):
                return X.float()
        return Cast


class _NotATensor:
    @staticmethod
    def make(nn):
        class Listing(nn.Module):
            def forward(self, X):
                return [X]
        return Listing


@pytest.mark.parametrize("make,message", [
    (_Reshape.make, "may not change the shape of the tensor, unless `unsafe` flag is enabled"),
    (_Cast.make, "may not change the dtype of the tensor, unless `unsafe` flag is enabled"),
    (_NotATensor.make, "A parametrization must return a tensor. Got list."),
])
def test_unsafe_changes_are_refused_as_torch(torch_ref, make, message):
    for lib in (mt, torch_ref):
        layer = lib.nn.Linear(3, 3).double()
        with pytest.raises(ValueError, match=message):
            lib.nn.utils.parametrize.register_parametrization(layer, "weight", make(lib.nn)())
        assert type(layer).__name__ == "Linear"


def test_unsafe_allows_a_new_shape(torch_ref):
    for lib in (mt, torch_ref):
        layer = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(layer, "weight",
                                                          _Reshape.make(lib.nn)(), unsafe=True)
        assert tuple(layer.weight.shape) == (9,)


def test_stacked_checks_and_missing_names_raise_as_torch(torch_ref):
    for lib in (mt, torch_ref):
        parametrize = lib.nn.utils.parametrize
        layer = lib.nn.Linear(3, 3)
        parametrize.register_parametrization(layer, "weight", _scale(lib.nn)())
        with pytest.raises(ValueError, match="unless the `unsafe` flag is enabled.\n"
                                             "module.weight.shape"):
            parametrize.register_parametrization(layer, "weight", _Reshape.make(lib.nn)())
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                             "parametrized element with name 'foo'"):
            parametrize.register_parametrization(layer, "foo", _scale(lib.nn)())
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            parametrize.remove_parametrizations(layer, "bias")
    with pytest.raises(ValueError, match="ParametrizationList requires one or more modules."):
        P.ParametrizationList([], mt.zeros(2))


def test_transfer_parametrizations_and_params(torch_ref):
    source = mt.nn.Linear(3, 3)
    P.register_parametrization(source, "weight", _scale(mt.nn)())
    target = mt.nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(source, target)
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert_close(target.weight, source.weight)


def test_parametrization_follows_the_training_mode():
    layer = mt.nn.Linear(2, 2).eval()
    scale = _scale(mt.nn)()
    P.register_parametrization(layer, "weight", scale)
    assert not scale.training
    layer.train()
    assert scale.training
