"""Optimizers with PyTorch's update rules (``SGD``, ``Adam``, ``AdamW``, ``Adadelta``,
``RMSprop``, ``Adagrad``, ``NAdam``, ``RAdam``, ``Adamax``, ``ASGD``, ``Rprop``,
``Adafactor``, ``Muon``, and the quasi-Newton ``LBFGS``); schedules in ``lr_scheduler``; weight
averaging (SWA, EMA) in ``swa_utils``.

Parameters are updated in place under ``no_grad`` with tensor ops, so optimizers run on
every device, meta included (where a step only checks shapes); ``LBFGS``, whose
iterations are decided by values, refuses meta.
"""

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD",
           "lr_scheduler",
           "ASGD", "Adamax", "NAdam", "RAdam", "Rprop",
           "LBFGS",
           "swa_utils",
           "Adafactor",
           "Muon"]
