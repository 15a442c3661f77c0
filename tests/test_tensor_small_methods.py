"""Small Tensor methods: ``t_``, ``data_ptr``, ``storage_offset``, ``apply_``, ``map_``,
``autograd.Variable``; and PyTorch's overflow check of Python numbers in ``tensor()`` and
the TypeError of ``add`` and friends for operands of other types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.autograd import Variable

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")


# -- t_ -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3), (4,), ()])
def test_t_transposes_in_place_as_pytorch(shape, any_device):
    x = mt.arange(float(np.prod(shape))).reshape(shape).to(any_device)
    ref = torch.arange(float(np.prod(shape))).reshape(shape)
    assert x.t_() is x and ref.t_() is ref
    assert x.shape == ref.shape and x._version == ref._version == 1
    if any_device != "meta":
        assert x.stride() == ref.stride()
        np.testing.assert_array_equal(x.cpu().numpy(), ref.numpy())


def test_t_shares_memory_and_refuses_what_pytorch_refuses():
    base = mt.zeros(2, 3)
    alias = base.view(2, 3)
    alias.t_()
    alias[0, 1] = 5.0  # alias is (3, 2) now: its [0, 1] is base's [1, 0]
    assert base[1, 0].item() == 5.0
    with pytest.raises(mt.ShapeError, match="expects a tensor with <= 2 dimensions, but got "
                                            "a 3-D tensor"):  # t()'s shape rule
        mt.ones(2, 3, 4).t_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        mt.ones(2, requires_grad=True).t_()


# -- data_ptr and storage_offset ----------------------------------------------------------
def test_views_point_into_their_bases_memory(device):
    x = mt.arange(24.0, device=device)
    m = x.view(4, 6)
    cases = [(x[5:], 5), (m[2], 12), (m[1:, 2:], 8), (m[3, 4], 22), (x[7], 7), (m.t(), 0),
             (m[:, 1], 1), (m[..., 3], 3)]
    for view, offset in cases:
        assert view.storage_offset() == offset
        assert view.data_ptr() == x.data_ptr() + offset * x.element_size()
    assert x.storage_offset() == 0 and x.clone().data_ptr() != x.data_ptr()
    half = mt.zeros(10, dtype=mt.half, device=device)
    assert half[3:].data_ptr() - half.data_ptr() == 6  # bytes: 3 elements of 2


def test_offsets_match_pytorchs():
    x, ref = mt.arange(60.0).reshape(3, 4, 5), torch.arange(60.0).reshape(3, 4, 5)
    for index in [(1,), (slice(1, None), 2), (2, slice(None), 3), (Ellipsis, 4), (0, 1, 2)]:
        assert x[index].storage_offset() == ref[index].storage_offset(), index
        assert (x[index].data_ptr() - x.data_ptr()
                == ref[index].data_ptr() - ref.data_ptr()), index


def test_an_element_of_a_vector_is_a_view_as_in_pytorch(device):
    x = mt.zeros(4, device=device)
    x[2].fill_(7.0)
    x[1].add_(3.0)
    assert x.tolist() == [0.0, 3.0, 7.0, 0.0]
    element = x[2]
    assert element.dim() == 0 and element.item() == 7.0 and float(element + 1) == 8.0


def test_meta_tensors_have_no_address():
    x = mt.empty(5, device="meta")
    assert x.data_ptr() == 0 == torch.empty(5, device="meta").data_ptr()
    assert x[2:].storage_offset() == 0  # PyTorch says 2: docs/differences.md


# -- apply_ and map_ -----------------------------------------------------------------------
def test_apply_calls_fn_on_each_python_number_as_pytorch():
    for dtype in ("float32", "int64", "bool", "float16", "uint8"):
        data = [[1, 0, 3], [4, 5, 0]]
        x = mt.tensor(data, dtype=getattr(mt, dtype))
        ref = torch.tensor(data, dtype=getattr(torch, dtype))
        seen, seen_ref = [], []
        x.apply_(lambda v, seen=seen: seen.append(type(v)) or v * 2)
        ref.apply_(lambda v, seen=seen_ref: seen.append(type(v)) or v * 2)
        assert seen == seen_ref and x.tolist() == ref.tolist(), dtype
    x = mt.tensor(2.5)
    assert x.apply_(lambda v: v + 1) is x and x.item() == 3.5  # 0-d


def test_apply_converts_results_to_the_dtype_as_pytorch():
    assert mt.ones(2, dtype=mt.int64).apply_(lambda v: 2.7).tolist() == [2, 2]
    assert mt.ones(2).apply_(lambda v: 1e300).tolist() == [float("inf")] * 2
    assert mt.ones(2).apply_(lambda v: mt.tensor(3.0)).tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without "
                                           "overflow"):
        mt.ones(2, dtype=mt.uint8).apply_(lambda v: 300)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64 without "
                                           "overflow"):
        mt.ones(2, dtype=mt.int64).apply_(lambda v: float("inf"))
    for result in ("a", None):
        with pytest.raises(TypeError, match=f"must be real number, not "
                                            f"{type(result).__name__}"):
            mt.ones(2).apply_(lambda v, r=result: r)


def test_map_pairs_elements_with_broadcasting():
    x, ref = mt.ones(2, 3), torch.ones(2, 3)
    x.map_(mt.arange(3.0), lambda a, b: a + b * 10)
    ref.map_(torch.arange(3.0), lambda a, b: a + b * 10)
    assert x.tolist() == ref.tolist()


def test_apply_and_map_refuse_what_pytorch_refuses(device):
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires "
                                           r"grad. Use var.detach\(\).apply_\(\) instead."):
        mt.ones(2, requires_grad=True).apply_(lambda v: v)
    with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires"):
        mt.ones(2).map_(mt.ones(2, requires_grad=True), lambda a, b: a)
    with pytest.raises(TypeError, match=r"map_\(\): argument 'other' \(position 1\) must be "
                                        r"Tensor, not list"):
        mt.ones(2).map_([1, 2], lambda a, b: a)
    with pytest.raises(TypeError, match="map_: expected a torch.float32 tensor on 'cpu' for "
                                        "'other' \\(got a torch.int64 tensor on 'cpu'\\)"):
        mt.ones(2).map_(mt.ones(2, dtype=mt.int64), lambda a, b: a)
    with pytest.raises(mt.ShapeError, match="map_: other of shape \\(2, 3\\) cannot be "
                                            "broadcast to the tensor's shape \\(3,\\)"):
        mt.ones(3).map_(mt.ones(2, 3), lambda a, b: a)
    if device != "cpu":
        with pytest.raises(TypeError, match="apply_ is only implemented on CPU tensors"):
            mt.ones(2, device=device).apply_(lambda v: v)


def test_meta_tensors_are_returned_unchanged_as_pytorch_does():
    called = []
    x = mt.ones(2, device="meta")
    assert x.apply_(called.append) is x
    assert x.map_(mt.ones(2, device="meta"), lambda a, b: called.append(a)) is x
    assert not called
    with pytest.raises(TypeError, match="expected a torch.float32 tensor on 'cpu'"):
        mt.ones(2).map_(x, lambda a, b: a)


def test_apply_is_a_write_that_autograd_sees():
    w = mt.ones(2, requires_grad=True)
    x = mt.ones(2)
    y = (w * x).sum()
    x.apply_(lambda v: v + 1)  # x was saved for w's gradient
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


# -- Variable ----------------------------------------------------------------------------
def test_variable_returns_a_detached_tensor_as_pytorch():
    x = mt.ones(2, 3)
    v = Variable(x)
    assert type(v) is mt.Tensor and v is not x and v.data_ptr() == x.data_ptr()
    assert not v.requires_grad and isinstance(x, Variable) and not isinstance(2.0, Variable)
    assert mt.autograd.Variable is Variable
    grad = Variable(x, requires_grad=True)
    assert grad.requires_grad and not x.requires_grad
    assert repr(Variable()) == repr(torch.autograd.Variable()) == "tensor([])"
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(x, volatile=True)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients"):
        Variable(mt.ones(2, dtype=mt.int64), requires_grad=True)
    (grad * 2).sum().backward()
    assert grad.grad.tolist() == [[2.0] * 3] * 2


# -- tensor() from Python numbers: PyTorch's overflow check -------------------------------
@pytest.mark.parametrize("value, dtype", [
    (-3.0, "uint8"), (-0.5, "uint8"), (255.9, "uint8"), (256, "uint8"), (-256, "uint8"),
    (2 ** 31, "int32"), (-2 ** 31 - 1, "int32"), (float("inf"), "int64"),
    (float("nan"), "int32"),
])
def test_python_numbers_that_overflow_the_dtype_raise_as_in_pytorch(value, dtype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype} "
                                           f"without overflow"):
        torch.tensor([value], dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype} "
                                           f"without overflow: {value!r} is outside"):
        mt.tensor([1, value], dtype=getattr(mt, dtype))


@pytest.mark.parametrize("make", [
    lambda T: T.tensor([-3, -255, 255, 7], dtype=T.uint8),  # ints wrap down to -max
    lambda T: T.tensor([2.7, -2.7, 2 ** 31 - 1], dtype=T.int32),  # truncated
    lambda T: T.tensor(np.array([-3, 300]), dtype=T.uint8),  # NumPy data: cast, no check
    lambda T: T.tensor([-3.0]).to(T.uint8),
    lambda T: T.tensor([1e5, -1e40], dtype=T.float16),  # floats overflow to inf
    lambda T: T.tensor([True, 2], dtype=T.uint8),
    lambda T: T.ByteTensor([3, 4]),
], ids=["uint8_wraps", "truncation", "numpy_data", "to", "float16_inf", "bool", "legacy"])
def test_values_pytorch_accepts_are_accepted(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning either
        ours = make(mt)
    assert ours.tolist() == make(torch).tolist()
    assert str(ours.dtype) == str(make(torch).dtype)


def test_legacy_byte_tensor_of_a_negative_float_raises():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without "
                                           "overflow: -3.0 is outside \\[0, 255\\]"):
        mt.ByteTensor([-3.0])


# -- add(x, "a"): TypeError from functions and methods, NotImplemented from operators ----
NAMES = ["add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", ["a", None, [1.0, 2.0]], ids=["str", "None", "list"])
def test_functions_and_methods_raise_type_error_for_other_operands(name, other):
    x = mt.ones(2)
    message = (f"{name}\\(\\): argument 'other' \\(position 2\\) must be Tensor or Number, "
               f"not {type(other).__name__}")
    with pytest.raises(TypeError, match=message):
        getattr(mt, name)(x, other)
    with pytest.raises(TypeError, match=message):
        getattr(x, name)(other)
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.ones(2), other)


def test_the_input_is_named_when_it_is_the_wrong_one():
    with pytest.raises(TypeError, match=r"add\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor or Number, not str"):
        mt.add("a", mt.ones(2))
    with pytest.raises(TypeError, match=r"lt\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not int"):
        mt.lt(2, mt.ones(2))  # comparisons take no number first (PyTorch neither)
    assert mt.add(2, mt.ones(2)).tolist() == torch.add(2, torch.ones(2)).tolist()


class _Other:
    """An operand that handles tensors itself: Python calls it after NotImplemented."""

    def __radd__(self, tensor):
        return "radd"

    def __rmul__(self, tensor):
        return "rmul"

    def __add__(self, tensor):
        return "add"


def test_operators_return_not_implemented_so_python_tries_the_other_operand():
    x = mt.ones(2)
    assert x + _Other() == "radd" and x * _Other() == "rmul" and _Other() + x == "add"
    assert (x == "a") is False and (x != None) is True  # noqa: E711 - the operator is the test
    for operation in (lambda: x + "a", lambda: "a" - x, lambda: None * x, lambda: x < "a",
                      lambda: x ** "a", lambda: x / None):
        with pytest.raises(TypeError, match="unsupported operand|not supported between|can "
                                            "only concatenate"):
            operation()
