"""``result_type``, ``promote_types``, ``can_cast``, ``asarray``, ``scalar_tensor`` and the
tensor predicates, against PyTorch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference")

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]
NUMBERS = [True, 3, -2, 2.5, np.float64(1.5), np.int64(4)]


def _tensor(T, name, shape, device="cpu"):
    return T.ones(shape, dtype=getattr(T, name), device=device)


# -- promotion --------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_and_can_cast_equal_torch(a, b):
    assert str(mt.promote_types(getattr(mt, a), getattr(mt, b))) == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b)))
    assert mt.can_cast(getattr(mt, a), getattr(mt, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


@pytest.mark.parametrize("a, b", list(itertools.product(DTYPES, DTYPES)))
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((), (3,)), ((3,), ()), ((), ())])
def test_result_type_of_two_tensors_equals_torch(a, b, shapes, any_device):
    ours = mt.result_type(_tensor(mt, a, shapes[0], any_device),
                          _tensor(mt, b, shapes[1], any_device))
    assert str(ours) == str(torch.result_type(_tensor(torch, a, shapes[0]),
                                              _tensor(torch, b, shapes[1])))


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("shape", [(), (2,)])
def test_result_type_of_a_tensor_and_a_number_equals_torch(name, number, shape):
    for order in (lambda t, n: (t, n), lambda t, n: (n, t)):
        ours = mt.result_type(*order(_tensor(mt, name, shape), number))
        assert str(ours) == str(torch.result_type(*order(_tensor(torch, name, shape), number)))


@pytest.mark.parametrize("a, b", list(itertools.product(NUMBERS, NUMBERS)))
def test_result_type_of_two_numbers_equals_torch(a, b):
    assert str(mt.result_type(a, b)) == str(torch.result_type(a, b))


def test_result_type_agrees_with_what_ops_do():
    for a, b in itertools.product(DTYPES, DTYPES):
        x, y = _tensor(mt, a, (2,)), _tensor(mt, b, ())
        assert (x * y).dtype is mt.result_type(x, y) or a == b == "bool"


def test_promotion_errors():
    t = mt.ones(2)
    with pytest.raises(TypeError, match=r"result_type\(\): expected each argument to be a "
                                        r"Tensor or a Number, got \(str, int\)"):
        mt.result_type("a", 1)
    with pytest.raises(TypeError, match=r"got \(Tensor, list\)"):
        mt.result_type(t, [1])
    with pytest.raises(TypeError, match=r"promote_types\(\): argument 'type2' \(position 2\) "
                                        r"must be torch.dtype, not int"):
        mt.promote_types(mt.int32, 1)
    with pytest.raises(TypeError, match=r"can_cast\(\): argument 'from_' \(position 1\) must "
                                        r"be torch.dtype, not int"):
        mt.can_cast(1, mt.uint8)
    for function, args in ((torch.result_type, ("a", 1)), (torch.promote_types, (torch.int32, 1)),
                           (torch.can_cast, (1, torch.uint8))):
        with pytest.raises(TypeError):
            function(*args)


# -- asarray ----------------------------------------------------------------------------

def _info(result, source):
    grad_fn = result.grad_fn.name() if result.grad_fn is not None else None
    return (result is source, result.requires_grad, grad_fn, source.requires_grad,
            str(result.dtype))


ASARRAY_TENSOR_CASES = {
    "alias": {},
    "copy": {"copy": True},
    "dtype": {"dtype": "float64"},
    "dtype copy": {"dtype": "float64", "copy": True},
    "same dtype": {"dtype": "float32"},
    "requires_grad False": {"requires_grad": False},
    "requires_grad True": {"requires_grad": True},
    "copy requires_grad False": {"copy": True, "requires_grad": False},
    "copy requires_grad True": {"copy": True, "requires_grad": True},
    "dtype requires_grad False": {"dtype": "float64", "requires_grad": False},
}


def _keywords(T, keywords):
    return {k: getattr(T, v) if k == "dtype" else v for k, v in keywords.items()}


@pytest.mark.filterwarnings("ignore:torch.asarray")  # PyTorch's note on its changed default
@pytest.mark.parametrize("source", ["plain", "leaf", "non-leaf"])
@pytest.mark.parametrize("case", ASARRAY_TENSOR_CASES)
def test_asarray_of_a_tensor_equals_torch(case, source, device):
    def run(T, device):
        x = T.tensor([1.0, 2.0], requires_grad=source != "plain", device=device)
        if source == "non-leaf":
            x = x * 2
        return _info(T.asarray(x, **_keywords(T, ASARRAY_TENSOR_CASES[case])), x)

    assert run(mt, device) == run(torch, "cpu")


def test_asarray_shares_or_copies_memory(device):
    x = mt.tensor([1.0, 2.0], device=device)
    assert mt.asarray(x) is x
    copied = mt.asarray(x, copy=True)
    copied[0] = 9.0
    assert x.tolist() == [1.0, 2.0]
    converted = mt.asarray(x, dtype=mt.float64)
    assert converted.dtype is mt.float64 and converted.tolist() == [1.0, 2.0]


def test_asarray_of_a_numpy_array_aliases_it():
    array = np.array([1.0, 2.0])
    shared = mt.asarray(array)
    array[0] = 5.0
    assert shared.dtype is mt.float64 and shared.tolist() == [5.0, 2.0]
    copied = mt.asarray(array, copy=True)
    converted = mt.asarray(array, dtype=mt.float32)
    array[0] = 6.0
    assert copied.tolist() == [5.0, 2.0] and converted.tolist() == [5.0, 2.0]
    strided = mt.asarray(np.arange(6.0)[::2], copy=False)
    assert strided.tolist() == [0.0, 2.0, 4.0]


def test_asarray_of_python_data_equals_torch(any_device):
    for data, keywords in (([1, 2.5], {}), ([1, 2], {}), ([True], {}), (3, {}),
                           (3.5, {"dtype": "int64"}), ([1.0, 2.0], {"requires_grad": True}),
                           (np.float32(2.0), {}), ([[1, 2], [3, 4]], {"dtype": "float16"})):
        ours = mt.asarray(data, device=any_device, **_keywords(mt, keywords))
        theirs = torch.asarray(data, **_keywords(torch, keywords))
        assert (str(ours.dtype), tuple(ours.shape), ours.requires_grad, ours.device.type) == \
            (str(theirs.dtype), tuple(theirs.shape), theirs.requires_grad, any_device)
        if any_device != "meta":
            assert ours.tolist() == theirs.tolist()


def test_asarray_moves_between_devices():
    x = mt.tensor([1.0, 2.0])
    moved = mt.asarray(x, device="meta")
    assert moved.is_meta and moved.shape == (2,)
    assert mt.asarray(np.ones(3), device="meta").is_meta


def test_asarray_errors():
    x = mt.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="can't alias tensor with dtype torch.float32 into "
                                         "dtype torch.float64 .*pass copy=None"):
        mt.asarray(x, dtype=mt.float64, copy=False)
    with pytest.raises(ValueError, match="can't alias tensor from device 'cpu' to 'meta'"):
        mt.asarray(x, device="meta", copy=False)
    with pytest.raises(ValueError, match="can't alias tensor with dtype torch.int64 into "
                                         "dtype torch.float32"):
        mt.asarray(np.array([1, 2]), dtype=mt.float32, copy=False)
    with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor: a list"):
        mt.asarray([1, 2], copy=False)
    with pytest.raises(TypeError, match="unsupported array dtype"):  # (float128 or float96)
        mt.asarray(np.array([1, 2], dtype=np.longdouble))
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require"):
        mt.asarray([1, 2], requires_grad=True)
    # PyTorch raises the same types
    for call in (lambda: torch.asarray(torch.ones(2), dtype=torch.float64, copy=False),
                 lambda: torch.asarray([1, 2], copy=False)):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(RuntimeError):
        torch.asarray([1, 2], requires_grad=True)


def test_asarray_copy_keeps_the_graph(device):
    w = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    mt.asarray(w, dtype=mt.float64).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


# -- scalar_tensor ----------------------------------------------------------------------

@pytest.mark.parametrize("value, keywords", [
    (1, {}), (True, {}), (2.5, {}), (-1, {"dtype": "uint8"}), (1.7, {"dtype": "int64"}),
    (np.int64(3), {}), (3, {"dtype": "int64"}), (2, {"requires_grad": True}),
    (0.5, {"dtype": "float16"})])
def test_scalar_tensor_equals_torch(value, keywords, any_device):
    ours = mt.scalar_tensor(value, device=any_device, **_keywords(mt, keywords))
    theirs = torch.scalar_tensor(value, **_keywords(torch, keywords))
    assert (str(ours.dtype), tuple(ours.shape), ours.requires_grad) == \
        (str(theirs.dtype), (), theirs.requires_grad)
    if any_device != "meta":
        assert ours.item() == theirs.item()


def test_scalar_tensor_errors():
    for bad in (mt.ones(1), "x", [1]):
        with pytest.raises(TypeError, match=r"scalar_tensor\(\): argument 's' \(position 1\) "
                                            f"must be Number, not {type(bad).__name__}"):
            mt.scalar_tensor(bad)
    with pytest.raises(RuntimeError, match="cannot be converted to type torch.uint8"):
        mt.scalar_tensor(300, dtype=mt.uint8)
    with pytest.raises(RuntimeError, match="cannot be converted to type torch.int64"):
        mt.scalar_tensor(float("nan"), dtype=mt.int64)
    with pytest.raises(RuntimeError):
        torch.scalar_tensor(300, dtype=torch.uint8)


# -- predicates -------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_dtype_predicates_equal_torch(name, any_device):
    ours, theirs = _tensor(mt, name, (2,), any_device), _tensor(torch, name, (2,))
    for predicate in ("is_floating_point", "is_complex", "is_signed"):
        expected = getattr(torch, predicate)(theirs)
        assert getattr(mt, predicate)(ours) == expected
        assert getattr(ours, predicate)() == expected


@pytest.mark.parametrize("values", [[1], [0], [0.0], [2.5], [True], [False], [[0.0]]])
def test_is_nonzero_equals_torch(values, device):
    ours, theirs = mt.tensor(values, device=device), torch.tensor(values)
    assert mt.is_nonzero(ours) == ours.is_nonzero() == torch.is_nonzero(theirs)


def test_is_nonzero_errors():
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value "
                                           r"is ambiguous: .* got shape \(2,\)"):
        mt.is_nonzero(mt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        mt.is_nonzero(mt.tensor([]))
    with pytest.raises(mt.MetaDataError):
        mt.is_nonzero(mt.zeros(1, device="meta"))
    with pytest.raises(TypeError, match=r"is_nonzero\(\): argument 'input' \(position 1\) must "
                                        "be Tensor, not int"):
        mt.is_nonzero(1)
    with pytest.raises(RuntimeError, match="more than one value"):
        torch.is_nonzero(torch.tensor([1, 2]))


def test_is_same_size(any_device):
    a = mt.zeros(2, 3, device=any_device)
    assert mt.is_same_size(a, mt.ones(2, 3, dtype=mt.int64, device=any_device))
    assert not a.is_same_size(mt.zeros(3, 2, device=any_device))
    assert mt.zeros(()).is_same_size(mt.ones(()))
    with pytest.raises(TypeError, match=r"is_same_size\(\): argument 'other' \(position 2\) "
                                        "must be Tensor, not list"):
        mt.is_same_size(a, [2, 3])
    with pytest.raises(TypeError):
        torch.is_same_size(torch.zeros(2), [2])


def test_predicates_refuse_non_tensors():
    for name in ("is_floating_point", "is_complex", "is_signed"):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'input' \(position 1\) "
                                            "must be Tensor, not float"):
            getattr(mt, name)(1.0)
        with pytest.raises(TypeError):
            getattr(torch, name)(1.0)


def test_device_and_dimension_methods_equal_torch():
    for shape in ((), (2,), (2, 3, 4)):
        assert mt.zeros(shape).ndimension() == torch.zeros(shape).ndimension() == len(shape)
    for device in ("cpu", "meta"):
        ours, theirs = mt.zeros(1, device=device), torch.zeros(1, device=device)
        assert (ours.is_cpu, ours.get_device()) == (theirs.is_cpu, theirs.get_device())


def test_is_inference_is_false_as_no_inference_tensors_exist():
    with mt.inference_mode():
        made = mt.zeros(1)
    assert made.is_inference() is False and mt.zeros(1).is_inference() is False


@pytest.mark.parametrize("values", [[1.7, -0.5, 255.0, 0.0], [3, 200], [True, False]])
def test_byte_equals_torch(values, device):
    ours = mt.tensor(values, device=device).byte()
    theirs = torch.tensor(values).byte()
    assert ours.dtype is mt.uint8 and ours.tolist() == theirs.tolist()
    assert mt.zeros(2, device="meta").byte().dtype is mt.uint8


def test_byte_of_a_uint8_tensor_is_itself():
    x = mt.tensor([1, 2], dtype=mt.uint8)
    assert x.byte() is x
