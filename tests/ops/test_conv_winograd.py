"""conv2d's Winograd path (``backends/xp_winograd.py``): transforms, choice, values, gradients.

The shared cases force the path (``MIN_PRODUCT_SAVING = 0``) and check that it was taken,
then run the float64 finite-difference gradcheck and the float32 comparison with PyTorch,
on every device present.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from minitorch_meta.backends import xp_winograd
from minitorch_meta.backends.registry import get_backend
from minitorch_meta.backends.xp import XpBackend
from minitorch_meta.backends.xp_winograd import TILE, toom_cook, use_winograd
from tests.ops.harness import Arg, Case, check_against_torch, check_gradients, params

# PyTorch warns that it copies the input for even kernels with padding="same"; not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")


def conv(**kw):
    return lambda T, F, x, w, b=None: F.conv2d(x, w, b, **kw)


# Stride 1, no dilation, kernels of 2 to 7 taps a side: every shape the path takes.
CASES = [
    Case("one_tile_5x5", conv(), [Arg((2, 3, 8, 8)), Arg((4, 3, 5, 5)), Arg((4,))]),
    Case("ragged_tiles_5x5", conv(), [Arg((2, 3, 9, 10)), Arg((4, 3, 5, 5)), Arg((4,))]),
    Case("whole_tiles_3x3", conv(), [Arg((2, 2, 14, 8)), Arg((3, 2, 3, 3)), Arg((3,))]),
    Case("rectangular_padded_no_bias", conv(padding=(1, 2)),
         [Arg((2, 2, 7, 11)), Arg((3, 2, 3, 5))]),
    Case("kernel_7x2", conv(), [Arg((1, 2, 10, 9)), Arg((2, 2, 7, 2)), Arg((2,))]),
    Case("padding_same_even", conv(padding="same"), [Arg((2, 3, 6, 5)), Arg((4, 3, 2, 4))]),
    Case("weight_only_grad", conv(padding=1),
         [Arg((2, 3, 9, 9), grad=False), Arg((4, 3, 5, 5)), Arg((4,))]),
    Case("input_only_grad", conv(), [Arg((2, 3, 9, 9)), Arg((4, 3, 5, 5), grad=False)]),
]


@pytest.fixture
def forced_winograd(monkeypatch):
    """Every eligible convolution takes the Winograd path; yields the forward's call count."""
    calls = []
    original = XpBackend._winograd_conv2d

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(xp_winograd, "MIN_PRODUCT_SAVING", 0.0)
    monkeypatch.setattr(XpBackend, "_winograd_conv2d", counted)
    return calls


@pytest.mark.parametrize("case", params(CASES))
def test_gradcheck(case, device, forced_winograd):
    check_gradients(case, device)
    assert forced_winograd, "the Winograd path was not taken"


@pytest.mark.parametrize("case", params(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_against_torch(case, seed, device, forced_winograd):
    check_against_torch(case, device, seed, rtol=1e-4, atol=1e-4)
    assert forced_winograd, "the Winograd path was not taken"


@pytest.mark.parametrize("taps", range(2, TILE))
def test_toom_cook_transforms_are_exact(taps):
    """In exact arithmetic ``AT @ ((G @ g) * (BT @ d))`` is the correlation, for every kernel
    size the path takes (rationals: equality, not closeness)."""
    outputs = TILE - taps + 1
    at, g_map, bt = toom_cook(outputs, taps)
    rng = np.random.default_rng(taps)
    d = [Fraction(int(v)) for v in rng.integers(-9, 10, TILE)]
    g = [Fraction(int(v)) for v in rng.integers(-9, 10, taps)]

    def apply(matrix, vector):
        return [sum(m * v for m, v in zip(row, vector)) for row in matrix]

    products = [a * b for a, b in zip(apply(g_map, g), apply(bt, d))]
    expected = [sum(d[i + k] * g[k] for k in range(taps)) for i in range(outputs)]
    assert apply(at, products) == expected


def test_toom_cook_refuses_a_tile_of_another_size():
    with pytest.raises(ValueError, match="outputs \\+ taps - 1 must be 8, got 4 \\+ 3 - 1"):
        toom_cook(4, 3)


FLOAT32 = np.dtype(np.float32)


@pytest.mark.parametrize("batch, channels, filters, kernel, stride, dilation, out_hw, dtype, "
                         "expected", [
                             # the lecture net's second layer: 2.2-2.4x fewer products
                             (64, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4), FLOAT32, True),
                             (256, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4), FLOAT32, True),
                             (64, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4), np.dtype(np.float64),
                              True),
                             # one sample: the filters' transform outweighs the saving
                             (1, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4), FLOAT32, False),
                             # few channels: the transforms cost more than they save
                             (256, 6, 16, (5, 5), (1, 1), (1, 1), (10, 10), FLOAT32, False),
                             (256, 3, 6, (5, 5), (1, 1), (1, 1), (28, 28), FLOAT32, False),
                             (256, 1, 32, (5, 5), (1, 1), (1, 1), (24, 24), FLOAT32, False),
                             # not stride 1, dilated, kernels too small or too large, half
                             (256, 32, 64, (5, 5), (2, 2), (1, 1), (2, 2), FLOAT32, False),
                             (256, 32, 64, (5, 5), (1, 1), (2, 2), (4, 4), FLOAT32, False),
                             (256, 64, 64, (1, 1), (1, 1), (1, 1), (8, 8), FLOAT32, False),
                             (256, 64, 64, (8, 8), (1, 1), (1, 1), (8, 8), FLOAT32, False),
                             (256, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4),
                              np.dtype(np.float16), False),
                         ])
def test_use_winograd(batch, channels, filters, kernel, stride, dilation, out_hw, dtype,
                      expected):
    assert use_winograd(batch, channels, filters, kernel, stride, dilation, out_hw,
                        dtype) is expected


def test_lecture_layer_takes_winograd_and_matches_im2col_and_torch(monkeypatch):
    """Chosen by the real rule (no forcing): values and gradients within float32 rounding
    of the im2col path and of PyTorch, measured against each tensor's largest value."""
    rng = np.random.default_rng(0)
    x = np.maximum(rng.standard_normal((32, 32, 8, 8)), 0).astype(np.float32)
    w = (rng.uniform(-1, 1, (64, 32, 5, 5)) / np.sqrt(800)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, 64).astype(np.float32)
    gy = rng.standard_normal((32, 64, 4, 4)).astype(np.float32)
    assert use_winograd(32, 32, 64, (5, 5), (1, 1), (1, 1), (4, 4), FLOAT32)

    def run():
        tensors = [mt.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = mF.conv2d(*tensors)
        out.backward(mt.tensor(gy))
        return [out.detach().numpy()] + [t.grad.numpy() for t in tensors]

    winograd = run()
    monkeypatch.setattr(xp_winograd, "MIN_PRODUCT_SAVING", float("inf"))
    im2col = run()
    references = [im2col]
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the last check")
    tensors = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    out = torch.nn.functional.conv2d(*tensors)
    out.backward(torch.tensor(gy))
    references.append([out.detach().numpy()] + [t.grad.numpy() for t in tensors])
    for reference in references:
        for ours, theirs in zip(winograd, reference):
            assert_close_to_scale(ours, theirs)


def test_inference_equals_training_and_channels_last_input(forced_winograd, monkeypatch):
    """Without autograd nothing is saved and the tiles are made a chunk of samples at a time
    (here two samples: chunks of 2, 2 and 1), and a channels-last input (a previous layer's
    output) is read in place: the same numbers either way."""
    tile_bytes_per_sample = 64 * 2 * 2 * 4 * 4  # 64 frequencies, 2 x 2 tiles, 4 channels
    monkeypatch.setattr(xp_winograd, "CHUNK_BYTES", 2 * tile_bytes_per_sample)
    rng = np.random.default_rng(0)
    nhwc = rng.standard_normal((5, 9, 9, 4)).astype(np.float32)
    w = mt.tensor(rng.standard_normal((5, 4, 3, 3)).astype(np.float32), requires_grad=True)
    channels_last = mt.tensor(nhwc).permute(0, 3, 1, 2)
    contiguous = mt.tensor(np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)))
    trained = mF.conv2d(contiguous, w)
    with mt.no_grad():
        inferred = mF.conv2d(channels_last, w)
    assert len(forced_winograd) == 2
    # Chunks are GEMMs of other sizes, so BLAS may sum in another order: equal up to
    # Winograd's float32 rounding.
    assert_close_to_scale(inferred.numpy(), trained.detach().numpy())


def assert_close_to_scale(ours, reference, relative=5e-5):
    """Winograd's float32 error is a fraction of the tensor's largest value, not of each
    element's (measured: about 1e-5 of it)."""
    error = np.abs(ours - reference).max()
    assert error <= relative * np.abs(reference).max(), (error, np.abs(reference).max())


def test_transform_matrices_are_built_once_per_kernel_size_and_dtype():
    """The maps are constants: the second convolution reuses the first one's, a float64 or
    another kernel size gets its own, and each is the Kronecker product of the exact 1-D
    transforms in the asked dtype."""
    backend = get_backend(mt.device("cpu"))
    first = backend._winograd_maps(5, 3, FLOAT32)
    assert backend._winograd_maps(5, 3, FLOAT32) is first
    float64 = backend._winograd_maps(5, 3, np.dtype(np.float64))
    other_size = backend._winograd_maps(3, 5, FLOAT32)
    assert float64 is not first and other_size is not first
    assert [m.dtype for m in float64] == [np.float64] * 3
    assert [m.dtype for m in first] == [np.float32] * 3
    at_h, g_h, _ = toom_cook(TILE - 5 + 1, 5)
    at_w, g_w, bt = toom_cook(TILE - 3 + 1, 3)

    def exact(rows):
        return np.array([[float(v) for v in row] for row in rows])

    for ours, reference in zip(float64, (np.kron(exact(bt), exact(bt)),
                                         np.kron(exact(g_h), exact(g_w)),
                                         np.kron(exact(at_h), exact(at_w)))):
        np.testing.assert_array_equal(ours, reference)
