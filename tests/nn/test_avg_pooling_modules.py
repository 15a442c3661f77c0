"""AvgPool2d and AdaptiveAvgPool2d: reprs, values in a Sequential, summary rows, meta."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn


def _layers(torch):
    nn_ = torch.nn
    return [
        nn_.AvgPool2d(2), nn_.AvgPool2d(3, 2, 1), nn_.AvgPool2d((2, 3), stride=1, padding=(1, 1)),
        nn_.AvgPool2d(3, ceil_mode=True, count_include_pad=False, divisor_override=4),
        nn_.AdaptiveAvgPool2d(1), nn_.AdaptiveAvgPool2d((5, 7)),
        nn_.AdaptiveAvgPool2d((None, 3)), nn_.AdaptiveAvgPool2d([3, None]),
    ]


def test_reprs():
    assert [repr(layer) for layer in _layers(mt)][:5] == [
        "AvgPool2d(kernel_size=2, stride=2, padding=0)",
        "AvgPool2d(kernel_size=3, stride=2, padding=1)",
        "AvgPool2d(kernel_size=(2, 3), stride=1, padding=(1, 1))",
        "AvgPool2d(kernel_size=3, stride=3, padding=0)",
        "AdaptiveAvgPool2d(output_size=1)"]


def test_reprs_and_attributes_equal_pytorch(torch_ref):
    ours, theirs = _layers(mt), _layers(torch_ref)
    assert [repr(x) for x in ours] == [repr(x) for x in theirs]
    for o, t in zip(ours, theirs):
        for name in ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override", "output_size"):
            assert getattr(o, name, None) == getattr(t, name, None), name


def _net(t):
    return t.nn.Sequential(t.nn.Conv2d(3, 8, 3, padding=1), t.nn.ReLU(),
                           t.nn.AvgPool2d(3, 2, 1, count_include_pad=False),
                           t.nn.Conv2d(8, 6, 3), t.nn.AdaptiveAvgPool2d((3, None)),
                           t.nn.AdaptiveAvgPool2d(1), t.nn.Flatten(), t.nn.Linear(6, 4))


def test_inside_a_sequential_values_and_gradients_equal_pytorch(torch_ref, device):
    theirs = _net(torch_ref).double()
    ours = _net(mt).double().to(device)
    ours.load_state_dict({k: mt.from_numpy(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 3, 13, 11))
    xt = torch_ref.from_numpy(x).requires_grad_()
    xo = mt.from_numpy(x).to(device).requires_grad_()
    yt, yo = theirs(xt), ours(xo)
    np.testing.assert_allclose(yo.detach().cpu().numpy(), yt.detach().numpy(), rtol=1e-10)
    (yt * yt).sum().backward()
    (yo * yo).sum().backward()
    np.testing.assert_allclose(xo.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (name, po), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(po.grad.cpu().numpy(), pt.grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=name)


def test_unbatched_input():
    x = mt.arange(16.0).view(1, 4, 4)
    assert nn.AvgPool2d(2)(x).tolist() == [[[2.5, 4.5], [10.5, 12.5]]]
    assert nn.AdaptiveAvgPool2d(1)(x).tolist() == [[[7.5]]]


def test_meta_model_shapes():
    with mt.device("meta"):
        model = _net(mt)
    y = model(mt.empty(4, 3, 13, 11, device="meta"))
    assert y.is_meta and tuple(y.shape) == (4, 4)


def test_summary_lists_the_pooling_layers():
    result = mt.summary(_net(mt), input_size=(2, 3, 13, 11))
    rows = {r["name"]: r for r in result.rows}
    assert rows["2"]["layer"] == "AvgPool2d(kernel_size=3, stride=2, padding=1)"
    assert rows["2"]["output_shape"] == [2, 8, 7, 6]
    assert rows["4"]["layer"] == "AdaptiveAvgPool2d(output_size=(3, None))"
    assert rows["4"]["output_shape"] == [2, 6, 3, 4]
    assert rows["5"]["output_shape"] == [2, 6, 1, 1]
    assert all(rows[k]["products_per_sample"] == 0 and rows[k]["parameters"] == 0
               for k in ("2", "4", "5"))


@pytest.mark.parametrize("module, shape, message", [
    (nn.AvgPool2d(5), (1, 2, 4, 4), "Output size is too small"),
    (nn.AdaptiveAvgPool2d((1, 2, 3)), (1, 2, 4, 4), "output_size must be 2"),
])
def test_module_errors_name_the_op(module, shape, message):
    with pytest.raises(mt.ShapeError, match=message):
        module(mt.zeros(shape))
