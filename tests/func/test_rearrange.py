"""``torch.func.rearrange`` against PyTorch's: values, shapes, gradients and meta shapes
for the pattern language (names, brackets, ellipsis, unit axes, lists of tensors), and
PyTorch's error types and messages for bad patterns and lengths."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.func import rearrange
from minitorch_meta.func.rearrange import DimensionBindError
from tests.devices import tensor_device

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4)

CASES = [
    ("a b c -> c b a", {}), ("a b c -> a (b c)", {}), ("a b c -> (a b c)", {}),
    ("a b c -> (c b a)", {}), ("a (b c) d -> a b c d", {"b": 3}), ("a b c -> a b c 1", {}),
    ("a b c -> a () b c", {}), ("a b c -> c (b 1) a", {}), ("... c -> c ...", {}),
    ("a ... -> ... a", {}), ("... -> ...", {}), ("a ... c -> (a ...) c", {}),
    ("a ... -> a (...)", {}), ("a b c ... -> ... a b c", {}), ("(a b) c d -> a b c d", {"a": 2}),
    ("(a b) c d -> a b c d", {"b": 1}), ("a b c -> a b c", {"a": 2, "b": 3, "c": 4}),
    (" a  b   c  ->  c b a ", {}), ("a b c-> a b c", {}), ("a b (c) -> a b c", {}),
    ("A B C -> C B A", {}), ("a b c2 -> c2 b a", {}),
]


def _input(shape_case: str, module, device=None, requires_grad=False):
    """The input of a case: X, or X reshaped as the pattern's left side needs."""
    data = X if not shape_case.startswith("(a b)") else X.reshape(2, 3, 4)
    kwargs = {} if device is None else {"device": device}
    return module.tensor(data, requires_grad=requires_grad, **kwargs)


@pytest.mark.parametrize(("pattern", "lengths"), CASES, ids=str)
def test_values_shapes_and_gradients_are_pytorchs(pattern, lengths, device, torch_ref):
    x, y = _input(pattern, mt, device, True), _input(pattern, torch_ref, None, True)
    ours, theirs = rearrange(x, pattern, **lengths), torch_ref.func.rearrange(y, pattern,
                                                                               **lengths)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.device == tensor_device(device)
    np.testing.assert_array_equal(ours.detach().cpu().numpy(), theirs.detach().numpy())
    weights = np.arange(ours.numel(), dtype=np.float64).reshape(tuple(ours.shape))
    (ours * mt.tensor(weights, device=device)).sum().backward()
    (theirs * torch_ref.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), y.grad.numpy())
    meta = rearrange(mt.ones(X.shape, device="meta"), pattern, **lengths)
    assert meta.shape == ours.shape and meta.is_meta


@pytest.mark.parametrize("pattern", ["a b c -> c b a", "a b c -> a (b c)"])
def test_the_result_is_a_view_where_the_strides_allow(pattern):
    x = mt.tensor(X)
    out = rearrange(x, pattern)
    with mt.no_grad():
        x[0, 0, 1] = 100.0
    assert 100.0 in out.flatten().tolist()


@pytest.mark.parametrize("container", [list, tuple])
@pytest.mark.parametrize("pattern", ["a b c -> (a b) c", "n b c -> b (n c)"])
def test_a_sequence_of_tensors_is_stacked_first(container, pattern, device, torch_ref):
    parts = [np.full((3, 4), float(i)) for i in range(2)]
    ours = rearrange(container(mt.tensor(p, device=device) for p in parts), pattern)
    theirs = torch_ref.func.rearrange(container(torch_ref.tensor(p) for p in parts), pattern)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


@pytest.mark.parametrize("pattern", ["-> ", "1 -> "])
def test_0d_and_unit_patterns(pattern, torch_ref):
    source = (1,) if pattern.startswith("1") else ()
    ours = rearrange(mt.ones(source), pattern)
    assert tuple(ours.shape) == tuple(torch_ref.func.rearrange(torch_ref.ones(source),
                                                              pattern).shape)


def test_a_unit_axis_on_the_right_of_a_0d_pattern_is_kept():
    """PyTorch drops it there (``() -> 1`` gives a 0-d tensor) though it keeps it after
    other axes (``a b c -> a b c 1``); we keep it always (docs/differences.md)."""
    assert rearrange(mt.ones(()), " -> 1").shape == (1,)


def test_empty_dims(torch_ref):
    for pattern, shape, lengths in (("a b -> b a", (0, 3), {}),
                                    ("a (b c) -> a b c", (2, 0), {"b": 2})):
        ours = rearrange(mt.ones(shape), pattern, **lengths)
        assert ours.shape == torch_ref.func.rearrange(torch_ref.ones(shape), pattern,
                                                      **lengths).shape


ERRORS = [
    ("a b c", {}, ValueError, "Pattern must contain a single '->' separator"),
    ("a b c -> a b c -> a", {}, ValueError, "Pattern must contain a single '->' separator"),
    ("a b c -> b c", {}, ValueError, "Identifiers only on one side of rearrange expression "
                                     "(should be on both): {'a'}"),
    ("a b c -> a b c d", {}, ValueError, "Identifiers only on one side of rearrange "
                                         "expression (should be on both): {'d'}"),
    ("a ... b c d -> a b c d", {}, ValueError, "Identifiers only on one side of rearrange "
                                               "expression (should be on both): {'…'}"),
    ("a b -> a b", {}, ValueError, "Number of dimensions in pattern (2) must be equal to the "
                                   "number of dimensions in the tensor (3)"),
    ("a b c d ... -> a b c d ...", {}, ValueError, "Number of dimensions in pattern (4) must "
                                                   "be less than or equal to the number of "
                                                   "dimensions in the tensor (3)"),
    ("a b c -> a b c", {"d": 2}, ValueError, "Identifiers not found in rearrange expression: "
                                             "{'d'}"),
    ("a a c -> a c", {}, ValueError, "Indexing expression contains duplicate dimension 'a'"),
    ("a b c -> a b b", {}, ValueError, "Indexing expression contains duplicate dimension 'b'"),
    ("a b 2 -> a b", {}, ValueError, "rearrange only supports unnamed axes of size 1"),
    ("a b c -> (a 2) b c", {}, ValueError, "rearrange only supports unnamed axes of size 1"),
    ("a b _c -> a b _c", {}, ValueError, "Invalid axis identifier: _c\naxis name should "
                                         "should not start or end with underscore"),
    ("a-b c d -> a b c d", {}, ValueError, "Unknown character '-'"),
    ("(a (b c)) d e -> a b c d e", {}, ValueError, "Axis composition is one-level (brackets "
                                                   "inside brackets not allowed)"),
    ("a b (c ()) -> a b c", {}, ValueError, "Axis composition is one-level (brackets inside "
                                            "brackets not allowed)"),
    ("a b c -> a b c ...", {}, ValueError, "Ellipsis found in right side, but not left side "
                                           "of a pattern a b c -> a b c ..."),
    ("(a ...) -> a ...", {}, ValueError, "Ellipsis is parenthesis in the left side is not "
                                         "allowed: (a ...) -> a ..."),
    ("... ... -> ...", {}, ValueError, "Expression may contain dots only inside ellipsis "
                                       "(...); only one ellipsis for tensor "),
    ("a . b -> a b", {}, ValueError, "Expression may contain dots only inside ellipsis (...)"),
    ("a b c -> a (b c", {}, ValueError, "Imbalanced parentheses in expression: ' a (b c'"),
    ("a b c -> a b c)", {}, ValueError, "Brackets are not balanced"),
    ("a (b c) d -> a b c d", {}, DimensionBindError, "cannot infer the sizes of two "
                                                     "dimensions at once"),
    ("a (b c) d -> a b c d", {"b": 2}, DimensionBindError, "inferred dimension does not evenly "
                                                           "fit into larger dimension: 3 vs "
                                                           "(2, '?')"),
    ("a (b c) d -> a b c d", {"b": 2, "c": 2}, DimensionBindError, "Dimension sizes to do not "
                                                                   "match (3 != 4) when "
                                                                   "matching dimension pack"),
    ("a b c -> a b c", {"b": 4}, DimensionBindError, "Dimension sizes to do not match (3 != 4) "
                                                     "when matching dimension pack"),
    ("(a b) c d -> a b c d", {"a": 1, "b": 1}, DimensionBindError, "Dimension sizes to do not "
                                                                   "match (2 != 1)"),
]


@pytest.mark.parametrize(("pattern", "lengths", "error", "message"), ERRORS, ids=str)
def test_errors_are_pytorchs(pattern, lengths, error, message, torch_ref):
    for module, function in ((mt, rearrange), (torch_ref, torch_ref.func.rearrange)):
        # (by name: PyTorch's DimensionBindError is functorch.dim's class)
        with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is checked below
            function(module.tensor(X), pattern, **lengths)
        assert type(raised.value).__name__ == error.__name__
        assert str(raised.value).startswith(message)


def test_our_bind_errors_name_the_axes():
    with pytest.raises(DimensionBindError, match=r"at once b and c; give one of them as a "
                                                 r"keyword, e\.g\. b=\.\.\."):
        rearrange(mt.ones(2, 6), "a (b c) -> a b c")
    with pytest.raises(DimensionBindError, match=re.escape("pack (b, c)")):
        rearrange(mt.tensor(X), "a (b c) d -> a b c d", b=3, c=2)


def test_a_unit_axis_on_the_left_must_have_length_1():
    """PyTorch reads a wrong element there (docs/differences.md); we refuse it."""
    with pytest.raises(DimensionBindError, match=re.escape("(4 != 1)")):
        rearrange(mt.tensor(X), "a b 1 -> a b")
    assert rearrange(mt.ones(2, 3, 1), "a b () -> a b").shape == (2, 3)


@pytest.mark.parametrize(("lengths", "error"), [({"b": 0}, ZeroDivisionError),
                                                ({"b": -2}, RuntimeError),
                                                ({"b": 3.0}, TypeError), ({"b": "2"}, TypeError),
                                                ({"b": True}, TypeError)])
def test_bad_lengths(lengths, error, torch_ref):
    for module, function in ((mt, rearrange), (torch_ref, torch_ref.func.rearrange)):
        with pytest.raises(error):
            function(module.ones(2, 6), "a (b c) -> a b c", **lengths)
    with pytest.raises(error, match="axis"):
        rearrange(mt.ones(2, 6), "a (b c) -> a b c", **lengths)


def test_what_is_not_a_tensor_is_refused():
    with pytest.raises(TypeError, match="expected a Tensor or a list or tuple of Tensors, got "
                                        "str"):
        rearrange("str", "a -> a")
    with pytest.raises(RuntimeError):
        rearrange([], "a -> a")


def test_the_name():
    assert mt.func.rearrange is rearrange and "rearrange" in mt.func.__all__
