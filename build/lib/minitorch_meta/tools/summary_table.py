"""``ModelSummary``: the rows and totals of ``summary``, as a table, dict, Markdown or CSV."""

from __future__ import annotations

import csv
import io

COLUMNS = ("name", "layer", "input_shapes", "output_shape", "parameters", "trainable",
           "products", "products_per_sample", "output_bytes")
HEADERS = ("Name", "Layer", "Input shape", "Output shape", "Params", "Trainable", "Products",
           "Products/sample", "Output memory")


def human_bytes(n: int) -> str:
    """``1536 -> '1.50 KiB'``."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{n} B"


class ModelSummary:
    """The result of ``summary``: one row per module call, and totals.

    ``rows`` are dicts with the keys of ``COLUMNS`` (plus ``depth`` and ``flops``);
    ``totals`` holds parameters, products, FLOPs (2 × products + bias additions) and the
    memory figures in bytes. ``str(summary)`` is an aligned table.
    """

    def __init__(self, rows, totals: dict, batch_size: int, depth: int, seconds: float):
        self.batch_size = batch_size
        self.depth = depth
        self.seconds = seconds
        self.totals = dict(totals)
        self.totals["products_per_sample"] = totals["products"] // max(batch_size, 1)
        self.rows = [self._row(frame) for frame in rows]

    def _row(self, frame) -> dict:
        return {
            "name": frame.name, "layer": frame.layer, "depth": frame.depth,
            "input_shapes": [list(s) for s in frame.input_shapes],
            "output_shape": list(frame.output_shape) if frame.output_shape is not None else None,
            "parameters": frame.parameters, "trainable": frame.trainable,
            "products": frame.products,
            "products_per_sample": frame.products // max(self.batch_size, 1),
            "flops": frame.flops, "output_bytes": frame.output_bytes,
        }

    def visible_rows(self) -> list[dict]:
        """The rows shown in the table: nesting up to ``depth`` (the root is depth 0)."""
        return [r for r in self.rows if r["depth"] <= self.depth]

    # -- machine-readable forms ----------------------------------------------------------
    def to_dict(self) -> dict:
        return {"batch_size": self.batch_size, "rows": [dict(r) for r in self.rows],
                "totals": dict(self.totals),
                "conventions": {"products": "multiplications of conv/matmul, bias excluded",
                                "flops": "2 * products + bias additions"}}

    def _cells(self, row: dict) -> list[str]:
        shapes = ", ".join(str(tuple(s)) for s in row["input_shapes"])
        output = str(tuple(row["output_shape"])) if row["output_shape"] is not None else "--"
        return ["  " * row["depth"] + (row["name"] or "(model)"), row["layer"], shapes or "--",
                output, f"{row['parameters']:,}", f"{row['trainable']:,}",
                f"{row['products']:,}", f"{row['products_per_sample']:,}",
                human_bytes(row["output_bytes"])]

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        for row in self.visible_rows():
            cells = [c.strip().replace("|", "\\|") for c in self._cells(row)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.extend(f"- {label}: {value}" for label, value in self._total_lines())
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(COLUMNS + ("depth", "flops"))
        for row in self.rows:
            values = [row[c] for c in COLUMNS] + [row["depth"], row["flops"]]
            values[2] = ";".join("x".join(map(str, s)) for s in row["input_shapes"])
            values[3] = "x".join(map(str, row["output_shape"])) if row["output_shape"] else ""
            writer.writerow(values)
        return buffer.getvalue()

    # -- the table a person reads --------------------------------------------------------
    def _total_lines(self) -> list[tuple[str, str]]:
        t = self.totals
        return [
            ("Total params", f"{t['parameters']:,}"),
            ("Trainable params", f"{t['trainable_parameters']:,}"),
            ("Non-trainable params", f"{t['parameters'] - t['trainable_parameters']:,}"),
            ("Products (multiplications, bias excluded)",
             f"{t['products']:,} ({t['products_per_sample']:,} per sample, batch "
             f"{self.batch_size})"),
            ("FLOPs (2 x products + bias additions)", f"{t['flops']:,}"),
            ("Parameter memory", human_bytes(t["parameter_bytes"])),
            ("Forward activation memory", human_bytes(t["activation_bytes"])),
            (f"Training step peak estimate ({t['optimizer']})",
             human_bytes(t["training_step_peak_bytes"])),
        ]

    def __str__(self) -> str:
        table = [list(HEADERS)] + [self._cells(r) for r in self.visible_rows()]
        widths = [max(len(row[i]) for row in table) for i in range(len(HEADERS))]
        numeric = {4, 5, 6, 7, 8}

        def line(cells):
            return "  ".join(c.rjust(w) if i in numeric else c.ljust(w)
                             for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

        rule = "=" * len(line(table[0]))
        out = [rule, line(table[0]), rule] + [line(r) for r in table[1:]] + [rule]
        label_width = max(len(label) for label, _ in self._total_lines())
        out += [f"{label.ljust(label_width)}  {value}" for label, value in self._total_lines()]
        out.append(rule)
        return "\n".join(out)

    __repr__ = __str__
