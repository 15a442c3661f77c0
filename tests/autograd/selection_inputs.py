"""The inputs the selection ops' second-order tests build, for either framework: constants
(indices, masks, weights) on the case's device, and a weighted sum of cubes."""

from __future__ import annotations

import math

import numpy as np

import minitorch_meta as mt


def functional(lib):
    return lib.nn.functional


def constant(lib, device, values, dtype=None):
    """A constant tensor (indices, a mask, a weight) on the case's device."""
    kwargs = {"device": device} if lib is mt else {}
    return lib.tensor(values, dtype=dtype, **kwargs)


def long(lib, device, values):
    return constant(lib, device, values, lib.int64)


def mask(lib, device, values):
    return constant(lib, device, values, lib.bool)


def weights(lib, device, *shape):
    """A constant that tells the elements apart, so that a wrong layout shows."""
    return constant(lib, device, np.arange(1, math.prod(shape) + 1).reshape(shape) / 10,
                    lib.float64)


def cube(t, lib, device):
    """A weighted sum of cubes: its gradient depends on ``t``, and tells positions apart."""
    return (t ** 3 * weights(lib, device, *t.shape)).sum()
