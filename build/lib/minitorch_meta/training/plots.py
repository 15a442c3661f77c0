"""Loss and accuracy curves of a run, as a PNG written atomically.

matplotlib (the ``train`` extra) is imported only here, with the non-interactive Agg
backend, so training on a machine without a display works.
"""

from __future__ import annotations

import io

from ..utils.atomic import atomic_write


def plot_history(history: list[dict], path: str, title: str = "") -> None:
    """Two panels: train/test loss and train/test accuracy per epoch."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("plotting needs matplotlib: pip install 'minitorch_meta[train]'") \
            from None
    epochs = [h["epoch"] for h in history]
    figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(10, 4))
    loss_axes.plot(epochs, [h["train_loss"] for h in history], "o-", label="train")
    accuracy_axes.plot(epochs, [100 * h["train_accuracy"] for h in history], "o-", label="train")
    if history and history[0].get("test_loss") is not None:
        loss_axes.plot(epochs, [h["test_loss"] for h in history], "s-", label="test")
        accuracy_axes.plot(epochs, [100 * h["test_accuracy"] for h in history], "s-",
                           label="test")
    loss_axes.set(xlabel="epoch", ylabel="loss", title="Loss")
    accuracy_axes.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    from matplotlib.ticker import MaxNLocator

    for axes in (loss_axes, accuracy_axes):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # epochs are whole numbers
        axes.grid(alpha=0.3)
        axes.legend()
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    with atomic_write(path) as file:
        file.write(buffer.getvalue())
