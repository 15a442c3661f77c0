"""The model spec parser of the command line: built-ins, files, modules, arguments, errors."""

from __future__ import annotations

import textwrap

import pytest

from minitorch_meta.cli.model_loader import ModelSpecError, build_model


class _Builtin:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "my_models.py"
    path.write_text(textwrap.dedent("""
        class Net:
            def __init__(self, width=3, *, name="net"):
                self.width, self.name = width, name

        class Broken:
            def __init__(self):
                raise RuntimeError("cannot build")
    """))
    return path


def test_builtin_name_gets_factory_kwargs():
    model = build_model("tiny", {"tiny": _Builtin}, device="meta")
    assert model.kwargs == {"device": "meta"}


def test_file_and_class_with_literal_arguments(model_file):
    model = build_model(f"{model_file}:Net(7, name='wide')")
    assert (model.width, model.name) == (7, "wide")


def test_package_module_and_class():
    model = build_model("collections:OrderedDict")
    assert type(model).__name__ == "OrderedDict"


@pytest.mark.parametrize("spec, message", [
    ("nonsense", "unknown model 'nonsense'"),
    ("missing_file.py:Net", "does not exist"),
    ("no.such.module:Net", "cannot import module 'no.such.module'"),
    ("collections:Nope", "has no class 'Nope'"),
])
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ModelSpecError, match=message):
        build_model(spec, {"lecture": _Builtin})


def test_class_that_cannot_be_built(model_file):
    with pytest.raises(ModelSpecError, match="could not build the model .*cannot build"):
        build_model(f"{model_file}:Broken")


def test_non_literal_arguments_are_refused(model_file):
    with pytest.raises(ModelSpecError, match="must be Python literals"):
        build_model(f"{model_file}:Net(__import__('os'))")
