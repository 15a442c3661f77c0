"""``WorkerError``: an exception raised in a ``DataLoader`` worker, carried to the main
process (as text: tracebacks do not pickle) and raised there again, as PyTorch's
``ExceptionWrapper``: the same exception type, with the message "Caught ValueError in
DataLoader worker process 1." followed by the worker's original traceback.
"""

from __future__ import annotations

import sys
import traceback


class KeyErrorMessage(str):
    """A KeyError's message: KeyError prints ``repr`` of its argument, which would show
    the traceback's line breaks as ``\\n``; this string's repr is itself."""

    def __repr__(self) -> str:
        return self


class WorkerError:
    """The type and formatted traceback of the exception being handled in a worker."""

    def __init__(self, worker_id: int) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type = exc_type
        self.where = f"in DataLoader worker process {worker_id}"
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))

    def reraise(self):
        """Raise the worker's exception type with the worker's traceback in its message
        (a RuntimeError when that type cannot be built from one message)."""
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        if self.exc_type is KeyError:
            message = KeyErrorMessage(message)
        try:
            error = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise error
