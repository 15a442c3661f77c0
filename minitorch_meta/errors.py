"""Exceptions raised by minitorch_meta, each with a message a person can act on."""


class ShapeError(ValueError, RuntimeError):
    """An op received inputs whose shapes (or hyper-parameters) do not fit together.

    Raised by the op's shape rule, before any backend runs, so the message is the same
    on cpu, cuda and meta. ``op`` names the op; the message says what was expected and
    what arrived.

    Both a ``ValueError`` and a ``RuntimeError``: PyTorch raises ``RuntimeError`` for most
    shape mismatches (its C++ checks) and ``ValueError`` for some (its Python checks, such
    as a loss's target size), so code written for PyTorch catches ours with either.
    """

    def __init__(self, op: str, message: str):
        super().__init__(f"{op}: {message}")
        self.op = op
        self.detail = message


class DeviceError(RuntimeError):
    """A device cannot be used (CUDA unavailable, devices mixed in one op, ...)."""


class MetaDataError(RuntimeError):
    """Data was read from a meta tensor, which stores only its shape and dtype."""


class DataDependentShapeError(MetaDataError, NotImplementedError):
    """An op's output size depends on values a meta tensor does not have (``nonzero``).

    A ``NotImplementedError``, as PyTorch's meta raises there, and a ``MetaDataError``.
    """


class ShapeRuntimeError(ShapeError):
    """The name under which broadcasting and ``expand`` errors are raised (``a + b``,
    ``broadcast_shapes``, ``masked_fill``): a ``ShapeError``, so, like every shape error
    here, both a ``ValueError`` and a ``RuntimeError``. Kept as its own class so that code
    which catches it by name goes on working.
    """


class LinAlgError(RuntimeError):
    """A matrix could not be factored: singular (``linalg.inv``, ``linalg.solve``) or not
    positive-definite (``linalg.cholesky``). A ``RuntimeError``, as PyTorch's
    ``torch.linalg.LinAlgError``; the message names the batch element and the pivot or
    leading minor where the factorisation stopped."""


class DtypeMismatchError(TypeError, RuntimeError):
    """Two inputs that must share a dtype do not (``mm``, ``matmul``, ``conv2d``'s input and
    weight, ...). PyTorch raises ``RuntimeError`` there; this is also a ``TypeError``, which
    is what a wrong type is in Python, so either ``except`` catches it."""


class ComplexScalarError(NotImplementedError, TypeError):
    """A complex Python number where an op takes a real one (a clamp bound, an activation's
    hyper-parameter). PyTorch's argument parser takes it and its kernel refuses it, with a
    ``RuntimeError`` ("value cannot be converted to type float without overflow") or a
    ``NotImplementedError`` ("clamp is not supported for complex types"), by the op; this
    is both (``NotImplementedError`` is a ``RuntimeError``), and the ``TypeError`` raised here
    before."""


class DtypeNotImplementedError(NotImplementedError, TypeError):
    """An op has no kernel for the dtype asked for (``rand(3, dtype=torch.int64)``: uniform
    samples are floating-point). PyTorch raises ``NotImplementedError`` ('"check_uniform_bounds"
    not implemented for 'Long''); this is also the ``TypeError`` raised here before, so code
    that caught that goes on working."""
