"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against PyTorch: with the same
``_random_samples`` the windows, values and indices are identical (float16/32/64, ties, NaN,
-inf, overlapping windows); gradients go to the winning input; meta shapes; errors; samples
drawn from our generator when none are given."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as mF
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

U2 = np.array([[[0.31, 0.77], [0.05, 0.52], [0.93, 0.18]],
               [[0.64, 0.02], [0.49, 0.88], [0.27, 0.6]]])
U3 = np.array([[[0.31, 0.77, 0.4], [0.05, 0.52, 0.99]],
               [[0.64, 0.02, 0.7], [0.49, 0.88, 0.13]]])


def _samples(T, x, u):
    return T.tensor(u, dtype=x.dtype, device=x.device)


CASES = [
    Case("pool2d", lambda T, F, x: F.fractional_max_pool2d(
        x, 2, output_size=(4, 5), _random_samples=_samples(T, x, U2)),
        [Arg((2, 3, 7, 9), "distinct")]),
    Case("pool2d_overlapping_windows", lambda T, F, x: F.fractional_max_pool2d(
        x, (3, 4), output_size=(5, 6), _random_samples=_samples(T, x, U2)),
        [Arg((2, 3, 7, 9), "distinct")]),
    Case("pool2d_unbatched", lambda T, F, x: F.fractional_max_pool2d(
        x, 2, output_size=3, _random_samples=_samples(T, x, U2[1:])),
        [Arg((3, 6, 6), "distinct")]),
    Case("pool2d_output_ratio", lambda T, F, x: F.fractional_max_pool2d(
        x, (2, 1), output_ratio=(0.5, 0.7), _random_samples=_samples(T, x, U2)),
        [Arg((2, 3, 8, 9), "distinct")]),
    Case("pool2d_one_output_and_more_samples_than_batch", lambda T, F, x: F.fractional_max_pool2d(
        x, 3, output_size=(1, 2), _random_samples=_samples(T, x, U2)),
        [Arg((1, 3, 5, 6), "distinct")]),
    Case("pool2d_with_indices", lambda T, F, x: F.fractional_max_pool2d_with_indices(
        x, 2, output_size=(3, 4), _random_samples=_samples(T, x, U2))[0] * 2,
        [Arg((2, 3, 6, 7), "distinct")]),
    Case("pool2d_layer", lambda T, F, x: T.nn.FractionalMaxPool2d(
        2, output_ratio=0.6, _random_samples=_samples(T, x, U2))(x),
        [Arg((2, 3, 7, 8), "distinct")]),
    Case("pool3d", lambda T, F, x: F.fractional_max_pool3d(
        x, 2, output_size=(2, 3, 4), _random_samples=_samples(T, x, U3)),
        [Arg((2, 2, 5, 6, 7), "distinct")]),
    Case("pool3d_unbatched_overlapping", lambda T, F, x: F.fractional_max_pool3d(
        x, (3, 2, 3), output_size=(2, 4, 3), _random_samples=_samples(T, x, U3[1:])),
        [Arg((2, 5, 6, 6), "distinct")]),
    Case("pool3d_output_ratio_number", lambda T, F, x: F.fractional_max_pool3d(
        x, 1, output_ratio=0.5, _random_samples=_samples(T, x, U3)),
        [Arg((2, 2, 4, 6, 5), "distinct")]),
    Case("pool3d_layer_with_indices", lambda T, F, x: T.nn.FractionalMaxPool3d(
        2, output_size=(2, 2, 3), return_indices=True, _random_samples=_samples(T, x, U3))(x)[0],
        [Arg((2, 2, 5, 5, 6), "distinct")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _random_problem(rng, trial):
    """A random pooling (2-D or 3-D, any float dtype) whose values have ties, NaNs or -inf
    now and then."""
    d = 2 + trial % 2
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    sizes = tuple(int(s) for s in rng.integers(3, 11, d))
    kernel = tuple(int(rng.integers(1, min(4, s - 1) + 1)) for s in sizes)
    # 3-D windows must fit strictly (PyTorch's rule), 2-D ones may end flush; 0 is allowed
    out = tuple(int(rng.integers(0 if trial % 9 == 0 else 1, s - k + 4 - d))
                for s, k in zip(sizes, kernel))
    dtype = (np.float32, np.float64, np.float16)[trial % 3]
    x = rng.standard_normal((n, c) + sizes).astype(dtype)
    if trial % 4 == 0:
        x = np.round(x)  # ties: the first maximum in row-major order wins
    if trial % 5 == 0:
        x.flat[rng.integers(0, x.size, 4)] = np.nan  # the last NaN wins
    if trial % 7 == 0:
        x[...] = -np.inf  # nothing beats -inf: each window's first position
    u = rng.random((n + trial % 2, c, d)).astype(dtype)
    return d, x, u, kernel, out


@pytest.mark.parametrize("chunk", range(4))
def test_values_and_indices_identical_to_torch_for_the_same_samples(chunk, device, torch):
    rng = np.random.default_rng(chunk)
    for trial in range(30):
        d, x, u, kernel, out = _random_problem(rng, trial)
        ours = getattr(mF, f"fractional_max_pool{d}d")(
            mt.tensor(x, device=device), kernel, out, return_indices=True,
            _random_samples=mt.tensor(u, device=device))
        theirs = getattr(torch.nn.functional, f"fractional_max_pool{d}d")(
            torch.tensor(x), kernel, out, return_indices=True, _random_samples=torch.tensor(u))
        where = f"trial {trial}: {x.shape} {x.dtype} kernel {kernel} output {out}"
        assert ours[0].dtype is getattr(mt, str(x.dtype)) and ours[1].dtype is mt.int64
        np.testing.assert_array_equal(ours[1].cpu().numpy(), theirs[1].numpy(), err_msg=where)
        np.testing.assert_array_equal(ours[0].cpu().numpy(), theirs[0].numpy(), err_msg=where)


@pytest.mark.parametrize("d", [2, 3])
def test_gradient_goes_to_the_winner_also_with_ties_and_overlaps(d, device, torch):
    rng = np.random.default_rng(d)
    x = np.round(rng.standard_normal((2, 3) + (7,) * d)).astype(np.float32)  # many ties
    u = rng.random((2, 3, d)).astype(np.float32)
    kernel, out = 3, (4,) * d  # steps under the kernel's width: windows overlap
    ours = mt.tensor(x, device=device, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y = getattr(mF, f"fractional_max_pool{d}d")(ours, kernel, out,
                                                _random_samples=mt.tensor(u, device=device))
    ref = getattr(torch.nn.functional, f"fractional_max_pool{d}d")(
        theirs, kernel, out, _random_samples=torch.tensor(u))
    upstream = rng.standard_normal(tuple(ref.shape)).astype(np.float32)
    y.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    assert y.grad_fn.name() == ref.grad_fn.name() == f"FractionalMaxPool{d}DBackward0"
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-6,
                               atol=1e-6)
    assert ours.grad.device == tensor_device(device)


def test_the_indices_the_user_gets_are_not_those_backward_reads(device):
    x = mt.tensor(np.arange(36.0).reshape(1, 1, 6, 6), device=device, requires_grad=True)
    u = mt.tensor([[[0.5, 0.5]]], device=device, dtype=mt.float64)
    y, indices = mF.fractional_max_pool2d(x, 2, 3, return_indices=True, _random_samples=u)
    expected = x.new_zeros(36)
    expected.index_add_(0, indices.flatten(), mt.ones(9, device=device, dtype=mt.float64))
    indices.zero_()  # the caller's copy: backward must not see it
    y.sum().backward()
    assert x.grad.flatten().tolist() == expected.tolist()


@pytest.mark.parametrize("d, shape", [(2, (2, 3, 9, 11)), (2, (3, 9, 11)), (3, (2, 2, 5, 6, 7)),
                                      (3, (2, 5, 6, 7))])
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_samples_come_from_our_generator_when_not_given(d, shape, dtype, device):
    x = mt.randn(*shape, dtype=dtype, device=device)
    pool = getattr(mF, f"fractional_max_pool{d}d")
    mt.manual_seed(7)
    drawn = pool(x, 2, output_ratio=(0.5,) * d, return_indices=True)
    mt.manual_seed(7)
    batch = shape[0] if len(shape) == d + 2 else 1
    samples = mt.rand(batch, shape[-d - 1], d, dtype=dtype, device=device)
    given = pool(x, 2, output_ratio=(0.5,) * d, return_indices=True, _random_samples=samples)
    assert drawn[0].dtype is dtype and drawn[0].device == tensor_device(device)
    assert drawn[1].tolist() == given[1].tolist()
    assert drawn[0].tolist() == given[0].tolist()
    # a fresh draw places the windows elsewhere (at these sizes, almost surely)
    others = [pool(x, 2, output_ratio=(0.5,) * d, return_indices=True)[1].tolist()
              for _ in range(3)]
    assert any(o != given[1].tolist() for o in others)


def test_zero_batch_and_zero_output_sizes(torch):
    x = mt.randn(0, 2, 5, 5)
    y, i = mF.fractional_max_pool2d(x, 2, 3, return_indices=True)
    assert tuple(y.shape) == tuple(i.shape) == (0, 2, 3, 3)
    y = mF.fractional_max_pool2d(mt.randn(1, 2, 5, 5), 2, (0, 2),
                                 _random_samples=mt.rand(1, 2, 2))
    ref = torch.nn.functional.fractional_max_pool2d(torch.randn(1, 2, 5, 5), 2, (0, 2),
                                                    _random_samples=torch.rand(1, 2, 2))
    assert tuple(y.shape) == tuple(ref.shape) == (1, 2, 0, 2)


def test_meta_shapes_from_ratios_and_drawn_samples():
    x = mt.empty(4, 3, 10, 11, device="meta", requires_grad=True)
    y, i = mF.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    assert y.is_meta and tuple(y.shape) == (4, 3, 5, 5) and i.dtype is mt.int64
    y.sum().backward()
    assert x.grad.is_meta and x.grad.shape == x.shape
    v = mt.empty(3, 9, 8, 7, device="meta")
    assert tuple(nn_pool3d(v).shape) == (3, 4, 4, 3)


def nn_pool3d(x):
    return mt.nn.FractionalMaxPool3d(2, output_ratio=0.5)(x)


def test_float16_keeps_its_dtype(torch):
    x = np.random.default_rng(0).standard_normal((1, 2, 9, 9)).astype(np.float16)
    u = np.array([[[0.9, 0.3], [0.45, 0.01]]], dtype=np.float16)
    y = mF.fractional_max_pool2d(mt.tensor(x), 2, 5, _random_samples=mt.tensor(u))
    ref = torch.nn.functional.fractional_max_pool2d(torch.tensor(x), 2, 5,
                                                    _random_samples=torch.tensor(u))
    assert y.dtype is mt.float16
    np.testing.assert_array_equal(y.numpy(), ref.numpy())


# -- errors ---------------------------------------------------------------------------------

X2, X3 = (2, 3, 7, 8), (1, 2, 6, 7, 8)

ERRORS = [  # (input shape, call, PyTorch's type, words of our message)
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 3, (5, 7)), RuntimeError,
     "pool width 3 too large relative to input width 8"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 4, (5, 5)), RuntimeError,
     "pool height 4 too large relative to input height 7"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(x, 3, (4, 2, 2)), RuntimeError,
     "pool time 3 too large relative to input time 6"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(x, 3, (2, 5, 2)), RuntimeError,
     "pool height 3 too large relative to input height 7"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(x, 3, (2, 2, 6)), RuntimeError,
     "pool width 3 too large relative to input width 8"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, (2, 2, 2), 3), RuntimeError,
     "kernel_size must either be a single Int or tuple of Ints, but got (2, 2, 2)"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, [3]), RuntimeError,
     "output_size must either be a single Int or tuple of Ints, but got [3]"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(x, (2, 2), 2), RuntimeError,
     "kernel_size must either be a single Int or tuple of three Ints"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2.0, 3), TypeError,
     "argument 'kernel_size' must be an int or a tuple of 2 ints, but got 2.0"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, (3, 2.0)), TypeError,
     "argument 'output_size' must be an int or a tuple of 2 ints"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, (-1, 3)), RuntimeError,
     "output_size must not be negative, but got (-1, 3)"),
    ((1, 1, 1, 7, 8), lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(1, 1, 2, device=x.device)), RuntimeError,
     "expected a 3D or 4D tensor (unbatched or batched planes), but got an input of shape "
     "(1, 1, 1, 7, 8)"),
    ((5, 6, 7), lambda T, F, x: F.fractional_max_pool3d(
        x, 2, 2, _random_samples=T.rand(1, 5, 3, device=x.device)), RuntimeError,
     "expected a 4D or 5D tensor"),
    ((2, 0, 7, 8), lambda T, F, x: F.fractional_max_pool2d(x, 2, 3), RuntimeError,
     "expected input to have non-zero size for non-batch dimensions, but got (2, 0, 7, 8) "
     "with dimension 1 being empty"),
    ((2, 3, 0, 7, 8), lambda T, F, x: F.fractional_max_pool3d(
        x, 2, 2, _random_samples=T.rand(2, 3, 3, device=x.device)), RuntimeError,
     "with dimension 2 being empty"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(2, 3, 2, dtype=T.float64, device=x.device)), RuntimeError,
     "expected _random_samples to have the same dtype as the input (torch.float32), but got "
     "torch.float64"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(2, 3, device=x.device)), RuntimeError,
     "expected _random_samples to have 3 dimensions (N, C, 2), but got shape (2, 3)"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(1, 3, 2, device=x.device)), RuntimeError,
     "expected _random_samples.size(0) to be at least the input's batch size 2, but got "
     "shape (1, 3, 2)"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(2, 4, 2, device=x.device)), RuntimeError,
     "expected _random_samples.size(1) to equal the input's 3 channels, but got shape "
     "(2, 4, 2)"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(
        x, 2, 2, _random_samples=T.rand(1, 2, 2, device=x.device)), RuntimeError,
     "expected _random_samples.size(2) to be 3, but got shape (1, 2, 2)"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.rand(2, 3, 2, requires_grad=True, device=x.device)),
     RuntimeError,
     "The function 'fractional_max_pool2d' is not differentiable with respect to argument "
     "'random_samples'"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2), ValueError,
     "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5)),
     ValueError, "requires output_ratio to either be a single Int or tuple of Ints"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, output_ratio=0.5), TypeError,
     "output_ratio must be a tuple of 2 floats, but got 0.5"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x, 2, output_ratio=(0.5,)), IndexError,
     "output_ratio must hold 2 ratios, but got (0.5,)"),
    (X3, lambda T, F, x: F.fractional_max_pool3d(x, 2, output_ratio=(0.5, 0.5)), IndexError,
     "output_ratio must hold 3 ratios"),
    ((7, 8), lambda T, F, x: F.fractional_max_pool2d(x, 2, 3), IndexError,
     "Dimension out of range"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x.long(), 2, 3, _random_samples=T.rand(2, 3, 2, device=x.device).long()),
     NotImplementedError,
     "not implemented for 'Long'"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(
        x.long(), 2, 3, _random_samples=T.rand(2, 3, 2, device=x.device)), RuntimeError,
     "expected _random_samples to have the same dtype as the input (torch.int64)"),
    (X2, lambda T, F, x: F.fractional_max_pool2d(x > 0, 2, 3), NotImplementedError,
     "not implemented for 'Bool'"),
]


@pytest.mark.parametrize("shape, call, error, words", ERRORS,
                         ids=[f"error{i}" for i in range(len(ERRORS))])
def test_errors_as_torch_on_cpu_and_meta(shape, call, error, words, torch):
    with pytest.raises(error):
        call(torch, torch.nn.functional, torch.randn(*shape))
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt, mF, mt.randn(*shape, device=device))
        assert words in str(info.value), device


def test_samples_that_require_grad_are_fine_without_grad_mode(torch):
    u = mt.rand(2, 3, 2, requires_grad=True)
    with mt.no_grad():
        y = mF.fractional_max_pool2d(mt.randn(*X2), 2, 3, _random_samples=u)
    assert tuple(y.shape) == (2, 3, 3, 3)


def test_a_non_positive_kernel_is_refused_where_torch_pools_empty_windows():
    # PyTorch returns -inf and indices outside the plane there (docs/differences.md)
    with pytest.raises(RuntimeError, match=r"kernel_size must be greater than 0, but got "
                                           r"\(0, 2\)"):
        mF.fractional_max_pool2d(mt.randn(*X2), (0, 2), 3, _random_samples=mt.rand(2, 3, 2))


# -- layers -----------------------------------------------------------------------------------

@pytest.mark.parametrize("make, error, message", [
    (lambda nn: nn.FractionalMaxPool2d(2), ValueError,
     "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"),
    (lambda nn: nn.FractionalMaxPool3d(2), ValueError,
     "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio"),
    (lambda nn: nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5), ValueError,
     "only one of output_size and output_ratio may be specified"),
    (lambda nn: nn.FractionalMaxPool2d(2, output_ratio=1.0), ValueError,
     "output_ratio must be between 0 and 1 (got 1.0)"),
    (lambda nn: nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0)), ValueError,
     "output_ratio must be between 0 and 1 (got (0.5, 0))"),
    (lambda nn: nn.FractionalMaxPool3d(2, output_ratio=1), ValueError,
     "output_ratio must be between 0 and 1 (got 1)"),
    (lambda nn: nn.FractionalMaxPool3d(0, output_ratio=0.5), ValueError,
     "kernel_size must be greater than 0, but got 0"),
    (lambda nn: nn.FractionalMaxPool3d((1, 0, 2), output_ratio=0.5), ValueError,
     "kernel_size must be greater than 0, but got (1, 0, 2)"),
])
def test_layer_arguments_checked_as_torch(make, error, message, torch):
    for library in (torch.nn, mt.nn):
        with pytest.raises(error) as info:
            make(library)
        assert str(info.value) == message


def test_layers_keep_their_settings_and_samples_like_torch(torch):
    for name, args in (("FractionalMaxPool2d", (3,)), ("FractionalMaxPool3d", ((1, 2, 3),))):
        ours = getattr(mt.nn, name)(*args, output_ratio=0.5, return_indices=True)
        theirs = getattr(torch.nn, name)(*args, output_ratio=0.5, return_indices=True)
        assert repr(ours) == repr(theirs) == f"{name}()"
        for field in ("kernel_size", "output_size", "output_ratio", "return_indices"):
            assert getattr(ours, field) == getattr(theirs, field), field
        assert ours._random_samples is None and list(ours.state_dict()) == []
    fixed = mt.nn.FractionalMaxPool2d(2, output_size=(3, 4), _random_samples=mt.rand(1, 2, 2))
    assert list(fixed.state_dict()) == ["_random_samples"]
    x = mt.randn(1, 2, 7, 8)
    assert fixed(x).tolist() == fixed(x).tolist()  # the buffer fixes the windows


def test_layer_moves_its_samples_with_it(device):
    pool = mt.nn.FractionalMaxPool2d(2, output_size=3, return_indices=True,
                                     _random_samples=mt.rand(2, 3, 2)).to(device)
    y, indices = pool(mt.randn(*X2, device=device))
    assert y.device == indices.device == tensor_device(device)
    assert pool._random_samples.device == tensor_device(device)
