"""``Tensor.new_empty/new_zeros/new_ones/new_full/new_tensor``: this tensor's dtype and
device unless given, compared with PyTorch on every device (meta included) and dtype."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.test_factories import DTYPES, _reference_device, assert_matches_torch

SIZED = ["new_empty", "new_zeros", "new_ones"]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _sources(torch, dtype: str, device: str):
    """A (2, 3) tensor of ``dtype`` on ``device``, ours and PyTorch's."""
    return (mt.ones(2, 3, dtype=getattr(mt, dtype), device=device),
            torch.ones(2, 3, dtype=getattr(torch, dtype), device=_reference_device(device)))


def _compare(name, ours, theirs, device):
    """As ``assert_matches_torch``; ``new_empty``'s values are uninitialised, so not compared."""
    if name == "new_empty":
        ours, theirs = ours.detach().to("meta"), theirs.detach().to("meta")
        device = "meta"
    assert_matches_torch(ours, theirs, device)


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sized_take_the_source_dtype_and_device(name, dtype, any_device):
    torch = _torch()
    ours, theirs = _sources(torch, dtype, any_device)
    for size in [(4,), (2, 5), ((2, 5),), ([2, 5],), ((),), (0, 3)]:
        _compare(name, getattr(ours, name)(*size), getattr(theirs, name)(*size), any_device)
    _compare(name, getattr(ours, name)(mt.Size([3, 1])),
             getattr(theirs, name)(torch.Size([3, 1])), any_device)


@pytest.mark.parametrize("name", SIZED)
def test_sized_keywords_override_the_source(name, any_device):
    torch = _torch()
    ours, theirs = _sources(torch, "int64", any_device)
    reference = _reference_device(any_device)
    _compare(name, getattr(ours, name)(2, dtype=mt.float64, requires_grad=True),
             getattr(theirs, name)(2, dtype=torch.float64, requires_grad=True), any_device)
    moved = getattr(ours, name)((2,), device="meta")
    assert moved.is_meta and moved.dtype is mt.int64
    floats, reference_floats = _sources(torch, "float32", "cpu")
    _compare(name, getattr(floats, name)(3, device=any_device),
             getattr(reference_floats, name)(3, device=reference), any_device)


def test_the_source_graph_is_not_followed(device):
    x = mt.ones(2, device=device, requires_grad=True) * 2
    for made in (x.new_zeros(2), x.new_ones(2), x.new_empty(2), x.new_full((2,), 1.0),
                 x.new_tensor([1.0, 2.0])):
        assert not made.requires_grad and made.is_leaf and made.grad_fn is None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fill", [3, 2.7, True, -1])
def test_new_full_uses_the_source_dtype_whatever_the_fill(dtype, fill, any_device):
    torch = _torch()
    ours, theirs = _sources(torch, dtype, any_device)
    assert_matches_torch(ours.new_full((2, 2), fill), theirs.new_full((2, 2), fill), any_device)
    assert_matches_torch(ours.new_full([3], fill, dtype=mt.float64),
                         theirs.new_full([3], fill, dtype=torch.float64), any_device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_new_tensor_copies_data_in_the_source_dtype(dtype, any_device):
    torch = _torch()
    ours, theirs = _sources(torch, dtype, any_device)
    for data in ([1, 0, 2], [[1.0, 0.0]], 1, np.array([1, 0, 1], np.int32), [True, False], []):
        assert_matches_torch(ours.new_tensor(data), theirs.new_tensor(data), any_device)
    assert_matches_torch(ours.new_tensor([1, 2], dtype=mt.float64, requires_grad=True),
                         theirs.new_tensor([1, 2], dtype=torch.float64, requires_grad=True),
                         any_device)


def test_new_tensor_copies(device):
    source = mt.zeros(2, device=device)
    array = np.array([1.0, 2.0])
    made = source.new_tensor(array)
    array[0] = 9.0
    assert made.tolist() == [1.0, 2.0] and made.device == source.device


def test_new_tensor_from_a_tensor_copies_with_pytorchs_warning(device):
    torch = _torch()
    data = mt.tensor([1.0, 2.0], device=device, requires_grad=True)
    message = ("To copy construct from a tensor, it is recommended to use "
               "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_("
               "True), rather than tensor.new_tensor(sourceTensor).")
    with pytest.warns(UserWarning) as ours_warned:
        made = mt.zeros(1, dtype=mt.float64, device=device).new_tensor(data)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        torch.zeros(1, dtype=torch.float64).new_tensor(torch.tensor([1.0, 2.0]))
    assert [str(w.message) for w in ours_warned] == [message]
    assert [str(w.message) for w in theirs_warned] == [message]
    assert ours_warned[0].filename == __file__  # points at the caller, not at us
    assert made.dtype is mt.float64 and not made.requires_grad and made.tolist() == [1.0, 2.0]
    with mt.no_grad():
        data.add_(1)
    assert made.tolist() == [1.0, 2.0]  # a copy, not a view
    with pytest.warns(UserWarning):
        same = data.new_tensor(data)
    assert same is not data and not same.requires_grad


def test_meta_sources_allocate_nothing():
    source = mt.empty(2**30, 2**30, device="meta")
    for made in (source.new_zeros(2**30, 2**30), source.new_ones((2**31,)),
                 source.new_empty(2**40), source.new_full((2**30, 4), 1.5),
                 source.new_tensor([[1, 2, 3]])):
        assert made.is_meta and made.dtype is mt.float32
    assert source.new_tensor([[1, 2, 3]]).shape == (1, 3)


@pytest.mark.parametrize("name", SIZED)
def test_sized_need_a_size(name):
    with pytest.raises(TypeError, match=f'^{name}\\(\\) missing 1 required positional '
                                        'arguments: "size"$'):
        getattr(mt.ones(2), name)()


@pytest.mark.parametrize("name", SIZED)
def test_sized_bad_sizes(name, any_device):
    source = mt.ones(2, device=any_device)
    with pytest.raises(ValueError, match=r"sizes must be non-negative, got \(2, -1\)"):
        getattr(source, name)(2, -1)
    with pytest.raises(TypeError, match=r"sizes must be integers, got 2.5 in \(2.5,\)"):
        getattr(source, name)(2.5)


def test_new_full_takes_one_size_sequence():
    with pytest.raises(TypeError, match=r"^new_full\(\): argument 'size' \(position 1\) must "
                                        r"be tuple of ints, not int$"):
        mt.ones(2).new_full(2, 3)
    with pytest.raises(TypeError):
        mt.ones(2).new_full((2,), 3, 4)  # fill_value's keywords are keyword-only, as in PyTorch


@pytest.mark.parametrize("make", [
    lambda t: t.new_zeros(2, requires_grad=True), lambda t: t.new_ones(2, requires_grad=True),
    lambda t: t.new_empty(2, requires_grad=True),
    lambda t: t.new_full((2,), 1, requires_grad=True),
    lambda t: t.new_tensor([1], requires_grad=True),
])
def test_integer_results_cannot_require_grad(make):
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients, this one is torch.int64"):
        make(mt.ones(2, dtype=mt.int64))


# -- Tensor.new: the legacy constructor in this tensor's dtype and on its device ------------
@pytest.mark.parametrize("args, kwargs", [
    ((2, 3), {}), (([1, 2],), {}), ((), {}), (((2, 3),), {}), ((mt.Size([2, 2]),), {}),
    ((0,), {}), ((mt.Size([]),), {}), ((), {"size": (2, 3)}), (([[1.5, 2.0]],), {}),
])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_new_as_torch(args, kwargs, dtype, device):
    torch = _torch()
    ours, theirs = _sources(torch, dtype, device)
    targs = tuple(torch.Size(a) if isinstance(a, mt.Size) else a for a in args)
    out, ref = ours.new(*args, **kwargs), theirs.new(*targs, **kwargs)
    assert tuple(out.shape) == tuple(ref.shape) and str(out.dtype) == str(ref.dtype)
    assert out.device == ours.device and not out.requires_grad
    if args and isinstance(args[0], list):
        assert out.tolist() == ref.tolist()


def test_new_of_a_tensor_is_an_alias_in_its_graph_as_torch(device):
    x = mt.ones(2, device=device)
    t = mt.tensor([1.0, 2.0], device=device, requires_grad=True)
    alias = x.new(t)
    assert alias is not t and alias.grad_fn.name() == "AliasBackward0"
    with mt.no_grad():
        alias[0] = 7.0
    assert t.tolist() == [7.0, 2.0] and t._version == alias._version == 1
    alias.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.new(2.5), TypeError, "data must be a sequence"),
    (lambda x: x.new(True), TypeError, "data must be a sequence"),
    (lambda x: x.new("ab"), TypeError, "data must be a sequence"),
    (lambda x: x.new(2, 3.0), TypeError, "takes sizes"),
    (lambda x: x.new(-1), RuntimeError, r"negative dimension -1: \[-1\]"),
    (lambda x: x.new(2, dtype=mt.float32), TypeError, "dtype"),
    (lambda x: x.new(2, size=(2,)), TypeError, "not both"),
    (lambda x: x.new(mt.ones(2, dtype=mt.int64)), TypeError,
     "expected a tensor of dtype torch.float64, got torch.int64"),
    (lambda x: x.new(2, device="meta"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: meta was passed"),
    (lambda x: x.new(mt.ones(2, dtype=mt.float64, device="meta")), RuntimeError,
     "legacy constructor expects device type: cpu but device type: meta was passed"),
])
def test_new_refuses_as_torch(call, error, message):
    with pytest.raises(error, match=message):
        call(mt.ones(2, dtype=mt.float64))


def test_new_on_meta_stays_on_meta():
    x = mt.ones(2, device="meta")
    assert x.new(3).is_meta and x.new([1, 2]).shape == (2,) and x.new().shape == (0,)
