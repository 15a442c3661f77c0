"""``nn.utils.stateless.functional_call``: PyTorch's deprecated spelling of
``torch.func.functional_call``, with its ``FutureWarning``."""

from __future__ import annotations

from ...caller_warnings import warn_at_caller
from ...func.functional_call import call_with_tensors

__all__ = ["functional_call"]

_DEPRECATED = ("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
               "and will be removed in a future version of PyTorch. Please use "
               "`torch.func.functional_call` instead which is a drop-in replacement.")


def functional_call(module, parameters_and_buffers: dict, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` (one dict) standing in
    for the module's own tensors; see ``torch.func.functional_call``."""
    warn_at_caller(_DEPRECATED, FutureWarning)
    return call_with_tensors(module, parameters_and_buffers, args, kwargs,
                             tie_weights=tie_weights, strict=strict)
