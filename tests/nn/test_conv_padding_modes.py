"""``padding_mode`` 'reflect', 'replicate' and 'circular' in Conv1d/2d/3d, against PyTorch:
the input is padded by ``F.pad`` in that mode, then convolved unpadded, as PyTorch does, so
values and every gradient must be PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn

torch = pytest.importorskip("torch", reason="PyTorch is the reference: pip install torch")

MODES = ["reflect", "replicate", "circular"]
# (layer, input shape, keyword arguments): ints, per-dim tuples, 'same' with an even
# kernel (its extra pad goes after, as PyTorch's), dilation, stride, groups, unbatched
CASES = [
    ("Conv1d", (2, 4, 9), dict(kernel_size=3, padding=2)),
    ("Conv1d", (4, 9), dict(kernel_size=4, padding="same", dilation=2)),
    ("Conv2d", (2, 4, 7, 8), dict(kernel_size=3, padding=1)),
    ("Conv2d", (2, 4, 7, 8), dict(kernel_size=(3, 2), padding=(2, 1), stride=2, groups=2)),
    ("Conv2d", (4, 7, 8), dict(kernel_size=4, padding="same")),
    ("Conv2d", (2, 4, 7, 8), dict(kernel_size=3, padding="valid")),
    ("Conv3d", (2, 4, 5, 6, 5), dict(kernel_size=3, padding=(1, 2, 1))),
    ("Conv3d", (4, 5, 6, 5), dict(kernel_size=2, padding="same", groups=4)),
]


def _pair(name, mode, kwargs, device):
    theirs = getattr(torch.nn, name)(4, 6 if kwargs.get("groups", 1) != 4 else 4,
                                     padding_mode=mode, dtype=torch.float64, **kwargs)
    ours = getattr(nn, name)(4, theirs.out_channels, padding_mode=mode, dtype=mt.float64,
                             device=device, **kwargs)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, shape, kwargs", CASES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(CASES)])
def test_values_and_gradients_are_pytorchs(name, shape, kwargs, mode, device):
    ours, theirs = _pair(name, mode, kwargs, device)
    assert repr(ours) == repr(theirs)
    assert ours._reversed_padding_repeated_twice == list(
        theirs._reversed_padding_repeated_twice)
    data = np.random.default_rng(0).standard_normal(shape)
    x_t = torch.tensor(data, requires_grad=True)
    x_o = mt.tensor(data, device=device, requires_grad=True)
    y_t, y_o = theirs(x_t), ours(x_o)
    np.testing.assert_allclose(y_o.detach().cpu().numpy(), y_t.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    weights = np.random.default_rng(1).standard_normal(tuple(y_t.shape))
    (y_t * torch.tensor(weights)).sum().backward()
    (y_o * mt.tensor(weights, device=device)).sum().backward()
    np.testing.assert_allclose(x_o.grad.cpu().numpy(), x_t.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (key, p), q in zip(theirs.named_parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.cpu().numpy(), p.grad.numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=key)


@pytest.mark.parametrize("mode", MODES)
def test_meta_shapes_are_pytorchs(mode):
    ours = nn.Conv2d(3, 5, 3, padding=2, padding_mode=mode, device="meta")
    theirs = torch.nn.Conv2d(3, 5, 3, padding=2, padding_mode=mode, device="meta")
    x = (2, 3, 9, 9)
    assert tuple(ours(mt.empty(*x, device="meta")).shape) == tuple(
        theirs(torch.empty(*x, device="meta")).shape)


def test_padding_larger_than_the_input_is_refused_as_pytorch_refuses_it():
    messages = []
    for T in (torch, mt):
        with pytest.raises(RuntimeError, match="Padding size should be less than") as info:
            T.nn.Conv1d(1, 1, 3, padding=4, padding_mode="reflect")(T.ones(1, 1, 3))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_transposed_convolutions_take_zeros_only_as_pytorch():
    for T in (torch.nn, nn):
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                             'ConvTranspose2d'):
            T.ConvTranspose2d(3, 4, 3, padding_mode="reflect")
