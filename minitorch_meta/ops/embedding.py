"""``embedding``: rows of a weight matrix picked by integer indices (a lookup table).

Forward is one gather (advanced indexing of the weight's rows); backward adds each output
row's gradient into the row it came from with the ``index_add`` kernel (a scatter-add:
an index that appears twice gets both gradients), then zeroes the ``padding_idx`` row.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .gather import index_bounds
from .selection_graph import placed, zeroed

_INDEX_DTYPES = {dtypes.int64: "Long", dtypes.int32: "Int"}
# PyTorch's names of the other dtypes in its dtype error
_TENSOR_TYPE_NAMES = {d: f"{name}Tensor" for d, name in dtypes.SCALAR_TYPE_NAMES.items()}


class Embedding(Function):
    """``weight[indices]``: one row of ``weight`` per index.

    The inputs are ``(weight, indices)`` (PyTorch's ``torch.embedding`` order).
    ``padding_idx`` (a row, already in ``[0, num_embeddings)``, or None) gets no gradient;
    with ``scale_grad_by_freq`` each row's gradient is divided by how often its index
    appears in ``indices``.

    Shape:
        weight ``(num_embeddings, embedding_dim)``, indices ``(*)`` int64 or int32 ->
        ``(*, embedding_dim)`` in the weight's dtype.

    Raises:
        RuntimeError: indices that are not int64 or int32.
        ShapeError: a weight that is not 2-D.
        IndexError: an index outside ``[0, num_embeddings)`` (a data check: it runs on cpu
            and cuda, not on meta, which has no values).
    """

    op_name, backward_name = "embedding", "EmbeddingBackward0"
    saved_for_backward = (1,)  # backward reads only the indices, as PyTorch saves them
    padding_idx, scale_grad_by_freq = None, False

    def infer(self, weight, indices):
        if indices._dtype not in _INDEX_DTYPES:
            name = _TENSOR_TYPE_NAMES.get(indices._dtype, str(indices._dtype))
            raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                               f"following scalar types: Long, Int; but got torch.{name} "
                               "instead (while checking arguments for embedding); convert the "
                               "indices with .long()")
        weight_shape = weight._data.shape
        if len(weight_shape) != 2:
            raise shapes.ShapeError(self.op_name, f"'weight' must be 2-D (num_embeddings, "
                                                  f"embedding_dim), but got a weight of shape "
                                                  f"{shapes.fmt(weight_shape)}")
        self.rows = weight_shape[0]
        return tuple(indices._data.shape) + (weight_shape[1],), weight._dtype

    def forward(self, backend, weight, indices):
        # One flat index (a 0-d index would make NumPy return a view of the weight's row,
        # not a new array)
        flat = backend.reshape(indices, (indices.size,))
        if flat.size:
            self._check_range(backend, flat)
        if self.recording:
            self.flat = flat
        rows = backend.getitem(weight, flat)
        return backend.reshape(rows, tuple(indices.shape) + (weight.shape[1],))

    def _check_range(self, backend, flat) -> None:
        """Raise IndexError for an index outside the table (NumPy would wrap a negative one,
        CuPy any), from its bounds (``gather.index_bounds``, which synchronises on cuda)."""
        low, high = index_bounds(backend, flat)
        if 0 <= low and high < self.rows:
            return
        raise IndexError(f"index out of range in self: embedding indices must be in [0, "
                         f"{self.rows - 1}] for a weight of {self.rows} rows (num_embeddings), "
                         f"but they range from {low} to {high}")

    def backward(self, backend, gy):
        (rows, columns), dtype = self.input_specs[0]
        flat = self.flat
        gy = backend.reshape(gy, (flat.size, columns))
        if self.scale_grad_by_freq:
            gy = backend.binary("div", gy, self._frequencies(backend, rows, dtype))
        gw = backend.index_add((rows, columns), flat, gy, dtype)
        if self.padding_idx is not None:
            backend.setitem(gw, self.padding_idx, 0)
        return gw, None

    def backward_graph(self, grad):
        (rows, columns), dtype = self.input_specs[0]
        backend, flat = self.backend, self.flat
        g = grad.reshape(flat.size, columns)
        if self.scale_grad_by_freq:
            g = g / self.constant(self._frequencies(backend, rows, dtype))
        if self.padding_idx is not None:  # the padding row's picks give nothing
            padding = backend.binary("eq", flat, flat.dtype.type(self.padding_idx))
            g = zeroed(self, g, backend.reshape(padding, (flat.size, 1)))
        return placed(self, g, flat, (rows, columns), dtype), None

    def _frequencies(self, backend, rows: int, dtype):
        """How often each pick's index appears among the indices, as a column
        ``(picks, 1)`` of ``dtype``."""
        flat = self.flat
        counts = backend.index_add((rows,), flat, backend.full((flat.size,), 1, dtype), dtype)
        return backend.reshape(backend.getitem(counts, flat), (flat.size, 1))


def check_supported(sparse: bool) -> None:
    """Refuse what minitorch_meta's embedding lacks (sparse gradients), saying what to do
    instead."""
    if sparse:
        raise NotImplementedError("embedding: sparse=True is not supported: minitorch_meta has "
                                  "no sparse tensors, so the weight's gradient is dense; use "
                                  "sparse=False")


def padding_row(padding_idx: int | None, rows: int) -> int | None:
    """``padding_idx`` as a row in ``[0, rows)`` (negative counts from the end), or None.

    Raises:
        AssertionError: it is outside ``[-rows, rows)``, PyTorch's error (raised explicitly,
            so it survives ``python -O``).
    """
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError(f"Padding_idx must be within num_embeddings: padding_idx="
                             f"{padding_idx}, but there are {rows} embeddings, so it must be "
                             f"in [{-rows}, {rows - 1}]")
    return padding_idx % rows
