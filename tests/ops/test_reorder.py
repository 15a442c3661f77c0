"""flip, roll and repeat: values, gradients, dtypes, argument spellings, errors."""

from __future__ import annotations

import tracemalloc

import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, check_same_error_on_cpu_and_meta, three_way_tests

S = (2, 3, 4)
CASES = [
    Case("flip", lambda T, F, a: T.flip(a, (0, 2)), [Arg(S)]),
    Case("flip_method_ints", lambda T, F, a: a.flip(1, -1) * 2, [Arg(S)]),
    Case("flip_method_list_keyword", lambda T, F, a: a.flip(dims=[-2]), [Arg(S)]),
    Case("flip_no_dims", lambda T, F, a: T.flip(a, ()), [Arg(S)]),
    Case("flip_0d", lambda T, F, a: a.flip(0), [Arg(())]),
    Case("flip_empty", lambda T, F, a: a.flip(1), [Arg((2, 0, 3))]),
    Case("flip_int", lambda T, F, a: a.flip(0, 1), [Arg(S, "int:9")]),
    Case("flip_bool", lambda T, F, a: T.flip(a, [2]), [Arg(S, "bool")]),
    Case("roll_flattened", lambda T, F, a: T.roll(a, 5), [Arg(S)]),
    Case("roll_flattened_tuple", lambda T, F, a: a.roll((-7,)), [Arg(S)]),
    Case("roll_dim", lambda T, F, a: a.roll(1, 0), [Arg(S)]),
    Case("roll_dims", lambda T, F, a: T.roll(a, (1, -2), (2, 1)), [Arg(S)]),
    Case("roll_same_dim_twice", lambda T, F, a: T.roll(a, shifts=[1, 2], dims=[-1, -1]),
         [Arg(S)]),
    Case("roll_by_more_than_the_length", lambda T, F, a: a.roll(-9, dims=2), [Arg(S)]),
    Case("roll_by_zero", lambda T, F, a: a.roll(0, 1) * 3, [Arg(S)]),
    Case("roll_0d", lambda T, F, a: a.roll(3), [Arg(())]),
    Case("roll_empty", lambda T, F, a: a.roll(2, 0), [Arg((0, 3))]),
    Case("roll_of_transposed", lambda T, F, a: a.transpose(0, 2).roll(1), [Arg(S)]),
    Case("roll_int", lambda T, F, a: a.roll((1, 1), (0, 1)), [Arg(S, "int:9")]),
    Case("repeat", lambda T, F, a: a.repeat(2, 1, 3), [Arg(S)]),
    Case("repeat_more_sizes_than_dims", lambda T, F, a: a.repeat(2, 1, 1, 2), [Arg(S)]),
    Case("repeat_tuple", lambda T, F, a: a.repeat((3, 2)), [Arg((4,))]),
    Case("repeat_ones", lambda T, F, a: a.repeat(1, 1, 1) * 2, [Arg(S)]),
    Case("repeat_zero", lambda T, F, a: a.repeat(2, 0, 1), [Arg(S)]),
    Case("repeat_0d", lambda T, F, a: a.repeat(3, 2), [Arg(())]),
    Case("repeat_0d_by_nothing", lambda T, F, a: a.repeat(()), [Arg(())]),
    Case("repeat_then_mean", lambda T, F, a: a.repeat(2, 3).mean(), [Arg((3, 2))]),
    Case("repeat_int", lambda T, F, a: a.repeat(2, 2, 1), [Arg(S, "int:9")]),
    Case("repeat_bool", lambda T, F, a: a.repeat(1, 2, 1, 1), [Arg(S, "bool")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def test_flip_and_roll_move_elements_as_documented(device):
    x = mt.arange(6, device=device).view(2, 3)
    assert x.flip(1).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert mt.flip(x, [0, 1]).tolist() == [[5, 4, 3], [2, 1, 0]]
    assert x.roll(1).tolist() == [[5, 0, 1], [2, 3, 4]]  # flattened, then reshaped
    assert x.roll(-1, 1).tolist() == [[1, 2, 0], [4, 5, 3]]
    assert x.repeat(2, 2).tolist() == [[0, 1, 2, 0, 1, 2], [3, 4, 5, 3, 4, 5]] * 2


def test_outputs_are_new_contiguous_tensors(device):
    """NumPy would flip by a view with negative strides and roll by 0 without a copy; the
    results here, as PyTorch's, are C-ordered copies that writes to the input leave alone."""
    x = mt.arange(12.0, device=device).view(3, 4)
    made = [x.flip(0), x.flip(()), x.roll(0), x.roll(0, 1), x.roll(4), x.repeat(1, 1)]
    with mt.no_grad():
        x.add_(100)
    for out in made:
        assert out.is_contiguous()
        assert out.max().item() < 100
    assert [out.stride() for out in made[:2]] == [(4, 1), (4, 1)]


def test_repeat_is_a_method_only_as_in_pytorch():
    assert not hasattr(mt, "repeat")
    assert mt.Tensor.repeat is not None


def test_a_huge_meta_tensor_is_reordered_without_data():
    x = mt.empty(2**20, 2**20, 2**10, device="meta", requires_grad=True)
    x.flip(0)  # warm up: imports and caches are not what we measure
    tracemalloc.start()
    try:
        flipped, rolled = x.flip(0, 2), x.roll((3, 5), (0, 1))
        tiled = x.repeat(2, 1, 1, 3)
        (flipped.sum() + rolled.sum() + tiled.sum()).backward()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert flipped.shape == rolled.shape == x.shape
    assert tiled.shape == (2, 2**20, 2**20, 3 * 2**10) and tiled.is_meta
    assert x.grad.is_meta and x.grad.shape == x.shape
    assert peak < 1_000_000, f"meta ops allocated {peak} bytes"


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.flip(3), IndexError,
     "flip: Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x: x.flip(0, -3), RuntimeError,
     "flip(): dim 0 appears multiple times in the list of dims (0, -3)"),
    (lambda x: mt.flip(x, 0), TypeError, "flip(): argument 'dims' must be tuple of ints, not int"),
    (lambda x: x.flip(0.5), TypeError, "flip(): argument 'dims' must be int, not float"),
    (lambda x: x.flip(0, dims=(1,)), TypeError,
     "flip() got 'dims' both as positional arguments and as the keyword dims=; give it one way"),
    (lambda x: x.sum().flip(1), IndexError,
     "flip: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x: x.roll(()), RuntimeError, "roll: `shifts` required: give at least one shift"),
    (lambda x: x.roll((1, 2)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:0; give one dim per shift, or a single "
     "shift and no dims to roll the flattened tensor"),
    (lambda x: mt.roll(x, 1, (0, 1)), RuntimeError,
     "shifts and dimensions must align. shifts: 1, dims:2; give one dim per shift, or a single "
     "shift and no dims to roll the flattened tensor"),
    (lambda x: x.roll(1, -4), IndexError,
     "roll: Dimension out of range (expected to be in range of [-3, 2], but got -4)"),
    (lambda x: x.sum().roll(1, 0), IndexError,
     "roll: dimension specified as 0 but the tensor has no dimensions; give no dims to roll a "
     "0-d tensor"),
    (lambda x: x.roll(1.5), TypeError,
     "roll(): argument 'shifts' must be tuple of ints, not float"),
    (lambda x: x.roll((1, 1.5), (0, 1)), TypeError,
     "roll(): argument 'shifts' must be int, not float"),
    (lambda x: x.roll(True), TypeError,
     "roll(): argument 'shifts' must be tuple of ints, not bool"),
    (lambda x: x.roll(1, "0"), TypeError, "roll(): argument 'dims' must be tuple of ints, not str"),
    (lambda x: x.repeat(2, 1), RuntimeError,
     "repeat: number of dimensions of repeat dims can not be smaller than number of dimensions "
     "of tensor: got 2 repeat(s) (2, 1) for a tensor of shape (2, 3, 4); give one repeat per "
     "dimension (1 keeps a dimension as it is)"),
    (lambda x: x.repeat(2, -1, 1), RuntimeError,
     "repeat: repeats must be non-negative, but got (2, -1, 1)"),
    (lambda x: x.repeat(2.0, 1, 1), TypeError,
     "repeat(): argument 'repeats' must be int, not float"),
    (lambda x: x.repeat(), TypeError,
     "repeat() missing 1 required positional argument: 'repeats' (one int per dimension, e.g. "
     "x.repeat(2, 1))"),
])
def test_errors_same_on_cpu_and_meta(call, error, message):
    check_same_error_on_cpu_and_meta(call, error, message)
