"""``torch.autograd.functional``: derivatives of a whole function, ``jacobian`` and ``vjp``.

``func`` takes the inputs (a tensor or a tuple of them) and returns a tensor or a tuple of
them. The inputs are detached and made to require grad, ``func`` runs with grad enabled,
and ``autograd.grad`` gives the rows of the Jacobian (one per output element) or the
vector-Jacobian product. The results have PyTorch's structure: a tuple level for each of
the outputs and the inputs that was given as a tuple.

What needs gradients of gradients (``jvp``, ``hessian``, ``hvp``, ``vhp``, and
``create_graph=True``) or forward-mode AD (``strategy="forward-mode"``) raises
``NotImplementedError``: minitorch_meta's backward formulas run on arrays, not on
recorded tensors.
"""

from __future__ import annotations

from .grad_mode import enable_grad
from .gradients import grad as _grad

_NO_DOUBLE_BACKWARD = ("{what} is not supported by minitorch_meta: it needs double backward "
                       "(gradients of gradients, create_graph=True), and backward formulas "
                       "here run on arrays, not on recorded tensors")


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j``, a tensor
    of shape ``outputs[i].shape + inputs[j].shape``.

    ``strict``: an output independent of an input (or not differentiable) is an error
    instead of a zero Jacobian. ``vectorize`` changes only how PyTorch computes it; here
    the rows are computed one by one either way.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode". Hint: If your function has more outputs than '
                             'inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian isonly implemented for "
                                      "`vectorize=True`.")
        raise NotImplementedError("jacobian(strategy='forward-mode') is not supported by "
                                  "minitorch_meta: it needs forward-mode AD; use the default "
                                  "strategy='reverse-mode'")
    _refuse_create_graph(create_graph, "jacobian")
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, "jacobian")
    jacobians = tuple(_jacobians_of_output(i, output, inputs, strict)
                      for i, output in enumerate(outputs))
    if outputs_tuple and inputs_tuple:
        return jacobians
    if outputs_tuple:
        return tuple(row[0] for row in jacobians)
    return jacobians[0] if inputs_tuple else jacobians[0][0]


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``: the outputs (detached) and the vector-Jacobian product,
    shaped as the inputs. ``v`` (one tensor per output, of its shape) may be left out when
    ``func`` returns one tensor of one element."""
    _refuse_create_graph(create_graph, "vjp")
    inputs_tuple, inputs, outputs_tuple, outputs = _run(func, inputs, strict, "vjp")
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        v = (None,)
    else:
        _, v = _as_tuple(v, "v", "vjp")
        _validate_v(v, outputs, outputs_tuple)
    grads = _grads(outputs, inputs, v)
    result = []
    for j, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent "
                                   f"of input {j}. This is not allowed in strict mode.")
            g = x.detach().new_zeros(tuple(x.shape))
        result.append(g)
    outputs = tuple(o.detach() for o in outputs)
    return (outputs if outputs_tuple else outputs[0],
            tuple(result) if inputs_tuple else result[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """PyTorch's Jacobian-vector product (computed there by double backward): not
    supported here."""
    raise NotImplementedError(_NO_DOUBLE_BACKWARD.format(what="autograd.functional.jvp"))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """PyTorch's Hessian (the Jacobian of a gradient): not supported here."""
    raise NotImplementedError(_NO_DOUBLE_BACKWARD.format(what="autograd.functional.hessian"))


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """PyTorch's Hessian-vector product: not supported here."""
    raise NotImplementedError(_NO_DOUBLE_BACKWARD.format(what="autograd.functional.hvp"))


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """PyTorch's vector-Hessian product: not supported here."""
    raise NotImplementedError(_NO_DOUBLE_BACKWARD.format(what="autograd.functional.vhp"))


def _run(func, inputs, strict: bool, name: str):
    """``func`` called with grad on, on copies of ``inputs`` that require grad: whether the
    inputs and the outputs were tuples, and both as tuples."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepared(inputs)
    with enable_grad():
        outputs = func(*inputs)
    outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, strict)
    return inputs_tuple, inputs, outputs_tuple, outputs


def _refuse_create_graph(create_graph: bool, name: str) -> None:
    if create_graph:
        raise NotImplementedError(_NO_DOUBLE_BACKWARD.format(
            what=f"autograd.functional.{name}(create_graph=True)"))


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


def _prepared(inputs: tuple) -> tuple:
    """The inputs cut from any graph they belong to, each requiring grad."""
    return tuple(x.detach().requires_grad_(True) for x in inputs)


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


def _grads(outputs: tuple, inputs: tuple, grad_outputs: tuple) -> tuple:
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
                 allow_unused=True)


def _jacobians_of_output(i: int, output, inputs: tuple, strict: bool) -> tuple:
    """The Jacobian of ``output`` with respect to each input, row by row."""
    import minitorch_meta as torch

    rows = [[] for _ in inputs]
    for element in range(output.numel()):
        one_hot = output.detach().new_zeros(output.numel())
        one_hot[element] = 1.0
        grads = _grads((output,), inputs, (one_hot.reshape(tuple(output.shape)),))
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                g = x.detach().new_zeros(tuple(x.shape))
            rows[j].append(g)
    return tuple(torch.stack(r).reshape(tuple(output.shape) + tuple(x.shape)) if r else
                 x.detach().new_zeros(tuple(output.shape) + tuple(x.shape))
                 for r, x in zip(rows, inputs))


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
