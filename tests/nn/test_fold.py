"""F.unfold / F.fold and nn.Unfold / nn.Fold: values, gradients (each the other's adjoint),
meta shapes, dtypes, unbatched inputs, reprs and errors, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.ops.harness import Arg, Case, three_way_tests

GEOMETRIES = {  # id: (input (N, C, H, W), kernel_size, dilation, padding, stride)
    "plain": ((2, 3, 5, 6), 2, 1, 0, 1),
    "tuple_args": ((2, 2, 7, 8), (2, 3), (2, 1), (1, 2), (2, 3)),
    "strided_gaps": ((1, 2, 9, 9), 2, 1, 0, 3),  # blocks leave inputs out
    "overlap_padding": ((2, 1, 4, 5), 3, 1, 1, 1),
    "dilated": ((1, 3, 8, 7), (3, 2), 2, (0, 1), (1, 2)),
    "one_block": ((2, 2, 3, 4), (3, 4), 1, 0, 1),
    "list_args": ((1, 2, 6, 6), [2, 2], [1, 1], [1, 0], [2, 1]),
}


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _blocks(shape, kernel_size, dilation, padding, stride):
    """(C*kH*kW, L) of an unfold of ``shape``, by PyTorch's formula."""
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    L = 1
    for size, ki, di, pi, si in zip(shape[-2:], k, d, p, s):
        L *= (size + 2 * pi - di * (ki - 1) - 1) // si + 1
    return shape[-3] * k[0] * k[1], L


def _cases():
    cases = []
    for name, (shape, kernel, dilation, padding, stride) in GEOMETRIES.items():
        geometry = dict(kernel_size=kernel, dilation=dilation, padding=padding, stride=stride)
        cases.append(Case(f"unfold_{name}", lambda T, F, x, g=geometry: F.unfold(x, **g),
                          [Arg(shape)]))
        cases.append(Case(f"fold_{name}",
                          lambda T, F, c, g=geometry, hw=shape[-2:]: F.fold(c, hw, **g),
                          [Arg((shape[0],) + _blocks(shape, **geometry))]))
    cases += [
        Case("unfold_unbatched", lambda T, F, x: F.unfold(x, 2, padding=1), [Arg((3, 4, 5))]),
        Case("fold_unbatched", lambda T, F, c: F.fold(c, (4, 5), 2, padding=1),
             [Arg((12, 30))]),
        Case("unfold_empty_batch", lambda T, F, x: F.unfold(x, 2), [Arg((0, 2, 3, 3))]),
        Case("fold_empty_batch", lambda T, F, c: F.fold(c, 3, 2), [Arg((0, 8, 4))]),
        Case("unfold_module", lambda T, F, x: T.nn.Unfold((2, 3), stride=2)(x),
             [Arg((2, 2, 5, 7))]),
        Case("fold_module", lambda T, F, c: T.nn.Fold((5, 7), (2, 3), stride=2)(c),
             [Arg((2, 12, 6))]),
        Case("fold_of_unfold", lambda T, F, x: F.fold(F.unfold(x, 3, padding=1), (4, 4), 3,
                                                      padding=1), [Arg((2, 2, 4, 4))]),
    ]
    return cases


CASES = _cases()
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_unfold_columns_hold_pytorch_order(device):
    # Row c*kH*kW + i*kW + j is tap (i, j) of channel c; blocks run row-major.
    x = mt.arange(2 * 3 * 4, dtype=mt.float32, device=device).reshape(1, 2, 3, 4)
    cols = mF.unfold(x, (2, 3))
    assert cols.shape == (1, 12, 4)
    assert cols[0, :, 0].tolist() == [0, 1, 2, 4, 5, 6, 12, 13, 14, 16, 17, 18]
    assert cols[0, 5, :].tolist() == [6, 7, 10, 11]


def test_fold_adds_overlaps(device):
    # Each position counts how many 2x2 blocks of stride 1 cover it.
    ones = mt.ones(1, 4, 9, device=device)
    counts = mF.fold(ones, 4, 2)
    assert counts[0, 0].tolist() == [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]]


def test_unfold_and_fold_are_adjoint(device):
    # <unfold(x), c> == <x, fold(c)>, with padding and dilation cutting windows.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 7))
    geometry = dict(kernel_size=(3, 2), dilation=(1, 2), padding=(1, 1), stride=(2, 1))
    cols = mF.unfold(mt.tensor(x, device=device), **geometry)
    c = rng.standard_normal(tuple(cols.shape))
    back = mF.fold(mt.tensor(c, device=device), (6, 7), **geometry)
    np.testing.assert_allclose((cols.cpu().numpy() * c).sum(), (x * back.cpu().numpy()).sum())


@pytest.mark.parametrize("dtype", ["float16", "float64", "bool"])
def test_dtypes_as_pytorch(dtype, device, torch_ref):
    x = np.random.default_rng(0).standard_normal((2, 8, 4)) > 0 if dtype == "bool" else (
        np.random.default_rng(0).standard_normal((2, 8, 4)).astype(dtype))
    ours = mF.fold(mt.tensor(x, device=device), 3, 2)
    theirs = torch_ref.nn.functional.fold(torch_ref.tensor(x), 3, 2)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().numpy().astype(float), theirs.numpy().astype(float),
                               rtol=1e-3)
    image = x.reshape(2, 2, 4, 4)
    ours = mF.unfold(mt.tensor(image, device=device), 2, padding=1)
    theirs = torch_ref.nn.functional.unfold(torch_ref.tensor(image), 2, padding=1)
    assert str(ours.dtype) == str(theirs.dtype)
    assert np.array_equal(ours.cpu().numpy(), theirs.numpy())


def test_unbatched_grad_fn_names(device):
    x = mt.randn(3, 4, 4, device=device, requires_grad=True)
    assert mF.unfold(x, 2).grad_fn.name() == "Im2ColBackward0"
    c = mt.randn(12, 9, device=device, requires_grad=True)
    assert mF.fold(c, 4, 2).grad_fn.name() == "Col2ImBackward0"


def test_reprs_as_pytorch(torch_ref):
    for args, kwargs in [((2,), {}), (((2, 3),), dict(dilation=2, padding=1, stride=(1, 2)))]:
        assert repr(mt.nn.Unfold(*args, **kwargs)) == repr(torch_ref.nn.Unfold(*args, **kwargs))
        assert (repr(mt.nn.Fold((4, 5), *args, **kwargs))
                == repr(torch_ref.nn.Fold((4, 5), *args, **kwargs)))


UNFOLD_ERRORS = [  # (input shape, kwargs, our error message)
    ((1, 1, 4, 4), dict(kernel_size=0, dilation=0),
     "unfold: kernel size should be greater than zero, but got kernel_height: 0 "
     "kernel_width: 0"),
    ((1, 1, 4, 4), dict(kernel_size=1, dilation=0, padding=-1, stride=0),
     "unfold: dilation should be greater than zero, but got dilation_height: 0 "
     "dilation_width: 0"),
    ((1, 1, 4, 4), dict(kernel_size=1, padding=-1, stride=0),
     "unfold: padding should be non-negative, but got pad_height: -1 pad_width: -1"),
    ((1, 1, 4, 4), dict(kernel_size=1, stride=(1, 0)),
     "unfold: stride should be greater than zero, but got stride_height: 1 stride_width: 0"),
    ((1, 1, 4, 4), dict(kernel_size=(2, 2, 2)),
     "unfold: It is expected kernel_size equals to 2, but got size 3"),
    ((1, 1, 4, 4, 4), dict(kernel_size=2),
     "unfold: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with non-zero C, H and W "
     "(only N may be 0), but got an input of shape (1, 1, 4, 4, 4)"),
    ((1, 0, 4, 4), dict(kernel_size=2),
     "unfold: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with non-zero C, H and W "
     "(only N may be 0), but got an input of shape (1, 0, 4, 4)"),
    ((1, 1, 4, 4), dict(kernel_size=3, dilation=2),
     "unfold: Given input with spatial size (4, 4), kernel_size=(3, 3), dilation=(2, 2), "
     "padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), but its "
     "components must be at least one; use a smaller kernel_size or dilation, or more "
     "padding"),
]

FOLD_ERRORS = [  # (input shape, output_size, kwargs, our error message)
    ((1, 8, 4), 3, dict(kernel_size=0, stride=0),
     "fold: kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    ((1, 8, 4), 3, dict(kernel_size=2, stride=0, dilation=0),
     "fold: stride should be greater than zero, but got stride_height: 0 stride_width: 0"),
    ((1, 8, 4), 3, dict(kernel_size=2, dilation=0, padding=-1),
     "fold: dilation should be greater than zero, but got dilation_height: 0 "
     "dilation_width: 0"),
    ((1, 8, 4), 3, dict(kernel_size=2, padding=(0, -1)),
     "fold: padding should be non-negative, but got pad_height: 0 pad_width: -1"),
    ((1, 8, 4, 4), 3, dict(kernel_size=2),
     "fold: expected a 2-D (C * kH * kW, L) or 3-D (N, C * kH * kW, L) input with non-zero "
     "sizes (only N may be 0), but got an input of shape (1, 8, 4, 4)"),
    ((1, 8, 0), 3, dict(kernel_size=2),
     "fold: expected a 2-D (C * kH * kW, L) or 3-D (N, C * kH * kW, L) input with non-zero "
     "sizes (only N may be 0), but got an input of shape (1, 8, 0)"),
    ((1, 7, 4), 3, dict(kernel_size=2),
     "fold: Expected size of input's dimension 1 to be divisible by the product of "
     "kernel_size, but got input.size(1)=7 and kernel_size=(2, 2)"),
    ((1, 8, 5), 3, dict(kernel_size=2),
     "fold: Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
     "sliding blocks 2 * 2 = 4, but got input.size(2)=5"),
    ((1, 8, 16), -3, dict(kernel_size=2),
     "fold: Given output_size=(-3, -3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
     "stride=(1, 1), calculated shape of the array of sliding blocks as (-4, -4), which is "
     "too small (non-positive)"),
    ((1, 8, 4), (3, 3, 3), dict(kernel_size=2),
     "fold: It is expected output_size equals to 2, but got size 3"),
]


def _same_error(call, torch_call, shape, message, torch_ref):
    """Ours raises PyTorch's error type, with ``message``, on cpu and meta alike."""
    with pytest.raises(Exception) as theirs:
        torch_call(torch_ref.ones(shape))
    for device in ("cpu", "meta"):
        with pytest.raises(type(theirs.value)) as ours:
            call(mt.ones(shape, device=device))
        assert str(ours.value) == message, device


@pytest.mark.parametrize("shape, kwargs, message", UNFOLD_ERRORS)
def test_unfold_errors_as_pytorch(shape, kwargs, message, torch_ref):
    _same_error(lambda x: mF.unfold(x, **kwargs),
                lambda x: torch_ref.nn.functional.unfold(x, **kwargs), shape, message, torch_ref)


@pytest.mark.parametrize("shape, output_size, kwargs, message", FOLD_ERRORS)
def test_fold_errors_as_pytorch(shape, output_size, kwargs, message, torch_ref):
    _same_error(lambda c: mF.fold(c, output_size, **kwargs),
                lambda c: torch_ref.nn.functional.fold(c, output_size, **kwargs), shape, message,
                torch_ref)


def test_unfold_of_too_few_dimensions_is_an_index_error(torch_ref):
    _same_error(lambda x: mF.unfold(x, 2), lambda x: torch_ref.nn.functional.unfold(x, 2),
                (4, 4), "unfold: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input with "
                "non-zero C, H and W (only N may be 0), but got an input of shape (4, 4)",
                torch_ref)


@pytest.mark.parametrize("call", [lambda x: mF.unfold(x, 2.0),
                                  lambda x: mF.unfold(x, (2, 2.5))])
def test_non_int_sizes_are_type_errors(call):
    with pytest.raises(TypeError, match="kernel_size"):
        call(mt.ones(1, 1, 4, 4))


@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.uint8])
def test_integers_not_implemented_as_pytorch(dtype):
    with pytest.raises(NotImplementedError, match="not implemented for"):
        mF.unfold(mt.ones(1, 1, 4, 4, dtype=dtype), 2)
    with pytest.raises(NotImplementedError, match="not implemented for"):
        mF.fold(mt.ones(1, 4, 4, dtype=dtype), 3, 2)
