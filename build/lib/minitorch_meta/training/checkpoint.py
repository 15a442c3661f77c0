"""``CheckpointFile``: one path where a run's state is saved (atomically) and loaded."""

from __future__ import annotations

import os


class CheckpointFile:
    """Saves with ``minitorch_meta.save`` (no pickle, atomic) and loads it back."""

    def __init__(self, path: str):
        self.path = path

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def save(self, state: dict) -> None:
        from ..serialization import save

        save(state, self.path)

    def load(self, map_location=None) -> dict:
        from ..serialization import load

        if not self.exists():
            raise FileNotFoundError(f"checkpoint {self.path!r} does not exist: run without "
                                    "--resume first (it is written after every epoch)")
        return load(self.path, map_location=map_location)
