"""nn.Upsample and the 2-D padding layers: reprs as PyTorch's, outputs as F's and torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn

MODULES = [
    ("Upsample", dict(scale_factor=2)),
    ("Upsample", dict(size=(3, 4), mode="bilinear", align_corners=True)),
    ("Upsample", dict(scale_factor=1.5, mode="bilinear")),
    ("Upsample", dict(scale_factor=(2, 3))),
    ("Upsample", dict(size=[7, 9], mode="nearest-exact")),
    ("ZeroPad2d", dict(padding=2)),
    ("ZeroPad2d", dict(padding=(1, 2, 3, 0))),
    ("ConstantPad2d", dict(padding=(1, 2, 3, 4), value=3.5)),
    ("ConstantPad2d", dict(padding=1, value=-1)),
    ("ReflectionPad2d", dict(padding=1)),
    ("ReflectionPad2d", dict(padding=(2, 0, 1, 3))),
    ("ReplicationPad2d", dict(padding=(1, 2, 3, 4))),
]


@pytest.mark.parametrize("name, kwargs", MODULES)
def test_repr_and_output_match_torch(name, kwargs, device):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(**kwargs).to(device), getattr(torch.nn, name)(**kwargs)
    assert repr(ours) == repr(theirs)
    data = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    x, tx = mt.tensor(data, device=device, requires_grad=True), torch.tensor(data,
                                                                             requires_grad=True)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert y.grad_fn.name() == ty.grad_fn.name()


def test_unbatched_input_and_meta_shapes():
    layers = [nn.ReflectionPad2d(2), nn.ZeroPad2d((1, 0, 0, 1)), nn.Upsample(scale_factor=2),
              nn.ReplicationPad2d(1)]
    for device in ("cpu", "meta"):
        x = mt.ones(3, 4, 5, device=device)
        assert layers[0](x).shape == (3, 8, 9)
        assert layers[1](x).shape == (3, 5, 6)
        assert layers[3](x).shape == (3, 6, 7)
    with mt.device("meta"):
        model = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear"),
                              nn.ReflectionPad2d(1), nn.Conv2d(3, 4, 3))
        assert model(mt.empty(8, 3, 16, 16)).shape == (8, 4, 32, 32)


def test_upsample_keeps_settings_as_torch_does():
    layer = nn.Upsample(scale_factor=0)  # a zero factor counts as none, as in PyTorch
    assert layer.scale_factor is None and repr(layer) == "Upsample(size=None, mode='nearest')"
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        layer(mt.ones(1, 1, 2, 2))
    assert nn.Upsample(scale_factor=3).scale_factor == 3.0
