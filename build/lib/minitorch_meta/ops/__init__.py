"""Ops: each a ``Function`` with its shape rule, forward and backward side by side."""
