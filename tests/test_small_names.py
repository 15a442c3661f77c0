"""Small names of PyTorch's: ``get_device_module``, ``is_distributed``,
``set_default_tensor_type``, the autograd engine's switches, and ``dir(minitorch_meta)``
listing the lazily loaded names. Compared with PyTorch where it answers the same here."""

from __future__ import annotations

import threading
import warnings

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")


@pytest.mark.parametrize("device, name", [("cpu", "cpu"), ("cuda", "cuda"), ("cuda:1", "cuda")])
def test_get_device_module_names_the_device_s_module(device, name):
    assert mt.get_device_module(device) is getattr(mt, name)
    assert mt.get_device_module(mt.device(device)) is getattr(mt, name)
    assert torch.get_device_module(device).__name__ == f"torch.{name}"


def test_get_device_module_without_a_device_is_the_usable_accelerator_s():
    expected = mt.cuda if mt.cuda.is_available() else mt.cpu
    assert mt.get_device_module() is expected
    if not torch.cuda.is_available():
        assert torch.get_device_module() is torch.cpu


@pytest.mark.parametrize("device", ["meta", 3])
def test_get_device_module_errors_are_torch_s(device):
    with pytest.raises(RuntimeError) as theirs:
        torch.get_device_module(device)
    with pytest.raises(RuntimeError) as ours:
        mt.get_device_module(device)
    assert str(ours.value) == str(theirs.value)


def test_is_distributed_as_torch(device):
    assert mt.is_distributed(mt.ones(2, device=device)) is torch.is_distributed(torch.ones(2))
    with pytest.raises(TypeError) as theirs:
        torch.is_distributed(3)
    with pytest.raises(TypeError) as ours:
        mt.is_distributed(3)
    assert str(ours.value) == str(theirs.value)


@pytest.fixture
def default_dtype_kept():
    dtype, device = mt.get_default_dtype(), mt.get_default_device()
    yield
    mt.set_default_dtype(dtype)
    mt.set_default_device(None if device.type == "cpu" else device)


def _quietly(call, *args):
    """PyTorch warns once per process (a C++ warn-once), so its warning is not asserted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args)


@pytest.mark.parametrize("spelling", ["DoubleTensor", "torch.DoubleTensor", "torch.FloatTensor",
                                      "FloatTensor"])
def test_set_default_tensor_type_sets_the_dtype_and_warns(spelling, default_dtype_kept):
    def given(T):
        return getattr(T, spelling) if not spelling.startswith("torch.") else spelling

    with pytest.warns(UserWarning) as caught:
        mt.set_default_tensor_type(given(mt))
    try:
        _quietly(torch.set_default_tensor_type, given(torch))
        assert str(mt.get_default_dtype()) == str(torch.get_default_dtype())
    finally:
        torch.set_default_dtype(torch.float32)
    # PyTorch's words (its C++ warning adds where it was raised)
    assert str(caught[0].message) == (
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    assert caught[0].filename == __file__


def test_set_default_tensor_type_keeps_the_default_device(default_dtype_kept):
    mt.set_default_device("meta")
    with pytest.warns(UserWarning):
        mt.set_default_tensor_type(mt.DoubleTensor)
    assert mt.empty(1).device.type == "meta" and mt.empty(1).dtype is mt.float64


@pytest.mark.parametrize("t", ["LongTensor", "torch.IntTensor", 3])
def test_set_default_tensor_type_refuses_what_torch_refuses(t, default_dtype_kept):
    with pytest.raises(TypeError) as theirs:
        _quietly(torch.set_default_tensor_type, getattr(torch, t) if t == "LongTensor" else t)
    with pytest.warns(UserWarning), pytest.raises(TypeError) as ours:
        mt.set_default_tensor_type(getattr(mt, t) if t == "LongTensor" else t)
    assert str(ours.value).startswith(str(theirs.value))
    assert mt.get_default_dtype() is mt.float32


def test_multithreading_switch_as_torch():
    for T in (torch, mt):
        assert T.autograd.is_multithreading_enabled()
        T.autograd.set_multithreading_enabled(False)
        assert not T.autograd.is_multithreading_enabled()
        T.autograd.set_multithreading_enabled(True)
        with T.autograd.set_multithreading_enabled(False):
            assert not T.autograd.is_multithreading_enabled()
        assert T.autograd.is_multithreading_enabled()
        assert T.autograd.is_view_replay_enabled() is False


def test_multithreading_switch_as_a_decorator_applies_inside_only():
    # (PyTorch 2.13's decorator also leaves the switch set outside: making the object
    # sets it. Ours undoes that, as set_grad_enabled does in both frameworks.)
    @mt.autograd.set_multithreading_enabled(False)
    def inside():
        return mt.autograd.is_multithreading_enabled()

    assert mt.autograd.is_multithreading_enabled() and not inside()
    assert mt.autograd.is_multithreading_enabled()


def test_multithreading_switch_is_per_thread():
    seen = []
    with mt.autograd.set_multithreading_enabled(False):
        thread = threading.Thread(target=lambda: seen.append(
            mt.autograd.is_multithreading_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_dir_lists_the_lazily_loaded_names():
    names = dir(mt)
    for name in ("save", "load", "nn", "optim", "func", "linalg", "utils", "summary", "tensor"):
        assert name in names
    assert names == sorted(names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in names:  # every listed name resolves
            getattr(mt, name)


def test_autograd_forward_ad_on_first_use_is_forward_ad():
    # A fresh process: the attribute must load forward_ad itself (it gave the profiler).
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import minitorch_meta as t; "
                           "print(t.autograd.forward_ad.__name__, "
                           "t.autograd.profiler.__name__)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["minitorch_meta.autograd.forward_ad",
                                   "minitorch_meta.autograd.profiler"]
