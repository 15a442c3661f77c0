"""Loss arguments shared by the loss layers and ``nn.functional``'s loss functions.

PyTorch's deprecated ``size_average``/``reduce`` flags still appear in scripts.
"""

from __future__ import annotations

from ..caller_warnings import warn_at_caller


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` flags, turned into ``reduction``;
    the warning names the user's line."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    # PyTorch warns with the same words, so a filter written for its warning applies here
    warn_at_caller("size_average and reduce args will be deprecated, please use "
                   f"reduction='{reduction}' instead.")
    return reduction

