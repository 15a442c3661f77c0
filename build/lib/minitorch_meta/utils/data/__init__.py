"""``minitorch_meta.utils.data``: PyTorch's import path for ``minitorch_meta.data``.

``from minitorch_meta.utils.data import DataLoader, TensorDataset`` works as with
``torch.utils.data``; the objects are those of ``minitorch_meta.data``.
"""

from ...data import *  # noqa: F403 - this module is an alias
from ...data import __all__  # noqa: F401
