"""The forward-mode transforms of ``torch.func``: ``jvp``, ``jacfwd`` and ``linearize``.

Their products ``J·t`` come from ``autograd/forward_products.py`` (the double-backward
trick on the reverse-mode engine): the values are forward mode's, each product costs one
backward pass, and an op without a second-order formula raises ``NotImplementedError``
naming it. The arguments are handled as ``grad_transforms.py`` handles them: fresh leaves,
joined to the outer graph when the results must be differentiable (``grad(jvp(...))``,
``jacfwd(jacrev(f))``, tangents that require grad), detached results otherwise.
"""

from __future__ import annotations

import functools

from ..autograd import enable_grad, is_grad_enabled
from ..autograd.forward_products import ForwardProducts, jacobian_columns
from . import pytree, vmap_randomness
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


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J·tangents)``: the output and the Jacobian-vector product, shaped
    as the output. ``primals`` is a tuple of arguments (each a tensor or a tuple/list/dict
    of them) and ``tangents`` has the same structure and shapes. With ``has_aux``,
    ``func`` returns ``(output, aux)`` and ``jvp`` returns ``(output, jvp_out, aux)``.
    ``strict`` is accepted, as PyTorch accepts it (it changes nothing there either)."""
    caller = "jvp(f, primals, tangents)"
    _check_primals(primals, tangents, caller)
    outer_grad_mode = is_grad_enabled()
    primals, leaves = with_fresh_leaves(primals, tuple(range(len(primals))), caller,
                                         outer_grad_mode)
    inputs = [leaf for tree in leaves for leaf in tree[0]]
    flat_tangents = _checked_tangents(pytree.flatten(tangents)[0], inputs, _jvp_size_error)
    with enable_grad():
        output = func(*primals)
    output, aux = split_aux(output, has_aux, caller)
    outputs, spec = output_tensors(output, caller)
    outer = depends_on_outer_graph(outputs + aux_tensors(aux, has_aux), leaves,
                                    outer_grad_mode)
    differentiable = outer_grad_mode and (outer or any(t.requires_grad for t in flat_tangents))
    products = ForwardProducts(outputs, inputs)(flat_tangents, differentiable)
    finish = kept if differentiable else detached
    result = (finish(pytree.unflatten(outputs, spec)),
              finish(pytree.unflatten(_zeros_where_none(products, outputs), spec)))
    return result + (finish(aux),) if has_aux else result


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` gives ``J·tangents`` at these
    primals (one tangent per primal, of its structure and shapes) without running
    ``func`` again. The recorded graph is kept while ``jvp_fn`` lives."""
    caller = "linearize(f, *primals)"
    outer_grad_mode = is_grad_enabled()
    primals, leaves = with_fresh_leaves(primals, tuple(range(len(primals))), caller,
                                         outer_grad_mode)
    inputs = [leaf for tree in leaves for leaf in tree[0]]
    with enable_grad():
        output = func(*primals)
    outputs, spec = output_tensors(output, caller)
    outer = depends_on_outer_graph(outputs, leaves, outer_grad_mode)
    products = ForwardProducts(outputs, inputs)
    primal_spec = pytree.flatten(tuple(pytree.unflatten(fresh, s) for fresh, s in leaves))[1]

    def jvp_fn(*tangents):
        flat, given = pytree.flatten(tangents)
        if given != primal_spec:
            raise RuntimeError(f"{caller}: expected the tangents to have the structure of the "
                               f"primals: {primal_spec}, got {given}")
        flat = _checked_tangents(flat, inputs, _linearize_size_error)
        differentiable = is_grad_enabled() and (outer or any(t.requires_grad for t in flat))
        finish = kept if differentiable else detached
        return finish(pytree.unflatten(_zeros_where_none(products(flat, differentiable),
                                                         outputs), spec))

    finish = kept if outer else detached
    return finish(pytree.unflatten(outputs, spec)), jvp_fn


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """``func``'s Jacobian with respect to its argument(s) ``argnums``, column by column
    (one Jacobian-vector product per input element: cheaper than ``jacrev`` when the
    inputs are fewer than the outputs). Shapes and structure as ``jacrev``'s: for an
    output of shape ``S`` and an input of shape ``T``, ``S + T``. With ``has_aux`` the
    function returns ``(jacobian, aux)``.

    ``randomness`` (PyTorch runs ``func`` under ``vmap``): ``'error'`` refuses a random
    op in ``func``; ``'same'`` and ``'different'`` allow it (``func`` runs once here, so
    every column sees the same draws either way)."""
    vmap_randomness.check_mode(randomness)

    @functools.wraps(func)
    def jacobian(*args, **kwargs):
        caller = "jacfwd(f, argnums)(*args)"
        outer_grad_mode = is_grad_enabled()
        positions = checked_argnums(argnums, len(args))
        args, leaves = with_fresh_leaves(args, positions, caller, outer_grad_mode)
        with enable_grad(), vmap_randomness.randomness_for_element(randomness, {}):
            output = func(*args, **kwargs)
        output, aux = split_aux(output, has_aux, caller)
        outputs, spec = output_tensors(output, caller)
        outer = depends_on_outer_graph(outputs + aux_tensors(aux, has_aux), leaves,
                                        outer_grad_mode)
        inputs = [leaf for tree in leaves for leaf in tree[0]]
        columns = jacobian_columns(ForwardProducts(outputs, inputs), inputs, outer)
        finish = kept if outer else detached
        jac = finish(pytree.unflatten([structured(row, leaves, positions) for row in columns],
                                      spec))
        return (jac, finish(aux)) if has_aux else jac

    return jacobian


def _check_primals(primals, tangents, caller: str) -> None:
    """PyTorch's checks of ``jvp``'s arguments (its words): tuples of the same structure,
    at least one tensor, floating-point primals."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{caller}: Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    primal_leaves, primal_spec = pytree.flatten(primals)
    tangent_spec = pytree.flatten(tangents)[1]
    if not isinstance(tangents, tuple) or primal_spec != tangent_spec:
        raise RuntimeError(f"{caller}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure {primal_spec} "
                           f"and tangents with structure {tangent_spec}")
    if not primal_leaves:
        raise RuntimeError(f"{caller}: Expected primals to contain at least one Tensor.")
    for primal in primal_leaves:
        if is_tensor(primal) and not primal.is_floating_point():
            raise ValueError("Expected primal to be floating point or complex, but got: "
                             f"{primal.dtype}")


def _checked_tangents(tangents: list, inputs: list, size_error) -> list:
    """The tangents, one per input, checked to be tensors of the inputs' shapes
    (``size_error(index, tangent, primal)`` words a mismatch)."""
    for index, (tangent, primal) in enumerate(zip(tangents, inputs)):
        if not is_tensor(tangent):
            raise ValueError(f"Thing passed to transform API must be Tensor, got "
                             f"{type(tangent)}")
        if tuple(tangent.shape) != tuple(primal.shape):
            raise RuntimeError(size_error(index, tangent, primal))
    return tangents


def _jvp_size_error(index: int, tangent, primal) -> str:
    return ("Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(primal.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")


def _linearize_size_error(index: int, tangent, primal) -> str:
    return (f"tangent:{index} with shape {tangent.shape} in flattened pytree doesn't match "
            f"the shape {primal.shape} of the corresponding primal.")


def _zeros_where_none(products: list, outputs: list) -> list:
    """An output that does not depend on the primals has a zero product."""
    return [p if p is not None else o.detach().new_zeros(tuple(o.shape))
            for p, o in zip(products, outputs)]
