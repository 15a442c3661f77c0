"""What one op costs: multiplications ("products"), bias additions, and output bytes.

Conventions (stated once, used by ``summary``):

- **products** count the multiplications of convolutions, matrix products and einsum, bias
  excluded — the EE-559 lecture's "Nb. products" and fvcore's count. Elementwise ops,
  pooling, views and losses count zero products.
- **FLOPs** = 2 × products (one multiply and one add each) + bias additions.
"""

from __future__ import annotations

import math


def products(function, inputs, outputs) -> int:
    """Multiplications performed by ``function`` (an op instance) on ``inputs``."""
    name = type(function).__name__
    if name == "Einsum":  # its cost is in its equation, not in its inputs' shapes
        return _einsum(function, outputs)
    rule = _PRODUCT_RULES.get(name)
    return rule(inputs, outputs) if rule else 0


def bias_additions(function, inputs, outputs) -> int:
    """Additions of a bias term (one per output element of a convolution or addmm with a
    bias)."""
    name = type(function).__name__
    if name in _CONVOLUTIONS and len(inputs) > 2 and inputs[2] is not None:
        return _numel(_first(outputs).shape)
    if name == "Addmm":
        return _numel(_first(outputs).shape)
    return 0


def output_bytes(outputs) -> int:
    """Bytes of the op's outputs (indices included)."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    return sum(_numel(t.shape) * t.dtype.itemsize for t in outs)


def _first(outputs):
    return outputs[0] if isinstance(outputs, tuple) else outputs


def _numel(shape) -> int:
    return math.prod(shape)


def _conv(inputs, outputs):
    # Each output element: one product per input channel and kernel tap (weight dims 1:).
    return _numel(_first(outputs).shape) * _numel(inputs[1].shape[1:])


def _conv_transpose(inputs, outputs):
    # Each input element is spread over every output channel and kernel tap (weight dims 1:).
    return _numel(inputs[0].shape) * _numel(inputs[1].shape[1:])


def _mm(inputs, outputs):
    a = inputs[0]
    return _numel(_first(outputs).shape) * a.shape[-1]


def _addmm(inputs, outputs):
    a = inputs[1]
    return _numel(_first(outputs).shape) * a.shape[-1]


def _matmul(inputs, outputs):
    a = inputs[0]
    return _numel(_first(outputs).shape) * a.shape[-1]


def _einsum(function, outputs):
    # One product per operand after the first, for every output element and every value
    # of the summed subscripts: the count of the plain sum, whatever order the kernel picks.
    plan = function.plan
    summed = math.prod(plan.sizes[letter] for letter in plan.summed_letters())
    return _numel(_first(outputs).shape) * summed * (len(plan.subscripts) - 1)


_PRODUCT_RULES = {"Conv2d": _conv, "Mm": _mm, "Mv": _mm, "Addmm": _addmm, "Matmul": _matmul}
_PRODUCT_RULES.update({"Conv1d": _conv, "ConvTranspose1d": _conv_transpose,
                       "ConvTranspose2d": _conv_transpose})
_PRODUCT_RULES.update({"Conv3d": _conv, "ConvTranspose3d": _conv_transpose})
_CONVOLUTIONS = ("Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "Conv3d",
                 "ConvTranspose3d")
