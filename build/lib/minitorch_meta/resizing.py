"""``Tensor.resize_``, ``Tensor.resize_as_`` and ``torch.resize_as_``: PyTorch's low-level
in-place change of a tensor's shape, whatever its number of elements.

The memory is read as C-ordered from the tensor's first element: resizing to fewer
elements keeps a view of the first ones, resizing to more copies them into new memory
whose other elements are uninitialised (PyTorch grows the storage in place, so other
views of it see the change; ours then keep the old memory: docs/differences.md). Only
contiguous tensors are resized (PyTorch reinterprets a strided tensor's storage, which a
NumPy or CuPy view does not expose). No graph is involved: a tensor that requires grad is
refused, as in PyTorch, even under ``no_grad``.
"""

from __future__ import annotations

import math

from .size import Size


def resize_(self, *sizes):
    """Give this tensor the shape ``sizes`` (ints, or one tuple, list or ``Size``) in
    place; returns it. Elements up to the smaller count keep their values in C order.

    Raises:
        RuntimeError for a tensor that requires grad, a negative size, or a
        non-contiguous tensor whose shape would change; TypeError for sizes that are
        not ints.
    """
    shape = _sizes(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad: resize .detach() "
                           "instead, or make a new tensor")
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{list(shape)}")
    data, backend = self._data, self._backend
    if tuple(data.shape) == shape:
        return self  # nothing changes (PyTorch does not count it as a write either)
    if not backend.stores_data:
        self._data = backend.empty(shape, self._dtype)
    elif not backend.is_contiguous(data):
        raise RuntimeError(f"resize_: the tensor of shape {tuple(data.shape)} and strides "
                           f"{backend.strides(data)} is not contiguous; minitorch_meta resizes "
                           "contiguous tensors only: call .contiguous() first")
    else:
        self._data = _resized(backend, data, shape, self._dtype)
    self._counter().value += 1  # an in-place write, as PyTorch counts it
    return self


def resize_as_(self, the_template):
    """``self.resize_(the_template.shape)``: the template's shape, this tensor's dtype."""
    from .tensor import Tensor

    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return resize_(self, tuple(the_template._data.shape))


def resize_as_function(input, the_template):
    """``torch.resize_as_(input, the_template)``: ``input.resize_as_(the_template)``."""
    from .tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"resize_as_(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return resize_as_(input, the_template)


def _sizes(sizes: tuple) -> tuple:
    """The shape ``resize_`` is given: ints, or one sequence of them (PyTorch's parse)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)):
        sizes = tuple(sizes[0])
    for position, size in enumerate(sizes):
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            where = "" if len(sizes) == 1 else f" (the size at position {position})"
            raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(size).__name__}{where}")
    return tuple(size.__index__() for size in sizes)


def _resized(backend, data, shape: tuple, dtype):
    """The contiguous ``data`` with ``shape``: a view of its first elements when it has
    enough, else new memory starting with a copy of all of them."""
    flat = backend.reshape(data, (-1,))  # a view: ``data`` is contiguous
    count, have = math.prod(shape), flat.shape[0]
    if count <= have:
        return backend.reshape(backend.getitem(flat, slice(0, count)), shape)
    grown = backend.empty((count,), dtype)
    backend.setitem(grown, slice(0, have), flat)
    return backend.reshape(grown, shape)
