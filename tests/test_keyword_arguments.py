"""Arguments given by the keywords of PyTorch's overloads (``x.view(size=...)``,
``tensor_split(x, sections=2)``, ``result_type(scalar=1, tensor=x)``) work as in PyTorch.
Found by reading each function's overload signatures from PyTorch's own error message and
comparing their keyword names with ours."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def _same(ours, theirs) -> None:
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda t, x: x.view(size=(3, 4)),
    lambda t, x: x.reshape(shape=(4, 3)),
    lambda t, x: x.expand(size=(2, 12)),
    lambda t, x: x.reshape(3, 4).permute(dims=(1, 0)),
    lambda t, x: x.repeat(repeats=(2,)),
    lambda t, x: x.flip(dims=(0,)),
    lambda t, x: x.new_zeros(size=(2, 3)),
    lambda t, x: x.new_ones(size=(2,)),
    lambda t, x: x.new_empty(size=(2, 3)).fill_(1),
    lambda t, x: x.new_zeros(()),
    lambda t, x: t.tensor_split(x, sections=5),
    lambda t, x: t.tensor_split(x, indices=[1, 7]),
    lambda t, x: t.tensor_split(x.reshape(3, 4), tensor_indices_or_sections=t.tensor(2), dim=1),
    lambda t, x: x.tensor_split(sections=3),
    lambda t, x: t.hsplit(x.reshape(3, 4), sections=2),
    lambda t, x: t.vsplit(x.reshape(3, 4), indices=[1]),
    lambda t, x: t.dsplit(x.reshape(1, 2, 6), sections=3),
    lambda t, x: x.reshape(3, 4).hsplit(indices=[1, 3]),
    lambda t, x: x.broadcast_to(2, 12),
    lambda t, x: x.broadcast_to(size=(2, 12)),
], ids=["view size", "reshape shape", "expand size", "permute dims", "repeat repeats",
        "flip dims", "new_zeros size", "new_ones size", "new_empty size", "new_zeros 0-d",
        "tensor_split sections", "tensor_split indices", "tensor_split tensor",
        "Tensor.tensor_split sections", "hsplit sections", "vsplit indices",
        "dsplit sections", "Tensor.hsplit indices", "broadcast_to ints",
        "broadcast_to size"])
def test_a_keyword_of_pytorchs_overloads_is_taken(torch_ref, call):
    x, tx = mt.arange(12.0), torch_ref.arange(12.0)
    _same(call(mt, x), call(torch_ref, tx))


@pytest.mark.parametrize("keywords", [
    {"tensor": "x", "other": 1}, {"scalar": 1, "tensor": "x"}, {"scalar1": 1, "scalar2": 2.5},
    {"tensor": "i", "other": 2.5}, {"scalar": True, "tensor": "i"},
], ids=["tensor other", "scalar tensor", "scalar1 scalar2", "int tensor float",
        "bool scalar int tensor"])
def test_result_type_takes_the_keywords_of_its_overloads(torch_ref, keywords):
    def resolved(t):
        values = {"x": t.ones(2), "i": t.ones(2, dtype=t.int32)}
        return {k: values.get(v, v) if isinstance(v, str) else v for k, v in keywords.items()}
    assert str(mt.result_type(**resolved(mt))) == str(torch_ref.result_type(**resolved(torch_ref)))


def test_a_size_given_both_ways_is_refused():
    with pytest.raises(TypeError, match=r"view\(\) got 'size' both as positional arguments"):
        mt.ones(4).view(2, size=(2, 2))
    with pytest.raises(TypeError, match="expected exactly one of the arguments"):
        mt.tensor_split(mt.ones(4), 2, sections=2)
    with pytest.raises(TypeError, match="got 0"):
        mt.hsplit(mt.ones(4))
    with pytest.raises(TypeError, match="takes two operands"):
        mt.result_type(tensor=mt.ones(2))


@pytest.mark.parametrize("p", [0.0, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_bernoulli_with_p_draws_in_the_inputs_dtype(torch_ref, p, dtype):
    """``torch.bernoulli(x, p)`` and ``x.bernoulli(p=...)``: probability ``p``, ``x``'s shape
    and dtype (p 0 and 1 make the draw certain, so the values compare exactly)."""
    x, tx = mt.ones(5, dtype=getattr(mt, dtype)), torch_ref.ones(5, dtype=getattr(torch_ref, dtype))
    _same(mt.bernoulli(x, p), torch_ref.bernoulli(tx, p))
    _same(x.bernoulli(p=p), tx.bernoulli(p=p))


def test_bernoulli_with_p_draws_each_element_with_that_probability():
    mt.manual_seed(0)
    draws = mt.bernoulli(mt.zeros(20000), 0.3)
    assert abs(draws.mean().item() - 0.3) < 0.02  # 6 standard deviations: 0.0032 each


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_as_a_keyword(torch_ref, name):
    ours = getattr(mt, name)(size=(2, 3), dtype=mt.float64)
    theirs = getattr(torch_ref, name)(size=(2, 3), dtype=torch_ref.float64)
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))
    with pytest.raises(TypeError, match="both as positional arguments and as the keyword"):
        getattr(mt, name)(2, size=(2,))


def test_the_empty_shape_still_works_where_the_package_spreads_a_0d_shape(torch_ref):
    """``fill(0-d, tensor)`` expands its value with ``expand(*())``: no argument is the
    empty shape, not a missing one."""
    assert mt.fill(mt.tensor(2.0), mt.tensor(3.0)).item() == 3.0
    assert mt.tensor(1.0).view(*()).shape == ()
    assert mt.zeros().shape == torch_ref.zeros(()).shape


def test_cfloat_and_cdouble_convert_as_pytorch(torch_ref):
    """``x.cfloat()``/``x.cdouble()`` (missing, found by the dtype fuzz); ``chalf`` is
    complex32, which is refused with the reason."""
    x, tx = mt.tensor([1.5, -2.0]), torch_ref.tensor([1.5, -2.0])
    for method in ("cfloat", "cdouble"):
        _same(getattr(x, method)(), getattr(tx, method)())
    with pytest.raises(TypeError, match="complex32"):
        x.chalf()
