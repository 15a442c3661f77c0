"""F.interpolate: nearest, nearest-exact, linear, bilinear; sizes, scale factors, errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests


def _up(**kwargs):
    return lambda T, F, a: F.interpolate(a, **kwargs)


S3, S4 = (2, 3, 7), (2, 3, 5, 6)
CASES = []
for mode, shape in [("nearest", S3), ("nearest", S4), ("nearest-exact", S3),
                    ("nearest-exact", S4), ("linear", S3), ("bilinear", S4)]:
    corners = [None] if mode.startswith("nearest") else [False, True]
    k = len(shape) - 2
    for ac in corners:
        tag = f"{mode}_{k}d" + ("_align" if ac else "")
        for size in [(11, 13), (3, 2), (1, 1), (5, 6), (4, 17)]:
            CASES.append(Case(f"{tag}_size_{size[:k]}", _up(size=size[-k:] if k == 2 else
                                                             size[0], mode=mode,
                                                             align_corners=ac), [Arg(shape)]))
        for scale in [2, 0.5, 1.7, 0.37, 3.3, (1.5, 2.6)]:
            if isinstance(scale, tuple) and k == 1:
                continue
            if mode == "nearest" and k == 1 and scale == 2:
                continue  # PyTorch's backward disagrees with its forward (see below)
            for recompute in (None, True):
                CASES.append(Case(f"{tag}_scale_{scale}_{recompute}",
                                  _up(scale_factor=scale, mode=mode, align_corners=ac,
                                      recompute_scale_factor=recompute), [Arg(shape)]))
CASES += [
    Case("bilinear_same_size_by_scale", _up(scale_factor=1.1, mode="bilinear"), [Arg(S4)]),
    Case("nearest_2d_doubling_by_scale", _up(scale_factor=2.1), [Arg(S4)]),
    Case("bilinear_empty_batch", _up(size=(4, 4), mode="bilinear"), [Arg((0, 2, 3, 3))]),
    # whole-number scales: a broadcast write (powers of two, or any for nearest-exact) ...
    Case("nearest_2d_x4", _up(scale_factor=4), [Arg((1, 2, 3, 2))]),
    Case("nearest_1d_x8_by_size", _up(size=24), [Arg((1, 2, 3))]),
    Case("nearest_exact_2d_x3_by_2", _up(scale_factor=(3, 2), mode="nearest-exact"),
         [Arg((1, 2, 3, 2))]),
    # ... or, where the step 1 / s is not exact (s = 3 for nearest), the gather
    Case("nearest_2d_x3", _up(scale_factor=3), [Arg((1, 2, 3, 2))]),
    # a matrix per axis up to 48 inputs and 96 outputs, the two-tap gathers above
    Case("bilinear_wide_axis_gathers", _up(size=(3, 80), mode="bilinear"), [Arg((1, 1, 2, 70))]),
    Case("linear_long_axis_gathers", _up(size=50, mode="linear", align_corners=True),
         [Arg((1, 1, 100))]),
    Case("bilinear_many_outputs_gather", _up(size=(97, 3), mode="bilinear"),
         [Arg((1, 1, 4, 2))]),
    Case("bilinear_then_mean", lambda T, F, a: F.interpolate(a, scale_factor=2, mode="bilinear",
                                                             align_corners=False).mean(),
         [Arg(S4)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_nearest_is_floor_of_scaled_position_and_exact_is_centred(device):
    F = mt.nn.functional
    x = mt.arange(5.0, device=device).reshape(1, 1, 5)
    assert F.interpolate(x, size=3).tolist() == [[[0, 1, 3]]]  # floor(o * 5/3)
    assert F.interpolate(x, size=3, mode="nearest-exact").tolist() == [[[0, 2, 4]]]
    assert F.interpolate(x, size=3, mode="linear", align_corners=True).tolist() == [[[0, 2, 4]]]


def test_scale_factor_steps_by_its_inverse_unless_recomputed(device):
    F = mt.nn.functional
    x = mt.arange(4.0, device=device).reshape(1, 1, 4)
    # out = floor(4 * 2.1) = 8; the step 1/2.1 reads 0,0,0,1,1,2,2,3; 4/8 reads by halves
    assert F.interpolate(x, scale_factor=2.1).tolist() == [[[0, 0, 0, 1, 1, 2, 2, 3]]]
    assert F.interpolate(x, scale_factor=2.1, recompute_scale_factor=True).tolist() == [
        [[0, 0, 1, 1, 2, 2, 3, 3]]]


@pytest.mark.parametrize("scale", [1.1, 2.1])
def test_1d_nearest_gradient_is_its_forwards_where_torch_differs(scale, device):
    # For a 1-D input whose size scale_factor keeps or doubles, PyTorch's nearest forward
    # reads floor(o / scale) but its backward copies (or halves): the two disagree. Ours is
    # the gradient of the forward computed.
    x = mt.arange(4.0, device=device, requires_grad=True)
    y = mt.nn.functional.interpolate(x.reshape(1, 1, 4), scale_factor=scale)
    weights = mt.arange(1.0, y.shape[-1] + 1, device=device).reshape(y.shape)
    (y * weights).sum().backward()
    reads = y.detach().reshape(-1).cpu().numpy().astype(int)
    expected = np.bincount(reads, weights=np.arange(1.0, len(reads) + 1), minlength=4)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), expected)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_uint8_images_resize_as_in_torch(mode, device):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).integers(0, 256, (2, 3, 5, 7)).astype(np.uint8)
    for kwargs in [dict(scale_factor=1.5), dict(size=(3, 11)), dict(scale_factor=(0.7, 2.0))]:
        ours = mt.nn.functional.interpolate(mt.tensor(data, device=device), mode=mode, **kwargs)
        theirs = torch.nn.functional.interpolate(torch.tensor(data), mode=mode, **kwargs)
        assert ours.dtype is mt.uint8
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_grad_fn_names_and_dtype():
    F = mt.nn.functional
    x = mt.rand(1, 2, 3, 4, requires_grad=True, dtype=mt.float64)
    names = {m: F.interpolate(x, size=(5, 6), mode=m).grad_fn.name()
             for m in ("nearest", "nearest-exact", "bilinear")}
    assert names == {"nearest": "UpsampleNearest2DBackward0",
                     "nearest-exact": "UpsampleNearestExact2DBackward0",
                     "bilinear": "UpsampleBilinear2DBackward0"}
    y = F.interpolate(x[0], size=5, mode="linear")
    assert y.grad_fn.name() == "UpsampleLinear1DBackward0" and y.dtype is mt.float64
    assert F.interpolate(x[0], size=5).grad_fn.name() == "UpsampleNearest1DBackward0"


def test_a_huge_meta_tensor_is_resized_without_data():
    x = mt.empty(2**20, 2**10, 2**10, 2**10, device="meta", requires_grad=True)
    F = mt.nn.functional
    F.interpolate(x, scale_factor=2)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        y = F.interpolate(x, scale_factor=1.5, mode="bilinear")
        z = F.interpolate(x, size=(3, 5), mode="nearest-exact")
        (y.sum() + z.sum()).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert y.shape == (2**20, 2**10, 1536, 1536) and z.shape == (2**20, 2**10, 3, 5)
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


def _i(*args, **kwargs):
    return lambda x: mt.nn.functional.interpolate(x, *args, **kwargs)


@pytest.mark.parametrize("call, error, message", [
    (_i(), ValueError, "either size or scale_factor should be defined"),
    (_i(4, 2), ValueError, "only one of size or scale_factor should be defined"),
    (_i((4, 5)), ValueError,
     "Input and output must have the same number of spatial dimensions, but got input with "
     "spatial dimensions of [4] and output size of (4, 5). Please provide input tensor in "
     "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."),
    (_i(scale_factor=(2, 3)), ValueError,
     "Input and scale_factor must have the same number of spatial dimensions, but got input "
     "with spatial dimensions of [4] and scale_factor of shape (2, 3). Please provide input "
     "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."),
    (_i([4.0]), TypeError,
     "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
     "int], but got size with types [<class 'float'>]"),
    (_i(5, align_corners=False), ValueError,
     "align_corners option can only be set with the interpolating modes: linear | bilinear | "
     "bicubic | trilinear"),
    (_i(5, recompute_scale_factor=True), ValueError,
     "recompute_scale_factor is not meaningful with an explicit size."),
    (_i(5, mode="bilinear"), NotImplementedError, "Got 3D input, but bilinear mode needs 4D "
                                                   "input"),
    (_i(5, antialias=True), ValueError,
     "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
     "as input"),
    (_i(5, mode="bicubic"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: nearest "
     "| linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got bicubic)"),
    (_i(5, mode="trilinear"), NotImplementedError, "Got 3D input, but trilinear mode needs 5D "
                                                    "input"),
    (_i(5, mode="foo"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: nearest "
     "| linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got foo)"),
    (_i(scale_factor=0.2), RuntimeError,
     "Input and output sizes should be greater than 0, but got input (W: 4) and output (W: 0)"),
    (_i(scale_factor=float("inf")), RuntimeError,
     "value cannot be converted to type int64_t without overflow (interpolate: scale_factor "
     "inf for an input size of 4)"),
    (lambda x: mt.nn.functional.interpolate(x.long(), 5), NotImplementedError,
     "\"upsample_nearest1d\" not implemented for 'Long'"),
    (lambda x: mt.nn.functional.interpolate(x.to(mt.uint8), 5, mode="linear"),
     NotImplementedError, "\"upsample_linear1d\" not implemented for 'Byte'"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("shape, kwargs, message", [
    ((1, 2, 3, 4), dict(size=(0, 5)), "Input and output sizes should be greater than 0, but "
                                      "got input (H: 3, W: 4) output (H: 0, W: 5)"),
    ((1, 0, 3, 4), dict(scale_factor=2), "Non-empty 4D data tensor expected but got a tensor "
                                         "with sizes [1, 0, 3, 4]"),
    ((1, 2, 3, 4, 5), dict(size=(1, 0, 2), mode="trilinear"),
     "Input and output sizes should be greater than 0, but got input (D: 3, H: 4, W: 5) output "
     "(D: 1, H: 0, W: 2)"),
])
def test_more_errors_same_on_cpu_and_meta(shape, kwargs, message):
    error = RuntimeError if "sizes" in message or "Non-empty" in message else \
        NotImplementedError
    check_same_error_on_cpu_and_meta(_i(**kwargs), error, message, shape)


def test_errors_match_torchs_type_and_start():
    torch = pytest.importorskip("torch")
    data = np.zeros((1, 2, 3, 4), np.float32)
    for kwargs in [dict(size=(0, 5)), dict(scale_factor=0.1), dict(size=4, mode="linear"),
                   dict(size=(2, 2), align_corners=True), dict()]:
        with pytest.raises(Exception) as theirs:
            torch.nn.functional.interpolate(torch.tensor(data), **kwargs)
        with pytest.raises(type(theirs.value)) as ours:
            mt.nn.functional.interpolate(mt.tensor(data), **kwargs)
        assert str(ours.value) == str(theirs.value), kwargs


@pytest.mark.parametrize("size", [(2, 5), (4, 3), (2, 3), (4, 80)])
@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
@pytest.mark.parametrize("where", ["input", "gradient"])
def test_a_non_finite_value_stays_where_torch_puts_it(size, bad, where, device):
    # A matrix product would multiply inf or NaN by the zeros of every row and spread NaN
    # along the whole axis; PyTorch's two taps put it only where an output reads it (even
    # on an axis whose size is kept: 0 * inf). The gradient too.
    torch = pytest.importorskip("torch")
    data = np.arange(2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3)
    upstream = np.ones((2, 3) + size, np.float32)
    if where == "input":
        data[1, 2, 1, 1] = bad
    else:
        upstream[0, 1, 1, 0] = bad
    ours = mt.tensor(data, device=device, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    y = mt.nn.functional.interpolate(ours, size=size, mode="bilinear")
    ref = torch.nn.functional.interpolate(theirs, size=size, mode="bilinear")
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-6)
    y.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("scale", [2, 3, 4])
def test_whole_number_scales_give_the_gathers_bits(mode, scale, device):
    """Values are copies; each input's gradient adds its outputs' in row-major order, as
    a scatter-add through the nearest index does (np.add.at here)."""
    rng = np.random.default_rng(4)
    data = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    x = mt.tensor(data, device=device, requires_grad=True)
    y = mt.nn.functional.interpolate(x, scale_factor=scale, mode=mode)
    gy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(mt.tensor(gy, device=device))
    rows, cols = np.arange(5 * scale) // scale, np.arange(4 * scale) // scale
    index = (Ellipsis, rows[:, None], cols)
    expected_gx = np.zeros(data.shape, np.float32)
    np.add.at(expected_gx, index, gy)
    assert y.detach().cpu().numpy().tobytes() == data[index].tobytes()
    assert x.grad.cpu().numpy().tobytes() == expected_gx.tobytes()


def test_an_unchanged_size_is_a_copy(device):
    x = mt.tensor([[[[-0.0, 1.5], [2.0, -3.0]]]], device=device, requires_grad=True)
    y = mt.nn.functional.interpolate(x, size=(2, 2), mode="bilinear")
    assert y.detach().cpu().numpy().tobytes() == x.detach().cpu().numpy().tobytes()
    y.detach()[0, 0, 0, 0] = 7.0  # its own storage
    assert x.tolist()[0][0][0][0] == 0.0
