"""Gradient transforms of ``torch.func``: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``
and ``hessian``, built on the reverse-mode engine (``autograd.grad``).

Each transform gives the differentiated arguments fresh leaves (detached copies that
require grad), runs the function with grad mode on, and asks the engine for the
gradients of its output with respect to those leaves. Results come back detached.

Under grad mode, when the result depends on tensors that require grad outside the
transform (``grad(f)(x)`` with ``x`` requiring grad, a module's parameters that ``f``
closes over, or an outer transform's leaves: ``grad(grad(f))``), the argument is joined to
its graph instead (a view of it) and the gradients are computed with
``create_graph=True``: they come back differentiable with respect to those tensors, as in
PyTorch. Under ``no_grad()`` the results are plain tensors.
"""

from __future__ import annotations

import functools

from ..autograd import enable_grad, is_grad_enabled
from ..autograd import grad as autograd_grad
from . import pytree
from .transform_arguments import (
    aux_tensors,
    checked_argnums,
    depends_on_outer_graph,
    detached,
    is_tensor,
    kept,
    output_tensors,
    split_aux,
    structured,
    with_fresh_leaves,
)


def grad(func, argnums=0, has_aux: bool = False):
    """``func``'s gradient with respect to its argument(s) ``argnums``: a function taking
    ``func``'s arguments. ``func`` must return a 0-d tensor (with ``has_aux``, a pair
    ``(output, aux)``; the gradient function then returns ``(gradient, aux)``). An argument
    may be a tuple/list/dict of tensors: its gradient has the same structure.
    """
    transform = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def gradient(*args, **kwargs):
        gradients, value = transform(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients

    return gradient


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """As ``grad``, returning ``(gradient, value)`` (with ``has_aux``,
    ``(gradient, (value, aux))``)."""

    @functools.wraps(func)
    def gradient_and_value(*args, **kwargs):
        caller = "grad_and_value(f)(*args)"
        outer_grad_mode = is_grad_enabled()
        positions = checked_argnums(argnums, len(args))
        args, leaves = with_fresh_leaves(args, positions, caller, outer_grad_mode)
        with enable_grad():
            output = func(*args, **kwargs)
        output, aux = split_aux(output, has_aux, caller)
        if not is_tensor(output):
            raise RuntimeError(f"{caller}: Expected f(*args) to return a Tensor, got "
                               f"{type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{caller}: Expected f(*args) to return a scalar Tensor, got "
                               f"tensor with {output.dim()} dims. Maybe you wanted to use the "
                               "vjp or jacrev APIs instead?")
        outer = depends_on_outer_graph([output, *aux_tensors(aux, has_aux)], leaves,
                                        outer_grad_mode)
        flat = _gradients([output], [None], [leaf for tree in leaves for leaf in tree[0]],
                          create_graph=outer)
        gradients = structured(flat, leaves, argnums)
        finish = kept if outer else detached
        return finish(gradients), ((finish(output), finish(aux)) if has_aux
                                   else finish(output))

    return gradient_and_value


def vjp(func, *primals, has_aux: bool = False):
    """``func(*primals)`` and a function that maps cotangents (one per output, in the
    output's structure) to the vector-Jacobian products, one per primal:
    ``output, vjp_fn = vjp(f, x); (gx,) = vjp_fn(v)``. With ``has_aux``, ``func`` returns
    ``(output, aux)`` and ``vjp`` returns ``(output, vjp_fn, aux)``."""
    caller = "vjp(f, *primals)"
    outer_grad_mode = is_grad_enabled()
    primals, leaves = with_fresh_leaves(primals, tuple(range(len(primals))), caller,
                                         outer_grad_mode)
    with enable_grad():
        output = func(*primals)
    output, aux = split_aux(output, has_aux, caller)
    outputs, output_spec = output_tensors(output, caller)
    outer = depends_on_outer_graph(outputs + aux_tensors(aux, has_aux), leaves,
                                    outer_grad_mode)
    inputs = [leaf for tree in leaves for leaf in tree[0]]

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph=None):
        # None: differentiable when the result depends on tensors outside the transform,
        # or when a cotangent requires grad (PyTorch: create_graph follows grad mode)
        flat = _cotangents(cotangents, outputs, output_spec)
        if create_graph is None:
            create_graph = is_grad_enabled() and (
                outer or any(c is not None and c.requires_grad for c in flat))
        grads = _gradients(outputs, flat, inputs, retain_graph=retain_graph,
                           create_graph=create_graph)
        finish = kept if create_graph else detached
        return finish(structured(grads, leaves, tuple(range(len(leaves)))))

    finish = kept if outer else detached
    result = pytree.unflatten([finish(o) for o in outputs], output_spec)
    return (result, vjp_fn, finish(aux)) if has_aux else (result, vjp_fn)


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None):
    """``func``'s Jacobian with respect to its argument(s) ``argnums``, by reverse mode: one
    backward pass per output element. For an output of shape ``S`` and an input of shape
    ``T`` the Jacobian has shape ``S + T``; outputs and inputs may be tuples/lists/dicts
    of tensors (the Jacobian nests the inputs' structure inside the outputs'). With
    ``has_aux`` the function returns ``(jacobian, aux)``. ``chunk_size`` is accepted (the
    passes run one at a time whatever its value).
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def jacobian(*args, **kwargs):
        positions = checked_argnums(argnums, len(args))
        chosen = positions if isinstance(positions, tuple) else (positions,)

        def of_chosen(*primals):
            full = list(args)
            for position, primal in zip(chosen, primals):
                full[position] = primal
            return func(*full, **kwargs)

        primals = [args[p] for p in chosen]
        result = vjp(of_chosen, *primals, has_aux=has_aux)
        output, vjp_fn = result[0], result[1]
        outputs, output_spec = pytree.flatten(output)
        rows = [_jacobian_of(o, index, outputs, vjp_fn) for index, o in enumerate(outputs)]
        per_output = [r if isinstance(positions, tuple) else r[0] for r in rows]
        jac = pytree.unflatten(per_output, output_spec)
        return (jac, result[2]) if has_aux else jac

    return jacobian


def hessian(func, argnums=0):
    """``func``'s Hessian with respect to its argument(s) ``argnums``: the Jacobian of its
    Jacobian, both by reverse mode (PyTorch takes the outer one by forward mode; the
    values and structure are the same)."""
    return jacrev(jacrev(func, argnums), argnums)


def _jacobian_of(output, index: int, outputs: list, vjp_fn) -> tuple:
    """The Jacobian of ``outputs[index]``, one tree per primal: ``vjp_fn`` with each
    one-hot cotangent of that output (zeros for the others), the rows stacked."""
    from ..factories import eye
    from ..functions import stack

    n = output.numel()
    if n == 0:
        empty = vjp_fn(_cotangent_tree(outputs, index, None))
        return tuple(pytree.map_leaves(lambda g: _empty_jacobian(output, g), tree)
                     for tree in empty)
    basis = eye(n, dtype=output.dtype, device=output.device)
    rows = []
    for k in range(n):
        one_hot = basis[k].reshape(output.shape)
        rows.append(vjp_fn(_cotangent_tree(outputs, index, one_hot)))
    per_primal = []
    for p, tree in enumerate(rows[0]):
        leaves, spec = pytree.flatten(tree)
        stacked = [stack([pytree.flatten(r[p])[0][i] for r in rows]).reshape(
            tuple(output.shape) + tuple(leaf.shape)) for i, leaf in enumerate(leaves)]
        per_primal.append(pytree.unflatten(stacked, spec))
    return tuple(per_primal)


def _empty_jacobian(output, gradient):
    from ..factories import zeros

    return zeros(tuple(output.shape) + tuple(gradient.shape), dtype=gradient.dtype,
                 device=gradient.device)


def _cotangent_tree(outputs: list, index: int, one_hot):
    """Cotangents for every output, zeros but ``one_hot`` at ``index`` (a list, as
    ``_cotangents`` reads a flat list against the outputs)."""
    from ..factories import zeros_like

    return _FlatCotangents([one_hot if i == index and one_hot is not None else zeros_like(o)
                            for i, o in enumerate(outputs)])


class _FlatCotangents(list):
    """Cotangents already flat, in the outputs' order (``jacrev``'s internal calls)."""


def _cotangents(cotangents, outputs: list, spec) -> list:
    """The cotangents as a flat list checked against the outputs (structure, shapes)."""
    if isinstance(cotangents, _FlatCotangents):
        return list(cotangents)
    flat, given = pytree.flatten(cotangents)
    if given != spec:
        raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                           f"structure of outputs to the function. cotangents: {given}, "
                           f"primal output: {spec}")
    for index, (cotangent, output) in enumerate(zip(flat, outputs)):
        if not is_tensor(cotangent):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(cotangent).__name__}")
        if tuple(cotangent.shape) != tuple(output.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of "
                               f"{cotangent.shape} and output[{index}] has a shape of "
                               f"{output.shape}.")
    return flat


def _gradients(outputs: list, cotangents: list, inputs: list, retain_graph=True,
               create_graph: bool = False) -> list:
    """The gradients of ``outputs`` (weighted by ``cotangents``, None meaning 1) with
    respect to ``inputs``; zeros for an input the outputs do not depend on."""
    from ..factories import zeros_like

    used = [(o, c if c is None else c.to(o.dtype)) for o, c in zip(outputs, cotangents)
            if o.requires_grad]
    if not used or not inputs:
        return [zeros_like(i).detach() for i in inputs]
    return list(autograd_grad([o for o, _ in used], inputs,
                              grad_outputs=[c for _, c in used], retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=True,
                              materialize_grads=True))


