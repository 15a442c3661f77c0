"""torch.segment_reduce: every reduction by lengths and by offsets, batched segments,
``initial``, empty segments, ties, zeros and NaN in prod/max, and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests

REDUCTIONS = ("sum", "mean", "max", "min", "prod")


def _by_lengths(reduce, lengths, axis=0, **options):
    def call(T, F, x):
        return T.segment_reduce(x, reduce, lengths=T.tensor(lengths, device=x.device),
                                axis=axis, **options)
    return call


def _by_offsets(reduce, offsets, axis=0, **options):
    def call(T, F, x):
        return T.segment_reduce(x, reduce, offsets=T.tensor(offsets, device=x.device),
                                axis=axis, **options)
    return call


def _kind(reduce):
    return "distinct" if reduce in ("max", "min") else "normal"


def _empty_ok(reduce):
    """Options for cases with an empty segment: the NaN of a mean or the infinity of a max
    there would stop gradcheck, so those get a (low) initial value (the empty values
    without one are checked in the tests below)."""
    return {"initial": -9.0} if reduce in ("mean", "max", "min") else {}


CASES = []
for _r in REDUCTIONS:
    CASES += [
        Case(f"{_r}_lengths", _by_lengths(_r, [2, 1, 3]), [Arg((6,), _kind(_r))]),
        Case(f"{_r}_lengths_trailing_dims", _by_lengths(_r, [3, 1]), [Arg((4, 2, 3),
                                                                          _kind(_r))]),
        Case(f"{_r}_batched_lengths", _by_lengths(_r, [[1, 2, 3], [4, 2, 0]], axis=1,
                                                      **_empty_ok(_r)),
             [Arg((2, 6, 3), _kind(_r))]),
        Case(f"{_r}_batched_negative_axis", _by_lengths(_r, [[2, 3]] * 3, axis=-1),
             [Arg((3, 5), _kind(_r))]),
        Case(f"{_r}_offsets", _by_offsets(_r, [0, 2, 2, 5], **_empty_ok(_r)),
             [Arg((5, 2), _kind(_r))]),
        # offsets may leave out elements before the first and after the last
        Case(f"{_r}_offsets_partial", _by_offsets(_r, [[1, 3, 4], [0, 0, 2]], axis=1,
                                                       **_empty_ok(_r)),
             [Arg((2, 5), _kind(_r))]),
        Case(f"{_r}_initial_empty_segment", _by_lengths(_r, [2, 0, 3], initial=0.5),
             [Arg((5, 2), _kind(_r))]),
        Case(f"{_r}_unsafe_short_lengths", _by_lengths(_r, [2, 1], unsafe=True),
             [Arg((5,), _kind(_r))]),
    ]
CASES += [
    # an empty segment without initial: 0 / 1 (no NaN or inf in the gradient's way)
    Case("sum_empty_segment", _by_lengths("sum", [0, 3, 0]), [Arg((3, 2))]),
    Case("prod_empty_segment", _by_lengths("prod", [0, 3, 0]), [Arg((3, 2))]),
    # max and min where initial wins some elements: they get no gradient
    Case("max_initial_wins", _by_lengths("max", [3, 3], initial=0.0), [Arg((6, 2),
                                                                            "distinct")]),
    Case("min_initial_wins", _by_lengths("min", [3, 3], initial=0.0), [Arg((6, 2),
                                                                            "distinct")]),
    Case("amax_alias", _by_lengths("amax", [1, 3]), [Arg((4,), "distinct")]),
    Case("amin_alias", _by_lengths("amin", [1, 3]), [Arg((4,), "distinct")]),
    Case("mean_initial", _by_lengths("mean", [1, 3], initial=-2), [Arg((4, 3))]),
    Case("sum_int32_lengths", lambda T, F, x: T.segment_reduce(
        x, "sum", lengths=T.tensor([2, 2], dtype=T.int32, device=x.device)), [Arg((4,))]),
    Case("sum_empty_data", _by_lengths("sum", [0, 0]), [Arg((0, 3))]),
    Case("max_empty_trailing", _by_lengths("max", [1, 1]), [Arg((2, 0))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _pair(torch, device, values, reduce, **options):
    """Our and PyTorch's output, and the data's gradients, of one call on float64
    ``values`` with an upstream gradient of random signs."""
    options = dict(options)
    results = []
    for lib, where in ((mt, device), (torch, "cpu")):
        x = lib.tensor(values, dtype=lib.float64, device=where, requires_grad=True)
        kw = {k: lib.tensor(v, device=where) if isinstance(v, list) else v
              for k, v in options.items()}
        out = lib.segment_reduce(x, reduce, **kw)
        upstream = np.random.default_rng(3).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(upstream, device=where))
        results.append((out.detach().cpu().numpy(), x.grad.cpu().numpy(), out.grad_fn.name()))
    return results


def _assert_same(ours, theirs):
    for a, b in zip(ours, theirs):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_ties_zeros_and_nan_against_torch(reduce, device, torch_ref):
    # ties split a positive gradient evenly and give a negative one whole to each tie;
    # prod's gradient at a zero or NaN is the exact product of the others
    values = [[1.0, 0.0], [1.0, 1.0], [0.0, -1.0], [1.0, 0.0], [2.0, math.nan],
              [0.0, 2.0], [0.0, 0.0], [3.0, 0.0]]
    ours, theirs = _pair(torch_ref, device, values, reduce, lengths=[4, 2, 2, 0])
    _assert_same(ours, theirs)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("initial", [None, 1.0, -1, True])
def test_empty_segments_and_initial_against_torch(reduce, initial, device, torch_ref):
    values = [0.5, -2.0, 1.0, 1.0, 3.0]
    ours, theirs = _pair(torch_ref, device, values, reduce, lengths=[0, 2, 0, 3],
                         initial=initial)
    _assert_same(ours, theirs)


def test_empty_segment_values(device):
    x = mt.tensor([1.0, 2.0], device=device)
    lengths = mt.tensor([0, 2], device=device)
    got = [mt.segment_reduce(x, r, lengths=lengths)[0].item() for r in REDUCTIONS]
    assert got[0] == 0 and math.isnan(got[1]) and got[2:] == [-math.inf, math.inf, 1.0]
    out = mt.segment_reduce(x, "mean", lengths=lengths, initial=4)
    assert out.tolist() == [4.0, 3.5]
    assert out.device == tensor_device(device)


def test_offsets_win_over_lengths(device, torch_ref):
    # PyTorch reads offsets when both are given, and ignores lengths altogether
    x = mt.arange(6.0, device=device)
    out = mt.segment_reduce(x, "sum", lengths=mt.tensor([7, -1], device=device),
                            offsets=mt.tensor([0, 1, 6], device=device))
    ref = torch_ref.segment_reduce(torch_ref.arange(6.0), "sum",
                                   lengths=torch_ref.tensor([7, -1]),
                                   offsets=torch_ref.tensor([0, 1, 6]))
    assert out.tolist() == ref.tolist() == [0.0, 15.0]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_dtypes_kept(dtype, device, torch_ref):
    values = np.arange(6.0) - 2
    x = mt.tensor(values, dtype=getattr(mt, dtype), device=device)
    ref = torch_ref.segment_reduce(torch_ref.tensor(values, dtype=getattr(torch_ref, dtype)),
                                   "prod", lengths=torch_ref.tensor([2, 4]))
    out = mt.segment_reduce(x, "prod", lengths=mt.tensor([2, 4], device=device))
    assert out.dtype is getattr(mt, dtype)
    np.testing.assert_allclose(out.cpu().numpy(), ref.numpy())


def test_long_segment_many_rounds(device, torch_ref):
    # the doubling scan: 9 rounds for a segment of 300, exact for max
    values = np.random.default_rng(0).standard_normal((301, 2))
    for reduce in ("max", "min", "prod", "sum"):
        ours, theirs = _pair(torch_ref, device, values, reduce, lengths=[1, 300])
        for a, b in zip(ours[:2], theirs[:2]):
            np.testing.assert_allclose(a, b, rtol=1e-9)


def test_second_backward_is_refused_as_in_torch():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = mt.segment_reduce(x, "sum", lengths=mt.tensor([1, 2]))
    (grad,) = mt.autograd.grad(out.sum(), x, create_graph=True)
    with pytest.raises((RuntimeError, NotImplementedError)):
        grad.sum().backward()


def test_meta_output_and_gradient_shapes():
    x = mt.empty(2, 7, 3, device="meta", requires_grad=True)
    out = mt.segment_reduce(x, "max", lengths=mt.empty(2, 4, dtype=mt.int64, device="meta"),
                            axis=1)
    assert out.shape == (2, 4, 3) and out.is_meta
    assert out.grad_fn.name() == "SegmentReduceBackward0"
    out.sum().backward()
    assert x.grad.shape == x.shape and x.grad.is_meta


# (call, PyTorch's error type, the start of its message on our side and PyTorch's side)
ERRORS = [
    ("indices", lambda T, x: T.segment_reduce(x, "sum", indices=T.tensor([0, 1])),
     RuntimeError, "segment_reduce(): indices based reduction is not supported yet."),
    ("no_segments", lambda T, x: T.segment_reduce(x, "sum"), RuntimeError,
     "segment_reduce(): Either lengths or offsets must be defined."),
    ("bad_reduce", lambda T, x: T.segment_reduce(x, "SUM", lengths=T.tensor([2, 4])),
     RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got SUM"),
    ("reduce_not_str", lambda T, x: T.segment_reduce(x, 1, lengths=T.tensor([2, 4])),
     TypeError, "segment_reduce(): argument 'reduce' (position 2) must be str, not int"),
    ("axis_float", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 4]), axis=0.0),
     TypeError, "segment_reduce(): argument 'axis' must be int, not float"),
    ("unsafe_int", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 4]), unsafe=1),
     TypeError, "segment_reduce(): argument 'unsafe' must be bool, not int"),
    ("initial_str", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 4]),
                                                  initial="a"),
     TypeError, "segment_reduce(): argument 'initial' must be Number, not str"),
    ("initial_overflow", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 4]),
                                                       initial=1e39),
     RuntimeError, None),
    ("lengths_list", lambda T, x: T.segment_reduce(x, "sum", lengths=[2, 4]), TypeError,
     "segment_reduce(): argument 'lengths' must be Tensor, not list"),
    ("positional_lengths", lambda T, x: T.segment_reduce(x, "sum", T.tensor([2, 4])),
     TypeError, None),
    ("axis_out_of_range", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 4]),
                                                        axis=1),
     IndexError, None),
    ("axis_not_last_of_lengths", lambda T, x: T.segment_reduce(x, "sum",
                                                               lengths=T.tensor(6)),
     RuntimeError, "segment_reduce(): Expected axis to be the last dimension of lengths but "
                   "got 0."),
    ("lengths_more_dims", lambda T, x: T.segment_reduce(x, "sum",
                                                        lengths=T.tensor([[2, 4]])),
     RuntimeError, None),
    ("negative_length", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([7, -1])),
     RuntimeError, "lengths contains negative value!"),
    ("lengths_sum", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2, 3])),
     RuntimeError, "segment_reduce(): Expected all rows of lengths along axis to sum to "
                   "data.size(lengths.dim()-1) when !unsafe"),
    ("float_lengths", lambda T, x: T.segment_reduce(x, "sum", lengths=T.tensor([2.0, 4.0])),
     NotImplementedError, None),
    ("int16_lengths", lambda T, x: T.segment_reduce(
        x, "sum", lengths=T.tensor([2, 4], dtype=T.int16)), NotImplementedError, None),
    ("int_data", lambda T, x: T.segment_reduce(x.long(), "sum", lengths=T.tensor([2, 4])),
     NotImplementedError, None),
    ("bool_data", lambda T, x: T.segment_reduce(x > 0, "sum", lengths=T.tensor([2, 4])),
     NotImplementedError, None),
    ("decreasing_offsets", lambda T, x: T.segment_reduce(x, "sum",
                                                         offsets=T.tensor([0, 4, 3])),
     RuntimeError, None),
]


@pytest.mark.parametrize("name,call,error,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_torch(name, call, error, message, torch_ref):
    with pytest.raises(error) as ours:
        call(mt, mt.arange(6.0))
    with pytest.raises(error) as theirs:
        call(torch_ref, torch_ref.arange(6.0))
    if message is not None:
        assert str(ours.value).startswith(message)
        assert str(theirs.value).startswith(message)


# where PyTorch reads outside its arrays (or fails on an unrelated check), a clear error
OUR_ERRORS = [
    ("offsets_past_end", dict(offsets=[0, 3, 9]), "within [0, 6]"),
    ("negative_offset", dict(offsets=[-1, 3, 6]), "from -1 to 6"),
    ("empty_offsets", dict(offsets=[]), "at least one bound"),
    ("unsafe_lengths_past_end", dict(lengths=[3, 4], unsafe=True), "sums to 7"),
    ("empty_lengths", dict(lengths=[]), "sums to 0"),
]


@pytest.mark.parametrize("name,options,words", OUR_ERRORS, ids=[e[0] for e in OUR_ERRORS])
def test_out_of_range_segments_are_errors(name, options, words, device):
    kw = {k: mt.tensor(v, dtype=mt.int64, device=device) if isinstance(v, list) else v
          for k, v in options.items()}
    with pytest.raises(RuntimeError) as info:
        mt.segment_reduce(mt.arange(6.0, device=device), "sum", **kw)
    assert words in str(info.value)


def test_lead_dims_must_match():
    # PyTorch reads past a (1, 2) lengths for 4 rows of data (garbage or a crash)
    x = mt.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"dims before axis 1, \(4,\)"):
        mt.segment_reduce(x, "max", lengths=mt.tensor([[2, 3]]), axis=1)
    with pytest.raises(RuntimeError, match="must have data's dims"):
        mt.segment_reduce(mt.ones(4, 5, device="meta"), "max",
                          lengths=mt.ones(3, 2, dtype=mt.int64, device="meta"), axis=1)


def test_unsafe_lengths_may_sum_short(device, torch_ref):
    x = mt.arange(5.0, device=device)
    out = mt.segment_reduce(x, "sum", lengths=mt.tensor([2, 2], device=device), unsafe=True)
    ref = torch_ref.segment_reduce(torch_ref.arange(5.0), "sum",
                                   lengths=torch_ref.tensor([2, 2]), unsafe=True)
    assert out.tolist() == ref.tolist() == [1.0, 5.0]


def test_initial_as_0d_tensor_and_big_int():
    x = mt.arange(4.0)
    out = mt.segment_reduce(x, "sum", lengths=mt.tensor([2, 2]), initial=mt.tensor(1.0))
    assert out.tolist() == [2.0, 6.0]
    with pytest.raises(OverflowError, match="int too big to convert"):
        mt.segment_reduce(x, "sum", lengths=mt.tensor([2, 2]), initial=2 ** 70)
