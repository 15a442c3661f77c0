"""Window functions: ``torch.*_window`` and ``torch.signal.windows`` against PyTorch, on
every device (values), on meta (shapes, dtypes, flags), and their errors."""

import numpy as np
import pytest
import torch
import torch.signal.windows as torch_windows

import minitorch_meta as mt
from tests.devices import tensor_device

TOP_LEVEL = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
             "kaiser_window"]
SIGNAL = list(torch_windows.__all__)
LENGTHS = [0, 1, 2, 3, 6, 9]
SIGNAL_KEYWORDS = {"general_cosine": {"a": [0.46, 0.31, 0.2, 0.03]}}


def _same(ours, theirs, device, atol=1e-6):
    assert ours.device == tensor_device(device)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.is_leaf and ours.grad_fn is None
    np.testing.assert_allclose(ours.cpu().numpy().astype(np.float64),
                               theirs.double().numpy(), atol=atol, rtol=0)


@pytest.mark.parametrize("name", TOP_LEVEL)
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_top_level_windows_match_torch(device, name, length, periodic, dtype):
    ours = getattr(mt, name)(length, periodic, dtype=getattr(mt, dtype), device=device)
    theirs = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype))
    _same(ours, theirs, device, atol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_defaults_are_periodic_in_the_default_dtype(device, name):
    _same(getattr(mt, name)(7, device=device), getattr(torch, name)(7), device)
    mt.set_default_dtype(mt.float64)
    try:
        assert getattr(mt, name)(3, device=device).dtype == mt.float64
    finally:
        mt.set_default_dtype(mt.float32)


def test_hamming_and_kaiser_parameters(device):
    _same(mt.hamming_window(8, False, 0.6, device=device), torch.hamming_window(8, False, 0.6),
          device)
    _same(mt.hamming_window(8, True, 0.5, 0.3, device=device),
          torch.hamming_window(8, True, 0.5, 0.3), device)
    for beta in (0.0, 2.5, 30.0):
        _same(mt.kaiser_window(10, False, beta, device=device),
              torch.kaiser_window(10, False, beta), device, atol=1e-6)


def test_half_windows_are_rounded_once(device):
    ours = mt.hann_window(8, dtype=mt.float16, device=device)
    _same(ours, torch.hann_window(8, dtype=torch.float16), device, atol=1e-3)


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_requires_grad_gives_a_leaf(device, name):
    window = getattr(mt, name)(5, requires_grad=True, device=device)
    assert window.requires_grad and window.is_leaf
    window.sum().backward()
    np.testing.assert_array_equal(window.grad.cpu().numpy(), np.ones(5, np.float32))


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_meta_windows_are_shapes(name):
    for length, periodic in ((0, True), (1, False), (6, True), (6, False)):
        window = getattr(mt, name)(length, periodic, dtype=mt.float64, device="meta",
                                   requires_grad=True)
        assert window.device == mt.device("meta")
        assert tuple(window.shape) == (length,) and window.dtype == mt.float64
        assert window.requires_grad
    with mt.device("meta"):
        assert getattr(mt, name)(4).device == mt.device("meta")


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_errors_match_torch(name):
    cases = [((-1,), {}, RuntimeError, "requires non-negative window_length, got "
              "window_length=-1"),
             ((3,), {"dtype": "int64"}, RuntimeError, "expects floating point dtypes"),
             ((-1,), {"dtype": "int32"}, RuntimeError, "expects floating point dtypes"),
             ((3.0,), {}, TypeError, "argument 'window_length' (position 1) must be int, not "
              "float"),
             ((True,), {}, TypeError, "must be int, not bool")]
    for args, kwargs, error, message in cases:
        for module in (torch, mt):
            options = {k: getattr(module, v) for k, v in kwargs.items()}
            with pytest.raises(error, match=None) as info:
                getattr(module, name)(*args, **options)
            assert message in str(info.value), (module, str(info.value))
            assert str(info.value).startswith(name) or error is TypeError


def test_sparse_layout_is_refused():
    with pytest.raises(RuntimeError, match="hann_window is not implemented for sparse types"):
        mt.hann_window(3, layout=torch.sparse_coo)
    assert mt.hann_window(3, layout=torch.strided).shape == (3,)


@pytest.mark.parametrize("name", SIGNAL)
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signal_windows_match_torch(device, name, length, sym, dtype):
    keywords = SIGNAL_KEYWORDS.get(name, {})
    ours = getattr(mt.signal.windows, name)(length, sym=sym, dtype=getattr(mt, dtype),
                                            device=device, **keywords)
    theirs = getattr(torch_windows, name)(length, sym=sym, dtype=getattr(torch, dtype),
                                          **keywords)
    _same(ours, theirs, device, atol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("name, keywords", [
    ("exponential", {"tau": 0.5}), ("exponential", {"tau": 3.0, "center": 2.0, "sym": False}),
    ("gaussian", {"std": 0.7}), ("gaussian", {"std": 2.5, "sym": False}),
    ("general_hamming", {"alpha": 0.6}), ("kaiser", {"beta": 0.0}),
    ("kaiser", {"beta": 4.5, "sym": False}), ("general_cosine", {"a": (1.0,)}),
])
def test_signal_window_parameters(device, name, keywords):
    ours = getattr(mt.signal.windows, name)(9, device=device, **keywords)
    theirs = getattr(torch_windows, name)(9, **keywords)
    _same(ours, theirs, device)


def test_signal_window_defaults_and_meta():
    _same(mt.signal.windows.hann(5), torch_windows.hann(5), "cpu")
    window = mt.signal.windows.kaiser(6, sym=False, device="meta", dtype=mt.float64,
                                      requires_grad=True)
    assert tuple(window.shape) == (6,) and window.dtype == mt.float64 and window.requires_grad
    assert mt.signal.windows.cosine(1, device="meta").shape == (1,)


@pytest.mark.parametrize("call, error, message", [
    (lambda w, m: w.hann(-2), ValueError,  # PyTorch names the function hann calls
     "general_cosine requires non-negative window length, got M=-2"),
    (lambda w, m: w.bartlett(-1), ValueError, "bartlett requires non-negative window length"),
    (lambda w, m: w.gaussian(3, dtype=m.float16), ValueError,
     "gaussian expects float32 or float64 dtypes, got: torch.float16"),
    (lambda w, m: w.cosine(3, dtype=m.int64), ValueError, "expects float32 or float64 dtypes"),
    (lambda w, m: w.exponential(3, tau=0.0), ValueError, "Tau must be positive, got: 0.0"),
    (lambda w, m: w.exponential(3, center=1.0), ValueError,
     "Center must be None for symmetric windows"),
    (lambda w, m: w.gaussian(3, std=-1.0), ValueError, "Standard deviation must be positive"),
    (lambda w, m: w.kaiser(3, beta=-1.0), ValueError, "beta must be non-negative, got: -1.0"),
    (lambda w, m: w.general_cosine(3, a=[]), ValueError, "Coefficients cannot be empty"),
    (lambda w, m: w.general_cosine(3, a=2.0), TypeError, "Coefficients must be a list/tuple"),
    (lambda w, m: w.bartlett(3, layout=torch.sparse_coo), ValueError,
     "bartlett is implemented for strided tensors only"),
])
def test_signal_errors_match_torch(call, error, message):
    for windows, module in ((torch_windows, torch), (mt.signal.windows, mt)):
        with pytest.raises(error) as info:
            call(windows, module)
        assert message in str(info.value), (module, str(info.value))


def test_signal_one_point_windows_skip_coefficient_checks():
    for module in (torch_windows, mt.signal.windows):
        assert module.general_cosine(1, a=[]).tolist() == [1.0]
