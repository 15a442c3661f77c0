"""The body of a ``DataLoader`` worker process (``worker_loop``), as PyTorch's.

A worker seeds its generators, records its ``WorkerInfo``, runs ``worker_init_fn`` and
then serves tasks from its own index queue until told to stop: each task ``(number,
index)`` is answered on the shared result queue with ``(number, batch)``, or with a
``WorkerError`` when building the batch raised, or with ``StreamEnd`` once its copy of an
``IterableDataset`` is exhausted. ``ResumeIteration`` (a persistent worker's next epoch)
builds a fresh fetcher; None ends the loop.
"""

from __future__ import annotations

import os
import queue
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..random import manual_seed
from .worker_error import WorkerError
from .worker_info import WorkerInfo, set_worker_info

# How often (seconds) a waiting worker checks that its parent process still lives, and a
# waiting main process that its workers do.
STATUS_CHECK_INTERVAL = 5.0


@dataclass(frozen=True)
class StreamEnd:
    """A worker's answer once its ``IterableDataset`` iterator is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Start the next epoch (persistent workers): the worker answers with this marker."""


@dataclass(frozen=True)
class WorkerSetup:
    """What every worker of one pool shares."""

    num_workers: int
    dataset: object
    iterable: bool
    make_fetcher: Callable
    init_fn: Callable | None
    base_seed: int
    parent_pid: int


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed this worker's generators as PyTorch does: our default ones and Python's
    ``random`` with ``base_seed + worker_id``, NumPy's global one with a state mixed from
    both (so no two workers share a NumPy stream). Returns the seed."""
    seed = base_seed + worker_id
    manual_seed(seed)
    random.seed(seed)
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    np.random.seed(np.random.SeedSequence(entropy).generate_state(4))
    return seed


def worker_loop(worker_id: int, setup: WorkerSetup, index_queue, result_queue,
                done_event) -> None:
    """Serve tasks until the main process sends None (or dies)."""
    try:
        seed = seed_worker(setup.base_seed, worker_id)
        set_worker_info(WorkerInfo(id=worker_id, num_workers=setup.num_workers, seed=seed,
                                   dataset=setup.dataset))
        fetch, init_error = None, None
        try:
            if setup.init_fn is not None:
                setup.init_fn(worker_id)
            fetch = setup.make_fetcher()
        except Exception:
            # Reported as the answer to the first task, as PyTorch does.
            init_error = WorkerError(worker_id)
        _serve(worker_id, setup, fetch, init_error, index_queue, result_queue, done_event)
    except KeyboardInterrupt:
        pass  # the main process gets it too and stops the loader
    if done_event.is_set():
        # The main process no longer reads the results: do not wait to flush them.
        result_queue.cancel_join_thread()
        result_queue.close()


def _serve(worker_id, setup, fetch, init_error, index_queue, result_queue, done_event):
    ended = False  # this worker's stream is exhausted for the epoch
    while os.getppid() == setup.parent_pid:
        try:
            task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if task is None:
            return
        if isinstance(task, ResumeIteration):
            result_queue.put((task, None))
            ended, fetch = False, setup.make_fetcher()
            continue
        if done_event.is_set() or ended:
            continue  # skip work until the None that ends the loop
        number, index = task
        if init_error is not None:
            answer, init_error = init_error, None
        else:
            try:
                answer = fetch(index)
            except Exception as error:
                # Only a stream's end is news; a StopIteration from a map-style dataset's
                # __getitem__ is an error like any other.
                ended = setup.iterable and isinstance(error, StopIteration)
                answer = StreamEnd(worker_id) if ended else WorkerError(worker_id)
        result_queue.put((number, answer))
        del answer, task, index
