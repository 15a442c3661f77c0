"""The CuPy-only part of ``distributed``: NCCL collectives on cuda arrays, and the copies to
and from host memory used when NCCL is not available.

CuPy and ``cupy.cuda.nccl`` are imported here only, and only when a cuda tensor takes part
in a collective. One NCCL communicator is made per GPU, the first time it is needed: rank 0
draws NCCL's unique id and MPI broadcasts it (the standard bootstrap, as ChainerMN did).
Collectives run on CuPy's current stream, the one our cupy backend's kernels run on, so no
extra synchronisation is needed before the next kernel reads the result.

This module could not be run where it was written (no GPU, no libnccl): see
docs/distributed.md.
"""

from __future__ import annotations

#: ``ReduceOp`` names -> the attribute of ``cupy.cuda.nccl`` holding NCCL's operator.
_NCCL_OPS = {"sum": "NCCL_SUM", "product": "NCCL_PROD", "max": "NCCL_MAX", "min": "NCCL_MIN"}
#: NumPy dtype names -> NCCL's data type constants.
_NCCL_TYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
               "int32": "NCCL_INT32", "int64": "NCCL_INT64", "uint8": "NCCL_UINT8",
               "int8": "NCCL_INT8"}  # NCCL has no 16-bit integer type


def _nccl_module():
    """``cupy.cuda.nccl``, or None with the reason it is unusable."""
    try:
        from cupy.cuda import nccl
    except ImportError as error:
        return None, f"cupy.cuda.nccl cannot be imported ({error})"
    if not getattr(nccl, "available", False):
        return None, ("CuPy cannot load libnccl (pip install nvidia-nccl-cu12, or install "
                      "NCCL from NVIDIA's packages)")
    return nccl, None


def nccl_unavailable_reason() -> str | None:
    """Why NCCL cannot be used through CuPy here, or None when it can."""
    return _nccl_module()[1]


def _check_dtype(array) -> str:
    name = array.dtype.name
    if name not in _NCCL_TYPES:
        raise TypeError(f"NCCL collectives take {', '.join(_NCCL_TYPES)} arrays, got {name}")
    return name


def communicator(group, device_index: int):
    """The NCCL communicator of ``group`` on GPU ``device_index`` (made on first use).

    Every rank must call this at the same point (it is collective: MPI broadcasts the id).
    """
    cached = group.nccl_communicators.get(device_index)
    if cached is not None:
        return cached
    nccl, reason = _nccl_module()
    if nccl is None:
        raise RuntimeError(f"NCCL was requested (backend='nccl') but {reason}")
    unique_id = nccl.get_unique_id() if group.rank == 0 else None
    unique_id = group.comm.bcast(unique_id, root=0)
    import cupy

    with cupy.cuda.Device(device_index):
        made = nccl.NcclCommunicator(group.size, unique_id, group.rank)
    group.nccl_communicators[device_index] = made
    return made


def _run_nccl(group, array, call) -> None:
    """``call(comm, nccl, nccl_dtype, stream_ptr)`` with the communicator of ``array``'s GPU,
    that GPU selected and CuPy's current stream (the one our kernels run on)."""
    import cupy
    from cupy.cuda import nccl

    nccl_dtype = getattr(nccl, _NCCL_TYPES[_check_dtype(array)])
    device_index = array.device.id
    comm = communicator(group, device_index)
    with cupy.cuda.Device(device_index):
        call(comm, nccl, nccl_dtype, cupy.cuda.get_current_stream().ptr)


def all_reduce(group, array, op: str) -> None:
    """Reduce the C-contiguous cupy ``array`` in place across the group with NCCL."""

    def reduce(comm, nccl, dtype, stream):
        comm.allReduce(array.data.ptr, array.data.ptr, array.size, dtype,
                       getattr(nccl, _NCCL_OPS[op]), stream)

    _run_nccl(group, array, reduce)


def broadcast(group, array, root: int) -> None:
    """Overwrite the C-contiguous cupy ``array`` with rank ``root``'s, with NCCL."""

    def bcast(comm, nccl, dtype, stream):
        comm.bcast(array.data.ptr, array.size, dtype, root, stream)

    _run_nccl(group, array, bcast)


def use_nccl(group) -> bool:
    """Whether cuda arrays of ``group`` go through NCCL (else MPI on host memory).

    Decided once, collectively: NCCL is used only if every rank can use it, so that all
    ranks always take the same path.

    Raises:
        RuntimeError: ``backend='nccl'`` was asked for and NCCL is not usable on some rank.
    """
    if group.nccl_decision is not None:
        return group.nccl_decision
    reason = nccl_unavailable_reason()
    everyone = group.comm.allreduce(1 if reason is None else 0, op=group.MPI.MIN) == 1
    if not everyone and group.nccl:
        why = reason or "another rank cannot load NCCL"
        raise RuntimeError(f"init(backend='nccl') needs NCCL on every rank, but {why}; use "
                           "init(backend='mpi') to reduce cuda tensors through host memory")
    group.nccl_decision = everyone
    return everyone


def on_device(array):
    """A context in which CuPy works on ``array``'s GPU (kernels and allocations)."""
    import cupy

    return cupy.cuda.Device(array.device.id)


def to_host(array):
    """A NumPy copy of the cupy ``array`` (synchronises)."""
    import cupy

    return cupy.asnumpy(array)


def from_host(array, host) -> None:
    """Copy the NumPy array ``host`` back into the cupy ``array``."""
    array.set(host)
