"""``torch.multiprocessing.spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs``
new processes and join them, raising PyTorch's ``ProcessRaisedException`` (with the
child's traceback) or ``ProcessExitedException`` (a non-zero exit code, a signal) for the
first one that fails, after stopping the others."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback

from ..caller_warnings import warn_at_caller

#: seconds a failed run gives the other processes to end after SIGTERM, before SIGKILL
_GRACE_PERIOD = 5.0


class ProcessException(Exception):  # noqa: N818 - PyTorch's name
    """A process of ``spawn`` failed: ``error_index`` (its ``i``) and ``error_pid``."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed by raising an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A process ended with a non-zero ``exit_code`` or by a signal (``signal_name``)."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i: int, args: tuple, error_queue) -> None:
    """A process's body: ``fn(i, *args)``; an exception's traceback goes to the parent."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped the run (SIGINT)
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes of one ``start_processes(join=False)`` run, joined with ``join``."""

    def __init__(self, processes, error_queues):
        self.error_queues = error_queues
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list:
        return [int(process.pid) for process in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: until one ends) for the processes.

        Returns True when all have ended successfully, False while some still run.

        Raises:
            ProcessRaisedException: a process raised (the others are stopped first).
            ProcessExitedException: a process exited with a non-zero code or a signal.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_all(_GRACE_PERIOD if grace_period is None else grace_period)
        raise self._error(failed)

    def _stop_all(self, grace_period: float) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            process.join(grace_period)
            if process.is_alive():
                process.kill()
                process.join()
        self.sentinels.clear()

    def _error(self, index: int) -> ProcessException:
        process, queue = self.processes[index], self.error_queues[index]
        if queue.empty():
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                return ProcessExitedException(f"process {index:d} terminated with signal "
                                              f"{name}", index, process.pid, code, name)
            return ProcessExitedException(f"process {index:d} terminated with exit code "
                                          f"{code:d}", index, process.pid, code)
        message = f"\n\n-- Process {index:d} terminated with the following error:\n"
        return ProcessRaisedException(message + queue.get(), index, process.pid)


class SpawnContext(ProcessContext):
    """The old name of ``ProcessContext`` (PyTorch keeps it)."""


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Start ``nprocs`` processes (``start_method``: "spawn", "fork" or "forkserver")
    running ``fn(i, *args)`` for ``i`` in ``range(nprocs)``; join them (``join=True``,
    returns None) or return their ``ProcessContext``."""
    context = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, error_queue),
                                  daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    run = ProcessContext(processes, error_queues)
    if not join:
        return run
    while not run.join():
        pass
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn"):
    """``start_processes`` with the "spawn" start method (another ``start_method`` warns,
    as PyTorch, and is not used). ``fn`` must be importable: defined at a module's top
    level."""
    if start_method != "spawn":
        warn_at_caller(f"This method only supports start_method=spawn (got: {start_method})."
                       "\nTo use a different start_method use:\n\t\t"
                       " torch.multiprocessing.start_processes(...)", FutureWarning)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
