"""Layers: shapes, reprs to the character, values against PyTorch, device/dtype arguments."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.devices import tensor_device


def _layers(torch):
    nn_ = torch.nn
    return [
        nn_.Linear(400, 120), nn_.Linear(3, 2, bias=False),
        nn_.Conv2d(3, 6, 5), nn_.Conv2d(3, 6, (3, 5), stride=2, padding=1, bias=False),
        nn_.Conv2d(2, 4, 3, padding="same", dilation=2), nn_.Conv2d(2, 4, 3, padding="valid"),
        nn_.MaxPool2d(2, 2), nn_.MaxPool2d(3, padding=1, ceil_mode=True), nn_.MaxPool2d((2, 3)),
        nn_.ReLU(), nn_.ReLU(inplace=True), nn_.Flatten(), nn_.Flatten(0, 2), nn_.Identity(),
        nn_.MSELoss(), nn_.L1Loss(), nn_.CrossEntropyLoss(),
        nn_.LeakyReLU(), nn_.LeakyReLU(0.2, inplace=True), nn_.LeakyReLU(1),
    ]


def test_reprs():
    reprs = [repr(layer) for layer in _layers(mt)]
    assert reprs[:3] == ["Linear(in_features=400, out_features=120, bias=True)",
                         "Linear(in_features=3, out_features=2, bias=False)",
                         "Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))"]
    assert reprs[6] == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert reprs[-3:] == ["LeakyReLU(negative_slope=0.01)",
                          "LeakyReLU(negative_slope=0.2, inplace=True)",
                          "LeakyReLU(negative_slope=1)"]


def test_reprs_equal_pytorch(torch_ref):
    assert [repr(x) for x in _layers(mt)] == [repr(x) for x in _layers(torch_ref)]


@pytest.mark.parametrize("make, shape", [
    (lambda t: t.nn.Conv2d(3, 6, 5), (2, 3, 12, 10)),
    (lambda t: t.nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
     (2, 3, 9, 9)),
    (lambda t: t.nn.Conv2d(2, 3, 4, padding="same", dilation=2), (1, 2, 7, 8)),
    (lambda t: t.nn.Conv2d(2, 3, 3, padding="valid", bias=False), (2, 5, 5)),
    (lambda t: t.nn.MaxPool2d(3, 2, padding=1, ceil_mode=True), (2, 3, 8, 7)),
    (lambda t: t.nn.Linear(5, 4), (3, 5)),
    (lambda t: t.nn.Linear(5, 4), (2, 3, 5)),
    (lambda t: t.nn.Flatten(), (2, 3, 4)),
    (lambda t: t.nn.ReLU(), (4, 5)),
    (lambda t: t.nn.LeakyReLU(0.2), (2, 3, 4, 5)),
    (lambda t: t.nn.LeakyReLU(), (4, 5)),
])
def test_values_and_gradients_equal_pytorch(torch_ref, device, make, shape):
    theirs = make(torch_ref).double()
    ours = make(mt).double().to(device)
    ours.load_state_dict({k: mt.from_numpy(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal(shape)
    xt = torch_ref.from_numpy(x).requires_grad_()
    xo = mt.from_numpy(x).to(device).requires_grad_()
    yt, yo = theirs(xt), ours(xo)
    assert tuple(yo.shape) == tuple(yt.shape)
    np.testing.assert_allclose(yo.detach().cpu().numpy(), yt.detach().numpy(), rtol=1e-10)
    weight = np.random.default_rng(2).standard_normal(tuple(yt.shape))
    (yt * torch_ref.from_numpy(weight)).sum().backward()
    (yo * mt.from_numpy(weight).to(device)).sum().backward()
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, po), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(po.grad.cpu().numpy(), pt.grad.numpy(), rtol=1e-10,
                                   err_msg=name)


def test_device_and_dtype_arguments(device):
    for layer in (nn.Linear(2, 3, device=device, dtype=mt.float64),
                  nn.Conv2d(1, 2, 3, device=device, dtype=mt.float64)):
        assert all(p.device == tensor_device(device) and p.dtype is mt.float64
                   for p in layer.parameters())


def test_max_pool_return_indices():
    values, indices = nn.MaxPool2d(2, return_indices=True)(mt.arange(16.0).view(1, 1, 4, 4))
    assert values.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert indices.dtype is mt.int64


def test_identity_ignores_arguments():
    x = mt.ones(2)
    assert nn.Identity(54, unused="argument")(x) is x


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.Conv2d(1, 1, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
    (lambda: nn.Conv2d(1, 1, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(1, 1, 3, groups=0), ValueError, "groups must be a positive integer"),
    (lambda: nn.Conv2d(3, 2, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(1, 1, 3, padding_mode="mirror"), ValueError, "padding_mode must be one"),
    (lambda: nn.Conv2d(1, 1, (1, 2, 3)), TypeError, "kernel_size must be an int or a pair"),
])
def test_construction_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def _warns_if(expected: bool, match: str):
    return pytest.warns(UserWarning, match=match) if expected else contextlib.nullcontext()


def test_losses_equal_pytorch(torch_ref):
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    labels = np.array([0, 2, 1, 2])
    for name, kwargs in (("MSELoss", {}), ("L1Loss", {"reduction": "sum"}),
                         ("MSELoss", {"reduction": "none"}), ("L1Loss", {"reduce": False})):
        legacy = "reduce" in kwargs  # both frameworks warn that the flag is deprecated
        with _warns_if(legacy, "please use reduction='none' instead"):
            ours = getattr(nn, name)(**kwargs)(mt.from_numpy(x), mt.from_numpy(t))
        with _warns_if(legacy, "please use reduction='none' instead"):
            theirs = getattr(torch_ref.nn, name)(**kwargs)(torch_ref.from_numpy(x),
                                                           torch_ref.from_numpy(t))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    for reduction in ("mean", "sum", "none"):
        ours = nn.CrossEntropyLoss(reduction=reduction)(mt.from_numpy(x), mt.from_numpy(labels))
        theirs = torch_ref.nn.CrossEntropyLoss(reduction=reduction)(
            torch_ref.from_numpy(x), torch_ref.from_numpy(labels))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
