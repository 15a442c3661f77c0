"""``python -m minitorch_meta summary MODEL --input 1,3,32,32``: the model table, on meta."""

from __future__ import annotations

import json
import sys

from ..errors import ShapeError
from .model_loader import ModelSpecError, build_model

FORMATS = ("table", "markdown", "csv", "json")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "summary", help="print a model's shapes, parameters, products and memory (on meta)",
        description="Run MODEL on the meta device and print every layer's input and output "
                    "shapes, parameters, products (multiplications) and memory. Nothing is "
                    "allocated, whatever the input size.")
    parser.add_argument("model", help="a built-in name (lecture, lenet, mlp), "
                                      "'path/to/file.py:Class' or 'package.module:Class', "
                                      "optionally with literal arguments: "
                                      "'m.py:Net(10, hidden=64)'")
    parser.add_argument("--input", action="append", required=True, metavar="SHAPE",
                        help="input shape as comma-separated ints, e.g. 1,3,32,32 "
                             "(repeat for several inputs)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--depth", type=int, default=3, help="nesting depth of rows shown")
    parser.add_argument("--optimizer", choices=("sgd", "sgd-momentum", "adam"),
                        default="sgd-momentum", help="optimizer for the training memory estimate")
    parser.set_defaults(func=run)


def parse_shape(text: str) -> tuple:
    parts = text.split(",") if "," in text else text.split("x")  # 1,3,32,32 or 1x3x32x32
    try:
        shape = tuple(int(part) for part in parts)
    except ValueError:
        raise ValueError(f"--input {text!r} is not a shape: expected comma-separated integers "
                         "such as 1,3,32,32") from None
    if not shape or min(shape) < 0:
        raise ValueError(f"--input {text!r} is not a shape: expected non-negative integers")
    return shape


def run(args) -> int:
    from ..models import BUILTIN_MODELS
    from ..tools.summary import summary

    try:
        shapes = [parse_shape(text) for text in args.input]
        model = build_model(args.model, BUILTIN_MODELS, device="meta") \
            if args.model in BUILTIN_MODELS else build_model(args.model)
        result = summary(model, input_size=shapes if len(shapes) > 1 else shapes[0],
                         depth=args.depth, optimizer=args.optimizer)
    except (ModelSpecError, ShapeError, ValueError) as error:
        kind = "shape error" if isinstance(error, ShapeError) else "error"
        print(f"minitorch_meta summary: {kind}: {error}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2))
    elif args.format == "markdown":
        print(result.to_markdown(), end="")
    elif args.format == "csv":
        print(result.to_csv(), end="")
    else:
        print(result)
    return 0
