"""The process group: who this process is (rank), how many there are (world size), and the
communicator that connects them.

``init()`` decides once per process:

- launched by ``mpirun``/``mpiexec``/``srun`` (detected from the launcher's environment
  variables, ``MPI_LAUNCHER_VARIABLES``), or asked for with ``backend="mpi"``: mpi4py is
  imported (only then) and ``MPI.COMM_WORLD`` is the group;
- otherwise: a single process of world size 1, which needs neither MPI nor mpi4py; every
  collective is then the identity.

When the world has more than one process, ``init`` also installs an exception hook: an
uncaught exception on any rank prints its traceback, tagged with the rank, and calls
``MPI_Abort`` so every other rank stops at once instead of waiting forever in a collective.
"""

from __future__ import annotations

import os
import sys
import traceback

#: Environment variables that MPI launchers set in the processes they start: Open MPI
#: (``OMPI_``), PMIx (Open MPI 5, Slurm), MPICH/Intel MPI's Hydra (``PMI_``), MVAPICH.
MPI_LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                          "MV2_COMM_WORLD_SIZE")
BACKENDS = ("mpi", "nccl")

_INSTALL_HINT = ("mpi4py is needed to run on several processes: install Open MPI "
                 "(apt-get install openmpi-bin libopenmpi-dev) and then "
                 "pip install 'minitorch_meta[distributed]' (see docs/distributed.md)")


class SingleProcessGroup:
    """World size 1 without MPI: collectives return their input unchanged."""

    rank = 0
    size = 1
    local_rank = 0
    backend = "single"
    comm = None

    def abort(self, exit_code: int = 1) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)

    def __repr__(self) -> str:
        return "SingleProcessGroup(rank=0, size=1)"


class MPIGroup:
    """``MPI.COMM_WORLD`` through mpi4py; ``nccl`` says whether cuda tensors must use NCCL
    (``True``), may use it when available (``None``), or never do (``False``)."""

    def __init__(self, mpi, nccl: bool | None):
        self.MPI = mpi
        self.comm = mpi.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        # The processes sharing this machine's memory: rank among them picks the GPU.
        node = self.comm.Split_type(mpi.COMM_TYPE_SHARED)
        self.local_rank = node.Get_rank()
        node.Free()
        self.nccl = nccl
        self.nccl_decision = None  # whether cuda tensors use NCCL: decided on first use
        self.backend = "nccl" if nccl else "mpi"
        self.nccl_communicators: dict = {}  # cuda device index -> NcclCommunicator

    def abort(self, exit_code: int = 1) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        self.comm.Abort(exit_code)

    def __repr__(self) -> str:
        return f"MPIGroup(rank={self.rank}, size={self.size}, backend={self.backend!r})"


_group: SingleProcessGroup | MPIGroup | None = None


def launched_under_mpi(environ=None) -> bool:
    """Whether an MPI launcher started this process (its variables are in the environment)."""
    environ = os.environ if environ is None else environ
    return any(name in environ for name in MPI_LAUNCHER_VARIABLES)


def init(backend: str | None = None, *, abort_on_exception: bool = True):
    """Join the process group (once per process) and return it.

    Args:
        backend: None picks MPI when an MPI launcher started this process and a single
            process otherwise; ``"mpi"`` always uses mpi4py (world size 1 without a
            launcher); ``"nccl"`` is ``"mpi"`` plus NCCL required for cuda tensors (by
            default NCCL is used when CuPy has it, else MPI through host memory).
        abort_on_exception: with more than one process, an uncaught exception prints its
            traceback tagged with the rank and aborts every rank (``MPI_Abort``).

    Returns:
        the group, with ``rank``, ``size`` and ``local_rank`` (rank on this machine).

    Raises:
        ValueError: an unknown backend, or a different backend than a previous ``init``.
        RuntimeError: MPI is needed and mpi4py cannot be imported (says how to install it).
    """
    global _group
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"init: backend must be None, 'mpi' or 'nccl', got {backend!r}")
    if _group is not None:
        if backend is not None and backend != _group.backend:
            raise ValueError(f"init: the process group is already initialised with backend "
                             f"{_group.backend!r}; cannot switch to {backend!r}")
        return _group
    if backend is None and not launched_under_mpi():
        _group = SingleProcessGroup()
        return _group
    _group = MPIGroup(_import_mpi(), nccl=True if backend == "nccl" else None)
    if abort_on_exception and _group.size > 1:
        install_excepthook()
    return _group


init_process_group = init


def _import_mpi():
    try:
        from mpi4py import MPI
    except ImportError as error:
        launched = " (this process was started by an MPI launcher)" if launched_under_mpi() \
            else ""
        raise RuntimeError(f"{_INSTALL_HINT}{launched}; importing it failed with: {error}") \
            from None
    return MPI


def destroy_process_group() -> None:
    """Forget the group (MPI itself is finalised by mpi4py when the interpreter exits)."""
    global _group
    _group = None


def is_available() -> bool:
    """Whether this installation can run on several processes (mpi4py is importable)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_initialized() -> bool:
    return _group is not None


def group():
    """The current group.

    Raises:
        RuntimeError: ``init()`` has not been called.
    """
    if _group is None:
        raise RuntimeError("Default process group has not been initialized: call "
                           "minitorch_meta.distributed.init() (init_process_group) first")
    return _group


def get_rank() -> int:
    """This process's rank, from 0 to ``get_world_size() - 1``."""
    return group().rank


def get_world_size() -> int:
    """The number of processes in the group."""
    return group().size


def get_local_rank() -> int:
    """This process's rank among those on the same machine (which GPU to use)."""
    return group().local_rank


def is_main_process() -> bool:
    """True on rank 0, or when no group is initialised (a plain single-process run)."""
    return _group is None or _group.rank == 0


def barrier() -> None:
    """Wait until every process of the group has reached this call."""
    current = group()
    if current.comm is not None:
        current.comm.Barrier()


def abort(exit_code: int = 1) -> None:
    """Stop every process of the group now with ``exit_code`` (``MPI_Abort``); never returns."""
    current = _group if _group is not None else SingleProcessGroup()
    current.abort(exit_code)


def rank_prefix() -> str:
    """``"[rank 1/2] "`` in a multi-process group, else ``""`` (for messages)."""
    if _group is None or _group.size == 1:
        return ""
    return f"[rank {_group.rank}/{_group.size}] "


def report_and_abort(exc_type, exc, tb, exit_code: int = 1) -> None:
    """Print a traceback tagged with this rank on stderr, then abort every rank."""
    prefix = rank_prefix() or "[rank 0/1] "
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    lines = [f"{prefix}uncaught {exc_type.__name__}: aborting every rank"]
    lines += [prefix + line for line in text.rstrip("\n").split("\n")]
    try:
        sys.stderr.write("\n".join(lines) + "\n")
    finally:
        abort(exit_code)


def install_excepthook() -> None:
    """Make an uncaught exception on this rank abort every rank (after showing it)."""
    sys.excepthook = report_and_abort
