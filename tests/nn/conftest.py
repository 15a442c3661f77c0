"""Fixtures for the nn tests: PyTorch as an optional reference implementation."""

from __future__ import annotations

import pytest


@pytest.fixture
def torch_ref():
    """PyTorch, where installed (the tests that compare against it skip elsewhere)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for this comparison "
                                                "and is not installed")
    torch.manual_seed(0)
    return torch
