"""Optimizers with PyTorch's update rules: ``SGD`` and ``Adam``; schedules in ``lr_scheduler``.

Parameters are updated in place under ``no_grad`` with tensor ops, so optimizers run on
every device, meta included (where a step only checks shapes).
"""

from . import lr_scheduler
from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "Optimizer", "SGD", "lr_scheduler"]
