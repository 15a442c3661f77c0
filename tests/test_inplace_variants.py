"""The in-place methods of inplace_variants.py (``ceil_``, ``eq_``, ``addcmul_``,
``squeeze_``, ...) and the ``torch.<name>_`` functions: PyTorch's values, shapes and
strides, the tensor itself returned, one version bump per call, and the in-place rules
(leaf that requires grad, graph, dtype kinds, no broadcasting of this tensor)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the reference for the in-place ops")

FLOATS = np.array([[0.25, -1.5, 0.75], [-0.4, 0.6, -2.5]])
INTS = np.array([[3, -6, 5], [0, 12, -7]])
BOOLS = np.array([[True, False, True], [False, False, True]])
MATRIX = np.array([[1.0, 2.0], [-0.5, 0.25], [3.0, -1.0]])  # (3, 2)
OTHERS = np.array([[0.5, 2.0, -0.75], [0.4, 0.1, 1.5]])


# (method, this tensor's data, arguments (arrays become tensors), keywords)
CASES = [
    ("addcdiv_", FLOATS, (OTHERS, OTHERS + 3.0), {"value": 0.5}),
    ("addcmul_", FLOATS, (OTHERS, FLOATS), {"value": -2}),
    ("addmm_", FLOATS, (MATRIX.T, MATRIX[:, :1].repeat(3, 1).T[:3]), {"beta": 0.5,
                                                                     "alpha": 2.0}),
    ("lerp_", FLOATS, (OTHERS, 0.3), {}),
    ("lerp_", FLOATS, (OTHERS, OTHERS.clip(0, 1)), {}),
    ("ceil_", FLOATS, (), {}), ("floor_", FLOATS, (), {}), ("round_", FLOATS * 3, (), {}),
    ("round_", FLOATS * 3, (), {"decimals": 1}), ("trunc_", FLOATS, (), {}),
    ("sign_", FLOATS, (), {}), ("cos_", FLOATS, (), {}), ("sin_", FLOATS, (), {}),
    ("erf_", FLOATS, (), {}), ("expm1_", FLOATS, (), {}), ("log10_", np.abs(FLOATS), (), {}),
    ("log1p_", np.abs(FLOATS), (), {}), ("log2_", np.abs(FLOATS), (), {}),
    ("reciprocal_", FLOATS, (), {}), ("rsqrt_", np.abs(FLOATS), (), {}),
    ("square_", FLOATS, (), {}), ("square_", INTS, (), {}), ("ceil_", INTS, (), {}),
    ("sign_", INTS, (), {}),
    ("eq_", FLOATS, (OTHERS,), {}), ("ne_", FLOATS, (0.25,), {}), ("lt_", FLOATS, (OTHERS,), {}),
    ("le_", INTS, (0,), {}), ("gt_", FLOATS, (OTHERS,), {}), ("ge_", BOOLS, (0.5,), {}),
    ("eq_", INTS, (2.5,), {}),
    ("logical_and_", FLOATS, (OTHERS,), {}), ("logical_or_", INTS, (BOOLS,), {}),
    ("logical_xor_", BOOLS, (BOOLS[::-1],), {}), ("logical_not_", INTS, (), {}),
    ("bitwise_and_", INTS, (INTS[::-1],), {}), ("bitwise_or_", INTS, (6,), {}),
    ("bitwise_xor_", BOOLS, (BOOLS[::-1],), {}), ("bitwise_not_", INTS, (), {}),
    ("bitwise_not_", BOOLS, (), {}),
    ("tril_", FLOATS, (), {}), ("triu_", FLOATS, (1,), {}), ("tril_", INTS, (-1,), {}),
]
CASE_IDS = [f"{name}-{data.dtype}-{i}" for i, (name, data, _, _) in enumerate(CASES)]


def _both(value, device):
    """An argument for each library: an array becomes a tensor (of ``device`` for ours)."""
    if isinstance(value, np.ndarray):
        value = value.copy()  # PyTorch refuses negative strides
        return mt.tensor(value, device=device), torch.tensor(value)
    return value, value


@pytest.mark.parametrize("name, data, args, kwargs", CASES, ids=CASE_IDS)
def test_values_dtype_and_version_match_torch(name, data, args, kwargs, device):
    pairs = [_both(a, device) for a in args]
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    returned = getattr(x, name)(*(p[0] for p in pairs), **kwargs)
    getattr(tx, name)(*(p[1] for p in pairs), **kwargs)
    assert returned is x and x._version == tx._version == 1
    assert str(x.dtype) == str(tx.dtype) and x.shape == tx.shape
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name, data, args, kwargs", CASES, ids=CASE_IDS)
def test_meta_keeps_shape_and_dtype_and_counts_the_write(name, data, args, kwargs):
    pairs = [_both(a, "meta") for a in args]
    x = mt.tensor(data, device="meta")
    assert getattr(x, name)(*(p[0] for p in pairs), **kwargs) is x
    assert x.shape == data.shape and x.is_meta and x._version == 1


def test_a_view_writes_through_to_its_base(device):
    x = mt.tensor(FLOATS, device=device)
    x[1].ceil_()
    assert x.cpu().numpy().tolist() == [FLOATS[0].tolist(), np.ceil(FLOATS[1]).tolist()]
    assert x._version == 1  # the view shares the counter


@pytest.mark.parametrize("name, args", [("ceil_", ()), ("eq_", (1.0,)), ("squeeze_", ()),
                                         ("t_", ())])
def test_a_leaf_that_requires_grad_is_refused_as_in_torch(name, args):
    x, tx = mt.tensor(FLOATS, requires_grad=True), torch.tensor(FLOATS, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation") as theirs:
        getattr(tx, name)(*args)
    with pytest.raises(type(theirs.value), match=f"{name}: a leaf Variable that requires grad"):
        getattr(x, name)(*args)
    with mt.no_grad():
        getattr(x, name)(*args)
    assert x._version == 1


def test_inside_a_graph_the_math_is_recorded_and_the_reshape_refused(torch_ref):
    """``h.sin_()`` is differentiated as PyTorch does (inplace_autograd.py); the in-place
    reshapes are still refused rather than silently cutting the graph."""
    grads = []
    for lib in (mt, torch_ref):
        x = lib.tensor(FLOATS, requires_grad=True)
        h = x * 2
        h.sin_()
        h.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)
    h = mt.tensor(FLOATS, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="use the out-of-place form"):
        h.unsqueeze_(0)


@pytest.mark.parametrize("name", ["sin_", "reciprocal_", "rsqrt_", "log2_", "erf_"])
def test_a_float_result_is_not_written_into_an_integer_tensor(name, device):
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        getattr(torch.tensor(INTS), name)()
    with pytest.raises(RuntimeError, match=f"{name}: result type Float can't be cast "
                                           "to the desired output type Long"):
        getattr(mt.tensor(INTS, device=device), name)()


def test_this_tensor_does_not_broadcast(device):
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the "
                                           r"broadcast shape \[2, 3\]"):
        torch.zeros(3).addcmul_(torch.ones(2, 3), torch.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"addcmul_: the result of shape \(2, 3\) cannot be "
                                           r"written in place into a tensor of shape \(3,\)"):
        mt.zeros(3, device=device).addcmul_(mt.ones(2, 3, device=device),
                                            mt.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match="cannot be written in place"):
        mt.zeros(1, 3, device=device).lt_(mt.ones(2, 3, device=device))


def test_bitwise_ops_refuse_floats_as_in_torch(device):
    with pytest.raises(NotImplementedError) as theirs:
        torch.tensor(FLOATS).bitwise_and_(1)
    with pytest.raises(type(theirs.value), match="bitwise_and"):
        mt.tensor(FLOATS, device=device).bitwise_and_(1)


def test_a_wider_integer_result_is_cast_back_as_in_torch(device):
    x = mt.tensor([5, 6], dtype=mt.int32, device=device)
    tx = torch.tensor([5, 6], dtype=torch.int32)
    x.bitwise_and_(mt.tensor([3, 12], device=device))
    tx.bitwise_and_(torch.tensor([3, 12]))
    assert x.dtype is mt.int32 and x.tolist() == tx.tolist()


# -- shape-changing methods -----------------------------------------------------------------
SHAPE_CASES = [
    ("squeeze_", (2, 1, 3, 1), ()), ("squeeze_", (2, 1, 3, 1), (1,)),
    ("squeeze_", (2, 1, 3, 1), (-1,)), ("squeeze_", (2, 1, 3), (0,)),
    ("unsqueeze_", (2, 3), (0,)), ("unsqueeze_", (2, 3), (-1,)), ("unsqueeze_", (), (0,)),
    ("transpose_", (2, 3, 4), (0, 2)), ("transpose_", (2, 3, 4), (-1, 1)),
    ("swapaxes_", (2, 3, 4), (0, 1)), ("swapdims_", (2, 3, 4), (2, 0)),
    ("t_", (2, 3), ()), ("t_", (4,), ()), ("t_", (), ()),
]


@pytest.mark.parametrize("name, shape, args", SHAPE_CASES,
                         ids=[f"{n}-{s}-{a}" for n, s, a in SHAPE_CASES])
def test_shape_changes_keep_the_memory_as_in_torch(name, shape, args, device):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    address = x.data_ptr()
    assert getattr(x, name)(*args) is x
    getattr(tx, name)(*args)
    assert x.shape == tx.shape and x.stride() == tx.stride()
    assert x.data_ptr() == address and x._version == tx._version == 1
    np.testing.assert_array_equal(x.cpu().numpy(), tx.numpy())


def test_shape_changes_on_meta():
    x = mt.empty(2, 1, 3, device="meta")
    x.squeeze_().unsqueeze_(0).transpose_(0, 2)
    assert x.shape == (3, 2, 1) and x._version == 3


@pytest.mark.parametrize("call", [lambda x: x.squeeze_(3), lambda x: x.unsqueeze_(4),
                                  lambda x: x.transpose_(0, 3), lambda x: x.t_()])
def test_shape_errors_are_torchs_and_leave_the_tensor_alone(call, device):
    with pytest.raises(Exception) as theirs:
        call(torch.zeros(2, 1, 3))
    x = mt.zeros(2, 1, 3, device=device)
    with pytest.raises(type(theirs.value)):
        call(x)
    assert x.shape == (2, 1, 3) and x._version == 0


# -- torch.<name>_ ----------------------------------------------------------------------------
FUNCTION_ARGS = {"clamp_": (0.0,), "clamp_max_": (0.1,), "clamp_min_": (0.1,), "clip_": (-0.5,),
                 "fill_": (2.5,), "xlogy_": (2.0,), "logit_": (), "addmv_": None}
POSITIVE = {"acosh_", "arccosh_"}
UNIT = {"acos_", "arccos_", "asin_", "arcsin_", "atanh_", "arctanh_", "logit_", "log_",
        "log10_", "log1p_", "log2_", "sqrt_", "rsqrt_"}


@pytest.mark.parametrize("name", [n for n in mt.inplace_variants.TORCH_FUNCTION_NAMES
                                  if n != "addmv_"])
def test_torch_functions_are_the_methods(name, device):
    data = np.array([0.25, 0.5, 0.75])
    data = data + 1.0 if name in POSITIVE else data if name in UNIT else data - 0.5
    args = FUNCTION_ARGS.get(name, ())
    x, tx = mt.tensor(data, device=device), torch.tensor(data)
    assert getattr(mt, name)(x, *args) is x
    getattr(torch, name)(tx, *args)
    assert x._version == tx._version
    np.testing.assert_allclose(x.cpu().numpy(), tx.numpy(), rtol=1e-12)


def test_torch_addmv_(device):
    values = [np.arange(3.0), np.ones((3, 2)), np.array([2.0, -1.0])]
    ours, theirs = ([lib.tensor(v, **kw) for v in values]
                    for lib, kw in ((mt, {"device": device}), (torch, {})))
    mt.addmv_(*ours, beta=0.5, alpha=2)
    torch.addmv_(*theirs, beta=0.5, alpha=2)
    np.testing.assert_allclose(ours[0].cpu().numpy(), theirs[0].numpy())


def test_the_list_is_torchs_and_a_number_is_refused():
    assert all(callable(getattr(torch, n)) for n in mt.inplace_variants.TORCH_FUNCTION_NAMES)
    with pytest.raises(TypeError, match="relu_"):
        torch.relu_(1.0)
    with pytest.raises(TypeError, match=r"relu_\(\): argument 'input' \(position 1\) must be "
                                        "Tensor, not float"):
        mt.relu_(1.0)
