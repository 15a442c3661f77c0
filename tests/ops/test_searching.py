"""searchsorted, bucketize, isin, histc, argwhere, tril/triu_indices, unravel_index: values
against PyTorch on random and edge inputs, dtypes, meta shapes, errors. None of them has a
gradient (their outputs are positions, flags or counts)."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.errors import DataDependentShapeError
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

NAN, INF = float("nan"), float("inf")


def _sorted(shape, kind):
    """``Arg`` data sorted along the last dim (for the cases below)."""
    return Arg(shape, kind, grad=False)


CASES = [
    Case("searchsorted_1d", lambda T, F, s, v: T.searchsorted(T.sort(s).values, v),
         [_sorted((7,), "normal"), Arg((3, 4), grad=False)]),
    Case("searchsorted_right_int32",
         lambda T, F, s, v: T.searchsorted(T.sort(s).values, v, right=True, out_int32=True),
         [_sorted((6,), "int:5"), Arg((2, 5), "int:6")]),
    Case("searchsorted_batched_side",
         lambda T, F, s, v: T.searchsorted(T.sort(s).values, v, side="right"),
         [_sorted((2, 3, 6), "int:4"), Arg((2, 3, 4), "int:5")]),
    Case("searchsorted_sorter",
         lambda T, F, s, v: T.searchsorted(s, v, sorter=T.argsort(s, stable=True)),
         [_sorted((2, 5), "int:4"), Arg((2, 3), "int:5")]),
    Case("bucketize", lambda T, F, v, s: T.bucketize(v, T.sort(s).values),
         [Arg((4, 3), grad=False), _sorted((5,), "normal")]),
    Case("bucketize_right_0d", lambda T, F, v, s: T.bucketize(v, T.sort(s).values, right=True),
         [Arg((), "int:4"), _sorted((4,), "int:4")]),
    Case("isin", lambda T, F, a, b: T.isin(a, b), [Arg((3, 4), "int:6"), Arg((2, 2), "int:6")]),
    Case("isin_invert", lambda T, F, a, b: T.isin(a, b, invert=True),
         [Arg((5,), "int:4"), Arg((3,), "int:4")]),
    Case("histc", lambda T, F, x: T.histc(x, bins=5, min=-1, max=1), [Arg((20,), grad=False)]),
    Case("histc_method_2d", lambda T, F, x: x.histc(4, -2, 2), [Arg((3, 5), grad=False)]),
    Case("argwhere", lambda T, F, x: T.argwhere(x), [Arg((3, 4), "int:2")], meta=False),
    Case("argwhere_method", lambda T, F, x: x.argwhere(), [Arg((2, 3, 2), "bool")], meta=False),
    Case("unravel_index", lambda T, F, i: T.stack(T.unravel_index(i, (3, 4))),
         [Arg((5,), "int:12")]),
]

_, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _pair(array):
    """The same data as a minitorch and a torch tensor (on cpu)."""
    return mt.tensor(array), torch.tensor(array)


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


# -- searchsorted and bucketize ---------------------------------------------------------

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8"]


def _random_search(rng, batched: bool):
    """A sorted sequence (with repeats), values (some equal to its elements) and keywords."""
    lead = tuple(rng.integers(0, 3, rng.integers(1, 3))) if batched else ()
    m, k = int(rng.integers(0, 7)), int(rng.integers(0, 5))
    s_dtype, v_dtype = rng.choice(DTYPES), rng.choice(DTYPES)
    s = np.sort(rng.integers(0, 8, lead + (m,)), -1).astype(s_dtype)
    if s_dtype.startswith("float"):
        s = s + rng.choice([0.0, 0.5], s.shape).astype(s_dtype)
        s = np.sort(s, -1)
    if batched:
        v = rng.integers(-1, 10, lead + (k,)).astype(v_dtype)
    else:
        v = rng.integers(-1, 10, tuple(rng.integers(0, 3, rng.integers(0, 3)))).astype(v_dtype)
    if v_dtype.startswith("float") and v.size:
        v.flat[rng.integers(0, v.size)] += 0.5  # between two elements
    right = bool(rng.integers(0, 2))
    return s, v, right


@pytest.mark.parametrize("batched", [False, True])
def test_searchsorted_random_against_torch(batched, device):
    rng = np.random.default_rng(1)
    for _ in range(150):
        s, v, right = _random_search(rng, batched)
        side = ["left", "right"][right] if rng.random() < 0.5 else None
        keywords = dict(right=right) if side is None else dict(side=side)
        out_int32 = bool(rng.integers(0, 2))
        ours = mt.searchsorted(mt.tensor(s, device=device), mt.tensor(v, device=device),
                               out_int32=out_int32, **keywords)
        theirs = torch.searchsorted(torch.tensor(s), torch.tensor(v), out_int32=out_int32,
                                    **keywords)
        _same(ours, theirs)


def test_searchsorted_sorter_random_against_torch(device):
    rng = np.random.default_rng(2)
    for _ in range(60):
        lead = tuple(rng.integers(1, 3, rng.integers(0, 2)))
        s = rng.integers(0, 6, lead + (int(rng.integers(0, 7)),)).astype(np.float32)
        v = rng.integers(-1, 7, lead + (int(rng.integers(1, 4)),)).astype(np.float32)
        order = np.argsort(s, -1, kind="stable")
        for right in (False, True):
            ours = mt.searchsorted(mt.tensor(s, device=device), mt.tensor(v, device=device),
                                   right=right, sorter=mt.tensor(order, device=device))
            theirs = torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right,
                                        sorter=torch.tensor(order))
            _same(ours, theirs)


def test_bucketize_random_against_torch(device):
    rng = np.random.default_rng(3)
    for _ in range(80):
        s, v, right = _random_search(rng, batched=False)
        ours = mt.bucketize(mt.tensor(v, device=device), mt.tensor(s, device=device),
                            right=right)
        _same(ours, torch.bucketize(torch.tensor(v), torch.tensor(s), right=right))


@pytest.mark.parametrize("value", [2, 2.5, -1, 9, True, np.float32(3.0)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
def test_scalar_values_as_torch(value, dtype, device):
    s = np.array([0, 1, 2, 2, 3, 5], dtype)
    for right in (False, True):
        ours = mt.searchsorted(mt.tensor(s, device=device), value, right=right)
        theirs = torch.searchsorted(torch.tensor(s), value, right=right)
        _same(ours, theirs)
        ours = mt.bucketize(value, mt.tensor(s, device=device), right=right, out_int32=True)
        _same(ours, torch.bucketize(value, torch.tensor(s), right=right, out_int32=True))


def test_infinities_signed_zeros_and_nan_values_as_torch(device):
    s = np.array([-INF, -1.0, -0.0, 0.0, 1.0, INF], np.float32)
    v = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, 2.0, -NAN], np.float32)
    for right in (False, True):
        ours = mt.searchsorted(mt.tensor(s, device=device), mt.tensor(v, device=device),
                               right=right)
        _same(ours, torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right))


def test_nan_in_the_sequence_counts_as_the_largest_value(device):
    # PyTorch's bisection reads NaN as smaller than every value, so its answer there depends
    # on the path of its search (docs/differences.md); ours is the order sort gives.
    s = mt.tensor([[1.0, 2.0, NAN, NAN], [0.0, NAN, NAN, NAN]], device=device)
    v = mt.tensor([[1.5, NAN], [5.0, NAN]], device=device)
    assert mt.searchsorted(s, v).tolist() == [[1, 2], [1, 1]]
    assert mt.searchsorted(s, v, right=True).tolist() == [[1, 4], [1, 4]]


def test_compared_in_the_promoted_dtype(device):
    s, v = np.array([2.0**24, 2.0**25], np.float32), np.array([2**24 + 1, 2**25 - 1])
    for right in (False, True):
        ours = mt.searchsorted(mt.tensor(s, device=device), mt.tensor(v, device=device),
                               right=right)
        _same(ours, torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right))


def test_a_large_batch_is_exact(device):
    # Rows of float64 values 1 ulp apart: shifting the values per row would round them.
    rng = np.random.default_rng(4)
    base = 1e15 + rng.integers(0, 4, (50, 30)).cumsum(1).astype(np.float64)
    s = np.sort(base, 1)
    v = s[:, ::3] + rng.choice([-1.0, 0.0, 1.0], (50, 10))
    for right in (False, True):
        ours = mt.searchsorted(mt.tensor(s, device=device), mt.tensor(v, device=device),
                               right=right)
        _same(ours, torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right))


@pytest.mark.parametrize("s_shape, v_shape", [((0,), (3,)), ((4,), (0,)), ((2, 0), (2, 3)),
                                              ((0, 3), (0, 2)), ((3, 4), (3, 0)), ((1, 4), (1, 3)),
                                              ((5,), ())])
def test_empty_and_edge_shapes_as_torch(s_shape, v_shape, any_device):
    rng = np.random.default_rng(5)
    s = np.sort(rng.integers(0, 5, s_shape), -1).astype(np.float32)
    v = rng.integers(0, 6, v_shape).astype(np.float32)
    theirs = torch.searchsorted(torch.tensor(s), torch.tensor(v))
    if any_device == "meta":
        ours = mt.searchsorted(mt.empty(s_shape, device="meta"), mt.empty(v_shape, device="meta"))
        assert ours.is_meta and ours.shape == theirs.shape and ours.dtype is mt.int64
        return
    _same(mt.searchsorted(mt.tensor(s, device=any_device), mt.tensor(v, device=any_device)),
          theirs)


def test_no_gradient_and_no_methods(device):
    s = mt.tensor([0.0, 1.0, 2.0], device=device, requires_grad=True)
    v = mt.tensor([0.5, 1.5], device=device, requires_grad=True)
    out = mt.searchsorted(s, v)
    assert out.grad_fn is None and not out.requires_grad
    assert not mt.bucketize(v, s).requires_grad
    # PyTorch has no Tensor.searchsorted or Tensor.bucketize
    assert not hasattr(mt.Tensor, "searchsorted") and not hasattr(torch.Tensor, "searchsorted")
    assert not hasattr(mt.Tensor, "bucketize") and not hasattr(torch.Tensor, "bucketize")


SEARCH_PREFIX = "searchsorted: "


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.searchsorted(x, x.sum()), RuntimeError,
     "searchsorted: input value can be a scalar only when boundaries tensor dimension is 1, but "
     "we got boundaries tensor dim(3) and input value's dim(0) numel(1); give the values the "
     "sequence's leading dims"),
    (lambda x: mt.searchsorted(x, 2.0), RuntimeError,
     "searchsorted: input value can be a scalar only when boundaries tensor dimension is 1, but "
     "we got boundaries tensor dim(3) and input value's dim(0) numel(1); give the values the "
     "sequence's leading dims"),
    (lambda x: mt.searchsorted(x.sum(), x), RuntimeError,
     "searchsorted: boundaries tensor should have positive dimension, but got 0 dimension"),
    (lambda x: mt.searchsorted(x, x[0]), RuntimeError,
     "searchsorted: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
     "boundaries tensor and input value tensor must match, but we got boundaries tensor "
     "(2, 3, 4) and input value tensor (3, 4)"),
    (lambda x: mt.searchsorted(x, x.transpose(0, 1)), RuntimeError,
     "searchsorted: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
     "boundaries tensor and input value tensor must match, but we got boundaries tensor "
     "(2, 3, 4) and input value tensor (3, 2, 4)"),
    (lambda x: mt.searchsorted(x, x, sorter=x[0].long()), RuntimeError,
     "searchsorted: boundary and sorter must have the same size, but got boundary tensor "
     "(2, 3, 4) and got sorter tensor (3, 4)"),
    (lambda x: mt.searchsorted(x, x, sorter=x.int()), RuntimeError,
     "searchsorted: sorter must be a tensor of long dtype but got dtype torch.int32; argsort "
     "gives one, or convert with .long()"),
    (lambda x: mt.searchsorted(x > 0, x > 0), NotImplementedError,
     "searchsorted: not implemented for bool (the sorted sequence and the values are compared "
     "as bool); convert them first, e.g. with .int()"),
    (lambda x: mt.searchsorted(x, x, side="middle"), RuntimeError,
     "searchsorted(): side can only be 'left' or 'right' but got middle"),
    (lambda x: mt.searchsorted(x, x, side="left", right=True), RuntimeError,
     "searchsorted(): side and right can't be set to opposites, got side of left while right "
     "was True; give only one of them"),
    (lambda x: mt.searchsorted(x, x, side=1), TypeError,
     "searchsorted(): argument 'side' must be str, not int"),
    (lambda x: mt.searchsorted(x, x, right=1), TypeError,
     "searchsorted(): argument 'right' must be bool, not int"),
    (lambda x: mt.searchsorted(x, [1.0]), TypeError,
     "searchsorted(): argument 'input' must be Tensor or Number, not list"),
    (lambda x: mt.searchsorted([1.0, 2.0], x), TypeError,
     "searchsorted(): argument 'sorted_sequence' must be Tensor, not list"),
    (lambda x: mt.bucketize(x, x), RuntimeError,
     "bucketize: boundaries tensor must be 1 dimension, but got dim(3) (shape (2, 3, 4))"),
    (lambda x: mt.bucketize(x, x.sum()), RuntimeError,
     "bucketize: boundaries tensor must be 1 dimension, but got dim(0) (shape ())"),
    (lambda x: mt.bucketize(x > 0, x[0, 0] > 0), NotImplementedError,
     "bucketize: not implemented for bool (the sorted sequence and the values are compared "
     "as bool); convert them first, e.g. with .int()"),
    (lambda x: mt.bucketize(x, x[0, 0], out_int32=None), TypeError,
     "bucketize(): argument 'out_int32' must be bool, not NoneType"),
])
def test_search_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


@pytest.mark.parametrize("call", [
    lambda x: torch.searchsorted(x, x.sum()), lambda x: torch.searchsorted(x.sum(), x),
    lambda x: torch.searchsorted(x, x[0]), lambda x: torch.searchsorted(x, x, sorter=x.int()),
    lambda x: torch.searchsorted(x, x, sorter=x[0].long()),
    lambda x: torch.searchsorted(x, x, side="middle"), lambda x: torch.bucketize(x, x),
    lambda x: torch.searchsorted(x, x, side="left", right=True)])
def test_torch_raises_runtime_error_there_too(call):
    with pytest.raises(RuntimeError):
        call(torch.ones(2, 3, 4))


def test_sorter_out_of_range_is_read_from_the_data(device):
    s = mt.tensor([3.0, 1.0, 2.0], device=device)
    for bad, low, high in (([1, 2, 3], 1, 3), ([-1, 0, 1], -1, 1)):
        with pytest.raises(RuntimeError, match=rf"searchsorted: sorter index out of range: it "
                                               rf"must hold positions in \[0, 2\] along the last "
                                               rf"dim \(as argsort gives them\), but holds values "
                                               rf"from {low} to {high}"):
            mt.searchsorted(s, s, sorter=mt.tensor(bad, device=device))
        with pytest.raises(RuntimeError, match="sorter index out of range"):
            torch.searchsorted(torch.tensor([3.0, 1.0, 2.0]), torch.tensor([1.0]),
                               sorter=torch.tensor(bad))
    # meta has no data to check: the shape is all it gives
    out = mt.searchsorted(s.to("meta"), s.to("meta"), sorter=mt.tensor([1, 2, 3]).to("meta"))
    assert out.is_meta and out.shape == (3,)


def test_searchsorted_on_a_huge_meta_batch():
    s = mt.empty(2**20, 2**10, 2**12, device="meta")
    out = mt.searchsorted(s, mt.empty(2**20, 2**10, 7, device="meta"), out_int32=True)
    assert out.is_meta and out.shape == (2**20, 2**10, 7) and out.dtype is mt.int32


# -- isin -------------------------------------------------------------------------------

def test_isin_random_against_torch(device):
    rng = np.random.default_rng(6)
    for _ in range(120):
        a_dtype, b_dtype = rng.choice(DTYPES), rng.choice(DTYPES)
        a = rng.integers(0, 8, tuple(rng.integers(0, 4, rng.integers(0, 3)))).astype(a_dtype)
        b = rng.integers(0, 8, tuple(rng.integers(0, 4, rng.integers(0, 3)))).astype(b_dtype)
        if b_dtype.startswith("float") and b.size:
            b.flat[0] += 0.5  # a value no integer equals
        invert = bool(rng.integers(0, 2))
        ours = mt.isin(mt.tensor(a, device=device), mt.tensor(b, device=device), invert=invert)
        _same(ours, torch.isin(torch.tensor(a), torch.tensor(b), invert=invert))


def test_isin_special_floats_and_unique_inputs(device):
    a = np.array([1.0, NAN, -0.0, 0.0, INF, -INF, 2.0], np.float32)
    b = np.array([NAN, 0.0, INF, 1.0], np.float64)
    for invert in (False, True):
        for assume_unique in (False, True):  # each side holds distinct values (NaN too)
            ours = mt.isin(mt.tensor(a, device=device), mt.tensor(b, device=device),
                           assume_unique=assume_unique, invert=invert)
            _same(ours, torch.isin(torch.tensor(a), torch.tensor(b), assume_unique=assume_unique,
                                   invert=invert))


@pytest.mark.parametrize("elements, test", [
    (np.array([[1, 2], [3, 4]]), 2), (np.array([1, 2]), 2.5), (2, np.array([[1, 2], [3, 4]])),
    (2.0, np.array([1, 2])), (np.array([1.5, 2.0], np.float32), 2), (np.array(3), 3),
    (np.array([1, 300], np.int64), np.array([44], np.uint8)),
    # compared in float32, the promoted dtype, where 2**24 + 1 rounds to 2**24
    (np.array([2**24 + 1, 3]), np.array([2.0**24, 1.0], np.float32)),
    (np.array([2**24 + 1, 3]), 2.0**24),
])
def test_isin_with_a_number_on_either_side_as_torch(elements, test, device):
    def make(lib, v):
        return lib.tensor(v, device=device) if lib is mt and isinstance(v, np.ndarray) else (
            torch.tensor(v) if isinstance(v, np.ndarray) else v)
    _same(mt.isin(make(mt, elements), make(mt, test)),
          torch.isin(make(torch, elements), make(torch, test)))


ISIN_KEYWORDS = {  # each of PyTorch's three overloads, by its own keyword names
    "tensors": lambda T, x, t: T.isin(elements=x, test_elements=t),
    "test_elements_only": lambda T, x, t: T.isin(x, test_elements=t, invert=True),
    "element_number": lambda T, x, t: T.isin(element=2, test_elements=t),
    "element_number_invert": lambda T, x, t: T.isin(element=5, test_elements=t, invert=True),
    "test_element_number": lambda T, x, t: T.isin(elements=x, test_element=3),
    "test_element_positional": lambda T, x, t: T.isin(x, test_element=3.0, assume_unique=True),
}


@pytest.mark.parametrize("label", list(ISIN_KEYWORDS))
def test_isin_keyword_names_as_torch(label, device):
    data, test = np.array([[1, 2], [3, 4]]), np.array([2, 3])
    ours = ISIN_KEYWORDS[label](mt, mt.tensor(data, device=device), mt.tensor(test, device=device))
    _same(ours, ISIN_KEYWORDS[label](torch, torch.tensor(data), torch.tensor(test)))


def test_isin_meta_and_no_gradient():
    x = mt.empty(2**20, 2**20, device="meta", requires_grad=True)
    out = mt.isin(x, mt.empty(2**30, device="meta"))
    assert out.is_meta and out.shape == x.shape and out.dtype is mt.bool
    assert mt.isin(3, mt.empty(5, device="meta")).shape == ()
    y = mt.tensor([1.0, 2.0], requires_grad=True)
    assert not mt.isin(y, y).requires_grad


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mt.isin(x > 0, x), RuntimeError,
     "Unsupported input type encountered for isin(): Bool; convert both sides to an integer "
     "dtype, e.g. with .int()"),
    (lambda x: mt.isin(x, True), RuntimeError,
     "Unsupported input type encountered for isin(): Bool; convert both sides to an integer "
     "dtype, e.g. with .int()"),
    (lambda x: mt.isin(x, [1]), TypeError,
     "isin(): argument 'test_elements' must be Tensor or Number, not list"),
    (lambda x: mt.isin(x, x, invert=1), TypeError,
     "isin(): argument 'invert' must be bool, not int"),
    (lambda x: mt.isin(2, 3), TypeError,
     "isin(): expected elements or test_elements to be a Tensor, but got int and int"),
    (lambda x: mt.isin(element=x, test_elements=x), TypeError,
     "isin(): argument 'element' must be Number, not Tensor; pass a Tensor as 'elements'"),
    (lambda x: mt.isin(x, test_element=x), TypeError,
     "isin(): argument 'test_element' must be Number, not Tensor; pass a Tensor as "
     "'test_elements'"),
    (lambda x: mt.isin(x, x, test_element=2), TypeError,
     "isin() got both 'test_elements' and 'test_element'; pass one: 'test_elements' for a "
     "Tensor, 'test_element' for a number"),
    (lambda x: mt.isin(test_elements=x), TypeError,
     "isin() missing required argument 'elements' (a Tensor) or 'element' (a number)"),
])
def test_isin_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)


def test_torch_refuses_bool_in_isin_too():
    for a, b in ((torch.ones(3) > 0, torch.ones(2)), (torch.ones(3), True)):
        with pytest.raises(RuntimeError, match="Unsupported input type encountered for isin"):
            torch.isin(a, b)


# -- histc ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_random_against_torch(dtype, device):
    rng = np.random.default_rng(7)
    for _ in range(60):
        x = (rng.standard_normal(tuple(rng.integers(0, 9, rng.integers(0, 3)))) * 3).astype(dtype)
        bins = int(rng.integers(1, 12))
        low, high = sorted(rng.uniform(-4, 4, 2).round(1))
        for keywords in ({}, dict(min=float(low), max=float(high)), dict(min=int(low), max=3)):
            if keywords and keywords["min"] >= keywords["max"]:
                continue
            ours = mt.histc(mt.tensor(x, device=device), bins, **keywords)
            _same(ours, torch.histc(torch.tensor(x), bins, **keywords))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_elements_on_bin_edges_as_torch(dtype, device):
    # Edges that are not exact in binary: where an element on one lands is the rounding of
    # PyTorch's ``(x - min) * bins / (max - min)`` in the input's dtype.
    for bins, low, high in ((10, 0.0, 1.0), (7, -0.3, 0.4), (3, 0.1, 0.7), (100, -1.0, 1.0)):
        edges = np.linspace(low, high, bins + 1).astype(dtype)
        x = np.concatenate([edges, (edges[1:] + edges[:-1]) / 2]).astype(dtype)
        ours = mt.histc(mt.tensor(x, device=device), bins, low, high)
        _same(ours, torch.histc(torch.tensor(x), bins, low, high))


@pytest.mark.parametrize("data, keywords", [
    ([2.0, 2.0], dict(bins=4)),                              # one point: widened by 1
    ([1.0, 2.0, 1.0, 4.0, 2.5], dict(bins=4, min=3, max=3)),  # min == max: the data's range
    ([], dict(bins=3)), ([], dict(bins=3, min=1, max=2)), (5.0, dict(bins=3)),
    ([1.0, NAN, INF, -INF, 3.0], dict(bins=4, min=0, max=4)),  # not counted
    ([[1.0, 2.0], [3.0, 4.0]], dict(bins=3)), ([0.0, 1.0], dict(bins=1, min=0, max=1)),
])
def test_histc_edge_cases_as_torch(data, keywords, device):
    _same(mt.histc(mt.tensor(data, device=device), **keywords),
          torch.histc(torch.tensor(data), **keywords))
    assert mt.tensor(data, device=device).histc(**keywords).dtype is mt.float32


def test_histc_default_bins_no_gradient_and_meta(device):
    x = mt.tensor([0.5, 1.5, 1.5], device=device, requires_grad=True)
    out = mt.histc(x)
    assert out.shape == (100,) and out.sum().item() == 3 and not out.requires_grad
    meta = mt.empty(2**40, device="meta").histc(7)  # the data's range is not needed
    assert meta.is_meta and meta.shape == (7,) and meta.dtype is mt.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.long().histc(), NotImplementedError,
     "histc: not implemented for torch.int64 input; it bins floating-point values (convert "
     "with .float())"),
    (lambda x: (x > 0).histc(), NotImplementedError,
     "histc: not implemented for torch.bool input; it bins floating-point values (convert "
     "with .float())"),
    (lambda x: x.histc(0), RuntimeError, "histc: bins must be > 0, but got 0"),
    (lambda x: x.histc(-3), RuntimeError, "histc: bins must be > 0, but got -3"),
    (lambda x: x.histc(4, 3, 1), RuntimeError,
     "histc: max must be larger than min, but got min=3 and max=1"),
    (lambda x: x.histc(4, 0, INF), RuntimeError,
     "histc: range of [0, inf] is not finite; give a finite min and max (the data's own range "
     "holds inf or NaN)"),
    (lambda x: x.histc(2.5), TypeError, "histc(): argument 'bins' must be int, not float"),
    (lambda x: x.histc(2, min="0"), TypeError, "histc(): argument 'min' must be Number, not str"),
])
def test_histc_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
    with pytest.raises(error):
        call(torch.ones(2, 3, 4))


def test_histc_range_of_the_data_must_be_finite(device):
    for data, shown in (([1.0, INF], "[1, inf]"), ([NAN, 1.0], "[nan, nan]")):
        with pytest.raises(RuntimeError, match=re.escape(f"histc: range of {shown} is not "
                                                         "finite")):
            mt.histc(mt.tensor(data, device=device), 4)
        with pytest.raises(RuntimeError, match="is not finite"):
            torch.histc(torch.tensor(data), 4)


# -- argwhere ---------------------------------------------------------------------------

ARGWHERE_DATA = [
    np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32),
    np.array([NAN, -0.0, 0.0, INF], np.float64), np.arange(24).reshape(2, 3, 4) % 3,
    np.array([True, False, True]), np.zeros((2, 0), np.float32), np.array(5.0, np.float32),
    np.array(0, np.int32),
]


@pytest.mark.parametrize("data", ARGWHERE_DATA, ids=lambda a: f"{a.dtype}{a.shape}")
def test_argwhere_as_torch(data, device):
    x = mt.tensor(data, device=device)
    _same(mt.argwhere(x), torch.argwhere(torch.tensor(data)))
    _same(x.argwhere(), torch.tensor(data).argwhere())


def test_argwhere_meta_refuses_and_no_gradient():
    with pytest.raises(DataDependentShapeError, match=r"argwhere: the number of nonzero elements "
                                                      r"of a meta tensor \(shape \(4, 5\)\) is "
                                                      r"unknown.*PyTorch's meta refuses argwhere"):
        mt.empty(4, 5, device="meta").argwhere()
    x = mt.tensor([0.0, 2.0], requires_grad=True)
    assert mt.argwhere(x).tolist() == [[1]] and not mt.argwhere(x).requires_grad


# -- tril_indices and triu_indices ------------------------------------------------------

@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_exhaustive_against_torch(name, any_device):
    for row in range(6):
        for col in range(6):
            for offset in range(-7, 8):
                theirs = getattr(torch, name)(row, col, offset)
                ours = getattr(mt, name)(row, col, offset, device=any_device)
                if any_device == "meta":
                    assert ours.is_meta and ours.shape == theirs.shape and ours.dtype is mt.int64
                else:
                    _same(ours, theirs)


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_dtypes_defaults_and_large_counts(name, device):
    ours = getattr(mt, name)(40, 23, -5, dtype=mt.int32, device=device)
    _same(ours, getattr(torch, name)(40, 23, -5, dtype=torch.int32))
    _same(getattr(mt, name)(np.int64(4), 3), getattr(torch, name)(4, 3))
    # the count comes from the sizes alone: a huge meta result allocates nothing
    huge = getattr(mt, name)(2**20, 2**20, device="meta")
    assert huge.shape == (2, 2**19 * (2**20 + 1))
    with mt.device("meta"):
        assert getattr(mt, name)(3, 3).is_meta


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("call, error, message", [
    (lambda f: f(-1, 4), RuntimeError, "{name}: row must be non-negative, got -1"),
    (lambda f: f(3, -4), RuntimeError, "{name}: col must be non-negative, got -4"),
    (lambda f: f(3.0, 3), TypeError, "{name}(): argument 'row' (position 1) must be int, not "
                                     "float"),
    (lambda f: f(3, 3, 0.5), TypeError, "{name}(): argument 'offset' (position 3) must be int, "
                                        "not float"),
    (lambda f: f(3, True), TypeError, "{name}(): argument 'col' (position 2) must be int, not "
                                      "bool"),
    (lambda f: f(3, 3, dtype=mt.float32), NotImplementedError,
     '"{name}" not implemented for torch.float32: the indices are int64 or int32'),
    (lambda f: f(3, 3, dtype=mt.uint8), NotImplementedError,
     '"{name}" not implemented for torch.uint8: the indices are int64 or int32'),
    (lambda f: f(3, 3, requires_grad=True), RuntimeError,
     "only Tensors of floating point dtype can require gradients, this one is torch.int64"),
])
def test_triangle_indices_errors(name, call, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            call(functools.partial(getattr(mt, name), device=device))
        assert str(info.value) == message.format(name=name)
    with pytest.raises(error):  # PyTorch raises the same type
        call(lambda *a, **k: getattr(torch, name)(
            *a, **{key: getattr(torch, str(v).split(".")[-1]) if key == "dtype" else v
                   for key, v in k.items()}))


# -- unravel_index ----------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (5,), 7, [2, 1, 6], (), (1, 1),
                                   torch.Size([4, 2])])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_unravel_index_as_torch(shape, dtype, device):
    n = math.prod(shape) if not isinstance(shape, int) else shape
    rng = np.random.default_rng(8)
    for index_shape in ((6,), (2, 3), ()):
        low = 0 if dtype == "uint8" else -2 * n - 1  # out of range wraps, as in PyTorch
        indices = rng.integers(low, 2 * n + 2, index_shape).astype(dtype)
        ours = mt.unravel_index(mt.tensor(indices, device=device),
                                mt.Size(shape) if isinstance(shape, torch.Size) else shape)
        theirs = torch.unravel_index(torch.tensor(indices), shape)
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)


def test_unravel_index_meta_and_empty():
    out = mt.unravel_index(mt.empty(2**30, dtype=mt.int64, device="meta"), (2**20, 2**20))
    assert len(out) == 2 and all(o.is_meta and o.shape == (2**30,) for o in out)
    empty = mt.unravel_index(mt.tensor([], dtype=mt.int64), (0, 3))
    assert [tuple(e.shape) for e in empty] == [(0,), (0,)]


@pytest.mark.parametrize("indices, shape, error, message", [
    (np.array([1.0], np.float32), (3, 4), TypeError,
     "expected 'indices' to be integer dtype, but got torch.float32"),
    (np.array([True]), (3, 4), TypeError,
     "expected 'indices' to be integer dtype, but got torch.bool"),
    (np.array([1]), (-1, 3), ValueError, "'shape' cannot have negative values, but got (-1, 3)"),
    (np.array([1]), (3.0, 4), TypeError,
     "expected 'shape' sequence to only contain ints, but got <class 'float'>"),
    (np.array([1]), {3, 4}, TypeError,
     "expected 'shape' to be int or sequence of ints, but got <class 'set'>"),
    (np.array([1]), "34", TypeError,
     "expected 'shape' sequence to only contain ints, but got <class 'str'>"),
])
def test_unravel_index_errors(indices, shape, error, message):
    for device in ("cpu", "meta"):
        with pytest.raises(error) as info:
            mt.unravel_index(mt.tensor(indices).to(device), shape)
        assert str(info.value) == message
    with pytest.raises(error):
        torch.unravel_index(torch.tensor(indices), shape)


def test_unravel_index_into_an_empty_shape_divides_by_zero(any_device):
    with pytest.raises(RuntimeError) as info:
        mt.unravel_index(mt.tensor([0, 1]).to(any_device), (2, 0, 3))
    assert str(info.value) == ("ZeroDivisionError: unravel_index: the shape (2, 0, 3) has no "
                               "elements, so no flat index lies in it (got 2 indices)")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.unravel_index(torch.tensor([0]), (0, 3))
