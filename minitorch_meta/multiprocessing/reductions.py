"""How tensors and storages cross process boundaries in ``torch.multiprocessing``: a CPU
tensor is moved into shared memory (``share_memory_``, in the sender, as PyTorch) and only
the way to reach that memory travels (a file descriptor, or a file name under the
``file_system`` strategy) with the dtype and geometry; the receiver's tensor views the
same memory, so writes show in both processes.

CUDA and meta tensors are sent by value, as pickling sends them (docs/differences.md:
PyTorch shares CUDA memory through CUDA IPC).
"""

from __future__ import annotations

from multiprocessing.reduction import DupFd, ForkingPickler

from .. import dtypes, shared_memory
from ..backends.registry import get_backend
from ..device import device as Device


def _handle(block):
    """What another process needs to map ``block``: its descriptor, else its name."""
    if block.fd is not None:
        return ("fd", DupFd(block.fd))
    return ("name", block.name)


def _attach(handle, nbytes: int):
    kind, value = handle
    if kind == "fd":
        return shared_memory.attach_fd(value.detach(), nbytes)
    return shared_memory.attach_name(value, nbytes)


def reduce_tensor(tensor):
    """Pickle a CPU tensor as a handle to its (now) shared memory and its geometry."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries.  If "
                           "you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")
    backend = tensor._backend
    if tensor.device.type != "cpu":
        return tensor.__reduce_ex__(2)
    shared_memory.share_memory_(tensor)
    data = tensor._data
    block = shared_memory.shared_block(data)
    geometry = (tuple(data.shape), backend.strides(data), backend.storage_offset(data))
    return (rebuild_tensor, (type(tensor), _handle(block), len(block), tensor.dtype.name,
                             geometry, tensor.requires_grad))


def rebuild_tensor(cls, handle, nbytes: int, dtype_name: str, geometry, requires_grad: bool):
    """The receiving side of ``reduce_tensor``: a tensor over the same shared memory."""
    backend = get_backend(Device("cpu"))
    dtype = dtypes.from_name(dtype_name)
    whole = _attach(handle, nbytes)
    whole = backend.bitcast(whole[:nbytes - nbytes % dtype.itemsize], dtype)
    return cls._make(backend.as_strided(whole, *geometry), backend, requires_grad)


def reduce_untyped_storage(storage):
    """Pickle a CPU storage as a handle to its (now) shared memory."""
    if storage.device.type != "cpu":
        return storage.__reduce__()
    storage.share_memory_()
    block = shared_memory.shared_block(storage._bytes)
    start = storage.data_ptr() - shared_memory.block_address(block)
    return (rebuild_untyped_storage, (_handle(block), len(block), start, storage.nbytes()))


def rebuild_untyped_storage(handle, block_nbytes: int, start: int, nbytes: int):
    from ..storage import UntypedStorage

    whole = _attach(handle, block_nbytes)
    return UntypedStorage._wrap(whole[start:start + nbytes], get_backend(Device("cpu")))


def reduce_typed_storage(storage):
    from ..storage import TypedStorage

    return (TypedStorage._wrap, (storage.untyped(), storage.dtype))


def init_reductions() -> None:
    """Register the reducers with multiprocessing's pickler (for its exact classes, as
    ``ForkingPickler`` looks them up: Tensor, Parameter, Buffer and the storages)."""
    from ..nn.parameter import Buffer, Parameter
    from ..storage import LEGACY_CLASSES, TypedStorage, UntypedStorage
    from ..tensor import Tensor

    for cls in (Tensor, Parameter, Buffer):
        ForkingPickler.register(cls, reduce_tensor)
    ForkingPickler.register(UntypedStorage, reduce_untyped_storage)
    for cls in (TypedStorage, *LEGACY_CLASSES.values()):
        ForkingPickler.register(cls, reduce_typed_storage)
