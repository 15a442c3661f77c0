"""``torch.autograd.graph.allow_mutation_on_saved_tensors``: in-place writes into tensors
saved for backward, allowed by cloning the saved value first.

Normally, writing in place into a tensor that an op saved for backward makes that
backward raise ("modified by an inplace operation": ``versions.py``). Inside this context
manager the write is allowed: just before it, each saved value whose memory the write
touches is cloned, and backward reads the clone, i.e. the value the op saw. As in
PyTorch, the forward and the backward must both run inside the (one) context.

It is a ``saved_tensors_hooks`` (``saved_tensors_hooks.py``): each saved tensor is packed
into a ``_Handle``, unpacked to the original or its clone. Like every op observer it also
hears of in-place writes first (``before_write``, called by ``Tensor._store``), so no write
pays anything outside the context. As PyTorch does for packed tensors, the nodes it packed
skip the version check: the clones make it moot.

PyTorch finds the saved tensors a write touches by their data pointer and version, which
misses a write through a view that starts elsewhere (``x[1:].mul_(2)`` after ``x`` was
saved); here any overlap of memory counts, so such a write clones too.
"""

from __future__ import annotations

import contextlib
import weakref

from .saved_tensors_hooks import saved_tensors_hooks


class _Handle:
    """What a saved tensor is packed into: a key whose tensor may be cloned later."""

    __slots__ = ("start", "end", "__weakref__")


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: the saved tensors still
    held by some node (``original``) and those cloned before a write (``cloned``), both
    keyed by handle, held weakly: a node freed after backward takes its entries along."""

    def __init__(self) -> None:
        self.original = weakref.WeakKeyDictionary()
        self.cloned = weakref.WeakKeyDictionary()

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()

    def pack(self, tensor) -> _Handle:
        handle = _Handle()
        handle.start, handle.end = _extent(tensor)
        self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle):
        if not _enabled.value:
            raise AssertionError("Trying to backward outside of the "
                                 "'allow_mutation_on_saved_tensors' context in which the graph "
                                 "was originally recorded.")
        found = self.cloned.get(handle)
        if found is None:
            found = self.original.get(handle)
        if found is None:
            raise AssertionError("Trying to backward outside of the "
                                 "'allow_mutation_on_saved_tensors' context in which the graph "
                                 "was originally recorded.")
        return found

    def clone_what_a_write_touches(self, tensor) -> None:
        """Before ``tensor``'s memory is written: clone each saved original it overlaps."""
        start, end = _extent(tensor)
        if start == end:
            return
        for handle, saved in list(self.original.items()):
            if handle.start < end and start < handle.end:
                self.cloned[handle] = saved.clone()
                del self.original[handle]


class _CloneBeforeWrite(saved_tensors_hooks):  # noqa: N801 - as PyTorch's hooks
    """The hooks of one block, and the observer that hears of in-place writes."""

    #: the nodes it packs skip the version check (``saved_tensors_hooks._pack_node``)
    checks_versions = False

    def __init__(self, ctx: _AllowMutationOnSavedContext) -> None:
        super().__init__(ctx.pack, ctx.unpack)
        self.ctx = ctx

    def before_write(self, tensor) -> None:
        """Called by ``Tensor._store`` before an in-place write into ``tensor``."""
        if _enabled.value:
            self.ctx.clone_what_a_write_touches(tensor)


class _Enabled:
    value = False  # process-wide, as PyTorch's flag


_enabled = _Enabled()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Allow in-place writes into tensors saved for backward: the saved value is cloned
    before the write, and backward reads the clone. Run the forward and the backward inside
    the block; yields the block's state (``_AllowMutationOnSavedContext``), cleared at exit.

    Raises:
        RuntimeError when nested (PyTorch's behaviour, also in what follows: the outer
        block then no longer allows mutation, and its backward raises AssertionError).
    """
    ctx = _AllowMutationOnSavedContext()
    with _CloneBeforeWrite(ctx):
        try:
            if _enabled.value:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _enabled.value = True
            yield ctx
        finally:
            ctx.clear()
            _enabled.value = False


def _extent(tensor) -> tuple:
    """The bytes ``[start, end)`` of memory ``tensor``'s elements span (``(0, 0)`` for an
    empty tensor or one without data, such as meta's)."""
    backend, array = tensor._backend, tensor._data
    if not backend.stores_data or array.size == 0:
        return 0, 0
    start = end = backend.data_ptr(array)
    for size, stride in zip(array.shape, array.strides):
        if stride < 0:
            start += stride * (size - 1)
        else:
            end += stride * (size - 1)
    return start, end + array.itemsize
