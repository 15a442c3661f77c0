"""The ``*_copy`` functions (``view_copy``, ``permute_copy``, ``select_copy``, ...): a view
op whose result is a fresh, contiguous tensor instead of a view.

Each is the view op followed by a copy, made by one factory (``copy_of``) from a table:
the copy's graph node takes PyTorch's name for it (the view node's + ``_copy``), and its
gradient is the view's (the copy passes the gradient through unchanged). The functions
that split (``unbind_copy``, ``split_copy``, ``split_with_sizes_copy``) copy each part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .autograd.graph_node import show_as_op
from .memory_formats import contiguous_format

if TYPE_CHECKING:  # (tensor_methods.py imports this module: no import of tensor.py here)
    from .tensor import Tensor


def _slice(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> Tensor:
    """``input[..., start:end:step]`` along ``dim`` (PyTorch's ``aten::slice``)."""
    dim = dim if dim >= 0 else dim + input.dim()
    return input[(slice(None),) * dim + (slice(start, end, step),)]


def _expand(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return input.expand(*size)


def _view(input: Tensor, size) -> Tensor:
    return input.view(size)


def _squeeze(input: Tensor, dim=None) -> Tensor:
    return input.squeeze() if dim is None else input.squeeze(dim)


#: name -> the view it copies, called as ``view(input, *args, **kwargs)``
VIEWS = {
    "view_copy": _view,
    "permute_copy": lambda input, dims: input.permute(*dims),
    "t_copy": lambda input: input.t(),
    "transpose_copy": lambda input, dim0, dim1: input.transpose(dim0, dim1),
    "expand_copy": _expand,
    "squeeze_copy": _squeeze,
    "unsqueeze_copy": lambda input, dim: input.unsqueeze(dim),
    "select_copy": lambda input, dim, index: input.select(dim, index),
    "slice_copy": _slice,
    "diagonal_copy": lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2),
    "unfold_copy": lambda input, dimension, size, step: input.unfold(dimension, size, step),
    "narrow_copy": lambda input, dim, start, length: input.narrow(dim, start, length),
    "alias_copy": lambda input: input,
    "unbind_copy": lambda input, dim=0: input.unbind(dim),
    "split_copy": lambda input, split_size, dim=0: input.split(split_size, dim),
    "split_with_sizes_copy": lambda input, split_sizes, dim=0: input.split(list(split_sizes),
                                                                           dim),
    "as_strided_copy": lambda input, size, stride, storage_offset=None: input.as_strided(
        size, stride, storage_offset),
}
#: PyTorch's ``grad_fn`` names of the copies not named after their view's node
NAMES = {"narrow_copy": "NarrowCopyBackward0", "alias_copy": "AliasBackward0_copy",
         "slice_copy": "SliceBackward0_copy"}  # aten::slice, even over a whole dim


def copy_of(name: str):
    """PyTorch's ``torch.<name>``: the view of ``VIEWS[name]``, copied."""
    view = VIEWS[name]

    def function(input: Tensor, *args, **kwargs):
        if not hasattr(input, "_data"):  # a Tensor
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        viewed = view(input, *args, **kwargs)
        if isinstance(viewed, tuple):  # unbind, split
            return _copied(viewed, name, input)
        return _copied((viewed,), name, input)[0]

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"``{name}(input, ...)``: as the view ``{name[:-len('_copy')]}``, "
                        "but a new contiguous tensor that shares no memory with ``input``.\n\n"
                        "Shape:\n    the view's.")
    return function


def _copied(views: tuple, name: str, input: Tensor) -> tuple:
    """Contiguous copies of ``views`` (of ``input``), shown as PyTorch's one node of
    ``name`` (numbered outputs, its edge to ``input``), named as PyTorch names it: the
    view's node's name + ``_copy`` (``SqueezeBackward1_copy``), or ``NAMES[name]``."""
    # (clone's default keeps strides)
    copies = tuple(view.clone(memory_format=contiguous_format) for view in views)
    node = views[0].grad_fn if views else None
    shown = NAMES.get(name) or (node is not None and f"{node.name()}_copy")
    if shown:  # (a view that is ``input`` itself has no node of its own: alias)
        show_as_op(copies, shown, (input,))
    return copies


def detach_copy(input: Tensor) -> Tensor:
    """``input.detach()``, copied: a new tensor outside the graph.

    Shape:
        unchanged.
    """
    return input.detach().clone()


view_copy = copy_of("view_copy")
permute_copy = copy_of("permute_copy")
t_copy = copy_of("t_copy")
transpose_copy = copy_of("transpose_copy")
expand_copy = copy_of("expand_copy")
squeeze_copy = copy_of("squeeze_copy")
unsqueeze_copy = copy_of("unsqueeze_copy")
select_copy = copy_of("select_copy")
slice_copy = copy_of("slice_copy")
diagonal_copy = copy_of("diagonal_copy")
unfold_copy = copy_of("unfold_copy")
narrow_copy = copy_of("narrow_copy")
alias_copy = copy_of("alias_copy")
unbind_copy = copy_of("unbind_copy")
split_copy = copy_of("split_copy")
split_with_sizes_copy = copy_of("split_with_sizes_copy")
as_strided_copy = copy_of("as_strided_copy")

__all__ = [*VIEWS, "detach_copy"]
