"""``torch.autograd.Function``: custom ops checked three ways (gradcheck, PyTorch, meta),
then ctx's API, graph recording, retain_graph, versions and the errors, against PyTorch."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import minitorch_meta as mt
from tests.ops.harness import Arg, Case, three_way_tests


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


@functools.cache
def functions(T):
    """The same custom functions, written once, for a library ``T`` (minitorch_meta or
    torch): code written for PyTorch runs unchanged."""

    class MyReLU(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * (x > 0)

    class ScaleShift(T.autograd.Function):
        """x * factor + shift: a non-tensor argument, and a shift that broadcasts (its
        gradient is returned unreduced: the engine sums it down, as PyTorch's does)."""

        @staticmethod
        def forward(ctx, x, factor, shift):
            ctx.factor = factor
            return x * factor + shift

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None, grad

    class MulAdd(T.autograd.Function):
        """x * w + x: gradients computed only where ``needs_input_grad`` asks."""

        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w + x

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            gx = grad * (w + 1) if ctx.needs_input_grad[0] else None
            gw = grad * x if ctx.needs_input_grad[1] else None
            return gx, gw

    class ExpSquare(T.autograd.Function):
        """Two differentiable outputs, the first saved as an output."""

        @staticmethod
        def forward(ctx, x):
            e = x.exp()
            ctx.save_for_backward(x, e)
            return e, x * x

        @staticmethod
        def backward(ctx, grad_e, grad_square):
            x, e = ctx.saved_tensors
            return grad_e * e + grad_square * 2 * x

    class Sort(T.autograd.Function):
        """Sorted values and their indices, marked non-differentiable."""

        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort(dim=-1)
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            inverse = indices.sort(dim=-1)[1]
            return grad_values.gather(-1, inverse)

    class HalfUsed(T.autograd.Function):
        """Without materialized gradients an unused output's gradient is None."""

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            t = x.tanh()
            ctx.save_for_backward(t)
            return x * 3, t

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            if grad_b is None:
                return grad_a * 3
            (t,) = ctx.saved_tensors
            return grad_a * 3 + grad_b * (1 - t * t)

    return {c.__name__: c for c in (MyReLU, ScaleShift, MulAdd, ExpSquare, Sort, HalfUsed)}


def fn(T, name):
    return functions(T)[name]


def _multi(T, F, x):
    e, square = fn(T, "ExpSquare").apply(x)
    return e * square


CASES = [
    Case("relu", lambda T, F, x: fn(T, "MyReLU").apply(x), [Arg((3, 4), "away0")]),
    # (a 0-d Arg would reach the harness as a NumPy scalar, not an array)
    Case("relu_0d", lambda T, F, x: fn(T, "MyReLU").apply(x.reshape(())), [Arg((1,), "away0")]),
    Case("relu_empty", lambda T, F, x: fn(T, "MyReLU").apply(x), [Arg((0, 3))]),
    Case("relu_in_a_graph", lambda T, F, x: fn(T, "MyReLU").apply(x * 2 - 0.1).sum(1),
         [Arg((3, 4), "away0")]),
    Case("scale_shift_broadcast", lambda T, F, x, b: fn(T, "ScaleShift").apply(x, 2.5, b),
         [Arg((3, 4)), Arg((4,))]),
    Case("scale_shift_constant_shift", lambda T, F, x, b: fn(T, "ScaleShift").apply(x, -1, b),
         [Arg((3, 4)), Arg((3, 4), grad=False)]),
    Case("mul_add", lambda T, F, x, w: fn(T, "MulAdd").apply(x, w), [Arg((2, 3)), Arg((2, 3))]),
    Case("mul_add_constant_w", lambda T, F, x, w: fn(T, "MulAdd").apply(x, w),
         [Arg((2, 3)), Arg((2, 3), grad=False)]),
    Case("two_outputs", _multi, [Arg((3, 2))]),
    Case("two_outputs_first_unused", lambda T, F, x: fn(T, "ExpSquare").apply(x)[1] * 1,
         [Arg((4,))]),
    Case("sort_non_differentiable_indices",
         lambda T, F, x: fn(T, "Sort").apply(x)[0].cumsum(-1), [Arg((2, 4), "distinct")]),
    Case("unused_output_none", lambda T, F, x: fn(T, "HalfUsed").apply(x)[0], [Arg((5,))]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


# -- ctx and recording -------------------------------------------------------------------
def _probe(T, seen):
    """A function that records, in ``seen``, what forward and backward observe."""

    class Probe(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, w):
            seen["forward"] = (ctx.needs_input_grad, T.is_grad_enabled())
            y = x * k
            seen["inner_grad_fn"] = y.grad_fn
            return y + w

        @staticmethod
        def backward(ctx, grad):
            seen["backward"] = (ctx.needs_input_grad, T.is_grad_enabled())
            return grad * 2, None, None

    return Probe


def test_forward_and_backward_run_without_grad_and_see_needs_input_grad(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        seen = {}
        x = T.ones(3, requires_grad=True, **kwargs)
        y = _probe(T, seen).apply(x, 2.0, T.ones(3, **kwargs))
        y.sum().backward()
        assert seen["forward"] == ((True, False, False), False), T
        assert seen["backward"] == ((True, False, False), False), T
        assert seen["inner_grad_fn"] is None
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_grad_fn_is_the_ctx_named_after_the_class(device):
    x = mt.ones(3, requires_grad=True, device=device)
    y = fn(mt, "ScaleShift").apply(x, 2, mt.zeros(3, device=device))
    assert y.grad_fn.name() == "ScaleShiftBackward"
    assert repr(y.grad_fn) == "<ScaleShiftBackward object>"
    assert "grad_fn=<ScaleShiftBackward>" in repr(y)
    assert y.grad_fn.factor == 2  # the ctx's own attributes
    assert not y.is_leaf and y.requires_grad
    # one edge per tensor argument (PyTorch lists none for the int), None for no gradient
    assert y.grad_fn.next_functions == ((x._accumulator(), 0), (None, 0))
    assert isinstance(y.grad_fn, mt.autograd.function.FunctionCtx)


def test_nothing_is_recorded_without_grad(device):
    x = mt.ones(3, requires_grad=True, device=device)
    relu = fn(mt, "MyReLU")
    with mt.no_grad():
        y = relu.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    z = relu.apply(mt.ones(3, device=device))
    assert not z.requires_grad and z.grad_fn is None


def test_an_input_returned_as_is_becomes_a_new_output(device):
    class Identity(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = mt.ones(3, requires_grad=True, device=device)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    with mt.no_grad():
        x.add_(1)  # the same storage: y sees it, and so does the version counter
    assert y._version == 1 and y.tolist() == [2.0, 2.0, 2.0]
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_non_tensor_outputs_and_arguments_pass_through(device):
    class WithCount(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, label):
            return x * 2, f"{label}:{x.numel()}"

        @staticmethod
        def backward(ctx, grad, grad_label):
            assert grad_label is None
            return grad * 2, None

    x = mt.ones(4, requires_grad=True, device=device)
    y, label = WithCount.apply(x, "n")
    assert label == "n:4"
    y.sum().backward()
    assert x.grad.tolist() == [2.0] * 4


def test_keyword_arguments_reach_forward_and_get_no_gradient(device):
    class Power(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, exponent=2):
            ctx.save_for_backward(x)
            ctx.exponent = exponent
            return x ** exponent

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.exponent * x ** (ctx.exponent - 1)

    x = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    Power.apply(x, exponent=3).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_mark_non_differentiable_output(device):
    torch = _torch()
    received = {}
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        x = T.tensor([3.0, 1.0, 2.0], requires_grad=True, **kwargs)
        values, indices = fn(T, "Sort").apply(x)
        assert values.requires_grad and values.grad_fn.name() == "SortBackward"
        assert not indices.requires_grad and indices.grad_fn is None
        assert str(indices.dtype) == "torch.int64"
        values.backward(T.tensor([10.0, 20.0, 30.0], **kwargs))
        received[T] = x.grad.tolist()
    assert received[mt] == received[torch] == [30.0, 10.0, 20.0]


def test_a_non_differentiable_output_gets_zeros_of_its_dtype(device):
    seen = []

    class Argmax(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            return x * 1, index

        @staticmethod
        def backward(ctx, grad, grad_index):
            seen.append(grad_index)
            return grad

    x = mt.ones(3, requires_grad=True, device=device)
    y, index = Argmax.apply(x)
    assert y.grad_fn is not None and index.grad_fn is None
    y.sum().backward()
    assert seen[0].dtype is mt.int64 and seen[0].tolist() == 0


def test_only_output_non_differentiable_makes_no_graph(device):
    class Mask(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_non_differentiable(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad

    y = Mask.apply(mt.ones(2, requires_grad=True, device=device))
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        y.sum().backward()


def test_materialized_and_unmaterialized_gradients_of_an_unused_output(device):
    seen = []

    class Both(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            seen.append(grad_b if grad_b is None else grad_b.tolist())
            return grad_a * 2, None

    for materialize in (True, False):
        x = mt.ones(2, requires_grad=True, device=device)
        Both.apply(x, materialize)[0].sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    assert seen == [[0.0, 0.0], None]


def test_two_outputs_have_their_own_nodes_reading_the_shared_ctx(device):
    x = mt.tensor([0.5, -1.0], requires_grad=True, device=device)
    e, square = fn(mt, "ExpSquare").apply(x)
    assert e.grad_fn.name() == square.grad_fn.name() == "ExpSquareBackward"
    assert len(e.grad_fn.saved_tensors) == 2  # attributes read through to the ctx
    gradients = mt.autograd.grad((e + square).sum(), x)
    torch = _torch()
    tx = torch.tensor([0.5, -1.0], requires_grad=True)
    te, tsquare = fn(torch, "ExpSquare").apply(tx)
    expected = torch.autograd.grad((te + tsquare).sum(), tx)
    np.testing.assert_allclose(gradients[0].cpu().numpy(), expected[0].numpy(), rtol=1e-6)


def test_hooks_and_retain_grad_on_outputs(device):
    x = mt.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = fn(mt, "MyReLU").apply(x)
    y.retain_grad()
    e, square = fn(mt, "ExpSquare").apply(x)
    square.register_hook(lambda grad: grad * 10)
    (y * 3 + square).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    assert x.grad.tolist() == [3.0 + 10 * 2 * 1.0, 3.0 + 10 * 2 * 2.0]


def test_gradient_dtype_is_cast_to_the_input_dtype(device):
    class Double(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad.double() * 2

    x = mt.ones(2, requires_grad=True, device=device)
    Double.apply(x).sum().backward()
    assert x.grad.dtype is mt.float32 and x.grad.tolist() == [2.0, 2.0]


def test_a_gradient_for_an_input_that_needs_none_is_dropped_unchecked(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        x = T.ones(2, requires_grad=True, **kwargs)
        w = T.ones(2, **kwargs)
        y = _failing(T, lambda g: (g, g[:1])).apply(x, w)  # a wrong shape, but for w
        y.sum().backward()
        assert w.grad is None and x.grad.tolist() == [1.0, 1.0]


# -- retain_graph and versions -----------------------------------------------------------
def test_second_backward_needs_retain_graph_when_tensors_were_saved(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        x = T.tensor([1.0, -1.0], requires_grad=True, **kwargs)
        y = fn(T, "MyReLU").apply(x)
        y.backward(T.ones(2, **kwargs), retain_graph=True)
        y.backward(T.ones(2, **kwargs))
        assert x.grad.tolist() == [2.0, 0.0]
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                               "time"):
            y.backward(T.ones(2, **kwargs))
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                               "time"):
            _ = y.grad_fn.saved_tensors


def test_a_function_that_saved_nothing_may_run_backward_again(device):
    x = mt.ones(2, requires_grad=True, device=device)
    y = fn(mt, "ScaleShift").apply(x, 3.0, mt.zeros(2, device=device))
    y.backward(mt.ones(2, device=device))
    y.backward(mt.ones(2, device=device))  # as in PyTorch: nothing saved, nothing freed
    assert x.grad.tolist() == [6.0, 6.0]


def test_a_saved_input_changed_in_place_is_refused(device):
    x = mt.ones(3, requires_grad=True, device=device)
    h = x * 1
    y = fn(mt, "MyReLU").apply(h)
    with mt.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: saved tensor 0 "
                                           r"\(a torch.float32 tensor of shape \(3,\)\), saved "
                                           r"by MyReLUBackward, is at version 1; expected "
                                           r"version 0 instead"):
        y.sum().backward()


def test_a_saved_output_changed_in_place_is_refused(device):
    x = mt.ones(3, requires_grad=True, device=device)
    e, _ = fn(mt, "ExpSquare").apply(x)
    with mt.no_grad():
        e.mul_(2)  # the output shares the storage (and counter) of the tensor forward saved
    with pytest.raises(RuntimeError, match="saved tensor 1 .* modified|modified by an inplace"):
        e.sum().backward()


def test_save_for_backward_keeps_none(device):
    class SaveNone(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            x, nothing = ctx.saved_tensors
            assert nothing is None
            return grad * 2

    x = mt.ones(2, requires_grad=True, device=device)
    SaveNone.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


# -- meta --------------------------------------------------------------------------------
def test_meta_forward_and_backward_give_shapes():
    x = mt.empty(2, 3, device="meta", requires_grad=True)
    b = mt.empty(3, device="meta", requires_grad=True)
    y = fn(mt, "ScaleShift").apply(x, 2.0, b)
    assert y.is_meta and y.shape == (2, 3) and y.grad_fn.name() == "ScaleShiftBackward"
    y.sum().backward()
    assert x.grad.is_meta and x.grad.shape == (2, 3)
    assert b.grad.is_meta and b.grad.shape == (3,)  # summed down from (2, 3)
    values, indices = fn(mt, "Sort").apply(x)
    assert indices.is_meta and indices.dtype is mt.int64 and not indices.requires_grad


# -- errors ------------------------------------------------------------------------------
def _failing(T, result):
    """A function of (x, k) whose backward returns ``result(grad)``."""

    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return result(grad)

    return Bad


@pytest.mark.parametrize(("result", "message"), [
    (lambda g: g, "function BadBackward returned an incorrect number of gradients "
                  "(expected 2, got 1)"),
    (lambda g: (g, None, g), "function BadBackward returned an incorrect number of gradients "
                             "(expected 2, got 3)"),
    (lambda g: (g, g), "function BadBackward returned a gradient different than None at "
                       "position 2, but the corresponding forward input was not a Variable"),
    (lambda g: (3, None), "expected Variable or None (got int)"),
    (lambda g: ([g], None), "expected Variable or None (got list)"),
    (lambda g: (g[:2], None), "Function BadBackward returned an invalid gradient at index 0 "
                              "- got [2] but expected shape compatible with [3]"),
])
def test_bad_gradients_raise_pytorchs_errors(result, message, device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        y = _failing(T, result).apply(T.ones(3, requires_grad=True, **kwargs), 2.0)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        assert str(info.value).startswith(message), (T, str(info.value))


def test_shape_error_counts_tensor_arguments_only(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        class Late(T.autograd.Function):
            @staticmethod
            def forward(ctx, k, x):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return None, grad[:2]

        y = Late.apply(2.0, T.ones(3, requires_grad=True, **kwargs))
        with pytest.raises(RuntimeError, match=r"Function LateBackward returned an invalid "
                                               r"gradient at index 0 - got \[2\] but expected "
                                               r"shape compatible with \[3\]"):
            y.sum().backward()


def test_trailing_none_gradients_are_allowed(device):
    x = mt.ones(3, requires_grad=True, device=device)
    _failing(mt, lambda g: (g, None, None)).apply(x, 2.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_a_gradient_on_another_device_is_refused():
    x = mt.ones(3, requires_grad=True)
    y = _failing(mt, lambda g: (mt.empty(3, device="meta"), None)).apply(x, 2.0)
    with pytest.raises(RuntimeError, match=r"Function BadBackward returned an invalid gradient "
                                           r"at index 0 - expected device cpu but got meta"):
        y.sum().backward()


def _saving(T, method, *extra):
    """A function whose forward calls ``ctx.<method>(x, *extra)``."""

    class Saving(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            getattr(ctx, method)(x, *extra)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Saving


def test_ctx_method_errors(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        x = T.ones(1, requires_grad=True, **kwargs)
        with pytest.raises(TypeError, match="save_for_backward can only save variables, but "
                                            "argument 1 is of type int"):
            _saving(T, "save_for_backward", 3).apply(x)
        with pytest.raises(RuntimeError, match="mark_non_differentiable only accepts variable "
                                               "arguments"):
            _saving(T, "mark_non_differentiable", "indices").apply(x)


def test_missing_forward_or_backward_and_instances(device):
    torch = _torch()
    for T, kwargs in ((mt, {"device": device}), (torch, {})):
        x = T.ones(2, requires_grad=True, **kwargs)
        with pytest.raises(NotImplementedError, match="You must implement the forward function"):
            T.autograd.Function.apply(x)

        class NoBackward(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        y = NoBackward.apply(x).sum()
        with pytest.raises(NotImplementedError, match="You must implement either the backward"):
            y.backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # PyTorch's, on instantiating
            instance = NoBackward()
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static "
                                               "forward method is deprecated"):
            instance(x)

