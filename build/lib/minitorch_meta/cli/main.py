"""Entry point of ``python -m minitorch_meta`` and the ``minitorch-meta`` console command.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds its
parser and sets ``func(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = ("train", "summary", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minitorch_meta",
        description="Train, inspect (on the meta device) and benchmark minitorch_meta models.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"minitorch_meta.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
