"""Shared and pinned memory (shared_memory.py): Tensor.share_memory_/is_shared,
Module.share_memory, pin_memory/is_pinned, the sharing strategies, against PyTorch."""

import pickle

import pytest

import minitorch_meta as torch
import minitorch_meta.multiprocessing as mp
from minitorch_meta import shared_memory


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    """Each sharing strategy, restored afterwards."""
    before = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(before)


def test_share_memory_keeps_the_tensor(strategy, torch_ref):
    for framework in (torch, torch_ref):
        x = framework.arange(12.0).reshape(3, 4)
        assert not x.is_shared() and not x.untyped_storage().is_shared()
        assert x.share_memory_() is x
        assert x.is_shared() and x.untyped_storage().is_shared()
        assert x.tolist() == framework.arange(12.0).reshape(3, 4).tolist()
        address = x.data_ptr()
        x.share_memory_()  # already shared: nothing moves
        assert x.data_ptr() == address


def test_share_memory_keeps_a_views_geometry(torch_ref):
    for framework in (torch, torch_ref):
        view = framework.arange(12.0).reshape(3, 4).t()[1:]
        values, stride, offset = view.tolist(), view.stride(), view.storage_offset()
        view.share_memory_()
        assert view.is_shared() and view.tolist() == values
        assert view.stride() == stride and view.storage_offset() == offset
        assert view.untyped_storage().nbytes() == 48
        assert view.dtype == framework.float32 and not view.is_contiguous()


def test_share_memory_on_meta_raises(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.zeros(2, device="meta")
        assert not x.is_shared()
        with pytest.raises(RuntimeError, match="_share_fd_: only available on CPU"):
            x.share_memory_()


def test_share_memory_of_a_leaf_that_requires_grad(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.zeros(2, requires_grad=True)
        assert x.share_memory_() is x and x.is_shared() and x.requires_grad


def test_untyped_storage_share_memory(torch_ref):
    for framework in (torch, torch_ref):
        s = framework.UntypedStorage([1, 2, 3])
        assert s.share_memory_() is s and s.is_shared() and s.tolist() == [1, 2, 3]


def test_module_share_memory(torch_ref):
    for framework in (torch, torch_ref):
        model = framework.nn.Linear(3, 2)
        model.register_buffer("counts", framework.zeros(2))
        weight = model.weight
        model.weight.grad = framework.ones(2, 3)
        assert model.share_memory() is model
        assert model.weight is weight and weight.is_shared() and model.bias.is_shared()
        assert model.counts.is_shared() and model.weight.grad.is_shared()


def test_sharing_strategies(torch_ref):
    for framework in (torch, torch_ref):
        strategies = framework.multiprocessing.get_all_sharing_strategies()
        assert strategies == {"file_descriptor", "file_system"}
        assert framework.multiprocessing.get_sharing_strategy() == "file_descriptor"
        with pytest.raises(AssertionError, match="invalid sharing strategy 'shm'"):
            framework.multiprocessing.set_sharing_strategy("shm")


def test_file_system_blocks_are_named_files(strategy):
    x = torch.zeros(3).share_memory_()
    block = shared_memory.shared_block(x._data)
    if strategy == "file_system":
        assert block.fd is None and block.name.startswith("/")
        name = block.name
        del x, block
        import gc
        import os

        gc.collect()
        assert not os.path.exists(name)  # the maker unlinks it when freed
    else:
        assert block.fd is not None and block.name is None


def test_plain_pickling_copies(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.arange(3.0)
        back = pickle.loads(pickle.dumps(x))
        assert not x.is_shared() and not back.is_shared() and back.tolist() == [0, 1, 2]


def test_pin_memory_without_an_accelerator(torch_ref):
    if torch.cuda.is_available():
        pytest.skip("an accelerator is present: pinning works")
    for framework in (torch, torch_ref):
        x = framework.zeros(2)
        assert not x.is_pinned() and not x.untyped_storage().is_pinned()
        for pin in (x.pin_memory, x.untyped_storage().pin_memory):
            with pytest.raises(RuntimeError, match="Cannot access accelerator device when "
                                                   "none is available"):
                pin()


def test_pin_memory_of_a_meta_tensor(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.zeros(2, device="meta")
        assert not x.is_pinned()
        with pytest.raises(RuntimeError, match="cannot pin 'MetaFloatType' only dense CPU "
                                               "tensors can be pinned"):
            x.pin_memory()
