"""The tutorial "Reasoning about Shapes in PyTorch": a LeNet built on meta, shapes printed by
forward hooks, line for line the same as PyTorch's."""

from __future__ import annotations

import contextlib
import io

import minitorch_meta as mt


def _lenet_class(torch):
    nn, F = torch.nn, torch.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet


def _tutorial(torch) -> str:
    """The tutorial's code, run with ``torch`` being either library; returns what it prints."""
    with torch.device("meta"):
        net = _lenet_class(torch)()
        inp = torch.randn((1024, 3, 32, 32))

    def hook(module, input, output):
        print(f"Shape of output to {module} is {output.shape}.")

    for _, module in net.named_modules():
        module.register_forward_hook(hook)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        net(inp)
    return out.getvalue()


def test_tutorial_prints_the_expected_shapes():
    printed = _tutorial(mt).splitlines()
    # six layer calls (the pool twice) and the model itself, whose repr spans 8 lines
    assert sum(line.startswith("Shape of output to") for line in printed) == 8
    assert printed[0] == ("Shape of output to Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1)) "
                          "is torch.Size([1024, 6, 28, 28]).")
    assert printed[3].endswith("is torch.Size([1024, 16, 5, 5]).")
    assert printed[-1] == ") is torch.Size([1024, 10])."


def test_tutorial_output_equals_pytorch(torch_ref):
    assert _tutorial(mt) == _tutorial(torch_ref)


def test_meta_model_allocates_nothing_and_becomes_trainable():
    with mt.device("meta"):
        net = _lenet_class(mt)()
    assert all(p.is_meta for p in net.parameters())
    net.to_empty(device="cpu")
    for module in net.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    x = mt.randn(2, 3, 32, 32)
    loss = net(x).sum()
    loss.backward()
    assert all(p.grad is not None and p.device == mt.device("cpu") for p in net.parameters())
