"""Named results, as PyTorch returns them (``values, indices = x.max(dim=1)``)."""

from typing import NamedTuple


class MaxResult(NamedTuple):
    """``torch.return_types.max``: the maxima and their indices along a dimension."""

    values: object
    indices: object


class MinResult(NamedTuple):
    """``torch.return_types.min``: the minima and their indices along a dimension."""

    values: object
    indices: object


class SortResult(NamedTuple):
    """``torch.return_types.sort``: the ordered values and where they came from."""

    values: object
    indices: object


class TopkResult(NamedTuple):
    """``torch.return_types.topk``: the ``k`` largest (or smallest) values and their indices."""

    values: object
    indices: object


class KthvalueResult(NamedTuple):
    """``torch.return_types.kthvalue``: the k-th smallest values and their indices."""

    values: object
    indices: object


class MedianResult(NamedTuple):
    """``torch.return_types.median``: the lower medians and their indices."""

    values: object
    indices: object


class NanmedianResult(NamedTuple):
    """``torch.return_types.nanmedian``: the lower medians of the non-NaN elements."""

    values: object
    indices: object


class ModeResult(NamedTuple):
    """``torch.return_types.mode``: the most frequent values and an index of each."""

    values: object
    indices: object


class AminmaxResult(NamedTuple):
    """``torch.return_types.aminmax``: the smallest and the largest values."""

    min: object
    max: object
