"""The Bessel-family functions of ``torch.special`` without gradients: ``bessel_j0``,
``bessel_j1``, ``bessel_y0``, ``bessel_y1``, ``modified_bessel_i0``, ``modified_bessel_i1``,
``modified_bessel_k0``, ``modified_bessel_k1``, ``scaled_modified_bessel_k0``,
``scaled_modified_bessel_k1``, ``spherical_bessel_j0`` and ``airy_ai``.

Each is one elementwise op over one backend kernel (``backends/xp_bessel_jy.py``,
``xp_bessel_k.py``, ``xp_airy.py``; the modified ``I0``/``I1`` are ``xp_bessel``'s ``i0``/``i1``).
As in PyTorch 2.13, none records a graph (the output never requires grad, so ``backward``
through it raises "does not require grad"), an integer or bool input is computed in the
default float dtype, and float16 raises ``NotImplementedError`` (PyTorch has no Half
kernel for them).
"""

from __future__ import annotations

from .. import dtypes
from .unary_math import FloatUnary


def refuse_half(op_name: str, dtype, device) -> None:
    """PyTorch's NotImplementedError for a float16 computation of ``op_name``."""
    if dtype is dtypes.float16:
        raise NotImplementedError(
            f'"{op_name}_{device.type}" not implemented for \'Half\': these special '
            "functions take float32 or float64; convert the input with .float()")


class SpecialBessel(FloatUnary):
    """Base of the gradient-free special functions of one tensor.

    Shape:
        the output has the input's shape (the default float dtype for an integer or bool
        input).
    """

    differentiable = False

    def infer(self, x):
        shape, dtype = super().infer(x)
        refuse_half(self.op_name, dtype, x.device)
        return shape, dtype


def _op(name: str, kernel: str, doc: str) -> type:
    return type("".join(part.capitalize() for part in name.split("_")), (SpecialBessel,),
                {"op_name": name, "backward_name": f"Special{name}Backward0",
                 "kernel": kernel, "__doc__": doc + SpecialBessel.__doc__.split("\n", 1)[1]})


BesselJ0 = _op("bessel_j0", "bessel_j0", "``J0(x)``, the Bessel function of the first kind "
                                         "of order 0.\n")
BesselJ1 = _op("bessel_j1", "bessel_j1", "``J1(x)``, the Bessel function of the first kind "
                                         "of order 1.\n")
BesselY0 = _op("bessel_y0", "bessel_y0", "``Y0(x)``, the Bessel function of the second kind "
                                         "of order 0 (``nan`` below 0).\n")
BesselY1 = _op("bessel_y1", "bessel_y1", "``Y1(x)``, the Bessel function of the second kind "
                                         "of order 1 (``nan`` below 0).\n")
ModifiedBesselI0 = _op("modified_bessel_i0", "i0", "``I0(x)``, the modified Bessel function "
                                                   "of the first kind of order 0.\n")
ModifiedBesselI1 = _op("modified_bessel_i1", "i1", "``I1(x)``, the modified Bessel function "
                                                   "of the first kind of order 1.\n")
ModifiedBesselK0 = _op("modified_bessel_k0", "modified_bessel_k0",
                       "``K0(x)``, the modified Bessel function of the second kind of order "
                       "0 (``nan`` below 0).\n")
ModifiedBesselK1 = _op("modified_bessel_k1", "modified_bessel_k1",
                       "``K1(x)``, the modified Bessel function of the second kind of order "
                       "1 (``nan`` below 0).\n")
ScaledModifiedBesselK0 = _op("scaled_modified_bessel_k0", "scaled_modified_bessel_k0",
                             "``exp(x) K0(x)`` (``nan`` below 0).\n")
ScaledModifiedBesselK1 = _op("scaled_modified_bessel_k1", "scaled_modified_bessel_k1",
                             "``exp(x) K1(x)`` (``nan`` below 0).\n")
SphericalBesselJ0 = _op("spherical_bessel_j0", "spherical_bessel_j0",
                        "``sin(x) / x``, the spherical Bessel function of the first kind of "
                        "order 0.\n")
AiryAi = _op("airy_ai", "airy_ai", "``Ai(x)``, the Airy function of the first kind.\n")

#: every op of this file, by its ``torch.special`` name
OPS = {op.op_name: op for op in (
    BesselJ0, BesselJ1, BesselY0, BesselY1, ModifiedBesselI0, ModifiedBesselI1,
    ModifiedBesselK0, ModifiedBesselK1, ScaledModifiedBesselK0, ScaledModifiedBesselK1,
    SphericalBesselJ0, AiryAi)}
