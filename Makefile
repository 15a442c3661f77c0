# The two commands of the README:
#   make train   set up, then train the lecture's net on Fashion-MNIST on the CPU
#   make test    set up, then lint and run the whole test suite, and the CUDA cases once
#                more on a NumPy stand-in for CuPy (so they run without a GPU too)
# Both create .venv, install the Python packages, and install Debian's Fashion-MNIST
# package when it is missing, so they work on a fresh Debian machine.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
FASHION_MNIST := /usr/share/datasets/fashion-mnist
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-train data mpi test test-cuda-stand-in lint train bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Training needs only numpy, tqdm and matplotlib; the tests also need the references
# (PyTorch CPU), CuPy (for the CUDA checks), mpi4py and the notebook runner.
$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[train]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

setup-train: $(VENV)/.installed-train

setup: $(VENV)/.installed-test

data:
	@if [ ! -f $(FASHION_MNIST)/train-images-idx3-ubyte.gz ]; then \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq dataset-fashion-mnist; \
	fi

lint: setup
	$(BIN)/ruff check minitorch_meta tests benchmarks

# The distributed tests run 2 processes with Open MPI's mpirun; mpi4py (the test extra)
# builds against libopenmpi-dev. Only `make test` needs them. Installed before `setup`.
mpi:
	@if ! command -v mpirun >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq openmpi-bin libopenmpi-dev; \
	fi

# The CUDA cases (marker "cuda") once more, on a NumPy stand-in for CuPy: these machines have
# no GPU, and this runs the CUDA backend's code under CuPy's API rules (docs/cuda.md).
test-cuda-stand-in: setup
	MINITORCH_META_CUDA_STAND_IN=1 $(BIN)/python -m pytest -q -m cuda

test: mpi setup data lint
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory test-cuda-stand-in

train: setup-train data
	$(BIN)/python -m minitorch_meta train --model lecture --dataset fashion-mnist --device cpu \
		--epochs 3 --batch-size 64 --optimizer sgd --lr 0.05 --loss cross-entropy \
		--checkpoint runs/lecture.ckpt --plot runs/lecture.png --metrics runs/lecture.json

bench: setup
	$(BIN)/python -m pytest benchmarks -q --benchmark-columns=median,iqr,rounds

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .benchmarks runs
