"""``torch.gradient``: derivatives of sampled values by finite differences, one tensor per dim.

Composed of existing ops, as PyTorch composes it (slices, ``sub``, ``mul``, ``div``,
``diff`` and one ``cat`` per dim, so ``grad_fn`` reads ``CatBackward0``): interior points
take central differences, the two edges one-sided ones of first or second order. With
coordinates instead of a uniform spacing, the interior weights are those of the
second-order formula on uneven steps. Every step is a recorded op, so the result is
differentiable to any order, in ``input`` and in the coordinates, on every device (meta
too: nothing here reads a value).
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .functions import cat
from .int_arguments import is_int
from .ops.shapes import normalize_dim


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:  # noqa: A002
    """The derivative of ``input``'s samples along each dim of ``dim`` (all dims when None),
    by central differences inside and one-sided ones of order ``edge_order`` (1 or 2) at
    both edges.

    ``spacing`` is the distance between neighbouring samples: one number for every dim, a
    list of numbers (one per dim), or a list of 1-D tensors holding each dim's sample
    coordinates (as many as the dim's size; the steps may differ).

    Shape:
        a tuple of one tensor of ``input``'s shape per dim; float results of an integer
        input are of the default dtype.

    Raises:
        RuntimeError: a uint8 input, a spacing list whose length is not that of ``dim``,
            ``edge_order`` not 1 or 2, a dim shorter than ``edge_order + 1``, coordinates
            that are not 1-D or not as long as their dim (PyTorch's messages).
        IndexError: a dim out of range. TypeError: arguments of the wrong kind.
    """
    if input.dtype is dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    _check_kinds(spacing, dim, edge_order)
    dims = _dims(input, dim)
    spacings = _spacings(input, spacing, dim, len(dims))
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    axes = _normalized(input, dims)
    for axis in axes:
        if input.shape[axis] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               f"edge_order+1, but dim {axis} of input of shape "
                               f"{list(input.shape)} has size {input.shape[axis]} and "
                               f"edge_order is {edge_order}")
    if isinstance(spacing, (tuple, list)) and spacing and _is_tensor(spacing[0]):
        _check_coordinates(input, spacings, axes)
        return tuple(_uneven(input, axis, coordinates, edge_order)
                     for axis, coordinates in zip(axes, spacings))
    return tuple(_even(input, axis, step, edge_order) for axis, step in zip(axes, spacings))


def _is_tensor(value) -> bool:
    return hasattr(value, "_data")


def _is_number(value) -> bool:
    return isinstance(value, Number) or (_is_tensor(value) and value.dim() == 0)


def _check_kinds(spacing, dim, edge_order) -> None:
    """PyTorch's TypeError for an argument that fits none of its overloads."""
    kinds = ("spacing: a number, or a list of numbers or of 1-D tensors; dim: an int or a "
             "list of ints; edge_order: an int")
    bad = None
    if not is_int(edge_order):
        bad = f"edge_order={type(edge_order).__name__}"
    elif dim is not None and not isinstance(dim, (int, tuple, list)) or isinstance(dim, bool):
        bad = f"dim={type(dim).__name__}"
    elif isinstance(dim, (tuple, list)) and not all(
            is_int(d) for d in dim):
        bad = "dim=a list holding something else than ints"
    elif isinstance(spacing, (tuple, list)):
        if spacing and not (all(_is_tensor(s) for s in spacing)
                            or all(isinstance(s, Number) for s in spacing)):
            bad = "spacing=a list mixing numbers and tensors"
    elif spacing is not None and not _is_number(spacing):
        bad = f"spacing={type(spacing).__name__}"
    if bad is not None:
        raise TypeError(f"gradient() received an invalid combination of arguments - got "
                        f"{bad}, but expected {kinds}")


def _dims(input, dim) -> list:
    """The dims asked for, as given (ranges are checked later, as PyTorch's order)."""
    if dim is None:
        return list(range(input.dim()))
    return list(dim) if isinstance(dim, (tuple, list)) else [dim]


def _spacings(input, spacing, dim, count: int) -> list:
    """One spacing (a number or a coordinate tensor) per dim, with PyTorch's length check:
    a single number serves every dim, a list must have one entry per dim."""
    if spacing is None:
        spacing = 1
    if not isinstance(spacing, (tuple, list)):
        # a 0-d tensor counts as a number (PyTorch takes it as a Scalar: no gradient)
        return [spacing.detach() if _is_tensor(spacing) else spacing] * count
    if len(spacing) != count:
        if dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, "
                               f"or a list of length equal to 'self.dim() = {input.dim()}', "
                               f"since dim argument was not given, but got a list of length "
                               f"{len(spacing)}")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                           f"it's spacing and dim arguments to have the same length, but got "
                           f"a spacing argument of length {len(spacing)} and a dim argument "
                           f"of length {count}.")
    return list(spacing)


def _normalized(input, dims: list) -> list:
    """``dims`` in ``range(input.dim())``, each at most once (PyTorch's errors)."""
    if dims and input.dim() == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    axes = []
    for d in dims:
        axis = normalize_dim("gradient", d, input.dim())
        if axis in axes:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        axes.append(axis)
    return axes


def _check_coordinates(input, coordinates, axes) -> None:
    for axis, points in zip(axes, coordinates):
        if points.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one "
                               f"dimension, but got an element with {points.dim()} "
                               "dimensions!")
        # (PyTorch does not check this and broadcasts the weights into a wrong shape)
        if points.shape[0] != input.shape[axis]:
            raise RuntimeError(f"torch.gradient expected each tensor of spacing to hold one "
                               f"coordinate per element along its dim, but got "
                               f"{points.shape[0]} coordinates for dim {axis} of size "
                               f"{input.shape[axis]}")


def _part(x, axis: int, start, stop=None):
    """``x``'s slice ``start:stop`` along ``axis`` (a view)."""
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _even(x, axis: int, h, edge_order: int):
    """Differences along ``axis`` for samples ``h`` apart (PyTorch's operations, in its
    order, so that float32 rounds alike)."""
    center = (_part(x, axis, 2) - _part(x, axis, 0, -2)) / h
    if edge_order == 1:
        first = (_part(x, axis, 1, 2) - _part(x, axis, 0, 1)) / h
        last = (_part(x, axis, -1) - _part(x, axis, -2, -1)) / h
    else:
        first = (_part(x, axis, 0, 1) * -1.5 + _part(x, axis, 1, 2) * 2
                 - _part(x, axis, 2, 3) * 0.5) / h
        last = (_part(x, axis, -3, -2) * 0.5 + _part(x, axis, -2, -1) * -2
                + _part(x, axis, -1) * 1.5) / h
    return cat([first, center / 2, last], axis)


def _uneven(x, axis: int, points, edge_order: int):
    """Differences along ``axis`` for samples at the coordinates ``points``: the interior
    weights of the three-point formula on steps ``dx1`` (before) and ``dx2`` (after)."""
    shape = [1] * x.dim()
    shape[axis] = -1
    dx = points.diff()
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _part(x, axis, 0, -2) + b * _part(x, axis, 1, -1) + c * _part(x, axis, 2)
    if edge_order == 1:
        first = (_part(x, axis, 1, 2) - _part(x, axis, 0, 1)) / dx[0]
        last = (_part(x, axis, -1) - _part(x, axis, -2, -1)) / dx[-1]
    else:
        first = (_edge_weight(-(2.0 * dx[0] + dx[1]), dx[0], dx[0] + dx[1])
                 * _part(x, axis, 0, 1)
                 + _edge_weight(dx[0] + dx[1], dx[0], dx[1]) * _part(x, axis, 1, 2)
                 + _edge_weight(-dx[0], dx[1], dx[0] + dx[1]) * _part(x, axis, 2, 3))
        last = (_edge_weight(dx[-1], dx[-2], dx[-1] + dx[-2]) * _part(x, axis, -3, -2)
                + _edge_weight(-(dx[-1] + dx[-2]), dx[-1], dx[-2]) * _part(x, axis, -2, -1)
                + _edge_weight(2 * dx[-1] + dx[-2], dx[-1], dx[-1] + dx[-2])
                * _part(x, axis, -1))
    return cat([first, center, last], axis)


def _edge_weight(numerator, step, span):
    """``numerator / (step * span)``: one weight of a one-sided second-order formula."""
    return numerator / (step * span)
