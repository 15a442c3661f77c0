"""The tolerances of ``linalg.pinv`` and ``linalg.matrix_rank``, with PyTorch's overloads.

PyTorch parses these two functions as four overloads each:

- ``(A, *, atol=None, rtol=None, hermitian=False)`` with numbers (or ``None``);
- the same with tensors, which broadcast against ``A``'s batch dimensions (one tolerance
  per matrix, or a grid of them: the result's batch is the broadcast of all three);
- ``(A, rcond, hermitian=False)`` (``pinv``: ``rtol=rcond``, ``atol`` 0) or
  ``(A, tol, hermitian=False)`` (``matrix_rank``: ``atol=tol``, ``rtol`` 0), a number or a
  tensor.

Any other combination (the one tolerance and ``atol``/``rtol`` together, an explicit
``None`` for the one tolerance, a number beside a tensor of one or more dimensions) is
PyTorch's TypeError listing the overloads. A 0-d tensor beside a number counts as a number,
as PyTorch's argument parser reads it.

``resolve`` returns the numbers (the fast path, as hyper-parameters of the op) or two
tensors with PyTorch's defaults filled in (``get_atol_rtol``): ``atol`` 0 and ``rtol``
``eps * max(m, n)`` where ``atol`` is not positive, 0 where it is.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .autograd import is_grad_enabled
from .errors import DeviceError
from .ops import shapes

#: no argument given (``None`` is a value PyTorch refuses for the one tolerance)
UNSET = object()

_ONE_NAME = {"pinv": "rcond", "matrix_rank": "tol"}


def resolve(name: str, A, one, atol, rtol, hermitian):
    """``(atol, rtol)`` of ``linalg.<name>`` (``pinv`` or ``matrix_rank``): numbers or
    ``None`` (the defaults, see ``linalg_spectral.tolerances``), or two tensors on ``A``'s
    device.

    Raises:
        TypeError for a combination none of PyTorch's overloads takes; RuntimeError for a
        complex tolerance tensor or one on another device.
    """
    if not isinstance(hermitian, bool):
        _refuse(name, A, one, atol, rtol, hermitian)
    if one is not UNSET:
        if one is None or atol is not None or rtol is not None or not _is_tolerance(one):
            _refuse(name, A, one, atol, rtol, hermitian)
        zero = 0.0 if isinstance(one, Number) else A.new_zeros((), dtype=dtypes.float64)
        atol, rtol = (zero, one) if name == "pinv" else (one, zero)
        if is_tensor(one):
            _check_tensor(name, A, "rcond" if name == "pinv" else "atol", one)
        return atol, rtol
    if not all(t is None or _is_tolerance(t) for t in (atol, rtol)):
        _refuse(name, A, one, atol, rtol, hermitian)
    if not (is_tensor(atol) or is_tensor(rtol)):
        return atol, rtol
    if isinstance(atol, Number) or isinstance(rtol, Number):
        # a number beside a tensor: only a 0-d tensor, read as a number, fits an overload
        if (is_tensor(atol) and atol.dim()) or (is_tensor(rtol) and rtol.dim()):
            _refuse(name, A, one, atol, rtol, hermitian)
        return (atol.item() if is_tensor(atol) else atol,
                rtol.item() if is_tensor(rtol) else rtol)
    return _tensors_with_defaults(name, A, atol, rtol)


def _tensors_with_defaults(name: str, A, atol, rtol) -> tuple:
    """PyTorch's ``get_atol_rtol``: the missing one of two tolerance tensors filled in."""
    for label, tensor in (("atol", atol), ("rtol", rtol)):
        if tensor is not None:
            _check_tensor(name, A, label, tensor)
    if atol is None:
        atol = A.new_zeros((), dtype=dtypes.float64)
    if rtol is None:
        m, n = A.shape[-2:]
        # (an integer or float16 A is refused by the op itself, after this)
        eps = 2.0 ** -52 if A.dtype.to_real() is dtypes.float64 else 2.0 ** -23
        default = A.new_full((), eps * max(m, n), dtype=dtypes.float64)
        rtol = default.where(atol <= 0, 0.0)
    return atol, rtol


def refuse_gradient(atol, rtol) -> None:
    """PyTorch's error for ``pinv``'s tolerance tensors that require grad (it has no
    derivative for them)."""
    for label, tensor in (("atol", atol), ("rtol", rtol)):
        if tensor.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function 'linalg_pinv' is not differentiable with respect "
                               f"to argument '{label}'. This input cannot have requires_grad "
                               "True.")


def batch(name: str, A, atol, rtol) -> tuple:
    """The batch shape of the result: ``A``'s batch broadcast with the tolerance tensors'
    shapes.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) when they do not broadcast.
    """
    op = f"linalg.{name}"
    shape = shapes.broadcast(op, tuple(A.shape[:-2]), tuple(atol.shape))
    return shapes.broadcast(op, shape, tuple(rtol.shape))


def _check_tensor(name: str, A, label: str, tensor) -> None:
    """A real tolerance tensor on ``A``'s device, as PyTorch's checks want it."""
    if tensor.dtype.is_complex:
        raise RuntimeError(f"torch.linalg.{name}: {label} tensor of complex type is not "
                           f"supported. Got {dtypes.SCALAR_TYPE_NAMES[tensor.dtype]}")
    if tensor.device != A.device:
        raise DeviceError(f"torch.linalg.{name}: Expected {label} and input tensors to be on "
                          f"the same device, but got {label} on {tensor.device} and input on "
                          f"{A.device}")


def is_tensor(value) -> bool:
    """Whether ``value`` is a Tensor (the tensor overloads) rather than a number."""
    from .tensor import Tensor  # imported here: tensor.py imports linalg at load time

    return isinstance(value, Tensor)


def _is_tolerance(value) -> bool:
    return (isinstance(value, Number) and not isinstance(value, complex)) or is_tensor(value)


def _refuse(name: str, A, one, atol, rtol, hermitian):
    """PyTorch's TypeError for arguments that fit none of the overloads (the arguments
    given are listed by keyword: which were positional is not known here)."""
    one_name = _ONE_NAME[name]
    shown = [(one_name, one)] if one is not UNSET else []
    shown += [(key, value) for key, value in (("atol", atol), ("rtol", rtol)) if value is not None]
    if hermitian is not False:
        shown.append(("hermitian", hermitian))
    got = ", ".join([type(A).__name__] + [f"{key}={type(value).__name__}" for key, value in shown])
    raise TypeError(
        f"linalg_{name}() received an invalid combination of arguments - got ({got}), but "
        "expected one of:\n"
        " * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, "
        "Tensor out = None)\n"
        " * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, "
        "Tensor out = None)\n"
        f" * (Tensor input, Tensor {one_name}, bool hermitian = False, *, Tensor out = None)\n"
        f" * (Tensor input, float {one_name}, bool hermitian = False, *, Tensor out = None)\n")
