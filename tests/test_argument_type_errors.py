"""A string (or another object) where a function takes a Tensor, a number or a generator
raises ``TypeError``, as PyTorch's argument parser does, never an ``AttributeError`` or
``ValueError`` from deep inside an op. Found by calling every Tensor method and torch
function shared with PyTorch with a string in each argument position."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import minitorch_meta as mt

#: methods and functions that take no tensor argument in a way these calls can reach, or
#: that run user code or change global state
_NOT_SWEPT = {"register_hook", "backward", "apply_", "map_", "map2_", "share_memory_",
              "storage", "untyped_storage", "tolist", "numpy", "new_tensor", "to", "type",
              "cpu", "cuda", "record_stream", "pin_memory", "data_ptr", "resize_", "set_",
              "set_anomaly_enabled", "set_default_dtype", "set_default_tensor_type",
              "set_printoptions", "manual_seed", "seed", "set_num_threads",
              "set_num_interop_threads", "use_deterministic_algorithms", "load", "save",
              "from_file", "set_default_device", "set_float32_matmul_precision",
              "set_flush_denormal", "set_rng_state", "set_warn_always", "compile"}


def _outcome(call) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as error:  # noqa: BLE001 - the exception's type is what is compared
        return type(error).__name__
    return "ok"


def _calls(library, name: str, is_method: bool, bad):
    """Calls of ``name`` with one to three operands, ``bad`` in each position in turn."""
    for count in (1, 2, 3):
        for position in range(count):
            def call(count=count, position=position):
                operands = [library.ones(3, 3) for _ in range(count)]
                operands[position] = bad
                if is_method:
                    return getattr(library.ones(3, 3), name)(*operands)
                return getattr(library, name)(library.ones(3, 3), *operands)
            yield f"{name}/{count}/{position}", call


def _shared_names(torch_ref, is_method: bool) -> list:
    if is_method:
        return sorted(n for n in dir(torch_ref.Tensor) if not n.startswith("_")
                      and hasattr(mt.Tensor, n) and callable(getattr(torch_ref.Tensor, n, None))
                      and n not in _NOT_SWEPT)
    return sorted(n for n in dir(torch_ref) if not n.startswith("_") and hasattr(mt, n)
                  and callable(getattr(torch_ref, n)) and not inspect.isclass(getattr(torch_ref, n))
                  and n not in _NOT_SWEPT)


@pytest.mark.parametrize("bad", ["a", None], ids=["a string", "None"])
@pytest.mark.parametrize("is_method", [True, False], ids=["Tensor methods", "torch functions"])
def test_a_string_or_none_for_a_tensor_is_never_an_attribute_error(torch_ref, is_method, bad):
    """Wherever PyTorch raises TypeError for a string or None argument, we raise an
    exception of a type PyTorch's users catch for bad arguments, and never an
    AttributeError (a crash inside an op, such as ``'str' object has no attribute
    '_backend'``)."""
    crashes = []
    for name in _shared_names(torch_ref, is_method):
        for (case, ours), (_, theirs) in zip(_calls(mt, name, is_method, bad),
                                             _calls(torch_ref, name, is_method, bad)):
            if _outcome(theirs) == "TypeError" and _outcome(ours) == "AttributeError":
                crashes.append(case)
    assert not crashes, f"AttributeError where PyTorch raises TypeError: {crashes}"


@pytest.mark.parametrize("call,message", [
    (lambda x: x.mm("a"), r"mm\(\): expected a Tensor as tensor operand 2, but got str"),
    (lambda x: mt.masked_fill(x, "a", 1.0), r"masked_fill\(\): expected a Tensor"),
    (lambda x: x.mv(None), r"mv\(\): expected a Tensor as tensor operand 2, but got None"),
    (lambda x: mt.gru_cell(x, x, None, x), r"gru_cell\(\): argument 'w_ih' \(position 3\)"),
    (lambda x: x.view_as("a"), r"view_as\(\): argument 'other' \(position 1\) must be Tensor"),
    (lambda x: x.copy_("a"), r"copy_\(\): argument 'other' \(position 1\) must be Tensor"),
    (lambda x: mt.kron(x, "a"), r"kron\(\): argument 'other' \(position 2\) must be Tensor"),
    (lambda x: mt.cat([x, "a"]), r"cat\(\): expected Tensor as element 1 in argument 0"),
    (lambda x: mt.stack([x, "a"]), r"stack\(\): expected Tensor as element 1 in argument 0"),
    (lambda x: mt.atleast_2d(x, "a"), r"atleast_2d\(\): expected Tensor as element 1"),
    (lambda x: mt.cartesian_prod(x[0], "a"), r"expected Tensor as element 1 in argument 0"),
    (lambda x: mt.triangular_solve(x, "a"), r"argument 'A' \(position 2\) must be Tensor"),
    (lambda x: mt.trapezoid(x, "a"), r"trapezoid\(\): argument 'x' \(position 2\)"),
    (lambda x: mt.nn.functional.bilinear(x, "a", x),
     r"bilinear\(\): argument 'input2' \(position 2\) must be Tensor"),
    (lambda x: mt.rnn_tanh_cell(x, x, "a", x),
     r"rnn_tanh_cell\(\): argument 'w_ih' \(position 3\) must be Tensor"),
    (lambda x: mt.poisson(x, "a"), r"argument 'generator' must be torch.Generator, not str"),
    (lambda x: mt.rand(3, generator=7), r"argument 'generator' must be torch.Generator, not int"),
    (lambda x: x.uniform_(0, 1, generator="a"), r"must be torch.Generator, not str"),
    (lambda x: x.view("a"), r"view\(\): argument 'shape' must be int, not str"),
    (lambda x: x.reshape(3.0, 3), r"reshape\(\): argument 'shape' must be int, not float"),
    (lambda x: mt.cdist(x, x, "a"), r"cdist\(\): argument 'p' must be float, not str"),
    (lambda x: x.cauchy_("a"), r"cauchy_\(\): argument 'median' must be float, not str"),
    (lambda x: x.fill_("a"), r"fill_\(\): argument 'value' must be a Number or a 0-d Tensor"),
    (lambda x: mt.full((2,), None), r"full\(\): argument 'fill_value' must be a Number"),
], ids=lambda value: "" if callable(value) else value.split("\\(")[0])
def test_the_type_error_names_what_was_expected_and_what_arrived(call, message):
    with pytest.raises(TypeError, match=message):
        call(mt.ones(3, 3))


@pytest.mark.parametrize("value", [2, 2.5, np.float32(2.5), np.int64(3)],
                         ids=["int", "float", "numpy float32", "numpy int64"])
def test_numbers_of_every_kind_are_still_taken(value):
    """The new checks refuse what is not a number; every kind of number still works."""
    x = mt.zeros(2)
    assert x.fill_(value).tolist() == [float(value)] * 2
    assert mt.full((2,), value).tolist() == [pytest.approx(float(value))] * 2
    assert mt.ones(2).cauchy_(value).shape == (2,)
    assert mt.cdist(mt.ones(1, 2), mt.zeros(1, 2), value).shape == (1, 1)


def test_a_0d_tensor_is_taken_where_pytorch_takes_one():
    x = mt.zeros(6)
    assert x.view(mt.tensor(2), 3).shape == (2, 3)
    assert mt.zeros(2).fill_(mt.tensor(4.0)).tolist() == [4.0, 4.0]
    assert mt.ones(2).log_normal_(mt.tensor(0.0), mt.tensor(1.0)).shape == (2,)


@pytest.mark.parametrize("value", [2, 2.5, True, 1j, np.float32(2.5), np.float16(1.5),
                                   np.float64(2.5), np.int64(3), np.bool_(True),
                                   np.complex128(1j)], ids=repr)
def test_full_reads_the_kind_of_its_fill_value_as_pytorch(torch_ref, value):
    """``full((2,), np.float32(2.5))`` is float32 [2.5, 2.5] (it was int64 [2, 2]: only a
    Python float counted as a float), and a NumPy bool is a float, as in PyTorch."""
    ours, theirs = mt.full((2,), value), torch_ref.full((2,), value)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("value", [2, 2.5, True], ids=repr)
def test_full_reads_a_0d_tensor_fill_value_by_its_value(torch_ref, value):
    ours = mt.full((2,), mt.tensor(value))
    theirs = torch_ref.full((2,), torch_ref.tensor(value))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda t, x: t.nn.functional.leaky_relu(x - 2, t.tensor(0.1)),
    lambda t, x: t.addcmul(x, x, x, value=t.tensor(2.0)),
    lambda t, x: x.hardshrink(t.tensor(1.5)),
    lambda t, x: t.nn.functional.elu(x - 2, t.tensor(0.5)),
], ids=["leaky_relu slope", "addcmul value", "hardshrink lambd", "elu alpha"])
def test_a_0d_tensor_without_grad_stands_for_a_number(torch_ref, call):
    """PyTorch's argument parser reads such a tensor as its number (it was refused here)."""
    ours = call(mt, mt.arange(4.0))
    theirs = call(torch_ref, torch_ref.arange(4.0))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_a_0d_tensor_that_requires_grad_is_no_number(torch_ref):
    for framework in (mt, torch_ref):
        with pytest.raises(TypeError, match="must be Number, not Tensor"):
            framework.ones(2).hardshrink(framework.tensor(0.5, requires_grad=True))


@pytest.mark.parametrize("call,error,message", [
    (lambda x: x.fill_(x.new_ones(1)), RuntimeError,
     "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions"),
    (lambda x: x.sum_to_size(), TypeError, 'missing 1 required positional arguments: "size"'),
    (lambda x: x.new_zeros(), TypeError, 'missing 1 required positional arguments: "size"'),
], ids=["fill_ 1-d value", "sum_to_size", "new_zeros"])
def test_pytorchs_errors_for_a_missing_or_unfit_argument(torch_ref, call, error, message):
    for framework in (mt, torch_ref):
        with pytest.raises(error, match=message):
            call(framework.ones(3))


def test_histogram_has_pytorchs_100_bins_by_default(torch_ref):
    data = np.linspace(0.0, 1.0, 37)
    ours, theirs = mt.tensor(data).histogram(), torch_ref.tensor(data).histogram()
    np.testing.assert_array_equal(ours.hist.numpy(), theirs.hist.numpy())
    np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy())


@pytest.mark.parametrize("name", ["cat", "stack", "hstack", "vstack", "dstack", "column_stack"])
def test_one_tensor_where_a_sequence_of_them_belongs(torch_ref, name):
    """``torch.cat(x)`` is PyTorch's TypeError (it joined ``x``'s rows here)."""
    for framework in (mt, torch_ref):
        with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
            getattr(framework, name)(framework.ones(2, 3))


def test_numbers_given_as_numpy_integers_or_0d_tensors(torch_ref):
    assert isinstance(mt.manual_seed(np.int64(3)), mt.Generator)
    assert isinstance(mt.manual_seed(mt.tensor(3)), mt.Generator)
    assert mt.scalar_tensor(mt.tensor(2)).item() == torch_ref.scalar_tensor(
        torch_ref.tensor(2)).item()
    x, tx = mt.arange(4.0), torch_ref.arange(4.0)
    assert x.norm(mt.tensor(3.0)).item() == pytest.approx(tx.norm(torch_ref.tensor(3.0)).item())
