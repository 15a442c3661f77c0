"""Sequential, ModuleList and ModuleDict: registration, indexing, editing, reprs."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def test_sequential_indexing_len_append():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    assert len(seq) == 2 and isinstance(seq[-1], nn.ReLU)
    assert isinstance(seq[:1], nn.Sequential) and len(seq[:1]) == 1
    assert seq.append(nn.Linear(3, 1)) is seq
    assert list(seq._modules) == ["0", "1", "2"]
    assert tuple(seq(mt.ones(4, 2)).shape) == (4, 1)
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]


def test_sequential_edit_renumbers():
    seq = nn.Sequential(nn.ReLU(), nn.Identity(), nn.Flatten())
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and isinstance(seq[0], nn.Identity)
    seq[1] = nn.ReLU()
    assert isinstance(seq[1], nn.ReLU)
    seq.insert(0, nn.Flatten())
    assert [type(m).__name__ for m in seq] == ["Flatten", "Identity", "ReLU"]
    assert isinstance(seq.pop(1), nn.Identity) and len(seq) == 2
    with pytest.raises(TypeError, match="Sequential.insert expects a Module, got int"):
        seq.insert(0, 3)


def test_sequential_from_ordered_dict():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in seq.named_parameters()] == ["fc.weight", "fc.bias"]
    assert seq.fc is seq[0]


def test_module_list():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.ReLU())
    layers += [nn.Identity()]
    assert len(layers) == 5 and isinstance(layers[-1], nn.Identity)
    assert len(list(layers.parameters())) == 6
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2", "3"]
    layers.insert(0, nn.Flatten())
    assert isinstance(layers[0], nn.Flatten) and len(layers) == 5
    with pytest.raises(TypeError, match="should be called with an iterable, but got int"):
        layers.extend(3)
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        layers(mt.ones(1))


def test_module_list_repr_equals_pytorch(torch_ref):
    def make(torch):
        nn_ = torch.nn
        return nn_.ModuleList([nn_.Linear(2, 2), nn_.Linear(2, 2), nn_.ReLU(),
                               nn_.Sequential(nn_.ReLU()), nn_.Sequential(nn_.ReLU())])

    assert repr(make(mt)) == repr(make(torch_ref))
    assert repr(nn.ModuleList()) == repr(torch_ref.nn.ModuleList())


def test_module_dict():
    layers = nn.ModuleDict({"b": nn.Linear(1, 1), "a": nn.ReLU()})
    layers["c"] = nn.Identity()
    assert list(layers) == ["b", "a", "c"] and "a" in layers and len(layers) == 3
    assert [n for n, _ in layers.named_parameters()] == ["b.weight", "b.bias"]
    layers.update([("d", nn.Flatten())])
    assert isinstance(layers.pop("d"), nn.Flatten)
    assert list(layers.keys()) == ["b", "a", "c"]
    with pytest.raises(TypeError, match="element #0 should be Iterable; is int"):
        layers.update([3])
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        layers.update([("x", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="iterable of key/value pairs, but got int"):
        layers.update(3)
    layers.clear()
    assert len(layers) == 0


def test_container_reprs_equal_pytorch(torch_ref):
    def make(torch):
        nn_ = torch.nn
        return nn_.Sequential(nn_.ModuleDict({"x": nn_.Linear(1, 2)}), nn_.Sequential(),
                              nn_.ReLU())

    assert repr(make(mt)) == repr(make(torch_ref))
