"""Learning-rate schedules with PyTorch's ``torch.optim.lr_scheduler`` names and values.

Call ``scheduler.step()`` once per epoch after the epoch's ``optimizer.step()`` calls
(``OneCycleLR``: once per batch; ``ReduceLROnPlateau``: ``step(metric)``). The rates after
each step, ``get_last_lr()``, ``last_epoch`` and the state dicts (keys included) are
PyTorch's; the tests compare them step by step.

- ``base``: ``LRScheduler``, the base class (initial step, chainable ``get_lr``, the
  deprecated ``step(epoch)`` with closed forms, state dicts);
- ``decay``: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``;
- ``warmup``: ``ConstantLR``, ``LinearLR``;
- ``lambda_lr``: ``LambdaLR``, ``MultiplicativeLR`` (the user's functions of the epoch);
- ``cosine``: ``CosineAnnealingLR``;
- ``one_cycle``: ``OneCycleLR`` (per batch, cycles the momentum too);
- ``plateau``: ``ReduceLROnPlateau`` (driven by a metric).
"""

from .base import LRScheduler, _LRScheduler  # noqa: F401 (PyTorch's old name)
from .cosine import CosineAnnealingLR
from .decay import ExponentialLR, MultiStepLR, StepLR
from .lambda_lr import LambdaLR, MultiplicativeLR
from .one_cycle import OneCycleLR
from .plateau import ReduceLROnPlateau
from .warmup import ConstantLR, LinearLR

__all__ = ["ConstantLR", "CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR",
           "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "ReduceLROnPlateau",
           "StepLR"]
