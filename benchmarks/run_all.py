"""Print every benchmark table of docs/benchmarks.md: ours vs PyTorch (and raw NumPy).

Each comparison runs its cases interleaved in one process (alternating order, a pause
before each timed call so NumPy's BLAS threads settle) and reports medians and the ratio
ours / PyTorch. Usage:

    .venv/bin/python benchmarks/run_all.py [--quick]
"""

from __future__ import annotations

import argparse
import sys

from minitorch_meta.tools import bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few rounds (a smoke run)")
    parser.add_argument("--training-only", action="store_true",
                        help="only the training/inference table")
    parser.add_argument("--no-torch", action="store_true",
                        help="ours alone (PyTorch's frees change glibc's allocator thresholds)")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 1
    print(f"# {bench.environment()}\n")
    if not args.training_only:
        frameworks = ("minitorch_meta", "numpy") + (() if args.no_torch else ("torch",))
        rows = bench.batch_vs_loop(repeat=3 if args.quick else 7, frameworks=frameworks)
        print(bench.format_batch_vs_loop(rows), end="\n\n")
    table = bench.training_table(repeat=5 * rounds if args.quick else 21,
                                 torch_too=not args.no_torch)
    print(bench.format_comparison("training step and inference (CPU, float32)", table),
          end="\n\n")
    if args.training_only:
        return 0
    print(bench.format_comparison("meta device", bench.meta_table(repeat=50 if args.quick
                                                                  else 300), "us"), end="\n\n")
    print(bench.format_comparison("tiny (2, 2) ops, per call",
                                  bench.dispatch_table(repeat=5 if args.quick else 31), "us"),
          end="\n\n")
    print(bench.format_comparison("import (fresh interpreter)",
                                  bench.import_table(repeat=3 if args.quick else 9)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
