"""``alpha`` of ``add``/``sub``/``rsub`` and in-place ops' casting rule, against PyTorch: a
float ``alpha`` needs a floating result, a bool one a bool result, and an in-place result
is never written into a tensor of a lower kind (float into int, anything into bool)."""

from __future__ import annotations

import pytest

import minitorch_meta as mt

torch = pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                            "test extra")

# (label, call(T, make)): ``make(values, dtype_name)`` builds a tensor of library T
CALLS = {
    "add_int_float_alpha": lambda T, m: T.add(m([1, 2], "int64"), m([1, 1], "int64"), alpha=0.5),
    "add_int_float_alpha_number": lambda T, m: T.add(m([1, 2], "int64"), 1, alpha=0.5),
    "sub_int_float_alpha": lambda T, m: T.sub(m([1, 2], "int64"), m([1, 1], "int64"), alpha=2.0),
    "rsub_int_float_alpha": lambda T, m: T.rsub(m([1, 2], "int64"), m([1, 1], "int64"),
                                                alpha=0.5),
    "add_method_int_float_alpha": lambda T, m: m([1, 2], "int32").add(m([1, 1], "int32"),
                                                                     alpha=1.0),
    "add__int_float_alpha": lambda T, m: m([1, 2], "int64").add_(m([1, 1], "int64"),
                                                                 alpha=0.5),
    "sub__int_float_alpha": lambda T, m: m([1, 2], "int64").sub_(1, alpha=1.5),
    "add_bool_float_alpha": lambda T, m: T.add(m([True], "bool"), m([True], "bool"),
                                               alpha=2.0),
    "add_int_bool_alpha": lambda T, m: T.add(m([1, 2], "int64"), m([1, 1], "int64"),
                                             alpha=True),
    "add_float_bool_alpha": lambda T, m: T.add(m([1, 2], "float32"), m([1, 1], "float32"),
                                               alpha=True),
    "add__float_other": lambda T, m: m([1, 2], "int64").add_(1.5),
    "add__float_tensor": lambda T, m: m([1, 2], "int64").add_(m([1.5, 1], "float32")),
    "add__float_0d": lambda T, m: m([1, 2], "int64").add_(m(1.0, "float32")),
    "mul__float": lambda T, m: m([1, 2], "int32").mul_(1.5),
    "div__int": lambda T, m: m([1, 2], "int64").div_(2),
    "iadd_float": lambda T, m: m([1, 2], "int64").__iadd__(0.5),
    "bool_add__int": lambda T, m: m([True, False], "bool").add_(1),
    "bool_mul__int": lambda T, m: m([True], "bool").mul_(2),
    "bool_add__int_tensor": lambda T, m: m([True], "bool").add_(m([1], "int64")),
    "bool_clamp_": lambda T, m: m([True], "bool").clamp_(0, 1),
}
ERRORS = {
    "add_int_float_alpha": "For integral input tensors, argument alpha must not be a floating "
                           "point number",
    "add_int_bool_alpha": "Boolean alpha only supported for Boolean results",
    "add__float_other": "result type Float can't be cast to the desired output type Long",
    "bool_add__int": "result type Long can't be cast to the desired output type Bool",
}
for _label in CALLS:  # the message each label's family shares
    if _label not in ERRORS:
        _family = ("add_int_float_alpha" if "float_alpha" in _label else
                   "add_int_bool_alpha" if "bool_alpha" in _label else
                   "bool_add__int" if _label.startswith("bool_") else "add__float_other")
        ERRORS[_label] = ERRORS[_family]
ERRORS["mul__float"] = ERRORS["add__float_other"].replace("Long", "Int")


def _maker(T, device=None):
    def make(values, dtype):
        kwargs = {"device": device} if device else {}
        return T.tensor(values, dtype=getattr(T, dtype), **kwargs)
    return make


@pytest.mark.parametrize("label", list(CALLS))
def test_refused_as_in_torch(label, device):
    with pytest.raises(RuntimeError) as theirs:
        CALLS[label](torch, _maker(torch))
    # PyTorch's words, without its C type names ("long int" for clamp_)
    expected = ERRORS[label]
    if "can't be cast" not in expected:
        assert expected in str(theirs.value)
    with pytest.raises(RuntimeError) as ours:
        CALLS[label](mt, _maker(mt, device))
    assert expected in str(ours.value)


ALLOWED = {
    "add_int_float_tensor_float_alpha": lambda T, m: T.add(m([1, 2], "int64"),
                                                           m([1, 1], "float32"), alpha=0.5),
    "add_float_int_float_alpha": lambda T, m: T.add(m([1, 2], "float32"), m([1, 1], "int64"),
                                                    alpha=0.5),
    "add_int_number_float_alpha": lambda T, m: T.add(m([1, 2], "int64"), 1.5, alpha=0.5),
    "add_bool_int_alpha": lambda T, m: T.add(m([True, False], "bool"), m([True, False], "bool"),
                                             alpha=2),
    "add_bool_zero_alpha": lambda T, m: T.add(m([False, True], "bool"), m([True, False], "bool"),
                                              alpha=0),
    "add_bool_true_alpha": lambda T, m: T.add(m([False, True], "bool"), m([True, False], "bool"),
                                              alpha=True),
    "add__bool_int_alpha": lambda T, m: m([False, True], "bool").add_(m([True, False], "bool"),
                                                                      alpha=3),
    "add__float_int_alpha": lambda T, m: m([1.0, 2.0], "float32").add_(m([1, 1], "int64"),
                                                                       alpha=2),
    "sub__float_float_alpha": lambda T, m: m([1.0, 2.0], "float64").sub_(m([1, 3], "float32"),
                                                                         alpha=0.25),
    "add__int_narrower": lambda T, m: m([1, 2], "int32").add_(m([1, 1], "int64")),
    "add__int_bool": lambda T, m: m([1, 2], "int64").add_(m([True, False], "bool")),
    "bool_add__true": lambda T, m: m([True, False], "bool").add_(True),
    "half_add__double": lambda T, m: m([1.0], "float16").add_(m([1.0], "float64")),
}


@pytest.mark.parametrize("label", list(ALLOWED))
def test_allowed_as_in_torch(label, device):
    theirs = ALLOWED[label](torch, _maker(torch))
    ours = ALLOWED[label](mt, _maker(mt, device))
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()
