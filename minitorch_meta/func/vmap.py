"""``vmap``: map a function over a dimension of its inputs, as ``torch.func.vmap``.

PyTorch batches most ops with batching rules and falls back to a loop over the batch for
the rest; here every op takes that fallback: the mapped inputs are split along their
``in_dims`` (one ``unbind`` each, so gradients flow back), the function runs once per
element in Python, and each output is stacked along its ``out_dims``. The results and
the errors for inconsistent inputs are PyTorch's; the cost is one call per element.
"""

from __future__ import annotations

import functools

from ..int_arguments import is_int
from . import pytree
from .vmap_randomness import check_mode, randomness_for_element, same_seeds


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """A function that runs ``func`` on each slice of its inputs along ``in_dims`` and
    stacks the results along ``out_dims``.

    ``in_dims``: an int (every argument), or a tuple with one entry per positional argument,
    each an int, None (not mapped: passed whole to every call) or, for a tuple/list/dict
    argument, a matching structure of those. Keyword arguments are never mapped.
    ``out_dims``: an int, None (an output the same for every element, returned once) or a
    structure matching the outputs. ``randomness``: ``'error'`` (a random draw inside
    raises), ``'different'`` or ``'same'`` (every element draws the same numbers).
    ``chunk_size`` is accepted (the calls run one at a time whatever its value).

    Shape:
        an input of shape ``(B, *S)`` mapped at dim 0 gives ``func`` slices of shape ``S``;
        an output of shape ``T`` per element becomes ``(B, *T)`` at ``out_dims=0``.
    """
    check_mode(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")

    @functools.wraps(func)
    def mapped(*args, **kwargs):
        name = getattr(func, "__name__", repr(func))
        slices, size = _split_inputs(args, in_dims, name)
        seeds = same_seeds() if randomness == "same" else {}
        if size == 0:
            return _empty_batch(func, args, in_dims, kwargs, out_dims, name)
        results = []
        for element in range(size):
            with randomness_for_element(randomness, seeds):
                results.append(func(*slices(element), **kwargs))
        return _stack_outputs(results, out_dims, name)

    return mapped


def _split_inputs(args: tuple, in_dims, name: str):
    """A function giving element ``i``'s arguments, and the batch size."""
    from ..tensor import Tensor

    prefix = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{prefix}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    leaves, spec = pytree.flatten(args)
    try:
        dims = pytree.broadcast_prefix(in_dims, args)
    except pytree.StructureMismatchError:
        raise ValueError(f"{prefix}: in_dims is not compatible with the structure of "
                         f"`inputs`. in_dims has structure {pytree.flatten(in_dims)[1]} but "
                         f"inputs has structure {spec}.") from None
    pieces, sizes = [], []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            pieces.append(None)
            continue
        if not is_int(dim):
            raise ValueError(f"{prefix}: Got in_dim={dim} for an input but in_dim must be "
                             "either an integer dimension or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{prefix}: Got in_dim={dim} for an input but the input is of "
                             f"type {type(leaf)}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        ndim = leaf.dim()
        if not -ndim <= dim < ndim:
            raise ValueError(f"{prefix}: Got in_dim={dim} for some input, but that input is "
                             f"a Tensor of dimensionality {ndim} so expected in_dim to "
                             f"satisfy -{ndim} <= in_dim < {ndim}.")
        sizes.append(leaf.shape[dim])
        pieces.append(leaf.unbind(dim))
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")

    def element(i: int) -> tuple:
        return pytree.unflatten([leaf if piece is None else piece[i]
                                 for leaf, piece in zip(leaves, pieces)], spec)

    return element, sizes[0]


def _out_dims_per_leaf(out_dims, output, name: str) -> list:
    prefix = f"vmap({name}, ..., out_dims={out_dims})(<inputs>)"
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                         "None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")
    # A one-entry tuple also describes a single output (PyTorch accepts out_dims=(0,)).
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and not isinstance(output, tuple):
        out_dims = out_dims[0]
    try:
        return pytree.broadcast_prefix(out_dims, output)
    except pytree.StructureMismatchError:
        raise ValueError(f"{prefix}: out_dims is not compatible with the structure of "
                         f"`outputs`. out_dims has structure {pytree.flatten(out_dims)[1]} but "
                         f"outputs has structure {pytree.flatten(output)[1]}.") from None


def _stack_outputs(results: list, out_dims, name: str):
    """The per-element outputs stacked leaf by leaf along their out_dims."""
    from ..functions import stack

    dims = _out_dims_per_leaf(out_dims, results[0], name)
    flat = [pytree.flatten(r)[0] for r in results]
    spec = pytree.flatten(results[0])[1]
    stacked = []
    for index, dim in enumerate(dims):
        column = [leaves[index] for leaves in flat]
        if dim is None:
            stacked.append(_unbatched(column, name))
            continue
        if not all(_is_tensor(value) for value in column):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(next(v for v in column if not _is_tensor(v)))}. Did you "
                             "mean to set out_dims= to None for output?")
        stacked.append(stack(column, dim))
    return pytree.unflatten(stacked, spec)


def _unbatched(column: list, name: str):
    """An output at ``out_dims=None``: the same for every element, returned once. (PyTorch
    knows whether an output depends on the mapped inputs; a loop can only compare.)"""
    from ..functions import equal

    first = column[0]
    same = all(value is first or (_is_tensor(value) and _is_tensor(first)
                                  and value.shape == first.shape and equal(value, first))
               or (not _is_tensor(value) and value == first) for value in column[1:])
    if not same:
        raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                         "out_dim is None")
    return first


def _empty_batch(func, args, in_dims, kwargs, out_dims, name: str):
    """A batch of size 0: ``func`` runs once on zeros of an element's shape, for the
    outputs' shapes, and each output is returned with a mapped dimension of size 0."""
    from ..factories import zeros

    leaves, spec = pytree.flatten(args)
    dims = pytree.broadcast_prefix(in_dims, args)
    element = [leaf if dim is None else zeros(
        tuple(s for d, s in enumerate(leaf.shape) if d != dim % leaf.dim()),
        dtype=leaf.dtype, device=leaf.device) for leaf, dim in zip(leaves, dims)]
    output = func(*pytree.unflatten(element, spec), **kwargs)
    per_leaf = _out_dims_per_leaf(out_dims, output, name)
    outputs, out_spec = pytree.flatten(output)
    return pytree.unflatten([o if d is None else o.unsqueeze(d).narrow(d, 0, 0)
                             for o, d in zip(outputs, per_leaf)], out_spec)


def _is_tensor(value) -> bool:
    from ..tensor import Tensor

    return isinstance(value, Tensor)
