"""torch.fft: every transform's values, dtypes, ``grad_fn`` names and gradients against
PyTorch (float32/complex64 and float64/complex128), complex finite differences on real and
imaginary parts, meta shapes; ``n``/``s`` padding and cropping, ``dim`` forms, ``norm``
modes, dtype promotion, ``out=``, second-order gradients, errors; the helpers fftfreq,
rfftfreq, fftshift and ifftshift."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.complex_harness import ComplexCase as C
from tests.ops.complex_harness import complex_three_way_tests

S = (3, 4)


def _f(name, **kw):
    return lambda T, x: getattr(T.fft, name)(x, **kw)


CASES = [
    # 1-D complex to complex, and a real input's full transform (FftR2CBackward0)
    C("fft", _f("fft"), [("c", S)]),
    C("fft_real", _f("fft"), [("r", S)]),
    C("fft_pad_dim0", _f("fft", n=5, dim=0), [("c", S)]),
    C("fft_crop_ortho", _f("fft", n=3, norm="ortho"), [("c", S)]),
    C("fft_real_crop_forward", _f("fft", n=2, dim=-2, norm="forward"), [("r", S)]),
    C("ifft", _f("ifft"), [("c", S)]),
    C("ifft_real", _f("ifft", n=6), [("r", S)]),
    C("ifft_forward", _f("ifft", norm="forward"), [("c", (5,))]),
    # real <-> complex, odd and even lengths (the one-sided halving and doubling)
    C("rfft_even", _f("rfft"), [("r", S)]),
    C("rfft_odd", _f("rfft", n=5), [("r", S)]),
    C("rfft_dim0_ortho", _f("rfft", dim=0, norm="ortho"), [("r", S)]),
    C("irfft", _f("irfft"), [("c", S)]),
    C("irfft_odd", _f("irfft", n=5), [("c", S)]),
    C("irfft_pad", _f("irfft", n=10, norm="ortho"), [("c", S)]),
    C("irfft_crop_dim0", _f("irfft", n=2, dim=0, norm="forward"), [("c", S)]),
    C("irfft_real", _f("irfft", n=7), [("r", S)]),
    C("hfft", _f("hfft"), [("c", S)]),
    C("hfft_odd_ortho", _f("hfft", n=5, norm="ortho"), [("c", S)]),
    C("hfft_real", _f("hfft", dim=0), [("r", S)]),
    C("ihfft", _f("ihfft"), [("r", S)]),
    C("ihfft_odd_forward", _f("ihfft", n=5, norm="forward"), [("r", S)]),
    # 2-D and n-D
    C("fft2", _f("fft2"), [("c", (2, 3, 4))]),
    C("fft2_real_s", _f("fft2", s=(2, 5)), [("r", S)]),
    C("ifft2_dims", _f("ifft2", dim=(0, -1), norm="ortho"), [("c", (2, 3, 4))]),
    C("fftn_all", _f("fftn"), [("c", (2, 3, 2))]),
    C("fftn_s_minus_one", _f("fftn", s=(-1, 3)), [("c", S)]),
    C("fftn_no_dims", _f("fftn", dim=()), [("c", S)]),
    C("ifftn_dims_reversed", _f("ifftn", dim=(1, 0), norm="forward"), [("r", S)]),
    C("rfft2", _f("rfft2"), [("r", S)]),
    C("rfftn_s", _f("rfftn", s=(2, 5)), [("r", S)]),
    C("rfftn_dims", _f("rfftn", dim=(-1, 0), norm="ortho"), [("r", (3, 2, 4))]),
    C("irfft2", _f("irfft2"), [("c", S)]),
    C("irfftn_s_odd", _f("irfftn", s=(4, 5)), [("c", S)]),
    C("irfftn_dims", _f("irfftn", dim=(1, 0), norm="forward"), [("c", S)]),
    C("hfft2", _f("hfft2"), [("c", S)]),
    C("hfftn_s", _f("hfftn", s=(2, 5), norm="ortho"), [("c", S)]),
    C("ihfft2", _f("ihfft2"), [("r", S)]),
    C("ihfftn_s", _f("ihfftn", s=(2, 5), norm="forward"), [("r", S)]),
    C("ihfftn_one_dim", _f("ihfftn", dim=(0,)), [("r", S)]),
    # the helpers, real and complex
    C("fftshift", lambda T, x: T.fft.fftshift(x) * 1, [("r", (3, 4))]),
    C("fftshift_complex_dim", lambda T, z: T.fft.fftshift(z, dim=-1) * 1, [("c", (3, 5))]),
    C("ifftshift", lambda T, x: T.fft.ifftshift(x, dim=(0,)) * 1, [("r", (5, 2))]),
    C("ifftshift_complex", lambda T, z: T.fft.ifftshift(z) * 1, [("c", (3, 4))]),
    # round trips
    C("irfft_of_rfft", lambda T, x: T.fft.irfft(T.fft.rfft(x), n=5), [("r", (2, 5))]),
    C("ifftshift_fft", lambda T, z: T.fft.ifft(T.fft.ifftshift(T.fft.fft(z))), [("c", (5,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = complex_three_way_tests(CASES)


# -- dtypes ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "fft2", "rfftn"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32", "float64"])
def test_real_and_integer_inputs_are_promoted_as_torch(name, dtype, device, torch_ref):
    x = mt.ones(2, 4, dtype=getattr(mt, dtype), device=device)
    ref = getattr(torch_ref.fft, name)(torch_ref.ones(2, 4, dtype=getattr(torch_ref, dtype)))
    out = getattr(mt.fft, name)(x)
    assert str(out.dtype) == str(ref.dtype)
    assert out.device == tensor_device(device)
    np.testing.assert_allclose(out.cpu().numpy(), ref.resolve_conj().numpy(), atol=1e-6)


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfftn", "hfft2"])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex64", "complex128"])
def test_transforms_to_real_give_the_real_dtype(name, dtype, device, torch_ref):
    ref = getattr(torch_ref.fft, name)(torch_ref.ones(3, 3, dtype=getattr(torch_ref, dtype)))
    out = getattr(mt.fft, name)(mt.ones(3, 3, dtype=getattr(mt, dtype), device=device))
    assert str(out.dtype) == str(ref.dtype) and tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.cpu().numpy(), ref.resolve_conj().numpy(), atol=1e-6)


def test_integer_input_follows_the_default_dtype(torch_ref):
    previous = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.fft.fft(mt.arange(4)).dtype is mt.complex128
        assert mt.fft.irfft(mt.arange(4)).dtype is mt.float64
    finally:
        mt.set_default_dtype(previous)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn"])
def test_float16_is_refused_as_torch_on_cpu(name, torch_ref):
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        getattr(torch_ref.fft, name)(torch_ref.ones(4, dtype=torch_ref.float16))
    with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
        getattr(mt.fft, name)(mt.ones(4, dtype=mt.float16))


def test_values_of_a_known_signal(device):
    # a cosine of frequency 1 over 8 samples: half its energy at +1, half at -1
    t = mt.arange(8, dtype=mt.float64, device=device)
    x = mt.cos(2 * np.pi * t / 8)
    spectrum = mt.fft.rfft(x)
    np.testing.assert_allclose(spectrum.cpu().numpy(), [0, 4, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(mt.fft.irfft(spectrum).cpu().numpy(), x.cpu().numpy(),
                               atol=1e-12)


def test_rfft_gradient_counts_the_mirrored_half_once(device):
    # |rfft(x)|^2 summed: the DC and Nyquist terms once, the others once (not mirrored)
    x = mt.tensor([1.0, 2.0, -1.0, 0.5], dtype=mt.float64, device=device, requires_grad=True)
    mt.fft.rfft(x).abs().pow(2).sum().backward()
    n, a = 4, np.array([1.0, 2.0, -1.0, 0.5])
    basis = np.exp(-2j * np.pi * np.outer(np.arange(3), np.arange(n)) / n)
    expected = 2 * np.real(np.conj(basis).T @ (basis @ a))
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, atol=1e-12)


# -- out= --------------------------------------------------------------------------------
def test_out_argument(device, torch_ref):
    x = mt.arange(6, dtype=mt.float32, device=device)
    out = mt.empty(6, dtype=mt.complex64, device=device)
    assert mt.fft.fft(x, out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), np.fft.fft(np.arange(6)), atol=1e-5)
    wide = mt.empty(0, dtype=mt.complex128, device=device)
    mt.fft.rfft(x, out=wide)  # a wider dtype of the same kind takes the result
    assert wide.shape == (4,) and wide.dtype is mt.complex128
    real = mt.empty(4, dtype=mt.float64, device=device)
    mt.fft.irfft(mt.fft.rfft(x)[:3], out=real)
    assert real.shape == (4,)
    with pytest.raises(RuntimeError):
        torch_ref.fft.fft(torch_ref.arange(6.0), out=torch_ref.empty(6))
    with pytest.raises(RuntimeError):
        mt.fft.fft(x, out=mt.empty(6, device=device))  # a complex result into a float


def test_out_argument_of_the_frequencies(torch_ref):
    out = mt.empty(5, dtype=mt.float64)
    assert mt.fft.fftfreq(5, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch_ref.fft.fftfreq(5).numpy())


# -- second order ------------------------------------------------------------------------
SECOND_ORDER = [("fft", "r"), ("ifft", "r"), ("rfft", "r"), ("irfft", "c"), ("hfft", "c"),
                ("ihfft", "r"), ("fft2", "c"), ("rfftn", "r"), ("irfftn", "c"),
                ("hfftn", "c"), ("ihfftn", "r"),
                ("fftn", "r")]  # a real input promoted to complex: through ToCopy's formula


@pytest.mark.parametrize("name, kind", SECOND_ORDER)
def test_gradients_of_gradients_match_torch(name, kind, torch_ref):
    # grad is linear in the outgoing gradient w: d|grad|^2/dw runs each backward_graph
    rng = np.random.default_rng(0)
    a = rng.standard_normal(S)
    if kind == "c":
        a = a + 1j * rng.standard_normal(S)
    out = getattr(torch_ref.fft, name)(torch_ref.tensor(a))
    w0 = rng.standard_normal(tuple(out.shape))
    if out.dtype.is_complex:
        w0 = w0 + 1j * rng.standard_normal(tuple(out.shape))
    results = []
    for T in (mt, torch_ref):
        x, w = T.tensor(a, requires_grad=True), T.tensor(w0, requires_grad=True)
        (g,) = T.autograd.grad(getattr(T.fft, name)(x), x, w, create_graph=True)
        (g * g.conj()).real.sum().backward() if g.dtype.is_complex else (g * g).sum().backward()
        results.append(w.grad.detach().cpu().resolve_conj().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-10)


# -- the helpers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n, d", [(0, 1.0), (1, 1.0), (5, 1.0), (8, 0.5), (7, 2.5)])
def test_frequencies(name, n, d, device, torch_ref):
    out = getattr(mt.fft, name)(n, d, device=device)
    ref = getattr(torch_ref.fft, name)(n, d)
    assert out.dtype is mt.float32 and tuple(out.shape) == tuple(ref.shape)
    assert out.device == tensor_device(device)
    np.testing.assert_allclose(out.cpu().numpy(), ref.numpy(), rtol=1e-6)


def test_frequencies_keywords(torch_ref):
    out = mt.fft.fftfreq(4, d=mt.tensor(2.0), dtype=mt.float64, requires_grad=True)
    assert out.dtype is mt.float64 and out.requires_grad and out.is_leaf
    np.testing.assert_allclose(out.detach().numpy(), torch_ref.fft.fftfreq(4, 2.0).numpy())
    assert mt.fft.rfftfreq(4, dtype=mt.complex64).dtype is mt.complex64
    assert mt.fft.fftfreq(3, device="meta").shape == (3,)
    with pytest.raises(RuntimeError, match="fftfreq requires a floating point or complex"):
        mt.fft.fftfreq(4, dtype=mt.int64)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        mt.fft.rfftfreq(-1)
    with pytest.raises(TypeError, match="must be int, not float"):
        mt.fft.fftfreq(4.0)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 1), (1,)])
@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_match_torch(name, dim, device, torch_ref):
    x = mt.arange(15, device=device).reshape(3, 5)
    ref = getattr(torch_ref.fft, name)(torch_ref.arange(15).reshape(3, 5), dim=dim)
    out = getattr(mt.fft, name)(x, dim=dim)
    assert out.dtype is mt.int64 and out.tolist() == ref.tolist()
    assert mt.fft.ifftshift(mt.fft.fftshift(x, dim), dim).tolist() == x.tolist()


def test_shift_errors(torch_ref):
    with pytest.raises(RuntimeError, match="`shifts` required"):
        torch_ref.fft.fftshift(torch_ref.tensor(1.0))
    with pytest.raises(RuntimeError, match="`shifts` required"):
        mt.fft.fftshift(mt.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.fft.ifftshift(mt.ones(2, 3), dim=2)


# -- errors, as PyTorch's ----------------------------------------------------------------
Z = (4, 6)
ERRORS = [
    ("n_zero", lambda T, x, z: T.fft.fft(x, n=0), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    ("n_negative", lambda T, x, z: T.fft.rfft(x, n=-1), RuntimeError,
     r"Invalid number of data points \(-1\) specified"),
    ("empty_dim", lambda T, x, z: T.fft.fft(x[:, :0]), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    ("irfft_of_one", lambda T, x, z: T.fft.irfft(z[:, :1]), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    ("irfftn_s_zero", lambda T, x, z: T.fft.irfftn(z, s=(2, 0)), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    ("zero_dim", lambda T, x, z: T.fft.fft(x[0, 0]), IndexError,
     "Dimension specified as -1 but tensor has no dimensions"),
    ("dim_out_of_range", lambda T, x, z: T.fft.ifft(x, dim=2), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    ("fft2_of_1d", lambda T, x, z: T.fft.fft2(x[0]), IndexError, "Dimension out of range"),
    ("dims_repeated", lambda T, x, z: T.fft.fftn(x, dim=(0, -2)), RuntimeError,
     "FFT dims must be unique"),
    ("s_and_dim_lengths", lambda T, x, z: T.fft.fftn(x, s=(2, 2), dim=(0,)), RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    ("s_too_long", lambda T, x, z: T.fft.rfftn(x, s=(2, 2, 2)), RuntimeError,
     "Got shape with 3 values but input tensor only has 2 dimensions."),
    ("rfft_complex", lambda T, x, z: T.fft.rfft(z), RuntimeError,
     "rfft expects a real input tensor, but got ComplexFloat"),
    ("rfftn_complex", lambda T, x, z: T.fft.rfft2(z), RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    ("ihfft_complex", lambda T, x, z: T.fft.ihfft(z), RuntimeError,
     "ihfft expects a real input tensor, but got ComplexFloat"),
    ("ihfftn_complex", lambda T, x, z: T.fft.ihfftn(z), RuntimeError,
     "Only supports floating-point dtypes, but found: ComplexFloat"),
    ("rfftn_no_dims", lambda T, x, z: T.fft.rfftn(x, dim=()), RuntimeError,
     "rfftn must transform at least one axis"),
    ("irfftn_no_dims", lambda T, x, z: T.fft.irfftn(z, dim=()), RuntimeError,
     "irfftn must transform at least one axis"),
    ("hfftn_no_dims", lambda T, x, z: T.fft.hfftn(z, dim=[]), RuntimeError,
     "hfftn must transform at least one axis"),
    ("bad_norm", lambda T, x, z: T.fft.fft(x, norm="bad"), RuntimeError,
     'Invalid normalization mode: "bad"'),
    ("norm_not_str", lambda T, x, z: T.fft.fft(x, norm=1), TypeError,
     "argument 'norm' must be str, not int"),
    ("n_float", lambda T, x, z: T.fft.fft(x, n=2.0), TypeError,
     "argument 'n' must be int, not float"),
    ("input_list", lambda T, x, z: T.fft.fft([1.0, 2.0]), TypeError,
     r"argument 'input' \(position 1\) must be Tensor, not list"),
]


@pytest.mark.parametrize("make, error, message", [pytest.param(*e[1:], id=e[0])
                                                   for e in ERRORS])
@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_errors_as_torch(make, error, message, device, torch_ref):
    with pytest.raises(error, match=message):
        make(torch_ref, torch_ref.ones(Z), torch_ref.ones(Z, dtype=torch_ref.complex64))
    with pytest.raises(error, match=message):
        make(mt, mt.ones(Z, device=device), mt.ones(Z, dtype=mt.complex64, device=device))


# -- meta and the namespace --------------------------------------------------------------
def test_meta_shapes_of_every_spelling():
    x = mt.empty(2, 6, 8, device="meta")
    assert mt.fft.rfftn(x).shape == (2, 6, 5)
    assert mt.fft.irfftn(mt.fft.rfftn(x), s=(2, 6, 8)).shape == (2, 6, 8)
    assert mt.fft.hfft(x, n=9).shape == (2, 6, 9) and mt.fft.hfft(x).dtype is mt.float32
    assert mt.fft.ihfft2(x, s=(3, 4)).shape == (2, 3, 3)
    assert mt.fft.fft(x, n=3, dim=0).shape == (3, 6, 8)


def test_namespace_matches_torch(torch_ref):
    names = {n for n in dir(torch_ref.fft) if not n.startswith("_") and n[0].islower()
             and callable(getattr(torch_ref.fft, n))}
    assert names <= set(mt.fft.__all__) and set(mt.fft.__all__) <= set(dir(mt.fft))
