"""``DistributedDataParallel``: the same model on every rank, each on its own share of the
batch, with gradients averaged so that every rank takes the same optimizer step.

- At construction, rank 0's parameters and buffers are broadcast to every rank, packed in
  one flat buffer (one per device and dtype). Parameters of lazy modules
  (``LazyLinear``...) have no shape yet: a forward pre-hook on each lazy module broadcasts
  its parameters right after its first call gives them a shape and before it computes
  with them, so even the first forward uses rank 0's initial values everywhere.
- ``reduce_gradients()`` averages every parameter's ``.grad`` across ranks in one flat
  buffer per step (one per device and dtype: a float32 model has one), reused from step to
  step. A parameter no rank computed a gradient for keeps ``grad = None``, one that some
  rank did not use gets the average with zeros there, so all ranks stay identical.

Where we differ from PyTorch on purpose: PyTorch reduces gradients from autograd hooks while
``backward`` runs; here it is an explicit call after ``backward``, made for you by
``DistributedOptimizer.step()`` (ChainerMN's multi-node optimizer, Horovod's
``DistributedOptimizer``). Without overlapping communication and backward, one flat buffer
(a single collective) is the fastest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable

from ..autograd import enable_grad
from ..nn.module import Module
from ..nn.parameter import is_lazy
from .collectives import ReduceOp, all_reduce_array, broadcast_array
from .process_group import group


class DistributedDataParallel(Module):
    """Wrap ``module`` for data-parallel training across the ranks of the process group.

    Args:
        module: the model (the same architecture on every rank).
        broadcast_buffers: also copy rank 0's buffers at construction (and after lazy
            modules are materialised).

    Raises:
        TypeError: ``module`` is not a ``Module``.
        RuntimeError: the process group is not initialised (call ``init()`` first).
    """

    def __init__(self, module: Module, *, broadcast_buffers: bool = True):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel wraps an nn.Module, got "
                            f"{type(module).__name__}")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.process_group = group()
        self._flat_buffers: dict = {}
        self._lazy_handles: dict = {}  # id(lazy module) -> its broadcasting pre-hook
        members = [value for value in self._states(module, recurse=True) if not is_lazy(value)]
        self._broadcast(members)
        for submodule in module.modules():
            waiting = getattr(submodule, "has_uninitialized_params", None)
            if waiting is not None and waiting():
                handle = submodule.register_forward_pre_hook(self._after_materialise)
                self._lazy_handles[id(submodule)] = handle

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    # -- initial states ------------------------------------------------------------------
    def _states(self, module: Module, recurse: bool) -> list:
        states = list(module.parameters(recurse=recurse))
        if self.broadcast_buffers:
            states += [b for b in module.buffers(recurse=recurse) if b is not None]
        return states

    def _after_materialise(self, module: Module, args) -> None:
        """Runs after the lazy module's own pre-hook gave its parameters a shape."""
        self._broadcast(self._states(module, recurse=False))
        self._lazy_handles.pop(id(module)).remove()

    def _broadcast(self, tensors: list) -> None:
        """Give every rank rank 0's values of ``tensors`` (one collective per device/dtype)."""
        current = self.process_group
        if current.size == 1:
            return
        for members in _by_storage(tensors).values():
            with _on_device(members[0]):
                self._broadcast_group(current, members)

    @staticmethod
    def _broadcast_group(current, members: list) -> None:
        backend = members[0]._backend  # allocates on the members' device (cuda:N)
        flat = backend.empty((sum(t.numel() for t in members),), members[0].dtype)
        for t, view in _views(flat, members):
            view[...] = t._data
        broadcast_array(current, flat, 0, cuda=members[0].is_cuda)
        for t, view in _views(flat, members):
            t._backend.setitem(t._data, Ellipsis, view)

    # -- gradients -----------------------------------------------------------------------
    def reduce_gradients(self) -> None:
        """Average ``.grad`` of every parameter across ranks, in one flat buffer per step.

        Call it after ``backward()`` and before ``optimizer.step()`` (``DistributedOptimizer``
        does). In a group of one process it does nothing.

        Raises:
            RuntimeError: a parameter is still uninitialised (a lazy module the forward never
                called).
        """
        current = self.process_group
        if current.size == 1:
            return
        params = []
        for name, p in self.module.named_parameters():
            if is_lazy(p):
                raise RuntimeError(f"DistributedDataParallel: parameter {name!r} is still "
                                   "uninitialised (its lazy module was never called); run a "
                                   "forward pass before reducing gradients")
            if p.requires_grad:
                params.append(p)
        for key, members in _by_storage(params).items():
            with _on_device(members[0]):
                self._reduce_group(current, key, members)

    def _reduce_group(self, current, key, members: list) -> None:
        # Layout: every gradient, then one flag per parameter (1 where this rank has a
        # gradient), so that after the sum a parameter gets a gradient iff some rank had one.
        backend = members[0]._backend  # allocates on the members' device (cuda:N)
        total = sum(p.numel() for p in members)
        flat = self._flat_buffers.get(key)
        if flat is None or flat.size != total + len(members):
            flat = backend.empty((total + len(members),), members[0].dtype)
            self._flat_buffers[key] = flat
        flags = flat[total:]
        for index, (p, view) in enumerate(_views(flat, members)):
            if p._grad is None:
                view[...] = 0
                flags[index] = 0
            else:
                view[...] = p._grad._data
                flags[index] = 1
        all_reduce_array(current, flat, ReduceOp.AVG, cuda=members[0].is_cuda)
        used = backend.to_numpy(flags).tolist()
        for (p, view), flag in zip(_views(flat, members), used):
            if flag == 0:
                continue  # no rank computed a gradient for it
            if p._grad is None or tuple(p._grad.shape) != tuple(p.shape):
                p._grad = p._wrap(backend.copy(view))
            else:
                p._grad._backend.setitem(p._grad._data, Ellipsis, view)


def _on_device(tensor):
    """CuPy's device context of a cuda tensor (its GPU current), else nothing."""
    if tensor.is_cuda:
        from . import _cuda

        return _cuda.on_device(tensor._data)
    return contextlib.nullcontext()


def _by_storage(tensors: Iterable) -> dict:
    """Tensors holding data, grouped by (device, dtype), each group in the given order."""
    groups: dict = {}
    for t in tensors:
        if t._backend.stores_data:  # meta tensors have nothing to communicate
            groups.setdefault((str(t.device), t.dtype), []).append(t)
    return groups


def _views(flat, tensors: list):
    """``(tensor, view of flat shaped like tensor)`` for consecutive slices of ``flat``."""
    offset = 0
    for t in tensors:
        n = t.numel()
        yield t, flat[offset:offset + n].reshape(tuple(t.shape))
        offset += n


class DistributedOptimizer:
    """An optimizer whose ``step()`` first averages the gradients of ``model`` across ranks.

    ChainerMN's multi-node optimizer (and Horovod's ``DistributedOptimizer``): everything else
    (``zero_grad``, ``param_groups``, ``state_dict``, ...) is the wrapped optimizer's.

    Raises:
        TypeError: ``model`` is not a ``DistributedDataParallel``.
    """

    def __init__(self, optimizer, model: DistributedDataParallel):
        if not isinstance(model, DistributedDataParallel):
            raise TypeError(f"DistributedOptimizer needs the DistributedDataParallel model "
                            f"whose gradients it averages, got {type(model).__name__}")
        self.optimizer = optimizer
        self.model = model

    def step(self, closure: Callable | None = None):
        """Average the gradients, then take the wrapped optimizer's step.

        With a ``closure``, it is run first (it recomputes the loss and its gradients), so
        the averaged gradients are those of this step; its loss is returned.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self.model.reduce_gradients()
        self.optimizer.step()
        return loss

    def __getattr__(self, name: str):
        if name in ("optimizer", "model"):  # not set yet (during copy/unpickling)
            raise AttributeError(name)
        return getattr(self.optimizer, name)

    def __repr__(self) -> str:
        return f"DistributedOptimizer({self.optimizer!r})"
