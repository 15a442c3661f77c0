"""``torch.utils.benchmark``: timing code the way PyTorch's benchmark utilities do.

``Timer`` (``timing.py``) times a statement and returns a ``Measurement``
(``measurement.py``), named by its ``TaskSpec`` (``task_spec.py``); ``Compare``
(``compare.py``, ``table.py``) prints many of them as tables. ``units.py`` picks and names
time units; ``thread_setting.py`` runs a block at a thread count. ``Fuzzer``
(``fuzzer.py``) makes random inputs from ``FuzzedParameter``s (``fuzzed_parameter.py``) and
``FuzzedTensor``s (``fuzzed_tensor.py``).
"""

from __future__ import annotations

from .compare import Compare
from .fuzzed_parameter import FuzzedParameter, ParameterAlias
from .fuzzed_tensor import FuzzedTensor
from .fuzzer import Fuzzer
from .measurement import Measurement
from .table import Colorize, ordered_unique
from .task_spec import TaskSpec
from .thread_setting import set_torch_threads
from .timing import Language, Timer, timer
from .units import select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare", "FuzzedParameter", "FuzzedTensor", "Fuzzer", "Language",
           "Measurement", "ParameterAlias", "TaskSpec", "Timer",
           "ordered_unique", "select_unit", "set_torch_threads", "timer", "trim_sigfig",
           "unit_to_english"]
