"""How the ``torch.func`` transforms treat their arguments and results, shared by the
reverse-mode (``grad_transforms.py``) and forward-mode (``forward_transforms.py``) ones:
``argnums``, the fresh leaves the function is differentiated by, ``has_aux`` outputs, and
whether the results stay joined to an outer graph (nested transforms, closed-over
parameters) or come back detached.
"""

from __future__ import annotations

from ..int_arguments import is_int
from . import pytree


def checked_argnums(argnums, count: int):
    """``argnums`` checked against ``count`` positional arguments, negatives made
    positive (an int stays an int, a tuple a tuple)."""
    if is_int(argnums):
        return checked_argnum(argnums, count)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    for argnum in argnums:
        if not isinstance(argnum, int):
            raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(checked_argnum(a, count) for a in argnums)


def checked_argnum(argnum: int, count: int) -> int:
    if not -count <= argnum < count:
        raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")
    return argnum % count


def is_tensor(value) -> bool:
    from ..tensor import Tensor

    return isinstance(value, Tensor)


def with_fresh_leaves(args: tuple, positions, caller: str, outer_grad_mode: bool):
    """``args`` with the trees at ``positions`` replaced by fresh leaves; returns the new
    args and, per position, ``(leaves, spec)``."""
    positions = positions if isinstance(positions, tuple) else (positions,)
    args, trees = list(args), []
    for position in positions:
        leaves, spec = pytree.flatten(args[position])
        fresh = [fresh_leaf(leaf, caller, outer_grad_mode) for leaf in leaves]
        args[position] = pytree.unflatten(fresh, spec)
        trees.append((fresh, spec))
    return tuple(args), trees


def fresh_leaf(value, caller: str, outer_grad_mode: bool):
    """The tensor the transform differentiates by: a detached copy that requires grad, or,
    for an input that requires grad under grad mode, a view joined to its graph (so the
    result can be differentiated with respect to the input, as in PyTorch)."""
    if not is_tensor(value):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    if not value.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if outer_grad_mode and value.requires_grad:
        return value.view_as(value)
    return value.detach().requires_grad_()


def split_aux(output, has_aux: bool, caller: str) -> tuple:
    if not has_aux:
        return output, None
    if not isinstance(output, tuple) or len(output) != 2:
        raise RuntimeError(f"{caller}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return output


def aux_tensors(aux, has_aux: bool) -> list:
    """The tensors of ``aux`` (none without ``has_aux``); aux must hold only tensors."""
    if not has_aux:
        return []
    leaves = pytree.flatten(aux)[0]
    for leaf in leaves:
        if not is_tensor(leaf):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return leaves


def output_tensors(output, caller: str) -> tuple:
    outputs, spec = pytree.flatten(output)
    for leaf in outputs:
        if not is_tensor(leaf):
            raise RuntimeError(f"{caller}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(leaf)}")
    return outputs, spec


def depends_on_outer_graph(tensors: list, leaves: list, outer_grad_mode: bool) -> bool:
    """Whether, under grad mode, ``tensors`` were computed from a tensor that requires grad
    other than the transform's own fresh leaves (an input joined to its graph, a tensor
    the function closes over such as a module's parameter): the results must then be
    differentiable with respect to it, as PyTorch's are."""
    if not outer_grad_mode:
        return False
    own = {id(leaf) for tree in leaves for leaf in tree[0] if leaf.grad_fn is None}
    stack = [t.grad_fn for t in tensors if t.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own:
            return True
        stack.extend(node._next_nodes)
    return False


def structured(flat: list, leaves: list, argnums):
    """The flat gradients in the structure of the differentiated arguments: one tree for
    an int ``argnums``, a tuple of trees for a tuple."""
    trees, start = [], 0
    for fresh, spec in leaves:
        trees.append(pytree.unflatten(flat[start:start + len(fresh)], spec))
        start += len(fresh)
    return tuple(trees) if isinstance(argnums, tuple) else trees[0]


def detached(tree):
    return pytree.map_leaves(lambda t: t.detach() if is_tensor(t) else t, tree)


def kept(tree):
    """A result left joined to its graph (see the module)."""
    return tree
