"""Built-in models: the EE-559 lecture's MNIST net, the PyTorch tutorial's LeNet, an MLP.

Each is an ordinary ``nn.Module``; ``BUILTIN_MODELS`` maps the command line's names to them.
"""

from __future__ import annotations

from . import nn
from .nn import functional as F


class LectureNet(nn.Module):
    """The EE-559 lecture's MNIST convnet (1×28×28 inputs, 10 classes).

    conv(1→32, 5) → max_pool(3) → relu → conv(32→64, 5) → max_pool(2) → relu →
    view(-1, 256) → linear(256→200) → relu → linear(200→10).

    Shape:
        ``(N, 1, 28, 28) -> (N, 10)``.
    """

    def __init__(self, num_classes: int = 10, hidden: int = 200, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.conv1 = nn.Conv2d(1, 32, kernel_size=5, **factory)
        self.conv2 = nn.Conv2d(32, 64, kernel_size=5, **factory)
        self.fc1 = nn.Linear(256, hidden, **factory)
        self.fc2 = nn.Linear(hidden, num_classes, **factory)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), kernel_size=3, stride=3))
        x = F.relu(F.max_pool2d(self.conv2(x), kernel_size=2, stride=2))
        x = F.relu(self.fc1(x.view(-1, 256)))
        return self.fc2(x)


class LeNet(nn.Module):
    """The PyTorch tutorial "Reasoning about Shapes"'s LeNet (3×32×32 inputs).

    Shape:
        ``(N, in_channels, 32, 32) -> (N, num_classes)``; with ``in_channels=1`` and
        ``padding=2`` on the first convolution it takes 28×28 digits.
    """

    def __init__(self, in_channels: int = 3, num_classes: int = 10, first_padding: int = 0,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.conv1 = nn.Conv2d(in_channels, 6, 5, padding=first_padding, **factory)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5, **factory)
        self.fc1 = nn.Linear(16 * 5 * 5, 120, **factory)
        self.fc2 = nn.Linear(120, 84, **factory)
        self.fc3 = nn.Linear(84, num_classes, **factory)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class MLP(nn.Module):
    """A two-hidden-layer perceptron on flattened images.

    Shape:
        ``(N, *image_shape) -> (N, num_classes)`` with ``prod(image_shape) == in_features``.
    """

    def __init__(self, in_features: int = 784, hidden: int = 256, num_classes: int = 10,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.layers = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features, hidden, **factory), nn.ReLU(),
            nn.Linear(hidden, hidden, **factory), nn.ReLU(),
            nn.Linear(hidden, num_classes, **factory))

    def forward(self, x):
        return self.layers(x)


def mnist_lenet(device=None, dtype=None) -> LeNet:
    """LeNet adapted to 1×28×28 digits (one input channel, padding 2 on the first conv)."""
    return LeNet(in_channels=1, first_padding=2, device=device, dtype=dtype)


BUILTIN_MODELS = {"lecture": LectureNet, "lenet": mnist_lenet, "mlp": MLP}
