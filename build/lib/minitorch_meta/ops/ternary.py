"""Three-operand pointwise ops: ``lerp`` (linear interpolation), ``addcmul`` and
``addcdiv`` (``input + value * t1 * t2`` and ``input + value * t1 / t2``, the steps of
Adam-like optimizers).

Their three tensors broadcast together. Each is computed in PyTorch's order of
operations, so float32 results are PyTorch's.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .elementwise import _python_number, _reduce
from .function import Function
from .graph_backward import reduce_to_input


def broadcast_all(op: str, *tensors) -> tuple:
    """The shape of ``tensors`` broadcast together (``ShapeError`` when they do not)."""
    shape = tensors[0]._data.shape
    for t in tensors[1:]:
        if t._data.shape != shape:
            shape = shapes.broadcast(op, shape, t._data.shape)
    return tuple(shape)


def promote_all(*tensors):
    """The dtype of a pointwise op over ``tensors``, 0-d ones counted as PyTorch does
    (``dtypes.promote_tensors``): tensors with dimensions decide, unless a 0-d one is of a
    higher kind."""
    shaped = [t._dtype for t in tensors if t._data.ndim]
    zero_d = [t._dtype for t in tensors if not t._data.ndim]
    result = {}
    for key, group in (("shaped", shaped), ("zero_d", zero_d)):
        for dtype in group:
            result[key] = dtype if key not in result else dtypes.promote(result[key], dtype)
    if "shaped" not in result or "zero_d" not in result:
        return result.get("shaped") or result["zero_d"]
    return dtypes.promote_tensors(result["shaped"], False, result["zero_d"], True)


class Lerp(Function):
    """``start + weight * (end - start)`` elementwise; ``weight`` is a number (the op's
    hyper-parameter) or a tensor (its third input).

    As PyTorch does, for ``|weight| >= 0.5`` it computes ``end - (end - start) * (1 -
    weight)`` instead, which is exact at ``weight == 1``.

    Shape:
        ``start``, ``end`` (and a ``weight`` tensor) broadcast together; the output has
        ``start``'s dtype.

    Raises:
        NotImplementedError for a non-floating ``start``; RuntimeError when ``end`` (or a
        ``weight`` tensor with dimensions) has another dtype.
    """

    op_name = "lerp"
    weight = None
    _hyper = ("weight",)

    def __init__(self, weight=None):
        if weight is not None:
            self.weight = _python_number(
                weight, "lerp(): argument 'weight' must be a Number or a Tensor",
                "lerp(): argument 'weight' (position 3) must be Number or Tensor, not {type}")

    @property
    def backward_name(self):
        return "LerpBackward0" if self.weight is not None else "LerpBackward1"

    @property
    def saved_for_backward(self):
        if self.weight is not None:
            return ()  # a number weight: the gradients need nothing else
        return (2, (0, 2), (1, 2))

    def infer(self, start, end, weight=None):
        dtype = start._dtype
        if not dtype.is_floating_point:
            raise NotImplementedError(f"lerp: expected floating-point tensors, got {dtype}; "
                                      "convert first, e.g. with .float()")
        if end._dtype is not dtype:
            raise RuntimeError(f"lerp: expected dtype {dtype} for `end` but got dtype "
                               f"{end._dtype}; convert it with .to({dtype})")
        if weight is not None and weight._dtype is not dtype \
                and (weight._data.ndim or not weight._dtype.is_floating_point):
            # PyTorch takes a 0-d floating weight of any width, as it takes a number
            raise RuntimeError(f"lerp: expected dtype {dtype} for `weight` but got dtype "
                               f"{weight._dtype}; convert it with .to({dtype})")
        self.out_dtype = dtype
        tensors = (start, end) if weight is None else (start, end, weight)
        return broadcast_all(self.op_name, *tensors), dtype

    def forward(self, backend, start, end, weight=None):
        diff = backend.binary("sub", end, start)
        if weight is None:
            w = start.dtype.type(self.weight)
            if abs(self.weight) < 0.5:
                return backend.binary("add", start, backend.binary("mul", w, diff))
            return backend.binary("sub", end, backend.binary("mul", diff, start.dtype.type(1) - w))
        if weight.dtype != start.dtype:
            weight = backend.astype(weight, self.out_dtype)
        if self.recording:
            self.weight_array, self.diff = weight, diff
            self.start, self.end = start, end  # references: for ``backward_graph``
        one = start.dtype.type(1)
        small = backend.binary("lt", backend.unary("abs", weight), start.dtype.type(0.5))
        return backend.where(small, backend.binary("add", start, backend.binary(
            "mul", weight, diff)), backend.binary("sub", end, backend.binary(
                "mul", diff, backend.binary("sub", one, weight))))

    def backward(self, backend, gy):
        needs, specs = self.needs_input_grad, self.input_specs
        one = gy.dtype.type(1)
        if self.weight is not None:
            w = self.weight
            return (_reduce(backend, backend.binary("mul", gy, gy.dtype.type(1 - w)), specs[0])
                    if needs[0] else None,
                    _reduce(backend, backend.binary("mul", gy, gy.dtype.type(w)), specs[1])
                    if needs[1] else None)
        w = self.weight_array
        return (_reduce(backend, backend.binary("mul", gy, backend.binary("sub", one, w)),
                        specs[0]) if needs[0] else None,
                _reduce(backend, backend.binary("mul", gy, w), specs[1]) if needs[1] else None,
                _reduce(backend, backend.binary("mul", gy, self.diff), specs[2])
                if needs[2] else None)

    def backward_graph(self, grad):
        needs, specs = self.needs_input_grad, self.input_specs
        if self.weight is not None:
            w = self.weight
            return (reduce_to_input(grad * (1 - w), specs[0]) if needs[0] else None,
                    reduce_to_input(grad * w, specs[1]) if needs[1] else None)
        # the weight and ``end - start`` as tensors joined to the inputs
        w = self.graph_input(2, self.weight_array)
        diff = None
        if needs[2]:
            diff = self.graph_input(1, self.end) - self.graph_input(0, self.start)
        return (reduce_to_input(grad * (1 - w), specs[0]) if needs[0] else None,
                reduce_to_input(grad * w, specs[1]) if needs[1] else None,
                reduce_to_input(grad * diff, specs[2]) if needs[2] else None)


class Addcmul(Function):
    """``input + value * tensor1 * tensor2`` elementwise; ``value`` is a number, converted
    to the result dtype as PyTorch does (``0.5`` is 0 for integer tensors).

    Shape:
        the three tensors broadcast together; the dtype is their promoted dtype.

    Raises:
        NotImplementedError for bool tensors; TypeError for a ``value`` that is not a
        number.
    """

    op_name, backward_name = "addcmul", "AddcmulBackward0"
    saved_for_backward = ((1, 2), (2, 1))  # each factor is the other's gradient factor
    _hyper = ("value",)

    def __init__(self, value=1):
        self.value = _python_number(
            value, f"{self.op_name}(): argument 'value' must be a Python number; "
                   "minitorch_meta takes no tensor here (use value.item())",
            f"{self.op_name}(): argument 'value' must be Number, not {{type}}")

    def infer(self, x, t1, t2):
        dtype = promote_all(x, t1, t2)
        if dtype is dtypes.bool_:
            raise NotImplementedError(f"{self.op_name}: not implemented for bool tensors; "
                                      "convert first, e.g. with .int()")
        self.out_dtype = dtype
        return broadcast_all(self.op_name, x, t1, t2), dtype

    def forward(self, backend, x, t1, t2):
        dtype = self.out_dtype
        x, t1, t2 = (a if a.dtype == dtype.numpy else backend.astype(a, dtype)
                     for a in (x, t1, t2))
        if self.recording:
            self.t1, self.t2 = t1, t2
        scaled = backend.binary("mul", dtype.numpy.type(self.value), t1)
        return backend.binary("add", x, self.combine(backend, scaled, t2))

    def combine(self, backend, scaled, t2):
        return backend.binary("mul", scaled, t2)

    def backward(self, backend, gy):
        needs, specs = self.needs_input_grad, self.input_specs
        value = gy.dtype.type(self.value)
        g1, g2 = self.factor_grads(backend, gy, value, needs)
        return (_reduce(backend, gy, specs[0]) if needs[0] else None,
                _reduce(backend, g1, specs[1]) if needs[1] else None,
                _reduce(backend, g2, specs[2]) if needs[2] else None)

    def backward_graph(self, grad):
        needs, specs = self.needs_input_grad, self.input_specs
        g1, g2 = self.factor_grads_graph(grad, needs)
        return (reduce_to_input(grad, specs[0]) if needs[0] else None,
                reduce_to_input(g1, specs[1]) if needs[1] else None,
                reduce_to_input(g2, specs[2]) if needs[2] else None)

    def factor_grads_graph(self, grad, needs) -> tuple:
        """``factor_grads`` with tensor ops (the factors joined to their inputs)."""
        return (grad * self.graph_input(2, self.t2) * self.value if needs[1] else None,
                grad * self.graph_input(1, self.t1) * self.value if needs[2] else None)

    def factor_grads(self, backend, gy, value, needs) -> tuple:
        mul = backend.binary
        return (mul("mul", mul("mul", gy, self.t2), value) if needs[1] else None,
                mul("mul", mul("mul", gy, self.t1), value) if needs[2] else None)


class Addcdiv(Addcmul):
    """``input + value * tensor1 / tensor2`` elementwise; ``value`` is a number.

    Shape:
        the three tensors broadcast together; the dtype is their promoted dtype.

    Raises:
        RuntimeError when ``tensor1`` and ``tensor2`` are both integer or bool (PyTorch
        refuses integer division here); TypeError for a ``value`` that is not a number.
    """

    op_name, backward_name = "addcdiv", "AddcdivBackward0"
    saved_for_backward = (2, (1, 2))

    def infer(self, x, t1, t2):
        if not t1._dtype.is_floating_point and not t2._dtype.is_floating_point:
            raise RuntimeError(f"Integer division with addcdiv is not supported (tensor1 is "
                               f"{t1._dtype}, tensor2 {t2._dtype}); for a true division "
                               "convert one to float: addcdiv(input, tensor1.float(), "
                               "tensor2, value=value)")
        return super().infer(x, t1, t2)

    def combine(self, backend, scaled, t2):
        return backend.binary("div", scaled, t2)

    def factor_grads(self, backend, gy, value, needs) -> tuple:
        binary, t2 = backend.binary, self.t2
        g1 = binary("div", binary("mul", gy, value), t2) if needs[1] or needs[2] else None
        g2 = None
        if needs[2]:  # -gy * value * t1 / t2^2
            g2 = backend.unary("neg", binary("div", binary("mul", g1, self.t1), t2))
        return g1, g2

    def factor_grads_graph(self, grad, needs) -> tuple:
        t2 = self.graph_input(2, self.t2)
        g1 = grad * self.value / t2 if needs[1] or needs[2] else None
        g2 = -(g1 * self.graph_input(1, self.t1) / t2) if needs[2] else None
        return g1, g2
