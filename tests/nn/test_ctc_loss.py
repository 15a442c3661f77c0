"""ctc_loss and CTCLoss: values and gradients against PyTorch (float32 and float64), both
target layouts, every reduction, unbatched inputs, impossible targets and zero_infinity,
meta shapes, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests

RNG = np.random.default_rng(7)
# random lengths: every sample its own input and target length (a 0-length target too)
RANDOM_T, RANDOM_N, RANDOM_C = 14, 6, 7
RANDOM_IL = [14, *RNG.integers(6, 15, RANDOM_N - 1).tolist()]
RANDOM_TL = [0, *RNG.integers(1, 5, RANDOM_N - 1).tolist()]
RANDOM_TARGETS = RNG.integers(1, RANDOM_C, (RANDOM_N, 5)).tolist()

PADDED = [[1, 2, 2, 3], [3, 1, 4, 4], [2, 2, 2, 2]]  # repeated labels need blanks between
IL, TL = [9, 7, 8], [4, 2, 3]
CONCATENATED = [1, 2, 2, 3, 3, 1, 2, 2, 2]
SHORT = [[1, 1, 2], [2, 3, 0]]  # the first needs 4 frames (1, blank, 1, 2): 3 is too short


def _ctc(targets, input_lengths, target_lengths, as_tensors=True, **options):
    """A case's function: ``log_softmax`` first, so that the gradient is exact (PyTorch's
    CTC gradient is that of the logits behind a log_softmax; see ops/ctc_loss.py)."""
    def fn(T, F, x, *rest):
        def lengths(values):
            return T.tensor(values) if as_tensors else tuple(values)
        lp = x.log_softmax(-1)
        return F.ctc_loss(lp, T.tensor(targets, device=x.device), lengths(input_lengths),
                          lengths(target_lengths), **options)
    return fn


CASES = [
    Case("padded_none", _ctc(PADDED, IL, TL, reduction="none"), [Arg((9, 3, 5))]),
    Case("padded_mean", _ctc(PADDED, IL, TL), [Arg((9, 3, 5))]),
    Case("padded_sum_tuples", _ctc(PADDED, IL, TL, False, reduction="sum"), [Arg((9, 3, 5))]),
    Case("concatenated_none", _ctc(CONCATENATED, IL, TL, reduction="none"), [Arg((9, 3, 5))]),
    Case("concatenated_mean_tuples", _ctc(CONCATENATED, IL, TL, False), [Arg((9, 3, 5))]),
    Case("blank_last", _ctc([[0, 1, 1], [2, 0, 3]], [6, 5], [3, 2], blank=4,
                            reduction="none"), [Arg((6, 2, 5))]),
    Case("random_lengths", _ctc(RANDOM_TARGETS, RANDOM_IL, RANDOM_TL, reduction="none"),
         [Arg((RANDOM_T, RANDOM_N, RANDOM_C))]),
    Case("random_lengths_mean", _ctc(RANDOM_TARGETS, RANDOM_IL, RANDOM_TL),
         [Arg((RANDOM_T, RANDOM_N, RANDOM_C))]),
    Case("empty_targets_padded", _ctc([[], []], [4, 3], [0, 0], reduction="none"),
         [Arg((4, 2, 3))]),
    Case("empty_targets_concatenated_mean", _ctc([], [4, 3], [0, 0], False),
         [Arg((4, 2, 3))]),
    Case("one_frame", _ctc([[2]], [1], [1], reduction="none"), [Arg((1, 1, 3))]),
    Case("empty_input_in_batch", _ctc([[1], [2]], [0, 3], [0, 1], reduction="none"),
         [Arg((3, 2, 3))]),
    Case("too_short_zero_infinity", _ctc(SHORT, [3, 3], [3, 2], zero_infinity=True,
                                         reduction="none"), [Arg((3, 2, 4))]),
    Case("too_short_zero_infinity_mean", _ctc(SHORT, [3, 3], [3, 2], zero_infinity=True),
         [Arg((3, 2, 4))]),
    Case("too_short_zero_infinity_sum", _ctc(SHORT, [3, 3], [3, 2], False,
                                             zero_infinity=True, reduction="sum"),
         [Arg((3, 2, 4))]),
    Case("unbatched_none", _ctc([1, 3, 3], 7, 3, reduction="none"), [Arg((7, 4))]),
    Case("unbatched_mean_tuple", _ctc([[1, 3, 3]], [7], [3], False), [Arg((7, 4))]),
    Case("unbatched_zero_infinity", _ctc([1, 1], 2, 2, zero_infinity=True, reduction="none"),
         [Arg((2, 4))]),
    Case("module", lambda T, F, x: T.nn.CTCLoss(blank=3, reduction="sum")(
        x.log_softmax(2), T.tensor(CONCATENATED, device=x.device) % 4 * 2 % 5, T.tensor(IL),
        T.tensor(TL)), [Arg((9, 3, 5))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_float64_values_and_gradients_match_torch(case, device, torch_ref):
    x = case.arrays(3)[0]
    ours = mt.tensor(x, device=device, requires_grad=True)
    theirs = torch_ref.tensor(x, requires_grad=True)
    out, ref = case.fn(mt, mt.nn.functional, ours), case.fn(torch_ref, torch_ref.nn.functional,
                                                             theirs)
    assert out.dtype is mt.float64 and tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-12)
    weights = np.random.default_rng(4).uniform(0.5, 2.0, tuple(ref.shape))
    out.backward(mt.tensor(weights, device=device))
    ref.backward(torch_ref.tensor(weights))
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-10,
                               atol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_of_free_log_probs_is_torchs(dtype, device, torch_ref):
    """Without a log_softmax in front, PyTorch's gradient has an extra exp(log_probs)
    (which a log_softmax's backward cancels); ours is the same, not the finite-difference
    one."""
    x = np.random.default_rng(0).standard_normal((8, 3, 5)).astype(dtype)
    ours, theirs = (mt.tensor(x, device=device, requires_grad=True),
                    torch_ref.tensor(x, requires_grad=True))
    for T, lp in ((mt, ours), (torch_ref, theirs)):
        T.nn.functional.ctc_loss(lp, T.tensor(PADDED, device=lp.device), T.tensor([8, 7, 6]),
                                 T.tensor(TL), reduction="sum").backward()
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("through_log_softmax", [True, False])
def test_a_target_too_long_for_its_input_is_infinite_with_nan_gradients(through_log_softmax,
                                                                       device, torch_ref):
    x = np.random.default_rng(0).standard_normal((3, 2, 4))
    if not through_log_softmax:  # every class's gradient is NaN, not only the target's
        x = x - np.log(np.exp(x).sum(2, keepdims=True))
    grads, values = [], []
    for T, where in ((mt, device), (torch_ref, "cpu")):
        leaf = T.tensor(x, device=where, requires_grad=True)
        out = T.nn.functional.ctc_loss(leaf.log_softmax(2) if through_log_softmax else leaf,
                                       T.tensor(SHORT, device=where), (3, 3), (3, 2),
                                       reduction="none")
        out.sum().backward()
        values.append(out.detach().cpu().numpy())
        grads.append(leaf.grad.cpu().numpy())
    assert values[0][0] == np.inf and np.isfinite(values[0][1])
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)
    assert np.isnan(grads[0][:, 0]).all() and np.isfinite(grads[0][:, 1]).all()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-14)


def test_frames_past_an_input_length_take_no_part(device):
    """Padded frames may hold anything, NaN included: they change neither the loss nor
    the gradient of the frames before them, and their own gradient is 0."""
    x = np.random.default_rng(0).standard_normal((9, 3, 5))
    results = []
    for fill in (0.0, np.nan):
        data = x.copy()
        for n, length in enumerate(IL):
            data[length:, n] = fill
        leaf = mt.tensor(data, device=device, requires_grad=True)
        loss = mt.nn.functional.ctc_loss(leaf, mt.tensor(PADDED, device=device), IL, TL,
                                         reduction="sum")
        loss.backward()
        results.append((loss.item(), leaf.grad.cpu().numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert (results[0][1][7:, 1] == 0).all() and (results[0][1][8:, 2] == 0).all()


def test_targets_of_any_integer_dtype_or_float_become_int64_as_in_torch(torch_ref):
    x = np.random.default_rng(0).standard_normal((9, 3, 5)).astype(np.float32)
    expected = torch_ref.nn.functional.ctc_loss(torch_ref.tensor(x).log_softmax(2),
                                                torch_ref.tensor(PADDED), IL, TL).item()
    for dtype in (mt.int32, mt.uint8, mt.float32):
        targets = mt.tensor(PADDED, dtype=dtype)
        out = mt.nn.functional.ctc_loss(mt.tensor(x).log_softmax(2), targets, IL, TL)
        assert out.item() == pytest.approx(expected, rel=1e-6)


def test_lengths_of_int32_and_2d_tensors_are_read_flat(torch_ref):
    x = np.random.default_rng(0).standard_normal((9, 3, 5))
    values = []
    for T in (mt, torch_ref):
        lengths = T.tensor([IL], dtype=T.int32), T.tensor(TL, dtype=T.int32)
        values.append(T.nn.functional.ctc_loss(T.tensor(x).log_softmax(2), T.tensor(PADDED),
                                               *lengths, reduction="none").tolist())
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)


def test_module_holds_torchs_attributes_and_repr(torch_ref):
    for T in (mt, torch_ref):
        loss = T.nn.CTCLoss()
        assert (loss.blank, loss.reduction, loss.zero_infinity) == (0, "mean", False)
        assert repr(loss) == "CTCLoss()"
        loss = T.nn.CTCLoss(3, "none", True)
        assert (loss.blank, loss.reduction, loss.zero_infinity) == (3, "none", True)


def test_meta_with_meta_lengths_gives_the_shapes():
    x = mt.empty(2**10, 2**8, 2**12, device="meta", requires_grad=True)
    targets = mt.empty(2**8, 100, dtype=mt.int64, device="meta")
    lengths = mt.empty(2**8, dtype=mt.int64, device="meta")
    for reduction, shape in (("mean", ()), ("sum", ()), ("none", (2**8,))):
        out = mt.nn.functional.ctc_loss(x.log_softmax(2), targets, lengths, lengths,
                                        reduction=reduction, zero_infinity=True)
        assert out.is_meta and tuple(out.shape) == shape and out.dtype is mt.float32
        out.sum().backward()
    assert x.grad.is_meta and x.grad.shape == x.shape
    with pytest.raises(mt.ShapeError, match="input_lengths must be of size batch_size"):
        mt.nn.functional.ctc_loss(x, targets, lengths[:3], lengths)


def test_meta_lengths_with_data_log_probs_are_refused():
    with pytest.raises(RuntimeError, match="meta"):
        mt.nn.functional.ctc_loss(mt.zeros(3, 1, 2), mt.tensor([[1]]),
                                  mt.empty(1, dtype=mt.int64, device="meta"), mt.tensor([1]))


def _call(T, device, log_probs=(6, 2, 5), targets=((1, 2, 3), (2, 2, 0)), il=(6, 5),
          tl=(3, 2), **options):
    """ctc_loss on zeros of the shape ``log_probs`` (or a tensor made by a callable)."""
    if isinstance(log_probs, tuple):
        lp = T.zeros(*log_probs, device=device)
    else:
        lp = log_probs(T, device)
    targets = T.tensor(targets, device=device) if isinstance(targets, tuple) else targets(T)
    il = il(T) if callable(il) else il
    tl = tl(T) if callable(tl) else tl
    return T.nn.functional.ctc_loss(lp, targets, il, tl, **options)


# (options, error, our message's start after "ctc_loss: " where a ShapeError, the part of
# PyTorch's message ours repeats or None when PyTorch's differs)
ERRORS = [
    (dict(log_probs=(2, 3, 4, 5)), mt.ShapeError,
     "expected log_probs of 3 dimensions (T, N, C), or 2 (T, C) unbatched, but got 4 "
     "dimension(s), shape (2, 3, 4, 5)", None),
    (dict(log_probs=lambda T, d: T.zeros(6, 2, 5, dtype=T.float16, device=d)), NotImplementedError,
     "ctc_loss: not implemented for torch.float16; log_probs must be float32 or float64",
     None),
    (dict(log_probs=lambda T, d: T.zeros(6, 2, 5, dtype=T.int64, device=d)), NotImplementedError,
     "ctc_loss: not implemented for torch.int64", None),
    (dict(log_probs=(0, 2, 5), il=(0, 0)), mt.ShapeError,
     "log_probs tensor must not be empty, but got shape (0, 2, 5)",
     "log_probs tensor must not be empty"),
    (dict(blank=5), mt.ShapeError, "blank must be in label range [0, 5) of the 5 classes, but "
     "got blank=5", "blank must be in label range"),
    (dict(blank=-1), mt.ShapeError, "blank must be in label range", "blank must be in label "
     "range"),
    (dict(il=(6,)), mt.ShapeError, "input_lengths must be of size batch_size (2), but got 1 "
     "value(s)", "input_lengths must be of size batch_size"),
    (dict(tl=(3, 2, 1)), mt.ShapeError, "target_lengths must be of size batch_size (2), but "
     "got 3 value(s)", "target_lengths must be of size batch_size"),
    (dict(il=(-1, 5)), mt.ShapeError, "Expected input_lengths to have value at least 0, but "
     "got value -1", "Expected input_lengths to have value at least 0, but got value -1"),
    (dict(il=(7, 5)), mt.ShapeError, "Expected input_lengths to have value at most 6, but got "
     "value 7", "Expected input_lengths to have value at most 6, but got value 7"),
    (dict(tl=(3, -2)), mt.ShapeError, "Expected target_lengths to have value at least 0, but "
     "got value -2", "Expected target_lengths to have value at least 0, but got value -2"),
    (dict(tl=(4, 2)), mt.ShapeError, "Expected tensor to have size at least 4 at dimension 1, "
     "but got size 3 for argument #2 'targets'", "Expected tensor to have size at least 4 at "
     "dimension 1, but got size 3 for argument #2 'targets'"),
    (dict(targets=((1, 2, 3),)), mt.ShapeError, "Expected tensor to have size 2 at dimension "
     "0, but got size 1 for argument #2 'targets'", "Expected tensor to have size 2 at "
     "dimension 0, but got size 1 for argument #2 'targets'"),
    (dict(targets=(1, 2, 3, 2)), mt.ShapeError, "Expected tensor to have size 5 at dimension "
     "0, but got size 4 for argument #2 'targets'", "Expected tensor to have size 5 at "
     "dimension 0, but got size 4 for argument #2 'targets'"),
    (dict(targets=(((1, 2, 3),),)), mt.ShapeError, "Expected 1 to 2 dimensions, but got "
     "3-dimensional tensor for argument #2 'targets'", "Expected 1 to 2 dimensions, but got "
     "3-dimensional tensor for argument #2 'targets'"),
    (dict(il=lambda T: T.tensor([6.0, 5.0]), tl=lambda T: T.tensor([3, 2])), RuntimeError,
     "input_lengths must be integral, but got a tensor of torch.float32",
     "input_lengths must be integral"),
    (dict(il=lambda T: T.tensor([6, 5]), tl=lambda T: T.tensor([True, True])), RuntimeError,
     "target_lengths must be integral", "target_lengths must be integral"),
    (dict(il=lambda T: T.tensor([6, 5])), TypeError, "ctc_loss(): input_lengths and "
     "target_lengths must both be tensors or both be tuples or lists of ints, but got Tensor "
     "and tuple", None),
    (dict(il=6, tl=3), TypeError, "ctc_loss(): input_lengths and target_lengths must both be "
     "tensors or both be tuples or lists of ints, but got int and int", None),
    (dict(il=(6.0, 5.0)), TypeError, "ctc_loss(): input_lengths must be a tuple of ints, but "
     "it holds float (6.0)", None),
    (dict(reduction="avg"), ValueError, "ctc_loss: reduction must be one of", None),
]


@pytest.mark.parametrize("options, error, message, torch_message", ERRORS)
def test_errors_same_on_cpu_and_meta_and_like_torch(options, error, message, torch_message,
                                                    torch_ref):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            _call(mt, device, **options)
        text = str(info.value)
        if error is mt.ShapeError:
            text = text.removeprefix("ctc_loss: ")
        assert text.startswith(message), (device, text)
        if torch_message is not None:
            assert torch_message in text
    with pytest.raises(Exception) as info:
        _call(torch_ref, "cpu", **options)
    assert isinstance(info.value, RuntimeError if error is mt.ShapeError else error)
    if torch_message is not None:
        assert torch_message in str(info.value)


@pytest.mark.parametrize("label", [5, -1])
def test_a_label_out_of_range_is_refused(label, device):
    with pytest.raises(RuntimeError, match=rf"ctc_loss: targets must hold class indices in "
                                           rf"\[0, 5\) \(log_probs has 5 classes\), but got "
                                           rf"{label}"):
        _call(mt, device, targets=((1, label, 3), (2, 2, 0)))
    # past a sample's target length, anything may pad the row
    _call(mt, device, targets=((1, 2, 3), (2, 2, label)))
