"""as_strided (function, method, in place, copy) and as_strided_scatter: values, gradients
(first and second order, overlapping windows and inputs) against PyTorch, meta shapes,
memory sharing, storage offsets, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.autograd.second_order import (
    assert_hvp_matches_finite_differences,
    assert_second_order_equal_pytorchs,
)
from tests.devices import tensor_device
from tests.ops.harness import (
    Arg,
    Case,
    check_against_torch,
    check_gradients,
    check_meta,
    three_way_tests,
)

CASES = [
    Case("window", lambda T, F, x: T.as_strided(x, (2, 2), (1, 2), 1), [Arg((9,))]),
    Case("method_default_offset", lambda T, F, x: x.as_strided((3, 2), (2, 1)), [Arg((3, 4))]),
    # sliding windows share elements: their gradients add up
    Case("overlapping_windows", lambda T, F, x: x.as_strided((4, 3), (1, 1)), [Arg((6,))]),
    Case("stride_zero", lambda T, F, x: x.as_strided((3, 2), (0, 1), 1), [Arg((4,))]),
    # a view's offset defaults to its own; a given offset counts from its base's start
    Case("slice_default_offset", lambda T, F, x: x[2:].as_strided((2, 3), (3, 1)),
         [Arg((10,))]),
    Case("slice_offset_inside_it", lambda T, F, x: x[3:].as_strided((2, 2), (1, 2), 3),
         [Arg((10,))]),
    Case("transposed_input", lambda T, F, x: x.t().as_strided((2, 3), (1, 4), 2),
         [Arg((3, 4))]),
    # an input whose elements share memory: the gradient is shared among them (PyTorch's)
    Case("expanded_input", lambda T, F, x: x.expand(2, 3).as_strided((2, 2), (1, 1), 0),
         [Arg((3,))]),
    Case("zero_dim", lambda T, F, x: x.as_strided((), (), 3), [Arg((2, 3))]),
    Case("empty", lambda T, F, x: x.as_strided((2, 0), (1, 1), 5) * 2, [Arg((4,))]),
    Case("copy", lambda T, F, x: T.as_strided_copy(x, (2, 2), (1, 3), 1), [Arg((3, 3))]),
    # (the input's gradient is checked below: PyTorch's is wrong)
    Case("scatter", lambda T, F, x, s: T.as_strided_scatter(x, s, (2, 2), (1, 3), 1),
         [Arg((9,), grad=False), Arg((2, 2))]),
    Case("scatter_method_default_offset", lambda T, F, x, s: x.as_strided_scatter(
        s, (2,), (4,)), [Arg((2, 4), grad=False), Arg((2,))]),
    Case("scatter_src_cast", lambda T, F, x, s: T.as_strided_scatter(x, s.double(), (2, 2),
                                                                     (2, 1)),
         [Arg((5,), grad=False), Arg((2, 2))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)

# PyTorch's gradient of as_strided_scatter's input is the gradient inside the window and
# zero outside (its own gradcheck fails; docs/differences.md): ours is the gradient outside
# the window and zero inside, checked by finite differences and on meta only.
SCATTER_INPUT = [
    Case("scatter_input", lambda T, F, x, s: T.as_strided_scatter(x, s, (2, 2), (1, 3), 1),
         [Arg((9,)), Arg((2, 2))]),
    Case("scatter_input_constant_src", lambda T, F, x, s: x.as_strided_scatter(s, (3,), (2,),
                                                                               0),
         [Arg((6,)), Arg((3,), grad=False)]),
    Case("scatter_input_slice", lambda T, F, x, s: x[2:].as_strided_scatter(s, (2,), (3,)),
         [Arg((9,)), Arg((2,))]),
]


@pytest.mark.parametrize("case", SCATTER_INPUT, ids=[c.id for c in SCATTER_INPUT])
def test_scatter_input_gradient(case, device):
    check_gradients(case, device)
    check_meta(case)


def test_scatter_input_gradient_is_zero_in_the_window(device):
    x = mt.ones(6, device=device, requires_grad=True)
    mt.as_strided_scatter(x, mt.zeros(2, device=device), (2,), (2,), 1).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]


# A view of a slice that reads before the slice's start: the values are the base's, but
# the gradient of those elements is lost on the way back through the slice, in PyTorch as
# here (the graph knows only the slice), so no finite-difference check.
OUTSIDE_THE_SLICE = Case("slice_offset_before_it",
                         lambda T, F, x: x[3:].as_strided((2, 2), (1, 2), 1), [Arg((10,))])


@pytest.mark.parametrize("seed", [0, 1])
def test_reading_before_a_slice_matches_torch(seed, device):
    check_against_torch(OUTSIDE_THE_SLICE, device, seed)
    check_meta(OUTSIDE_THE_SLICE)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@pytest.mark.parametrize("make", [
    lambda T, x: T.as_strided(x, (2, 3), (1, 2), 1),
    lambda T, x: x[4:].as_strided((2, 2), (2, 1), 0),
    lambda T, x: x.reshape(3, 4).t().as_strided((3,), (5,)),
    lambda T, x: x.reshape(3, 4)[1:].as_strided((2, 2), (1, 4)),
    lambda T, x: x.as_strided((2, 2), (0, 1), 3),
    lambda T, x: x.expand(2, 12).as_strided((2, 3), (0, 2), 1),
], ids=["function", "slice", "transposed", "row_slice", "stride_zero", "expanded"])
def test_views_share_memory_and_report_torchs_layout(make, device):
    torch = _torch()
    data = np.arange(12.0, dtype=np.float32)
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    view, ref = make(mt, x), make(torch, tx)
    assert view.device == tensor_device(device)
    np.testing.assert_array_equal(view.cpu().numpy(), ref.numpy())
    assert view.stride() == ref.stride()
    assert view.storage_offset() == ref.storage_offset()
    assert view.data_ptr() == x.data_ptr() + view.storage_offset() * 4
    assert view._version_counter is x._version_counter  # writes through it bump x's


def test_writes_through_the_view_reach_the_input(device):
    x = mt.zeros(9, device=device)
    view = x[2:].as_strided((2, 2), (1, 3), 1)
    view.fill_(5.0)
    assert x.tolist() == [0, 5, 5, 0, 5, 5, 0, 0, 0] and x._version == 1
    view[0, 1] = 7.0
    assert x[4].item() == 7.0


def test_writes_into_overlapping_views_as_torch():
    torch = _torch()
    # elements sharing a location through a stride 0: refused, as for expand
    for T in (torch, mt):
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            T.arange(9.0).as_strided((3, 3), (0, 1)).add_(1)
    # other overlaps are not detected by PyTorch either: the write happens
    ours, theirs = mt.arange(9.0), torch.arange(9.0)
    ours.as_strided((3, 3), (1, 1)).fill_(2.0)
    theirs.as_strided((3, 3), (1, 1)).fill_(2.0)
    assert ours.tolist() == theirs.tolist()


def test_in_place_form_reviews_the_storage():
    torch = _torch()
    ours, theirs = mt.arange(9.0), torch.arange(9.0)
    assert ours.as_strided_((2, 2), (1, 2), 1) is ours
    theirs.as_strided_((2, 2), (1, 2), 1)
    assert ours.tolist() == theirs.tolist() and ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset() == 1
    assert mt.as_strided_(mt.arange(4.0), (2,), (2,)).tolist() == [0.0, 2.0]


def test_in_place_form_is_refused_in_a_graph():
    x = mt.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="as_strided_: a leaf Variable that requires grad"):
        x.as_strided_((2,), (1,))


def test_copy_owns_its_memory_and_takes_out(device):
    x = mt.arange(9.0, device=device)
    copy = mt.as_strided_copy(x, (2, 2), (1, 3), 1)
    assert copy.is_contiguous() and copy.storage_offset() == 0
    copy.fill_(0.0)
    assert x.tolist() == list(range(9))
    out = mt.empty(2, 2, device=device)
    assert mt.as_strided_copy(x, (2, 2), (1, 3), 1, out=out) is out
    assert out.tolist() == [[1.0, 4.0], [2.0, 5.0]]


def test_scatter_keeps_the_inputs_layout_and_casts_src(device):
    torch = _torch()
    base = np.arange(9.0, dtype=np.float32)
    ours = mt.tensor(base, device=device).reshape(3, 3).t().as_strided_scatter(
        mt.ones(2, 2, dtype=mt.float64, device=device), (2, 2), (1, 3), 0)
    theirs = torch.tensor(base).reshape(3, 3).t().as_strided_scatter(
        torch.ones(2, 2, dtype=torch.float64), (2, 2), (1, 3), 0)
    assert ours.dtype is mt.float32 and ours.stride() == theirs.stride() == (1, 3)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    # a slice's given offset counts from its base's start, as the view's
    ours = mt.tensor(base, device=device)[1:].as_strided_scatter(
        mt.zeros(2, 2, device=device), (2, 2), (1, 3), 0)
    theirs = torch.tensor(base)[1:].as_strided_scatter(torch.zeros(2, 2), (2, 2), (1, 3), 0)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_scatter_into_an_expanded_input_copies_it_alone():
    torch = _torch()
    ours = mt.arange(3.0).expand(2, 3).as_strided_scatter(mt.zeros(2), (2,), (1,), 1)
    theirs = torch.arange(3.0).expand(2, 3).as_strided_scatter(torch.zeros(2), (2,), (1,), 1)
    assert ours.tolist() == theirs.tolist() and ours.stride() == theirs.stride()


def test_meta_is_not_checked_against_a_storage():
    # PyTorch's meta tensors are not either: only the sizes count there
    view = mt.arange(9.0, device="meta").as_strided((3, 4), (3, 1))
    assert view.is_meta and view.shape == (3, 4)


@pytest.mark.parametrize("name, fn, shapes", [
    ("overlapping_windows", lambda L, d, x: (x.as_strided((4, 3), (1, 1), 1) ** 3).sum(),
     [(7,)]),
    ("expanded_input", lambda L, d, x: (x.expand(2, 3).as_strided((2, 2), (1, 1)) ** 3).sum(),
     [(3,)]),
    ("transposed_slice", lambda L, d, x: (x.t()[1:].as_strided((2, 3), (1, 2), 1).sin()
                                          * x.sum()).sum(), [(3, 4)]),
    ("scatter_src", lambda L, d, s: (L.as_strided_scatter(
        L.arange(9.0, dtype=s.dtype, **({"device": d} if L is mt else {})), s, (2, 2),
        (1, 3), 1) ** 3).sum(), [(2, 2)]),
])
def test_second_order_gradients_match_torch(name, fn, shapes, device):
    _torch()
    arrays = [np.random.default_rng(len(name)).standard_normal(s) for s in shapes]
    assert_second_order_equal_pytorchs(fn, arrays, device)


def test_second_order_gradient_of_the_scatter_input_matches_finite_differences():
    def fn(lib, device, x, s):
        return (lib.as_strided_scatter(x, s, (2, 2), (1, 3), 1) ** 3).sum()

    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(9), rng.standard_normal((2, 2))]
    directions = [rng.standard_normal(9), rng.standard_normal((2, 2))]
    assert_hvp_matches_finite_differences(fn, arrays, directions)


ERRORS = [
    (lambda T, x: x.as_strided((3, 3), (3, 1), 1), RuntimeError,
     "setStorage: sizes [3, 3], strides [3, 1], storage offset 1, and itemsize 4 requiring a "
     "storage size of 40 are out of bounds for storage of size 36"),
    (lambda T, x: x[3:].as_strided((7,), (1,)), RuntimeError,
     "setStorage: sizes [7], strides [1], storage offset 3, and itemsize 4 requiring a "
     "storage size of 40 are out of bounds for storage of size 36"),
    (lambda T, x: x.as_strided((), (), 9), RuntimeError,
     "requiring a storage size of 40 are out of bounds for storage of size 36"),
    (lambda T, x: T.as_strided_scatter(x, T.ones(2, 2), (2, 2), (1, 30), 1), RuntimeError,
     "setStorage: sizes [2, 2], strides [1, 30], storage offset 1, and itemsize 4 requiring "
     "a storage size of 132 are out of bounds for storage of size 36"),
]
SHAPE_ERRORS = [
    (lambda T, x: x.as_strided((3, 3), (3, 1), -1), RuntimeError,
     "Tensor: invalid storage offset -1"),
    (lambda T, x: x.as_strided((3, 3), (3, -1)), RuntimeError,
     "as_strided: Negative strides are not supported at the moment, got strides: [3, -1]"),
    (lambda T, x: x.as_strided((3, 3), (3,)), RuntimeError,
     "mismatch in length of strides and shape"),
    (lambda T, x: x.as_strided((3, -3), (3, 1)), RuntimeError,
     "Storage size calculation overflowed with sizes=[3, -3] and strides=[3, 1]"),
    (lambda T, x: x.as_strided([3], [3], 2.0), TypeError,
     "as_strided(): argument 'storage_offset' (position 3) must be int, not float"),
    (lambda T, x: x.as_strided(3, 3), TypeError,
     "as_strided(): argument 'size' (position 1) must be tuple of ints, not int"),
    (lambda T, x: T.as_strided_scatter(x, T.ones(2, 3, device=x.device), (2, 2), (1, 3), 1),
     RuntimeError, "expected src to have a size equal to the slice of self. src size = "
                   "[2, 3], slice size = [2, 2]"),
    (lambda T, x: T.as_strided_scatter(x, T.ones(3, device=x.device), (3,), (0,), 1),
     RuntimeError, "unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location"),
]


@pytest.mark.parametrize("call, error, message", ERRORS + SHAPE_ERRORS)
def test_errors_match_torch(call, error, message):
    torch = _torch()
    with pytest.raises(error) as theirs:
        call(torch, torch.arange(9.0))
    assert message in str(theirs.value)
    with pytest.raises(error) as ours:
        call(mt, mt.arange(9.0))
    assert message in str(ours.value)


@pytest.mark.parametrize("call, error, message", SHAPE_ERRORS)
def test_argument_errors_are_the_same_on_meta(call, error, message):
    with pytest.raises(error) as info:
        call(mt, mt.empty(9, device="meta"))
    assert message in str(info.value)


def test_scatter_refuses_a_non_contiguous_input_that_requires_grad():
    x = mt.ones(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="only supported for contiguous inputs"):
        mt.as_strided_scatter(x.t(), mt.ones(2), (2,), (1,))
