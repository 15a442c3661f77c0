"""``Tensor.view(dtype)``: the same memory read as another dtype, against PyTorch (values,
shapes, strides, errors), on every device; meta gives the shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

_PAIRS = [("float32", "int32"), ("float32", "int16"), ("float32", "uint8"),
          ("float32", "float64"), ("int64", "float32"), ("float16", "int16"),
          ("bfloat16", "float16"), ("complex64", "float32"), ("float32", "complex64"),
          ("bool", "uint8"), ("int8", "bool"), ("float64", "complex128")]

#: layouts of a (4, 8) tensor: (name, how to take it)
_LAYOUTS = {
    "contiguous": lambda t: t,
    "rows stepped": lambda t: t[::2],
    "offset rows": lambda t: t[1:],
    "transposed": lambda t: t.t(),
    "columns cut": lambda t: t[:, 2:6],
}


def _source(framework, dtype: str, device="cpu"):
    data = np.arange(32).reshape(4, 8) % 7
    t = framework.tensor(data, dtype=getattr(framework, dtype))
    return t.to(device) if framework is mt else t


def _outcome(call):
    try:
        return call(), None
    except RuntimeError as error:
        return None, str(error)


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("source,target", _PAIRS, ids=[f"{a}-{b}" for a, b in _PAIRS])
def test_view_dtype_reads_the_same_bytes_as_pytorch(torch_ref, device, source, target, layout):
    if device == "cuda" and "bfloat16" in (source, target):
        pytest.skip("CuPy has no bfloat16, so CUDA refuses it (docs/cuda.md)")
    take = _LAYOUTS[layout]
    theirs, their_error = _outcome(
        lambda: take(_source(torch_ref, source)).view(getattr(torch_ref, target)))
    ours, our_error = _outcome(
        lambda: take(_source(mt, source, device)).view(getattr(mt, target)))
    if their_error is not None:
        assert our_error is not None and our_error.endswith(their_error), (our_error,
                                                                            their_error)
        return
    assert our_error is None, our_error
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(_bytes(ours.cpu().numpy()), _bytes(theirs.numpy()))


def _bytes(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(np.uint8)


@pytest.mark.parametrize("source,target", _PAIRS, ids=[f"{a}-{b}" for a, b in _PAIRS])
def test_view_dtype_on_meta_gives_pytorchs_shape(torch_ref, source, target):
    ours = _source(mt, source, "meta").view(getattr(mt, target))
    theirs = _source(torch_ref, source).view(getattr(torch_ref, target))
    assert ours.device.type == "meta"
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))


def test_a_0d_tensor_keeps_its_element_size_only(torch_ref):
    assert mt.tensor(1.0).view(mt.int32).item() == torch_ref.tensor(1.0).view(
        torch_ref.int32).item()
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0 to view Float as Half"):
        mt.tensor(1.0).view(mt.float16)


def test_the_view_shares_memory_and_version_with_its_input(device):
    x = mt.zeros(4, device=device)
    bits = x.view(mt.int32)
    bits[1] = 0x3F800000  # the bits of 1.0 in float32
    assert x.cpu().tolist() == [0.0, 1.0, 0.0, 0.0]
    assert x._version == bits._version == 1


def test_the_view_is_not_differentiable_as_in_pytorch(torch_ref):
    """PyTorch's view(dtype) gives a tensor without gradient, whatever the dtype."""
    for framework in (mt, torch_ref):
        x = framework.ones(4, requires_grad=True)
        for dtype in (framework.float32, framework.float16, framework.int32):
            y = (x * 2).view(dtype)
            assert (y.requires_grad, y.grad_fn) == (False, None)


def test_dtype_by_keyword_and_refusals():
    x = mt.ones(2, 4)
    assert x.view(dtype=mt.int16).shape == (2, 8)
    with pytest.raises(TypeError, match="a shape or a dtype, not both"):
        x.view(8, dtype=mt.int16)
    with pytest.raises(TypeError, match="a shape or a dtype, not both"):
        x.view(mt.int16, size=(8,))
