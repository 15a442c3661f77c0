"""nn.utils.parameters_to_vector / vector_to_parameters against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.nn.utils import parameters_to_vector, vector_to_parameters
from tests.devices import tensor_device
from tests.nn.utils_pairs import assert_close, pair, to_numpy


def test_parameters_to_vector_values_and_gradients(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 2)
    vec = parameters_to_vector(ours.parameters())
    expected = torch_ref.nn.utils.parameters_to_vector(theirs.parameters())
    assert vec.shape == (8,) and vec.device == tensor_device(device)
    assert vec.grad_fn.name() == expected.grad_fn.name()
    assert_close(vec, expected)
    weights = np.arange(8.0)
    (vec * mt.tensor(weights, device=device)).sum().backward()
    (expected * torch_ref.tensor(weights)).sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert_close(ours.bias.grad, theirs.bias.grad)


def test_vector_to_parameters_makes_views_of_the_vector(torch_ref, device):
    ours, theirs = pair(torch_ref, device, mt.nn.Linear, torch_ref.nn.Linear, 3, 2)
    values = np.arange(9.0)  # one more value than needed: ignored, as in PyTorch
    vec = mt.tensor(values, device=device)
    vector_to_parameters(vec, ours.parameters())
    torch_ref.nn.utils.vector_to_parameters(torch_ref.tensor(values), theirs.parameters())
    assert_close(ours.weight, theirs.weight)
    assert_close(ours.bias, theirs.bias)
    assert isinstance(ours.weight, mt.nn.Parameter) and ours.weight.requires_grad
    vec[0] = 100.0
    assert to_numpy(ours.weight)[0, 0] == 100.0  # shares the vector's memory


def test_errors_match_torch(torch_ref):
    params = [mt.nn.Parameter(mt.zeros(2, 3))]
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0] * 6, params)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        torch_ref.nn.utils.vector_to_parameters([1.0] * 6, [torch_ref.zeros(2, 3)])
    with pytest.raises(RuntimeError):
        vector_to_parameters(mt.zeros(5), params)
    with pytest.raises(RuntimeError):
        torch_ref.nn.utils.vector_to_parameters(torch_ref.zeros(5), [torch_ref.zeros(2, 3)])


def test_meta_parameters_give_a_meta_vector():
    layer = mt.nn.Linear(4, 3, device="meta")
    vec = parameters_to_vector(layer.parameters())
    assert vec.shape == (15,) and vec.device.type == "meta"
    vector_to_parameters(mt.empty(15, device="meta"), layer.parameters())
    assert layer.weight.shape == (3, 4)


@pytest.mark.cuda
def test_parameters_on_two_devices_are_refused(device):
    if device != "cuda":
        pytest.skip("needs a GPU beside the CPU")
    params = [mt.zeros(2, device="cuda"), mt.zeros(2)]
    with pytest.raises(TypeError, match="Found two parameters on different devices"):
        parameters_to_vector(params)
