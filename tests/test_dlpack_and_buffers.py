"""DLPack (``from_dlpack``, ``to_dlpack``, ``Tensor.__dlpack__``, ``utils.dlpack``),
``frombuffer``, ``is_inference`` and ``newaxis``: memory shared with NumPy, PyTorch and
Python buffers, as PyTorch shares it."""

from __future__ import annotations

import array

import numpy as np
import pytest

import minitorch_meta as mt


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def test_a_numpy_array_is_imported_without_a_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = mt.from_dlpack(a)
    assert t.dtype is mt.float64 and t.device == mt.device("cpu") and t.shape == (2, 3)
    t[0, 0] = 7.0
    assert a[0, 0] == 7.0


def test_numpy_imports_a_tensor_without_a_copy():
    t = mt.arange(6.0).reshape(2, 3)
    b = np.from_dlpack(t)
    b[1, 2] = -1.0
    assert t[1, 2].item() == -1.0 and b.dtype == np.float32


def test_a_transposed_view_keeps_its_strides_both_ways():
    t = mt.arange(6.0).reshape(2, 3).t()
    assert np.from_dlpack(t).strides == (4, 12)
    assert mt.from_dlpack(np.arange(6.0).reshape(2, 3).T).stride() == (1, 3)


def test_to_dlpack_capsule_is_read_by_us_torch_and_numpy_once():
    torch = _torch()
    t = mt.arange(4.0)
    ours = mt.from_dlpack(mt.to_dlpack(t))
    assert ours.data_ptr() == t.data_ptr()
    ours[0] = 5.0
    assert t[0].item() == 5.0
    theirs = torch.from_dlpack(mt.to_dlpack(t))
    assert theirs.data_ptr() == t.data_ptr() and theirs.tolist() == [5.0, 1.0, 2.0, 3.0]
    capsule = mt.to_dlpack(t)
    mt.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule. Note that "
                                           "DLTensor capsules can be consumed only once"):
        mt.from_dlpack(capsule)


def test_torch_tensors_and_capsules_are_imported_as_torch_does():
    torch = _torch()
    source = torch.arange(6.0).reshape(2, 3)
    ours = mt.from_dlpack(source)
    assert ours.data_ptr() == source.data_ptr() and ours.tolist() == source.tolist()
    from_capsule = mt.from_dlpack(torch.utils.dlpack.to_dlpack(source))
    assert from_capsule.data_ptr() == source.data_ptr()
    back = torch.from_dlpack(ours)
    assert back.data_ptr() == source.data_ptr()


def test_dlpack_device_and_the_enum_match_torch():
    torch = _torch()
    kind, index = mt.ones(2).__dlpack_device__()
    theirs = torch.ones(2).__dlpack_device__()
    assert (int(kind), index) == (int(theirs[0]), theirs[1]) and kind.name == theirs[0].name
    assert {k: int(v) for k, v in mt.utils.dlpack.DLDeviceType.__members__.items()} == {
        k: int(v) for k, v in torch.utils.dlpack.DLDeviceType.__members__.items()}
    assert mt.utils.dlpack.from_dlpack is mt.from_dlpack


def test_copy_and_device_keywords():
    a = np.zeros(3, dtype=np.float32)
    copied = mt.from_dlpack(a, copy=True)
    copied[0] = 1.0
    assert a[0] == 0.0
    same = mt.from_dlpack(a, device="cpu", copy=False)
    same[1] = 2.0
    assert a[1] == 2.0
    meta = mt.from_dlpack(a, device="meta")
    assert meta.is_meta and meta.shape == (3,)
    with pytest.raises(BufferError, match="needs a copy, but copy=False"):
        mt.from_dlpack(a, device="meta", copy=False)


@pytest.mark.parametrize("call, error, message", [
    (lambda: np.from_dlpack(mt.ones(2, device="meta")), BufferError,
     "Cannot pack tensors on meta: a meta tensor has a shape and a dtype but no data"),
    (lambda: mt.ones(2, device="meta").__dlpack_device__(), ValueError,
     "Unknown device type meta for Dlpack"),
    (lambda: np.from_dlpack(mt.ones(2, requires_grad=True)), BufferError,
     "Can't export tensors that require gradient, use tensor.detach()"),
    (lambda: mt.to_dlpack(mt.ones(2, requires_grad=True)), BufferError,
     "Can't export tensors that require gradient, use tensor.detach()"),
    (lambda: mt.from_dlpack(3), RuntimeError,
     "from_dlpack received an invalid capsule."),
    (lambda: mt.from_dlpack([1, 2]), RuntimeError, "(got list; pass an array with "
                                                   "__dlpack__"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_the_same_error_types_as_torch():
    torch = _torch()
    for T in (mt, torch):
        with pytest.raises(BufferError):
            np.from_dlpack(T.ones(2, requires_grad=True))
        with pytest.raises(BufferError):
            np.from_dlpack(T.ones(2, device="meta"))
        with pytest.raises(ValueError):
            T.ones(2, device="meta").__dlpack_device__()
        with pytest.raises(RuntimeError):
            T.from_dlpack(3)


# -- frombuffer -----------------------------------------------------------------------


def test_frombuffer_shares_memory_with_the_buffer():
    torch = _torch()
    values = array.array("f", [1.0, 2.0, 3.0, 4.0])
    ours = mt.frombuffer(values, dtype=mt.float32, count=2, offset=4)
    theirs = torch.frombuffer(array.array("f", [1.0, 2.0, 3.0, 4.0]), dtype=torch.float32,
                              count=2, offset=4)
    assert ours.tolist() == theirs.tolist() == [2.0, 3.0]
    ours[0] = 10.0
    assert values[1] == 10.0
    assert not ours.requires_grad and ours.dtype is mt.float32


@pytest.mark.parametrize("kwargs", [{}, {"count": -2}, {"offset": 1}, {"count": 3}])
def test_frombuffer_reads_bytes_as_torch(kwargs):
    torch = _torch()
    data = bytes(range(10, 18))
    ours = mt.frombuffer(bytearray(data), dtype=mt.uint8, **kwargs)
    theirs = torch.frombuffer(bytearray(data), dtype=torch.uint8, **kwargs)
    assert ours.tolist() == theirs.tolist() and ours.dtype is mt.uint8


def test_frombuffer_with_requires_grad():
    t = mt.frombuffer(bytearray(8), dtype=mt.float32, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.shape == (2,)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.frombuffer(bytearray(8), dtype=mt.int32, requires_grad=True)


def test_a_read_only_buffer_warns_and_gives_a_read_only_tensor():
    with pytest.warns(UserWarning, match="The given buffer is not writable"):
        t = mt.frombuffer(b"abcd", dtype=mt.uint8)
    assert t.tolist() == [97, 98, 99, 100]


@pytest.mark.parametrize("call, message", [
    (lambda T, f32: T.frombuffer(array.array("f", [1, 2, 3, 4]), dtype=f32, count=5),
     "requested buffer length (5 * 4 bytes) after offset (0 bytes) must not be greater than "
     "actual buffer length (16 bytes)"),
    (lambda T, f32: T.frombuffer(array.array("f", [1, 2, 3, 4]), dtype=f32, offset=16),
     "offset (16 bytes) must be non-negative and no greater than buffer length (16 bytes) "
     "minus 1"),
    (lambda T, f32: T.frombuffer(array.array("f", [1, 2, 3, 4]), dtype=f32, offset=-1),
     "offset (-1 bytes) must be non-negative and no greater than buffer length (16 bytes) "
     "minus 1"),
    (lambda T, f32: T.frombuffer(array.array("f", [1, 2, 3, 4]), dtype=f32, count=0),
     "both buffer length (16) and count (0) must not be 0"),
    (lambda T, f32: T.frombuffer(bytearray(), dtype=f32),
     "both buffer length (0) and count (-1) must not be 0"),
    (lambda T, f32: T.frombuffer(bytearray(b"abc"), dtype=f32),
     "buffer length (3 bytes) after offset (0 bytes) must be a multiple of element size (4)"),
    (lambda T, f32: T.frombuffer([1, 2], dtype=f32),
     "object does not implement Python buffer protocol."),
])
def test_frombuffer_errors_match_torch(call, message):
    torch = _torch()
    for T, f32 in ((mt, mt.float32), (torch, torch.float32)):
        with pytest.raises(ValueError) as info:
            call(T, f32)
        assert str(info.value) == message, T


def test_frombuffer_needs_a_dtype():
    with pytest.raises(TypeError):
        mt.frombuffer(bytearray(4))


# -- is_inference, newaxis ------------------------------------------------------------


def test_is_inference_and_newaxis_as_torch():
    torch = _torch()
    assert mt.is_inference(mt.ones(2)) is torch.is_inference(torch.ones(2)) is False
    assert mt.ones(2).is_inference() is False
    for T in (mt, torch):
        with pytest.raises(TypeError, match="is_inference\\(\\): argument 'input' \\(position "
                                            "1\\) must be Tensor, not int"):
            T.is_inference(3)
    assert mt.newaxis is None is torch.newaxis
    assert mt.ones(2, 3)[:, mt.newaxis].shape == (2, 1, 3)
