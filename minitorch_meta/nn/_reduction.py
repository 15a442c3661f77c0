"""Loss arguments shared by the loss layers and ``nn.functional``'s loss functions.

PyTorch's deprecated ``size_average``/``reduce`` flags still appear in scripts, and
``weight``/``label_smoothing`` are refused with one message wherever they are passed.
"""

from __future__ import annotations


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` flags, turned into ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def refuse_weight(name: str, weight) -> None:
    """Class (or element) weights are not supported: a clear error, not a silent ignore."""
    if weight is not None:
        raise NotImplementedError(f"{name}: class weights are not supported by "
                                  "minitorch_meta; pass weight=None")


def refuse_label_smoothing(name: str, label_smoothing: float) -> None:
    if label_smoothing != 0.0:
        raise NotImplementedError(f"{name}: label_smoothing is not supported by "
                                  "minitorch_meta; pass label_smoothing=0.0")
