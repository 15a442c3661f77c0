"""Learning-rate schedules with PyTorch's ``torch.optim.lr_scheduler`` names and values.

Call ``scheduler.step()`` once per epoch after the epoch's ``optimizer.step()`` calls
(``OneCycleLR``, ``CyclicLR``: once per batch; ``CosineAnnealingWarmRestarts``: per epoch
or per batch with a fractional ``step(epoch + i / iters)``; ``ReduceLROnPlateau``:
``step(metric)``). The rates after each step, ``get_last_lr()``, ``last_epoch`` and the state
dicts (keys included) are PyTorch's; the tests compare them step by step. As in PyTorch,
the first ``scheduler.step()`` warns if ``optimizer.step()`` has not been called yet.

- ``base``: ``LRScheduler``, the base class (initial step, chainable ``get_lr``, the
  deprecated ``step(epoch)`` with closed forms, state dicts, the step-order warning);
- ``decay``: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``PolynomialLR``;
- ``warmup``: ``ConstantLR``, ``LinearLR``;
- ``lambda_lr``: ``LambdaLR``, ``MultiplicativeLR`` (the user's functions of the epoch);
- ``cosine``: ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts`` (SGDR);
- ``one_cycle``: ``OneCycleLR`` (per batch, cycles the momentum too);
- ``cyclic``: ``CyclicLR`` (per batch, cycles the momentum too);
- ``sequential``: ``SequentialLR`` (schedulers one after another, e.g. a warm-up then a
  decay) and ``ChainedScheduler`` (schedulers together);
- ``plateau``: ``ReduceLROnPlateau`` (driven by a metric).
"""

from .base import LRScheduler, _LRScheduler  # noqa: F401 (PyTorch's old name)
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR
from .decay import ExponentialLR, MultiStepLR, PolynomialLR, StepLR
from .lambda_lr import LambdaLR, MultiplicativeLR
from .one_cycle import OneCycleLR
from .plateau import ReduceLROnPlateau
from .sequential import ChainedScheduler, SequentialLR
from .warmup import ConstantLR, LinearLR

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau",
           "SequentialLR", "StepLR"]
