"""Tensor: metadata, data access, moves, in-place updates, indexing assignment, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt


def test_metadata(device):
    t = mt.zeros(2, 3, 4, device=device)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, mt.Size) and t.size() == t.shape
    assert t.size(1) == 3 and t.size(-1) == 4 and t.dim() == 3 and t.ndim == 3
    assert t.numel() == 24 and mt.numel(t) == 24 and len(t) == 2 and t.element_size() == 4
    assert t.is_floating_point() and not t.is_meta and t.is_leaf
    assert t.is_cuda == (device == "cuda")
    with pytest.raises(IndexError, match="size: Dimension out of range"):
        t.size(3)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(mt.tensor(1.0))


def test_item_tolist_numpy(device):
    t = mt.tensor([[1.0, 2.0]], device=device)
    assert t.tolist() == [[1.0, 2.0]] and t[0, 1].item() == 2.0
    assert isinstance(mt.tensor(3).item(), int) and isinstance(mt.tensor(2.5).item(), float)
    assert float(mt.tensor([2.5])) == 2.5 and int(mt.tensor(3)) == 3
    assert bool(mt.tensor([1.0])) and not bool(mt.tensor(0.0))
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to "
                                           "Scalar"):
        t.item()
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        float(t)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with 2 values is ambiguous"):
        bool(t)
    if device == "cpu":
        assert isinstance(t.numpy(), np.ndarray) and t.numpy().dtype == np.float32
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on a tensor that requires "
                                           r"grad. Use tensor.detach\(\).numpy\(\) instead."):
        mt.rand(2, requires_grad=True).numpy()
    assert np.asarray(mt.rand(2, requires_grad=True)).shape == (2,)


def test_reading_meta_data_raises_with_advice():
    m = mt.rand(2, 3, device="meta")
    for read in (lambda: m[0, 0].item(), m.tolist, m.numpy, lambda: float(m.sum()), lambda: m.cpu(),
                 lambda: np.asarray(m), lambda: mt.zeros(2, 3).copy_(m)):
        with pytest.raises(mt.MetaDataError, match="a meta tensor has a shape and a dtype but "
                                                   "no data; to get real values"):
            read()
    assert issubclass(mt.MetaDataError, RuntimeError)


def test_moves_between_devices_and_dtypes():
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    m = t.to("meta")
    assert m.is_meta and m.shape == (2,) and m.grad_fn.name() == "ToCopyBackward0"
    m.sum().backward()
    assert t.grad is not None and t.grad.shape == (2,)
    assert t.to(mt.device("cpu")) is t and t.cpu() is t
    u = t.detach().to("cpu", mt.float64)
    assert u.dtype is mt.float64 and u.tolist() == [1.0, 2.0]
    assert t.to(mt.zeros(1, dtype=mt.int64)).dtype is mt.int64
    assert t.to(dtype=mt.float64).dtype is mt.float64
    assert t.type() == "torch.FloatTensor" and t.detach().type(mt.float64).dtype is mt.float64
    with pytest.raises(TypeError, match="to\\(\\) expects a device, a dtype or a tensor"):
        t.to(3.5)


def test_cuda_without_gpu_raises_device_error_saying_why():
    from minitorch_meta.backends.cupy_backend import cuda_unavailable_reason

    reason = cuda_unavailable_reason()
    if reason is None:
        pytest.skip("a CUDA device is usable here: the error path cannot be reached")
    for call in (lambda: mt.zeros(2).cuda(), lambda: mt.zeros(2, device="cuda"),
                 lambda: mt.zeros(2).to("cuda:0")):
        with pytest.raises(mt.DeviceError) as info:
            call()
        assert "CUDA" in str(info.value) and len(str(info.value)) > 40


def test_mixed_devices_raise_device_error():
    a, m = mt.ones(2), mt.ones(2, device="meta")
    with pytest.raises(mt.DeviceError, match="add: expected all tensors on the same device, but "
                                             "got tensors on 'cpu', 'meta'; move them first"):
        a + m
    with pytest.raises(mt.DeviceError, match="mm: expected all tensors on the same device"):
        mt.mm(mt.ones(2, 2, device="meta"), mt.ones(2, 2))
    with pytest.raises(mt.DeviceError, match="__setitem__: value is on 'meta' but the tensor is "
                                             "on 'cpu'"):
        a[0] = m[0]


def test_setitem_with_mv_rows(device):
    x = mt.rand(4, 3, device=device)
    w = mt.rand(5, 3, device=device)
    v = mt.zeros(4, 5, device=device)
    for k in range(4):
        v[k] = w.mv(x[k])
    np.testing.assert_allclose(v.cpu().numpy(), x.cpu().numpy() @ w.cpu().numpy().T, rtol=1e-5)


def test_setitem_forms():
    x = mt.zeros(3, 4)
    x[0] = 1.0
    x[1, 1:3] = mt.tensor([2.0, 3.0])
    x[:, 3] = mt.tensor([4.0, 5.0, 6.0])
    x[x == 0] = -1.0
    x[mt.tensor([2])] = 7.0
    assert x.tolist() == [[1.0, 1.0, 1.0, 4.0], [-1.0, 2.0, 3.0, 5.0], [7.0] * 4]
    with pytest.raises(mt.ShapeError, match=r"__setitem__: cannot assign a value of shape "
                                            r"\(3,\) to a selection of shape \(4,\)"):
        x[0] = mt.ones(3)
    with pytest.raises(mt.ShapeError, match=r"__setitem__: cannot assign a value of shape "
                                            r"\(3,\) to a selection of shape \(4,\)"):
        x[0] = mt.ones(3, requires_grad=True)  # (the recorded path says the same)
    x[0] = mt.ones(4, requires_grad=True)  # recorded (tests/test_user_scripts_2.py)
    assert x.requires_grad and not x.is_leaf
    m = mt.zeros(3, 4, device="meta")
    m[0] = mt.ones(4, device="meta")  # shape-checked, nothing written
    with pytest.raises(mt.ShapeError):
        m[0] = mt.ones(5, device="meta")


def test_inplace_ops(device):
    x = mt.ones(2, 3, device=device)
    assert x.add_(1) is x and x.tolist() == [[2.0] * 3] * 2
    x.sub_(mt.ones(3, device=device), alpha=0.5)
    x.mul_(2)
    x.div_(mt.tensor([1.0, 3.0, 3.0], device=device))
    assert x.tolist() == [[3.0, 1.0, 1.0]] * 2
    x += 1
    x -= mt.ones(2, 3, device=device)
    x *= 2
    x /= 2
    assert x.tolist() == [[3.0, 1.0, 1.0]] * 2
    assert x.fill_(5).tolist() == [[5.0] * 3] * 2 and x.zero_().tolist() == [[0.0] * 3] * 2
    x.copy_(mt.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [[1.0, 2.0, 3.0]] * 2
    n = mt.zeros(1000, device=device).normal_(2.0, 0.5).cpu().numpy()
    assert abs(n.mean() - 2.0) < 0.1 and abs(n.std() - 0.5) < 0.1
    u = mt.zeros(1000, device=device).uniform_(-2, -1).cpu().numpy()
    assert u.min() >= -2 and u.max() < -1


def test_inplace_errors():
    i = mt.zeros(3, dtype=mt.int64)
    with pytest.raises(RuntimeError, match="add_: result type Float can't be cast to the "
                                           "desired output type Long"):
        i.add_(1.5)
    with pytest.raises(mt.ShapeError, match=r"add_: the result of shape \(2, 3\) cannot be "
                                            r"written in place into a tensor of shape \(3,\)"):
        mt.zeros(3).add_(mt.ones(2, 3))
    with pytest.raises(mt.ShapeError, match=r"copy_: source of shape \(4,\) cannot be broadcast "
                                            r"to the destination shape \(3,\)"):
        mt.zeros(3).copy_(mt.ones(4))


def test_inplace_on_meta_checks_shapes_only():
    m = mt.zeros(2, 3, device="meta")
    assert m.add_(1) is m and m.mul_(mt.ones(3, device="meta")) is m
    m.normal_()
    m.uniform_()
    m.zero_()
    with pytest.raises(mt.ShapeError):
        m.add_(mt.ones(4, device="meta"))


def test_iteration_and_hash():
    t = mt.tensor([[1, 2], [3, 4]])
    assert [row.tolist() for row in t] == [[1, 2], [3, 4]]
    assert len({t, t}) == 1
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mt.tensor(1))


def test_index_with_integer_tensor_scalar():
    x = mt.arange(5)
    assert x[mt.tensor(2)].item() == 2
    assert [10, 20, 30][mt.tensor(1)] == 20
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][mt.tensor(1.0)]


def test_data_property_and_tensor_constructor():
    x = mt.rand(2, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.grad_fn is None
    x.data = mt.zeros(2)
    assert x.tolist() == [0.0, 0.0] and x.requires_grad
    assert mt.Tensor([1, 2]).dtype is mt.float32
    assert mt.Tensor(2, 3).shape == (2, 3)


def test_float32_stays_float32_through_a_network():
    import minitorch_meta.nn.functional as F

    x = mt.rand(2, 3, 8, 8)
    w = mt.rand(4, 3, 3, 3, requires_grad=True)
    lw = mt.rand(10, 16, requires_grad=True)
    h = F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2, 2, 1).flatten(1)
    h = F.max_pool2d(h.view(2, 4, 5, 5), 2).flatten(1)
    y = F.linear(h, lw)
    loss = F.cross_entropy(y, mt.tensor([1, 2])) + F.mse_loss(y, mt.zeros(2, 10)) * 0.5
    assert loss.dtype is mt.float32
    loss.backward()
    assert w.grad.dtype is mt.float32 and lw.grad.dtype is mt.float32


# -- is_contiguous / contiguous ------------------------------------------------------------

VIEWS = [
    ("fresh", lambda x: x),
    ("t", lambda x: x.t()),
    ("t_t", lambda x: x.t().t()),
    ("leading_rows", lambda x: x[:1]),
    ("a_row", lambda x: x[1]),
    ("a_column", lambda x: x[:, 0]),
    ("some_columns", lambda x: x[:, :2]),
    ("every_other_column", lambda x: x[:, ::2]),
    ("a_column_as_row", lambda x: x[:, :1].t()),
    ("unsqueeze", lambda x: x.unsqueeze(1)),
    ("permute_with_size_1", lambda x: x.unsqueeze(0).permute(1, 0, 2)),
    ("view", lambda x: x.view(3, 2)),
    ("reshape_of_t", lambda x: x.t().reshape(6)),
    ("scalar", lambda x: x[0, 0]),
    ("empty_t", lambda x: x[:0].t()),
    ("flatten_of_t", lambda x: x.t().flatten()),
]


@pytest.mark.parametrize("name, make", VIEWS, ids=[name for name, _ in VIEWS])
def test_is_contiguous_matches_torch(name, make, device):
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ours, theirs = make(mt.tensor(values, device=device)), make(torch.tensor(values))
    assert type(ours.is_contiguous()) is bool
    assert ours.is_contiguous() == theirs.is_contiguous()
    made, reference = ours.contiguous(), theirs.contiguous()
    assert made.is_contiguous() and (made is ours) == (reference is theirs)
    np.testing.assert_array_equal(made.cpu().numpy(), reference.numpy())


def test_expand_is_a_stride_0_view_and_contiguous_copies_it(device):
    expanded = mt.ones(1, 3, device=device).expand(4, 3)
    assert not expanded.is_contiguous() and expanded.stride() == (0, 1)
    copy = expanded.contiguous()
    assert copy.is_contiguous() and copy.stride() == (3, 1) and copy.tolist() == [[1.0] * 3] * 4


def test_expand_keeps_signed_zeros_and_every_dtype(device):
    negative_zero = mt.tensor([-0.0], device=device).expand(2, 1).cpu().numpy()
    assert np.signbit(negative_zero).all()  # a write, not zeros + x (which gives +0.0)
    for dtype in (mt.bool, mt.uint8, mt.int64, mt.float64):
        out = mt.ones(1, 2, dtype=dtype, device=device).expand(3, 2)
        assert out.dtype is dtype and out.tolist() == [[1, 1]] * 3


def test_a_cast_to_an_integer_dtype_leaves_the_graph_as_in_torch():
    x = mt.ones(2, requires_grad=True)
    for cast in (x.long(), x.int(), x.bool(), x.to(mt.uint8), x.to("meta", mt.int64)):
        assert not cast.requires_grad and cast.grad_fn is None
    assert x.double().grad_fn.name() == "ToCopyBackward0" and x.double().requires_grad


def test_size_of_a_dim_of_a_0d_tensor_raises_as_in_torch():
    for dim in (0, -1):
        with pytest.raises(IndexError, match=f"Dimension specified as {dim} but tensor has no "
                                             "dimensions"):
            mt.tensor(1.0).size(dim)
    assert mt.tensor(1.0).size() == ()


def test_contiguous_copies_a_view_with_pytorchs_grad_fn(device):
    x = mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device, requires_grad=True)
    fresh = x * 1
    assert fresh.contiguous() is fresh
    made = x.t().contiguous()
    assert made.grad_fn.name() == "CloneBackward0" and made.is_contiguous()
    assert made.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    (made * mt.arange(6.0, device=device).view(3, 2)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_conv_and_pool_outputs_are_channels_last_views_as_in_pytorch():
    """The CPU kernels return NCHW views of channels-last memory: PyTorch's channels_last
    tensors, which are not contiguous either."""
    torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                                "test extra")
    F = mt.nn.functional
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((4, 3, 3, 3))
    y = F.conv2d(mt.tensor(x), mt.tensor(w))
    pooled = F.max_pool2d(y, 2)
    reference = torch.nn.functional.conv2d(
        torch.tensor(x, dtype=torch.float32).to(memory_format=torch.channels_last),
        torch.tensor(w, dtype=torch.float32))
    assert not reference.is_contiguous()
    assert reference.is_contiguous(memory_format=torch.channels_last)
    assert not y.is_contiguous() and not pooled.is_contiguous()
    for out in (y, pooled):
        made = out.contiguous()
        assert made.is_contiguous() and made is not out and mt.equal(made, out)
    np.testing.assert_allclose(y.numpy(), reference.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, make", VIEWS, ids=[name for name, _ in VIEWS])
def test_meta_tensors_are_always_contiguous(name, make):
    """No storage, so no layout: True even for ``t()`` (docs/differences.md; PyTorch's meta
    tensors keep strides and say False there)."""
    x = make(mt.empty(2, 3, device="meta"))
    assert x.is_contiguous() is True and x.contiguous() is x
    w = mt.empty(4, 3, 3, 3, device="meta")
    assert mt.nn.functional.conv2d(mt.empty(2, 3, 8, 8, device="meta"), w).is_contiguous()


def test_numpy_asarray_of_an_element_of_a_vector():
    # ``x[k]`` of a vector holds a NumPy scalar; ``__array__`` must still give an array
    import numpy as np

    element = mt.arange(4)[2]
    assert np.asarray(element).shape == () and np.asarray(element).item() == 2
    assert np.asarray(mt.arange(4.0)[1], dtype=np.float64).dtype == np.float64


TO_COPY_CALLS = {
    "copy=True": lambda lib, x: x.to(copy=True),
    "dtype, copy=True": lambda lib, x: x.to(lib.float32, copy=True),
    "device, copy=True": lambda lib, x: x.to("cpu", copy=True),
    "tensor, copy=True": lambda lib, x: x.to(x, copy=True),
    "dtype, non_blocking, copy positionally": lambda lib, x: x.to(lib.float32, False, True),
    "device, dtype, non_blocking, copy": lambda lib, x: x.to("cpu", lib.float32, False, True),
    "copy=False": lambda lib, x: x.to(copy=False),
    "dtype, non_blocking only": lambda lib, x: x.to(lib.float32, False),
}


@pytest.mark.parametrize("call", TO_COPY_CALLS.values(), ids=TO_COPY_CALLS)
@pytest.mark.parametrize("transposed", [False, True])
def test_to_copies_when_asked_even_if_nothing_changes(call, transposed, torch_ref):
    seen = {}
    for lib in (mt, torch_ref):
        x = lib.ones(3, 2).t() if transposed else lib.ones(2, 3)
        y = call(lib, x)
        y.add_(1)  # a copy leaves x alone; x itself changes
        seen[lib] = (y is x, x.tolist(), y.stride())
    assert seen[mt] == seen[torch_ref]


def test_module_to_refuses_copy_as_pytorch(torch_ref):
    with pytest.raises(RuntimeError, match="does not accept copy argument"):
        torch_ref.nn.Linear(2, 2).to(copy=True)
    with pytest.raises(RuntimeError, match="does not accept copy argument"):
        mt.nn.Linear(2, 2).to(copy=True)


@pytest.mark.parametrize("name", ["rand_like", "randn_like"])
def test_random_like_factories_take_a_generator(name, device):
    """``rand_like(x, generator=g)`` draws as ``rand(x.shape, generator=g)`` (PyTorch 2.13)."""
    x = mt.ones(2, 3, device=device)
    generator = mt.Generator(device=device).manual_seed(7)
    drawn = getattr(mt, name)(x, generator=generator)
    generator.manual_seed(7)
    direct = getattr(mt, name.removesuffix("_like"))(2, 3, generator=generator, device=device)
    assert drawn.tolist() == direct.tolist()
    other = getattr(mt, name)(x, generator=mt.Generator(device=device).manual_seed(8))
    assert drawn.tolist() != other.tolist()
