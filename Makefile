# Ordo: the commands the README names. Every target sets up what it needs itself.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PROTOS := $(wildcard proto/ordo/v1/*.proto)
GEN_DIR := clients/python
PYTEST_ARGS ?=

.PHONY: help run test proto proto-check proto-baseline lint typecheck pytest bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ./clients/python -e '.[dev]'
	touch $@

run: $(STAMP)  ## set up and start the server on its defaults (gRPC :50051, metrics :9464)
	exec $(PY) -m service

test: $(STAMP) proto-check lint typecheck pytest  ## set up, check generated code, lint, type-check, run every test

proto: $(STAMP)  ## regenerate the Python code from proto/
	$(PY) clients/python/gen_protos.py $(GEN_DIR)

proto-check: $(STAMP)  ## fail when the generated code is stale
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PY) clients/python/gen_protos.py "$$tmp" && \
	diff -r -x __pycache__ "$$tmp/ordo/v1" "$(GEN_DIR)/ordo/v1" \
	  || { echo "generated code is stale: run 'make proto'"; exit 1; }

proto-baseline: $(STAMP)  ## record the contract as released: later changes must not break it
	$(BIN)/buf build --exclude-source-info -o proto/baseline.binpb

lint: $(STAMP)  ## ruff (lint + format), buf lint, and buf breaking against the released contract
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/buf lint
	$(BIN)/buf breaking --against proto/baseline.binpb

typecheck: $(STAMP)  ## mypy --strict on engines, service and the client
	$(BIN)/mypy engines service clients/python/ordo

pytest: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

bench: $(STAMP)  ## engine and RPC benchmarks (printed ratios, never asserted)
	$(PY) -m bench

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
