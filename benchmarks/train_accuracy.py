"""Train the lecture's MNIST net in minitorch_meta and in PyTorch, side by side.

Both start from the same weights (copied through NumPy), see the same batches in the same
order, and use the same optimizer and hyper-parameters; the script prints each epoch's
test accuracy and wall time for both. PyTorch is optional: without it, only ours runs.

    .venv/bin/python benchmarks/train_accuracy.py --epochs 5
    .venv/bin/python benchmarks/train_accuracy.py --epochs 2 --dtype float64

In float32 the two frameworks sum in different orders, so their weights drift apart by
rounding and single epochs can differ by several tenths of a point; ``--dtype float64``
shrinks that drift by nine orders of magnitude and shows whether the arithmetic is the same.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import minitorch_meta as mt
from minitorch_meta.data import datasets
from minitorch_meta.data.transforms import Normalize, ToTensor, compute_mean_std
from minitorch_meta.models import LectureNet


def load(root: str, limit: int | None, dtype: str = "float32"):
    train = datasets.FashionMNIST(root, train=True)
    test = datasets.FashionMNIST(root, train=False)
    mean, std = compute_mean_std(train.data)

    normalize = Normalize(mean, std)

    def prepare(split):
        x = normalize(ToTensor()(split.data[:limit])).numpy().astype(dtype)
        return x, split.targets.numpy()[:limit]

    return prepare(train), prepare(test)


def batch_orders(n: int, batch_size: int, epochs: int, seed: int):
    rng = np.random.default_rng(seed)
    return [np.array_split(rng.permutation(n), range(batch_size, n, batch_size))
            for _ in range(epochs)]


def train_and_test(T, model, data, orders, lr, momentum):
    """Train ``model`` with framework ``T`` (minitorch_meta or torch) on the given batch
    orders; returns ``[(test accuracy, training seconds)]`` per epoch. The same code serves
    both frameworks: that is the point of the shared API."""
    (x_train, y_train), (x_test, y_test) = data
    optimizer = T.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    results = []
    for order in orders:
        start = time.perf_counter()
        for batch in order:
            optimizer.zero_grad()
            loss = T.nn.functional.cross_entropy(model(T.from_numpy(x_train[batch])),
                                                 T.from_numpy(y_train[batch]))
            loss.backward()
            optimizer.step()
        seconds = time.perf_counter() - start
        with T.no_grad():
            predicted = np.concatenate([model(T.from_numpy(x_test[i:i + 1000])).argmax(1).numpy()
                                        for i in range(0, len(x_test), 1000)])
        results.append((float((predicted == y_test).mean()), seconds))
    return results


def torch_lecture_net(torch, state):
    """The lecture's net in PyTorch, loaded with ``state`` (our initial weights)."""
    nn, tF = torch.nn, torch.nn.functional

    class TorchLectureNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 32, 5), nn.Conv2d(32, 64, 5)
            self.fc1, self.fc2 = nn.Linear(256, 200), nn.Linear(200, 10)

        def forward(self, x):
            x = tF.relu(tF.max_pool2d(self.conv1(x), 3, 3))
            x = tF.relu(tF.max_pool2d(self.conv2(x), 2, 2))
            return self.fc2(tF.relu(self.fc1(x.view(-1, 256))))

    model = TorchLectureNet().to(torch.from_numpy(state["conv1.weight"]).dtype)
    model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()})
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--root", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                        help="float64 shows whether both compute the same (see above)")
    args = parser.parse_args()

    data = load(args.root, args.limit, args.dtype)
    orders = batch_orders(len(data[0][1]), args.batch_size, args.epochs, args.seed)
    mt.manual_seed(args.seed)
    model = LectureNet()
    if args.dtype == "float64":
        model = model.double()
    state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    ours = train_and_test(mt, model, data, orders, args.lr, args.momentum)
    try:
        import torch
    except ImportError:
        theirs = None
    else:
        torch.set_num_threads(2)
        theirs = train_and_test(torch, torch_lecture_net(torch, state), data, orders, args.lr,
                                args.momentum)
    print(f"LectureNet on Fashion-MNIST, batch {args.batch_size}, SGD lr {args.lr} momentum "
          f"{args.momentum}, {len(data[0][1])} training samples, {args.dtype}")
    print("| epoch | ours: test acc. | ours: s | PyTorch: test acc. | PyTorch: s |")
    print("|---|---|---|---|---|")
    for epoch, (acc, seconds) in enumerate(ours, 1):
        other = theirs[epoch - 1] if theirs else (float("nan"), float("nan"))
        print(f"| {epoch} | {100 * acc:.2f}% | {seconds:.1f} | {100 * other[0]:.2f}% | "
              f"{other[1]:.1f} |")


if __name__ == "__main__":
    main()
