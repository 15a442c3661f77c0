"""F.bilinear and nn.Bilinear: three-way checks, float64 values and gradients against
PyTorch's layer with copied parameters, parameter names, shapes and init, repr, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from minitorch_meta import nn
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    Case("bilinear", lambda T, F, a, b, w, c: F.bilinear(a, b, w, c),
         [Arg((4, 3)), Arg((4, 2)), Arg((5, 3, 2)), Arg((5,))]),
    Case("bilinear_no_bias", lambda T, F, a, b, w: F.bilinear(a, b, w),
         [Arg((4, 3)), Arg((4, 2)), Arg((5, 3, 2))]),
    Case("bilinear_batch_dims", lambda T, F, a, b, w, c: F.bilinear(a, b, w, c),
         [Arg((2, 3, 3)), Arg((2, 3, 4)), Arg((2, 3, 4)), Arg((2,))]),
    Case("bilinear_unbatched", lambda T, F, a, b, w, c: F.bilinear(a, b, w, c),
         [Arg((3,)), Arg((2,)), Arg((4, 3, 2)), Arg((4,))]),
    Case("bilinear_empty_batch", lambda T, F, a, b, w: F.bilinear(a, b, w),
         [Arg((0, 3)), Arg((0, 2)), Arg((4, 3, 2))]),
    Case("bilinear_inputs_only", lambda T, F, a, b, w: F.bilinear(a, b, w),
         [Arg((4, 3)), Arg((4, 2)), Arg((5, 3, 2), grad=False)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_parameters_init_and_repr_are_pytorchs(torch_ref):
    layer = nn.Bilinear(6, 4, 5)
    theirs = torch_ref.nn.Bilinear(6, 4, 5)
    assert repr(layer) == repr(theirs)
    assert repr(nn.Bilinear(2, 3, 4, bias=False)) == repr(torch_ref.nn.Bilinear(2, 3, 4, False))
    assert [(n, tuple(p.shape)) for n, p in layer.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    bound = 1 / math.sqrt(6)
    for p in layer.parameters():
        assert p.requires_grad and -bound <= p.min().item() and p.max().item() <= bound
    assert layer.weight.std().item() > bound / 3  # spread over the interval, not constant
    assert nn.Bilinear(2, 3, 4, bias=False).bias is None


def test_layer_equals_pytorchs_in_float64_with_copied_parameters(torch_ref, device):
    theirs = torch_ref.nn.Bilinear(3, 4, 5, dtype=torch_ref.float64)
    ours = nn.Bilinear(3, 4, 5, dtype=mt.float64, device=device)
    with mt.no_grad():
        ours.weight.copy_(mt.tensor(theirs.weight.detach().numpy()))
        ours.bias.copy_(mt.tensor(theirs.bias.detach().numpy()))
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 6, 3)), rng.standard_normal((2, 6, 4))
    x1, x2 = (mt.tensor(v, device=device, requires_grad=True) for v in (a, b))
    t1, t2 = (torch_ref.tensor(v, requires_grad=True) for v in (a, b))
    out, ref = ours(x1, x2), theirs(t1, t2)
    assert out.grad_fn.name() == type(ref.grad_fn).__name__ == "AddBackward0"
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(tuple(ref.shape))
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch_ref.tensor(upstream))
    for ours_grad, their_grad in ((x1.grad, t1.grad), (x2.grad, t2.grad),
                                  (ours.weight.grad, theirs.weight.grad),
                                  (ours.bias.grad, theirs.bias.grad)):
        np.testing.assert_allclose(ours_grad.cpu().numpy(), their_grad.numpy(), rtol=1e-12)


def test_layer_on_meta_and_to_empty():
    layer = nn.Bilinear(3, 4, 5, device="meta")
    out = layer(mt.empty(7, 3, device="meta"), mt.empty(7, 4, device="meta"))
    assert out.is_meta and out.shape == (7, 5)
    layer.to_empty(device="cpu")
    layer.reset_parameters()
    assert layer(mt.ones(2, 3), mt.ones(2, 4)).shape == (2, 5)


@pytest.mark.parametrize("shapes, message", [
    (((2, 3), (3, 4), (5, 3, 4), None),
     "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3"),
    (((2, 3), (4,), (5, 3, 4), None), "bilinear(): input dimensions do not match: got 2 and 1"),
    (((2, 2), (2, 4), (5, 3, 4), None),
     "bilinear(): input1 size does not match weight size: got 2 but expected 3"),
    (((2, 3), (2, 5), (5, 3, 4), None),
     "bilinear(): input2 size does not match weight size: got 5 but expected 4"),
    (((2, 3), (2, 4), (5, 3, 4), (4,)),
     "bilinear(): bias size does not match weight size: got 4 but expected 5"),
    (((2, 3), (2, 4), (3, 4), None),
     "bilinear(): expected a 3-D weight (out_features, in1_features, in2_features), got "
     "shape (3, 4)"),
])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_shape_errors_are_pytorchs(shapes, message, device):
    a, b, w, c = (None if s is None else mt.ones(*s, device=device) for s in shapes)
    with pytest.raises(RuntimeError) as info:
        F.bilinear(a, b, w, c)
    assert str(info.value) == message


def test_in1_features_must_be_positive():
    with pytest.raises(ValueError, match=r"^in1_features must be > 0, but got \(in1_features=0\)$"):
        nn.Bilinear(0, 3, 2)
