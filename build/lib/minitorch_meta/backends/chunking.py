"""Cache-sized chunks of a batch, shared by the convolution and pooling kernels."""

from __future__ import annotations


def samples_per_chunk(bytes_per_sample: int, chunk_bytes: int) -> int:
    """How many samples of ``bytes_per_sample`` fit in one ``chunk_bytes`` chunk (at least
    one, so a sample larger than a chunk still makes progress)."""
    return max(1, chunk_bytes // (bytes_per_sample or 1))
