"""``empty_strided`` and ``Tensor.new_empty_strided``: an uninitialised tensor with the
strides asked for.

The memory is one flat buffer just long enough for the farthest element
(``1 + sum((size - 1) * stride)``, none when a size is 0), viewed with the ``as_strided``
kernel (``empty_strided``), so ``stride()`` reports what was asked and the tensor's memory
is really laid out so (a ``(2, 3)`` tensor with strides ``(1, 2)`` is column-major). Meta
tensors have no memory but remember the strides.
"""

from __future__ import annotations

from .memory_formats import check_layout
from .ops.shapes import int_tuple_argument


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False):
    """An uninitialised tensor of ``size`` whose elements lie ``stride`` elements apart
    along each dim (strides may be 0: then elements share memory, and writes are refused
    as on an ``expand`` view).

    Shape:
        ``size``; ``stride()`` is ``stride``.

    Raises:
        TypeError: ``size`` or ``stride`` is not a sequence of ints.
        RuntimeError: their lengths differ, a size or a stride is negative (PyTorch's
            messages).
    """
    # ``factories`` imports ``tensor``, whose methods include ``new_empty_strided``: import
    # it on call.
    from .factories import _finish, _setup

    size = int_tuple_argument("empty_strided", "size", 1, size)
    stride = int_tuple_argument("empty_strided", "stride", 2, stride)
    _check(size, stride)
    check_layout("empty_strided", layout)
    dtype, backend = _setup(dtype, device)
    return _finish(backend.empty_strided(size, stride, dtype), backend, requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad: bool = False, pin_memory: bool = False):
    """``empty_strided`` with this tensor's dtype and device unless given."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def _check(size: tuple, stride: tuple) -> None:
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(n for n in size if n < 0)}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}: empty_strided takes non-negative strides")
