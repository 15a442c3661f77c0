"""PyTorch's native entry points: ``native_layer_norm``, ``native_batch_norm``,
``native_group_norm`` (with their saved statistics), ``native_dropout``, ``native_norm``,
``native_channel_shuffle``, and ``convolution``, ``constant_pad_nd``,
``max_pool1d_with_indices`` at top level."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests


def _bn(T, x, w, b):
    return T.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0]


CASES = [
    Case("native_layer_norm", lambda T, F, x, w, b: T.native_layer_norm(x, [4], w, b, 1e-5)[0],
         [Arg((2, 3, 4)), Arg((4,)), Arg((4,))]),
    Case("native_layer_norm_two_dims",
         lambda T, F, x: T.native_layer_norm(x, (3, 4), None, None, 1e-3)[0], [Arg((2, 3, 4))]),
    Case("native_batch_norm_training", lambda T, F, x, w, b: _bn(T, x, w, b),
         [Arg((4, 3, 5)), Arg((3,)), Arg((3,))]),
    Case("native_group_norm", lambda T, F, x, w, b: T.native_group_norm(
        x, w, b, 2, 6, 5, 3, 1e-5)[0], [Arg((2, 6, 5)), Arg((6,)), Arg((6,))]),
    Case("native_group_norm_4d", lambda T, F, x: T.native_group_norm(
        x, None, None, 2, 4, 6, 2, 1e-5)[0], [Arg((2, 4, 2, 3))]),
    Case("native_norm_default", lambda T, F, x: T.linalg.vector_norm(x) if T is not mt
         else T.native_norm(x), [Arg((3, 4), "away0")]),
    Case("convolution_1d_groups", lambda T, F, x, w, b: T.convolution(
        x, w, b, [2], [1], [1], False, [0], 2), [Arg((2, 4, 9)), Arg((6, 2, 3)), Arg((6,))]),
    Case("convolution_2d_transposed", lambda T, F, x, w: T.convolution(
        x, w, None, [2, 2], [1], [1], True, [1, 1], 1), [Arg((2, 4, 4, 4)), Arg((4, 3, 3, 3))]),
    Case("convolution_3d", lambda T, F, x, w: T.convolution(
        x, w, None, [1], [0], [1, 1, 1], False, [0], 1),
         [Arg((1, 2, 3, 4, 4)), Arg((3, 2, 2, 2, 2))]),
    Case("constant_pad_nd", lambda T, F, x: T.constant_pad_nd(x, [1, 2, -1, 0], 3.5),
         [Arg((2, 3, 4))]),
    Case("constant_pad_nd_default_value", lambda T, F, x: T.constant_pad_nd(x, (2, 0)),
         [Arg((2, 3))]),
    Case("max_pool1d_with_indices", lambda T, F, x: T.max_pool1d_with_indices(x, 3)[0],
         [Arg((2, 3, 9), "distinct")]),
    Case("max_pool1d_with_indices_stride", lambda T, F, x: T.max_pool1d_with_indices(
        x, 2, 1, 1, 1, True)[0], [Arg((3, 7), "distinct")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("native_norm_default",))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _pair(torch, data, device, grad=False):
    return (mt.tensor(data, device=device, requires_grad=grad),
            torch.tensor(data, requires_grad=grad))


def _assert_outputs_equal(ours, theirs, rtol=1e-5, atol=1e-6):
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                                   atol=atol)


RNG = np.random.default_rng(5)


@pytest.mark.parametrize("shape, normalized", [((2, 3, 4), [4]), ((2, 3, 4), [3, 4]),
                                               ((5,), [5]), ((0, 5), [5])])
def test_native_layer_norm_statistics_match_torch(shape, normalized, device):
    torch = _torch()
    data = RNG.standard_normal(shape).astype(np.float32)
    (x, tx), (w, tw) = _pair(torch, data, device, True), _pair(
        torch, np.linspace(0.5, 2, shape[-1], dtype=np.float32)[-normalized[-1]:], device)
    weight = (w, tw) if len(normalized) == 1 else (None, None)
    ours = mt.native_layer_norm(x, normalized, weight[0], None, 1e-5)
    theirs = torch.native_layer_norm(tx, normalized, weight[1], None, 1e-5)
    _assert_outputs_equal(ours, theirs)
    assert ours[1].device == tensor_device(device)
    assert ours[0].grad_fn.name() == "NativeLayerNormBackward0"
    assert not ours[1].requires_grad and not ours[2].requires_grad
    assert not theirs[1].requires_grad and not theirs[2].requires_grad


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_statistics_and_running_update_match_torch(training, device):
    torch = _torch()
    data = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    x, tx = _pair(torch, data, device, True)
    stats = [np.array([0.5, -1.0, 2.0], np.float32), np.array([1.0, 2.0, 0.5], np.float32)]
    (m, tm), (v, tv) = (_pair(torch, s, device) for s in stats)
    ours = mt.native_batch_norm(x, None, None, m, v, training, 0.2, 1e-5)
    theirs = torch.native_batch_norm(tx, None, None, tm, tv, training, 0.2, 1e-5)
    _assert_outputs_equal(ours, theirs)
    np.testing.assert_allclose(m.cpu().numpy(), tm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.cpu().numpy(), tv.numpy(), rtol=1e-5, atol=1e-6)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()


def test_native_batch_norm_allows_one_value_per_channel_as_torch():
    torch = _torch()
    data = RNG.standard_normal((1, 3)).astype(np.float32)
    ours = mt.native_batch_norm(mt.tensor(data), None, None, None, None, True, 0.1, 1e-5)
    theirs = torch.native_batch_norm(torch.tensor(data), None, None, None, None, True, 0.1,
                                     1e-5)
    _assert_outputs_equal(ours, theirs, rtol=1e-4, atol=1e-4)


def test_native_batch_norm_refuses_evaluation_without_running_statistics():
    # (PyTorch 2.13 crashes with a segmentation fault here)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        mt.native_batch_norm(mt.ones(2, 3), None, None, None, None, False, 0.1, 1e-5)


@pytest.mark.parametrize("shape, n, c, hxw, group", [((2, 6, 5), 2, 6, 5, 3),
                                                     ((2, 30), 2, 6, 5, 2),
                                                     ((2, 4, 2, 3), 2, 4, 6, 4)])
def test_native_group_norm_statistics_match_torch(shape, n, c, hxw, group, device):
    torch = _torch()
    data = RNG.standard_normal(shape).astype(np.float32)
    x, tx = _pair(torch, data, device, True)
    ours = mt.native_group_norm(x, None, None, n, c, hxw, group, 1e-5)
    theirs = torch.native_group_norm(tx, None, None, n, c, hxw, group, 1e-5)
    _assert_outputs_equal(ours, theirs)
    assert ours[0].grad_fn.name() == "NativeGroupNormBackward0"
    upstream = RNG.standard_normal(shape).astype(np.float32)
    ours[0].backward(mt.tensor(upstream, device=device))
    theirs[0].backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_float16_statistics_keep_the_input_dtype_as_torch():
    torch = _torch()
    data = RNG.standard_normal((2, 4, 6)).astype(np.float16)
    for call in (lambda T, x: T.native_layer_norm(x, [6], None, None, 1e-5),
                 lambda T, x: T.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
                 lambda T, x: T.native_group_norm(x, None, None, 2, 4, 6, 2, 1e-5)):
        ours, theirs = call(mt, mt.tensor(data)), call(torch, torch.tensor(data))
        _assert_outputs_equal(ours, theirs, rtol=2e-3, atol=2e-3)


def test_native_normalisations_on_meta_give_the_real_shapes():
    for call in (lambda x: mt.native_layer_norm(x, [4], None, None, 1e-5),
                 lambda x: mt.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
                 lambda x: mt.native_batch_norm(x, None, None, mt.zeros(3, device=x.device),
                                                mt.ones(3, device=x.device), False, 0.1, 1e-5),
                 lambda x: mt.native_group_norm(x, None, None, 2, 3, 4, 3, 1e-5),
                 lambda x: mt.native_dropout(x, 0.5, True)):
        real, meta = call(mt.ones(2, 3, 4)), call(mt.ones(2, 3, 4, device="meta"))
        assert [m.shape for m in meta] == [r.shape for r in real]
        assert [m.dtype for m in meta] == [r.dtype for r in real]
        assert all(m.is_meta for m in meta)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.native_group_norm(x, None, None, 2, 3, 5, 3, 1e-5), RuntimeError,
     "Expected X.numel() == N * C * HxW to be true, but got false."),
    (lambda x: mt.native_group_norm(x, None, None, 2, 3, 4, 2, 1e-5), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of "
     "shape [2, 3, 4] and num_groups=2"),
    (lambda x: mt.native_layer_norm(x, [5], None, None, 1e-5), RuntimeError,
     "Given normalized_shape=[5], expected input with shape [*, 5], but got input of "
     "size[2, 3, 4]"),
    (lambda x: mt.native_layer_norm(x, 4, None, None, 1e-5), TypeError,
     "native_layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
     "not int"),
    (lambda x: mt.native_dropout(x, 1.5, True), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=-0.5"),
    (lambda x: mt.native_dropout(x.long(), 0.5, None), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda x: mt.native_channel_shuffle(x, 2), RuntimeError,
     "Number of channels must be divisible by groups. Got 3 channels and 2 groups."),
    (lambda x: mt.convolution(x, x[None], None, [1], [0], [1], False, [0], 1), RuntimeError,
     "Expected 4-dimensional input for 4-dimensional weight [1, 2, 3, 4], but got "
     "3-dimensional input of size [2, 3, 4] instead"),
    (lambda x: mt.convolution(x, x[0], None, [1], [0], [1], False, [0], 1), RuntimeError,
     "weight should have at least three dimensions"),
    (lambda x: mt.convolution(x, x, None, [1, 1], [0], [1], False, [0], 1), RuntimeError,
     "expected stride to be a single integer value or a list of 1 values to match the "
     "convolution dimensions, but got stride=[1, 1]"),
    (lambda x: mt.convolution(x, x, None, 1, [0], [1], False, [0], 1), TypeError,
     "convolution(): argument 'stride' (position 4) must be tuple of ints, not int"),
    (lambda x: mt.constant_pad_nd(x, [1]), RuntimeError,
     "Length of pad must be even but instead it equals 1"),
    (lambda x: mt.constant_pad_nd(x, [1] * 10), RuntimeError,
     "Length of pad should be no more than twice the number of dimensions of the input. Pad "
     "length is 10 while the input has 3 dimensions."),
    (lambda x: mt.constant_pad_nd(x, [1.0, 1]), TypeError,
     "constant_pad_nd(): argument 'pad' (position 2) must be tuple of ints, but found element "
     "of type float at pos 0"),
    (lambda x: mt.max_pool1d_with_indices(x, 5), RuntimeError, "output size"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(mt.ones(2, 3, 4, device=device))
        assert message in str(info.value), (device, str(info.value))


def test_torch_raises_the_same_error_types():
    torch = _torch()
    for T in (mt, torch):
        x = T.ones(2, 3, 4)
        with pytest.raises(RuntimeError):
            T.native_group_norm(x, None, None, 2, 3, 5, 3, 1e-5)
        with pytest.raises(RuntimeError):
            T.native_dropout(x, 1.5, True)
        with pytest.raises(RuntimeError):
            T.constant_pad_nd(x, [1])
        with pytest.raises(TypeError):
            T.convolution(x, x, None, 1, [0], [1], False, [0], 1)


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_native_dropout_keeps_what_its_mask_says(p, device):
    torch = _torch()
    x = mt.randn(200, 50, device=device, requires_grad=True)
    out, mask = mt.native_dropout(x, p, True)
    assert mask.dtype is mt.bool and mask.device == tensor_device(device)
    assert out.grad_fn.name() == torch.native_dropout(torch.ones(2, requires_grad=True), p,
                                                      True)[0].grad_fn.name()
    scale = 0.0 if p == 1.0 else 1 / (1 - p)
    expected = x.detach().cpu().numpy() * mask.cpu().numpy() * scale
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected, rtol=1e-6)
    assert abs(mask.float().mean().item() - (1 - p)) < 0.02
    out.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), mask.cpu().numpy() * scale, rtol=1e-6)


@pytest.mark.parametrize("train", [False])
def test_native_dropout_in_evaluation_copies_as_torch(train, device):
    torch = _torch()
    data = RNG.standard_normal((3, 4)).astype(np.float32)
    x, tx = _pair(torch, data, device, True)
    ours, theirs = mt.native_dropout(x, 0.5, train), torch.native_dropout(tx, 0.5, train)
    _assert_outputs_equal(ours, theirs)
    assert ours[0] is not x and ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    long_out = mt.native_dropout(mt.ones(2, dtype=mt.long), 2.0, False)[0]
    assert long_out.dtype is mt.long  # no check of p or the dtype out of training


@pytest.mark.parametrize("args", [(), (1,), (3,), (float("inf"),), (-float("inf"),), (0,),
                                  (0.5,), (None, [], False, None)])
def test_native_norm_matches_torchs_sparse_kernel(args):
    torch = _torch()
    data = RNG.standard_normal((2, 3)).astype(np.float32)
    ours = mt.native_norm(mt.tensor(data), *args)
    theirs = torch.native_norm(torch.tensor(data).to_sparse(), *args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
    assert ours.shape == theirs.shape and str(ours.dtype) == str(theirs.dtype)


def test_native_norm_over_dims_with_a_dtype():
    x = mt.tensor([[3.0, 4.0], [6.0, 8.0]])
    out = mt.native_norm(x, 2, [1], True, mt.float64)
    assert out.dtype is mt.float64 and out.tolist() == [[5.0], [10.0]]


def test_max_pool1d_with_indices_indices_match_torch(device):
    torch = _torch()
    data = RNG.permutation(54).reshape(2, 3, 9).astype(np.float32)
    ours = mt.max_pool1d_with_indices(mt.tensor(data, device=device), 3, (), 1)
    theirs = torch.max_pool1d_with_indices(torch.tensor(data), 3, (), 1)
    _assert_outputs_equal(ours, theirs)
    assert ours[1].dtype is mt.int64


@pytest.mark.parametrize("shuffle", [lambda T, F, x: T.native_channel_shuffle(x, 3),
                                     lambda T, F, x: F.native_channel_shuffle(x, 3)])
def test_native_channel_shuffle_is_channel_shuffle(shuffle, device):
    torch = _torch()
    data = RNG.standard_normal((2, 6, 3)).astype(np.float32)
    x, tx = _pair(torch, data, device, True)
    ours = shuffle(mt, mt.nn.functional, x)
    np.testing.assert_array_equal(ours.detach().cpu().numpy(),
                                  shuffle(torch, torch.nn.functional, tx).detach().numpy())
    # PyTorch's native form has no derivative: ours differentiates as channel_shuffle
    ours.backward(mt.ones(2, 6, 3, device=device) * mt.arange(6.0, device=device)[:, None])
    torch.nn.functional.channel_shuffle(tx, 3).backward(torch.ones(2, 6, 3)
                                                        * torch.arange(6.0)[:, None])
    np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())
