"""Data-parallel training across processes and machines, on MPI (mpi4py), as
``torch.distributed``.

A single process (no MPI launcher) is a world of size 1 and needs no MPI nor mpi4py::

    import minitorch_meta.distributed as dist

    dist.init()                                   # rank and world size from mpirun
    model = dist.DistributedDataParallel(model)   # rank 0's initial weights everywhere
    optimizer = dist.DistributedOptimizer(optim.SGD(model.parameters(), lr=0.1), model)
    sampler = dist.DistributedSampler(train_set)  # this rank's share of every epoch
    ...
    loss.backward()
    optimizer.step()                              # averages gradients, then steps

Run with ``mpirun -n 2 python script.py``; see docs/distributed.md. cuda tensors are
reduced with NCCL through CuPy when every rank has it, else through MPI in host memory.
"""

from .collectives import ReduceOp, all_reduce, all_reduce_values, broadcast
from .parallel import DistributedDataParallel, DistributedOptimizer
from .process_group import (
    abort,
    barrier,
    destroy_process_group,
    get_local_rank,
    get_rank,
    get_world_size,
    init,
    init_process_group,
    install_excepthook,
    is_available,
    is_initialized,
    is_main_process,
    launched_under_mpi,
    rank_prefix,
)
from .sampler import DistributedSampler

__all__ = [
    "DistributedDataParallel", "DistributedOptimizer", "DistributedSampler", "ReduceOp",
    "abort", "all_reduce", "all_reduce_values", "barrier", "broadcast",
    "destroy_process_group", "get_local_rank", "get_rank", "get_world_size", "init",
    "init_process_group", "install_excepthook", "is_available", "is_initialized",
    "is_main_process", "launched_under_mpi", "rank_prefix",
]
