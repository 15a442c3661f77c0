"""``torch.backends.cudnn``: PyTorch's flags, so that scripts which set them run unchanged.

minitorch_meta does not use cuDNN: its CUDA convolutions are CuPy GEMMs over im2col, the
same code as on the CPU (``xp_conv.py``). So ``is_available()`` is False, as in a PyTorch
build without cuDNN, and the flags are plain attributes that change nothing. Every one of
our convolution algorithms is chosen by shape alone, so ``benchmark=True`` would have
nothing to tune, and the results do not depend on ``deterministic``.
"""

from __future__ import annotations

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: no cuDNN is used (see the module docstring)."""
    return False


def version() -> None:
    """None, as PyTorch's when cuDNN is not available."""
    return None
