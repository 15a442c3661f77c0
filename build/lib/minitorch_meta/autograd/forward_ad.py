"""``torch.autograd.forward_ad``: dual tensors, whose tangents ride along every op.

Inside ``with dual_level():``, ``make_dual(x, t)`` gives a tensor equal to ``x`` that
carries the tangent ``t``; every op run on it gives an output carrying its own tangent,
the Jacobian-vector product ``J·t`` of the op, and ``unpack_dual(y)`` reads it back::

    with forward_ad.dual_level():
        y = f(forward_ad.make_dual(x, t))
        jvp = forward_ad.unpack_dual(y).tangent

How, in minitorch_meta: ops record graphs for reverse mode only, so the open level runs
each op that has a dual input itself (``run_op``, called by the op dispatch in
``ops/function.py`` while the level is open): it runs the op with the dual inputs as
graph inputs, and gets the output's tangent from the op's node by the double-backward
trick of ``forward_products.py`` (one op's graph at a time). The values are exactly
forward mode's; it costs a few backward passes of the op per op, and it needs the op's
second-order formula (an op without one raises, naming it).

The level keeps the tangents, keyed by tensor; exiting it forgets them all, as PyTorch's
``exit_dual_level`` does. One level may be open at a time (PyTorch's limit too).

What differs from PyTorch (``docs/differences.md``): the tangent of a gradient
(forward-over-reverse, e.g. ``unpack_dual(autograd.grad(f(dual), x)[0])``) is not
computed: such gradients are marked, and using their tangent raises, naming
``torch.func.jvp(torch.func.grad(f), ...)``, which computes it. An in-place write into a
tensor that shares memory with a dual tensor (a view of it, or its base) makes the other
tensors' tangents unknown (using them raises) instead of updating them.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from ..ops import function as _dispatch
from .forward_products import ForwardProducts
from .grad_mode import enable_grad, is_grad_enabled
from .grad_mode import open_dual_levels as _open

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]

_NOT_NESTED = "Nested forward mode AD is not supported at the moment"
_UNKNOWN_AFTER_GRAD = (
    "the tangent of a gradient computed inside a dual level (forward-over-reverse) is not "
    "available in minitorch_meta: compute the gradient's Jacobian-vector product with "
    "torch.func.jvp(torch.func.grad(f), (x,), (t,)) or "
    "torch.autograd.functional.hvp(f, x, t) instead")
_UNKNOWN_AFTER_WRITE = (
    "the tangent of this tensor is unknown: an in-place write went into a tensor sharing its "
    "memory (a view of it, or its base) inside the dual level, which minitorch_meta does not "
    "follow; write into the dual tensor itself, or make the write out of place")


class _Unknown:
    """A tangent that is not known, with the reason; using it raises. ``before``: the
    tangent before an in-place write made it unknown (a partial write's caller knows
    how to update it)."""

    def __init__(self, reason: str, before=None):
        self.reason = reason
        self.before = before


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view of the tensor without tangent) and
    the tangent (None for a tensor without one)."""

    primal: Any
    tangent: Any


class _DualLevel:
    """The open dual level: the tangent of every dual tensor, and the op runner that gives
    each op's output its tangent. It sits in the dispatch's observer list while open."""

    number = 0

    def __init__(self):
        # id(tensor) -> (weak reference to the tensor, tangent): tensors compare
        # elementwise, so they cannot be dictionary keys themselves
        self._tangents: dict = {}
        self._busy = False  # True while computing a tangent: the ops inside are plain

    # -- the tangents ----------------------------------------------------------------
    def tangent(self, tensor):
        """``tensor``'s tangent (None when it has none; an ``_Unknown`` if not known)."""
        entry = self._tangents.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            return None
        return entry[1]

    def set_tangent(self, tensor, tangent) -> None:
        """Give ``tensor`` the tangent ``tangent`` (None removes it)."""
        key = id(tensor)
        if tangent is None:
            self._tangents.pop(key, None)
            return
        tangents = self._tangents
        self._tangents[key] = (weakref.ref(tensor, lambda _, key=key: tangents.pop(key, None)),
                               tangent)

    def forget_all(self) -> None:
        self._tangents.clear()

    # -- ops -------------------------------------------------------------------------
    def __call__(self, function, inputs, outputs) -> None:
        """As an observer the level has nothing to do after an op: ``run_op`` ran it."""

    def run_op(self, function, inputs):
        """Run the op ``function`` on ``inputs``; its output gets a tangent when an input
        has one."""
        if self._busy or not function.differentiable:
            return function(*inputs)
        tangents = [None if x is None else self.tangent(x) for x in inputs]
        if all(t is None for t in tangents):
            return function(*inputs)
        for t in tangents:
            if isinstance(t, _Unknown):
                raise NotImplementedError(f"{function.op_name}: {t.reason}")
        return self._run_dual(function, inputs, tangents)

    def _run_dual(self, function, inputs, tangents):
        records = is_grad_enabled() and any(x is not None and x.requires_grad for x in inputs)
        self._busy = True
        try:
            with enable_grad():
                stand_ins = [x if t is None else _stand_in(x, records)
                             for x, t in zip(inputs, tangents)]
                result = function(*stand_ins)
                first = result[0] if function.multiple_outputs else result
                tangent = self._output_tangent(first, stand_ins, tangents, records)
        finally:
            self._busy = False
        if not records and first.requires_grad:  # the graph was only for the tangent
            first = first.detach()
            result = (first,) + result[1:] if function.multiple_outputs else first
        self.set_tangent(first, tangent)
        return result

    @staticmethod
    def _output_tangent(output, inputs, tangents, records: bool):
        """``J·t`` of one op's ``output`` for the inputs' tangents (None for an output
        that carries none: an integer one, or one that does not depend on them)."""
        if not output._dtype.is_floating_point or not output.requires_grad:
            return None
        pairs = [(x, t) for x, t in zip(inputs, tangents) if t is not None]
        # differentiable (reverse over forward) when the op is recorded for the user
        create_graph = records or any(t.requires_grad for _, t in pairs)
        product, = ForwardProducts([output], [x for x, _ in pairs])(
            [t for _, t in pairs], create_graph=create_graph)
        return product

    # -- in-place writes and gradients -----------------------------------------------
    def written(self, target) -> None:
        """An in-place write into ``target``'s memory: the tangents of the dual tensors
        sharing it become unknown (the caller then sets ``target``'s own, if it can)."""
        counter = target._version_counter
        for key, (ref, tangent) in list(self._tangents.items()):
            tensor = ref()
            if tensor is not None and (tensor is target or (
                    counter is not None and tensor._version_counter is counter)):
                self._tangents[key] = (ref, _Unknown(_UNKNOWN_AFTER_WRITE, tangent))

    def carry(self, target, source, index=None) -> None:
        """After ``target[index] = source`` (the whole of ``target`` for index None):
        ``target``'s tangent follows, zero where ``source`` has none."""
        tangent = None if source is None else self.tangent(source)
        if isinstance(tangent, _Unknown):
            raise NotImplementedError(tangent.reason)
        if tangent is None and self.tangent(target) is None and index is None:
            return
        self._busy = True
        try:
            if index is None:
                new = (target.detach().new_zeros(tuple(target.shape)) if tangent is None else
                       tangent.to(target.dtype).expand(tuple(target.shape)).clone())
            else:
                previous = self.tangent(target)
                if isinstance(previous, _Unknown):  # made so by this very write
                    previous = previous.before
                new = (target.detach().new_zeros(tuple(target.shape))
                       if previous is None or isinstance(previous, _Unknown) else previous.clone())
                new[index] = 0.0 if tangent is None else tangent.to(target.dtype)
        finally:
            self._busy = False
        self.set_tangent(target, new)

    def mark_gradients(self, outputs, gradients) -> None:
        """Gradients of ``outputs`` of which some carry a tangent: their own tangents are
        not computed (see the module), so using them must raise rather than mislead."""
        if any(self.tangent(o) is not None for o in outputs):
            for g in gradients:
                if g is not None:
                    self.set_tangent(g, _Unknown(_UNKNOWN_AFTER_GRAD))


def _stand_in(tensor, records: bool):
    """What an op runs on in place of a dual input ``tensor``, for ``J·t``: a node of
    its own, so that the gradient arriving at it is the op's partial derivative (the
    gradient at ``tensor`` itself would add the paths through the op's other inputs).

    A view of ``tensor`` when the op is recorded for the user, so that the op's output
    still joins ``tensor``'s graph; otherwise a fresh leaf that requires grad, so that
    the op's node exists though the user's op records nothing."""
    if records and tensor.requires_grad:
        return tensor.view_as(tensor)
    return tensor.detach().requires_grad_()


def current_level():
    """The open ``_DualLevel``, or None."""
    return _open[0] if _open else None


def enter_dual_level() -> int:
    """Open a dual level and return its number (0): until ``exit_dual_level``, dual
    tensors can be made and their tangents follow every op."""
    if _open:
        raise RuntimeError(_NOT_NESTED)
    level = _DualLevel()
    _open.append(level)
    _dispatch._observers.append(level)
    return level.number


def exit_dual_level(*, level=None) -> None:
    """Close the open dual level: every tangent made in it is forgotten."""
    if not _open:
        raise RuntimeError("exit_dual_level: no dual level is open; open one with "
                           "enter_dual_level() or `with forward_ad.dual_level():`")
    opened = _checked_level(level, "exit_dual_level")
    _open.clear()
    _dispatch._observers.remove(opened)
    opened.forget_all()


class dual_level:  # noqa: N801 - PyTorch's name
    """``with dual_level():`` opens a dual level for the block (see the module); it also
    decorates a function, whose calls then each run in a level of their own."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info) -> None:
        exit_dual_level()

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with dual_level():
                return function(*args, **kwargs)

        return wrapper


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` (of the same shape) in the open level.

    Shape:
        ``tangent``: ``tensor``'s shape; the result: ``tensor``'s shape.
    """
    if not _open:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first.")
    opened = _checked_level(level, "make_dual")
    _check_dual_parts(tensor, tangent)
    if opened.tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {opened.number} is not supported.")
    dual = tensor.view_as(tensor)  # a view, as PyTorch's (ViewBackward0 when recorded)
    opened.set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` in the open level: the primal is a view of it
    without tangent; the tangent is None for a tensor without one (or outside a level)."""
    opened = current_level()
    if opened is None:
        return UnpackedDualTensor(tensor, None)
    _checked_level(level, "unpack_dual")
    tangent = opened.tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    if isinstance(tangent, _Unknown):
        raise NotImplementedError(f"unpack_dual: {tangent.reason}")
    opened._busy = True  # the primal view carries no tangent
    try:
        primal = tensor.view_as(tensor)
    finally:
        opened._busy = False
    return UnpackedDualTensor(primal, tangent)


def _checked_level(level, caller: str) -> _DualLevel:
    opened = current_level()
    if level is not None and level != opened.number:
        raise RuntimeError(f"{caller}: invalid level {level!r}: the open dual level is "
                           f"{opened.number} (leave level= out to use it)")
    return opened


def _check_dual_parts(tensor, tangent) -> None:
    from ..tensor import Tensor

    for what, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise TypeError(f"make_dual: expected the {what} to be a Tensor, but got "
                            f"{type(value).__name__}")
        if not value.dtype.is_floating_point:
            raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if tensor.device != tangent.device:
        raise RuntimeError(f"make_dual: the tangent is on '{tangent.device}' but the primal is "
                           f"on '{tensor.device}'; move it with .to({str(tensor.device)!r})")
