"""split, chunk and unbind: views along a dim, their gradients, names and errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (5, 4, 3)


def _weighted_cat(T, pieces, dim=0):
    """Every piece back in one tensor, each scaled differently, so that a gradient sent to
    the wrong piece shows."""
    return T.cat([p * (i + 1) for i, p in enumerate(pieces)], dim)


CASES = [
    Case("split_int_all_pieces", lambda T, F, a: _weighted_cat(T, a.split(2)), [Arg(S)]),
    Case("split_int_first", lambda T, F, a: a.split(2, dim=1)[1], [Arg(S)]),
    Case("split_int_last_smaller", lambda T, F, a: T.split(a, 2)[-1], [Arg(S)]),
    Case("split_int_larger_than_dim", lambda T, F, a: a.split(9)[0], [Arg(S)]),
    Case("split_neg_dim", lambda T, F, a: _weighted_cat(T, a.split(2, -1), -1), [Arg(S)]),
    Case("split_sections", lambda T, F, a: T.split(a, [1, 3, 1]), [Arg(S)]),
    Case("split_sections_tuple_dim", lambda T, F, a: _weighted_cat(T, a.split((3, 0, 1), 1), 1),
         [Arg(S)]),
    Case("split_sections_middle", lambda T, F, a: a.split([2, 2, 1])[1], [Arg(S)]),
    Case("chunk_all_pieces", lambda T, F, a: _weighted_cat(T, a.chunk(3)), [Arg(S)]),
    Case("chunk_fewer_than_asked", lambda T, F, a: T.chunk(a, 4)[-1], [Arg(S)]),
    Case("chunk_dim", lambda T, F, a: a.chunk(2, dim=1)[1], [Arg(S)]),
    Case("chunk_more_than_length", lambda T, F, a: a.chunk(7, -1), [Arg(S)]),
    Case("unbind", lambda T, F, a: a.unbind()[1], [Arg(S)]),
    Case("unbind_dim", lambda T, F, a: T.unbind(a, -1)[2], [Arg(S)]),
    Case("unbind_all_pieces", lambda T, F, a: T.stack([p * (i + 1) for i, p in
                                                       enumerate(a.unbind(1))], 1), [Arg(S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES, seeds=(0, 1))


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


PIECE_CALLS = {
    "split": ((6, 5), lambda T, x: x.split(2)),
    "split_sections": ((6, 5), lambda T, x: T.split(x, [1, 4, 0, 0], 1)),
    "split_larger_than_dim": ((6, 5), lambda T, x: x.split(10, 1)),
    "split_zero_over_empty_dim": ((6, 0), lambda T, x: x.split(0, 1)),
    "split_empty_dim": ((6, 0), lambda T, x: x.split(3, 1)),
    "chunk": ((6, 5), lambda T, x: x.chunk(4)),
    "chunk_uneven": ((5, 6), lambda T, x: T.chunk(x, 4)),
    "chunk_dim": ((6, 5), lambda T, x: T.chunk(x, 3, 1)),
    "chunk_empty_dim": ((6, 0), lambda T, x: x.chunk(3, 1)),
    "unbind": ((6, 5), lambda T, x: x.unbind(1)),
    "unbind_neg": ((6, 5), lambda T, x: T.unbind(x, -2)),
}


@pytest.mark.parametrize("name", list(PIECE_CALLS))
def test_every_piece_matches_torch(name, device):
    torch = _torch()
    shape, call = PIECE_CALLS[name]
    data = np.arange(float(np.prod(shape))).reshape(shape)
    ours = call(mt, mt.tensor(data, device=device, requires_grad=True))
    theirs = call(torch, torch.tensor(data, requires_grad=True))
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        assert o.grad_fn.name() == t.grad_fn.name()
        np.testing.assert_array_equal(o.detach().cpu().numpy(), t.detach().numpy())
    meta = call(mt, mt.empty(shape, device="meta", requires_grad=True))
    assert [m.shape for m in meta] == [o.shape for o in ours]


@settings(max_examples=60, deadline=None)
@given(length=st.integers(0, 12), size=st.integers(0, 14), chunks=st.integers(1, 14))
def test_piece_lengths_are_torchs(length, size, chunks):
    torch = _torch()
    ours, theirs = mt.empty(3, length, device="meta"), torch.empty(3, length)
    assert [p.shape for p in ours.chunk(chunks, 1)] == [p.shape for p in theirs.chunk(chunks, 1)]
    if size or not length:
        assert [p.shape for p in ours.split(size, 1)] == [p.shape for p in
                                                           theirs.split(size, 1)]


def test_the_method_takes_split_size_by_name():
    assert [p.tolist() for p in mt.arange(3).split(split_size=2)] == [[0, 1], [2]]
    assert len(mt.split(mt.arange(3), split_size_or_sections=[1, 2])) == 2


def test_pieces_are_views_of_the_input():
    x = mt.zeros(4, 3)
    first, second = x.split(2)
    row = x.unbind()[3]
    with mt.no_grad():
        first[1, 2] = 1.0
        second.fill_(2.0)
        row[0] = 3.0
    assert x.tolist() == [[0, 0, 0], [0, 0, 1], [2, 2, 2], [3, 2, 2]]
    assert x._version == first._version == row._version == 3


def test_split_is_a_tuple_and_its_gradient_reaches_every_piece():
    x = mt.arange(5.0, requires_grad=True)
    pieces = mt.split(x, 2)
    assert type(pieces) is tuple and [p.tolist() for p in pieces] == [[0, 1], [2, 3], [4]]
    (pieces[0].sum() + 2 * pieces[2].sum()).backward()
    assert x.grad.tolist() == [1, 1, 0, 0, 2]


def test_split_takes_sizes_from_tensors_as_pytorch():
    x = mt.arange(6.0)
    assert [p.tolist() for p in x.split(mt.tensor(4))] == [[0, 1, 2, 3], [4, 5]]
    assert [len(p) for p in x.split(mt.tensor([1, 5]))] == [1, 5]


def test_a_huge_meta_tensor_is_cut_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.chunk(3, 2)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        halves = x.split(2**19, 1)
        chunks = x.chunk(3, 2)
        pieces = x.split([1, 2**20 - 1])
        (halves[1].sum() + chunks[2].sum() + pieces[0].sum()).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [c.shape[2] for c in chunks] == [342, 342, 340]
    assert halves[0].shape == (2**20, 2**19, 2**10) and pieces[1].shape[0] == 2**20 - 1
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"
    assert len(mt.empty(7, 2**40, device="meta").unbind()) == 7


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.split(0), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 2"),
    (lambda x: x.split(-1), RuntimeError,
     "split expects split_size be non-negative, but got split_size=-1"),
    (lambda x: x.split([1, 1], 1), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
     "dimension 1), but got split_sizes=[1, 1]"),
    (lambda x: mt.split(x, (2, -1, 1), -1), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got "
     "split_sizes=[2, -1, 1]"),
    (lambda x: x.split(1.5), TypeError,
     "split(): argument 'split_size_or_sections' must be an int or a sequence of ints, but "
     "got float (1.5)"),
    (lambda x: x.split([1, 1.0]), TypeError,
     "split_with_sizes(): argument 'split_sizes' must be int, not float"),
    (lambda x: x.split(1, 3), IndexError,
     "split: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.sum().split(1), RuntimeError, "split expects at least a 1-dimensional tensor"),
    (lambda x: x.chunk(0), RuntimeError,
     "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda x: x.chunk(2.0), TypeError, "chunk(): argument 'chunks' must be int, not float"),
    (lambda x: x.sum().chunk(1), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    (lambda x: x.chunk(2, -4), IndexError,
     "chunk: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.sum().unbind(), IndexError,
     "unbind: Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: x.unbind(3), IndexError,
     "unbind: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
