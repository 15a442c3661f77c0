"""``torch.as_strided``, ``Tensor.as_strided``/``as_strided_`` and ``as_strided_scatter``:
PyTorch's argument parsing around the ops of ``ops/strided_view.py`` (``as_strided_copy``
is in ``view_copies.py``, with the other copies of views)."""

from __future__ import annotations

from .ops.shapes import int_tuple_argument
from .ops.strided_view import AsStrided, AsStridedScatter


def _geometry(op: str, size, stride, storage_offset) -> dict:
    """The op's hyper-parameters, with PyTorch's TypeErrors for arguments of the wrong kind."""
    size = int_tuple_argument(op, "size", 1, size)
    stride = int_tuple_argument(op, "stride", 2, stride)
    if storage_offset is not None and (isinstance(storage_offset, bool)
                                       or not hasattr(storage_offset, "__index__")):
        raise TypeError(f"{op}(): argument 'storage_offset' (position 3) must be int, not "
                        f"{type(storage_offset).__name__}")
    offset = None if storage_offset is None else storage_offset.__index__()
    return {"size": size, "stride": stride, "storage_offset": offset}


def as_strided(input, size, stride, storage_offset=None):  # noqa: A002 - PyTorch's names
    """A view of ``input``'s storage: ``size`` elements ``stride`` elements apart, starting
    at position ``storage_offset`` of the storage (``input.storage_offset()`` when None).
    The view shares memory with ``input``; its gradient adds up where windows overlap.

    Shape:
        ``size``, with ``stride()`` ``stride`` (on cpu and cuda).

    Raises:
        TypeError: ``size``/``stride`` not sequences of ints, ``storage_offset`` not an int.
        RuntimeError: lengths that differ, a negative size, stride or offset, a window past
            the end of the storage (PyTorch's messages; not checked on meta).
    """
    return AsStrided.apply(input, **_geometry("as_strided", size, stride, storage_offset))


def as_strided_(input, size, stride, storage_offset=None):  # noqa: A002
    """``input`` itself, now viewing its storage as ``as_strided(input, size, stride,
    storage_offset)`` does (in-place ops are refused inside a graph, as everywhere here).

    Shape:
        ``input`` becomes ``size``.
    """
    input._check_inplace("as_strided_")
    view = AsStrided.apply(input.detach(),
                           **_geometry("as_strided_", size, stride, storage_offset))
    input._data = view._data
    return input


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    """A copy of ``input`` whose elements in the window ``as_strided(input, size, stride,
    storage_offset)`` hold ``src`` (differentiable in both).

    Shape:
        ``input``'s shape and dtype; ``src`` of shape ``size``.

    Raises:
        RuntimeError: as ``as_strided``; ``src`` not of shape ``size``; a window whose
            elements share memory; an input that requires grad and is not contiguous
            (PyTorch's messages).
    """
    return AsStridedScatter.apply(input, src, **_geometry("as_strided_scatter", size, stride,
                                                          storage_offset))
