"""F.pixel_shuffle / F.pixel_unshuffle, torch.pixel_shuffle / pixel_unshuffle and their
layers: values, gradients, meta shapes, leading batch dims, grad_fn names, reprs, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

CASES = [
    Case("shuffle", lambda T, F, x: F.pixel_shuffle(x, 2), [Arg((2, 8, 3, 5))]),
    Case("shuffle_by_3", lambda T, F, x: F.pixel_shuffle(x, 3), [Arg((1, 18, 2, 3))]),
    Case("shuffle_unbatched", lambda T, F, x: F.pixel_shuffle(x, 2), [Arg((4, 3, 2))]),
    Case("shuffle_batch_dims", lambda T, F, x: F.pixel_shuffle(x, 2), [Arg((2, 3, 4, 2, 3))]),
    Case("shuffle_by_1", lambda T, F, x: F.pixel_shuffle(x, 1), [Arg((2, 3, 2, 2))]),
    Case("shuffle_torch_name", lambda T, F, x: T.pixel_shuffle(x, 2), [Arg((2, 4, 3, 3))]),
    Case("shuffle_module", lambda T, F, x: T.nn.PixelShuffle(2)(x), [Arg((2, 4, 3, 3))]),
    Case("unshuffle", lambda T, F, x: F.pixel_unshuffle(x, 2), [Arg((2, 3, 4, 6))]),
    Case("unshuffle_by_3", lambda T, F, x: F.pixel_unshuffle(x, 3), [Arg((1, 2, 6, 3))]),
    Case("unshuffle_unbatched", lambda T, F, x: F.pixel_unshuffle(x, 2), [Arg((3, 4, 2))]),
    Case("unshuffle_batch_dims", lambda T, F, x: F.pixel_unshuffle(x, 2),
         [Arg((2, 1, 3, 2, 4))]),
    Case("unshuffle_torch_name", lambda T, F, x: T.pixel_unshuffle(x, 2), [Arg((2, 2, 4, 4))]),
    Case("unshuffle_module", lambda T, F, x: T.nn.PixelUnshuffle(2)(x), [Arg((2, 2, 4, 4))]),
    Case("round_trip", lambda T, F, x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2),
         [Arg((2, 8, 3, 3))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_shuffle_places_channels_as_pytorch(device):
    # Channel c*r*r + i*r + j becomes pixel (h*r + i, w*r + j) of channel c.
    x = mt.arange(8, dtype=mt.float32, device=device).reshape(1, 8, 1, 1)
    y = mF.pixel_shuffle(x, 2)
    assert y.shape == (1, 2, 2, 2)
    assert y[0].tolist() == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_output_is_a_copy_not_a_view(device):
    # As PyTorch's: writing into the output leaves the input (and its version) alone.
    x = mt.zeros(1, 4, 2, 2, device=device)
    y = mF.pixel_shuffle(x, 2)
    assert y.is_contiguous()
    version = x._version
    y.add_(1)
    assert x._version == version and x.sum().item() == 0


@pytest.mark.parametrize("dtype", [mt.int64, mt.bool, mt.float16])
def test_any_dtype(dtype, device):
    x = mt.ones(1, 4, 2, 2, dtype=dtype, device=device)
    assert mF.pixel_shuffle(x, 2).dtype is dtype
    assert mF.pixel_unshuffle(x, 2).dtype is dtype


def test_empty_batch(device, torch_ref):
    # PyTorch 2.13's own backward fails here (its gradient comes back (0, 1, 4, 4)); ours is
    # the input's shape.
    x = mt.zeros(0, 4, 2, 2, device=device, requires_grad=True)
    y = mF.pixel_shuffle(x, 2)
    assert y.shape == torch_ref.nn.functional.pixel_shuffle(torch_ref.zeros(0, 4, 2, 2), 2).shape
    y.sum().backward()
    assert x.grad.shape == x.shape


def test_reprs_as_pytorch(torch_ref):
    assert repr(mt.nn.PixelShuffle(2)) == repr(torch_ref.nn.PixelShuffle(2))
    assert repr(mt.nn.PixelUnshuffle(3)) == repr(torch_ref.nn.PixelUnshuffle(3))


ERRORS = [  # (function name, input shape, factor, our message)
    ("pixel_shuffle", (4, 4), 2,
     "pixel_shuffle: expects input to have at least 3 dimensions (*, C, H, W), but got input "
     "with 2 dimension(s) of shape (4, 4)"),
    ("pixel_shuffle", (3, 4, 4), 2,
     "pixel_shuffle: expects its input's 'channel' dimension to be divisible by the square of "
     "upscale_factor, but input.size(-3)=3 is not divisible by 4"),
    ("pixel_shuffle", (4, 4, 4), 0, "pixel_shuffle: expects a positive upscale_factor, but got 0"),
    ("pixel_shuffle", (4, 4, 4), -1,
     "pixel_shuffle: expects a positive upscale_factor, but got -1"),
    ("pixel_shuffle", (4, 4, 4), 2.0,
     "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not float"),
    ("pixel_shuffle", (4, 4, 4), True,
     "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not bool"),
    ("pixel_unshuffle", (4,), 2,
     "pixel_unshuffle: expects input to have at least 3 dimensions (*, C, H, W), but got "
     "input with 1 dimension(s) of shape (4,)"),
    ("pixel_unshuffle", (3, 5, 4), 2,
     "pixel_unshuffle: expects height to be divisible by downscale_factor, but "
     "input.size(-2)=5 is not divisible by 2"),
    ("pixel_unshuffle", (3, 4, 5), 2,
     "pixel_unshuffle: expects width to be divisible by downscale_factor, but "
     "input.size(-1)=5 is not divisible by 2"),
    ("pixel_unshuffle", (3, 4, 4), -2,
     "pixel_unshuffle: expects a positive downscale_factor, but got -2"),
]


@pytest.mark.parametrize("name, shape, factor, message", ERRORS)
def test_errors_as_pytorch(name, shape, factor, message, torch_ref):
    with pytest.raises(Exception) as theirs:
        getattr(torch_ref.nn.functional, name)(torch_ref.ones(shape), factor)
    for device in ("cpu", "meta"):
        with pytest.raises(type(theirs.value)) as ours:
            getattr(mF, name)(mt.ones(shape, device=device), factor)
        assert str(ours.value) == message


def test_meta_grad_fn_names():
    x = mt.empty(2, 8, 3, 3, device="meta", requires_grad=True)
    assert mF.pixel_shuffle(x, 2).grad_fn.name() == "PixelShuffleBackward0"
    assert mF.pixel_unshuffle(x, 3).grad_fn.name() == "PixelUnshuffleBackward0"
    assert np.prod(mF.pixel_unshuffle(x, 3).shape) == np.prod(x.shape)
