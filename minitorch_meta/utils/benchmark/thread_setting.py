"""``set_torch_threads``: run a block at a given thread count, then restore the previous one.

A ``Timer`` times its statement at its ``num_threads`` (1 by default, so that measurements
compare at the same count); the count is process-wide (``torch.set_num_threads``), so it
is put back afterwards, also when the statement raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ...threads import get_num_threads, set_num_threads


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Inside the block, CPU ops use ``n`` threads; after it, as many as before."""
    prior_num_threads = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior_num_threads)
