"""``gradcheck``: finite differences against the analytical gradients, as ``torch.autograd``.

For each input that requires grad and each differentiable output, the Jacobian is built
twice: numerically, by central differences ``(f(x + eps) - f(x - eps)) / (2 eps)`` one
input element at a time, and analytically, one ``autograd.grad`` per output element. Both
are laid out as PyTorch's: one row per input element, one column per output element. A
mismatch raises ``GradcheckError`` (a ``RuntimeError``) naming the output and the input
and showing both Jacobians, or returns False with ``raise_exception=False``.

After the comparison, as in PyTorch: running backward twice must give the same gradients
(up to ``nondet_tol``), zero output gradients must give zero input gradients ("backward
not multiplied by grad_output"), and with ``check_undefined_grad`` outputs that get no
gradient at all must be handled. ``fast_mode`` compares ``v^T J u`` for random ``u``, ``v``
instead of whole Jacobians. ``check_forward_ad`` also checks the Jacobian built column by
column from Jacobian-vector products (``forward_products.py``: this checks the ops'
second-order formulas at first order). Batched checks need vmap over ``autograd.grad``
or over forward products, which minitorch_meta does not have: they raise
``NotImplementedError``.

``gradgradcheck`` is PyTorch's: ``gradcheck`` of the function that maps the inputs and
the output gradients to the input gradients, computed with ``create_graph=True``, so the
second-order gradients are checked against finite differences of first-order ones
(``check_fwd_over_rev`` checks them in forward mode too).
"""

from __future__ import annotations

import itertools

from ..caller_warnings import warn_at_caller
from .forward_products import ForwardProducts, jacobian_columns
from .grad_mode import enable_grad, no_grad
from .gradients import grad as _grad

_NO_BATCHED_FORWARD = ("check_batched_forward_grad=True is not supported by minitorch_meta's "
                       "gradcheck: it needs vmap over forward-mode products, which "
                       "minitorch_meta does not have; check_forward_ad=True checks the "
                       "forward-mode Jacobian itself")
_NO_BATCHED = ("check_batched_grad=True is not supported by minitorch_meta's gradcheck: it "
               "needs vmap over autograd.grad (is_grads_batched), which minitorch_meta does "
               "not have")
_NONDET = ("Backward is not reentrant, i.e., running backward with same input and "
           "grad_output multiple times gives different values, although analytical gradient "
           "matches numerical gradient.The tolerance for nondeterminism was {tol}.")
_BC_WARNING = ("Backwards compatibility: New undefined gradient support checking feature is "
               "enabled by default, but it may break existing callers of this function. If "
               "this is true for you, you can call this function with "
               "\"check_undefined_grad=False\" to disable the feature")
_FAST_NOTE = ("\nThe above quantities relating the numerical and analytical jacobians are "
              "computed \nin fast mode (v^T J u for random unit vectors u and v). Below, we "
              "recompute numerical and analytical jacobians in slow mode:\n\n")


class GradcheckError(RuntimeError):
    """Error raised by ``gradcheck`` when the gradients do not match."""


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of ``func(*inputs)`` against finite differences.

    ``inputs``: a tensor or a tuple of them (and other values, passed on); the float64
    ones with ``requires_grad=True`` are checked (other float dtypes warn, as in PyTorch:
    finite differences in float32 are rarely precise enough). ``func`` returns a tensor or
    a tuple of them. Returns True, or raises ``GradcheckError`` (False instead with
    ``raise_exception=False``).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to "
                             "be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    if check_batched_forward_grad:
        raise NotImplementedError(_NO_BATCHED_FORWARD)
    if check_batched_grad:
        raise NotImplementedError(_NO_BATCHED)
    settings = _Settings(eps, atol, rtol, nondet_tol, check_grad_dtypes, bool(masked))
    modes = [forward for forward, asked in ((False, check_backward_ad), (True, check_forward_ad))
             if asked]
    try:
        _check(func, _as_tuple(inputs), settings, check_undefined_grad, fast_mode, modes)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check the second-order gradients of ``func(*inputs)`` against finite differences
    (see the module). ``grad_outputs``: one per differentiable output, or None for random
    ones in [-1, 1) that require grad, as in PyTorch. Returns True, or raises
    ``GradcheckError`` (False instead with ``raise_exception=False``)."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(o) for o in _differentiable(func(*inputs)))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)

    def input_gradients(*args):
        arguments, output_grads = args[:-count], args[-count:]
        # grad mode on even where gradcheck evaluates without it (finite differences):
        # the gradients are what is evaluated
        with enable_grad():
            outputs = _differentiable(func(*arguments))
            wanted = tuple(a for a in arguments if _is_tensor(a) and a.requires_grad)
            grads = _grad(outputs, wanted, output_grads, create_graph=True,
                          allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(input_gradients, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _differentiable(outputs) -> tuple:
    return tuple(o for o in _as_tuple(outputs) if _is_tensor(o) and o.requires_grad)


def _random_grad_output(output):
    """A gradient for ``output``, uniform in [-1, 1), that requires grad."""
    from ..factories import rand_like

    return (rand_like(output) * 2 - 1).detach().requires_grad_()


class _Settings:
    """The tolerances and options of one gradcheck call."""

    def __init__(self, eps, atol, rtol, nondet_tol, check_grad_dtypes, masked):
        self.eps, self.atol, self.rtol, self.nondet_tol = eps, atol, rtol, nondet_tol
        self.check_grad_dtypes, self.masked = check_grad_dtypes, masked


def _check(func, inputs: tuple, settings: _Settings, check_undefined_grad: bool,
           fast_mode: bool, modes: list) -> None:
    """The comparisons in each mode of ``modes`` (False: backward, True: forward), then,
    when backward is checked, the checks that follow it."""
    diff_inputs = _checked_inputs(inputs)
    outputs = _as_tuple(func(*inputs))
    diff_outputs = [o for o in outputs if _is_tensor(o) and o.requires_grad]
    if not diff_outputs:
        _check_no_differentiable_outputs(func, inputs, diff_inputs, settings.eps)
        return
    compare = _compare_fast if fast_mode else _compare_slow
    for forward in modes:
        for i in range(len(diff_outputs)):
            compare(func, inputs, diff_inputs, outputs, i, settings, forward)
    if False not in modes:  # as PyTorch: the remaining checks are of backward mode
        return
    _check_zero_grad_outputs(diff_outputs, diff_inputs, settings.masked)
    if check_undefined_grad:
        _check_undefined_grads(func, inputs, diff_inputs)


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_tensor(x) -> bool:
    from ..tensor import Tensor

    return isinstance(x, Tensor)


def _checked_inputs(inputs: tuple) -> list:
    """The inputs that require grad; warns about those that are not float64."""
    import minitorch_meta as torch

    diff_inputs = []
    for index, value in enumerate(inputs):
        if not (_is_tensor(value) and value.requires_grad):
            continue
        if value.dtype != torch.float64:
            warn_at_caller(f"Input #{index} requires gradient and is not a double precision "
                           "floating point or complex. This check will likely fail if all the "
                           "inputs are not of double precision floating point or complex. ")
        if not all(stride > 0 or size <= 1 for stride, size in zip(value.stride(), value.shape)):
            # an ``expand`` view: nudging one element would move every element sharing it
            raise RuntimeError(f"The {index}th input has a dimension with stride 0. gradcheck "
                               "only supports inputs that are non-overlapping to be able to "
                               "compute the numerical gradients correctly. You should call "
                               ".contiguous on the input before passing it to gradcheck.")
        if not value._backend.stores_data:
            raise ValueError(f"gradcheck needs the values of its inputs, but input #{index} "
                             f"is on device '{value.device}', which keeps only shapes: "
                             "check on 'cpu' (or 'cuda')")
        diff_inputs.append(value)
    if not diff_inputs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return diff_inputs


# -- the numerical side -------------------------------------------------------------------
def _float_outputs(func, inputs) -> list:
    """``func``'s outputs (without a graph) flattened, None for what is not a float tensor."""
    with no_grad():
        outputs = _as_tuple(func(*inputs))
    return [o.detach().clone().reshape(-1) if _is_tensor(o) and o.is_floating_point()
            else None for o in outputs]


def _difference(func, inputs, x, write, eps) -> list:
    """Central differences of every output when ``write(x_view, step)`` moves ``x`` by
    ``+step`` then ``-step`` (and back): one flat tensor (or None) per output."""
    # ``.data`` shares x's storage (func sees the moved values) but not its version
    # counter: the moves must not look like in-place changes of what a graph saved.
    view = x.data
    original = view.clone()
    write(view, eps)
    plus = _float_outputs(func, inputs)
    view.copy_(original)
    write(view, -eps)
    minus = _float_outputs(func, inputs)
    view.copy_(original)  # exactly: x + eps - 2 eps + eps need not be x
    return [None if p is None else (p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _numerical_jacobians(func, inputs, x, positions, eps) -> list:
    """For input ``x``, the Jacobian ``(x.numel(), output.numel())`` of each output at
    ``positions``."""
    import minitorch_meta as torch

    columns = []  # per element of x: the change of each output
    for index in itertools.product(*(range(n) for n in x.shape)):
        def write(view, step, index=index):
            with no_grad():
                view[index] = view[index].item() + step

        columns.append(_difference(func, inputs, x, write, eps))
    if not columns:  # x has no elements
        sizes = [o.numel() if o is not None else 0 for o in _float_outputs(func, inputs)]
        return [torch.zeros((0, sizes[p]), dtype=x.dtype, device=x.device) for p in positions]
    return [torch.stack([c[p] for c in columns]).to(x.device) for p in positions]


def _differentiable_positions(outputs) -> list:
    return [k for k, o in enumerate(outputs) if _is_tensor(o) and o.requires_grad]


# -- the analytical side ------------------------------------------------------------------
def _analytical_jacobians(output, diff_inputs, settings: _Settings) -> list:
    """One Jacobian per input, ``(input.numel(), output.numel())``, from ``autograd.grad``
    row by row; computed twice, to check that backward is deterministic."""
    first = _jacobians_from_grad(output, diff_inputs, settings)
    second = _jacobians_from_grad(output, diff_inputs, settings)
    for a, b in zip(first, second):
        if a.numel() and (a - b).abs().max().item() > settings.nondet_tol:
            raise GradcheckError(_NONDET.format(tol=settings.nondet_tol))
    return first


def _forward_jacobians(output, diff_inputs) -> list:
    """One Jacobian per input, ``(input.numel(), output.numel())``, column by column
    from Jacobian-vector products (forward mode)."""
    columns = jacobian_columns(ForwardProducts([output], diff_inputs), diff_inputs)[0]
    return [j.reshape(output.numel(), x.numel()).t() for j, x in zip(columns, diff_inputs)]


def _jacobians_from_grad(output, diff_inputs, settings: _Settings) -> list:
    import minitorch_meta as torch

    columns = [[] for _ in diff_inputs]
    for element in range(output.numel()):
        grad_output = torch.zeros(output.numel(), dtype=output.dtype, device=output.device)
        grad_output[element] = 1.0
        grads = _grad(output, diff_inputs, grad_output.reshape(output.shape),
                      retain_graph=True, allow_unused=True)
        for column, x, g in zip(columns, diff_inputs, grads):
            column.append(_column(x, g, settings))
    return [torch.stack(c, dim=1) if c else
            torch.zeros((x.numel(), 0), dtype=x.dtype, device=x.device)
            for c, x in zip(columns, diff_inputs)]


def _column(x, g, settings: _Settings):
    """``g`` (the gradient of ``x`` for one output element) as a flat column of x's dtype."""
    import minitorch_meta as torch

    if g is None:
        return torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
    if tuple(g.shape) != tuple(x.shape):
        raise GradcheckError("Analytical gradient has incorrect size")
    if g.dtype != x.dtype and settings.check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    return g.reshape(-1).to(x.dtype)


# -- comparing ---------------------------------------------------------------------------
def _allclose(a, b, settings: _Settings) -> bool:
    import minitorch_meta as torch

    dtype = torch.promote_types(a.dtype, b.dtype)
    return torch.allclose(a.to(dtype), b.to(dtype).to(a.device), settings.rtol, settings.atol)


def _mismatch(i: int, j: int, numerical, analytical, forward: bool = False) -> str:
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _compare_slow(func, inputs, diff_inputs, outputs, i, settings: _Settings,
                  forward: bool) -> None:
    position = _differentiable_positions(outputs)[i]
    analytical = (_forward_jacobians(outputs[position], diff_inputs) if forward else
                  _analytical_jacobians(outputs[position], diff_inputs, settings))
    for j, x in enumerate(diff_inputs):
        numerical = _numerical_jacobians(func, inputs, x, [position], settings.eps)[0]
        if not _allclose(analytical[j], numerical, settings):
            raise GradcheckError(_mismatch(i, j, numerical, analytical[j], forward))


def _compare_fast(func, inputs, diff_inputs, outputs, i, settings: _Settings,
                  forward: bool) -> None:
    """``v^T J u`` numerically (a directional difference along ``u``) and analytically
    (backward: ``autograd.grad`` with ``v``, dotted with ``u``; forward: the product
    ``J u`` dotted with ``v``), per input; the analytical one twice, to check that it is
    deterministic."""
    import minitorch_meta as torch

    position = _differentiable_positions(outputs)[i]
    output = outputs[position]
    v = _unit(torch.randn(output.numel(), dtype=output.dtype, device=output.device))
    analytical_along = (_forward_along if forward else _backward_along)(output, diff_inputs,
                                                                        v, settings)
    for j, x in enumerate(diff_inputs):
        u = _unit(torch.randn(x.numel(), dtype=x.dtype, device=x.device))

        def write(view, step, u=u):
            with no_grad():
                view.add_(u.reshape(view.shape) * step)

        numerical = (_difference(func, inputs, x, write, settings.eps)[position]
                     .to(v.dtype) * v).sum()
        analytical, again = analytical_along(j, u)
        if (analytical - again).abs().item() > settings.nondet_tol:
            raise GradcheckError(_NONDET.format(tol=settings.nondet_tol))
        if not _allclose(analytical, numerical, settings):
            raise GradcheckError(_fast_mismatch(func, inputs, diff_inputs, outputs, i, j,
                                                numerical, analytical, settings, forward))


def _backward_along(output, diff_inputs, v, settings: _Settings):
    """``(j, u) -> (vᵀJ_j u, the same again)`` from two vector-Jacobian products."""
    vjps = [_grad(output, diff_inputs, v.reshape(output.shape), retain_graph=True,
                  allow_unused=True) for _ in range(2)]

    def along(j, u):
        return tuple(_column(diff_inputs[j], g[j], settings).to(u.dtype).dot(u) for g in vjps)

    return along


def _forward_along(output, diff_inputs, v, settings: _Settings):
    """``(j, u) -> (vᵀJ_j u, the same again)`` from two Jacobian-vector products."""
    products = ForwardProducts([output], diff_inputs)  # it records under grad mode itself

    def along(j, u):
        tangents = [None] * len(diff_inputs)
        tangents[j] = u.reshape(tuple(diff_inputs[j].shape))
        values = []
        for _ in range(2):
            (product,) = products(tangents)
            values.append(v.new_zeros(()) if product is None
                          else product.reshape(-1).to(v.dtype).dot(v))
        return tuple(values)

    return along


def _unit(v):
    return v / v.norm()


def _fast_mismatch(func, inputs, diff_inputs, outputs, i, j, numerical, analytical,
                   settings: _Settings, forward: bool) -> str:
    """The fast-mode message, with the whole Jacobians of the failing pair (slow mode)."""
    position = _differentiable_positions(outputs)[i]
    output = outputs[position]
    slow_numerical = _numerical_jacobians(func, inputs, diff_inputs[j], [position],
                                          settings.eps)[0]
    slow_analytical = (_forward_jacobians(output, diff_inputs) if forward else
                       _jacobians_from_grad(output, diff_inputs, settings))[j]
    difference = (slow_numerical.to(slow_analytical.dtype) - slow_analytical).abs()
    largest = difference.max().item() if difference.numel() else 0.0
    return (_mismatch(i, j, numerical.item(), analytical.item(), forward) + _FAST_NOTE
            + f"Numerical:\n {slow_numerical}\nAnalytical:\n{slow_analytical}\n\n"
            f"The max per-element difference (slow mode) is: {largest}.\n")


# -- the checks after the comparison -----------------------------------------------------
def _check_no_differentiable_outputs(func, inputs, diff_inputs, eps) -> None:
    """Without a differentiable output, the numerical gradients must all be zero."""
    outputs = _as_tuple(func(*inputs))
    floats = [k for k, o in enumerate(outputs) if _is_tensor(o) and o.is_floating_point()]
    for x in diff_inputs:
        for jacobian in _numerical_jacobians(func, inputs, x, floats, eps):
            if jacobian.ne(0).sum().item() > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _check_zero_grad_outputs(diff_outputs, diff_inputs, masked: bool) -> None:
    """Zero output gradients must give zero input gradients of the inputs' kind."""
    import minitorch_meta as torch

    grads = _grad(diff_outputs, diff_inputs, [torch.zeros_like(o) for o in diff_outputs],
                  allow_unused=True)
    for g, x in zip(grads, diff_inputs):
        if g is None:
            continue
        zero = torch.allclose(g, torch.zeros_like(g)) if masked else bool(g.eq(0).all())
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.device != x.device:
            raise GradcheckError("grad is incorrect device")
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grads(func, inputs, diff_inputs) -> None:
    """Backward must cope with outputs that get no gradient at all: every output at once,
    then (with several outputs) one at a time, the others getting zeros."""
    count = len([o for o in _as_tuple(func(*inputs)) if _is_tensor(o) and o.requires_grad])
    patterns = [[True] * count]
    if count > 1:
        patterns += [[k == undefined for k in range(count)] for undefined in range(count)]
    for pattern in patterns:
        outputs = [o for o in _as_tuple(func(*inputs)) if _is_tensor(o) and o.requires_grad]
        try:
            grads = _grads_with_undefined(outputs, pattern, diff_inputs)
        except RuntimeError as error:
            warn_at_caller(_BC_WARNING)
            raise GradcheckError("Expected backward function to handle undefined output "
                                 "grads. Please look at \"Notes about undefined output "
                                 "gradients\" in \"tools/autograd/derivatives.yaml\"") from error
        if any(g is not None and not bool(g.eq(0).all()) for g in grads):
            warn_at_caller(_BC_WARNING)
            raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                 "output grads are undefined or zero. Please look at \"Notes "
                                 "about undefined output gradients\" in "
                                 "\"tools/autograd/derivatives.yaml\"")


def _grads_with_undefined(outputs, undefined, diff_inputs) -> list:
    """The inputs' gradients when the outputs marked ``undefined`` send none (not even
    zeros: the engine is started from the others only) and the rest send zeros."""
    from ..ops.function import _edge
    from .engine import run
    from .gradients import _input_nodes

    roots = [(_edge(o), o._backend.full(tuple(o.shape), 0, o._dtype))
             for o, skip in zip(outputs, undefined) if not skip]
    nodes = _input_nodes(diff_inputs)
    captured = run(roots, False, targets=set(nodes))
    return [None if node not in captured else x._wrap(captured[node])
            for node, x in zip(nodes, diff_inputs)]


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
