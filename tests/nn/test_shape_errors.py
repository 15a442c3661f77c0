"""Shape errors that point at the layer: path, repr, op, shapes and the one-number fix."""

from __future__ import annotations

import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.errors import ShapeError


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.flatten = nn.Flatten()
        self.classifier = nn.Sequential(nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 10))

    def forward(self, x):
        return self.classifier(self.flatten(self.features(x)))


def _error(model, x) -> ShapeError:
    with pytest.raises(ShapeError) as info:
        model(x)
    return info.value


@pytest.mark.parametrize("device_name", ["meta", "cpu"])
def test_wrong_in_features(device_name):
    error = _error(Classifier().to_empty(device=device_name),
                   mt.empty(1024, 3, 12, 12, device=device_name))
    message = str(error)
    assert error.op == "linear" and error.module_path == "classifier.0"
    assert message.startswith("linear: input has 256 features")
    assert "in module 'classifier.0': Linear(in_features=400, out_features=120, bias=True)" \
        in message
    assert "input shape to that module: (1024, 256)" in message
    assert "fix: in_features should be 256 (or the layer before should produce 400)" in message
    assert error.hint == "in_features should be 256 (or the layer before should produce 400)"


def test_wrong_channel_count():
    error = _error(Classifier().to_empty(device="meta"), mt.empty(8, 4, 32, 32, device="meta"))
    message = str(error)
    assert error.op == "conv2d" and error.module_path == "features.0"
    assert "conv2d: input has 4 channels but weight expects 3" in message
    assert "Conv2d(3, 16, kernel_size=(5, 5), stride=(1, 1))" in message
    assert "input shape to that module: (8, 4, 32, 32)" in message
    assert "in_channels should be 4 (or the layer before should produce 3 channels)" in message


def test_wrong_rank():
    net = nn.Sequential(nn.Flatten(), nn.Conv2d(1, 2, 3))
    error = _error(net, mt.ones(2, 1, 5, 5))
    assert error.op == "conv2d" and error.module_path == "1"
    assert "input shape to that module: (2, 25)" in str(error)
    assert "received a 2-D input" in str(error) and "flatten or view too early" in str(error)


def test_error_in_the_outermost_forward():
    class Direct(nn.Module):
        def forward(self, x):
            return nn.functional.linear(x, mt.ones(3, 4))

    error = _error(Direct(), mt.ones(2, 5))
    assert error.module_path == ""
    assert "in the outermost module called: Direct()" in str(error)
    assert error.hint is None and "fix:" not in str(error)


def test_path_is_relative_to_the_outermost_module_called():
    net = Classifier()
    error = _error(net.classifier, mt.ones(2, 256))
    assert error.module_path == "0"


def test_grandchild_called_directly_gets_its_full_path():
    class Skipper(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(4, 4))

        def forward(self, x):
            return self.block[0](x)

    assert _error(Skipper(), mt.ones(1, 3)).module_path == "block.0"


def test_errors_through_hooks_keep_the_class_and_op():
    net = nn.Sequential(nn.Linear(4, 2))
    net[0].register_forward_hook(lambda m, a, o: None)
    error = _error(net, mt.ones(1, 3))
    assert type(error) is ShapeError and isinstance(error, ValueError)
    assert error.op == "linear" and error.module_path == "0"
    assert error.detail.startswith("input has 3 features")
