"""PyTorch's ``out=`` keyword (``minitorch_meta/out_argument.py``): every function that has
it in PyTorch takes it; results, resizing, dtype rules, multi-output tuples and the autograd
refusal as PyTorch's."""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import out_argument

NO_AUTOGRAD = "functions with out=... arguments don't support automatic differentiation"


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _matrix(lib, device=None, seed=0, shape=(3, 3)):
    values = np.random.default_rng(seed).uniform(0.5, 1.5, shape).astype(np.float32)
    if lib is mt:
        return mt.tensor(values, device=device)
    return lib.tensor(values)


def _spd(lib, device=None):
    a = _matrix(lib, device)
    return a @ a.T + 3 * lib.eye(3, device=device) if lib is mt else a @ a.T + 3 * lib.eye(3)


def _index(lib, device, values):
    return mt.tensor(values, device=device) if lib is mt else lib.tensor(values)


# name -> (function path, arguments(lib, device)); each is called with and without out=
CASES = {
    "abs": ("abs", lambda L, d: (_matrix(L, d) - 1,)),
    "exp": ("exp", lambda L, d: (_matrix(L, d),)),
    "sigmoid": ("sigmoid", lambda L, d: (_matrix(L, d),)),
    "sqrt": ("sqrt", lambda L, d: (_matrix(L, d),)),
    "neg": ("neg", lambda L, d: (_matrix(L, d),)),
    "round": ("round", lambda L, d: (_matrix(L, d) * 10,)),
    "add": ("add", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "add_alpha": ("add", lambda L, d: (_matrix(L, d), _matrix(L, d, 1), )),
    "sub_scalar": ("sub", lambda L, d: (_matrix(L, d), 2.0)),
    "mul": ("mul", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "div": ("div", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "pow": ("pow", lambda L, d: (_matrix(L, d), 2)),
    "atan2": ("atan2", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "maximum": ("maximum", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "clamp": ("clamp", lambda L, d: (_matrix(L, d), 0.8, 1.2)),
    "lerp": ("lerp", lambda L, d: (_matrix(L, d), _matrix(L, d, 1), 0.3)),
    "addcmul": ("addcmul", lambda L, d: (_matrix(L, d), _matrix(L, d, 1), _matrix(L, d, 2))),
    "eq": ("eq", lambda L, d: (_matrix(L, d), _matrix(L, d))),
    "gt": ("gt", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "logical_and": ("logical_and", lambda L, d: (_matrix(L, d) > 1, _matrix(L, d, 1) > 1)),
    "sum_dim": ("sum", lambda L, d: (_matrix(L, d), 0)),
    "mean_dim": ("mean", lambda L, d: (_matrix(L, d), 1)),
    "prod_dim": ("prod", lambda L, d: (_matrix(L, d), 0)),
    "std_dim": ("std", lambda L, d: (_matrix(L, d), 0)),
    "amax": ("amax", lambda L, d: (_matrix(L, d), 1)),
    "argmax_dim": ("argmax", lambda L, d: (_matrix(L, d), 1)),
    "logsumexp": ("logsumexp", lambda L, d: (_matrix(L, d), 1)),
    "cumsum": ("cumsum", lambda L, d: (_matrix(L, d), 0)),
    "all_dim": ("all", lambda L, d: (_matrix(L, d) > 1, 0)),
    "cat": ("cat", lambda L, d: ([_matrix(L, d), _matrix(L, d, 1)],)),
    "stack": ("stack", lambda L, d: ([_matrix(L, d), _matrix(L, d, 1)], 1)),
    "hstack": ("hstack", lambda L, d: ([_matrix(L, d), _matrix(L, d, 1)],)),
    "mm": ("mm", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "matmul": ("matmul", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
    "bmm": ("bmm", lambda L, d: (_matrix(L, d, 0, (2, 3, 4)), _matrix(L, d, 1, (2, 4, 2)))),
    "mv": ("mv", lambda L, d: (_matrix(L, d), _matrix(L, d, 1, (3,)))),
    "dot": ("dot", lambda L, d: (_matrix(L, d, 0, (3,)), _matrix(L, d, 1, (3,)))),
    "addmm": ("addmm", lambda L, d: (_matrix(L, d), _matrix(L, d, 1), _matrix(L, d, 2))),
    "outer": ("outer", lambda L, d: (_matrix(L, d, 0, (3,)), _matrix(L, d, 1, (2,)))),
    "tril": ("tril", lambda L, d: (_matrix(L, d),)),
    "where": ("where", lambda L, d: (_matrix(L, d) > 1, _matrix(L, d), _matrix(L, d, 1))),
    "gather": ("gather", lambda L, d: (_matrix(L, d), 1, _index(L, d, [[0, 0], [1, 0],
                                                                        [2, 1]]))),
    "index_select": ("index_select", lambda L, d: (_matrix(L, d), 0, _index(L, d, [2, 0]))),
    "masked_select": ("masked_select", lambda L, d: (_matrix(L, d), _matrix(L, d) > 1)),
    "take": ("take", lambda L, d: (_matrix(L, d), _index(L, d, [0, 4, 8]))),
    "softmax": ("softmax", lambda L, d: (_matrix(L, d), 1)),
    "nonzero": ("nonzero", lambda L, d: (_matrix(L, d) > 1,)),
    "linspace": ("linspace", lambda L, d: (0.0, 1.0, 5)),
    "arange": ("arange", lambda L, d: (5,)),
    "zeros": ("zeros", lambda L, d: (2, 3)),
    "ones": ("ones", lambda L, d: ((2, 3),)),
    "full": ("full", lambda L, d: ((2, 3), 1.5)),
    "eye": ("eye", lambda L, d: (3,)),
    "linalg_inv": ("linalg.inv", lambda L, d: (_spd(L, d),)),
    "linalg_det": ("linalg.det", lambda L, d: (_spd(L, d),)),
    "linalg_vector_norm": ("linalg.vector_norm", lambda L, d: (_matrix(L, d),)),
    "linalg_solve": ("linalg.solve", lambda L, d: (_spd(L, d), _matrix(L, d, 1))),
    "special_expit": ("special.expit", lambda L, d: (_matrix(L, d),)),
    "special_xlogy": ("special.xlogy", lambda L, d: (_matrix(L, d), _matrix(L, d, 1))),
}

MULTI_CASES = {
    "max_dim": ("max", lambda L, d: (_matrix(L, d), 1)),
    "min_dim": ("min", lambda L, d: (_matrix(L, d), 0)),
    "sort": ("sort", lambda L, d: (_matrix(L, d), 1)),
    "topk": ("topk", lambda L, d: (_matrix(L, d), 2)),
    "kthvalue": ("kthvalue", lambda L, d: (_matrix(L, d), 2, 1)),
    "median_dim": ("median", lambda L, d: (_matrix(L, d), 1)),
    "cummax": ("cummax", lambda L, d: (_matrix(L, d), 0)),
    "aminmax": ("aminmax", lambda L, d: (_matrix(L, d),)),
    "linalg_slogdet": ("linalg.slogdet", lambda L, d: (_spd(L, d),)),
}


def _function(lib, path):
    value = lib
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _as_list(result):
    return [result] if hasattr(result, "shape") else list(result)


@pytest.mark.parametrize("case", sorted(CASES))
def test_out_takes_the_result_as_torch(case, device):
    torch = _torch()
    path, make = CASES[case]
    theirs = _function(torch, path)(*make(torch, None))
    expected = _function(mt, path)(*make(mt, device))
    out = mt.empty(0, dtype=expected.dtype, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized without a warning
        returned = _function(mt, path)(*make(mt, device), out=out)
    assert returned is out
    assert out.shape == theirs.shape and out.dtype == expected.dtype
    assert str(out.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(out.cpu().numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out.cpu().numpy(), expected.cpu().numpy())


@pytest.mark.parametrize("case", sorted(MULTI_CASES))
def test_out_takes_a_tuple_for_several_results(case, device):
    torch = _torch()
    path, make = MULTI_CASES[case]
    theirs = _as_list(_function(torch, path)(*make(torch, None)))
    expected = _as_list(_function(mt, path)(*make(mt, device)))
    outs = tuple(mt.empty(0, dtype=e.dtype, device=device) for e in expected)
    returned = _function(mt, path)(*make(mt, device), out=outs)
    assert all(r is o for r, o in zip(returned, outs))
    for ours, reference in zip(outs, theirs):
        np.testing.assert_allclose(ours.cpu().numpy(), reference.numpy(), rtol=1e-5)


def test_a_tuple_of_the_wrong_length_is_refused(device):
    x = _matrix(mt, device)
    with pytest.raises(TypeError, match="one per result"):
        mt.max(x, 1, out=(mt.empty(0, device=device),))


def test_out_is_written_in_place_so_its_views_and_base_see_the_result(device):
    base = mt.zeros(2, 3, device=device)
    row = base[1]
    mt.add(mt.ones(3, device=device), 1, out=row)
    assert base.tolist() == [[0.0] * 3, [2.0] * 3]
    assert base._version == 1


def test_a_strided_out_keeps_its_strides(device):
    torch = _torch()
    out = mt.empty(3, 2, device=device).t()
    reference = torch.empty(3, 2).t()
    mt.add(_matrix(mt, device, shape=(2, 3)), 1, out=out)
    torch.add(_matrix(torch, shape=(2, 3)), 1, out=reference)
    assert out.stride() == reference.stride()
    np.testing.assert_allclose(out.cpu().numpy(), reference.numpy())


def test_an_out_of_another_shape_is_resized_with_torch_s_warning(device):
    torch = _torch()
    with pytest.warns(UserWarning, match="was resized since it had shape"):
        torch.add(torch.ones(2, 2), 1, out=torch.empty(3))
    out = mt.empty(3, device=device)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[3\], which does "
                                         r"not match the required output shape \[2, 2\]") as record:
        mt.add(mt.ones(2, 2, device=device), 1, out=out)
    assert [w.filename for w in record] == [__file__]  # at the user's line, as torch's
    assert out.shape == (2, 2) and out.tolist() == [[2.0, 2.0]] * 2


def test_factories_resize_silently_and_take_out_s_dtype(device):
    torch = _torch()
    theirs = torch.zeros(3, out=torch.empty(1, dtype=torch.int64))
    out = mt.empty(1, dtype=mt.int64, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = mt.zeros(3, out=out)
    assert ours is out and out.dtype is mt.int64 and out.tolist() == theirs.tolist()
    assert mt.arange(4, out=mt.empty(0, dtype=mt.float64, device=device)).tolist() == (
        torch.arange(4, out=torch.empty(0, dtype=torch.float64)).tolist())


def test_a_factory_dtype_other_than_out_s_raises_as_torch(device):
    torch = _torch()
    with pytest.raises(RuntimeError, match=r"dtype Float does not match dtype of out "
                                           r"parameter \(Long\)"):
        torch.zeros(3, dtype=torch.float32, out=torch.empty(1, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"dtype Float does not match dtype of out "
                                           r"parameter \(Long\)"):
        mt.zeros(3, dtype=mt.float32, out=mt.empty(1, dtype=mt.int64, device=device))


def test_random_factories_fill_out(device):
    for make in (lambda out: mt.rand(2, 3, out=out), lambda out: mt.randn(2, 3, out=out),
                 lambda out: mt.randint(0, 5, (2, 3), out=out.long()),
                 lambda out: mt.normal(0.0, 1.0, (2, 3), out=out)):
        out = mt.empty(0, device=device)
        result = make(out)
        assert result.shape == (2, 3) and result.device == out.device
    samples = mt.normal(mt.zeros(2, 3, device=device), 1.0, out=mt.empty(0, device=device))
    assert samples.shape == (2, 3)  # a tensor mean: not a factory


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_wider_out_dtype_is_taken_or_refused_as_torch(case, device):
    """float32 inputs into a float64 ``out``: most functions cast, the BLAS products and
    structured kernels refuse (``EXACT_DTYPE``)."""
    torch = _torch()
    path, make = CASES[case]
    if _function(torch, path)(*make(torch, None)).dtype != torch.float32:
        pytest.skip("the result is not float32: nothing wider to try")
    try:
        _function(torch, path)(*make(torch, None), out=torch.empty(0, dtype=torch.float64))
    except RuntimeError:
        with pytest.raises(RuntimeError, match="expected out tensor to have dtype float, "
                                               "but got double instead"):
            _function(mt, path)(*make(mt, device),
                                out=mt.empty(0, dtype=mt.float64, device=device))
        return
    out = mt.empty(0, dtype=mt.float64, device=device)
    _function(mt, path)(*make(mt, device), out=out)
    assert out.dtype is mt.float64


def test_a_float_result_into_an_integer_out_raises_as_torch(device):
    torch = _torch()
    message = "result type Float can't be cast to the desired output type Long"
    with pytest.raises(RuntimeError, match=message):
        torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=message):
        mt.add(mt.ones(2, device=device), 1, out=mt.empty(2, dtype=mt.int64, device=device))


def test_out_refuses_autograd_as_torch_and_works_under_no_grad(device):
    torch = _torch()
    for lib, dev in ((torch, None), (mt, device)):
        leaf = lib.ones(2, requires_grad=True) if lib is torch else lib.ones(
            2, requires_grad=True, device=dev)
        fresh = lib.empty(2) if lib is torch else lib.empty(2, device=dev)
        with pytest.raises(RuntimeError, match=re.escape(f"add(): {NO_AUTOGRAD}")):
            lib.add(leaf, 1, out=fresh)
        wants_grad = lib.empty(2, requires_grad=True) if lib is torch else lib.empty(
            2, requires_grad=True, device=dev)
        with pytest.raises(RuntimeError, match=re.escape(NO_AUTOGRAD)):
            lib.add(fresh, 1, out=wants_grad)
        with pytest.raises(RuntimeError, match=re.escape(NO_AUTOGRAD)):
            lib.cat([leaf, leaf], out=lib.empty(0) if lib is torch else lib.empty(0,
                                                                                 device=dev))
        with lib.no_grad():
            assert lib.add(leaf, 1, out=fresh).tolist() == [2.0, 2.0]


def test_an_out_on_another_device_is_refused():
    with pytest.raises(mt.DeviceError, match="out= is on 'meta'"):
        mt.add(mt.ones(2), 1, out=mt.empty(2, device="meta"))


def test_out_on_meta_takes_the_shape():
    out = mt.empty(0, device="meta")
    assert mt.mm(mt.empty(2, 3, device="meta"), mt.empty(3, 4, device="meta"), out=out) is out
    assert out.shape == (2, 4)


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="argument 'out' must be a Tensor"):
        mt.add(mt.ones(2), 1, out=[1.0, 2.0])


def test_without_out_the_function_is_called_unchanged():
    assert inspect.unwrap(mt.add) is mt.Tensor.add or inspect.unwrap(mt.add).__name__ == "add"
    assert mt.add(mt.ones(2), 1).tolist() == [2.0, 2.0]


def _torch_names_with_out(torch) -> dict:
    """Which functions take ``out=`` in the installed PyTorch, per namespace: the top level
    from its type stubs, linalg and special from their docstrings."""
    stubs = Path(torch.__file__).parent / "_C" / "_VariableFunctions.pyi"
    top = {m.group(1) for m in re.finditer(r"def (\w+)\((.*?)\) ->", stubs.read_text(), re.S)
           if re.search(r"\bout: [^=]+= None", m.group(2))}
    top |= {"norm", "tensordot"}  # torch/functional.py's, not the stubs'
    found = {"": top}
    for sub in ("linalg", "special", "fft"):
        module = getattr(torch, sub)
        found[sub] = {name for name in dir(module) if not name.startswith("_") and re.search(
            r"\bout \((Tensor|tuple)|out=None", getattr(getattr(module, name), "__doc__", "")
            or "")}
    return found


@pytest.mark.parametrize("namespace, listed", [
    ("", out_argument.FUNCTIONS_WITH_OUT),
    ("linalg", out_argument.LINALG_FUNCTIONS_WITH_OUT),
    ("special", out_argument.SPECIAL_FUNCTIONS_WITH_OUT),
    ("fft", out_argument.FFT_FUNCTIONS_WITH_OUT),
])
def test_every_function_torch_gives_out_takes_it_here(namespace, listed):
    torch = _torch()
    module = getattr(mt, namespace) if namespace else mt
    torch_names = _torch_names_with_out(torch)[namespace]
    ours = {name for name in dir(module) if not name.startswith("_")
            and callable(getattr(module, name))}
    assert set(listed) <= torch_names, set(listed) - torch_names  # nothing torch lacks
    missing = sorted((torch_names & ours) - set(listed))
    assert not missing, f"offered here, out= in torch, but not wrapped: {missing}"
    for name in listed:
        assert inspect.unwrap(getattr(module, name)) is not getattr(module, name), name
