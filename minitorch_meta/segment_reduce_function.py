"""``torch.segment_reduce``: PyTorch's keyword-only entry point of the segment reduction
(``ops/segment_reduce.py``), with its argument checks in its order and wording."""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .int_arguments import is_int
from .ops.elementwise import _bound_scalar
from .ops.segment_reduce import REDUCTIONS, SegmentReduce
from .tensor import Tensor


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None,
                   indices: Tensor | None = None, offsets: Tensor | None = None,
                   axis: int = 0, unsafe: bool = False, initial=None) -> Tensor:
    """The ``reduce`` (``"sum"``, ``"mean"``, ``"max"``/``"amax"``, ``"min"``/``"amin"``,
    ``"prod"``) of each segment of ``data`` along ``axis``; the segments are consecutive
    runs given by their ``lengths`` or by their ``offsets`` (segment ``k`` is
    ``[offsets[k], offsets[k + 1])``; given both, offsets win, as in PyTorch).
    ``initial`` takes part in every segment's reduction (mean: ``(sum + initial) /
    length``) and is the value of an empty one (else 0, NaN, -inf, inf, 1).
    ``unsafe=True`` lets the lengths sum to less than the axis' size (the rest is left
    out). Differentiable in ``data`` (``SegmentReduceBackward0``); max and min split the
    gradient evenly among tied elements.

    Shape:
        data ``(*lead, N, *trail)`` with ``axis == len(lead)``; lengths ``(*lead, K)`` or
        offsets ``(*lead, K + 1)`` (int32 or int64) -> ``(*lead, K, *trail)``.

    Raises:
        TypeError for arguments of the wrong type; RuntimeError for ``indices`` (not
        supported by PyTorch either), neither lengths nor offsets, an unknown ``reduce``,
        an ``initial`` the dtype cannot hold, and the op's errors (``SegmentReduce``).
    """
    if not isinstance(data, Tensor):
        raise TypeError(f"segment_reduce(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(data).__name__}")
    if not isinstance(reduce, str):
        raise TypeError(f"segment_reduce(): argument 'reduce' (position 2) must be str, not "
                        f"{type(reduce).__name__}")
    for name, value in (("lengths", lengths), ("indices", indices), ("offsets", offsets)):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"segment_reduce(): argument '{name}' must be Tensor, not "
                            f"{type(value).__name__}")
    if not is_int(axis):
        raise TypeError(f"segment_reduce(): argument 'axis' must be int, not "
                        f"{type(axis).__name__}")
    if not isinstance(unsafe, bool):
        raise TypeError(f"segment_reduce(): argument 'unsafe' must be bool, not "
                        f"{type(unsafe).__name__}")
    initial = _initial_number(initial)
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if isinstance(initial, complex):
        raise RuntimeError(f"value cannot be converted to type {data.dtype} without overflow "
                           f"(initial={initial!r}): initial must be a real number")
    if initial is not None and data.is_floating_point():
        _bound_scalar("segment_reduce()", "initial", initial, data.dtype)
    op = SegmentReduce(reduce=REDUCTIONS[reduce], axis=axis, by_offsets=offsets is not None,
                       unsafe=unsafe, initial=initial)
    return op(data, lengths if offsets is None else offsets)


def _initial_number(value):
    """``initial`` as a Python number (a 0-d tensor gives its value), or None."""
    if value is None:
        return None
    if isinstance(value, Tensor) and value.dim() == 0:
        return value.item()
    if isinstance(value, Number):
        if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
            raise OverflowError(dtypes.int_scalar_overflow(value))
        return value
    raise TypeError(f"segment_reduce(): argument 'initial' must be Number, not "
                    f"{type(value).__name__}")
