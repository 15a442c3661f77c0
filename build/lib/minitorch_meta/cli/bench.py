"""``python -m minitorch_meta bench ACTION``: the benchmarks of ``tools/bench.py`` as commands.

Actions:
    batch-vs-loop   the EE-559 lecture's x.mm(w.t()) against a loop of w.mv(x[k]),
                    on every device present, with raw NumPy and PyTorch alongside.
"""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    """Add the ``bench`` command and its actions to the top-level parser."""
    parser = subparsers.add_parser(
        "bench", help="benchmarks against raw NumPy and PyTorch (medians, interleaved)",
        description="Benchmarks against raw NumPy and PyTorch: medians of interleaved rounds.")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    loop = actions.add_parser(
        "batch-vs-loop", help="x.mm(w.t()) against a Python loop of w.mv(x[k]) (EE-559)",
        description="Time the batch product y = x.mm(w.t()) against the loop "
                    "v[k] = w.mv(x[k]) for x (N, M) and w (K, M).")
    loop.add_argument("--device", action="append", default=None,
                      help="device to run on (repeatable; default: every device present)")
    loop.add_argument("--sizes", type=_sizes, default=(2500, 1000, 1500), metavar="N,M,K",
                      help="x is (N, M) and w is (K, M) (default: 2500,1000,1500)")
    loop.add_argument("--repeat", type=_positive, default=5, metavar="R",
                      help="timed rounds per case; the median is reported (default: 5)")
    loop.add_argument("--pause", type=float, default=0.3, metavar="SECONDS",
                      help="sleep before each timed call so BLAS threads settle (default: 0.3)")
    loop.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    loop.set_defaults(func=run_batch_vs_loop)


def run_batch_vs_loop(args: argparse.Namespace) -> int:
    """Measure and print; exit status 0, or 2 when a requested device cannot be used."""
    import sys

    from ..errors import DeviceError
    from ..tools import bench

    frameworks = ("minitorch_meta", "numpy") + (() if args.no_torch else ("torch",))
    try:
        rows = bench.batch_vs_loop(devices=args.device, sizes=args.sizes, repeat=args.repeat,
                                   pause=args.pause, frameworks=frameworks)
    except DeviceError as error:
        print(f"bench batch-vs-loop: {error}", file=sys.stderr)
        return 2
    print(bench.format_batch_vs_loop(rows))
    print(f"\n({bench.environment()}; sizes {args.sizes}, median of {args.repeat} rounds)")
    return 0


def _sizes(text: str) -> tuple[int, int, int]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if len(sizes) != 3 or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"expected three positive integers N,M,K, got {text!r}")
    return sizes


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value
