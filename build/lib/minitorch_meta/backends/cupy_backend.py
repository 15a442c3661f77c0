"""The CUDA backend: the shared ``xp`` kernels over CuPy, plus the few CuPy-only pieces.

CuPy is imported here, lazily, the first time a ``"cuda"`` device is used: importing
minitorch_meta never imports CuPy. Every reason CUDA cannot work becomes one
``CudaUnavailableError`` (a ``DeviceError``) whose ``cause`` is one of ``CAUSES`` and whose
message says what to do (see ``diagnose``).

The CuPy-only pieces are: device selection (every kernel runs with this backend's GPU
current, so ``cuda:1`` allocates on GPU 1), synchronisation, ``cupyx.scatter_add``,
``cupyx.scipy.special.erf`` and the memory numbers (``memory``, a ``cupy_memory.PoolMemory``
whose peaks are raised after every kernel).
"""

from __future__ import annotations

import functools

from ..device import device as Device
from ..errors import DeviceError
from .base import Backend
from .cupy_memory import PoolMemory
from .xp import XpBackend

NOT_INSTALLED = "cupy not installed"
IMPORT_FAILED = "cupy failed to import"
NO_DEVICE = "no cuda device"
DRIVER_TOO_OLD = "driver too old"
INDEX_OUT_OF_RANGE = "device index out of range"
CAUSES = (NOT_INSTALLED, IMPORT_FAILED, NO_DEVICE, DRIVER_TOO_OLD, INDEX_OUT_OF_RANGE)

# CUDA runtime error codes (cudaError_t) that tell the causes apart.
_CUDA_ERROR_INSUFFICIENT_DRIVER = 35
_CUDA_ERROR_NO_DEVICE = 100

_USE_CPU = "use device='cpu' (or 'meta' to check shapes without data)"


class CudaUnavailableError(DeviceError):
    """CUDA cannot be used here; ``cause`` is one of ``CAUSES``, the message says why."""

    def __init__(self, cause: str, message: str):
        super().__init__(message)
        self.cause = cause


def import_cupy():
    """Import CuPy, or raise ``CudaUnavailableError`` saying how to install it."""
    try:
        import cupy
    except ImportError as error:
        if isinstance(error, ModuleNotFoundError) and error.name == "cupy":
            raise CudaUnavailableError(
                NOT_INSTALLED,
                "CUDA was requested but CuPy is not installed. Install the cuda extra "
                "(pip install -e '.[cuda]', which installs cupy-cuda12x) on a machine with an "
                f"NVIDIA GPU and driver, or {_USE_CPU}.") from None
        raise CudaUnavailableError(
            IMPORT_FAILED,
            f"CUDA was requested but CuPy is installed and failed to import ({error}); "
            "reinstall the CuPy wheel matching your CUDA version (cupy-cuda12x for CUDA 12), "
            f"or {_USE_CPU}.") from None
    return cupy


def diagnose(cupy, index: int | None = None) -> CudaUnavailableError | None:
    """Why CUDA device ``index`` cannot be used with the module ``cupy``, or None if it can.

    ``cupy`` is a parameter so that every branch can be tested with a stand-in runtime.
    """
    runtime = cupy.cuda.runtime
    try:
        count = runtime.getDeviceCount()
    except Exception as error:  # CUDARuntimeError, or a driver/library loading error
        return _runtime_failure(runtime, error)
    if count == 0:
        return CudaUnavailableError(
            NO_DEVICE, f"CUDA was requested but no CUDA device was found (CuPy sees 0 devices); "
                       f"{_USE_CPU}.")
    if index is not None and index >= count:
        return CudaUnavailableError(
            INDEX_OUT_OF_RANGE,
            f"CUDA device index {index} is out of range: this machine has {count} CUDA "
            f"device(s), so use 'cuda' or 'cuda:0' to 'cuda:{count - 1}'.")
    return None


def _runtime_failure(runtime, error) -> CudaUnavailableError:
    """Classify an error of ``getDeviceCount``: no driver/device, or a driver too old."""
    status = getattr(error, "status", None)
    text = f"{type(error).__name__}: {error}"
    driver = _driver_version(runtime)
    if status == _CUDA_ERROR_INSUFFICIENT_DRIVER and driver:
        return CudaUnavailableError(
            DRIVER_TOO_OLD,
            f"CUDA was requested but the NVIDIA driver is too old for this CuPy build: the driver "
            f"supports CUDA {_version(driver)}, CuPy needs CUDA {_runtime_version(runtime)} "
            f"({text}). Update the NVIDIA driver, or install the CuPy wheel for your CUDA "
            "version (e.g. cupy-cuda11x).")
    # With no driver at all CUDA reports "insufficient driver" too: that means no GPU here.
    return CudaUnavailableError(
        NO_DEVICE,
        f"CUDA was requested but no CUDA device is usable: CuPy is installed, but "
        f"{'no NVIDIA driver is loaded' if not driver else 'the CUDA runtime fails'} "
        f"({text}). Run on a machine with an NVIDIA GPU and driver, or {_USE_CPU}.")


def _driver_version(runtime) -> int:
    """The CUDA version the driver supports (e.g. 12040), 0 when no driver is loaded."""
    try:
        return int(runtime.driverGetVersion())
    except Exception:  # no libcuda at all
        return 0


def _runtime_version(runtime) -> str:
    try:
        return _version(int(runtime.runtimeGetVersion()))
    except Exception:
        return "(unknown)"


def _version(code: int) -> str:
    return f"{code // 1000}.{code % 1000 // 10}"


def check_cuda(index: int | None = None) -> None:
    """Raise ``CudaUnavailableError`` unless CUDA device ``index`` (None: current) works."""
    error = diagnose(import_cupy(), index)
    if error is not None:
        raise error


def cuda_unavailable_reason(index: int | None = None) -> str | None:
    """Why CUDA device ``index`` cannot be used, as a sentence, or None when it can."""
    try:
        check_cuda(index)
    except CudaUnavailableError as error:
        return str(error)
    return None


def _on_device(method):
    """Run a kernel with this backend's GPU current, so its outputs are allocated there;
    then raise the memory peaks (CuPy keeps none: see ``cupy_memory``)."""
    @functools.wraps(method)
    def kernel(self, *args, **kwargs):
        with self._cuda_device:
            result = method(self, *args, **kwargs)
            self.memory.note_peak()
        return result
    return kernel


def _kernel_names() -> list[str]:
    """Every kernel of the ``Backend`` contract (the public methods of ``base.Backend``)."""
    return [name for name, value in vars(Backend).items()
            if callable(value) and not name.startswith("_")]


class CupyBackend(XpBackend):
    """Arrays are ``cupy.ndarray`` on one GPU; kernels run on its current stream."""

    def __init__(self, index: int | None):
        cupy = import_cupy()
        error = diagnose(cupy, index)
        if error is not None:
            raise error
        import cupyx
        import cupyx.scipy.special  # erf; a submodule that ``import cupyx`` does not load

        if index is None:
            index = cupy.cuda.runtime.getDevice()
        self._cupy, self._cupyx = cupy, cupyx
        self._cuda_device = cupy.cuda.Device(index)
        self.memory = PoolMemory(cupy.get_default_memory_pool(), self._cuda_device)
        with self._cuda_device:
            super().__init__(Device("cuda", index), cupy, cupy.lib.stride_tricks.as_strided)

    def to_numpy(self, a):
        return self._cupy.asnumpy(a)

    def synchronize(self):
        self._cuda_device.synchronize()

    def scatter_add(self, target, index, values):
        self._cupyx.scatter_add(target, index, values)

    def data_ptr(self, a):
        return a.data.ptr

    def block_start(self, a):
        return a.data.mem.ptr  # the allocation this array's memory pointer points into

    def storage_size(self, a):
        # the allocation's size, which CuPy's memory pool rounds up (docs/differences.md)
        return a.data.mem.size // a.itemsize

    def erf(self, a):
        return self._cupyx.scipy.special.erf(a)

    def cumprod(self, a, axis):
        # CuPy's ufuncs accumulate only with ``add``, so not ``multiply.accumulate`` as in
        # XpBackend (which NumPy keeps: its ``cumprod`` function would warn from NumPy's
        # module, outside our filter); float16 runs in float32, as there.
        wide = self._accumulator(a)
        return self._cupy.cumprod(a, axis=axis, dtype=wide).astype(a.dtype, copy=False)

    def generator_state(self, generator):
        raise NotImplementedError(_NO_CUDA_RNG_STATE)

    def set_generator_state(self, generator, state):
        raise NotImplementedError(_NO_CUDA_RNG_STATE)


# CuPy's XORWOW generator keeps its state in device memory that its Python API does not
# expose, so there is nothing faithful to save.
_NO_CUDA_RNG_STATE = ("the state of a CUDA generator cannot be saved or restored (CuPy does "
                      "not expose it); reseed with manual_seed(seed) to repeat a CUDA stream")


for _name in _kernel_names():
    if _name not in ("to_numpy", "synchronize"):
        setattr(CupyBackend, _name, _on_device(getattr(CupyBackend, _name)))
del _name
