"""Shape functions beyond ``functions.py``: ``narrow``, ``select``, ``movedim``/``moveaxis``,
``swapaxes``/``swapdims``, ``unflatten``, ``hstack``/``vstack``/``dstack``, and ``nonzero``
(whose output shape is the data's).

Each is one view op of ``ops/views.py`` (or ``transpose``), or, for the stacks, PyTorch's
composition: every input made at least 1-, 2- or 3-D, then one ``cat``.
"""

from __future__ import annotations

from . import functions as F
from .int_arguments import as_int
from .ops import views
from .tensor_arguments import require_tensor_list, require_tensor_sequence


def narrow(input, dim: int, start, length: int):
    """``length`` elements of ``dim`` from ``start`` (an int or a 0-d integer tensor;
    negative counts from the end), as a view."""
    return views.Narrow(as_int("narrow", "dim", dim), as_int("narrow", "start", start),
                        as_int("narrow", "length", length))(input)


def select(input, dim: int, index: int):
    """The slice at ``index`` along ``dim``, that dim removed (``x.select(1, 0)`` is
    ``x[:, 0]``), as a view."""
    return views.Select(as_int("select", "dim", dim),
                        as_int("select", "index", index))(input)


def movedim(input, source, destination):
    """Dims ``source`` (an int or a sequence) moved to ``destination``, the other dims in
    their order, as a view (``PermuteBackward0``)."""
    return views.Movedim(source=views._dim_list("movedim", "source", source),
                         destination=views._dim_list("movedim", "destination",
                                                     destination))(input)


moveaxis = movedim


def swapaxes(input, axis0: int, axis1: int):
    """``transpose`` under NumPy's name."""
    return F.transpose(input, axis0, axis1)


def swapdims(input, dim0: int, dim1: int):
    """``transpose`` under another of PyTorch's names."""
    return F.transpose(input, dim0, dim1)


def unflatten(input, dim: int, sizes):
    """Dim ``dim`` split into ``sizes`` (a tuple, list or ``Size``; one may be -1), as a
    view: ``unflatten(x, 1, (3, 4))`` turns ``(2, 12)`` into ``(2, 3, 4)``."""
    if isinstance(sizes, int) or not hasattr(sizes, "__iter__"):
        raise TypeError(f"unflatten(): argument 'sizes' must be tuple of ints, not "
                        f"{type(sizes).__name__}")
    sizes = tuple(as_int("unflatten", "sizes", s) for s in sizes)
    return views.Unflatten(dim=as_int("unflatten", "dim", dim), sizes=sizes)(input)


def _stack_inputs(op: str, tensors) -> list:
    require_tensor_sequence(op, tensors)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    require_tensor_list(op, tensors)
    return tensors


def _at_least(t, rank: int):
    """``t`` viewed with at least ``rank`` dims, PyTorch's ``atleast_{1,2,3}d``: a 0-d
    tensor becomes ``(1,) * rank``, a vector ``(1, n)`` (and ``(1, n, 1)`` for 3), a
    matrix ``(m, n, 1)`` for 3."""
    shape = tuple(t.shape)
    if len(shape) >= rank:
        return t
    if not shape:
        return F.reshape(t, (1,) * rank)
    # unsqueeze, as PyTorch's: the same views, and its grad_fn names
    if len(shape) == 1:
        t = F.unsqueeze(t, 0)
        return F.unsqueeze(t, 2) if rank == 3 else t
    return F.unsqueeze(t, 2)


def hstack(tensors):
    """Tensors joined column-wise: along dim 1, or dim 0 for 1-D tensors (0-d ones count
    as 1-D)."""
    tensors = [_at_least(t, 1) for t in _stack_inputs("hstack", tensors)]
    return F.cat(tensors, 0 if tensors[0].dim() == 1 else 1)


def vstack(tensors):
    """Tensors joined row-wise, along dim 0, after making each at least 2-D (a vector of
    ``n`` elements is a row ``(1, n)``)."""
    return F.cat([_at_least(t, 2) for t in _stack_inputs("vstack", tensors)], 0)


def dstack(tensors):
    """Tensors joined depth-wise, along dim 2, after making each at least 3-D."""
    return F.cat([_at_least(t, 3) for t in _stack_inputs("dstack", tensors)], 2)


def nonzero(input, *, as_tuple: bool = False):
    """The coordinates of the nonzero elements: an int64 ``(count, input.dim())`` tensor,
    or with ``as_tuple=True`` one 1-D tensor per dim (a 0-d input counts as 1-D).

    Raises:
        DataDependentShapeError (a ``NotImplementedError``) on meta: the count depends on
        the values.
    """
    from .ops.nonzero import Nonzero, count_nonzero

    if as_tuple and input.dim() == 0:
        input = F.reshape(input, (1,))
    result = Nonzero(count=count_nonzero(input))(input)
    return F.unbind(result, 1) if as_tuple else result
