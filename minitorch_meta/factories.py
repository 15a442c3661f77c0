"""Factory functions: ``tensor``, ``empty``, ``zeros``, ``ones``, ``full``, ``eye``, ``rand``,
``randn``, ``randint``, ``randperm``, ``arange``, ``from_numpy``, the ``*_like`` forms and
what the ``Tensor.new_*`` methods share.

A floating-point result without ``dtype=`` gets ``get_default_dtype()``, read at each call.

Every factory takes ``dtype=``, ``device=`` and ``requires_grad=``; the device defaults to
the one set by ``with minitorch_meta.device(...)`` (else cpu). On meta nothing is allocated.
"""

from __future__ import annotations

import math
from numbers import Number

import numpy as np

from . import dtypes
from .backends.registry import get_backend
from .device import to_device
from .errors import DtypeNotImplementedError, ShapeError
from .float8_casts import to_float8
from .int_arguments import varargs_or_keyword
from .ops import float8_shell
from .ops.elementwise import _finite_range
from .ops.masked import fill_number
from .ops.unsigned_shell import refuse_dtype
from .random import generator_for
from .tensor import Tensor, c_ordered


def _sizes(size) -> tuple:
    """``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros(Size([2, 3]))`` all mean ``(2, 3)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"sizes must be integers, got {s!r} in {size!r}")
        if s < 0:
            raise ValueError(f"sizes must be non-negative, got {tuple(size)}")
    return tuple(int(s) for s in size)


def _finish(array, backend, requires_grad: bool) -> Tensor:
    t = Tensor._make(array, backend)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_layout(function: str, layout) -> None:
    """Refuse a layout other than ``torch.strided`` (see ``memory_formats.check_layout``)."""
    if layout is not None:
        from .memory_formats import check_layout

        check_layout(function, layout)


def _setup(dtype, device, default=None):
    """The dtype (else ``default``, else the default floating-point dtype, read now) and the
    backend of ``device``."""
    if dtype is not None:
        dtype = dtypes.to_dtype(dtype)
    else:
        dtype = default if default is not None else dtypes.get_default_dtype()
    device = to_device(device)
    if dtype in dtypes.CPU_ONLY:
        dtypes.refuse_on_device(dtype, device)
    return dtype, get_backend(device)


def empty(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format=None) -> Tensor:
    """An uninitialised tensor (on meta: a shape only, whatever the size), laid out as
    ``memory_format`` (``contiguous_format`` by default; ``channels_last`` for a 4-D one)."""
    _check_layout("empty", layout)
    dtype, backend = _setup(dtype, device)
    made = _finish(backend.empty(_sizes(varargs_or_keyword("empty", "size", sizes, size)),
                                 dtype), backend, requires_grad)
    if memory_format is None:
        return made
    from .memory_format_functions import empty as in_format

    return in_format(made, memory_format)


def full(size, fill_value: Number, *, dtype=None, layout=None, device=None,
         requires_grad: bool = False) -> Tensor:
    _check_layout("full", layout)
    dtype, backend = _setup(dtype, device, _full_dtype(fill_value))
    # -1 wraps in uint8, 300 is refused
    fill_value = fill_number("full", fill_value, dtype, "fill_value")
    shape = _sizes((size,))
    if dtype in dtypes.FLOAT8:
        float8_shell.check_fill("full", fill_value, dtype, math.prod(shape))
    return _finish(backend.full(shape, fill_value, dtype), backend, requires_grad)


def _full_dtype(fill_value):
    """The dtype ``full`` gives ``fill_value`` without ``dtype=``, as PyTorch's argument
    parser reads it: a bool is bool, a complex complex, anything with ``__index__`` (an int,
    a NumPy integer) int64, and any other number (a NumPy float or bool) the default float
    dtype (None here); a 0-d tensor is read by its value."""
    if hasattr(fill_value, "_data") and fill_value.dim() == 0:
        fill_value = fill_value.item()
    if isinstance(fill_value, bool):
        return dtypes.bool_
    if isinstance(fill_value, complex):
        return dtypes.default_complex_dtype()
    if not isinstance(fill_value, float) and hasattr(fill_value, "__index__"):
        return dtypes.int64
    return None


def zeros(*sizes, size=None, dtype=None, layout=None, device=None,
          requires_grad: bool = False) -> Tensor:
    _check_layout("zeros", layout)
    dtype, backend = _setup(dtype, device)
    shape = _sizes(varargs_or_keyword("zeros", "size", sizes, size))
    return _finish(backend.full(shape, 0, dtype), backend, requires_grad)


def ones(*sizes, size=None, dtype=None, layout=None, device=None,
         requires_grad: bool = False) -> Tensor:
    _check_layout("ones", layout)
    dtype, backend = _setup(dtype, device)
    shape = _sizes(varargs_or_keyword("ones", "size", sizes, size))
    return _finish(backend.full(shape, 1, dtype), backend, requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None,
        requires_grad: bool = False) -> Tensor:
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``): ones on the diagonal.

    Shape:
        ``(n, m)``.

    Raises:
        TypeError: ``n`` or ``m`` is not an int.
        ValueError: ``n`` or ``m`` is negative.
    """
    n = _matrix_size("n", 1, n)
    m = n if m is None else _matrix_size("m", 2, m)
    dtype, backend = _setup(dtype, device)
    refuse_dtype("eye", dtype)
    out = backend.full((n, m), 0, dtype)
    # ``setitem`` writes nothing on meta, and its ``arange`` is a shape: nothing allocated.
    diagonal = backend.arange(0, min(n, m), 1, dtypes.int64)
    backend.setitem(out, (diagonal, diagonal), 1)
    return _finish(out, backend, requires_grad)


def _matrix_size(name: str, position: int, value) -> int:
    """``eye``'s ``n`` or ``m`` as an int (PyTorch's messages; a bool is no size)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"eye(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    if value < 0:
        raise ValueError(f"eye: {name} must be greater or equal to 0, got {value}")
    return int(value)


def rand(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
          requires_grad: bool = False) -> Tensor:
    """Uniform samples in [0, 1) (complex: real and imaginary parts each uniform)."""
    dtype, backend = _setup(dtype, device)
    _require_float("rand", dtype)
    _check_layout("rand", layout)
    rng = generator_for(generator, backend)
    shape = _sizes(varargs_or_keyword("rand", "size", sizes, size))
    if dtype.is_complex:
        values = _complex_draws(backend, backend.uniform(shape + (2,), 0.0, 1.0,
                                                         dtype.to_real(), rng), shape, dtype)
    else:
        values = backend.uniform(shape, 0.0, 1.0, dtype, rng)
    return _finish(values, backend, requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, layout=None, device=None,
          requires_grad: bool = False) -> Tensor:
    """Standard normal samples (complex: real and imaginary parts each normal of variance
    1/2, so that ``|z|²`` has mean 1, as PyTorch's)."""
    dtype, backend = _setup(dtype, device)
    _require_float("randn", dtype)
    _check_layout("randn", layout)
    rng = generator_for(generator, backend)
    shape = _sizes(varargs_or_keyword("randn", "size", sizes, size))
    if dtype.is_complex:
        values = _complex_draws(backend, backend.normal(shape + (2,), 0.0, 0.5 ** 0.5,
                                                        dtype.to_real(), rng), shape, dtype)
    else:
        values = backend.normal(shape, 0.0, 1.0, dtype, rng)
    return _finish(values, backend, requires_grad)


def _complex_draws(backend, parts, shape, dtype):
    """Complex samples of ``shape`` from real draws ``parts`` of ``shape + (2,)``."""
    if not backend.stores_data:
        return backend.empty(shape, dtype)
    return backend.view_as_complex(parts)


def randint(low: int = 0, high: int | None = None, size=None, *, generator=None, dtype=None,
            device=None, requires_grad: bool = False) -> Tensor:
    """Uniform integers in ``[low, high)``: ``randint(10, (3,))`` or ``randint(2, 10, (3,))``."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint() expects (high, size) or (low, high, size), e.g. "
                        "randint(10, (3, 4))")
    if high <= low:
        raise ValueError(f"randint: expected low < high, got low={low} and high={high}")
    dtype, backend = _setup(dtype, device, dtypes.int64)
    float8_shell.refuse_factory("randint", dtype, "random_update_from_to")
    rng = generator_for(generator, backend)
    shape = _sizes((size,))  # a tuple, a list or a single int
    return _finish(backend.integers(shape, low, high, dtype, rng), backend, requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n - 1`` (int64 unless ``dtype`` says otherwise).

    Raises:
        TypeError: ``n`` is not an int.
        NotImplementedError: ``dtype`` is bool (as in PyTorch).
        ValueError: ``n`` is negative.
        RuntimeError: ``n - 1`` does not fit in ``dtype`` (e.g. ``n = 300`` as uint8).
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise ValueError(f"randperm: n must be non-negative, got {n}")
    dtype, backend = _setup(dtype, device, dtypes.int64)
    refuse_dtype("randperm", dtype)
    if dtype is dtypes.bool_:
        raise NotImplementedError("randperm: not implemented for dtype torch.bool; use an "
                                  "integer dtype (the default, torch.int64)")
    if not dtype.is_floating_point and n > 0 and n - 1 > np.iinfo(dtype.numpy).max:
        raise RuntimeError(f"randperm: value {n - 1} cannot be converted to type {dtype} "
                           "without overflow; use a wider dtype such as torch.int64")
    rng = generator_for(generator, backend)
    return _finish(backend.permutation(int(n), dtype, rng), backend, requires_grad)


#: ml_dtypes' NumPy dtypes (bfloat16 and the float8s): kept as they are by ``tensor()``
_ML_DTYPES = frozenset(d.numpy for d in dtypes.CPU_ONLY)
#: PyTorch's kernel that refuses a dtype without floating-point values, by factory
_SAMPLING_KERNELS = {"rand": "check_uniform_bounds", "randn": "normal_kernel_cpu",
                     "normal": "normal_kernel_cpu"}


def _require_float(name: str, dtype) -> None:
    float8_shell.refuse_factory(name, dtype, _SAMPLING_KERNELS[name])
    if not dtype.is_floating_point and not dtype.is_complex:
        raise DtypeNotImplementedError(
            f'"{_SAMPLING_KERNELS[name]}" not implemented for '
            f"'{dtypes.SCALAR_TYPE_NAMES[dtype]}': {name} expected a floating-point or complex "
            f"dtype, got {dtype}")


def arange(start: Number, end: Number | None = None, step: Number = 1, *, dtype=None,
           device=None, requires_grad: bool = False) -> Tensor:
    """``[start, end)`` with spacing ``step`` (int64 for integer arguments, else float32)."""
    if end is None:
        start, end = 0, start
    if step == 0:  # RuntimeError in PyTorch; a ShapeError is also the ValueError it was
        raise ShapeError("arange", "step must be nonzero")
    if (end - start) * step < 0:
        raise ShapeError("arange", f"upper bound and lower bound inconsistent with step sign "
                                   f"(start={start}, end={end}, step={step})")
    integral = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    dtype, backend = _setup(dtype, device, dtypes.int64 if integral else None)
    if dtype.is_complex:  # complex numbers have no order to step along
        raise NotImplementedError(f"arange: not implemented for {dtype} (as in PyTorch); "
                                  "make a real range and convert it, e.g. "
                                  "torch.arange(3).to(torch.complex64)")
    refuse_dtype("arange", dtype)
    if dtype.is_floating_point or dtype is dtypes.bool_:
        return _finish(backend.arange(start, end, step, dtype), backend, requires_grad)
    first, stride, count = _integer_arange(start, end, step, dtype)
    # the values in int64 then converted, so that a negative start wraps in uint8 as in PyTorch
    values = backend.arange(first, first + count * stride, stride, dtypes.int64) if stride \
        else backend.full((count,), first, dtypes.int64)
    return _finish(backend.astype(values, dtype), backend, requires_grad)


def _integer_arange(start: Number, end: Number, step: Number, dtype) -> tuple[int, int, int]:
    """PyTorch's ``arange`` of an integer ``dtype`` with float bounds: the first value and
    the spacing are ``start`` and ``step`` truncated toward zero. The length is counted from
    the truncated bounds for int64 (``arange(0, 2.5)`` has 2 values) but from the float
    bounds for the other integer dtypes (3 values as int32; a step truncated to 0 repeats
    ``start``). Returns ``(first, stride, count)``."""
    first, last, stride = int(start), int(end), int(step)
    if dtype is not dtypes.int64:
        return first, stride, max(0, math.ceil((end - start) / step))
    if stride == 0:
        raise ValueError(f"arange: step must be nonzero; step={step!r} truncated to int64 "
                         "is 0 (use a step of magnitude at least 1, or a float dtype)")
    return first, stride, max(0, -((first - last) // stride))


def linspace(start: float, end: float, steps: int, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, int):
        raise TypeError(f"linspace(): argument 'steps' (position 3) must be int, not "
                        f"{type(steps).__name__}")
    if steps < 0:  # RuntimeError in PyTorch; a ShapeError is also the ValueError it was
        raise ShapeError("linspace", f"number of steps must be non-negative, got {steps}")
    dtype, backend = _setup(dtype, device)
    refuse_dtype("linspace", dtype)
    values = np.linspace(start, end, steps, dtype=np.float64).astype(dtype.numpy)
    return _finish(backend.asarray(values, dtype), backend, requires_grad)


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor copying ``data`` (nested lists, numbers, NumPy arrays or a Tensor)."""
    if isinstance(data, Tensor):
        data = data.detach()
        out = data.to(device=to_device(device) if device is not None else data.device,
                      dtype=dtype if dtype is not None else data.dtype)
        out = out.clone() if out is data else out
        return out.requires_grad_(requires_grad) if requires_grad else out
    array = np.array(data)
    from_numpy_data = isinstance(data, (np.ndarray, np.generic))
    if dtype is None:
        dtype = _infer_dtype(data, array, from_numpy_data)
    dtype, backend = _setup(dtype, device)
    if not from_numpy_data:  # NumPy data is cast as NumPy casts it, as in PyTorch
        if dtype is dtypes.uint64:  # (NumPy makes float64 of ints beyond int64 with others)
            array = _uint64_array(data)
        _check_fits(array, dtype)
    if dtype in dtypes.FLOAT8:  # PyTorch's rounding, saturation and NaNs (float8_casts.py)
        array = to_float8(array, dtype)
    elif (dtype.is_floating_point or dtype.is_complex) and array.dtype.itemsize > dtype.itemsize:
        with np.errstate(over="ignore"):  # beyond the range is inf, silently as in PyTorch
            array = array.astype(dtype.numpy)
    array = array.astype(dtype.numpy, copy=False)
    return _finish(backend.asarray(array, dtype), backend, requires_grad)


def _check_fits(array: np.ndarray, dtype) -> None:
    """PyTorch's overflow check of Python numbers given for an integer dtype: a float must
    lie in the dtype's range (``-3.0`` is no uint8), an int too, except that an unsigned
    dtype also takes negative ints down to ``-max``, wrapped (``-3`` as uint8 is 253)."""
    if dtype.is_floating_point or dtype is dtypes.bool_ or array.size == 0 \
            or array.dtype.kind not in "iuf":
        return
    low, high = _finite_range(dtype)
    if array.dtype.kind != "f" and dtype.numpy.kind == "u":
        low = -high
    smallest, largest = array.min(), array.max()  # NaN, if any, is both (and fits nothing)
    if not (low <= smallest and largest <= high):
        wrong = smallest if not low <= smallest else largest
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow: "
                           f"{wrong.item()!r} is outside [{low}, {high}]; pick a wider dtype "
                           f"or bring the values into range first")


def _uint64_array(data) -> np.ndarray:
    """The Python numbers ``data`` (nested lists) as a uint64 array, refused as PyTorch
    refuses them for ``tensor(data, dtype=torch.uint64)``: it reads each as a C
    ``unsigned long long``, so a float is a ``TypeError`` (uint16 and uint32 truncate it)
    and a negative int an ``OverflowError`` (they wrap it)."""
    numbers = np.array(data, dtype=object)
    for number in numbers.ravel().tolist():
        if not isinstance(number, int):  # (bool is an int)
            raise TypeError(f"an integer is required: tensor() with dtype=torch.uint64 takes "
                            f"Python ints (or bools) only, got {number!r}; round the floats "
                            "first, or make a float64 tensor and convert it with "
                            ".to(torch.uint64)")
        if number < 0:
            raise OverflowError(f"can't convert negative int to unsigned: {number} given for "
                                "dtype=torch.uint64; wrap it yourself (value % 2**64) or "
                                "pick a signed dtype")
    return numbers.astype(np.uint64)


def _infer_dtype(data, array: np.ndarray, from_numpy_data: bool):
    """PyTorch's inference: Python floats -> the default float dtype (float32 unless
    ``set_default_dtype`` changed it), ints -> int64, NumPy keeps its dtype."""
    if not from_numpy_data and _has_int_beyond_int64(data, array):
        raise ValueError("tensor(): Overflow when unpacking long long: a Python int in the data "
                         "does not fit in int64; pass dtype=torch.uint64 (for 2**63 .. 2**64 - 1) "
                         "or a float")
    if array.dtype.kind == "f":
        if from_numpy_data:
            return dtypes.from_numpy(array.dtype)
        return dtypes.get_default_dtype()
    if array.dtype.kind in "iu":
        try:
            return dtypes.from_numpy(array.dtype)
        except TypeError:
            return dtypes.int64
    if array.dtype.kind == "b":
        return dtypes.bool_
    if array.dtype.kind == "c":  # Python complex numbers: the default complex dtype
        return dtypes.from_numpy(array.dtype) if from_numpy_data else \
            dtypes.default_complex_dtype()
    if array.dtype in _ML_DTYPES:  # ml_dtypes' bfloat16 and float8 (kinds "V" and "f")
        return dtypes.BY_NUMPY[array.dtype]
    if array.size == 0:
        return dtypes.get_default_dtype()
    if array.dtype == object and not from_numpy_data:
        # NumPy keeps ints beyond 64 bits as objects; beside a float, PyTorch reads them
        # as floats: ``tensor([1.5, 2**64])`` is float32
        items = list(_flat(data))
        if all(isinstance(v, Number) for v in items):
            if any(isinstance(v, complex) for v in items):
                return dtypes.default_complex_dtype()
            if any(isinstance(v, float) for v in items):
                return dtypes.get_default_dtype()
    raise TypeError(f"tensor(): could not infer a dtype from data of NumPy dtype {array.dtype}; "
                    "pass numbers, nested lists of numbers or a numeric array")


def _has_int_beyond_int64(data, array: np.ndarray) -> bool:
    """Whether ``data`` (``array`` made by NumPy from it) holds a Python int beyond int64's
    range and no float or complex, so that PyTorch infers int64 and overflows. NumPy made
    such ints uint64, objects or (beside smaller ints) float64: only then is ``data`` itself
    searched."""
    if array.dtype not in (np.uint64, object) and not (
            array.dtype.kind == "f" and array.size
            and np.abs(array).max() >= 2**63):  # (a NaN compares False: floats are there)
        return False
    items = list(_flat(data))
    return (not any(isinstance(v, (float, complex)) for v in items)
            and any(isinstance(v, int) and not -2**63 <= v < 2**63 for v in items))


def _flat(data):
    if isinstance(data, (list, tuple)):
        for item in data:
            yield from _flat(item)
    else:
        yield data


def as_tensor(data, dtype=None, device=None) -> Tensor:
    if isinstance(data, Tensor):
        return data.to(device=device or data.device, dtype=dtype or data.dtype)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor sharing memory with ``array`` (its dtype is kept)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy(array.dtype)  # raises a clear error for unsupported dtypes
    return Tensor._make(array, get_backend(to_device("cpu")))


def _like(input: Tensor, dtype, device, requires_grad: bool, layout=None,
          function: str = "") -> dict:
    """The keyword arguments of a ``*_like`` factory: ``input``'s dtype and device by default
    (``layout``: only ``torch.strided``)."""
    _check_layout(function, layout)
    return {"dtype": dtype or input.dtype, "device": device or input.device,
            "requires_grad": requires_grad}


def empty_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    made = empty(tuple(input.shape), **_like(input, dtype, device, False, layout, "empty_like"))
    return _in_format(input, made, memory_format, requires_grad, values=False)


def zeros_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    made = zeros(tuple(input.shape), **_like(input, dtype, device, False, layout, "zeros_like"))
    return _in_format(input, made, memory_format, requires_grad)


def ones_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    made = ones(tuple(input.shape), **_like(input, dtype, device, False, layout, "ones_like"))
    return _in_format(input, made, memory_format, requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:
    made = full(tuple(input.shape), fill_value,
                **_like(input, dtype, device, False, layout, "full_like"))
    return _in_format(input, made, memory_format, requires_grad)


def rand_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:
    made = rand(tuple(input.shape), generator=generator,
                **_like(input, dtype, device, False, layout, "rand_like"))
    return _in_format(input, made, memory_format, requires_grad)


def randn_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None) -> Tensor:
    made = randn(tuple(input.shape), generator=generator,
                 **_like(input, dtype, device, False, layout, "randn_like"))
    return _in_format(input, made, memory_format, requires_grad)


def _in_format(input: Tensor, made: Tensor, memory_format, requires_grad: bool,
               values: bool = True) -> Tensor:
    """A ``*_like`` factory's tensor ``made`` laid out as ``memory_format`` asks of
    ``input`` (``preserve_format`` by default: as ``input`` is), then ``requires_grad``."""
    if memory_format is not None or not c_ordered(input):
        from .memory_format_functions import like

        made = like(input, made, memory_format, values)
    return made.requires_grad_(True) if requires_grad else made


def new_options(tensor: Tensor, dtype, device, requires_grad: bool) -> dict:
    """The keywords of ``tensor.new_<name>(*size, ...)``: ``tensor``'s dtype and device
    unless given (the methods have checked that ``size`` was given)."""
    return _like(tensor, dtype, device, requires_grad)


def check_size_sequence(name: str, size) -> None:
    """``new_full`` takes its size as one sequence, never as an int (PyTorch's rule)."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype=None,
             device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in the
    exponent (``base ** linspace(start, end, steps)``).

    Raises:
        RuntimeError: ``steps`` is negative.
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"logspace(): argument 'steps' (position 3) must be int, not "
                        f"{type(steps).__name__}")
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative, got steps={steps}")
    dtype, backend = _setup(dtype, device)
    refuse_dtype("logspace", dtype)
    # Computed on the host in float64 (as linspace), then rounded once to ``dtype``.
    values = np.power(float(base), np.linspace(start, end, int(steps), dtype=np.float64))
    return _finish(backend.asarray(values.astype(dtype.numpy), dtype), backend, requires_grad)
