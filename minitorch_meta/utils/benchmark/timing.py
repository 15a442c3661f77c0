"""``Timer``: ``timeit.Timer`` made aware of minitorch_meta, as ``torch.utils.benchmark.Timer``.

It times a statement at a fixed thread count (``num_threads``, restored afterwards), waits
for queued CUDA kernels before reading the clock (the default ``timer``), warms up before
measuring, and returns ``Measurement``s whose replicates show the noise. ``blocked_autorange``
picks a block of runs long enough that reading the clock costs nothing next to it, then
times blocks until ``min_run_time`` has passed; ``adaptive_autorange`` goes on until the
blocks agree (interquartile range under ``threshold`` of the median).

minitorch_meta is pure Python over NumPy and CuPy: there is no C++ API to time, so
``language="c++"`` and ``collect_callgrind`` (instruction counts of C++ code under Valgrind)
raise ``NotImplementedError`` saying so.
"""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit_module
from collections.abc import Callable
from typing import Any, NoReturn

from ...backends.registry import any_created
from .measurement import Measurement
from .task_spec import TaskSpec
from .thread_setting import set_torch_threads


def timer() -> float:
    """``timeit.default_timer()``, read once every queued CUDA kernel has finished.

    CUDA kernels run asynchronously, so the clock is read only after
    ``torch.cuda.synchronize()``. Until a CUDA device has been used nothing can be queued, so
    there is nothing to wait for (and asking CuPy whether a GPU is usable would cost more
    than the runs being timed).
    """
    if any_created("cuda"):
        from ... import cuda

        cuda.synchronize()
    return _timeit_module.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_PYTHON_NAMES = (Language.PYTHON, "py", "python")
_CPP_NAMES = (Language.CPP, "cpp", "c++")
NO_CPP = ("minitorch_meta is pure Python (over NumPy and CuPy) and has no C++ API, so there "
          "is no C++ to compile and time; time Python code (language='python')")


def _clean(code: str) -> str:
    """``code`` dedented, without the newline that opens a triple-quoted block or trailing
    blank space (so that snippets written inside functions run and print neatly)."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Times ``stmt`` (after ``setup``) in a loop; see the module docstring.

    Args:
        stmt: the code timed. setup: code run before each timing (defines its variables).
        global_setup: C++ only (refused here). timer: the clock (default: ``timer``, which
            synchronises CUDA). globals: the variables ``stmt`` sees (``torch`` is
            ``minitorch_meta`` unless given). label, sub_label, description, env: how the
            result is named and grouped by ``Compare``. num_threads: the thread count the
            statement runs at. language: ``"python"`` (C++ is refused).

    Raises:
        ValueError: a ``stmt`` that is not a string, an unknown ``language``, or a
            ``global_setup`` for Python.
        NotImplementedError: ``language="c++"``.
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in _CPP_NAMES:
            raise NotImplementedError(f"Timer(language={language!r}): {NO_CPP}.")
        if language not in _PYTHON_NAMES:
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                             "this code can simply be moved to `setup`.")
        self._language = Language.PYTHON
        # a copy, so that what running the code adds (``__builtins__``) stays here
        self._globals = dict(globals or {})
        if "torch" not in self._globals:
            import minitorch_meta

            self._globals["torch"] = minitorch_meta
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = _timeit_module.Timer(stmt=stmt, setup=setup, timer=timer,
                                           globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                   label=label, sub_label=sub_label, description=description,
                                   env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # at least 1 ns: a clock read alone takes longer, and times are divided by it
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run ``stmt`` ``number`` times (after a warm-up of a hundredth of that, at least 2)
        and return one measurement of that block, as ``timeit.Timer.timeit``."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return Measurement(number_per_run=number, raw_times=[self._timeit(number)],
                               task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        """Not offered, as in PyTorch: ``blocked_autorange`` measures replicates."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], NoReturn] | None = None) -> None:
        """Not offered, as in PyTorch: ``blocked_autorange`` picks the block size."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs whose time dwarfs the timer's own cost (10^4
        times it, and a thousandth of ``min_run_time``), or exceeds ``min_run_time``. It
        also warms up."""
        with set_torch_threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(5))[2]
            number = 1
            while True:
                time_taken = self._timeit(number)
                if overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000:
                    break
                # PyTorch's bound (its C++ timer takes a 32-bit count), kept for the same counts
                if time_taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measurement_loop(self, number: int, stop: Callable[[list[float]], bool],
                          min_run_time: float, max_run_time: float | None,
                          callback: Callable[[int, float], Any] | None) -> Measurement:
        """Time blocks of ``number`` runs until ``min_run_time`` has passed and ``stop``
        agrees, or ``max_run_time`` has passed; ``callback(number, seconds)`` sees each."""
        total_time, can_stop, times = 0.0, False, []
        with set_torch_threads(self._task_spec.num_threads):
            while total_time < min_run_time or not can_stop:
                time_spent = self._timeit(number)
                times.append(time_spent)
                total_time += time_spent
                if callback:
                    callback(number, time_spent)
                can_stop = stop(times)
                if max_run_time and total_time > max_run_time:
                    break
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def blocked_autorange(self, callback: Callable[[int, float], NoReturn] | None = None,
                          min_run_time: float = 0.2) -> Measurement:
        """Time blocks of runs, each long enough that reading the clock (and synchronising
        CUDA) is negligible beside it, until ``min_run_time`` seconds have passed.
        ``callback(number, seconds)`` is called after each block."""
        number = self._estimate_block_size(min_run_time)
        return self._measurement_loop(number, lambda times: True, min_run_time, None, callback)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Callable[[int, float], NoReturn] | None = None,
                           ) -> Measurement:
        """Like ``blocked_autorange``, but goes on until there are more than 3 blocks whose
        interquartile range is under ``threshold`` of their median (and ``min_run_time`` has
        passed), or until ``max_run_time`` has."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times: list[float]) -> bool:
            return len(times) > 3 and Measurement(
                number_per_run=number, raw_times=times,
                task_spec=self._task_spec).meets_confidence(threshold=threshold)

        return self._measurement_loop(number, stop, min_run_time, max_run_time, callback)

    def collect_callgrind(self, number: int = 100, *, repeats: int | None = None,
                          collect_baseline: bool = True, retain_out_file: bool = False) -> Any:
        """Refused: Callgrind counts the instructions of PyTorch's C++ code, and
        minitorch_meta has none (time it with ``blocked_autorange``, or profile it with
        ``torch.profiler``)."""
        raise NotImplementedError(
            "Timer.collect_callgrind counts instructions in PyTorch's C++ under Valgrind; "
            "minitorch_meta runs as Python over NumPy and CuPy, so there is no C++ to "
            "count. Use blocked_autorange() for times, or torch.profiler for each op's.")
