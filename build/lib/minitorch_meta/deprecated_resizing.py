"""``Tensor.resize(*sizes)`` and ``Tensor.resize_as(tensor)``: PyTorch's deprecated
out-of-place resizes, kept for old code.

Unlike ``resize_`` they cannot change the number of elements: they are a contiguous
reshape, recorded as PyTorch records them, by a Python ``autograd.Function`` whose node is
``ResizeBackward``. Both warn first (a UserWarning at the caller's line), as PyTorch does.
"""

from __future__ import annotations

import math

from .autograd.function import Function
from .caller_warnings import warn_at_caller


class Resize(Function):
    """The input, contiguous, viewed with the shape ``sizes`` (the same number of elements);
    the gradient is viewed back to the input's shape.

    Shape:
        input ``(*)``; output ``sizes``, with as many elements.
    """

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.input_shape = tuple(tensor.shape)
        return tensor.contiguous().view(sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_shape), None


def resize(self, *sizes):
    """This tensor's elements with the shape ``sizes`` (separate ints: ``t.resize(2, 3)``),
    sharing its memory when it is contiguous. Deprecated: use ``reshape`` (or ``resize_``).

    Raises:
        RuntimeError: ``sizes`` hold another number of elements than the tensor (PyTorch's
            message), or one sequence was given instead of separate ints.
        TypeError: a size is not an int, or no size was given.
    """
    warn_at_caller("non-inplace resize is deprecated")
    return _resize(self, sizes)


def resize_as(self, tensor):
    """``self.resize(*tensor.shape)``: this tensor with ``tensor``'s shape (the same number
    of elements). Deprecated: use ``reshape_as``.

    Raises:
        TypeError: ``tensor`` is no tensor.
        RuntimeError: the shapes hold different numbers of elements.
    """
    from .tensor import Tensor

    warn_at_caller("non-inplace resize_as is deprecated")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"resize_as(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    return _resize(self, tuple(tensor.shape))


def _resize(tensor, sizes: tuple):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        # PyTorch multiplies the sequence into its element count and fails there
        raise RuntimeError(f"resize takes the sizes as separate ints, as in resize(2, 3), "
                           f"but got the sequence {sizes[0]!r}: use resize(*sizes)")
    if not sizes:
        raise TypeError("resize() takes at least one size, as in resize(2, 3)")
    for size in sizes:
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            raise TypeError(f"resize(): each size must be an int, but got "
                            f"{type(size).__name__} ({size!r})")
    sizes = tuple(size.__index__() for size in sizes)
    count = math.prod(sizes)
    if count != tensor.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), "
            f"but the given tensor has a size of {'x'.join(map(str, tensor.shape))} "
            f"({tensor.numel()} elements). autograd's resize can only change the shape of a "
            "given tensor, while preserving the number of elements. ")
    return Resize.apply(tensor, sizes)
