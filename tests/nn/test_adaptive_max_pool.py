"""F.adaptive_max_pool1d/2d (and ``_with_indices``), torch.adaptive_max_pool1d and the
layers AdaptiveMaxPool1d/2d: values, indices, gradients, meta shapes, ties and NaN, reprs
and errors, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

X = Arg((2, 3, 7, 9), "distinct")
CASES = [
    Case("divisible", lambda T, F, x: F.adaptive_max_pool2d(x, (7, 3)), [X]),
    Case("overlapping", lambda T, F, x: F.adaptive_max_pool2d(x, (3, 4)), [X]),
    Case("int_size", lambda T, F, x: F.adaptive_max_pool2d(x, 5), [X]),
    Case("larger_than_input", lambda T, F, x: F.adaptive_max_pool2d(x, (9, 11)),
         [Arg((1, 2, 4, 5), "distinct")]),
    Case("none_keeps_size", lambda T, F, x: F.adaptive_max_pool2d(x, (None, 4)), [X]),
    Case("global", lambda T, F, x: F.adaptive_max_pool2d(x, 1), [X]),
    Case("indices", lambda T, F, x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), [X]),
    Case("with_indices", lambda T, F, x: F.adaptive_max_pool2d_with_indices(x, (4, 2)), [X]),
    Case("unbatched", lambda T, F, x: F.adaptive_max_pool2d(x, (2, 3), True),
         [Arg((3, 5, 7), "distinct")]),
    Case("empty_batch", lambda T, F, x: F.adaptive_max_pool2d(x, 2), [Arg((0, 2, 4, 4))]),
    Case("module_2d", lambda T, F, x: T.nn.AdaptiveMaxPool2d((None, 3), True)(x), [X]),
    Case("1d", lambda T, F, x: F.adaptive_max_pool1d(x, 4), [Arg((2, 3, 10), "distinct")]),
    Case("1d_indices", lambda T, F, x: F.adaptive_max_pool1d(x, (3,), return_indices=True),
         [Arg((2, 3, 10), "distinct")]),
    Case("1d_unbatched", lambda T, F, x: F.adaptive_max_pool1d(x, 6, True),
         [Arg((3, 4), "distinct")]),
    Case("1d_torch_name", lambda T, F, x: T.adaptive_max_pool1d(x, 3),
         [Arg((2, 7), "distinct")]),
    Case("module_1d", lambda T, F, x: T.nn.AdaptiveMaxPool1d(3, return_indices=True)(x),
         [Arg((2, 3, 8), "distinct")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _compare(ours, theirs):
    for o, t in zip(ours, theirs):
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.detach().cpu().numpy(), t.detach().numpy())


@pytest.mark.parametrize("size", [(2, 3), (3, 2), 1, (5, 6)])
def test_ties_pick_the_first_maximum_and_get_the_gradient(size, device, torch_ref):
    a = np.random.default_rng(0).integers(0, 3, (2, 2, 5, 6)).astype(np.float32)
    x = mt.tensor(a, device=device, requires_grad=True)
    tx = torch_ref.tensor(a, requires_grad=True)
    ours = mF.adaptive_max_pool2d(x, size, return_indices=True)
    theirs = torch_ref.nn.functional.adaptive_max_pool2d(tx, size, return_indices=True)
    _compare(ours, theirs)
    g = np.random.default_rng(1).standard_normal(tuple(theirs[0].shape)).astype(np.float32)
    ours[0].backward(mt.tensor(g, device=device))
    theirs[0].backward(torch_ref.tensor(g))
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-6)


def test_nan_wins_as_in_pytorch(device, torch_ref):
    # PyTorch's loop takes a value that is larger or NaN: a window's last NaN.
    nan = np.nan
    a = np.array([[[[1, nan, 3, nan], [nan, 2, 5, 1], [0, 1, 2, 3]]]], np.float32)
    ours = mF.adaptive_max_pool2d(mt.tensor(a, device=device), (2, 3), return_indices=True)
    theirs = torch_ref.nn.functional.adaptive_max_pool2d(torch_ref.tensor(a), (2, 3), True)
    _compare(ours, theirs)


def test_float16_and_float64(device, torch_ref):
    a = np.random.default_rng(0).standard_normal((2, 3, 5, 7))
    for dtype in ("float16", "float64"):
        ours = mF.adaptive_max_pool2d(mt.tensor(a.astype(dtype), device=device), (3, 4), True)
        theirs = torch_ref.nn.functional.adaptive_max_pool2d(torch_ref.tensor(a.astype(dtype)),
                                                             (3, 4), True)
        _compare(ours, theirs)


def test_returned_indices_do_not_steer_backward(device):
    # The user may write into the indices; the gradient still goes to the maxima.
    x = mt.tensor([[[[1.0, 4.0], [3.0, 2.0]]]], device=device, requires_grad=True)
    y, indices = mF.adaptive_max_pool2d(x, 1, return_indices=True)
    with mt.no_grad():
        indices.fill_(0)
    y.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 1.0], [0.0, 0.0]]]]


def test_grad_fn_names(device):
    x = mt.randn(2, 3, 6, device=device, requires_grad=True)
    assert mF.adaptive_max_pool1d(x, 2).grad_fn.name() == "SqueezeBackward1"
    assert mF.adaptive_max_pool2d(x, 2).grad_fn.name() == "AdaptiveMaxPool2DBackward0"


def test_reprs_as_pytorch(torch_ref):
    for cls, args in [("AdaptiveMaxPool1d", (3,)), ("AdaptiveMaxPool2d", (3,)),
                      ("AdaptiveMaxPool2d", ((None, 3), True)), ("AdaptiveMaxPool1d", (2, True))]:
        assert repr(getattr(mt.nn, cls)(*args)) == repr(getattr(torch_ref.nn, cls)(*args))


ERRORS = [  # (function name, input shape, output_size, our message)
    ("adaptive_max_pool2d", (4, 4), 2,
     "adaptive_max_pool2d: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, but got a 2-D "
     "input of shape (4, 4)"),
    ("adaptive_max_pool2d", (1, 1, 0, 4), 2,
     "adaptive_max_pool2d: Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes (1, 1, 0, 4) with dimension 2 being empty"),
    ("adaptive_max_pool2d", (1, 0, 4, 4), 2,
     "adaptive_max_pool2d: Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes (1, 0, 4, 4) with dimension 1 being empty"),
    ("adaptive_max_pool2d", (1, 1, 4, 4), -1,
     "adaptive_max_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {-1, -1}"),
    ("adaptive_max_pool2d", (1, 1, 4, 4), (2, 3, 4),
     "adaptive_max_pool2d: output_size must be 2, got (2, 3, 4)"),
    ("adaptive_max_pool2d", (1, 1, 4, 4), None,
     "adaptive_max_pool2d: output_size must be an int or a pair of ints (None keeps that input "
     "size), got None"),
    ("adaptive_max_pool2d", (1, 1, 4, 4), 2.0,
     "adaptive_max_pool2d: output_size must be an int or a pair of ints (None keeps that input "
     "size), got 2.0"),
    ("adaptive_max_pool1d", (4,), 2,
     "adaptive_max_pool1d: expected 2 to 3 dimensions, (C, L) or (N, C, L), but got a 1-D "
     "input of shape (4,)"),
    ("adaptive_max_pool1d", (1, 1, 0), 2,
     "adaptive_max_pool1d: Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes (1, 1, 0) with dimension 2 being empty"),
    ("adaptive_max_pool1d", (1, 4), (2, 3),
     "adaptive_max_pool1d: argument 'output_size' should contain one int (got 2)"),
    ("adaptive_max_pool1d", (1, 4), None,
     "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not "
     "None"),
    ("adaptive_max_pool1d", (1, 4), 2.0,
     "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not "
     "float"),
]


@pytest.mark.parametrize("name, shape, size, message", ERRORS)
def test_errors_as_pytorch(name, shape, size, message, torch_ref):
    with pytest.raises(Exception) as theirs:
        getattr(torch_ref.nn.functional, name)(torch_ref.ones(shape), size)
    for device in ("cpu", "meta"):
        with pytest.raises(type(theirs.value)) as ours:
            getattr(mF, name)(mt.ones(shape, device=device), size)
        assert str(ours.value) == message


@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.uint8, mt.bool])
def test_integers_not_implemented_as_pytorch(dtype):
    with pytest.raises(NotImplementedError, match="\"adaptive_max_pool2d\" not implemented"):
        mF.adaptive_max_pool2d(mt.ones(1, 1, 4, 4, dtype=dtype), 2)


def test_zero_output_size(device, torch_ref):
    # PyTorch 2.13 pools to nothing but refuses the backward of it; ours gives zeros.
    x = mt.randn(2, 3, 4, 4, device=device, requires_grad=True)
    y, indices = mF.adaptive_max_pool2d(x, (0, 3), return_indices=True)
    assert y.shape == indices.shape == torch_ref.nn.functional.adaptive_max_pool2d(
        torch_ref.ones(2, 3, 4, 4), (0, 3)).shape
    y.sum().backward()
    assert x.grad.shape == x.shape and x.grad.abs().sum().item() == 0


def test_unbatched_channels_may_be_empty(device, torch_ref):
    # As in PyTorch, only the dimensions after the first are checked.
    y = mF.adaptive_max_pool2d(mt.ones(0, 4, 4, device=device), 2)
    assert y.shape == torch_ref.nn.functional.adaptive_max_pool2d(torch_ref.ones(0, 4, 4),
                                                                  2).shape
