"""Collectives on 2 ranks: every check raises on failure; each rank prints "ok RANK".

usage: python collectives.py
"""

import numpy as np

import minitorch_meta as mt
import minitorch_meta.distributed as dist
from minitorch_meta.distributed import ReduceOp


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(f"rank {dist.get_rank()}: {what}")


def main() -> None:
    group = dist.init()
    rank, world = dist.get_rank(), dist.get_world_size()
    check(world == 2 and dist.is_initialized() and group.local_rank == rank, "group")

    for op, expected in [(ReduceOp.SUM, [3.0, 6.0]), (ReduceOp.AVG, [1.5, 3.0]),
                         (ReduceOp.MAX, [2.0, 4.0]), (ReduceOp.MIN, [1.0, 2.0]),
                         (ReduceOp.PRODUCT, [2.0, 8.0])]:
        t = mt.tensor([1.0, 2.0]) * (rank + 1)
        dist.all_reduce(t, op)
        check(t.tolist() == expected, f"{op}: {t.tolist()} != {expected}")

    counts = mt.tensor([rank, 10], dtype=mt.int64)
    dist.all_reduce(counts)
    check(counts.tolist() == [1, 20] and counts.dtype == mt.int64, f"int64 sum {counts}")

    # A non-contiguous tensor (a transposed view) is reduced and written back in place.
    base = mt.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3) * (rank + 1))
    view = base.t()
    dist.all_reduce(view)
    check(np.array_equal(view.numpy(), (np.arange(6).reshape(2, 3) * 3).T), "strided view")

    t = mt.full((2, 2), float(rank))
    dist.broadcast(t, src=1)
    check(t.tolist() == [[1.0, 1.0], [1.0, 1.0]], f"broadcast from 1: {t.tolist()}")

    check(dist.all_reduce_values([rank, 1.5]) == [1.0, 3.0], "all_reduce_values")
    meta = mt.empty(4, 5, device="meta")
    dist.all_reduce(meta)  # nothing to send: the shape is all a meta tensor has
    check(tuple(meta.shape) == (4, 5), "meta")

    for bad, error in [(lambda: dist.broadcast(t, src=2), ValueError),
                       (lambda: dist.all_reduce(counts, ReduceOp.AVG), TypeError),
                       (lambda: dist.all_reduce(np.ones(2)), TypeError)]:
        try:
            bad()
        except error:
            pass
        else:
            raise AssertionError(f"rank {rank}: expected {error.__name__}")
    dist.barrier()
    print(f"ok {rank}", flush=True)


if __name__ == "__main__":
    main()
