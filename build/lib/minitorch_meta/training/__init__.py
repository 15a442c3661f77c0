"""Training from scripts and the command line: the epoch loop, checkpoints and resume,
progress bars, metrics files and plots."""

from .trainer import EpochMetrics, Trainer, TrainingState

__all__ = ["EpochMetrics", "Trainer", "TrainingState"]
