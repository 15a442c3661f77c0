"""The in-place rounded divisions ``remainder_``, ``fmod_``, ``floor_divide_`` (and ``%=``,
``//=``) against PyTorch: values written into the tensor's own memory, in its dtype, and
PyTorch's refusals (a result of a higher kind, a grad-requiring leaf, a wrong shape,
integer division by zero)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

OPS = ["remainder_", "fmod_", "floor_divide_"]
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]


def _values(dtype: str) -> list:
    if dtype == "uint8":
        return [[7, 200, 0], [13, 255, 5]]
    if dtype.startswith("float"):
        return [[-7.5, 7.25, 0.0], [5.5, -3.0, 2.0]]
    return [[-7, 7, 0], [-128, 127, 5]]


def _pair(values, dtype: str, device="cpu"):
    return (mt.tensor(values, dtype=getattr(mt, dtype), device=device),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.cpu().numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=1e-3)


def test_the_methods_exist_in_both():
    for name in [*OPS, "__imod__", "__ifloordiv__"]:
        assert hasattr(torch.Tensor, name) and hasattr(mt.Tensor, name)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("other", ["scalar", "negative_scalar", "tensor", "row", "0d"])
def test_values_as_pytorch_written_in_place(op, dtype, other, device):
    ours, theirs = _pair(_values(dtype), dtype, device)
    divisor = {"scalar": 3, "negative_scalar": -3 if dtype != "uint8" else 3}.get(other)
    if divisor is None:
        values = {"tensor": [[3, 2, 4], [5, 7, 6]], "row": [3, 2, 4], "0d": 3}[other]
        # a divisor of another dtype: int64 (cast back into self's integer dtype) or
        # float64 for a float tensor
        other_dtype = "float64" if dtype.startswith("float") else "int64"
        divisor_ours, divisor_theirs = _pair(values, other_dtype, device)
    else:
        divisor_ours = divisor_theirs = divisor
    memory = ours.data_ptr()
    result = getattr(ours, op)(divisor_ours)
    assert result is ours and ours.data_ptr() == memory and ours._version == 1
    _same(ours, getattr(theirs, op)(divisor_theirs))


@pytest.mark.parametrize("operator, op", [("__imod__", "remainder_"),
                                          ("__ifloordiv__", "floor_divide_")])
def test_augmented_assignment_writes_in_place(operator, op, device):
    ours, theirs = _pair([[-7, 7, 1]], "int16", device)
    view = ours[0]
    result = getattr(ours, operator)(4)
    assert result is ours
    _same(view, getattr(theirs, op)(4)[0])  # a view sees the write: same memory
    x = mt.tensor([7.5, -7.5], device=device)
    x %= 2
    assert x.tolist() == [1.5, 0.5]
    x //= 0.5
    assert x.tolist() == [3.0, 1.0]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("label, make_self, make_other", [
    ("int_self_float_scalar", lambda T: T.tensor([-7, 7]), lambda T: 1.5),
    ("int_self_float_tensor", lambda T: T.tensor([-7, 7]), lambda T: T.tensor([1.5, 2.0])),
    ("int_self_float_0d", lambda T: T.tensor([-7, 7], dtype=T.int8),
     lambda T: T.tensor(2.0, dtype=T.float64)),
    ("bool_self_int_scalar", lambda T: T.tensor([True, False]), lambda T: 1),
    ("bool_self_int_tensor", lambda T: T.tensor([True]), lambda T: T.tensor([1], dtype=T.int8)),
])
def test_a_result_of_a_higher_kind_is_refused(op, label, make_self, make_other):
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        getattr(make_self(torch), op)(make_other(torch))
    ours = make_self(mt)
    before = ours.tolist()
    with pytest.raises(RuntimeError, match=r"result type \w+ can't be cast to the "
                                           r"desired output type (Int|Long|Bool|Short|Char|Byte)"):
        getattr(ours, op)(make_other(mt))
    assert ours.tolist() == before  # nothing written


@pytest.mark.parametrize("op", OPS)
def test_an_integer_division_by_zero_is_refused(op, device):
    for divisor in (0, mt.tensor([2, 0], device=device)):
        ours = mt.tensor([5, 6], device=device)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            getattr(ours, op)(divisor)
        assert ours.tolist() == [5, 6]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(torch.tensor([5, 6]), op)(0)


@pytest.mark.parametrize("op", OPS)
def test_a_float_division_by_zero_gives_what_pytorch_gives(op, device):
    ours, theirs = _pair([5.0, -6.0, 0.0], "float32", device)
    _same(getattr(ours, op)(0.0), getattr(theirs, op)(0.0))


@pytest.mark.parametrize("op", OPS)
def test_a_result_of_another_shape_is_refused(op, device):
    ours = mt.tensor([5, 6, 7], device=device)
    with pytest.raises(RuntimeError):
        getattr(torch.tensor([5, 6, 7]), op)(torch.ones(2, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"shape \(2, 3\) cannot be written in place into "
                                           r"a tensor of shape \(3,\)"):
        getattr(ours, op)(mt.ones(2, 3, dtype=mt.int64, device=device))


@pytest.mark.parametrize("op", OPS)
def test_a_leaf_that_requires_grad_is_refused_unless_under_no_grad(op, device):
    leaf = mt.tensor([5.0, -6.0], requires_grad=True, device=device)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        getattr(leaf, op)(4.0)
    with pytest.raises(RuntimeError, match="in-place operation"):
        getattr(torch.tensor([5.0], requires_grad=True), op)(4.0)
    with mt.no_grad():
        getattr(leaf, op)(4.0)
    expected = {"remainder_": [1.0, 2.0], "fmod_": [1.0, -2.0], "floor_divide_": [1.0, -2.0]}
    assert leaf.tolist() == expected[op]


@pytest.mark.parametrize("op", OPS)
def test_meta_checks_the_same_rules(op):
    x = mt.empty(2, 3, dtype=mt.int8, device="meta")
    assert getattr(x, op)(mt.empty(3, dtype=mt.int64, device="meta")) is x
    assert x.dtype is mt.int8 and x.shape == (2, 3)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        getattr(x, op)(2.5)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(x, op)(0)
    with pytest.raises(RuntimeError, match="cannot be written in place"):
        getattr(x, op)(mt.empty(4, 2, 3, dtype=mt.int8, device="meta"))


@pytest.mark.parametrize("op", OPS)
def test_a_python_int_beyond_the_dtype_wraps_as_pytorch(op, device):
    ours, theirs = _pair([100, 7, 250], "uint8", device)
    _same(getattr(ours, op)(259), getattr(theirs, op)(259))  # 259 is 3 as uint8
