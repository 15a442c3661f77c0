"""torch.autograd.gradcheck: right and deliberately wrong backwards, against PyTorch."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

import minitorch_meta as mt

GradcheckError = sys.modules["minitorch_meta.autograd.gradcheck"].GradcheckError
TorchGradcheckError = sys.modules["torch.autograd.gradcheck"].GradcheckError


def _functions(fw):
    """Custom Functions of framework ``fw``: a right square and three wrong ones."""

    class Square(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    class WrongSquare(Square):  # 3x instead of 2x
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x

    class NotMultiplied(fw.autograd.Function):  # ignores grad_output
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 0 + 2

    class Random(fw.autograd.Function):  # a backward that changes from run to run
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * (2 + fw.rand(g.shape, dtype=g.dtype, device=g.device) * 1e-6)

    return Square, WrongSquare, NotMultiplied, Random


def _both(device, values, requires_grad=True):
    ours = mt.tensor(values, dtype=mt.float64, device=device, requires_grad=requires_grad)
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)
    return ours, theirs


VALUES = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]


def test_correct_functions_pass_as_in_torch(device):
    x, tx = _both(device, VALUES)
    y, ty = _both(device, [[0.2, 0.4, -0.6], [1.0, 2.0, 3.0]])
    square, tsquare = _functions(mt)[0], _functions(torch)[0]
    cases = [
        (square.apply, tsquare.apply, (x,), (tx,)),
        (lambda a, b: (a * b).sin(), lambda a, b: (a * b).sin(), (x, y), (tx, ty)),
        (lambda a, b: (a @ b.T, a.sum(1)), lambda a, b: (a @ b.T, a.sum(1)), (x, y), (tx, ty)),
        (lambda a, k: a * k, lambda a, k: a * k, (x, 3), (tx, 3)),
        (lambda a: (a.exp(), a.argmax()), lambda a: (a.exp(), a.argmax()), (x,), (tx,)),
    ]
    for ours, theirs, inputs, tinputs in cases:
        assert torch.autograd.gradcheck(theirs, tinputs)
        assert mt.autograd.gradcheck(ours, inputs) is True
        assert mt.autograd.gradcheck(ours, inputs, fast_mode=True) is True


def test_wrong_backward_is_caught_with_both_jacobians(device):
    x, tx = _both(device, VALUES)
    wrong, twrong = _functions(mt)[1], _functions(torch)[1]
    with pytest.raises(TorchGradcheckError) as theirs:
        torch.autograd.gradcheck(twrong.apply, (tx,))
    with pytest.raises(GradcheckError) as ours:
        mt.autograd.gradcheck(wrong.apply, (x,))
    assert isinstance(ours.value, RuntimeError)
    first_line = "Jacobian mismatch for output 0 with respect to input 0,"
    assert str(theirs.value).splitlines()[0] == str(ours.value).splitlines()[0] == first_line
    message = str(ours.value)
    assert message.startswith(f"{first_line}\nnumerical:tensor([[ 1.0000,  0.0000,")
    assert "\nanalytical:tensor([[ 1.5000,  0.0000," in message  # 3 * 0.5: the wrong one
    assert message.endswith("dtype=torch.float64)\n")
    assert mt.autograd.gradcheck(wrong.apply, (x,), raise_exception=False) is False
    assert torch.autograd.gradcheck(twrong.apply, (tx,), raise_exception=False) is False


def test_wrong_backward_is_caught_in_fast_mode(device):
    x, tx = _both(device, VALUES)
    wrong, twrong = _functions(mt)[1], _functions(torch)[1]
    with pytest.raises(TorchGradcheckError):
        torch.autograd.gradcheck(twrong.apply, (tx,), fast_mode=True)
    with pytest.raises(GradcheckError, match="(?s)Jacobian mismatch for output 0 with respect "
                       "to input 0,.*in fast mode.*The max per-element difference"):
        mt.autograd.gradcheck(wrong.apply, (x,), fast_mode=True)


def test_jacobian_layout_rows_are_input_elements(device):
    # sum over dim 1 of a (2, 3): output 0 depends on inputs 0..2; a wrong backward shows
    # the full (6, 2) Jacobians, rows = input elements, as PyTorch's
    x, _ = _both(device, VALUES)

    class Wrong(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum(1)

        @staticmethod
        def backward(ctx, g):
            return g[:, None].expand(2, 3) * 2

    with pytest.raises(GradcheckError) as error:
        mt.autograd.gradcheck(Wrong.apply, (x,))
    numerical = str(error.value).split("numerical:")[1].split("\nanalytical:")[0]
    assert numerical.count("[") == 7  # 6 rows and the outer bracket


def test_backward_not_multiplied_by_grad_output(device):
    x, tx = _both(device, VALUES)
    not_multiplied, tnot = _functions(mt)[2], _functions(torch)[2]
    # the Jacobians differ (every row is 2) before the zero-grad check is reached
    with pytest.raises(TorchGradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(tnot.apply, (tx,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        mt.autograd.gradcheck(not_multiplied.apply, (x,))
    scalar, tscalar = _both(device, 1.5)
    # one element: the Jacobian is right, only the zero grad_output check catches it
    with pytest.raises(TorchGradcheckError,
                       match="^backward not multiplied by grad_output$"):
        torch.autograd.gradcheck(tnot.apply, (tscalar,), check_undefined_grad=False)
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        mt.autograd.gradcheck(not_multiplied.apply, (scalar,), check_undefined_grad=False)


def test_nondeterministic_backward(device):
    x, tx = _both(device, VALUES)
    rnd, trnd = _functions(mt)[3], _functions(torch)[3]
    with pytest.raises(TorchGradcheckError, match="not reentrant"):
        torch.autograd.gradcheck(trnd.apply, (tx,))
    with pytest.raises(GradcheckError, match="^Backward is not reentrant"):
        mt.autograd.gradcheck(rnd.apply, (x,))
    assert mt.autograd.gradcheck(rnd.apply, (x,), nondet_tol=1e-2)


def test_undefined_output_gradients(device):
    x, _ = _both(device, VALUES)

    class Fragile(mt.autograd.Function):
        """Two outputs; right whenever a gradient arrives, but when output 0 gets none and
        output 1 gets zeros, it returns ones instead of zeros."""

        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            if g1 is None:
                return g2 * 3 + g2.eq(0).all().to(g2.dtype)
            return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

    assert mt.autograd.gradcheck(Fragile.apply, (x,), check_undefined_grad=False)
    with pytest.warns(UserWarning, match="^Backwards compatibility: New undefined gradient"), \
            pytest.raises(GradcheckError, match="^Expected all input grads to be undefined or "
                          "zero when all output grads are undefined or zero"):
        mt.autograd.gradcheck(Fragile.apply, (x,))


def test_no_differentiable_output(device):
    x, tx = _both(device, VALUES)
    assert torch.autograd.gradcheck(lambda a: a.argmax(), (tx,))
    assert mt.autograd.gradcheck(lambda a: a.argmax(), (x,))
    assert mt.autograd.gradcheck(lambda a: a.detach() * 0, (x,))
    with pytest.raises(TorchGradcheckError,
                       match="Numerical gradient for function expected to be zero"):
        torch.autograd.gradcheck(lambda a: a.detach() * 2, (tx,))
    with pytest.raises(GradcheckError,
                       match="^Numerical gradient for function expected to be zero$"):
        mt.autograd.gradcheck(lambda a: a.detach() * 2, (x,))


def test_input_checks_and_float32_warning(device):
    x, tx = _both(device, VALUES, requires_grad=False)
    message = ("gradcheck expects at least one input tensor to require gradient, but none "
               "of them have requires_grad=True.")
    with pytest.raises(ValueError) as theirs:
        torch.autograd.gradcheck(lambda a: a * 2, (tx,))
    with pytest.raises(ValueError) as ours:
        mt.autograd.gradcheck(lambda a: a * 2, (x,))
    assert str(theirs.value) == str(ours.value) == message
    x32 = mt.tensor(VALUES, device=device, requires_grad=True)
    with pytest.warns(UserWarning, match="^Input #0 requires gradient and is not a double "
                      "precision floating point or complex"):
        assert mt.autograd.gradcheck(lambda a: a * 2, x32, eps=1e-3, atol=1e-2, rtol=1e-2)
    with pytest.warns(UserWarning, match="^Input #0 requires gradient"):
        torch.autograd.gradcheck(lambda a: a * 2, torch.tensor(VALUES, requires_grad=True),
                                 eps=1e-3, atol=1e-2, rtol=1e-2)
    # a single tensor, not a tuple, as input
    assert mt.autograd.gradcheck(lambda a: a.tanh(), _both(device, VALUES)[0])


def test_an_expanded_input_is_refused_as_in_torch(device):
    theirs_input = torch.ones(3, 1, dtype=torch.float64).expand(3, 4).detach()
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.gradcheck(lambda a: a * 2, (theirs_input.requires_grad_(),))
    ours_input = mt.ones(3, 1, dtype=mt.float64, device=device).expand(3, 4).detach()
    with pytest.raises(RuntimeError) as ours:
        mt.autograd.gradcheck(lambda a: a * 2, (ours_input.requires_grad_(),))
    assert str(ours.value) == str(theirs.value)
    assert "has a dimension with stride 0" in str(ours.value)


def test_meta_inputs_are_refused():
    x = mt.zeros(2, dtype=mt.float64, device="meta", requires_grad=True)
    with pytest.raises(ValueError, match="keeps only shapes"):
        mt.autograd.gradcheck(lambda a: a * 2, (x,))


def test_empty_and_zero_dim_inputs(device):
    empty = mt.zeros(0, 3, dtype=mt.float64, device=device, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a: a * 2, (empty,))
    assert torch.autograd.gradcheck(lambda a: a * 2,
                                    (torch.zeros(0, 3, dtype=torch.float64,
                                                 requires_grad=True),))
    scalar, _ = _both(device, 0.7)
    assert mt.autograd.gradcheck(lambda a: a.sin() * a, (scalar,))


def test_inputs_left_unchanged(device):
    x, _ = _both(device, VALUES)
    before = x.detach().clone()
    mt.autograd.gradcheck(lambda a: a.exp(), (x,))
    assert mt.equal(before, x.detach())
    assert x._counter().value == before._counter().value == 0


def test_unsupported_options():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    f = lambda a: a * 2  # noqa: E731
    with pytest.raises(NotImplementedError, match="check_batched_grad=True is not supported"):
        mt.autograd.gradcheck(f, (x,), check_batched_grad=True)
    with pytest.raises(NotImplementedError, match="check_batched_forward_grad=True"):
        mt.autograd.gradcheck(f, (x,), check_forward_ad=True, check_batched_forward_grad=True)
    # the argument checks PyTorch makes first
    with pytest.raises(AssertionError, match="at least one of check_forward_ad"):
        mt.autograd.gradcheck(f, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="check_batched_grad=True requires"):
        mt.autograd.gradcheck(f, (x,), check_batched_grad=True, check_backward_ad=False,
                              check_forward_ad=True)
    with pytest.raises(AssertionError, match="at least one of check_fwd_over_rev"):
        mt.autograd.gradgradcheck(f, (x,), check_rev_over_rev=False)


class _DetachingBackward(mt.autograd.Function):
    """Right first-order gradient, computed off the graph: its forward-mode products (made
    by differentiating the gradient) are zero, so only a forward-mode check catches it."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * 2 * a).detach()


@pytest.mark.parametrize("fast_mode", [False, True])
def test_check_forward_ad_passes_right_jacobians_and_catches_wrong_ones(fast_mode):
    x = mt.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=mt.float64, requires_grad=True)
    w = mt.tensor([[0.2, 0.7], [-0.4, 1.1]], dtype=mt.float64, requires_grad=True)
    right = lambda a, b: (mt.tanh(a @ b.t()).exp(), (a * b).sum())  # noqa: E731
    assert mt.autograd.gradcheck(right, (x, w), check_forward_ad=True, fast_mode=fast_mode)
    assert mt.autograd.gradcheck(right, (x, w), check_forward_ad=True,
                                 check_backward_ad=False, fast_mode=fast_mode)
    assert mt.autograd.gradcheck(_DetachingBackward.apply, (x,), fast_mode=fast_mode)
    with pytest.raises(RuntimeError,
                       match="Jacobian computed with forward mode mismatch for output 0 with "
                             "respect to input 0"):
        mt.autograd.gradcheck(_DetachingBackward.apply, (x,), check_forward_ad=True,
                              check_backward_ad=False, fast_mode=fast_mode)
    assert not mt.autograd.gradcheck(_DetachingBackward.apply, (x,), check_forward_ad=True,
                                     raise_exception=False, fast_mode=fast_mode)


def test_gradgradcheck_checks_forward_over_reverse():
    x = mt.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda a: (a.sin() * a).sum(), (x,),
                                     check_fwd_over_rev=True)
    assert mt.autograd.gradgradcheck(lambda a: a.exp() * a, (x,), check_fwd_over_rev=True,
                                     check_rev_over_rev=False)
    # the gradient of the detaching Function is right, its derivative is not
    assert not mt.autograd.gradgradcheck(_DetachingBackward.apply, (x,),
                                         check_fwd_over_rev=True, check_rev_over_rev=False,
                                         raise_exception=False)


def test_gradgradcheck_passes_right_second_derivatives_and_catches_wrong_ones():
    x = mt.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=mt.float64, requires_grad=True)
    w = mt.tensor([[0.2, 0.7], [-0.4, 1.1]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda a, b: mt.tanh(a @ b.t()).exp(), (x, w))
    assert mt.autograd.gradgradcheck(lambda a: (a.sin() * a).sum(), (x,),
                                     (mt.tensor(0.7, dtype=mt.float64, requires_grad=True),))

    class CubeWithDetachedBackward(mt.autograd.Function):
        """A right first derivative whose own derivative is lost (detached)."""

        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return 3 * (a * a).detach() * grad

    assert mt.autograd.gradcheck(CubeWithDetachedBackward.apply, (x,))
    assert not mt.autograd.gradgradcheck(CubeWithDetachedBackward.apply, (x,),
                                         raise_exception=False)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        mt.autograd.gradgradcheck(CubeWithDetachedBackward.apply, (x,))


def test_spellings_and_signature():
    import inspect

    module = sys.modules["minitorch_meta.autograd.gradcheck"]
    assert mt.autograd.gradcheck is module.gradcheck
    assert issubclass(module.GradcheckError, RuntimeError)
    from minitorch_meta.autograd.gradcheck import GradcheckError as Imported

    assert Imported is GradcheckError
    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(mt.autograd, name))
        theirs = inspect.signature(getattr(torch.autograd, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()]


def test_module_gradients(device):
    mt.manual_seed(0)
    layer = mt.nn.Linear(3, 2).double().to(device)
    x = mt.tensor(np.arange(6.0).reshape(2, 3) / 7, dtype=mt.float64, device=device,
                  requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, w: mt.nn.functional.linear(a, w).tanh(),
                                 (x, layer.weight))
