"""Collectives on tensors, in place, as ``torch.distributed``'s: ``all_reduce`` with a
``ReduceOp``, ``broadcast`` from a source rank, and ``all_reduce_values`` for plain numbers
(metrics).

cpu tensors go through MPI directly from their NumPy memory. cuda tensors go through NCCL
when CuPy has it on every rank, else through MPI via a copy in host memory (``_cuda``).
meta tensors hold no values, so a collective on them only checks its arguments: the result
is a meta tensor of the same shape, as for any op on meta. In a group of one process every
collective leaves the tensor as it is.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Sequence

import numpy as np

from ..int_arguments import is_int
from ..tensor import Tensor
from . import _cuda
from .process_group import group


class ReduceOp(enum.Enum):
    """How ``all_reduce`` combines the ranks' values (``AVG`` is ``SUM`` divided by the world
    size, for floating-point tensors)."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


def _check_tensor(function: str, tensor) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{function} expects a minitorch_meta Tensor (it works in place), got "
                        f"{type(tensor).__name__}")


def _check_op(op, dtype_is_float: bool, dtype_name: str) -> ReduceOp:
    if not isinstance(op, ReduceOp):
        raise TypeError(f"all_reduce: op must be a ReduceOp (ReduceOp.SUM, ReduceOp.AVG, ...), "
                        f"got {op!r}")
    if op is ReduceOp.AVG and not dtype_is_float:
        raise TypeError(f"all_reduce: ReduceOp.AVG needs a floating-point tensor, got "
                        f"{dtype_name}; use ReduceOp.SUM and divide")
    return op


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM) -> None:
    """Combine ``tensor`` across every rank with ``op``; every rank gets the result in place.

    Raises:
        TypeError: ``tensor`` is not a Tensor, ``op`` is not a ``ReduceOp``, or ``AVG`` on
            an integer tensor.
        RuntimeError: the process group is not initialised.
    """
    _check_tensor("all_reduce", tensor)
    _check_op(op, tensor.dtype.is_floating_point, str(tensor.dtype))
    current = group()
    if current.size == 1 or not tensor._backend.stores_data:
        return
    all_reduce_array(current, tensor._data, op, cuda=tensor.is_cuda)


def broadcast(tensor: Tensor, src: int = 0) -> None:
    """Overwrite ``tensor`` on every rank with its value on rank ``src``, in place.

    Raises:
        TypeError: ``tensor`` is not a Tensor.
        ValueError: ``src`` is not a rank of the group.
        RuntimeError: the process group is not initialised.
    """
    _check_tensor("broadcast", tensor)
    current = group()
    _check_rank("broadcast", src, current.size)
    if current.size == 1 or not tensor._backend.stores_data:
        return
    broadcast_array(current, tensor._data, src, cuda=tensor.is_cuda)


def all_reduce_values(values: Sequence[float], op: ReduceOp = ReduceOp.SUM) -> list[float]:
    """Reduce plain numbers (losses, counts) across ranks, as float64; returns a new list.

    Raises:
        TypeError: ``op`` is not a ``ReduceOp``.
    """
    _check_op(op, True, "float64")
    array = np.array([float(v) for v in values], dtype=np.float64)
    current = group()
    if current.size > 1 and array.size:
        all_reduce_array(current, array, op, cuda=False)
    return array.tolist()


def _check_rank(function: str, rank, size: int) -> None:
    if not is_int(rank) or not 0 <= rank < size:
        raise ValueError(f"{function}: src must be a rank from 0 to {size - 1} (world size "
                         f"{size}), got {rank!r}")


# -- arrays (shared with DistributedDataParallel's flat buffers) -------------------------
def _mpi_op(current, op: ReduceOp):
    MPI = current.MPI
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX}[op]


def all_reduce_array(current, array, op: ReduceOp, cuda: bool) -> None:
    """Reduce a NumPy (``cuda=False``) or CuPy array in place across ``current``'s ranks."""
    with _cuda.on_device(array) if cuda else contextlib.nullcontext():
        _all_reduce_array(current, array, op, cuda)


def _all_reduce_array(current, array, op: ReduceOp, cuda: bool) -> None:
    work = array if array.flags.c_contiguous else array.copy()  # MPI/NCCL need one block
    flat = work.reshape(-1)
    if not cuda:
        current.comm.Allreduce(current.MPI.IN_PLACE, flat, op=_mpi_op(current, op))
    elif _cuda.use_nccl(current):
        _cuda.all_reduce(current, flat, "sum" if op is ReduceOp.AVG else op.value)
    else:
        host = _cuda.to_host(flat)
        current.comm.Allreduce(current.MPI.IN_PLACE, host, op=_mpi_op(current, op))
        _cuda.from_host(flat, host)
    if op is ReduceOp.AVG:
        flat /= current.size
    if work is not array:
        array[...] = work


def broadcast_array(current, array, src: int, cuda: bool) -> None:
    """Overwrite a NumPy or CuPy array with rank ``src``'s, in place."""
    with _cuda.on_device(array) if cuda else contextlib.nullcontext():
        _broadcast_array(current, array, src, cuda)


def _broadcast_array(current, array, src: int, cuda: bool) -> None:
    work = array if array.flags.c_contiguous else array.copy()
    flat = work.reshape(-1)
    if not cuda:
        current.comm.Bcast(flat, root=src)
    elif _cuda.use_nccl(current):
        _cuda.broadcast(current, flat, src)
    else:
        host = _cuda.to_host(flat)
        current.comm.Bcast(host, root=src)
        _cuda.from_host(flat, host)
    if work is not array:
        array[...] = work
