"""``Tensor.view(dtype)``: the same memory read as another dtype (float32 bits as int32,
complex64 as pairs of float32), a view that shares memory and version counter with its
input.

Between dtypes of one element size the shape is kept. A smaller element multiplies the
last dim (``(2, 3)`` float32 as int16 is ``(2, 6)``); a larger one divides it, which needs
the last dim contiguous and every other stride and the storage offset divisible by the
ratio, PyTorch's checks in its order and words. The checks read the input's strides, so a
meta tensor (C-ordered strides) is checked as a contiguous one.

Not differentiable, as in PyTorch: the result never requires grad.
"""

from __future__ import annotations

from .. import dtypes
from ..errors import ShapeError
from .function import Function


class ViewDtype(Function):
    """``x.view(dtype)``.

    Shape:
        the same for dtypes of one element size; otherwise the last dim is scaled by the
        ratio of the element sizes: float32 ``(2, 3)`` -> int8 ``(2, 12)``, float32
        ``(2, 4)`` -> float64 ``(2, 2)``.
    """

    op_name, backward_name = "view", "ViewBackward0"
    is_view = True
    complex_aware = True  # (complex64 as float32 pairs and back)
    differentiable = False

    def infer(self, x):
        return view_dtype_shape(x, self.dtype), self.dtype

    def forward(self, backend, x):
        return backend.bitcast(x, self.dtype)


def view_dtype_shape(x, dtype) -> tuple:
    """The shape of ``x`` read as ``dtype``, after PyTorch's checks (see the module)."""
    shape, old_size, new_size = x._data.shape, x._dtype.itemsize, dtype.itemsize
    if old_size == new_size:
        return shape
    what = (f"to view {dtypes.SCALAR_TYPE_NAMES[x._dtype]} as "
            f"{dtypes.SCALAR_TYPE_NAMES[dtype]} (different element sizes)")
    if not shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    strides = x._backend.strides(x._data)
    if old_size > new_size:  # each element becomes several
        _require(strides[-1] == 1, f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        return shape[:-1] + (shape[-1] * (old_size // new_size),)
    ratio = new_size // old_size  # several elements become one
    offset = x._backend.storage_offset(x._data)
    _require(shape[-1] % ratio == 0,
             f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
    _require(offset % ratio == 0,
             f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
    _require(strides[-1] == 1, f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    for dim, stride in enumerate(strides[:-1]):
        _require(stride % ratio == 0,
                 f"self.stride({dim}) must be divisible by {ratio} {what}, but got {stride}")
    return shape[:-1] + (shape[-1] // ratio,)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError("view", message)
