"""Data-parallel training steps, run by test_equivalence.py on 1 process and on 2.

Each rank seeds its generator differently (so the ranks' initial weights differ unless
DistributedDataParallel broadcasts rank 0's, also for the lazy layer), takes its share of
every global batch from DistributedSampler, and checks after every step that its parameters
equal rank 0's exactly. Rank 0 writes the final weights and the per-step losses to OUT.npz.

usage: python train_steps.py OUT.npz [EPOCHS]
"""

import sys

import numpy as np

import minitorch_meta as mt
import minitorch_meta.distributed as dist
from minitorch_meta import nn, optim
from minitorch_meta.data import DataLoader, Subset, TensorDataset
from minitorch_meta.nn import functional as F

GLOBAL_BATCH, SAMPLES = 8, 48


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3)
        self.hidden = nn.LazyLinear(16)  # materialised by the first forward
        self.out = nn.Linear(16, 4)
        self.unused = nn.Linear(2, 2)  # never called: its gradients must stay None

    def forward(self, x):
        h = F.relu(self.conv(x)).flatten(1)
        return self.out(F.relu(self.hidden(h)))


def flat_parameters(model) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])


def main(out: str, epochs: int) -> None:
    dist.init()
    rank, world = dist.get_rank(), dist.get_world_size()
    mt.manual_seed(100 + rank)
    data = np.random.default_rng(0)
    x = mt.from_numpy(data.standard_normal((SAMPLES, 1, 8, 8)).astype(np.float32))
    y = mt.from_numpy(data.integers(0, 4, SAMPLES).astype(np.int64))
    dataset = TensorDataset(x, y)

    model = dist.DistributedDataParallel(Net())
    optimizer = dist.DistributedOptimizer(
        optim.SGD(model.parameters(), lr=0.05, momentum=0.9), model)
    losses, worst_mismatch, steps = [], 0.0, 0
    for epoch in range(epochs):
        sampler = dist.DistributedSampler(
            dataset, generator=mt.Generator().manual_seed(1000 + epoch))
        loader = DataLoader(Subset(dataset, sampler.indices()), batch_size=GLOBAL_BATCH // world)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            steps += 1
            mine = flat_parameters(model)
            reference = mt.from_numpy(mine.copy())
            dist.broadcast(reference, src=0)
            worst_mismatch = max(worst_mismatch, float(np.abs(reference.numpy() - mine).max()))
            global_loss, = dist.all_reduce_values([loss.item()], dist.ReduceOp.AVG)
            losses.append(global_loss)
    if model.module.unused.weight.grad is not None:
        raise RuntimeError("a parameter no rank used received a gradient")
    mismatches = dist.all_reduce_values([worst_mismatch], dist.ReduceOp.MAX)
    if rank == 0:
        np.savez(out, params=flat_parameters(model), losses=np.array(losses),
                 mismatch=np.array(mismatches[0]), steps=np.array(steps),
                 world=np.array(world))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2)
