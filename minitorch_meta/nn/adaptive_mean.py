"""An adaptive average pooling to an output of ones is a mean, as PyTorch computes it.

PyTorch's ``adaptive_avg_pool2d``/``3d`` resolve ``output_size`` (``None`` keeps that input
size; a tuple needs more input dimensions than it has sizes) and, when every size is 1, take
``input.mean(last dims, keepdim=True)`` instead of pooling: that skips the pooling's rank
check, so any input of at least ``dims`` dimensions is pooled, and its errors are the mean's
(an IndexError below ``dims`` dimensions, a RuntimeError for integer inputs). The pooling
ops handle the ranks they accept themselves; this covers the others.
"""

from __future__ import annotations

from ..ops.shapes import ShapeError
from ..tensor import Tensor


def mean_of_other_ranks(op: str, input: Tensor, output_size, dims: int,
                        pooled_ranks: tuple) -> Tensor | None:
    """``input``'s mean over its last ``dims`` axes (kept) when ``output_size`` resolves to
    all ones and ``input``'s rank is not one of ``pooled_ranks``; None otherwise.

    Shape:
        ``(*, S_1, ..., S_dims)`` -> ``(*, 1, ..., 1)``.
    """
    rank = input.dim()
    if rank in pooled_ranks:
        return None
    if isinstance(output_size, (tuple, list)):
        if rank <= len(output_size):  # PyTorch's ``_list_with_default`` check
            raise ShapeError(op, f"Input dimension should be at least {len(output_size) + 1}, "
                                 f"but got a {rank}-D input")
        sizes = tuple(input.shape[rank - len(output_size):])
        resolved = tuple(s if v is None else v for v, s in zip(output_size, sizes))
    else:
        resolved = (output_size,) * dims
    if resolved != (1,) * dims:
        return None
    return input.mean(dim=tuple(range(-dims, 0)), keepdim=True)
