"""``isin``: whether each element occurs among the test elements.

The test elements are sorted once (the stable ``argsort`` kernel) and each element is
looked up with the ``searchsorted`` kernel: it occurs exactly when the test element at its
insertion point equals it. That is ``O((n + m) log m)`` for ``n`` elements and ``m`` test
elements, with no ``(n, m)`` table of comparisons. NaN equals nothing, so it is never
found, and ``-0.0`` finds ``0.0``, as in PyTorch. Both sides are compared in their
promoted dtype. The output is bool: no gradient.
"""

from __future__ import annotations

from .. import dtypes
from .function import Function

ISIN_BOOL = ("Unsupported input type encountered for isin(): Bool; convert both sides to an "
             "integer dtype, e.g. with .int()")


class Isin(Function):
    """True where an element of ``elements`` equals some element of ``test_elements``
    (False there with ``invert``). ``assume_unique`` only promises that each side holds
    distinct values; the answer does not depend on it.

    Shape:
        ``elements``' shape, bool.

    Raises:
        RuntimeError when either side is bool (PyTorch has no bool kernel).
    """

    op_name, backward_name, differentiable = "isin", "IsinBackward0", False
    invert, assume_unique = False, False

    def infer(self, elements, test_elements):
        for t in (elements, test_elements):
            if t._dtype is dtypes.bool_:
                raise RuntimeError(ISIN_BOOL)
        self.common = dtypes.promote_tensors(elements._dtype, elements._data.ndim == 0,
                                             test_elements._dtype, test_elements._data.ndim == 0)
        return tuple(elements._data.shape), dtypes.bool_

    def forward(self, backend, elements, test_elements):
        x = backend.astype(elements, self.common)
        test = backend.reshape(backend.astype(test_elements, self.common), (-1,))
        m = test.shape[0]
        if m == 0:
            return backend.full(x.shape, self.invert, dtypes.bool_)
        ordered = backend.getitem(test, backend.argsort(test, 0, False))
        # A value past every test element has the insertion point m: look at the last one.
        at = backend.binary("minimum", backend.searchsorted(ordered, x, False), m - 1)
        found = backend.binary("eq", backend.getitem(ordered, at), x)
        return backend.unary("logical_not", found) if self.invert else found
