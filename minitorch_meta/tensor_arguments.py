"""PyTorch's ``TypeError`` for something else given where a function takes a Tensor.

PyTorch's argument parser says ``mm(): argument 'mat2' (position 2) must be Tensor, not
str``. Functions that check their tensor arguments by name call ``require_tensor``; every
op also gets a ``TypeError`` (not an ``AttributeError`` from deep inside the dispatcher)
through ``not_a_tensor_error``, which ``Function.__call__`` raises when an input is neither
a Tensor nor None.
"""

from __future__ import annotations


def require_tensor(op: str, name: str, value, position: int | None = None) -> None:
    """Raise PyTorch's ``TypeError`` unless ``value`` is a Tensor: ``op`` is the function's
    name, ``name`` the argument's, and ``position`` (counted from 1, as PyTorch's functions
    count) is said when given."""
    from .tensor import is_tensor  # (on use: tensor.py imports this module)

    if not is_tensor(value):
        where = f" (position {position})" if position is not None else ""
        raise TypeError(f"{op}(): argument '{name}'{where} must be Tensor, not "
                        f"{type(value).__name__}")


def require_tensors(op: str, *named) -> None:
    """``require_tensor`` for each ``(name, value)`` pair, numbered in the order given."""
    for position, (name, value) in enumerate(named, 1):
        require_tensor(op, name, value, position)


def not_a_tensor_error(op: str, inputs, error: AttributeError) -> TypeError | None:
    """The ``TypeError`` for an op whose ``inputs`` raised ``error`` (an ``AttributeError``)
    because one is not a Tensor: the first that is neither a Tensor nor None, or a None
    where the op needed a tensor (an optional operand may be None: ``error`` tells). None
    when the inputs are not the cause (the caller then re-raises ``error``).

    An op does not know its public argument names, so the operand is named by its place
    among the op's tensor operands.
    """
    from .tensor import is_tensor

    for position, value in enumerate(inputs, 1):
        if value is not None and not is_tensor(value):
            return TypeError(f"{op}(): expected a Tensor as tensor operand {position}, but got "
                             f"{type(value).__name__} ({_shown(value)}); make one with "
                             "torch.tensor(...) or torch.as_tensor(...)")
    missing = [str(position) for position, value in enumerate(inputs, 1) if value is None]
    if missing and str(error).startswith("'NoneType' object"):
        return TypeError(f"{op}(): expected a Tensor as tensor operand {' or '.join(missing)}, "
                         "but got None")
    return None


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def require_tensor_list(op: str, tensors, argument: int | str = 0) -> None:
    """PyTorch's ``TypeError`` for a sequence of tensors (``cat``, ``stack``,
    ``atleast_1d(a, b)``) holding something else: elements are counted from 0 and the
    sequence is ``argument`` (its position from 0, or its name), as PyTorch says them."""
    from .tensor import is_tensor

    for position, value in enumerate(tensors):
        if not is_tensor(value):
            raise TypeError(f"{op}(): expected Tensor as element {position} in argument "
                            f"{argument}, but got {type(value).__name__}")


def require_tensor_sequence(op: str, tensors) -> None:
    """PyTorch's ``TypeError`` for one Tensor where ``op`` takes a sequence of them
    (``torch.cat(x)`` would otherwise join ``x``'s rows)."""
    if hasattr(tensors, "_data"):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
