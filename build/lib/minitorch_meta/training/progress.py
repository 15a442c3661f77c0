"""Progress display: a tqdm bar per epoch (running loss, samples/s), then a summary line.

tqdm is an optional dependency (the ``train`` extra): it handles terminal widths, rates
and non-interactive output better than a hand-written bar would. Without it, or with
``enabled=False``, only the per-epoch lines are printed.
"""

from __future__ import annotations

import sys


class Progress:
    """Prints to ``stream``; ``enabled`` turns the per-batch bar on or off."""

    def __init__(self, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled

    def bar(self, total: int, epoch: int):
        if not self.enabled:
            return None
        try:
            from tqdm import tqdm
        except ImportError:
            return None
        return _TqdmBar(tqdm(total=total, desc=f"epoch {epoch + 1}", unit="batch",
                             file=self.stream, leave=False, dynamic_ncols=True,
                             disable=None))  # None: no bar when the stream is not a terminal

    def epoch_done(self, metrics, epochs: int) -> None:
        line = (f"epoch {metrics.epoch}/{epochs}: train loss {metrics.train_loss:.4f}, "
                f"train accuracy {100 * metrics.train_accuracy:.2f}%")
        if metrics.test_accuracy is not None:
            line += (f", test loss {metrics.test_loss:.4f}, "
                     f"test accuracy {100 * metrics.test_accuracy:.2f}%")
        line += f" ({metrics.seconds:.1f} s, {metrics.samples_per_second:,.0f} samples/s)"
        print(line, file=sys.stdout, flush=True)


class _TqdmBar:
    def __init__(self, bar):
        self._bar = bar

    def update(self, running_loss: float, samples_per_second: float) -> None:
        self._bar.set_postfix(loss=f"{running_loss:.4f}", rate=f"{samples_per_second:,.0f}/s",
                              refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()
