"""``torch.embedding_renorm_``: the in-place row clipping behind ``max_norm`` in
``F.embedding``, ``F.embedding_bag`` and their layers.

Each row of the weight that the indices name and whose ``norm_type``-norm exceeds
``max_norm`` is scaled by ``max_norm / (norm + 1e-7)`` (PyTorch's kernel and constant);
other rows are left as they are. The indices' rows are read, scaled and written back
through the indices, so the work is one gather and one scatter of ``len(indices)`` rows
(an index named twice writes the same row twice), and on meta it is shapes only, as every
op is.
"""

from __future__ import annotations

from . import linalg
from .autograd import no_grad
from .functions import where
from .tensor import Tensor
from .tensor_arguments import require_tensors

_INDEX_TYPES = {"torch.int64", "torch.int32"}
#: PyTorch's kernel adds this to the norm before dividing, so a clipped row's norm ends
#: just under ``max_norm``
_EPS = 1e-7


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float,
                      norm_type: float) -> Tensor:
    """Scale, in place and without a graph, each row of ``input`` named by ``indices``
    whose ``norm_type``-norm is over ``max_norm`` down to that norm; returns ``input``.

    Shape:
        input ``(num_embeddings, embedding_dim)``, indices any shape (int64 or int32) ->
        input.

    Raises:
        RuntimeError: indices that are not int64 or int32, an input that is not 2-D, or a
            leaf that requires grad outside ``no_grad`` (PyTorch's in-place rule).
        IndexError: an index outside ``[-num_embeddings, num_embeddings)``.
    """
    require_tensors("embedding_renorm_", ("input", input), ("indices", indices))
    if str(indices.dtype) not in _INDEX_TYPES:
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"{indices.type()} instead (while checking arguments for "
                           f"embedding_renorm_)")
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"embedding_renorm_)")
    rows = indices.reshape(-1)
    with no_grad():
        picked = input[rows]
        norms = linalg.vector_norm(picked, ord=norm_type, dim=1, keepdim=True)
        scale = where(norms > max_norm, max_norm / (norms + _EPS), 1.0)
        clipped = picked * scale
    # The write is outside no_grad so that a leaf requiring grad raises PyTorch's error;
    # the callers in nn.functional call this under no_grad, as PyTorch's do.
    input[rows] = clipped
    return input
