"""Small top-level names scripts meet (small_functions.py, conjugation.py,
process_settings.py), each against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import process_settings
from tests.devices import tensor_device

torch = pytest.importorskip("torch")


# -- concatenate, fill, detach ------------------------------------------------------------
def test_concatenate_is_cat_with_numpys_keyword(device):
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 1))
    ours = mt.concatenate([mt.tensor(a, device=device), mt.tensor(b, device=device)], axis=1)
    theirs = torch.concatenate([torch.tensor(a), torch.tensor(b)], axis=1)
    assert ours.tolist() == theirs.tolist()
    assert mt.concatenate((mt.ones(1, device=device), mt.zeros(2, device=device))).shape == (3,)
    out = mt.empty(0, device=device)
    assert mt.concatenate([mt.ones(2, device=device)], out=out) is out


@pytest.mark.parametrize("dtype, value", [("float32", 2.5), ("int64", 2.7), ("int64", -2.7),
                                          ("bool", 3), ("uint8", -1), ("float64", True)])
def test_fill_with_a_number_is_pytorchs(dtype, value, device):
    ours = mt.fill(mt.zeros(2, 3, dtype=getattr(mt, dtype), device=device), value)
    theirs = torch.fill(torch.zeros(2, 3, dtype=getattr(torch, dtype)), value)
    assert str(ours.dtype) == str(theirs.dtype) and ours.device == tensor_device(device)
    assert ours.cpu().tolist() == theirs.tolist()


def test_fill_with_a_0d_tensor_passes_the_gradient_to_it(device):
    ours_value = mt.tensor(3.0, device=device, requires_grad=True)
    theirs_value = torch.tensor(3.0, requires_grad=True)
    ours = mt.fill(mt.zeros(2, 3, device=device), ours_value)
    theirs = torch.fill(torch.zeros(2, 3), theirs_value)
    assert ours.tolist() == theirs.tolist() and ours.grad_fn.name() == theirs.grad_fn.name()
    (ours * mt.arange(6.0, device=device).reshape(2, 3)).sum().backward()
    (theirs * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert ours_value.grad.item() == theirs_value.grad.item() == 15.0


@pytest.mark.parametrize("with_value_tensor", [False, True])
def test_fill_gives_the_input_a_zero_gradient(with_value_tensor, device):
    """PyTorch's FillBackward0/1 gives the input a zero gradient (NaNs too)."""
    grads = []
    for lib, kwargs in ((mt, {"device": device}), (torch, {})):
        x = lib.tensor([1.0, float("nan")], requires_grad=True, **kwargs)
        value = lib.tensor(3.0, requires_grad=True, **kwargs) if with_value_tensor else 3.0
        out = lib.fill(x, value)
        out.sum().backward()
        grads.append((out.tolist(), out.grad_fn.name(), x.grad.tolist(),
                      value.grad.item() if with_value_tensor else None))
    assert grads[0] == grads[1]


def test_fill_refuses_a_value_with_dimensions():
    message = "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions"
    with pytest.raises(RuntimeError, match=message):
        torch.fill(torch.zeros(2), torch.ones(2))
    with pytest.raises(RuntimeError, match=message):
        mt.fill(mt.zeros(2), mt.ones(2))
    with pytest.raises(TypeError, match="must be a number or a 0-dimensional Tensor"):
        mt.fill(mt.zeros(2), "1")


def test_fill_on_meta_has_the_shape():
    out = mt.fill(mt.empty(4, 5, device="meta"), 1.0)
    assert out.is_meta and out.shape == (4, 5)


def test_detach_and_detach_as_functions(device):
    x = mt.ones(2, device=device, requires_grad=True)
    y = x * 2
    detached = mt.detach(y)
    assert not detached.requires_grad and detached.grad_fn is None
    assert mt.detach_(y) is y and y.grad_fn is None and not y.requires_grad


# -- conjugation of real tensors ------------------------------------------------------------
@pytest.mark.parametrize("name", ["conj", "conj_physical", "resolve_conj", "resolve_neg"])
def test_conjugating_a_real_tensor_returns_it(name, device):
    x = mt.ones(2, device=device, requires_grad=True)
    assert getattr(mt, name)(x) is x and getattr(x, name)() is x
    reference = torch.ones(2, requires_grad=True)
    assert getattr(torch, name)(reference) is reference


@pytest.mark.parametrize("name", ["is_conj", "is_neg"])
def test_no_tensor_carries_a_lazy_bit(name, device):
    x = mt.ones(2, device=device)
    assert getattr(mt, name)(x) is False and getattr(x, name)() is False
    assert getattr(torch, name)(torch.ones(2)) is False
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        getattr(mt, name)([1.0])


def test_conj_physical_takes_out(device):
    out = mt.empty(0, device=device)
    assert mt.conj_physical(mt.ones(2, device=device), out=out) is out
    assert out.tolist() == [1.0, 1.0]


# -- typename, get_device ----------------------------------------------------------------
@pytest.mark.parametrize("make, expected", [
    (lambda T: T.zeros(2), "torch.FloatTensor"),
    (lambda T: T.zeros(2, dtype=T.int64), "torch.LongTensor"),
    (lambda T: T.zeros(2, dtype=T.float16), "torch.HalfTensor"),
    (lambda T: T.zeros(2, dtype=T.bool), "torch.BoolTensor"),
    (lambda T: T.zeros(2, device="meta"), "torch.meta.FloatTensor"),
    (lambda T: 3, "int"),
    (lambda T: None, "NoneType"),
    (lambda T: T.nn.Parameter(T.zeros(1)), "torch.FloatTensor"),
])
def test_typename_is_pytorchs(make, expected):
    assert torch.typename(make(torch)) == expected
    assert mt.typename(make(mt)) == expected


def test_typename_of_a_class_or_module_names_its_module():
    assert mt.typename(mt.nn.Linear(1, 1)) == "minitorch_meta.nn.linear.Linear"
    assert mt.typename(mt.nn.Linear) == "minitorch_meta.nn.linear.Linear"
    assert mt.typename(int) == torch.typename(int) == "int"
    assert mt.typename(mt.float32) == "minitorch_meta.dtypes.dtype"  # torch's: "torch.dtype"


def test_get_device_is_minus_one_off_cuda():
    assert mt.get_device(mt.ones(1)) == torch.get_device(torch.ones(1)) == -1
    assert mt.get_device(mt.ones(1, device="meta")) == -1


# -- range --------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [
    ((0, 3), {}), ((1, 2, 0.5), {}), ((0, 1, 0.3), {}), ((3, 0, -1), {}), ((0, 0), {}),
    ((0, 3), {"dtype": "int32"}), ((0.5, 2.5), {"dtype": "float64"}), ((-1, 1, 0.1), {}),
])
def test_range_includes_the_end_and_warns_as_torch(args, kwargs, device):
    words = "torch.range is deprecated and will be removed in a future release"
    with pytest.warns(UserWarning, match=words):
        theirs = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    with pytest.warns(UserWarning, match=words) as record:
        ours = mt.range(*args, device=device, **{k: getattr(mt, v) for k, v in kwargs.items()})
    assert record[0].filename == __file__
    assert str(ours.dtype) == str(theirs.dtype) and ours.device == tensor_device(device)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_range_takes_out_s_dtype_and_requires_grad():
    with pytest.warns(UserWarning, match="deprecated"):
        out = mt.range(0, 2, out=mt.empty(0, dtype=mt.int64))
        assert out.dtype is mt.int64 and out.tolist() == [0, 1, 2]
        assert mt.range(0, 1, 0.5, requires_grad=True).requires_grad
        assert mt.range(0, 9, device="meta").shape == (10,)


@pytest.mark.parametrize("args, message", [((0, 3, 0), "step must be nonzero"),
                                           ((0, 3, -1), "upper bound and lower bound "
                                                        "inconsistent with step sign")])
def test_range_errors_are_pytorchs(args, message):
    with pytest.warns(UserWarning, match="deprecated"), pytest.raises(RuntimeError,
                                                                     match=message):
        torch.range(*args)
    with pytest.warns(UserWarning, match="deprecated"), pytest.raises(RuntimeError,
                                                                     match=message):
        mt.range(*args)


# -- vmap and the process-wide switches ----------------------------------------------------
def test_vmap_is_func_vmap():
    assert mt.vmap is mt.func.vmap
    assert mt.vmap(lambda row: row.sum())(mt.ones(3, 4)).tolist() == [4.0] * 3


def test_warn_always_is_kept_and_reported():
    assert mt.is_warn_always_enabled() is False
    try:
        mt.set_warn_always(True)
        assert mt.is_warn_always_enabled() is True
    finally:
        mt.set_warn_always(False)
    assert mt.is_warn_always_enabled() is False


def test_flush_denormal_cannot_be_set_with_numpy():
    assert mt.set_flush_denormal(True) is False
    assert mt.set_flush_denormal(False) is False
    assert np.float32(1e-40) != 0  # denormals survive


def test_interop_threads_are_set_once(monkeypatch):
    monkeypatch.setattr(process_settings._SETTINGS, "interop_threads", None)
    assert mt.get_num_interop_threads() >= 1
    mt.set_num_interop_threads(3)
    assert mt.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="cannot set number of interop threads after"):
        mt.set_num_interop_threads(2)


@pytest.mark.parametrize("value, message", [(0, "expects a positive integer"),
                                            (1.5, "expects an int, but got float"),
                                            (True, "expects an int, but got bool")])
def test_interop_threads_refuse_what_torch_refuses(value, message, monkeypatch):
    monkeypatch.setattr(process_settings._SETTINGS, "interop_threads", None)
    with pytest.raises(RuntimeError, match=message):
        mt.set_num_interop_threads(value)
