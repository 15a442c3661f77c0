"""LazyLinear and LazyConv2d: shape inference on the first call, on meta too."""

from __future__ import annotations

import math

import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def test_lazy_linear_materialises_and_becomes_linear():
    layer = nn.LazyLinear(5)
    assert repr(layer) == "LazyLinear(in_features=0, out_features=5, bias=True)"
    assert layer.has_uninitialized_params()
    y = layer(mt.ones(2, 7))
    assert tuple(y.shape) == (2, 5) and type(layer) is nn.Linear
    assert repr(layer) == "Linear(in_features=7, out_features=5, bias=True)"
    assert float(layer.weight.abs().max().item()) <= 1 / math.sqrt(7)
    assert not layer._forward_pre_hooks  # the inference hook removed itself


def test_lazy_conv2d_materialises_and_becomes_conv2d():
    layer = nn.LazyConv2d(4, 3, padding=1, bias=False)
    assert repr(layer) == "LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), " \
                          "bias=False)"
    layer(mt.ones(3, 6, 6))  # an unbatched image is enough
    assert type(layer) is nn.Conv2d and layer.in_channels == 3
    assert tuple(layer.weight.shape) == (4, 3, 3, 3) and layer.bias is None


def test_lazy_reprs_equal_pytorch(torch_ref):
    for make in (lambda t: t.nn.LazyLinear(3), lambda t: t.nn.LazyConv2d(4, 3, stride=2)):
        assert repr(make(mt)) == repr(make(torch_ref))
        ours, theirs = make(mt), make(torch_ref)
        ours(mt.ones(1, 2, 5, 5) if "Conv" in repr(ours) else mt.ones(1, 6))
        theirs(torch_ref.ones(1, 2, 5, 5) if "Conv" in repr(theirs) else torch_ref.ones(1, 6))
        assert repr(ours) == repr(theirs)
        assert [tuple(p.shape) for p in ours.parameters()] == \
               [tuple(p.shape) for p in theirs.parameters()]


def test_meta_dry_run_is_enough():
    with mt.device("meta"):
        net = nn.Sequential(nn.LazyConv2d(8, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
        net(mt.empty(64, 3, 32, 32))
    assert [type(m).__name__ for m in net] == ["Conv2d", "ReLU", "Flatten", "Linear"]
    assert net[3].in_features == 8 * 30 * 30 and net[3].weight.is_meta
    net.to_empty(device="cpu")
    for module in net:
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    assert tuple(net(mt.randn(2, 3, 32, 32)).shape) == (2, 10)


def test_lazy_module_loads_a_state_dict():
    source = nn.Linear(4, 2)
    lazy = nn.LazyLinear(2)
    lazy.load_state_dict(source.state_dict())
    assert tuple(lazy.weight.shape) == (2, 4)
    x = mt.randn(3, 4)
    assert lazy(x).tolist() == source(x).tolist()
    assert type(lazy) is nn.Linear and lazy.in_features == 4


def test_lazy_to_and_to_empty_before_materialising():
    layer = nn.LazyLinear(3, device="meta")
    layer.to_empty(device="cpu")
    assert layer.weight.device == mt.device("cpu")
    layer.to(mt.float64)
    layer(mt.ones(1, 2, dtype=mt.float64))
    assert layer.weight.dtype is mt.float64 and not layer.weight.is_meta


def test_lazy_errors():
    with pytest.raises(mt.ShapeError, match="expected a 3-D .* or 4-D .* input to LazyConv2d"):
        nn.LazyConv2d(2, 3)(mt.ones(4, 4))
    with pytest.raises(mt.ShapeError, match="at least one dimension"):
        nn.LazyLinear(2)(mt.tensor(1.0))
    saved = nn.LazyLinear(2).state_dict()
    with pytest.raises(RuntimeError, match="the checkpoint holds an uninitialized parameter"):
        nn.Linear(3, 2).load_state_dict(saved)
