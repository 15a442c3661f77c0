"""The arguments of ``torch.fft``'s transforms, checked and made canonical as PyTorch does:
which dims and signal lengths (``n``/``s``, ``dim``), the scale of ``norm``, the dtype
promotion of the input, and the zero-padding or cropping of the input to the lengths.
"""

from __future__ import annotations

from . import dtypes
from .int_arguments import is_int
from .shape_functions import narrow


def argument_error(name: str, argument: str, expected: str, value) -> TypeError:
    return TypeError(f"fft_{name}(): argument '{argument}' must be {expected}, not "
                     f"{type(value).__name__}")


def scale(name: str, norm, forward: bool) -> str:
    """The kernels' scale (see ``backends/base.py``) of ``norm`` for a transform run in
    direction ``forward``: "backward" (None) leaves the forward transform unscaled and
    divides the inverse by N, "forward" the other way round, "ortho" both by sqrt(N)."""
    if norm is not None and not isinstance(norm, str):
        raise argument_error(name, "norm", "str", norm)
    if norm is None or norm == "backward":
        return "none" if forward else "n"
    if norm == "forward":
        return "n" if forward else "none"
    if norm == "ortho":
        return "sqrt_n"
    raise RuntimeError(f'Invalid normalization mode: "{norm}" (expected "backward", '
                       '"forward", "ortho" or None)')


def promote(name: str, x, require_complex: bool):
    """``x`` as the transforms take it: an integer or bool tensor in the default float
    dtype, then, with ``require_complex``, a real one in the complex dtype of its precision
    (PyTorch's ``ToCopyBackward0``). float16 is refused, as PyTorch's CPU transforms do."""
    if x.dtype.is_complex:
        return x
    if not x.dtype.is_floating_point:
        x = x.to(dtypes.get_default_dtype())
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {dtypes.SCALAR_TYPE_NAMES[x.dtype]}: the Fourier "
                           "transforms take float32, float64, complex64 and complex128 "
                           "tensors; convert with .float()")
    return x.to(x.dtype.to_complex()) if require_complex else x


def require_real(name: str, x, message: str) -> None:
    if x.dtype.is_complex:
        raise RuntimeError(message.format(name=name, dtype=dtypes.SCALAR_TYPE_NAMES[x.dtype]))


def _int(name: str, argument: str, value) -> int:
    if not is_int(value):
        raise argument_error(name, argument, "int", value)
    return value


def _ints(name: str, argument: str, value) -> tuple:
    """An int or a sequence of ints as a tuple."""
    if is_int(value):
        return (value,)
    if not isinstance(value, (tuple, list)) and type(value).__name__ != "Size":
        raise argument_error(name, argument, "tuple of ints", value)
    return tuple(_int(name, argument, v) for v in value)


def _tensor(name: str, x):
    if not hasattr(x, "_data"):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    return x


def _wrap(x, dim: int) -> int:
    ndim = x.dim()
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions; the "
                         "Fourier transforms need at least one dim to transform")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def _require_lengths(sizes) -> None:
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified; a transformed "
                               "dim needs at least one element")


def one_dim(name: str, x, n, dim) -> tuple:
    """``((dim,), (n,))`` of a 1-D transform: ``dim`` wrapped, ``n`` its length (the
    input's when None)."""
    axis = _wrap(_tensor(name, x), _int(name, "dim", dim))
    length = x.shape[axis] if n is None else _int(name, "n", n)
    _require_lengths((length,))
    return (axis,), (length,)


def many_dims(name: str, x, s, dim) -> tuple:
    """``(dims, sizes)`` of an n-D transform (PyTorch's rules): ``dim`` wrapped and
    distinct (default: the last ``len(s)`` dims, or every dim); ``s`` one length per dim,
    -1 for the input's (default: the input's)."""
    _tensor(name, x)
    dims = None if dim is None else tuple(_wrap(x, d) for d in _ints(name, "dim", dim))
    if dims is not None and len(set(dims)) != len(dims):
        raise RuntimeError(f"FFT dims must be unique (got dim={dim})")
    if s is None:
        dims = tuple(range(x.dim())) if dims is None else dims
        sizes = tuple(x.shape[d] for d in dims)
    else:
        s = _ints(name, "s", s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError(f"When given, dim and shape arguments must have the same length "
                               f"(got s={s} and dim={dim})")
        if len(s) > x.dim():
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{x.dim()} dimensions.")
        dims = tuple(range(x.dim() - len(s), x.dim())) if dims is None else dims
        sizes = tuple(x.shape[d] if n == -1 else n for d, n in zip(dims, s))
    _require_lengths(sizes)
    return dims, sizes


def hermitian_last(name: str, x, dims, sizes, given_last) -> tuple:
    """``(input sizes, last_size)`` of a transform to a real signal: the real signal has
    ``last_size`` elements along ``dims[-1]`` (``given_last``, or ``2 * (m - 1)`` for an
    input of ``m`` there), the input ``last_size // 2 + 1`` of them."""
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis (got an empty dim)")
    last = 2 * (x.shape[dims[-1]] - 1) if given_last in (None, -1) else given_last
    _require_lengths((last,))
    return sizes[:-1] + (last // 2 + 1,), last


def resize(x, dims, sizes):
    """``x`` cropped or zero-padded at the end of each of ``dims`` to ``sizes``."""
    from . import factories, functions

    for dim, size in zip(dims, sizes):
        have = x.shape[dim]
        if size < have:
            x = narrow(x, dim, 0, size)
        elif size > have:
            missing = list(x.shape)
            missing[dim] = size - have
            zeros = factories.zeros(tuple(missing), dtype=x.dtype, device=x.device)
            x = functions.cat([x, zeros], dim)
    return x
