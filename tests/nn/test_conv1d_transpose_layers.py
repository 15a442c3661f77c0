"""nn.Conv1d, nn.ConvTranspose1d/2d, nn.MaxPool1d, nn.AvgPool1d, nn.AdaptiveAvgPool1d: reprs,
parameters, initialisation, state dicts, output_size, errors and summary, against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


LAYERS = [
    "Conv1d(1, 2, 3)", "Conv1d(4, 6, (5,), stride=2, padding=1, dilation=2, bias=False)",
    "Conv1d(2, 3, 3, padding='same')", "Conv1d(2, 3, 3, padding='valid')",
    "ConvTranspose2d(2, 3, 2)", "ConvTranspose2d(3, 4, (3, 2), stride=(2, 1), padding=1, "
    "output_padding=(1, 0), dilation=1, bias=False)",
    "ConvTranspose1d(2, 3, 2, stride=2, padding=1, output_padding=1, groups=1, bias=False, "
    "dilation=2)",
    "MaxPool1d(2)", "MaxPool1d((2,), (1,), padding=1, dilation=2, ceil_mode=True)",
    "MaxPool1d(3, return_indices=True)", "AvgPool1d(3)",
    "AvgPool1d(4, 2, 1, ceil_mode=True, count_include_pad=False)", "AdaptiveAvgPool1d(4)",
    "AdaptiveAvgPool1d((3,))",
]


@pytest.mark.parametrize("text", LAYERS)
def test_repr_parameters_and_state_dict_match_torch(text):
    torch = _torch()
    ours, theirs = eval(f"nn.{text}", {"nn": nn}), eval(f"torch.nn.{text}", {"torch": torch})
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape), name


@pytest.mark.parametrize("cls, args, fan_in", [
    (nn.Conv1d, (4, 6, 5), 4 * 5),
    (nn.ConvTranspose2d, (4, 6, (3, 2)), 6 * 3 * 2),   # read off the weight's dimension 1
    (nn.ConvTranspose1d, (4, 6, 5), 6 * 5),
])
def test_initialisation_bounds_are_torch_default(cls, args, fan_in):
    layer = cls(*args)
    bound = 1 / math.sqrt(fan_in)
    # kaiming_uniform(a=sqrt(5)) draws the weight in +-sqrt(6 / ((1 + 5) * fan_in)) = +-bound
    assert layer.weight.abs().max().item() <= bound
    assert layer.bias.abs().max().item() <= bound
    assert layer.weight.abs().max().item() > 0.5 * bound


@pytest.mark.parametrize("text, shape", [
    ("Conv1d(3, 4, 3, stride=2, padding=1)", (2, 3, 9)),
    ("Conv1d(3, 4, 3, padding='same')", (3, 9)),
    ("ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)", (2, 3, 4, 5)),
    ("ConvTranspose2d(3, 4, 2)", (3, 4, 5)),
    ("ConvTranspose1d(3, 4, 3, stride=3, output_padding=2)", (2, 3, 6)),
    ("MaxPool1d(3, 2, 1)", (2, 3, 9)),
    ("AvgPool1d(3, 2, 1)", (3, 9)),
    ("AdaptiveAvgPool1d(4)", (2, 3, 9)),
])
def test_forward_and_backward_equal_torch_with_the_same_weights(text, shape, device):
    torch = _torch()
    theirs = eval(f"torch.nn.{text}", {"torch": torch})
    ours = eval(f"nn.{text}", {"nn": nn}).to(device)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x, tx = mt.tensor(data, device=device, requires_grad=True), torch.tensor(data,
                                                                             requires_grad=True)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=name)


@pytest.mark.parametrize("shape, output_size", [
    ((1, 3, 5, 5), (11, 12)), ((1, 3, 5, 5), [12, 11]), ((1, 3, 5, 5), (1, 4, 12, 12)),
    ((3, 5, 5), (4, 11, 11)), ((3, 5, 5), mt.Size([12, 12])),
])
def test_conv_transpose_output_size_as_torch(shape, output_size):
    torch = _torch()
    ours, theirs = nn.ConvTranspose2d(3, 4, 3, stride=2), torch.nn.ConvTranspose2d(3, 4, 3,
                                                                                   stride=2)
    expected = theirs(torch.zeros(shape), output_size=list(output_size)).shape
    assert tuple(ours(mt.zeros(shape), output_size=output_size).shape) == tuple(expected)
    assert tuple(ours.to("meta")(mt.zeros(shape, device="meta"),
                                 output_size=output_size).shape) == tuple(expected)


def test_conv_transpose1d_output_size():
    layer = nn.ConvTranspose1d(2, 3, 4, stride=3)
    assert layer(mt.zeros(1, 2, 5), output_size=[17]).shape == (1, 3, 17)
    assert layer(mt.zeros(2, 5), output_size=(3, 18)).shape == (3, 18)


@pytest.mark.parametrize("output_size, message", [
    ((13, 12), "requested an output size of (13, 12), but valid sizes range from [11, 11] to "
               "[12, 12] (for an input of torch.Size([5, 5]))"),
    ((1, 12, 12), "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements "
                  "(got 3)"),
    ([12], "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 1)"),
])
def test_conv_transpose_output_size_errors_as_torch(output_size, message):
    torch = _torch()
    for module, x in ((nn.ConvTranspose2d(3, 4, 3, stride=2), mt.zeros(1, 3, 5, 5)),
                      (torch.nn.ConvTranspose2d(3, 4, 3, stride=2), torch.zeros(1, 3, 5, 5))):
        with pytest.raises(ValueError) as info:
            module(x, output_size=output_size)
        assert str(info.value) == message


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda: nn.ConvTranspose1d(3, 4, 3, padding_mode="circular"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose1d'),
    (lambda: nn.ConvTranspose2d(3, 4, 3, groups=0), ValueError,
     "groups must be a positive integer, got 0"),
    (lambda: nn.ConvTranspose2d(3, 4, 3, groups=2), ValueError,
     "in_channels must be divisible by groups, got in_channels=3 and groups=2"),
    (lambda: nn.ConvTranspose2d(3, 4, 3, padding="same"), ValueError,
     "ConvTranspose2d: padding must be an int or a tuple of ints, got 'same' ('same' and "
     "'valid' are for convolutions only)"),
    (lambda: nn.Conv1d(3, 4, 3, padding="same", stride=2), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv1d(3, 4, 3, padding="full"), ValueError,
     f"Invalid padding string 'full', should be one of {set(('same', 'valid'))}"),  # as PyTorch
    (lambda: nn.Conv1d(4, 3, 3, groups=2), ValueError,
     "out_channels must be divisible by groups, got out_channels=3 and groups=2"),
    (lambda: nn.Conv1d(4, 4, (3, 3)), TypeError,
     "kernel_size must be an int or a tuple of 1 int, got (3, 3)"),
])
def test_construction_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_layers_build_on_meta_and_summary_counts_them():
    model = nn.Sequential(nn.Conv1d(2, 4, 3), nn.MaxPool1d(2), nn.ConvTranspose1d(4, 2, 3, 2),
                          nn.AvgPool1d(2), nn.AdaptiveAvgPool1d(3))
    result = mt.summary(model, input_size=(8, 2, 20))
    rows = {r["name"]: r for r in result.rows}
    assert rows["0"]["products_per_sample"] == 4 * 18 * (2 * 3)      # outputs x (C_in x k)
    # inputs x (C_out x k): 36 inputs, 38 outputs
    assert rows["2"]["products_per_sample"] == 4 * 9 * (2 * 3)
    assert rows["2"]["output_shape"] == [8, 2, 19]
    assert rows["4"]["output_shape"] == [8, 2, 3]
    assert result.totals["parameters"] == (4 * 2 * 3 + 4) + (4 * 2 * 3 + 2)
    bias_additions = 8 * (4 * 18 + 2 * 19)
    assert result.totals["flops"] == 2 * result.totals["products"] + bias_additions
    with mt.device("meta"):
        layer = nn.ConvTranspose2d(3, 4, 3, stride=2)
    assert layer.weight.is_meta
    assert layer(mt.empty(2, 3, 5, 5, device="meta")).shape == (2, 4, 11, 11)


def test_conv1d_2d_mix_in_a_model_trains(device):
    """A tiny audio-style model: conv, pool, transposed conv; one SGD step lowers the loss."""
    mt.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(1, 4, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                          nn.ConvTranspose1d(4, 1, 2, stride=2)).to(device)
    x = mt.randn(8, 1, 32, device=device)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(3):
        loss = mt.nn.functional.mse_loss(model(x), x)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
