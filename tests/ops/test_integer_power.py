"""Integer powers with negative exponents and bool powers, against PyTorch."""

from __future__ import annotations

import pytest

import minitorch_meta as mt

BASES = [-3, -2, -1, 0, 1, 2, 5, -1, 1, 7]
EXPONENTS = [-1, -2, -3, -1, -2, -4, 0, -6, 3, 2]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8"])
def test_negative_tensor_exponents_as_torch(dtype, any_device, torch_ref):
    ours = mt.tensor(BASES, dtype=getattr(mt, dtype), device=any_device) ** mt.tensor(
        EXPONENTS, dtype=getattr(mt, dtype), device=any_device)
    theirs = torch_ref.tensor(BASES, dtype=getattr(torch_ref, dtype)) ** torch_ref.tensor(
        EXPONENTS, dtype=getattr(torch_ref, dtype))
    assert str(ours.dtype) == str(theirs.dtype)
    if any_device != "meta":
        assert ours.tolist() == theirs.tolist()


def test_number_base_and_broadcast_exponents_as_torch(device, torch_ref):
    for lib, dev in ((mt, device), (torch_ref, "cpu")):
        exponents = lib.tensor([[-2, 0, 3]], device=dev)
        assert (2 ** exponents).tolist() == [[0, 1, 8]]
        assert (lib.tensor([[-1], [1], [3]], device=dev) ** exponents).tolist() == \
            [[1, 1, -1], [1, 1, 1], [0, 1, 27]]


@pytest.mark.parametrize("call, error", [
    (lambda lib, d: lib.tensor([3], device=d) ** -1, RuntimeError),
    (lambda lib, d: lib.tensor([True], device=d) ** lib.tensor([True], device=d),
     NotImplementedError),
])
def test_errors_as_torch(call, error, any_device, torch_ref):
    with pytest.raises(error) as theirs:
        call(torch_ref, "cpu")
    with pytest.raises(error) as ours:
        call(mt, any_device)
    if error is RuntimeError:
        assert str(ours.value) == str(theirs.value)


def test_float_results_are_unchanged(device, torch_ref):
    ours = mt.tensor([2], device=device) ** -1.5
    theirs = torch_ref.tensor([2]) ** -1.5
    assert ours.dtype is mt.float32 and ours.tolist() == pytest.approx(theirs.tolist())
    assert (mt.tensor([True, False], device=device) ** 2).tolist() == \
        (torch_ref.tensor([True, False]) ** 2).tolist()
