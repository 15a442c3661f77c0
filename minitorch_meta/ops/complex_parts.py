"""Complex numbers taken apart and put together: ``real``/``imag`` (views),
``view_as_real``/``view_as_complex`` (views), ``complex``, ``polar``, ``angle`` and the
conjugates ``conj``/``conj_physical``.

Gradients follow PyTorch's convention for a real loss ``L``: the gradient of a complex
tensor ``z = x + iy`` is ``dL/dx + i dL/dy``. So the real part passes its gradient ``g``
back as ``g + 0i``, the imaginary part as ``0 + ig``, and ``complex(re, im)`` hands the
real and imaginary parts of its gradient to ``re`` and ``im``.
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .complex_support import conj, times_conj
from .function import Function


def assemble(backend, shape, dtype, real=None, imag=None):
    """A complex array of ``shape`` and ``dtype`` from real arrays of its parts
    (broadcast to ``shape``; None: zeros). Parts are written, not added: an infinite
    part does not turn the other into NaN, as ``real + 1j * imag`` would."""
    out = backend.full(tuple(shape), 0, dtype)
    if real is not None:
        backend.setitem(backend.real(out), Ellipsis, real)
    if imag is not None:
        backend.setitem(backend.imag(out), Ellipsis, imag)
    return out


def _require_complex(op: str, x) -> None:
    if not x._dtype.is_complex:
        raise RuntimeError(f"{op} is only supported for complex tensors (got {x._dtype}); "
                           "a real tensor has no imaginary part to take apart")


class Part(Function):
    """The real part (``imaginary`` False) or the imaginary part of a complex tensor, as a
    view: writing into it writes into the complex tensor.

    Shape:
        the input's shape; the dtype is the parts' (complex64 -> float32).
    """

    backward_name = "SelectBackward0"  # PyTorch selects it from view_as_real
    is_view = True
    complex_aware = True
    _hyper = ("imaginary",)

    def __init__(self, imaginary: bool = False):
        self.imaginary = imaginary

    @property
    def op_name(self):
        return "imag" if self.imaginary else "real"

    def infer(self, x):
        _require_complex(self.op_name, x)
        return x._data.shape, x._dtype.to_real()

    def forward(self, backend, x):
        return backend.imag(x) if self.imaginary else backend.real(x)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if self.imaginary:
            return (assemble(backend, shape, dtype, imag=gy),)
        return (backend.astype(gy, dtype),)

    def backward_graph(self, grad):
        dtype = self.input_specs[0][1]
        return (grad.to(dtype) * 1j if self.imaginary else grad.to(dtype),)


class ViewAsReal(Function):
    """A complex tensor as a real view with a last dim of size 2: (real, imaginary).

    Shape:
        ``(*s)`` complex -> ``(*s, 2)`` real.
    """

    op_name, backward_name = "view_as_real", "ViewAsRealBackward0"
    is_view = True
    complex_aware = True

    def infer(self, x):
        if not x._dtype.is_complex:
            raise RuntimeError(f"view_as_real is only supported for complex tensors, got "
                               f"{x._dtype}; torch.complex(x, torch.zeros_like(x)) makes one")
        return x._data.shape + (2,), x._dtype.to_real()

    def forward(self, backend, x):
        return backend.view_as_real(x)

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        return (assemble(backend, shape, dtype, backend.getitem(gy, (Ellipsis, 0)),
                         backend.getitem(gy, (Ellipsis, 1))),)

    def backward_graph(self, grad):
        return (Complex()(grad[..., 0], grad[..., 1]),)


class ViewAsComplex(Function):
    """A real tensor whose last dim has size 2 (real, imaginary) as a complex view.

    Shape:
        ``(*s, 2)`` real -> ``(*s)`` complex.

    Raises:
        RuntimeError (PyTorch's messages): an integer or bool tensor, a 0-d one, a last dim
            not of size 2 or not of stride 1, another stride or the storage offset odd.
        TypeError: a float16 tensor (complex32 does not exist here).
    """

    op_name, backward_name = "view_as_complex", "ViewAsComplexBackward0"
    is_view = True
    complex_aware = True

    def infer(self, x):
        dtype, shape = x._dtype, x._data.shape
        if not dtype.is_floating_point:
            raise RuntimeError("view_as_complex is only supported for half, float and double "
                               "tensors, but got a tensor of scalar type: "
                               f"{dtypes.SCALAR_TYPE_NAMES[dtype]}")
        if dtype is dtypes.float16:
            raise TypeError(dtypes.COMPLEX32_UNSUPPORTED)
        if not shape:
            raise RuntimeError("Input tensor must have one or more dimensions (view_as_complex "
                               "needs a last dim of size 2: real, imaginary)")
        if shape[-1] != 2:
            raise RuntimeError(f"Tensor must have a last dimension of size 2 (real, "
                               f"imaginary), got shape {shapes.fmt(shape)}")
        strides = x.stride()  # layout, not data: meta reports C-ordered strides
        if strides[-1] != 1:
            raise RuntimeError(f"Tensor must have a last dimension with stride 1, got strides "
                               f"{strides}; call .contiguous() first")
        if any(s % 2 for s in strides[:-1]):
            raise RuntimeError(f"Tensor must have a stride divisible by 2 for all but last "
                               f"dimension, got strides {strides}; call .contiguous() first")
        if x.storage_offset() % 2:
            raise RuntimeError("Tensor must have a storage_offset divisible by 2, got "
                               f"{x.storage_offset()}; call .clone() first")
        return shape[:-1], dtype.to_complex()

    def forward(self, backend, x):
        return backend.view_as_complex(x)

    def backward(self, backend, gy):
        return (backend.copy(backend.view_as_real(gy)),)

    def backward_graph(self, grad):
        return (ViewAsReal()(grad),)


def _parts_dtype(op: str, a, b) -> dtypes.dtype:
    """The one floating dtype of ``complex``'s and ``polar``'s two real inputs (not
    bfloat16: no complex dtype is made of it)."""
    if not all(d.is_floating_point and d is not dtypes.bfloat16 for d in (a._dtype, b._dtype)):
        names = dtypes.SCALAR_TYPE_NAMES
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{names[a._dtype]} and {names[b._dtype]} ({op})")
    if a._dtype is not b._dtype:
        names = dtypes.SCALAR_TYPE_NAMES
        raise RuntimeError(f"Expected object of scalar type {names[a._dtype]} but got scalar "
                           f"type {names[b._dtype]} for second argument ({op}); convert one "
                           "with .to()")
    if a._dtype is dtypes.float16:
        raise TypeError(dtypes.COMPLEX32_UNSUPPORTED)
    return a._dtype.to_complex()


class Complex(Function):
    """``real + i imag`` from two real tensors of one floating dtype.

    Shape:
        ``real`` and ``imag`` broadcast together; the dtype is the complex one of theirs.
    """

    op_name, backward_name = "complex", "ComplexBackward0"
    complex_aware = True

    def infer(self, real, imag):
        self.out_dtype = _parts_dtype(self.op_name, real, imag)
        shape = shapes.broadcast(self.op_name, real._data.shape, imag._data.shape)
        return shape, self.out_dtype

    def forward(self, backend, real, imag):
        shape = shapes.broadcast(self.op_name, real.shape, imag.shape)
        return assemble(backend, shape, self.out_dtype, real, imag)

    def backward(self, backend, gy):
        specs, needs = self.input_specs, self.needs_input_grad
        return (backend.sum_to_shape(backend.copy(backend.real(gy)), tuple(specs[0][0]))
                if needs[0] else None,
                backend.sum_to_shape(backend.copy(backend.imag(gy)), tuple(specs[1][0]))
                if needs[1] else None)

    def backward_graph(self, grad):
        from .graph_backward import reduce_to_input

        specs, needs = self.input_specs, self.needs_input_grad
        return (reduce_to_input(grad.real, specs[0]) if needs[0] else None,
                reduce_to_input(grad.imag, specs[1]) if needs[1] else None)


class Polar(Function):
    """``abs * (cos(angle) + i sin(angle))`` from two real tensors of one floating dtype.

    Shape:
        ``abs`` and ``angle`` broadcast together; the dtype is the complex one of theirs.
    """

    op_name, backward_name = "polar", "PolarBackward0"
    complex_aware = True
    saved_for_backward = (1, "output")

    def infer(self, magnitude, angle):
        self.out_dtype = _parts_dtype(self.op_name, magnitude, angle)
        shape = shapes.broadcast(self.op_name, magnitude._data.shape, angle._data.shape)
        return shape, self.out_dtype

    def forward(self, backend, magnitude, angle):
        shape = shapes.broadcast(self.op_name, magnitude.shape, angle.shape)
        unit = assemble(backend, shape, self.out_dtype, backend.unary("cos", angle),
                        backend.unary("sin", angle))
        out = backend.binary("mul", unit, magnitude)
        if self.recording:
            self.unit, self.out = unit, out
        return out

    def backward(self, backend, gy):
        # dz/d|z| is the unit vector u, dz/dangle is i z: for a real input, the real part
        # of g * conj(derivative): Re(g conj(u)) and Im(g conj(z)).
        specs, needs = self.input_specs, self.needs_input_grad
        g_abs = g_angle = None
        if needs[0]:
            g_abs = backend.copy(backend.real(times_conj(backend, gy, self.unit)))
            g_abs = backend.sum_to_shape(g_abs, tuple(specs[0][0]))
        if needs[1]:
            g_angle = backend.copy(backend.imag(times_conj(backend, gy, self.out)))
            g_angle = backend.sum_to_shape(g_angle, tuple(specs[1][0]))
        return g_abs, g_angle


class Angle(Function):
    """The argument of each element, in (-pi, pi]; of a real tensor, pi where it is
    negative, 0 elsewhere (-0.0 included) and NaN at NaN, as PyTorch's.

    Shape:
        the input's shape; the dtype is the parts' for a complex input, else the input's
        floating dtype (an integer or bool input gives the default float dtype).
    """

    op_name, backward_name = "angle", "AngleBackward0"
    complex_aware = True
    saved_for_backward = (0,)

    def infer(self, x):
        dtype = x._dtype
        if dtype.is_complex:
            return x._data.shape, dtype.to_real()
        self.cast = None if dtype.is_floating_point else dtypes.get_default_dtype()
        return x._data.shape, self.cast or dtype

    def forward(self, backend, x):
        if self.recording:
            self.x = x
        if x.dtype.kind == "c":
            return backend.unary("angle", x)
        if self.cast is not None:
            x = backend.astype(x, self.cast)
        pi = backend.where(backend.binary("lt", x, x.dtype.type(0)), x.dtype.type(math.pi),
                           x.dtype.type(0))
        return backend.where(backend.unary("isnan", x), x, pi)

    def backward(self, backend, gy):
        x = self.x
        if x.dtype.kind != "c":  # piecewise constant
            return (backend.binary("mul", gy, gy.dtype.type(0)),)
        # d angle = (x dy - y dx) / |z|^2: the gradient is g * i z / |z|^2 (0 at z = 0)
        r2 = backend.unary("abs", x)
        r2 = backend.binary("mul", r2, r2)
        zero = backend.binary("eq", r2, r2.dtype.type(0))
        turned = backend.binary("mul", x, x.dtype.type(1j))
        grad = backend.binary("mul", gy, backend.binary(
            "div", turned, backend.where(zero, r2.dtype.type(1), r2)))
        return (backend.where(zero, grad.dtype.type(0), grad),)


class Conj(Function):
    """The complex conjugate ``x - iy``, as a copy (PyTorch's ``conj`` is a lazy view;
    docs/differences.md). The gradient is the conjugate of the outgoing one.

    Shape:
        unchanged.
    """

    complex_aware = True
    _hyper = ("physical",)

    def __init__(self, physical: bool = False):
        self.physical = physical

    @property
    def op_name(self):
        return "conj_physical" if self.physical else "conj"

    @property
    def backward_name(self):
        return "ConjPhysicalBackward0" if self.physical else "ConjBackward0"

    def infer(self, x):
        return x._data.shape, x._dtype

    def forward(self, backend, x):
        return conj(backend, x)

    def backward(self, backend, gy):
        return (conj(backend, gy),)

    def backward_graph(self, grad):
        return (grad.conj(),)
