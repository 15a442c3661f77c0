"""``one_hot``: class indices -> rows of zeros with a single one (no gradient)."""

from __future__ import annotations

from .. import dtypes
from .function import Function

# PyTorch's messages, word for word; ours add what was found and what to do.
NOT_LONG = "one_hot is only applicable to index tensor of type LongTensor."
EMPTY = "Can not infer total number of classes from empty tensor."
NEGATIVE = "Class values must be non-negative."
TOO_LARGE = "Class values must be smaller than num_classes."


def check_index_dtype(dtype) -> None:
    """Refuse anything but int64 class indices, as PyTorch does (even int32 and uint8)."""
    if dtype is not dtypes.int64:
        raise RuntimeError(f"{NOT_LONG} Got {dtype}; convert the labels with .long()")


class OneHot(Function):
    """``out[..., c] = 1`` where ``input[...] == c``, else 0, for ``num_classes`` classes.

    ``num_classes`` is a known count here (``F.one_hot`` resolves ``-1`` from the data first).
    Values are checked by ``forward``, since only a data backend has them.

    Shape:
        ``(*)`` int64 -> ``(*, num_classes)`` int64.

    Raises:
        TypeError: the input is not int64.
        RuntimeError: an empty input without a positive ``num_classes``; a non-empty input
            with ``num_classes <= 0``; (data backends) a negative value, or one
            ``>= num_classes``.
    """

    op_name, backward_name, differentiable = "one_hot", "OneHotBackward0", False
    num_classes = -1

    def infer(self, x):
        check_index_dtype(x._dtype)
        shape = tuple(x._data.shape)
        if self.num_classes <= 0:
            if x._data.size == 0:
                raise RuntimeError(f"{EMPTY} Pass num_classes >= 1")
            # Any valid (non-negative) class value is >= num_classes: refused on every
            # device, so that meta, which cannot see values, fails where cpu would.
            raise RuntimeError(f"{TOO_LARGE} Got num_classes={self.num_classes}; pass a "
                               "positive num_classes, or -1 to use the largest value + 1")
        return shape + (self.num_classes,), dtypes.int64

    def forward(self, backend, x):
        if x.size:
            self._check_values(backend, x)
        classes = backend.arange(0, self.num_classes, 1, dtypes.int64)
        # (*, 1) == (num_classes,) broadcasts to (*, num_classes) booleans.
        hits = backend.binary("eq", backend.reshape(x, x.shape + (1,)), classes)
        return backend.astype(hits, dtypes.int64)

    def _check_values(self, backend, x) -> None:
        # PyTorch checks the sign first: [-1, 5] with 3 classes is a "non-negative" error.
        smallest = -int(backend.to_numpy(backend.max(backend.unary("neg", x), None, False)))
        if smallest < 0:
            raise RuntimeError(f"{NEGATIVE} Got {smallest}")
        largest = int(backend.to_numpy(backend.max(x, None, False)))
        if largest >= self.num_classes:
            raise RuntimeError(f"{TOO_LARGE} Got the value {largest} with "
                               f"num_classes={self.num_classes}")
