"""F.one_hot: values, shapes and dtypes against PyTorch, PyTorch's errors, and meta."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
import minitorch_meta.nn.functional as F
from tests.devices import tensor_device


@pytest.mark.parametrize("values, num_classes", [
    ([0, 2, 1], -1),
    ([0, 2, 1], 5),
    ([[1, 0], [2, 1]], 4),
    ([[[3]], [[0]]], -1),
    (4, 6),
    ([0, 0, 0], -1),
])
def test_values_equal_pytorch(torch_ref, device, values, num_classes):
    theirs = torch_ref.nn.functional.one_hot(torch_ref.tensor(values), num_classes)
    ours = F.one_hot(mt.tensor(values, device=device), num_classes)
    assert ours.dtype is mt.int64 and ours.device == tensor_device(device)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())
    assert not ours.requires_grad and ours.grad_fn is None


def test_it_is_reachable_as_torch_nn_functional_one_hot():
    import minitorch_meta as torch

    labels = torch.tensor([3, 0])
    assert torch.nn.functional.one_hot(labels, num_classes=4).tolist() == [[0, 0, 0, 1],
                                                                           [1, 0, 0, 0]]
    assert F.one_hot(labels).shape == (2, 4)


def test_an_empty_input_with_num_classes_gives_an_empty_result(torch_ref):
    ours = F.one_hot(mt.empty(2, 0, dtype=mt.int64), 4)
    theirs = torch_ref.nn.functional.one_hot(torch_ref.empty(2, 0, dtype=torch_ref.int64), 4)
    assert tuple(ours.shape) == tuple(theirs.shape) == (2, 0, 4)


def test_a_one_hot_target_trains_with_mse_loss():
    # The EE-559 style: one-hot targets for MSELoss, made from class labels.
    logits = mt.randn(4, 3, requires_grad=True)
    target = F.one_hot(mt.tensor([0, 2, 1, 2]), 3).float()
    mt.nn.MSELoss()(logits, target).backward()
    assert logits.grad.shape == (4, 3)


@pytest.mark.parametrize("make, error, message", [
    (lambda t: t.tensor([0.0, 1.0]), RuntimeError, "index tensor of type LongTensor"),
    (lambda t: t.tensor([0, 1], dtype=t.int32), RuntimeError, "index tensor of type LongTensor"),
    (lambda t: t.tensor([0, 1], dtype=t.uint8), RuntimeError, "index tensor of type LongTensor"),
    (lambda t: t.tensor([True]), RuntimeError, "index tensor of type LongTensor"),
])
def test_only_int64_is_accepted(torch_ref, make, error, message):
    with pytest.raises(RuntimeError, match=message):
        torch_ref.nn.functional.one_hot(make(torch_ref))
    with pytest.raises(error, match=message) as info:
        F.one_hot(make(mt))
    assert not isinstance(info.value, TypeError)  # PyTorch's type, not our dtype convention
    with pytest.raises(error, match="convert the labels with .long()"):
        F.one_hot(make(mt), 3)


@pytest.mark.parametrize("values, num_classes, message", [
    ([-1, 1], -1, "Class values must be non-negative"),
    ([-1, 1], 3, "Class values must be non-negative"),
    ([-1, 5], 3, "Class values must be non-negative"),  # the sign is checked first
    ([-3, -2], -1, "Class values must be non-negative"),
    ([0, 3], 3, "Class values must be smaller than num_classes"),
    ([5], -5, "Class values must be smaller than num_classes"),
    ([0, 1], 0, "Class values must be smaller than num_classes"),
    ([], -1, "Can not infer total number of classes from empty tensor"),
    ([], 0, "Can not infer total number of classes from empty tensor"),
])
def test_value_errors_match_pytorch(torch_ref, device, values, num_classes, message):
    with pytest.raises(RuntimeError, match=message):
        torch_ref.nn.functional.one_hot(torch_ref.tensor(values, dtype=torch_ref.int64),
                                        num_classes)
    with pytest.raises(RuntimeError, match=message):
        F.one_hot(mt.tensor(values, dtype=mt.int64, device=device), num_classes)


def test_value_errors_say_what_was_found():
    with pytest.raises(RuntimeError, match="Got -2"):
        F.one_hot(mt.tensor([0, -2, 1]), 3)
    with pytest.raises(RuntimeError, match="Got the value 7 with num_classes=3"):
        F.one_hot(mt.tensor([0, 7, 1]), 3)


@pytest.mark.parametrize("call, message", [
    (lambda: F.one_hot([0, 1], 2), "argument 'input' .* must be Tensor, not list"),
    (lambda: F.one_hot(mt.tensor([0, 1]), 2.0), "argument 'num_classes' .* must be int, not float"),
    (lambda: F.one_hot(mt.tensor([0, 1]), None), "must be int, not NoneType"),
])
def test_argument_types(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_num_classes_may_be_a_numpy_integer():
    assert F.one_hot(mt.tensor([1]), np.int64(3)).tolist() == [[0, 1, 0]]


def test_meta_with_num_classes_gives_the_shape():
    labels = mt.empty(2**30, dtype=mt.int64, device="meta")
    out = F.one_hot(labels, num_classes=10)
    assert out.is_meta and out.shape == (2**30, 10) and out.dtype is mt.int64
    assert F.one_hot(mt.empty(3, 0, dtype=mt.int64, device="meta"), 2).shape == (3, 0, 2)


def test_meta_without_num_classes_asks_for_it():
    labels = mt.empty(64, dtype=mt.int64, device="meta")
    with pytest.raises(mt.MetaDataError, match="pass num_classes"):
        F.one_hot(labels)
    # errors that need no values read the same as on cpu
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(mt.empty(4, device="meta"))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
        F.one_hot(mt.empty(0, dtype=mt.int64, device="meta"))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(labels, 0)
