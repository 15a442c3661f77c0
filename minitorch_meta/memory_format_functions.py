"""The tensor entry points of the memory formats: ``Tensor.contiguous``/``is_contiguous``/
``clone``/``to`` with ``memory_format=``, the ``*_like`` factories' layout,
``torch.empty_permuted``, ``Tensor.dim_order`` and ``Tensor.layout``.

Each asks ``memory_formats.strides_for`` for the strides of a format and lays the data out
with the ``empty_strided`` kernel, so a ``channels_last`` tensor really has channels-last
memory (``stride()`` is PyTorch's ``(H*W*C, 1, W*C, C)``), on meta too (a meta array made
here carries its strides; an op's output on meta is C-ordered again: docs/differences.md).
"""

from __future__ import annotations

from . import memory_formats as formats
from .backends.base import contiguous_strides
from .ops.layout import Clone, ToCopy


def is_contiguous(tensor, memory_format) -> bool:
    """Whether ``tensor`` is laid out as ``memory_format`` (``Tensor.is_contiguous``)."""
    memory_format = formats.check_memory_format("is_contiguous", memory_format)
    if memory_format is formats.contiguous_format or memory_format is formats.preserve_format:
        return tensor._backend.is_contiguous(tensor._data)
    return formats.is_contiguous_as(memory_format, tuple(tensor.shape), tensor.stride())


def contiguous(tensor, memory_format):
    """``tensor`` if it is laid out as ``memory_format``, else a copy that is
    (``CloneBackward0``).

    Raises:
        RuntimeError: ``preserve_format`` for a tensor that is not contiguous, a format of
            another rank (PyTorch's messages).
    """
    if is_contiguous(tensor, memory_format):
        return tensor
    if memory_format is formats.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _copy(tensor, formats.strides_for(memory_format, tuple(tensor.shape)))


def clone(tensor, memory_format=None):
    """A copy of ``tensor`` laid out as ``memory_format`` (``preserve_format`` by default:
    dense strides are kept, others keep their order of dims), ``CloneBackward0``."""
    memory_format = formats.check_memory_format("clone", memory_format, formats.preserve_format)
    return _copy(tensor, formats.strides_for(memory_format, tuple(tensor.shape),
                                             tensor.stride()))


def _copy(tensor, strides):
    """A ``CloneBackward0`` copy of ``tensor`` with ``strides``."""
    if strides == contiguous_strides(tensor.shape):
        return Clone()(tensor)
    result = Clone(strides=strides)(tensor)
    if not result._backend.stores_data:  # the dispatcher made a plain meta array
        result._data = result._backend.empty_strided(tuple(result.shape), strides, result._dtype)
    return result


def copy_to(tensor, backend, dtype, memory_format, copy: bool = False):
    """``Tensor.to`` for a ``memory_format`` or a tensor that is not C-ordered: ``tensor``
    itself when nothing changes (unless ``copy``), else a ``ToCopyBackward0`` copy in the
    format."""
    memory_format = formats.check_memory_format("to", memory_format, formats.preserve_format)
    shape = tuple(tensor.shape)
    same = backend is tensor._backend and dtype is tensor._dtype and not copy
    if same and (memory_format is formats.preserve_format
                 or is_contiguous(tensor, memory_format)):
        return tensor
    # (given even when C-ordered: a dtype conversion may keep other strides, NumPy's
    # astype keeps an expanded dim's stride-0 order)
    strides = formats.strides_for(memory_format, shape, tensor.stride())
    return ToCopy(target=backend, dtype=dtype, strides=strides)(tensor)


def like(input, made, memory_format, values: bool = True):
    """``made``, a new C-ordered tensor of ``input``'s shape (a ``*_like`` factory's),
    laid out as ``memory_format`` asks of ``input`` (``preserve_format``: as ``input``);
    ``values`` False when ``made``'s values need not be kept (``empty_like``)."""
    memory_format = formats.check_memory_format("empty_like", memory_format,
                                                formats.preserve_format)
    shape = tuple(made.shape)
    strides = formats.strides_for(memory_format, shape, input.stride())
    if strides != contiguous_strides(shape):
        backend = made._backend
        made._data = (formats.copy_with_strides(backend, made._data, strides, made._dtype)
                      if values else backend.empty_strided(shape, strides, made._dtype))
    return made


def empty(made, memory_format):
    """``torch.empty``'s tensor ``made`` (C-ordered) laid out as ``memory_format``.

    Raises:
        RuntimeError: ``preserve_format`` (nothing to preserve), a format of another rank.
    """
    memory_format = formats.check_memory_format("empty", memory_format,
                                                formats.contiguous_format)
    if memory_format is formats.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    shape = tuple(made.shape)
    strides = formats.strides_for(memory_format, shape)
    if strides != contiguous_strides(shape):
        made._data = made._backend.empty_strided(shape, strides, made._dtype)
    return made


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad: bool = False, pin_memory: bool = False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first): ``empty_permuted((N, C, H, W), (0, 2, 3, 1))``
    is channels-last. Not ``empty(...).permute(...)``: the shape is ``size``.

    Shape:
        ``size``; ``stride(physical_layout[i])`` is the i-th contiguous stride of the
        permuted sizes.

    Raises:
        TypeError: ``size`` or ``physical_layout`` is not a sequence of ints.
        RuntimeError: ``physical_layout`` is not a permutation of ``range(len(size))``
            (PyTorch's messages).
    """
    from .factories import _finish, _setup
    from .ops.shapes import int_tuple_argument

    size = int_tuple_argument("empty_permuted", "size", 1, size)
    physical_layout = int_tuple_argument("empty_permuted", "physical_layout", 2,
                                         physical_layout)
    formats.check_layout("empty_permuted", layout)
    _check_permutation(size, physical_layout)
    dtype, backend = _setup(dtype, device)
    strides = formats.permuted_strides(size, physical_layout)
    return _finish(backend.empty_strided(size, strides, dtype), backend, requires_grad)


def _check_permutation(size: tuple, physical_layout: tuple) -> None:
    ndim = len(size)
    if len(physical_layout) != ndim:
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {ndim} is not equal to "
                           f"len(physical_layout) = {len(physical_layout)}")
    seen = set()
    for i, d in enumerate(physical_layout):
        if not 0 <= d < ndim:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{ndim - 1}, but got {d} at index {i}).  NB: negative dims "
                               "not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)


def dim_order(tensor, *, ambiguity_check=False) -> tuple:
    """The dims of ``tensor`` from the outermost to the innermost in memory; see
    ``memory_formats.dim_order`` for ``ambiguity_check``."""
    return formats.dim_order(tuple(tensor.shape), tensor.stride(), ambiguity_check)


def layout(tensor):
    """``Tensor.layout``: always ``torch.strided`` (there are no sparse tensors)."""
    return formats.strided
