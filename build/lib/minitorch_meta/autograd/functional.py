"""``torch.autograd.functional``: derivatives of a whole function: ``jacobian``, ``vjp``,
``jvp``, ``hessian``, ``hvp`` and ``vhp``.

``func`` takes the inputs (a tensor or a tuple of them) and returns a tensor or a tuple of
them. The inputs are detached and made to require grad (with ``create_graph=True``, an
input that requires grad stays joined to its graph, so the result is differentiable with
respect to it), ``func`` runs with grad enabled, and ``autograd.grad`` gives the rows of
the Jacobian (one per output element) or the vector-Jacobian product. The results have
PyTorch's structure: a tuple level for each of the outputs and the inputs that was given as
a tuple. ``jvp`` and ``hvp`` use PyTorch's double-backward trick (the vector-Jacobian
product of a dummy cotangent, differentiated with respect to that cotangent); ``hessian``
is the Jacobian of the gradient. ``strategy="forward-mode"`` builds the Jacobian column by
column from Jacobian-vector products (``forward_products.py``), with PyTorch's refusals.
"""

from __future__ import annotations

import contextlib

from .forward_products import ForwardProducts, jacobian_columns
from .grad_mode import enable_grad
from .gradients import grad as _grad

_V_NONE = ("The vector v can only be None if the input to the user-provided function is a "
           "single Tensor with a single element.")  # PyTorch's words


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j``, a tensor
    of shape ``outputs[i].shape + inputs[j].shape``.

    ``strict``: an output independent of an input (or not differentiable) is an error
    instead of a zero Jacobian. ``vectorize`` changes only how PyTorch computes it; here
    the rows (``strategy="reverse-mode"``, one backward pass per output element) or the
    columns (``"forward-mode"``, one Jacobian-vector product per input element) are
    computed one by one either way.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode". Hint: If your function has more outputs than '
                             'inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        _check_forward_mode(strict, create_graph, vectorize)
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, "jacobian",
                                                        create_graph)
    if strategy == "forward-mode":
        # lists, not tuples: PyTorch's forward-mode results are lists (a quirk users see)
        columns = jacobian_columns(ForwardProducts(outputs, inputs), inputs)
        jacobians = [[j.detach() for j in row] for row in columns]
    else:
        with enable_grad() if create_graph else contextlib.nullcontext():
            jacobians = tuple(_jacobians_of_output(i, output, inputs, strict, create_graph)
                              for i, output in enumerate(outputs))
    if outputs_tuple and inputs_tuple:
        return jacobians
    if outputs_tuple:
        return tuple(row[0] for row in jacobians)
    return jacobians[0] if inputs_tuple else jacobians[0][0]


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``: the outputs (detached) and the vector-Jacobian product,
    shaped as the inputs. ``v`` (one tensor per output, of its shape) may be left out when
    ``func`` returns one tensor of one element. With ``create_graph`` both are
    differentiable."""
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, "vjp",
                                                        create_graph)
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        v = (None,)
    else:
        _, v = _as_tuple(v, "v", "vjp")
        _validate_v(v, outputs, outputs_tuple)
    grads = _grads(outputs, inputs, v, create_graph)
    result = _filled(grads, inputs, strict, "The output of the user-provided function is "
                                            "independent of input {j}. This is not allowed "
                                            "in strict mode.")
    return (_finished(outputs, outputs_tuple, create_graph),
            _finished(result, inputs_tuple, create_graph))


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), J v)``: the outputs and the Jacobian-vector product, shaped as the
    outputs. ``v`` (one tensor per input, of its shape) may be left out when the input is
    one tensor of one element. Computed by PyTorch's double-backward trick."""
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, "jvp",
                                                        create_graph)
    v = _checked_v(v, inputs, inputs_tuple, "jvp")
    grads = ForwardProducts(outputs, inputs)(v, create_graph)
    result = _filled(grads, outputs, strict, "The gradient with respect to the output {j} "
                                             "is independent of the inputs of the "
                                             "user-provided function. This is not allowed in "
                                             "strict mode.")
    return (_finished(outputs, outputs_tuple, create_graph),
            _finished(result, outputs_tuple, create_graph))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of ``func`` (which returns one tensor of one element) at ``inputs``: for
    inputs ``i`` and ``j``, a tensor of shape ``inputs[i].shape + inputs[j].shape`` (one
    tuple level per tuple of inputs, twice). The Jacobian of the gradient, as in PyTorch."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_function(*args):
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*args):
        return jacobian(scalar_function, args, create_graph=True, strict=strict)

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    if inputs_tuple:
        return result
    return result[0][0]


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T H)``: the output (one element) and the vector-Hessian product,
    shaped as the inputs."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), H v)``: the output (one element) and the Hessian-vector product,
    shaped as the inputs. The Hessian of a twice-differentiable function is symmetric, so
    this is ``v^T H`` (PyTorch computes the same product by a double-backward trick)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func, inputs, v, create_graph: bool, strict: bool, name: str):
    """``vhp``/``hvp``: the gradient (with a graph), then its vector-Jacobian product."""
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, name,
                                                        create_graph)
    v = _checked_v(v, inputs, inputs_tuple, name)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    with enable_grad():
        gradient = _grads(outputs, inputs, (None,), create_graph=True)
        pairs = [(g, w, x) for g, w, x in zip(gradient, v, inputs)
                 if g is not None and g.requires_grad]
        grads = (None,) * len(inputs) if not pairs else _grad(
            [g for g, _, _ in pairs], inputs, [w for _, w, _ in pairs],
            create_graph=create_graph, allow_unused=True)
    result = _filled(grads, inputs, strict, "The Hessian of the user-provided function with "
                                            "respect to input {j} is independent of the "
                                            "input. This is not allowed in strict mode.")
    return (_finished(outputs, False, create_graph),
            _finished(result, inputs_tuple, create_graph))


def _check_forward_mode(strict: bool, create_graph: bool, vectorize: bool) -> None:
    """PyTorch's refusals for ``strategy="forward-mode"`` (its words)."""
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and '
                           '`strategy="forward-mode"` are not supported together (yet). '
                           'Please either set `strict=False` or `strategy="reverse-mode"`.')
    if create_graph:
        raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` '
                                  'and `strategy="forward-mode"` are not supported together '
                                  '(yet). Please either set `create_graph=False` or '
                                  '`strategy="reverse-mode"`.')


def _checked_v(v, inputs: tuple, inputs_tuple: bool, name: str) -> tuple:
    """``v`` as a tuple, one tensor per input of its shape (ones for a one-element input
    when left out)."""
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(_V_NONE)
        return (inputs[0].detach().new_ones(tuple(inputs[0].shape)),)
    _, v = _as_tuple(v, "v", name)
    if len(v) != len(inputs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(inputs)} but got "
                           f"{len(v)}.")
    for index, (vector, x) in enumerate(zip(v, inputs)):
        if tuple(vector.shape) != tuple(x.shape):
            entry = f"Entry {index} in v" if inputs_tuple else "v"
            raise RuntimeError(f"{entry} has invalid size: should be {x.size()} but got "
                               f"{vector.size()}.")
    return v


def _filled(grads, like: tuple, strict: bool, independent: str) -> list:
    """``grads`` with zeros of ``like``'s shapes where none arrived (an error in strict
    mode, with ``independent`` formatted with the position ``j``)."""
    result = []
    for j, (g, x) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(independent.format(j=j))
            g = x.detach().new_zeros(tuple(x.shape))
        result.append(g)
    return result


def _finished(tensors, as_tuple: bool, create_graph: bool):
    """The results as PyTorch returns them: detached unless ``create_graph``, a tuple or
    the only element."""
    tensors = tuple(t if create_graph else t.detach() for t in tensors)
    return tensors if as_tuple else tensors[0]


def _run(func, inputs, strict: bool, name: str, create_graph: bool = False):
    """``func`` called with grad on, on copies of ``inputs`` that require grad: whether the
    inputs and the outputs were tuples, and both as tuples."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepared(inputs, create_graph)
    with enable_grad():
        outputs = func(*inputs)
    outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, strict)
    return inputs_tuple, inputs, outputs_tuple, outputs


def _as_tuple(value, what: str, name: str) -> tuple:
    """``(given as a tuple?, the tensors as a tuple)``, checking that they are tensors."""
    from ..tensor import Tensor

    if isinstance(value, Tensor):
        return False, (value,)
    if not isinstance(value, tuple):
        raise TypeError(f"The {what} given to {name} must be either a Tensor or a tuple of "
                        f"Tensors but the given {what} has type {type(value)}.")
    for index, element in enumerate(value):
        if not isinstance(element, Tensor):
            raise TypeError(f"The {what} given to {name} must be either a Tensor or a tuple "
                            f"of Tensors but the value at index {index} has type "
                            f"{type(element)}.")
    return True, value


def _prepared(inputs: tuple, create_graph: bool = False) -> tuple:
    """The inputs cut from any graph they belong to, each requiring grad; with
    ``create_graph``, an input that requires grad stays joined to its graph (a view of
    it, as in PyTorch), so the results are differentiable with respect to it."""
    with enable_grad():
        return tuple(x.view_as(x) if create_graph and x.requires_grad
                     else x.detach().requires_grad_(True) for x in inputs)


def _check_requires_grad(outputs: tuple, strict: bool) -> None:
    if not strict:
        return
    for index, output in enumerate(outputs):
        if not output.requires_grad:
            raise RuntimeError(f"Output {index} of the user-provided function does not "
                               "require gradients. The outputs must be computed in a "
                               "differentiable manner from the input when running in "
                               "strict mode.")


def _validate_v(v: tuple, outputs: tuple, outputs_tuple: bool) -> None:
    if len(v) != len(outputs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got "
                           f"{len(v)}.")
    for index, (vector, output) in enumerate(zip(v, outputs)):
        if tuple(vector.shape) != tuple(output.shape):
            entry = f"Entry {index} in v" if outputs_tuple else "v"
            raise RuntimeError(f"{entry} has invalid size: should be {output.size()} but got "
                               f"{vector.size()}.")


def _grads(outputs: tuple, inputs: tuple, grad_outputs: tuple,
           create_graph: bool = False) -> tuple:
    """``autograd.grad`` over the outputs that require grad (None for every input when
    none does)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    if any(g is None for _, g in pairs):
        grad_outputs = None  # a one-element output and no v: a gradient of one
    else:
        grad_outputs = [g for _, g in pairs]
    return _grad([o for o, _ in pairs], inputs, grad_outputs, retain_graph=True,
                 create_graph=create_graph, allow_unused=True)


def _jacobians_of_output(i: int, output, inputs: tuple, strict: bool,
                         create_graph: bool = False) -> tuple:
    """The Jacobian of ``output`` with respect to each input, row by row."""
    import minitorch_meta as torch

    rows = [[] for _ in inputs]
    for element in range(output.numel()):
        one_hot = output.detach().new_zeros(output.numel())
        one_hot[element] = 1.0
        grads = _grads((output,), inputs, (one_hot.reshape(tuple(output.shape)),),
                       create_graph)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                g = x.detach().new_zeros(tuple(x.shape))
            rows[j].append(g)
    jacobians = tuple(torch.stack(r).reshape(tuple(output.shape) + tuple(x.shape)) if r else
                      x.detach().new_zeros(tuple(output.shape) + tuple(x.shape))
                      for r, x in zip(rows, inputs))
    return jacobians if create_graph else tuple(j.detach() for j in jacobians)


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
