"""``nn.CrossMapLRN2d`` (values and PyTorch's own legacy gradient against PyTorch, meta
shapes, errors, repr) and the deprecated ``nn.Container``.

No finite-difference gradcheck: PyTorch's legacy backward is not the derivative of its
forward (its channel window is shifted), and ours is PyTorch's formula, compared with it."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, check_against_torch, check_meta, params

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")


def _layer(size, alpha=1e-4, beta=0.75, k=1):
    return lambda T, F, x: T.nn.CrossMapLRN2d(size, alpha, beta, k)(x)


CASES = [
    Case("size5_default", _layer(5), [Arg((2, 7, 3, 4))]),
    Case("size3_strong", _layer(3, 0.5, 0.75, 1.5), [Arg((2, 6, 2, 3))]),
    Case("size2_even", _layer(2, 0.9, 0.5, 2.0), [Arg((1, 5, 2, 2))]),
    Case("size4_even", _layer(4, 0.7, 1.2, 1.0), [Arg((3, 6, 1, 2))]),
    Case("size_past_channels", _layer(9, 0.6, 0.75, 1.0), [Arg((2, 3, 2, 2))]),
    Case("one_channel", _layer(3, 0.6, 0.75, 1.0), [Arg((2, 1, 2, 2))]),
    Case("empty_batch", _layer(3, 0.6, 0.75, 1.0), [Arg((0, 4, 2, 2))]),
]


@pytest.mark.parametrize("case", params(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_values_and_gradients_equal_torch_s(case, seed, device):
    check_against_torch(case, device, seed)


@pytest.mark.parametrize("case", params(CASES))
def test_meta_shapes_equal_real_ones(case):
    check_meta(case)


@pytest.mark.parametrize("size", [2, 3, 5, 6])
def test_float64_gradient_is_torch_s_formula_to_rounding(size, device):
    x = np.random.default_rng(size).standard_normal((2, 7, 2, 3))
    upstream = np.random.default_rng(size + 1).standard_normal(x.shape)
    ours = mt.tensor(x, device=device, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out = mt.nn.CrossMapLRN2d(size, 0.8, 0.75, 1.0)(ours)
    ref = torch.nn.CrossMapLRN2d(size, 0.8, 0.75, 1.0)(theirs)
    out.backward(mt.tensor(upstream, device=device))
    ref.backward(torch.tensor(upstream))
    assert out.dtype is mt.float64 and out.device == tensor_device(device)
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-10,
                               atol=1e-12)


def test_grad_fn_name_and_repr_are_torch_s():
    layer = mt.nn.CrossMapLRN2d(3)
    assert repr(layer) == repr(torch.nn.CrossMapLRN2d(3)) == \
        "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    out = layer(mt.ones(1, 2, 1, 1, requires_grad=True))
    assert out.grad_fn.name() == "CrossMapLRN2dBackward"
    assert list(layer.state_dict()) == []


@pytest.mark.parametrize("shape", [(2, 3, 4), (3,), (1, 2, 3, 4, 5)])
def test_only_4d_inputs_as_torch(shape):
    with pytest.raises(ValueError) as theirs:
        torch.nn.CrossMapLRN2d(3)(torch.ones(shape))
    for device in ("cpu", "meta"):
        with pytest.raises(ValueError) as ours:
            mt.nn.CrossMapLRN2d(3)(mt.ones(shape, device=device))
        assert str(ours.value) == str(theirs.value)


def test_integer_inputs_are_refused_as_torch():
    with pytest.raises(RuntimeError):
        torch.nn.CrossMapLRN2d(3)(torch.ones(1, 2, 2, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="expected a floating-point input, got torch.int64"):
        mt.nn.CrossMapLRN2d(3)(mt.ones(1, 2, 2, 2, dtype=mt.int64))


def test_no_channels_and_bad_sizes_are_refused():
    with pytest.raises(IndexError):  # PyTorch's select() past the channels
        torch.nn.CrossMapLRN2d(3)(torch.ones(1, 0, 2, 2))
    with pytest.raises(RuntimeError, match=r"has no channels \(shape \(1, 0, 2, 2\)\)"):
        mt.nn.CrossMapLRN2d(3)(mt.ones(1, 0, 2, 2))
    with pytest.raises(ValueError, match="size must be a positive int, got 0"):
        mt.nn.CrossMapLRN2d(0)(mt.ones(1, 2, 2, 2))


def test_size_one_forward_as_torch_and_its_backward_refused_as_torch(device):
    x = np.random.default_rng(0).standard_normal((2, 3, 2, 2)).astype(np.float32)
    ours = mt.nn.CrossMapLRN2d(1, 0.5)(mt.tensor(x, device=device, requires_grad=True))
    theirs = torch.nn.CrossMapLRN2d(1, 0.5)(torch.tensor(x, requires_grad=True))
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError):
        theirs.sum().backward()
    with pytest.raises(RuntimeError, match="backward is undefined for size=1"):
        ours.sum().backward()


def test_container_registers_children_and_warns_as_torch():
    with pytest.warns(FutureWarning) as theirs:
        torch_container = torch.nn.Container(a=torch.nn.Linear(2, 3), b=torch.nn.ReLU())
    with pytest.warns(FutureWarning) as ours:
        container = mt.nn.Container(a=mt.nn.Linear(2, 3), b=mt.nn.ReLU())
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__  # the user's line
    assert repr(container) == repr(torch_container)
    assert list(container.state_dict()) == ["a.weight", "a.bias"]
    assert isinstance(container, mt.nn.Module)


def test_subclassing_container_warns_as_torch():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        class Old(mt.nn.Container):
            pass
    with pytest.warns(FutureWarning):
        assert Old()._modules == {}
