"""The randomized leaky ReLU: ``rrelu``, PyTorch's ``rrelu_with_noise``.

``x`` where positive, else ``slope * x``. While training, each element has its own slope
drawn from ``U(lower, upper)`` (the ``noise`` input, drawn by the caller from the global
generator); in eval mode every slope is the mean ``(lower + upper) / 2``. The gradient is
the slope used (1 where ``x`` passes), as in PyTorch; it is one node,
``RreluWithNoiseBackward0``, in both modes.
"""

from __future__ import annotations

from .activations import _FloatingActivation, number


class RreluWithNoise(_FloatingActivation):
    """``x`` where ``x > 0``, else ``noise * x`` (training) or ``slope * x`` (eval).

    Where ``x`` is NaN, PyTorch's two kernels differ and so do we: training keeps ``x``
    (its test is ``x <= 0``), eval multiplies by the slope (its test is ``x > 0``); only
    the gradient tells them apart.

    Shape:
        input ``(*)``, noise (training only) ``(*)`` -> ``(*)``.

    Raises:
        TypeError: ``lower`` or ``upper`` is not a number. RuntimeError: ``lower > upper``.
        NotImplementedError: the input is not floating-point.
    """

    op_name, backward_name = "rrelu", "RreluWithNoiseBackward0"
    saved_for_backward = ((1, 0),)  # the noise, which is the gradient's factor
    _hyper = ("lower", "upper")

    def __init__(self, lower: float = 1.0 / 8.0, upper: float = 1.0 / 3.0):
        self.lower = number("rrelu", "lower", 2, lower)
        self.upper = number("rrelu", "upper", 3, upper)
        if self.lower > self.upper:
            raise RuntimeError(f"Lower bound should be less than or equal to the upper bound "
                               f"(got lower={self.lower}, upper={self.upper})")

    def infer(self, x, noise=None):
        # PyTorch's eval path is leaky_relu's kernel, its training path its own
        self.kernel_name = "leaky_relu_cpu" if noise is None else "rrelu_with_noise_out_cpu"
        return super().infer(x)

    def forward(self, backend, x, noise=None):
        zero = x.dtype.type(0)
        if noise is None:
            slope = x.dtype.type((self.lower + self.upper) / 2)
            passes = backend.binary("gt", x, zero)
        else:
            slope = noise
            passes = backend.unary("logical_not", backend.binary("le", x, zero))
        if self.recording:
            self.passes, self.slope = passes, slope
        return backend.where(passes, x, backend.binary("mul", x, slope))

    def backward(self, backend, gy):
        gx = backend.where(self.passes, gy, backend.binary("mul", gy, self.slope))
        return (gx,) + (None,) * (len(self.input_specs) - 1)  # the noise has none

    def backward_graph(self, grad):
        # the mask and the slopes are constants: linear in grad
        evaluating = len(self.input_specs) == 1  # one slope, else the noise
        slope = float(self.slope) if evaluating else self.constant(self.slope)
        gx = grad.where(self.constant(self.passes), grad * slope)
        return (gx,) + (None,) * (len(self.input_specs) - 1)
