"""More views: ``narrow``, ``select``, ``movedim``, ``unflatten`` and ``mT``.

No new kernel: each is an existing view op (``GetItem``, ``Permute``, ``View``,
``Transpose``) whose shape rule adds PyTorch's own checks and messages, so they work on
every backend, share the input's version counter and differentiate as the op they build
on. The ``grad_fn`` names are PyTorch's (``SliceBackward0``, ``SelectBackward0``,
``PermuteBackward0``, ``ViewBackward0``, ``TransposeBackward0``).
"""

from __future__ import annotations

import math

from ..int_arguments import as_int
from . import shapes
from .function import Function
from .layout import GetItem, Permute, Transpose, View


def _require_dims(op: str, shape) -> None:
    if not shape:
        raise RuntimeError(f"{op}() cannot be applied to a 0-dim tensor.")


class Narrow(GetItem):
    """``length`` elements of dim ``dim`` from ``start`` (negative: from the end): a view.

    Shape:
        the input's shape with ``length`` along ``dim``.

    Raises:
        RuntimeError for a 0-d input, a negative length or a range past the end;
        IndexError for a dim or start out of range.
    """

    op_name = "narrow"
    _hyper = ("dim", "start", "length", "index", "shape_index")

    def __init__(self, dim: int, start: int, length: int):
        self.dim, self.start, self.length = dim, start, length

    @property
    def backward_name(self):
        return "SliceBackward0"  # PyTorch's narrow is a slice, whatever the range

    def infer(self, x):
        shape = x._data.shape
        _require_dims("narrow", shape)
        axis = shapes.normalize_dim("narrow", self.dim, len(shape))
        size = shape[axis]
        if not -size <= self.start <= size:
            raise IndexError(f"narrow: start out of range (expected to be in range of "
                             f"[{-size}, {size}], but got {self.start})")
        if self.length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        start = self.start % size if self.start < 0 else self.start
        if start + self.length > size:
            raise RuntimeError(f"start ({start}) + length ({self.length}) exceeds dimension "
                               f"size ({size}) of the input of shape {shapes.fmt(shape)}.")
        self.index = self.shape_index = (slice(None),) * axis + (slice(start,
                                                                       start + self.length),)
        return super().infer(x)


class Select(GetItem):
    """The slice at ``index`` along ``dim``, that dim removed: a view.

    Shape:
        the input's shape without ``dim``.

    Raises:
        IndexError for a 0-d input, a dim or an index out of range.
    """

    op_name = "select"
    _hyper = ("dim", "position", "index", "shape_index")

    def __init__(self, dim: int, position: int):
        self.dim, self.position = dim, position

    @property
    def backward_name(self):
        return "SelectBackward0"

    def infer(self, x):
        shape = x._data.shape
        if not shape:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        axis = shapes.normalize_dim("select", self.dim, len(shape))
        if not -shape[axis] <= self.position < shape[axis]:
            raise IndexError(f"select(): index {self.position} out of range for tensor of size "
                             f"{list(shape)} at dimension {axis}")
        self.index = self.shape_index = (slice(None),) * axis + (self.position,)
        return super().infer(x)


def _dim_list(op: str, name: str, dims) -> tuple:
    """``source``/``destination`` of ``movedim``: an int or a sequence of ints."""
    items = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    return tuple(as_int(op, name, d) for d in items)


class Movedim(Permute):
    """Dims ``source`` moved to the positions ``destination``; the others keep their order.

    Shape:
        ``(2, 3, 4).movedim(0, -1) -> (3, 4, 2)``.

    Raises:
        RuntimeError when ``source`` and ``destination`` differ in length or repeat a dim;
        IndexError for a dim out of range.
    """

    op_name, backward_name = "movedim", "PermuteBackward0"

    def infer(self, x):
        ndim = len(x._data.shape)
        if ndim == 0:
            # PyTorch returns a 0-d input as an alias: there is nothing to permute (a name
            # kept by the node, unlike what infer computes, which backward frees)
            self.show_as("AliasBackward0")
        source, destination = self.source, self.destination
        if len(source) != len(destination):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                               f"({list(source)} dims) should contain the same number of dims "
                               f"as destination ({list(destination)} dims)")
        src = [shapes.normalize_dim("movedim", d, ndim) for d in source]
        dst = [shapes.normalize_dim("movedim", d, ndim) for d in destination]
        for name, given, axes in (("source", source, src), ("destination", destination, dst)):
            if len(set(axes)) != len(axes):
                raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
        rest = iter(d for d in range(ndim) if d not in src)
        placed = dict(zip(dst, src))
        self.dims = tuple(placed[i] if i in placed else next(rest) for i in range(ndim))
        return super().infer(x)


class Unflatten(View):
    """Dim ``dim`` split into ``sizes`` (one of them may be -1): a view.

    Shape:
        ``(2, 12).unflatten(1, (3, 4)) -> (2, 3, 4)``.

    Raises:
        RuntimeError for empty sizes, more than one -1, or sizes whose product is not the
        dim's length; IndexError for a dim out of range.
    """

    op_name, backward_name = "unflatten", "ViewBackward0"
    # keyword hyper-parameters, as most ops (View's own ``__init__`` takes only a shape)
    __init__, _hyper = Function.__init__, Function._hyper

    def infer(self, x):
        shape = tuple(x._data.shape)
        axis = shapes.normalize_dim("unflatten", self.dim, len(shape))
        sizes = self.sizes
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        size = shape[axis]
        unknown = [i for i, s in enumerate(sizes) if s == -1]
        known = math.prod(s for s in sizes if s != -1)
        if len(unknown) > 1:
            raise RuntimeError(f"unflatten: only one dimension can be inferred (-1), got sizes "
                               f"{list(sizes)}")
        if any(s < -1 for s in sizes) or (unknown and (known == 0 or size % known)) or (
                not unknown and known != size):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {self.dim} ({size}) in the input tensor")
        if unknown:
            sizes = tuple(size // known if s == -1 else s for s in sizes)
        self.out_shape = shape[:axis] + tuple(sizes) + shape[axis + 1:]
        return self.out_shape, x._dtype


class MatrixTranspose(Transpose):
    """``x.mT``: the last two dims swapped (a batch of matrices transposed): a view.

    Shape:
        ``(*, m, n) -> (*, n, m)``.

    Raises:
        RuntimeError for an input of fewer than two dims.
    """

    dim0, dim1 = -2, -1

    def infer(self, x):
        ndim = len(x._data.shape)
        if ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of "
                               f"matrices. Got {ndim}-D tensor.")
        return super().infer(x)
