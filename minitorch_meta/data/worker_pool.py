"""``WorkerPool``: a ``DataLoader``'s worker processes and the iterator over their batches,
as PyTorch's ``_MultiProcessingDataLoaderIter``.

The main process sends each task (the indices of a batch, or None for "the next batch of
your stream") to the next worker in turn, keeping at most ``prefetch_factor *
num_workers`` tasks outstanding, and yields the answers in task order (``in_order``; else
as they arrive). A worker whose ``IterableDataset`` copy is exhausted gets no more tasks;
the pass ends when no task is left. The processes stop when the pass ends (unless
``persistent``), and in any case when the pool is garbage-collected or the interpreter
exits (``weakref.finalize``): no process outlives its pool.
"""

from __future__ import annotations

import itertools
import os
import queue
import weakref
from collections.abc import Iterator

from .worker_error import WorkerError
from .worker_loop import STATUS_CHECK_INTERVAL, ResumeIteration, StreamEnd, WorkerSetup, worker_loop

# How long (seconds) shutting down waits for a worker to leave its loop before ending it.
JOIN_TIMEOUT = 5.0


class WorkerPool:
    """``num_workers`` processes from ``context`` serving the tasks of ``setup``.

    Args:
        setup: what every worker shares (dataset, fetcher factory, init function, seed).
        context: a ``multiprocessing`` context (its start method).
        prefetch_factor: tasks outstanding per worker.
        timeout: seconds to wait for one batch (0: no limit).
        in_order: yield batches in task order (else as they come).
        persistent: keep the processes from one pass to the next (``start_pass``).
    """

    def __init__(self, setup: WorkerSetup, context, prefetch_factor: int, timeout: float,
                 in_order: bool, persistent: bool) -> None:
        self.num_workers = setup.num_workers
        self.iterable = setup.iterable
        self.max_tasks = prefetch_factor * self.num_workers
        self.timeout = timeout
        self.in_order = in_order
        self.persistent = persistent
        self.results = context.Queue()
        self.done_event = context.Event()
        self.index_queues, self.workers = [], []
        for worker_id in range(self.num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # a queue of small tasks nobody may still read
            worker = context.Process(target=worker_loop, daemon=True,
                                     args=(worker_id, setup, index_queue, self.results,
                                           self.done_event))
            worker.start()
            self.index_queues.append(index_queue)
            self.workers.append(worker)
        self._finalizer = weakref.finalize(self, stop_workers, os.getpid(), self.workers,
                                           self.index_queues, self.results, self.done_event)
        self.passes = 0

    # -- one pass ------------------------------------------------------------------------

    def start_pass(self, tasks: Iterator) -> WorkerPool:
        """Begin a pass over ``tasks`` (the workers restart their streams from a second
        pass on) and return self, the iterator over its batches."""
        if self.passes > 0:
            self._resume_workers()
        self.passes += 1
        self.tasks = tasks
        self.sent = self.received = 0  # numbers of the next task to send / to yield
        self.pending = {}  # task number -> (worker id,) or (worker id, answer)
        self.outstanding = 0
        self.active = [True] * self.num_workers  # still has batches this pass
        self.worker_tasks = [0] * self.num_workers
        self.turn = itertools.cycle(range(self.num_workers))
        for _ in range(self.max_tasks):
            self._send_task()
        return self

    def __iter__(self) -> WorkerPool:
        return self

    def __next__(self):
        while True:
            if not self._skip_to_live_task():
                if not self.persistent:
                    self.shutdown()
                raise StopIteration
            info = self.pending[self.received]
            if len(info) == 2:  # answered earlier, out of order
                del self.pending[self.received]
                self.received += 1
                return self._deliver(*info)
            number, answer = self._receive()
            self.outstanding -= 1
            if isinstance(answer, StreamEnd):
                self.active[answer.worker_id] = False
                self._send_task()
                continue
            if number == self.received or not self.in_order:
                worker_id = self.pending.pop(number)[0]
                self.received += number == self.received
                return self._deliver(worker_id, answer)
            self.pending[number] += (answer,)

    def shutdown(self) -> None:
        """Stop the worker processes (idempotent)."""
        self._finalizer()

    # -- helpers -------------------------------------------------------------------------

    def _skip_to_live_task(self) -> bool:
        """Move ``received`` past tasks that will never be answered (sent to a worker
        whose stream ended first); False when no task is left."""
        while self.received < self.sent:
            info = self.pending.get(self.received)
            if info is not None and (len(info) == 2 or self.active[info[0]]):
                return True
            self.pending.pop(self.received, None)
            self.received += 1
        return False

    def _send_task(self) -> None:
        """Give the next task to the next worker in turn that still has work (in order),
        or that has room for it (out of order)."""
        if self.outstanding >= self.max_tasks:
            return
        try:
            task = next(self.tasks)
        except StopIteration:
            return
        for _ in range(self.num_workers):
            worker_id = next(self.turn)
            if self.active[worker_id] and (
                    self.in_order
                    or self.worker_tasks[worker_id] < self.max_tasks // sum(self.active)):
                break
        else:
            return
        self.index_queues[worker_id].put((self.sent, task))
        self.pending[self.sent] = (worker_id,)
        self.worker_tasks[worker_id] += 1
        self.outstanding += 1
        self.sent += 1

    def _deliver(self, worker_id: int, answer):
        self.worker_tasks[worker_id] -= 1
        self._send_task()
        if isinstance(answer, WorkerError):
            answer.reraise()
        return answer

    def _receive(self):
        """The next answer of any worker, within ``timeout`` when one is set."""
        if self.timeout > 0:
            try:
                return self.results.get(timeout=self.timeout)
            except queue.Empty:
                self._check_workers_alive()
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds") from None
        while True:
            try:
                return self.results.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                self._check_workers_alive()

    def _check_workers_alive(self) -> None:
        dead = [worker for worker, active in zip(self.workers, self.active)
                if active and not worker.is_alive()]
        if dead:
            pids = ", ".join(str(worker.pid) for worker in dead)
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")

    def _resume_workers(self) -> None:
        """Tell every worker a new pass begins, and drop the answers of the previous pass
        that are still on their way (they come before each worker's acknowledgement)."""
        for index_queue in self.index_queues:
            index_queue.put(ResumeIteration())
        waiting = self.num_workers
        while waiting:
            number, _ = self._receive()
            waiting -= isinstance(number, ResumeIteration)


def stop_workers(owner_pid: int, workers, index_queues, results, done_event) -> None:
    """End the worker processes: ask each to leave its loop, wait a little, then
    terminate those still running; close the queues."""
    if os.getpid() != owner_pid:
        return  # a forked worker holds a copy of the pool: only its owner stops it
    done_event.set()
    for index_queue in index_queues:
        try:
            index_queue.put(None)
        except (OSError, ValueError):
            pass  # already closed
    for worker in workers:
        worker.join(JOIN_TIMEOUT)
        if worker.is_alive():
            worker.terminate()
            worker.join()
    for channel in (*index_queues, results):
        channel.cancel_join_thread()
        channel.close()
