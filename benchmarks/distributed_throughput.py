"""Samples per second of data-parallel training on 1 and on 2 processes (MPI, cpu).

Trains the lecture's MNIST net (SGD, cross-entropy) on random 1x28x28 inputs with the same
global batch on 1 process (plain python) and on N processes (``mpirun -n N``), and prints
the global throughput of each (samples of all ranks per second of wall time). It reports,
it asserts nothing. On one machine the processes share its cores: set the BLAS threads per
process (``--threads``, default 1) so that the runs compare like with like.

usage: python benchmarks/distributed_throughput.py [--processes 2] [--steps 20]
       [--batch-size 64] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

TIMEOUT = 600


def worker(args) -> None:
    """One rank: warm up, then time ``args.steps`` training steps between two barriers."""
    import minitorch_meta as mt
    import minitorch_meta.distributed as dist
    from minitorch_meta import optim
    from minitorch_meta.distributed.loaders import per_rank_batch_size
    from minitorch_meta.models import LectureNet
    from minitorch_meta.nn import functional as F

    dist.init()
    world = dist.get_world_size()
    batch = per_rank_batch_size(args.batch_size, world)
    mt.manual_seed(dist.get_rank())
    model = dist.DistributedDataParallel(LectureNet())
    optimizer = dist.DistributedOptimizer(optim.SGD(model.parameters(), lr=0.01), model)
    x, y = mt.randn(batch, 1, 28, 28), mt.tensor([i % 10 for i in range(batch)])

    def step():
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()

    for _ in range(3):
        step()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    dist.barrier()
    seconds = time.perf_counter() - start
    if dist.get_rank() == 0:
        print(json.dumps({"processes": world, "seconds": seconds,
                          "samples_per_second": args.steps * args.batch_size / seconds}))


def run(command: list[str], threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64, help="the global batch")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads per process")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    own = [os.path.abspath(__file__), "--worker", "--steps", str(args.steps),
           "--batch-size", str(args.batch_size)]
    results = [run([sys.executable, *own], args.threads)]
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpirun not found: only 1 process measured (see docs/distributed.md)")
    else:
        results.append(run([mpirun, "-n", str(args.processes), "--oversubscribe",
                            sys.executable, *own], args.threads))
    print(f"lecture net, global batch {args.batch_size}, {args.steps} timed steps, "
          f"{args.threads} BLAS thread(s) per process, {os.cpu_count()} cores")
    print(f"{'processes':>9}  {'samples/s':>10}  {'speed-up':>8}")
    for result in results:
        speedup = result["samples_per_second"] / results[0]["samples_per_second"]
        print(f"{result['processes']:>9}  {result['samples_per_second']:>10,.0f}  "
              f"{speedup:>7.2f}x")


if __name__ == "__main__":
    main()
