"""``grid_sample``'s gradients as recorded tensor ops (``create_graph=True``).

The taps' positions are piecewise constant in the grid, so they stay the arrays forward
found; only the taps' weights and their derivatives depend on the grid smoothly. Along one
axis they are written as tensors of ``delta = grid - grid`` (0 in value, 1 in derivative),
exact where the taps are fixed:

- ``bilinear``: the weights are affine in the grid, ``w + delta * s`` (``s`` the slopes
  forward found: the coordinate's derivative, 0 where a padding mode clamps it), and
  their slopes constant;
- ``bicubic``: the weights are cubics of the coordinate's fraction ``t + delta * scale``
  (PyTorch's cubic convolution kernels, ``grid_taps._bicubic``), their slopes the cubics'
  derivatives.

A grid value that is not finite gets ``delta = 0``: its weights keep forward's values.
"""

from __future__ import annotations

from .grid_taps import A, unnormalize
from .selection_graph import picked, placed


def axis_weights(node, backend, coord, delta, taps, size: int):
    """``(weights, slopes)`` tensors ``(N, k, P)`` of the taps along one axis (grid
    component ``coord`` (N, P) as an array, ``delta`` as a tensor (N, 1, P)); ``taps`` is
    forward's ``(positions, weights, slopes)``."""
    _, weights, slopes = taps
    if node.mode == "bilinear":
        return node.constant(weights) + delta * node.constant(slopes), node.constant(slopes)
    source, scale = unnormalize(backend, coord, size, node.align_corners)
    t = backend.binary("sub", source, backend.unary("floor", source))
    t = node.constant(backend.reshape(t, (t.shape[0], 1, t.shape[1]))) + delta * float(scale)
    u = 1 - t  # the distance to the pixel above
    near, far = (A + 2, -(A + 3), 0, 1), (A, -5 * A, 8 * A, -4 * A)
    near_slope, far_slope = (3 * (A + 2), -2 * (A + 3), 0), (3 * A, -10 * A, 8 * A)
    from ..functions import cat

    weights = cat([_poly(x, c) for x, c in ((t + 1, far), (t, near), (u, near),
                                            (u + 1, far))], 1)
    slopes = cat([_poly(t + 1, far_slope), _poly(t, near_slope), -_poly(u, near_slope),
                  -_poly(u + 1, far_slope)], 1)
    return weights, slopes * float(scale)


def _poly(x, coefficients):
    """The polynomial with ``coefficients`` (highest power first) at tensor ``x``."""
    value = x * coefficients[0]
    for c in coefficients[1:-1]:
        value = (value + c) * x
    return value + coefficients[-1]


def outer(axes: list):
    """Tensors ``axes`` (N, k, P), outermost first, combined by products, every tap of each
    with every tap of the others: (N, 1, k**d, P), row-major (the last axis inner)."""
    combined = axes[0]
    for axis in axes[1:]:
        N, m, P = combined.shape
        combined = (combined.reshape(N, m, 1, P) * axis.reshape(N, 1, axis.shape[1], P))
        combined = combined.reshape(N, -1, P)
    N, m, P = combined.shape
    return combined.reshape(N, 1, m, P)


def _inside(shape: tuple) -> tuple:
    return (Ellipsis,) + tuple(slice(1, n + 1) for n in shape[2:])


def _ringed_shape(shape: tuple) -> tuple:
    return tuple(shape[:2]) + tuple(n + 2 for n in shape[2:])


def ringed(node, x):
    """Tensor ``x`` (N, C, *spatial) inside a ring of zeros, flattened (recorded)."""
    N, C = x.shape[:2]
    return placed(node, x, _inside(x.shape), _ringed_shape(x.shape),
                  x.dtype).reshape(N, C, -1)


def input_gradient(node, spread, index, shape: tuple, dtype):
    """The input's gradient: ``spread`` (N, C, k**d, P) added at the ringed positions
    ``index``, the ring cut off (recorded)."""
    ringed_shape = _ringed_shape(shape)
    points = 1
    for n in ringed_shape[2:]:
        points *= n
    plane = placed(node, spread, index, tuple(shape[:2]) + (points,), dtype)
    return plane.reshape(ringed_shape)[_inside(shape)]


def grid_gradient(node, gy, x, index, slopes, grid_shape: tuple):
    """The grid's gradient ``(N, *grid_out, d)``: for each grid component (``slopes``, x
    first), the sum over channels and taps of the gradient times each tap's value times its
    weight's derivative along it."""
    from ..functions import stack

    per_tap = (picked(node, ringed(node, x), index) * gy).sum(1, keepdim=True)
    parts = [(per_tap * slope).sum((1, 2)) for slope in slopes]
    return stack(parts, -1).reshape(grid_shape)
