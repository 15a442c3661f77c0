"""``LAYOUT_OPS``: the ops that move, copy or view elements without reading their values.

PyTorch's CPU keeps them for every dtype, also for the restricted ones that have almost no
kernels (uint16/32/64 in ``unsigned_shell.py``, the float8 dtypes in ``float8_shell.py``),
so both lists of supported ops start from this one. Named ``module.Class``, as those lists.
"""

from __future__ import annotations

LAYOUT_OPS = frozenset({
    "layout.Clone", "layout.View", "layout.Flatten", "layout.Permute",
    "layout.T", "layout.Squeeze", "layout.Unsqueeze", "layout.Expand",
    "layout.Cat", "layout.GetItem", "views.Narrow", "views.Select",
    "views.Movedim", "layout.Reshape", "diagonal.Diag",
    "diagonal_view.DiagEmbed", "block_diag.BlockDiag",
    "diagonal_view.Diagonal", "reorder.Repeat", "reorder.Roll",
    "padding.ConstantPadNd",
})
