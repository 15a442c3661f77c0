"""Transforms for grayscale image datasets: ``ToTensor``, ``Normalize``, ``Compose``,
``compute_mean_std`` and the lecture's ±1 one-hot targets (``SignedOneHot``).

Every transform here works on one sample and on a whole batch alike (images shaped
``(..., H, W)`` or ``(..., C, H, W)``, labels shaped ``(...)``), and says so with
``applies_to_batches = True``; datasets use that to transform whole batches at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Number

import numpy as np

from ..factories import from_numpy, tensor
from ..int_arguments import is_int
from ..tensor import Tensor


class Compose:
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms: Sequence[Callable]):
        self.transforms = list(transforms)

    @property
    def applies_to_batches(self) -> bool:
        return all(getattr(t, "applies_to_batches", False) for t in self.transforms)

    def __call__(self, x):
        for transform in self.transforms:
            x = transform(x)
        return x

    def __repr__(self) -> str:
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}({inner}\n)"


class ToTensor:
    """uint8 grayscale images ``(..., H, W)`` -> float32 ``(..., 1, H, W)`` scaled to [0, 1].

    Unlike torchvision's, it takes NumPy arrays or uint8 tensors (there are no PIL images
    here), and only single-channel images.

    Raises:
        TypeError: the images are not uint8.
        ValueError: the images have fewer than two dimensions.
    """

    applies_to_batches = True

    def __call__(self, images) -> Tensor:
        array = images.numpy() if isinstance(images, Tensor) else np.asarray(images)
        if array.dtype != np.uint8:
            raise TypeError(f"ToTensor expects uint8 images (values 0..255), got dtype "
                            f"{array.dtype}")
        if array.ndim < 2:
            raise ValueError(f"ToTensor expects images shaped (..., H, W), got shape "
                             f"{array.shape}")
        scaled = array[..., None, :, :].astype(np.float32) / np.float32(255)
        result = from_numpy(scaled)
        if isinstance(images, Tensor) and images.device.type != "cpu":
            return result.to(images.device)
        return result

    def __repr__(self) -> str:
        return "ToTensor()"


class Normalize:
    """``(x - mean) / std`` per channel, for float images ``(..., C, H, W)``.

    Raises:
        ValueError: a std is zero, or mean/std do not have one value per channel.
    """

    applies_to_batches = True

    def __init__(self, mean: float | Sequence[float], std: float | Sequence[float]):
        self.mean = _per_channel(mean, "mean")
        self.std = _per_channel(std, "std")
        if len(self.mean) != len(self.std):
            raise ValueError(f"Normalize: mean has {len(self.mean)} values but std has "
                             f"{len(self.std)}; give one of each per channel")
        if any(s == 0 for s in self.std):
            raise ValueError(f"Normalize: std evaluated to zero ({self.std}); division by zero")

    def __call__(self, images: Tensor) -> Tensor:
        if not isinstance(images, Tensor) or not images.is_floating_point() or images.dim() < 3:
            raise TypeError("Normalize expects a float tensor of images (..., C, H, W) (apply "
                            f"ToTensor first), got {_describe(images)}")
        channels = images.shape[-3]
        if len(self.mean) not in (1, channels):
            raise ValueError(f"Normalize: images have {channels} channel(s) but mean/std have "
                             f"{len(self.mean)} values")
        mean = tensor(self.mean, dtype=images.dtype, device=images.device).view(-1, 1, 1)
        std = tensor(self.std, dtype=images.dtype, device=images.device).view(-1, 1, 1)
        return (images - mean) / std

    def __repr__(self) -> str:
        return f"Normalize(mean={self.mean}, std={self.std})"


class SignedOneHot:
    """Class labels -> the EE-559 lecture's ±1 one-hot targets for ``MSELoss``.

    Label ``k`` becomes a float32 vector of ``num_classes`` values: ``scale`` at position
    ``k`` and ``-scale`` elsewhere (``scale=1`` gives exactly ±1; the lecture uses
    ``scale=0.9`` to stay inside the range of ``tanh``). Works on an int, a 0-d tensor or a
    batch of labels ``(N,)`` (giving ``(N, num_classes)``).

    Raises:
        ValueError: a label is outside ``[0, num_classes)``.
    """

    applies_to_batches = True

    def __init__(self, num_classes: int = 10, scale: float = 1.0):
        if not is_int(num_classes) or num_classes < 2:
            raise ValueError(f"SignedOneHot: num_classes must be an integer >= 2, got "
                             f"{num_classes!r}")
        self.num_classes = num_classes
        self.scale = float(scale)

    def __call__(self, labels) -> Tensor:
        return signed_one_hot(labels, self.num_classes, self.scale)

    def __repr__(self) -> str:
        return f"SignedOneHot(num_classes={self.num_classes}, scale={self.scale})"


def signed_one_hot(labels, num_classes: int, scale: float = 1.0) -> Tensor:
    """``scale`` on each label's class and ``-scale`` elsewhere (see ``SignedOneHot``).

    Raises:
        ValueError: a label is outside ``[0, num_classes)``.
    """
    device = labels.device if isinstance(labels, Tensor) else None
    array = np.asarray(labels.cpu() if isinstance(labels, Tensor) else labels)
    if array.dtype.kind not in "iu":
        raise TypeError(f"signed_one_hot expects integer class labels, got dtype {array.dtype}")
    if array.size and (array.min() < 0 or array.max() >= num_classes):
        raise ValueError(f"signed_one_hot: labels must lie in [0, {num_classes}), got values "
                         f"from {array.min()} to {array.max()}")
    targets = np.full(array.shape + (num_classes,), -scale, dtype=np.float32)
    np.put_along_axis(targets, array[..., None].astype(np.intp), np.float32(scale), axis=-1)
    result = from_numpy(targets)
    return result if device is None or device.type == "cpu" else result.to(device)


def compute_mean_std(images) -> tuple[float, float]:
    """Mean and standard deviation of all pixels, on the [0, 1] scale ``ToTensor`` gives.

    Compute them on the training split only and pass them to ``Normalize`` for every split.
    ``images`` is a uint8 array or tensor (e.g. ``dataset.data``) or a dataset with
    ``.data``. For uint8 the result is exact (from a histogram), so it costs no float copy
    of the data. The std is the population one (divides by the number of pixels).

    Raises:
        TypeError: the images are not uint8.
        ValueError: there are no pixels.
    """
    is_array = isinstance(images, (Tensor, np.ndarray, list, tuple))
    data = images if is_array else getattr(images, "data", images)
    array = np.asarray(data.cpu() if isinstance(data, Tensor) else data)
    if array.dtype != np.uint8:
        raise TypeError(f"compute_mean_std expects uint8 images (values 0..255), got dtype "
                        f"{array.dtype}")
    if array.size == 0:
        raise ValueError("compute_mean_std: there are no pixels (the dataset is empty)")
    counts = np.bincount(array.reshape(-1), minlength=256).astype(np.float64)
    levels = np.arange(256, dtype=np.float64) / 255.0
    mean = float(counts @ levels / array.size)
    variance = float(counts @ (levels - mean) ** 2 / array.size)
    return mean, variance ** 0.5


def _per_channel(value, name: str) -> tuple[float, ...]:
    values = (value,) if isinstance(value, Number) else tuple(value)
    if not values or not all(isinstance(v, Number) for v in values):
        raise TypeError(f"Normalize: {name} must be a number or a sequence of numbers, got "
                        f"{value!r}")
    return tuple(float(v) for v in values)


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)}"
    return type(value).__name__

