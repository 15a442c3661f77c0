"""``get_worker_info``: which ``DataLoader`` worker process is running this code.

Each worker process records its ``WorkerInfo`` once, at start-up (worker_loop.py), in this
module's ``_WORKER_INFO``: a per-process value by nature (the main process never sets it,
so there it stays None), as PyTorch keeps it.
"""

from __future__ import annotations

_WORKER_INFO: list = [None]


class WorkerInfo:
    """The worker's ``id`` (0 to ``num_workers - 1``), ``num_workers``, ``seed`` (the one
    its random generators were seeded with) and ``dataset`` (this process's copy).

    Raises:
        RuntimeError: on assigning an attribute after creation (PyTorch's type).
    """

    __slots__ = ("id", "num_workers", "seed", "dataset", "_frozen")

    def __init__(self, *, id: int, num_workers: int, seed: int, dataset) -> None:  # noqa: A002
        for name, value in (("id", id), ("num_workers", num_workers), ("seed", seed),
                            ("dataset", dataset), ("_frozen", True)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value) -> None:
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


def get_worker_info() -> WorkerInfo | None:
    """The ``WorkerInfo`` of the ``DataLoader`` worker process calling this, or None in the
    main process. An ``IterableDataset`` reads it in ``__iter__`` to shard itself (each
    worker otherwise reads the whole stream, so the batches come ``num_workers`` times)."""
    return _WORKER_INFO[0]


def set_worker_info(info: WorkerInfo) -> None:
    """Record this process's ``WorkerInfo`` (called once, in the worker, at start-up)."""
    _WORKER_INFO[0] = info
