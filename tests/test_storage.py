"""Storages (storage.py): UntypedStorage, TypedStorage, set_, is_set_to, storage_type,
from_file, against PyTorch."""

import numpy as np
import pytest

import minitorch_meta as torch
from minitorch_meta import storage as storage_module
from tests.devices import tensor_device

DEPRECATED = "TypedStorage is deprecated"


def _on(framework, device):
    """``device`` for our tensors; PyTorch, the reference, runs on the CPU."""
    return device if framework is torch else "cpu"


def _typed(tensor, framework):
    """``tensor.storage()``, asserting the once-per-process warning it gives first."""
    framework.storage._reset_warn_typed_storage_removal()
    with pytest.warns(UserWarning, match=DEPRECATED):
        return tensor.storage()


def test_untyped_storage_is_the_whole_block_of_bytes(device, torch_ref):
    for framework in (torch, torch_ref):
        where = _on(framework, device)
        x = framework.arange(6, dtype=framework.float32, device=where)
        s = x.untyped_storage()
        view = x[2:]
        assert view.untyped_storage().data_ptr() == s.data_ptr() == x.data_ptr()
        assert view.untyped_storage().nbytes() == s.nbytes() == len(s) == s.size() == 24
        assert s.element_size() == 1
        assert str(s.device) == str(tensor_device(where) if framework is torch else "cpu")
    ours = torch.arange(6, dtype=torch.float32, device=device).untyped_storage()
    theirs = torch_ref.arange(6, dtype=torch_ref.float32).untyped_storage()
    assert ours.tolist() == theirs.tolist()
    assert ours[7] == theirs[7] and ours[-1] == theirs[-1]
    assert ours[4:8].tolist() == theirs[4:8].tolist()
    if device == "cpu":
        assert repr(ours) == repr(theirs)


def test_storage_writes_reach_the_tensor(device, torch_ref):
    for framework in (torch, torch_ref):
        where = _on(framework, device)
        x = framework.zeros(2, dtype=framework.int32, device=where)
        s = x.untyped_storage()
        s[4] = 7
        s[0:2] = 300  # each byte modulo 256
        assert x.tolist() == [44 + 256 * 44, 7]
        s.fill_(1)
        assert x.tolist() == [0x01010101] * 2
        s[1:3][0] = 0  # a slice shares the memory
        assert x.tolist()[0] == 0x01010001


def test_untyped_storage_construction_and_copies(torch_ref):
    for framework in (torch, torch_ref):
        s = framework.UntypedStorage([1, 2, 300])
        assert s.tolist() == [1, 2, 44]
        assert framework.UntypedStorage(5).nbytes() == 5
        assert framework.UntypedStorage().nbytes() == 0
        copy = s.clone()
        assert copy.data_ptr() != s.data_ptr() and copy.tolist() == s.tolist()
        assert s.cpu() is s
        s.copy_(framework.UntypedStorage([9, 8, 7]))
        assert s.tolist() == [9, 8, 7]
        s.resize_(4)
        assert s.tolist()[:3] == [9, 8, 7] and s.nbytes() == 4
        assert s.type() == "torch.storage.UntypedStorage"
        assert framework.is_storage(s) and not framework.is_storage(framework.zeros(1))
        assert not s.is_cuda
    assert repr(torch.UntypedStorage([1, 2])) == repr(torch_ref.UntypedStorage([1, 2]))


def test_untyped_storage_errors(torch_ref):
    for framework in (torch, torch_ref):
        s = framework.UntypedStorage([0, 0, 0, 0])
        with pytest.raises(IndexError, match="index 10 out of range for storage of size 4"):
            s[10]
        with pytest.raises(RuntimeError, match="only a step of 1 is supported"):
            s[::2]
        with pytest.raises(RuntimeError, match="self was 4 bytes but src was 3 bytes"):
            s.copy_(framework.UntypedStorage([1, 2, 3]))
        with pytest.raises(RuntimeError):
            framework.UntypedStorage(-1)


def test_meta_storage_has_a_size_and_no_data(torch_ref):
    for framework in (torch, torch_ref):
        s = framework.empty(3, device="meta").untyped_storage()
        assert s.nbytes() == 12 and s.data_ptr() == 0 and s.device.type == "meta"
        assert repr(s) == "...\n[torch.storage.UntypedStorage(device=meta) of size 12]"
        with pytest.raises(NotImplementedError, match="Not available for 'meta'"):
            s[0]
        with pytest.raises(NotImplementedError, match="Not available for 'meta'"):
            s.tolist()
        made = framework.UntypedStorage(4, device="meta")
        assert made.nbytes() == 4 and made.device.type == "meta"


def test_typed_storage_warns_once_per_process(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.arange(4.0)
        _typed(x, framework)
        x.storage()  # no second warning (pytest would raise it)
        framework.TypedStorage(2)


def test_typed_storage_reads_elements(torch_ref):
    ours, theirs = _typed(torch.arange(4.0), torch), _typed(torch_ref.arange(4.0), torch_ref)
    for s in (ours, theirs):
        assert s[1] == 1.0 and s[-1] == 3.0 and len(s) == s.size() == 4
        assert s.nbytes() == 16 and s.element_size() == 4
        assert s.type() == "torch.FloatStorage" and s.pickle_storage_type() == "FloatStorage"
        with pytest.raises(RuntimeError, match="slices are only supported"):
            s[1:3]
        with pytest.raises(IndexError, match="out of range for storage of size 4"):
            s[10]
        s[0] = 2.5
        assert s.tolist() == [2.5, 1.0, 2.0, 3.0]
        assert s.long().tolist() == [2, 1, 2, 3] and s.long().dtype == torch_dtype(s, "int64")
        assert s.untyped().nbytes() == 16
    assert repr(ours) == repr(theirs)
    assert repr(ours.fill_(1)) == repr(theirs.fill_(1))
    assert isinstance(ours, torch.FloatStorage) and not isinstance(ours, torch.LongStorage)
    assert isinstance(theirs, torch_ref.FloatStorage)


def torch_dtype(storage, name):
    """The dtype ``name`` of the framework ``storage`` belongs to."""
    module = torch if isinstance(storage, torch.TypedStorage) else __import__("torch")
    return getattr(module, name)


def test_typed_storage_construction(torch_ref):
    torch.storage._reset_warn_typed_storage_removal()
    torch_ref.storage._reset_warn_typed_storage_removal()
    for framework in (torch, torch_ref):
        with pytest.warns(UserWarning, match=DEPRECATED):
            s = framework.TypedStorage([1, 2], dtype=framework.int32)
        assert s.tolist() == [1, 2] and s.dtype == framework.int32
        meta = framework.TypedStorage(3, dtype=framework.int32, device="meta")
        assert repr(meta).startswith("...\n[torch.storage.TypedStorage(dtype=torch.int32, "
                                     "device=meta) of size 3]")
        assert framework.FloatStorage([1, 2]).dtype == framework.float32
        assert framework.FloatStorage(2).size() == 2


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool"])
def test_storage_type(dtype, torch_ref):
    ours = torch.zeros(1, dtype=getattr(torch, dtype)).storage_type()
    theirs = torch_ref.zeros(1, dtype=getattr(torch_ref, dtype)).storage_type()
    assert ours.__name__ == theirs.__name__ and repr(ours) == repr(theirs)
    assert torch.zeros(1, device="meta").storage_type() is None


def test_set_to_a_tensor_shares_its_memory(device, torch_ref):
    for framework in (torch, torch_ref):
        where = _on(framework, device)
        x = framework.arange(6.0, device=where)
        y = framework.zeros(3, device=where)
        assert y.set_(x) is y and y._version == 1
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert y.is_set_to(x) and x.is_set_to(y) and not x[1:].is_set_to(x)
        y[0] = 5
        assert x[0].item() == 5
        assert not framework.zeros(2, device=where).is_set_to(framework.zeros(2, device=where))


def test_set_to_a_storage(device, torch_ref):
    results = []
    for framework in (torch, torch_ref):
        where = _on(framework, device)
        x = framework.arange(6.0, device=where)
        z = framework.zeros(3, device=where)
        a = z.set_(x.untyped_storage(), 2, (2, 2), (1, 2)).tolist()
        b = framework.zeros(1, device=where).set_(x.untyped_storage(), 2, (2, 2)).tolist()
        c = framework.zeros(1, device=where).set_(
            source=x.untyped_storage(), storage_offset=1, size=(2,), stride=(2,)).tolist()
        d = framework.zeros(2, dtype=framework.int32, device=where).set_(
            x.untyped_storage()).tolist()
        e = tuple(framework.zeros(2, device=where).set_().shape)
        results.append((a, b, c, d, e))
    assert results[0] == results[1]


def test_set_errors(torch_ref):
    for framework in (torch, torch_ref):
        x = framework.arange(6.0)
        with pytest.raises(RuntimeError, match="Could not set tensor of type float to a "
                                               "tensor of type long int"):
            framework.zeros(2, dtype=framework.int64).set_(x)
        with pytest.raises(RuntimeError, match="devices must match"):
            framework.zeros(2).set_(framework.zeros(2, device="meta"))
        storage = x.untyped_storage()
        grown = framework.zeros(2).set_(storage, 5, (4,))  # the storage grows to fit
        assert grown[0].item() == 5 and storage.nbytes() == 36
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            framework.zeros(2, requires_grad=True).set_(x)
        with pytest.raises(TypeError):
            framework.zeros(2).set_(5)
        with pytest.raises(TypeError, match="must be Tensor, not int"):
            framework.zeros(2).is_set_to(5)
        typed = _typed(x, framework)
        with pytest.raises(RuntimeError, match="Expected a Storage of type long int or an "
                                               "UntypedStorage, but got type Float"):
            framework.zeros(2, dtype=framework.int64).set_(typed)


def test_shared_storage_cannot_grow():
    # (PyTorch crashes when resizing a shared storage: only ours is checked)
    storage = torch.arange(6.0).untyped_storage().share_memory_()
    for grow in (lambda: storage.resize_(40), lambda: torch.zeros(2).set_(storage, 5, (4,))):
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not "
                                               "resizable"):
            grow()


def test_set_on_meta(torch_ref):
    for framework in (torch, torch_ref):
        source = framework.zeros(4, device="meta")
        assert framework.zeros(2, device="meta").set_(source).shape == (4,)
        made = framework.zeros(2, device="meta").set_(source.untyped_storage(), 0, (2,), (1,))
        assert made.shape == (2,) and made.is_meta


def test_const_data_ptr(any_device):
    x = torch.arange(4.0, device=any_device)
    assert x.const_data_ptr() == x.data_ptr()


def test_from_file(tmp_path, torch_ref):
    path = tmp_path / "values.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    for framework in (torch, torch_ref):
        assert framework.from_file(str(path), size=4).tolist() == [0, 1, 2, 3]
        assert framework.from_file(str(path), size=2, dtype=framework.int64).tolist() == (
            np.arange(4, dtype=np.float32).view(np.int64).tolist())
        assert framework.from_file(str(path)).shape == (0,)
        with pytest.raises(RuntimeError, match="size <16> is smaller than the required "
                                               "mapping size <20>"):
            framework.from_file(str(path), size=5)
        with pytest.raises(RuntimeError, match="unable to open file .* in read-only mode: "
                                               "No such file or directory"):
            framework.from_file(str(tmp_path / "missing.bin"), shared=False, size=3)
        with pytest.raises(NotImplementedError, match="aten::from_file"):
            framework.from_file(str(path), size=2, device="meta")
        made = framework.from_file(str(path), size=2, requires_grad=True)
        assert made.requires_grad and made.is_leaf


def test_from_file_shared_writes_reach_the_file(tmp_path, torch_ref):
    for framework in (torch, torch_ref):
        path = tmp_path / f"{framework.__name__}.bin"
        np.arange(4, dtype=np.float32).tofile(path)
        shared = framework.from_file(str(path), shared=True, size=4)
        assert shared.untyped_storage().filename == str(path)
        shared[0] = 42
        private = framework.from_file(str(path), shared=False, size=4)
        assert private.untyped_storage().filename is None
        private[1] = 7
        assert np.fromfile(path, dtype=np.float32).tolist() == [42, 1, 2, 3]
        grown = framework.from_file(str(tmp_path / f"new_{framework.__name__}.bin"),
                                    shared=True, size=3)
        assert grown.tolist() == [0, 0, 0]
        assert (tmp_path / f"new_{framework.__name__}.bin").stat().st_size == 12


def test_typed_storage_warning_points_at_the_caller():
    storage_module._reset_warn_typed_storage_removal()
    with pytest.warns(UserWarning, match=DEPRECATED) as record:
        torch.zeros(1).storage()
    assert record[0].filename == __file__
