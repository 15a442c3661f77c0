"""``torch.nn.modules.module``: ``Module`` (``nn/module.py``) and the global module hooks
(``nn/global_hooks.py``), re-exported under PyTorch's import path."""

from __future__ import annotations

from ..global_hooks import (
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ..module import Module

__all__ = ["Module", "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]
