"""``torch.stft`` and ``torch.istft``: the short-time Fourier transform and its inverse,
composed as PyTorch composes them (pad, frames, window, one-dim transform of
``ops/fourier.py``; and back: inverse transform, window, overlap-add, division by the
window's squared overlap-add), so gradients come from the ops they are made of.
"""

from __future__ import annotations

from . import dtypes, factories, functions
from .caller_warnings import warn_at_caller
from .complex_functions import view_as_complex, view_as_real
from .functional_aliases import constant_pad_nd
from .ops.fourier import FftC2C, FftC2R, FftR2C

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied, which is "
              "known to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage. To suppress "
              "this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")
_REAL_OUTPUT = ("stft with return_complex=False is deprecated. In a future pytorch release, "
                "stft will return complex tensors for all inputs, and return_complex=False will "
                "raise an error.\nNote: you can still call torch.view_as_real on the complex "
                "output to recover the old return format.")
_ONESIDED_COMPLEX = "Cannot have onesided output if window or input is complex"


def _centered_window(window, win_length: int, n_fft: int, like):
    """``window`` (None: ones of ``like``'s real dtype) zero-padded on both sides to
    ``n_fft``, centred; None when there is neither a window nor padding (no product)."""
    left = (n_fft - win_length) // 2
    if window is None:
        if win_length == n_fft:
            return None
        dtype = like.dtype.to_real() if like.dtype.is_complex else like.dtype
        window = factories.ones(win_length, dtype=dtype, device=like.device)
    if win_length == n_fft:
        return window
    zeros = factories.zeros  # same dtype and device as the window
    return functions.cat([zeros(left, dtype=window.dtype, device=window.device), window,
                          zeros(n_fft - win_length - left, dtype=window.dtype,
                                device=window.device)])


def _pad_last(x, left: int, right: int, mode: str):
    """``x`` (batch, len) padded along its last dim by ``nn.functional.pad``, as a 3-D
    input (PyTorch's); a complex ``x`` as its real and imaginary parts, (2, batch, len)
    (the padding ops are real-only)."""
    from .nn.functional import pad

    if not x.dtype.is_complex:
        return pad(x.unsqueeze(0), [left, right], mode)[0]
    parts = view_as_real(x).movedim(-1, 0)
    return view_as_complex(pad(parts, [left, right], mode).movedim(0, -1).contiguous())


def _frames(x, n_fft: int, hop_length: int, n_frames: int):
    """``(batch, n_frames, n_fft)``: the windows ``hop_length`` apart of ``x`` (batch, len)."""
    device = x.device
    starts = factories.arange(n_frames, device=device).unsqueeze(1) * hop_length
    return x[:, starts + factories.arange(n_fft, device=device)]


def stft(input, n_fft: int, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: the transform of each ``n_fft``-long frame,
    ``hop_length`` (default ``n_fft // 4``) apart, times ``window`` (``win_length`` long,
    default ``n_fft``, centred; None: rectangular). ``center`` pads ``n_fft // 2`` on both
    sides by ``pad_mode`` so that frame ``t`` is centred on sample ``t * hop_length``;
    ``normalized`` divides by ``sqrt(n_fft)``; ``onesided`` (default: for real input and
    window) keeps ``n_fft // 2 + 1`` frequencies. ``return_complex`` must be given for real
    input (False, deprecated: ``view_as_real`` of the result, with PyTorch's warning).

    Shape:
        ``(L,)`` or ``(B, L)`` -> ``(freq, frames)`` or ``(B, freq, frames)``, complex
        (with a last dim of 2 real parts for ``return_complex=False``).
    """
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    is_complex = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    _check_stft(input, n_fft, hop_length, win_length, window, center, align_to_window,
                return_complex, is_complex)
    return_complex = True if return_complex is None else return_complex
    if window is None:
        warn_at_caller(_NO_WINDOW)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    length = x.shape[-1]
    if center:
        x = _pad_last(x, n_fft // 2, n_fft // 2, pad_mode)
        length = x.shape[-1]
    elif align_to_window:
        # frames start where the (centred) window starts, on sample 0
        left = (n_fft - win_length) // 2
        x = _pad_last(x, left, n_fft - win_length - left, "constant")
        length -= win_length - n_fft
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft} "
                           "(the padded signal must hold at least one frame)")
    frames = _frames(x, n_fft, hop_length, 1 + (length - n_fft) // hop_length)
    window = _centered_window(window, win_length, n_fft, input)
    if window is not None:
        frames = frames * window
    out = _transform(frames, onesided, normalized)
    out = functions._composed(out.transpose(1, 2), "TransposeBackward1")
    if input.dim() == 1:
        out = functions._composed(out.squeeze(0), "SqueezeBackward4")
    if not return_complex:
        warn_at_caller(_REAL_OUTPUT)
        return view_as_real(out)
    return out


def _check_stft(input, n_fft, hop_length, win_length, window, center, align_to_window,
                return_complex, is_complex) -> None:
    if align_to_window is not None and center:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if return_complex is None and not is_complex:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, got "
                           f"{input.dtype}")
    if input.dtype is dtypes.float16:
        raise RuntimeError("stft: Unsupported dtype Half (float32 and float64 only)")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got a {input.dim()}-D one")
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size "
                           f"{list(window.shape)}")


def _transform(frames, onesided, normalized):
    """The forward transform of each frame (the last dim)."""
    scale = "sqrt_n" if normalized else "none"
    if frames.dtype.is_complex:
        if onesided:
            raise RuntimeError(_ONESIDED_COMPLEX)
        return FftC2C(axes=(2,), inverse=False, scale=scale)(frames)
    onesided = True if onesided is None else onesided
    return FftR2C(axes=(2,), scale=scale, onesided=onesided)(frames)


def overlap_add(frames, hop_length: int):
    """``(batch, n_frames, n)`` frames ``hop_length`` apart summed into ``(batch,
    (n_frames - 1) * hop_length + n)``: each frame cut into ``ceil(n / hop_length)``
    hop-long chunks, chunk ``j`` of frame ``f`` landing on block ``f + j``."""
    batch, n_frames, n = frames.shape
    chunks = -(-n // hop_length)
    zeros = factories.zeros
    options = dict(dtype=frames.dtype, device=frames.device)
    if chunks * hop_length > n:
        frames = functions.cat([frames, zeros(batch, n_frames, chunks * hop_length - n,
                                              **options)], 2)
    pieces = frames.reshape(batch, n_frames, chunks, hop_length)
    total = None
    for j in range(chunks):
        placed = functions.cat([zeros(batch, j, hop_length, **options), pieces[:, :, j],
                                zeros(batch, chunks - 1 - j, hop_length, **options)], 1)
        total = placed if total is None else total + placed
    return total.reshape(batch, -1)[:, :(n_frames - 1) * hop_length + n]


def istft(input, n_fft: int, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of ``stft`` (with ``return_complex=True``): each frame's inverse
    transform times the window, overlap-added, divided by the window's squared
    overlap-add (which must not vanish anywhere: the "NOLA" condition); ``length`` crops
    or zero-pads the result. ``return_complex`` for a two-sided input gives a complex
    signal.

    Shape:
        ``(freq, frames)`` or ``(B, freq, frames)`` -> ``(L,)`` or ``(B, L)``.
    """
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    onesided = _check_istft(input, n_fft, hop_length, win_length, window, onesided,
                            return_complex)
    real_dtype = input.dtype.to_real()
    if window is None:
        window = factories.ones(win_length, dtype=real_dtype, device=input.device)
    window = _centered_window(window, win_length, n_fft, input)
    x = (input if input.dim() == 3 else input.unsqueeze(0)).transpose(1, 2)
    scale = "sqrt_n" if normalized else "n"
    if return_complex:
        frames = FftC2C(axes=(2,), inverse=True, scale=scale)(x)
    else:
        if not onesided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = FftC2R(axes=(2,), scale=scale, last_size=n_fft)(x)
    n_frames = frames.shape[1]
    y = overlap_add(frames * window.view(1, 1, n_fft), hop_length)
    envelope = overlap_add(window.pow(2).expand(1, n_frames, n_fft), hop_length)
    expected = n_fft + hop_length * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else expected)
    y, envelope = y[:, start:end], envelope[:, start:end]
    if y._backend.stores_data and bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError("istft: window overlap add min: 1 (the squared window's "
                           "overlap-add vanishes somewhere, so the signal cannot be recovered "
                           "there; use a window and hop_length whose frames overlap, e.g. "
                           "torch.hann_window(n_fft) with hop_length <= n_fft // 2)")
    y = y / envelope
    if input.dim() == 2:
        y = y.squeeze(0)
    if end > expected:
        warn_at_caller("The length of signal is shorter than the length parameter. Result is "
                       "being padded with zeros in the tail. Please check your center and "
                       "hop_length settings.")
        y = _pad_tail(y, end - expected)
    return y


def _pad_tail(y, count: int):
    if not y.dtype.is_complex:
        return constant_pad_nd(y, (0, count))
    shape = tuple(y.shape[:-1]) + (count,)
    return functions.cat([y, factories.zeros(shape, dtype=y.dtype, device=y.device)], -1)


def _check_istft(input, n_fft, hop_length, win_length, window, onesided,
                 return_complex) -> bool:
    """PyTorch's checks; the ``onesided`` in effect (default: the input has fewer
    frequencies than ``n_fft``)."""
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           f"from stft with return_complex=True (got {input.dtype}).")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a 2-D (freq, frames) or 3-D (batch, freq, "
                           f"frames) tensor, but got {input.dim()} dimensions")
    if input.numel() == 0:
        raise RuntimeError(f"istft: input tensor cannot be empty (got shape "
                           f"{list(input.shape)}).")
    fft_size = input.shape[-2]
    onesided = fft_size != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(f"istft: expected 0 < hop_length <= win_length (got hop_length="
                           f"{hop_length}, win_length={win_length})")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"istft: expected 0 < win_length <= n_fft (got win_length="
                           f"{win_length}, n_fft={n_fft})")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        raise RuntimeError("Invalid window shape. window has to be 1D and length of "
                           f"`win_length` ({win_length}), got {list(window.shape)}")
    if return_complex and onesided:
        raise RuntimeError(_ONESIDED_COMPLEX)
    if not return_complex and window is not None and window.dtype.is_complex:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    return onesided

