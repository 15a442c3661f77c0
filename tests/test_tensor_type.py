"""``Tensor.type()``: PyTorch's legacy type names, with the device kind, and conversions to
a dtype, a type name or a legacy constructor."""

from __future__ import annotations

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_type_names_match_torch_on_cpu_and_meta(dtype):
    for device in ("cpu", "meta"):
        ours = mt.ones(2, dtype=getattr(mt, dtype), device=device).type()
        theirs = torch.ones(2, dtype=getattr(torch, dtype), device=device).type()
        assert ours == theirs


def test_type_name_carries_the_device_kind(device):
    expected = "torch.FloatTensor" if device == "cpu" else "torch.cuda.FloatTensor"
    assert mt.ones(2, device=device).type() == expected
    assert mt.zeros(1, dtype=mt.int64, device=device).type() == expected.replace("Float", "Long")


@pytest.mark.parametrize("target", ["torch.float64", "'torch.DoubleTensor'",
                                    "torch.DoubleTensor", "torch.LongTensor",
                                    "'torch.Tensor'", "'torch.BoolTensor'", "torch.int32"])
def test_conversions_match_torch(target, device):
    ours = mt.tensor([1.5, -2.0, 0.0], device=device).type(eval(target, {"torch": mt}))
    theirs = torch.tensor([1.5, -2.0, 0.0]).type(eval(target, {"torch": torch}))
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()
    # a dtype keeps the device; a type name or a legacy constructor names the CPU
    assert ours.device.type == (device if target.startswith("torch.") and target[6].islower()
                                else "cpu")


def test_a_type_name_or_legacy_constructor_says_the_device_too():
    x = mt.ones(2, device="meta")
    assert x.type(mt.float64).is_meta  # a dtype keeps the device
    for target in ("torch.DoubleTensor", mt.DoubleTensor):  # CPU types: meta has no data
        with pytest.raises(RuntimeError, match="cannot copy a meta tensor to 'cpu'"):
            x.type(target)


def test_same_type_returns_the_tensor_itself_and_conversion_records_a_copy():
    x = mt.ones(2, requires_grad=True)
    assert x.type(mt.float32) is x and x.type("torch.FloatTensor") is x
    assert x.type(mt.FloatTensor) is x
    y = x.type(mt.float64, non_blocking=True)
    assert y.grad_fn.name() == torch.ones(2, requires_grad=True).type(
        torch.float64).grad_fn.name()


@pytest.mark.parametrize("target", ["'float64'", "'torch.float64'", "'DoubleTensor'",
                                    "float", "int"])
def test_names_that_are_no_tensor_type_raise_value_error_like_torch(target):
    with pytest.raises(ValueError) as theirs:
        torch.ones(2).type(eval(target, {"torch": torch}))
    with pytest.raises(ValueError, match="invalid type: ") as ours:
        mt.ones(2).type(eval(target, {"torch": mt}))
    assert str(ours.value).startswith(str(theirs.value))
    assert "'torch.FloatTensor'" in str(ours.value)  # and says what is accepted


@pytest.mark.parametrize("target", [3, mt.device("cpu")])
def test_other_values_raise_type_error_like_torch(target):
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        torch.ones(2).type(torch.device("cpu") if not isinstance(target, int) else target)
    with pytest.raises(TypeError, match=r"type\(\): dtype must be a type, str, or dtype "
                                        r"object, got (int|device)"):
        mt.ones(2).type(target)
