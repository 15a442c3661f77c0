"""In-place ops that autograd follows: ``total += loss``, ``h.mul_(w)``, ``F.relu_(y)``.

PyTorch records an in-place op like any other: the written tensor gets the op's node as
its new ``grad_fn``. The tutorials rely on it (the char-RNN generator sums its per-letter
losses into ``loss = torch.Tensor([0])`` with ``loss += l``), and dropping the gradient of
such a write would be silently wrong, so the ops written through ``Tensor._inplace``
follow PyTorch here:

1. the op runs out of place on a *snapshot* of the tensor (a copy of its values that
   takes over its graph identity: ``grad_fn`` and ``requires_grad``), so that what the
   node saves for backward is the old value, never the one written afterwards;
2. the result is written into the tensor's memory (bumping its version: nodes that saved
   the tensor before now refuse to run backward, as PyTorch's do);
3. the tensor takes the result's node: it is no longer a leaf.

A tensor that shares its memory with another (a view, a tensor with views, ``detach``)
is refused instead: PyTorch moves the other tensors onto the new node too (its view
"rebase"), which we do not track. A leaf that requires grad is refused, as PyTorch
refuses it.
"""

from __future__ import annotations

from .autograd.grad_mode import is_grad_enabled


def follows_graph(tensor, args) -> bool:
    """True when an in-place op on ``tensor`` with ``args`` must be recorded: grad mode
    is on and the tensor or a tensor operand requires grad."""
    if not is_grad_enabled():
        return False
    if tensor.requires_grad:
        return True
    from .tensor import Tensor

    return any(isinstance(a, Tensor) and a.requires_grad for a in args)


def recorded_inplace(tensor, op: str, function, args: tuple, inputs: tuple):
    """``tensor = function(tensor, *args)`` written into ``tensor``'s memory, with the op's
    graph node as ``tensor``'s new ``grad_fn`` (see the module docstring)."""
    from .tensor import Tensor

    if tensor.requires_grad and tensor.grad_fn is None:
        tensor._check_inplace(op)  # a leaf that requires grad: PyTorch's error
    counter = tensor._version_counter
    if counter is not None and counter.shared:
        raise RuntimeError(
            f"{op}: an in-place operation that autograd must record (the tensor or an "
            f"operand requires grad) is not supported by minitorch_meta on a tensor that "
            f"shares its memory with another (a view, a tensor with views, a detach()); "
            f"use the out-of-place form (x = x + y)")
    snapshot = Tensor._make(tensor._backend.copy(tensor._data), tensor._backend,
                            tensor.requires_grad, tensor.grad_fn)
    result = function(snapshot, *args)
    if result._dtype is not tensor._dtype:  # float64 self += float32 w: self keeps its dtype
        tensor._write(op, result.detach(), inputs=inputs)  # (refuses a lower kind first)
        result = result.to(tensor._dtype)
    else:
        tensor._write(op, result.detach(), inputs=inputs)
    tensor.grad_fn = result.grad_fn
    tensor.requires_grad = result.requires_grad
    return tensor


def assigned(x, index, value):
    """``x`` with ``x[index] = value``, out of place and differentiable in ``x`` and
    ``value`` (what ``x[index] = value`` records; PyTorch's ``CopySlices``).

    The selected elements are found by indexing a tensor of flat positions with ``index``
    (so every index PyTorch takes, in PyTorch's order of the selection's dims), then
    written with one ``index_put`` into the flattened ``x``.

    Shape:
        ``x``'s shape; ``value`` (a tensor or a number) broadcasts to ``x[index]``'s shape
        (leading size-1 dims beyond it are dropped, as PyTorch drops them).
    """
    from .factories import arange, tensor
    from .ops.shapes import ShapeError, broadcasts_to, fmt
    from .tensor import Tensor

    positions = arange(x.numel(), device=x.device).view(x.shape)[index]
    if not isinstance(value, Tensor):
        value = tensor(value, dtype=x.dtype, device=x.device)
    elif value.dtype is not x.dtype:
        value = value.to(x.dtype)
    while value.dim() > positions.dim() and value.shape[0] == 1:
        value = value.squeeze(0)
    if not broadcasts_to(tuple(value.shape), tuple(positions.shape)):
        raise ShapeError("__setitem__", f"cannot assign a value of shape {fmt(value.shape)} "
                                        f"to a selection of shape {fmt(positions.shape)}")
    values = value.expand(positions.shape)
    return x.reshape(-1).index_put((positions.reshape(-1),), values.reshape(-1)).view(x.shape)
