"""``python -m minitorch_meta summary``: formats, exit codes and messages."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from minitorch_meta.cli.main import main


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "nets.py"
    path.write_text(textwrap.dedent("""
        from minitorch_meta import nn

        class Small(nn.Module):
            def __init__(self, hidden=8):
                super().__init__()
                self.body = nn.Sequential(nn.Flatten(), nn.Linear(12, hidden), nn.ReLU(),
                                          nn.Linear(hidden, 2))

            def forward(self, x):
                return self.body(x)
    """))
    return path


def test_table_for_a_file_model(model_file, capsys):
    assert main(["summary", f"{model_file}:Small(hidden=5)", "--input", "4,3,2,2"]) == 0
    out = capsys.readouterr().out
    assert "Linear(in_features=12, out_features=5, bias=True)" in out
    assert "Total params" in out and f"{12 * 5 + 5 + 5 * 2 + 2:,}" in out


@pytest.mark.parametrize("fmt, check", [
    ("json", lambda out: json.loads(out)["totals"]["parameters"] == 105_506),
    ("csv", lambda out: out.splitlines()[0].startswith("name,layer,input_shapes")),
    ("markdown", lambda out: out.startswith("| Name | Layer |")),
])
def test_formats_for_a_builtin_model(fmt, check, capsys):
    assert main(["summary", "lecture", "--input", "1,1,28,28", "--format", fmt]) == 0
    assert check(capsys.readouterr().out)


@pytest.mark.parametrize("argv, message", [
    (["summary", "missing.py:Net", "--input", "1,3"], "does not exist"),
    (["summary", "lecture", "--input", "1,x,28"], "is not a shape"),
])
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_class_that_cannot_be_built_exits_2(model_file, capsys):
    assert main(["summary", f"{model_file}:Small(hidden='many')", "--input", "4,12"]) == 2
    assert "could not build the model" in capsys.readouterr().err


def test_shape_error_exits_2_and_points_at_the_layer(model_file, capsys):
    assert main(["summary", f"{model_file}:Small", "--input", "4,3,2,3"]) == 2
    err = capsys.readouterr().err
    assert "shape error" in err and "'body.1'" in err
    assert "in_features should be 18" in err


def test_runs_as_a_module_in_a_subprocess():
    done = subprocess.run([sys.executable, "-m", "minitorch_meta", "summary", "lenet",
                           "--input", "2,1,28,28", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"][-1]["output_shape"] == [2, 10]
