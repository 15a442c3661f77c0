"""Optimizers with PyTorch's update rules (``SGD``, ``Adam``, ``AdamW``, ``Adadelta``,
``RMSprop``, ``Adagrad``); schedules in ``lr_scheduler``.

Parameters are updated in place under ``no_grad`` with tensor ops, so optimizers run on
every device, meta included (where a step only checks shapes).
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD",
           "lr_scheduler"]
