"""torch.gradient: values, dtypes and gradients (first and second order) against PyTorch,
meta shapes, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from tests.autograd.second_order import assert_second_order_equal_pytorchs
from tests.devices import tensor_device
from tests.ops.harness import Arg, Case, three_way_tests


def _all(T, out):
    """Every tensor of ``gradient``'s tuple, so that the harness compares all of them."""
    return T.stack(list(out))


def _points(p):
    """Increasing coordinates with uneven steps, made of a positive input (so that the
    gradient flows into the coordinates too)."""
    return p.cumsum(0)


S = (3, 4)
CASES = [
    Case("default_all_dims", lambda T, F, x: _all(T, T.gradient(x)), [Arg(S)]),
    Case("scalar_spacing_one_dim", lambda T, F, x: T.gradient(x, spacing=0.5, dim=1)[0],
         [Arg(S)]),
    Case("spacing_list_negative_dims",
         lambda T, F, x: _all(T, T.gradient(x, spacing=[2.0, 3], dim=(-1, 0))), [Arg(S)]),
    Case("edge_order_2", lambda T, F, x: _all(T, T.gradient(x, edge_order=2)), [Arg(S)]),
    Case("edge_order_2_spacing",
         lambda T, F, x: _all(T, T.gradient(x, spacing=[0.5, 2.0], edge_order=2)), [Arg(S)]),
    Case("three_d_two_dims",
         lambda T, F, x: _all(T, T.gradient(x, spacing=1.5, dim=[0, 2])), [Arg((3, 2, 5))]),
    Case("one_d", lambda T, F, x: T.gradient(x)[0], [Arg((5,))]),
    # the smallest sizes: only the edges, no interior point
    Case("two_points", lambda T, F, x: T.gradient(x, dim=0)[0], [Arg((2, 3))]),
    Case("three_points_edge_order_2", lambda T, F, x: T.gradient(x, dim=0, edge_order=2)[0],
         [Arg((3, 2))]),
    Case("coordinates",
         lambda T, F, x, p, q: _all(T, T.gradient(x, spacing=[_points(p), _points(q)])),
         [Arg(S), Arg((3,), "positive"), Arg((4,), "positive")]),
    Case("coordinates_edge_order_2",
         lambda T, F, x, p, q: _all(T, T.gradient(x, spacing=[_points(p), _points(q)],
                                                  edge_order=2)),
         [Arg(S), Arg((3,), "positive"), Arg((4,), "positive")], atol=1e-4),
    Case("coordinates_one_dim_constant",
         lambda T, F, x, q: T.gradient(x, spacing=(_points(q),), dim=-1, edge_order=2)[0],
         [Arg(S), Arg((4,), "positive", grad=False)]),
    Case("coordinates_two_points",
         lambda T, F, x, p: T.gradient(x, spacing=[_points(p)], dim=0)[0],
         [Arg((2, 3)), Arg((2,), "positive")]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(torch, values, device, dtype=None):
    ours = mt.tensor(values, device=device)
    theirs = torch.tensor(values)
    if dtype is not None:
        ours, theirs = ours.to(getattr(mt, dtype)), theirs.to(getattr(torch, dtype))
    return ours, theirs


VALUES = (np.arange(12.0).reshape(3, 4) ** 2 + np.linspace(0, 1, 12).reshape(3, 4))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32"])
@pytest.mark.parametrize("kwargs", [
    {}, {"spacing": 2}, {"spacing": 2.5, "edge_order": 2}, {"spacing": [2, 0.5]},
    {"coordinates": "int"}, {"coordinates": "float64"}, {"coordinates": "float32",
                                                         "edge_order": 2},
])
def test_values_and_dtypes_match_torch(dtype, kwargs, device):
    torch = _torch()
    x, tx = _both(torch, VALUES, device, dtype)
    kwargs = dict(kwargs)
    coordinates = kwargs.pop("coordinates", None)
    ours_kw, theirs_kw = dict(kwargs), dict(kwargs)
    if coordinates is not None:
        points = [np.array([0, 1, 3]), np.array([0, 1, 3, 7])]
        kind = None if coordinates == "int" else coordinates
        ours_kw["spacing"] = [_both(torch, p, device, kind)[0] for p in points]
        theirs_kw["spacing"] = [_both(torch, p, device, kind)[1] for p in points]
    ours, theirs = mt.gradient(x, **ours_kw), torch.gradient(tx, **theirs_kw)
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 2
    for o, t in zip(ours, theirs):
        assert str(o.dtype) == str(t.dtype)
        assert o.device == tensor_device(device)
        np.testing.assert_allclose(o.cpu().numpy().astype(np.float64),
                                   t.numpy().astype(np.float64), rtol=2e-3 if
                                   dtype == "float16" else 1e-6)


def test_a_zero_dim_tensor_spacing_is_a_number(device):
    torch = _torch()
    x, tx = _both(torch, VALUES, device, "float16")
    ours = mt.gradient(x, spacing=mt.tensor(2.0, device=device))
    theirs = torch.gradient(tx, spacing=torch.tensor(2.0))
    for o, t in zip(ours, theirs):
        assert o.dtype is mt.float16
        np.testing.assert_allclose(o.cpu().numpy(), t.numpy(), rtol=1e-3)


@pytest.mark.parametrize("device_name", ["cpu", "meta"])
def test_nothing_to_differentiate_gives_an_empty_tuple(device_name):
    assert mt.gradient(mt.tensor(3.0, device=device_name)) == ()
    assert mt.gradient(mt.ones(3, 4, device=device_name), dim=[]) == ()
    empty = mt.gradient(mt.zeros(3, 0, device=device_name), dim=0)
    assert len(empty) == 1 and empty[0].shape == (3, 0)


def test_the_result_is_a_cat_and_records_a_graph():
    x = mt.ones(3, 4, requires_grad=True)
    assert all(g.grad_fn.name() == "CatBackward0" for g in mt.gradient(x))


@pytest.mark.parametrize("name, kwargs, shapes", [
    ("uniform", {}, [(3, 4)]),
    ("edge_order_2", {"edge_order": 2, "spacing": [0.5, 2.0]}, [(4, 3)]),
    ("coordinates", {"edge_order": 2}, [(3, 4), (3,), (4,)]),
])
def test_second_order_gradients_match_torch(name, kwargs, shapes, device):
    _torch()

    def fn(lib, dev, x, *steps):
        spacing = kwargs.get("spacing")
        if steps:
            spacing = [(s * s + 0.5).cumsum(0) for s in steps]
        options = dict(kwargs, spacing=spacing) if spacing is not None else kwargs
        return sum((g.sin() * g).sum() for g in lib.gradient(x, **options))

    arrays = [np.random.default_rng(len(name)).standard_normal(s) for s in shapes]
    assert_second_order_equal_pytorchs(fn, arrays, device, rtol=1e-7, atol=1e-8)


ERRORS = [
    (lambda T, x: T.gradient(x.to(T.uint8)), RuntimeError,
     "torch.gradient does not support uint8 input."),
    (lambda T, x: T.gradient(x, spacing=[1.0, 2.0, 3.0]), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
     "to 'self.dim() = 2', since dim argument was not given, but got a list of length 3"),
    (lambda T, x: T.gradient(x, spacing=[2.0], dim=[0, 1]), RuntimeError,
     "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
     "arguments to have the same length, but got a spacing argument of length 1 and a dim "
     "argument of length 2."),
    (lambda T, x: T.gradient(x, edge_order=3), RuntimeError,
     "torch.gradient only supports edge_order=1 and edge_order=2."),
    (lambda T, x: T.gradient(x, dim=(0, 0)), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda T, x: T.gradient(x, dim=2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda T, x: T.gradient(x[:1]), RuntimeError,
     "torch.gradient expected each dimension size to be at least edge_order+1"),
    (lambda T, x: T.gradient(x[:2], dim=0, edge_order=2), RuntimeError,
     "torch.gradient expected each dimension size to be at least edge_order+1"),
    (lambda T, x: T.gradient(x, spacing=[T.ones(3, device=x.device),
                                          T.ones(1, 4, device=x.device)]), RuntimeError,
     "torch.gradient expected each element of spacing to have one dimension, but got an "
     "element with 2 dimensions!"),
    (lambda T, x: T.gradient(x.bool()), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported."),
    (lambda T, x: T.gradient(T.tensor(3.0, device=x.device), dim=0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_match_torch_on_cpu_and_meta(call, error, message):
    torch = _torch()
    with pytest.raises(error) as theirs:
        call(torch, torch.ones(3, 4))
    assert message in str(theirs.value)
    for device in ("cpu", "meta"):
        with pytest.raises(error) as ours:
            call(mt, mt.ones(3, 4, device=device))
        assert message in str(ours.value), device


@pytest.mark.parametrize("kwargs, what", [
    ({"spacing": "a"}, "spacing=str"), ({"dim": 1.0}, "dim=float"),
    ({"edge_order": 2.0}, "edge_order=float"),
    ({"spacing": [1.0, mt.ones(4)]}, "mixing numbers and tensors"),
])
def test_arguments_of_the_wrong_kind_raise_type_error(kwargs, what):
    with pytest.raises(TypeError, match="gradient\\(\\) received an invalid combination") as info:
        mt.gradient(mt.ones(3, 4), **kwargs)
    assert what in str(info.value)


def test_coordinates_must_cover_the_dim_unlike_torch():
    # PyTorch broadcasts coordinates of another length into a result of a wrong shape
    with pytest.raises(RuntimeError, match="got 4 coordinates for dim 0 of size 3"):
        mt.gradient(mt.ones(3, 4), spacing=[mt.arange(4.0), mt.arange(4.0)])
