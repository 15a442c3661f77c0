"""``torch.accelerator``: compared with PyTorch's CPU-only build where there is no
accelerator (CuPy hidden from the import system), and run on CUDA through the real backend
(on the CuPy stand-in without a GPU)."""

from __future__ import annotations

import sys

import pytest

import minitorch_meta as mt
from minitorch_meta.backends.cupy_backend import CudaUnavailableError
from tests.devices import cuda_param, cuda_reason

torch = pytest.importorskip("torch")

TUTORIAL_LINE = ('device = torch.accelerator.current_accelerator().type '
                 'if torch.accelerator.is_available() else "cpu"')


@pytest.fixture
def no_cupy(monkeypatch):
    """No accelerator at all, as in PyTorch's CPU-only build: CuPy cannot be imported."""
    monkeypatch.setitem(sys.modules, "cupy", None)


def _cupy_importable() -> bool:
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False
    return True


# -- no accelerator: the answers of PyTorch's CPU-only build --------------------------------

def test_queries_without_an_accelerator_match_torch(no_cupy):
    for name in ("is_available", "current_accelerator", "device_count"):
        assert getattr(mt.accelerator, name)() == getattr(torch.accelerator, name)(), name
    assert mt.accelerator.current_accelerator(check_available=True) is None
    assert mt.accelerator.current_accelerator(True) == torch.accelerator.current_accelerator(True)


CALLS = {
    "current_device_index": lambda a: a.current_device_index(),
    "set_device_index(0)": lambda a: a.set_device_index(0),
    "device_index(0)": lambda a: a.device_index(0).__enter__(),
    "synchronize": lambda a: a.synchronize(),
    "synchronize(0)": lambda a: a.synchronize(0),
    "current_stream": lambda a: a.current_stream(),
    "current_stream(0)": lambda a: a.current_stream(0),
    "empty_cache": lambda a: a.empty_cache(),
    "memory_stats": lambda a: a.memory_stats(),
    "memory_allocated": lambda a: a.memory_allocated(),
    "max_memory_allocated": lambda a: a.max_memory_allocated(),
    "memory_reserved": lambda a: a.memory_reserved(),
    "max_memory_reserved": lambda a: a.max_memory_reserved(),
    "memory_allocated('cpu')": lambda a: a.memory_allocated("cpu"),
    "reset_peak_memory_stats": lambda a: a.reset_peak_memory_stats(),
    "reset_accumulated_memory_stats": lambda a: a.reset_accumulated_memory_stats(),
    "get_memory_info": lambda a: a.get_memory_info(),
    "get_memory_info(0)": lambda a: a.get_memory_info(0),
}


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_calls_without_an_accelerator_raise_torchs_error(no_cupy, call):
    with pytest.raises(RuntimeError) as expected:
        call(torch.accelerator)
    with pytest.raises(RuntimeError) as got:
        call(mt.accelerator)
    assert str(got.value) == str(expected.value) == mt.accelerator.NO_ACCELERATOR


def test_argument_errors_match_torch(no_cupy):
    for framework in (torch, mt):
        with pytest.raises(ValueError, match="Expected a torch.device with a specified index or "
                                             "an integer, but got:None"):
            framework.accelerator.set_device_index(None)
        with pytest.raises(RuntimeError, match="Accelerator expected"):
            framework.accelerator.set_device_index("cuda:0")
        with framework.accelerator.device_index(None):  # None switches nothing
            pass
        with pytest.raises(TypeError):
            framework.accelerator.set_stream(None)


@pytest.mark.parametrize("name, new", [("current_device_idx", "current_device_index"),
                                       ("set_device_idx", "set_device_index")])
def test_deprecated_names_warn_as_torch(no_cupy, name, new):
    args = () if name.startswith("current") else (0,)
    for framework in (torch, mt):
        with pytest.warns(FutureWarning, match=f"Use `{new}` instead."):
            with pytest.raises(RuntimeError, match="none is available"):
                getattr(framework.accelerator, name)(*args)


def test_tutorial_line_picks_the_cpu_without_an_accelerator(no_cupy):
    scope = {"torch": mt}
    exec(TUTORIAL_LINE, scope)
    assert scope["device"] == "cpu"
    assert mt.ones(2, device=scope["device"]).device == mt.device("cpu")


# -- CuPy installed, no usable GPU: an accelerator "at compilation time" only ---------------

@pytest.mark.skipif(not _cupy_importable() or cuda_reason() is None,
                    reason="needs CuPy installed and no usable GPU")
def test_cupy_without_a_gpu():
    acc = mt.accelerator
    assert acc.current_accelerator() == mt.device("cuda")
    assert acc.current_accelerator().index is None
    assert acc.current_accelerator(check_available=True) is None
    assert acc.is_available() is False and acc.device_count() == 0
    assert acc.memory_allocated() == 0 and acc.memory_stats() == {}  # allocator never started
    acc.empty_cache()
    with pytest.raises(CudaUnavailableError, match="no CUDA device is usable"):
        acc.current_device_index()
    with pytest.raises(CudaUnavailableError):
        acc.get_memory_info()
    scope = {"torch": mt}
    exec(TUTORIAL_LINE, scope)
    assert scope["device"] == "cpu"


# -- on CUDA ---------------------------------------------------------------------------

@pytest.mark.parametrize("device", [cuda_param()])
def test_queries_on_cuda(device):
    acc = mt.accelerator
    assert acc.is_available() and acc.device_count() == mt.cuda.device_count() >= 1
    assert acc.current_accelerator() == acc.current_accelerator(True) == mt.device("cuda")
    assert acc.current_device_index() == mt.cuda.current_device()
    scope = {"torch": mt}
    exec(TUTORIAL_LINE, scope)
    assert scope["device"] == "cuda"
    x = mt.ones(3, device=scope["device"])
    assert x.is_cuda


@pytest.mark.parametrize("device", [cuda_param()])
def test_device_selection_on_cuda(device):
    acc = mt.accelerator
    index = acc.current_device_index()
    acc.set_device_index(index)
    acc.set_device_index(mt.device("cuda", index))
    acc.set_device_index(-1)  # a negative index changes nothing
    with acc.device_index(index):
        assert acc.current_device_index() == index
    assert acc.current_device_index() == index
    with pytest.raises(ValueError, match="Expected a torch.device with a specified index"):
        acc.set_device_index("cuda")
    with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda."):
        acc.synchronize("cpu")
    with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
        assert acc.current_device_idx() == index
    with pytest.warns(FutureWarning, match="Use `set_device_index` instead."):
        acc.set_device_idx(index)
    acc.synchronize()
    acc.synchronize(index)
    acc.synchronize("cuda")


@pytest.mark.parametrize("device", [cuda_param()])
def test_streams_on_cuda(device):
    acc = mt.accelerator
    previous = acc.current_stream()
    stream = mt.cuda.Stream()
    acc.set_stream(stream)
    try:
        assert acc.current_stream() == stream and acc.current_stream(0) == stream
    finally:
        acc.set_stream(previous)
    assert acc.current_stream() == previous
    with pytest.raises(TypeError, match="expects a stream"):
        acc.set_stream("cuda")


@pytest.mark.parametrize("device", [cuda_param()])
def test_memory_on_cuda_is_torch_cuda_memory(device):
    acc = mt.accelerator
    x = mt.ones(4096, device=device)
    for name, cuda_name in [("memory_allocated", "memory_allocated"),
                            ("max_memory_allocated", "max_memory_allocated"),
                            ("memory_reserved", "memory_reserved"),
                            ("max_memory_reserved", "max_memory_reserved"),
                            ("get_memory_info", "mem_get_info")]:
        assert getattr(acc, name)() == getattr(mt.cuda, cuda_name)(), name
    assert acc.memory_stats() == mt.cuda.memory_stats()
    assert acc.memory_allocated() >= x.numel() * 4
    del x
    acc.reset_peak_memory_stats()
    assert acc.max_memory_allocated() == acc.memory_allocated()
    acc.reset_accumulated_memory_stats()
    acc.empty_cache()
    assert acc.memory_reserved() == mt.cuda.memory_reserved()
    free, total = acc.get_memory_info(0)
    assert 0 <= free <= total
