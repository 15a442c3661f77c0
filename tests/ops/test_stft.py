"""torch.stft / torch.istft: values, dtypes, grad_fn names and gradients (signal and
window) against PyTorch, complex finite differences, meta shapes; padding modes, windows
shorter than n_fft, align_to_window, normalized, onesided, return_complex, length;
PyTorch's warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.complex_harness import ComplexCase as C
from tests.ops.complex_harness import complex_three_way_tests

N = 8


def _stft(**kw):
    return lambda T, x, w: T.stft(x, N, window=w, return_complex=True, **kw)


def _round_trip(**kw):
    def fn(T, x, w):
        spectrum = T.stft(x, N, hop_length=2, window=w, return_complex=True)
        return T.istft(spectrum, N, hop_length=2, window=w, **kw)
    return fn


WINDOW = ("p", (N,))  # positive: the window's squared overlap-add never vanishes
CASES = [
    C("stft", _stft(), [("r", (2, 12)), WINDOW]),
    C("stft_1d", _stft(hop_length=3), [("r", (12,)), WINDOW]),
    C("stft_constant_pad_normalized", _stft(pad_mode="constant", normalized=True),
      [("r", (12,)), WINDOW]),
    C("stft_replicate_two_sided", _stft(pad_mode="replicate", onesided=False),
      [("r", (2, 10)), WINDOW]),
    C("stft_circular", _stft(pad_mode="circular", hop_length=5), [("r", (1, 11)), WINDOW]),
    C("stft_not_centered", _stft(center=False, hop_length=1), [("r", (10,)), WINDOW]),
    C("stft_complex_input", _stft(), [("c", (12,)), WINDOW]),
    C("stft_complex_window", _stft(center=False), [("r", (2, 10)), ("c", (N,))]),
    C("stft_short_window",
      lambda T, x, w: T.stft(x, N, hop_length=2, win_length=5, window=w, return_complex=True),
      [("r", (11,)), ("p", (5,))]),
    C("stft_align_to_window",
      lambda T, x, w: T.stft(x, N, hop_length=2, win_length=6, window=w, center=False,
                             align_to_window=True, return_complex=True),
      [("r", (11,)), ("p", (6,))]),
    C("stft_method", lambda T, x, w: x.stft(N, window=w, return_complex=True) * 1,
      [("r", (12,)), WINDOW]),
    C("istft_round_trip", _round_trip(), [("r", (2, 12)), WINDOW]),
    C("istft_length_crop", _round_trip(length=9), [("r", (12,)), WINDOW]),
    C("istft_normalized_not_centered",
      lambda T, s, w: T.istft(s, N, hop_length=2, window=w, normalized=True, center=False),
      [("c", (5, 4)), WINDOW]),
    C("istft_two_sided", lambda T, s, w: T.istft(s, N, hop_length=3, window=w),
      [("c", (2, N, 5)), WINDOW]),
    C("istft_return_complex",
      lambda T, s, w: T.istft(s, N, hop_length=2, window=w, return_complex=True),
      [("c", (N, 5)), WINDOW]),
    C("istft_short_window",
      lambda T, s, w: T.istft(s, N, hop_length=2, win_length=6, window=w),
      [("c", (5, 6)), ("p", (6,))]),
    C("istft_method", lambda T, s, w: s.istft(N, hop_length=2, window=w) * 1,
      [("c", (5, 4)), WINDOW]),
]

test_gradcheck, test_against_torch, test_meta_shapes = complex_three_way_tests(CASES)


def test_istft_inverts_stft(device):
    x = mt.randn(3, 50, dtype=mt.float64, device=device)
    window = mt.hann_window(16, dtype=mt.float64, device=device)
    spectrum = mt.stft(x, 16, hop_length=4, window=window, return_complex=True)
    assert spectrum.shape == (3, 9, 13) and spectrum.device == tensor_device(device)
    back = mt.istft(spectrum, 16, hop_length=4, window=window, length=50)
    np.testing.assert_allclose(back.cpu().numpy(), x.cpu().numpy(), atol=1e-12)


def test_stft_dtypes(torch_ref):
    x = mt.ones(20, dtype=mt.float64)
    assert mt.stft(x, 8, window=mt.ones(8), return_complex=True).dtype is mt.complex128
    assert mt.stft(x.float(), 8, window=mt.ones(8, dtype=mt.float64),
                   return_complex=True).dtype is mt.complex128
    with pytest.raises(RuntimeError, match="Half"):
        mt.stft(x.half(), 8, window=mt.ones(8), return_complex=True)


def _warned_calls(T, x):
    """stft without a window, stft to real pairs, istft to a longer length."""
    with warnings.catch_warnings(record=True) as caught:  # PyTorch's warn once a process
        warnings.simplefilter("always")
        out = T.stft(T.tensor(x), 8, return_complex=True)
        real = T.stft(T.tensor(x), 8, window=T.ones(8, dtype=T.float64), return_complex=False)
        padded = T.istft(out, 8, length=30)
    return [r.detach().cpu().numpy() for r in (out, real, padded)], caught


def test_warnings_and_results_as_torch(torch_ref):
    x = np.random.default_rng(0).standard_normal(20)
    ours, caught = _warned_calls(mt, x)
    theirs, _ = _warned_calls(torch_ref, x)
    messages = " ".join(str(w.message) for w in caught)
    assert "A window was not provided" in messages
    assert "stft with return_complex=False is deprecated" in messages
    assert "The length of signal is shorter than the length parameter" in messages
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert ours[1].shape == (5, 11, 2) and ours[2].shape == (30,)


def test_meta_shapes_without_data():
    x = mt.empty(4, 1000, device="meta")
    spectrum = mt.stft(x, 64, window=mt.ones(64, device="meta"), return_complex=True)
    assert spectrum.is_meta and spectrum.shape == (4, 33, 63)
    back = mt.istft(spectrum, 64, window=mt.ones(64, device="meta"), length=1000)
    assert back.is_meta and back.shape == (4, 1000) and back.dtype is mt.float32


X = (2, 40)
ERRORS = [
    ("no_return_complex", lambda T, x, z: T.stft(x, 16), "return_complex parameter be given"),
    ("n_fft_too_long", lambda T, x, z: T.stft(x, 64, center=False, return_complex=True),
     "expected 0 < n_fft < 40, but got n_fft=64"),
    ("hop_zero", lambda T, x, z: T.stft(x, 16, hop_length=0, return_complex=True),
     "expected hop_length > 0, but got hop_length=0"),
    ("win_too_long", lambda T, x, z: T.stft(x, 16, win_length=20, return_complex=True),
     "expected 0 < win_length <= n_fft, but got win_length=20"),
    ("window_size", lambda T, x, z: T.stft(x, 16, window=T.ones(5), return_complex=True),
     "expected a 1D window tensor of size equal to win_length=16"),
    ("three_dims", lambda T, x, z: T.stft(x[None], 16, return_complex=True),
     "expected a 1D or 2D tensor"),
    ("integer", lambda T, x, z: T.stft(x.long(), 16, return_complex=True),
     "expected a tensor of floating point or complex values"),
    ("onesided_complex", lambda T, x, z: T.stft(z, 16, onesided=True, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    ("align_centered", lambda T, x, z: T.stft(x, 16, align_to_window=True,
                                              return_complex=True),
     "align_to_window should only be set when center = false"),
    ("reflect_too_short", lambda T, x, z: T.stft(x[:, :6], 16, return_complex=True),
     "Padding size should be less than the corresponding input dimension"),
    ("istft_real", lambda T, x, z: T.istft(x[:, :9], 16),
     "istft requires a complex-valued input tensor"),
    ("istft_frequencies", lambda T, x, z: T.istft(z[:8, :5], 16),
     "expected the frequency dimension \\(3rd to the last\\) of the input tensor to match "
     "n_fft / 2 \\+ 1"),
    ("istft_hop", lambda T, x, z: T.istft(z[:9, :5], 16, hop_length=20),
     "expected 0 < hop_length <= win_length"),
    ("istft_empty", lambda T, x, z: T.istft(z[:9, :0], 16), "input tensor cannot be empty"),
    ("istft_onesided_complex", lambda T, x, z: T.istft(z[:9, :5], 16, return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    ("istft_window_shape", lambda T, x, z: T.istft(z[:9, :5], 16, window=T.ones(3)),
     "Invalid window shape. window has to be 1D and length of `win_length`"),
    ("istft_nola", lambda T, x, z: T.istft(z[:9, :5], 16, window=T.zeros(16)),
     "window overlap add min"),
]


@pytest.mark.parametrize("make, message", [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors_as_torch(make, message, torch_ref):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rectangular-window warning before some errors
        with pytest.raises(RuntimeError, match=message):
            make(torch_ref, torch_ref.ones(X), torch_ref.ones((9, 40), dtype=torch_ref.complex64))
        with pytest.raises(RuntimeError, match=message):
            make(mt, mt.ones(X), mt.ones((9, 40), dtype=mt.complex64))
