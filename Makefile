# lull — two entry points: `make run` (start lull) and `make test` (lint, types, tests); `make
# check-slow` runs the heavy checks `make test` leaves out (CI runs both).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: run test check-slow lint typecheck pytest bench fake smoke clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The install is editable and strict: build/ holds a tree of links named as the installed package
# (app/ is lull, tools/ is lull.tools, settings/ is lull.settings) that Python, mypy and pytest
# follow. A module added or removed needs the tree laid out again: the stamp below is named by
# the list of files, so a new list lays it out anew.
EDITABLE := --config-settings editable_mode=strict
LAYOUT := $(VENV)/.layout-$(shell find app tools settings -type f \( -name '*.py' -o -name '*.json' \
	-o -name '*.tcss' -o -name py.typed \) 2>/dev/null | sort | cksum | cut -d' ' -f1)

$(VENV)/.installed-run: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e . $(EDITABLE)
	touch $@

$(VENV)/.installed-dev: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]' $(EDITABLE)
	touch $@ $(VENV)/.installed-run

$(VENV)/.layout-%: | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-deps -e . $(EDITABLE)
	rm -f $(VENV)/.layout-*
	touch $@

# Bytecode for the link tree, as pip writes it for a regular install (only what changed is
# compiled again): where PYTHONDONTWRITEBYTECODE is set, every `lull` a test starts would
# otherwise compile lull from source.
TREE = $(wildcard build/__editable__.*)
BYTECODE = $(if $(TREE),$(BIN)/python -m compileall -q $(TREE),true)

run: $(VENV)/.installed-run $(LAYOUT)
	$(BIN)/lull $(ARGS)

test: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BYTECODE)
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev $(LAYOUT)
	$(BYTECODE)
	$(BIN)/python -m pytest -q $(ARGS)

# What `make test` leaves out (marked heavy): the full benchmark replays, which check the
# benchmark's numbers rather than lull's behaviour, and the wheel build. CI runs both targets.
check-slow: $(VENV)/.installed-dev $(LAYOUT)
	$(BYTECODE)
	$(BIN)/python -m pytest -q -m heavy $(ARGS)

bench: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/python -m tests.bench

# A short run against a real local server (llama.cpp, Ollama …); skipped when none is set:
#   LULL_SMOKE_BASE_URL=http://127.0.0.1:8080/v1 [LULL_SMOKE_MODEL=name] make smoke
smoke: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/python -m pytest -q -m smoke -rs tests/smoke $(ARGS)

fake: $(VENV)/.installed-dev $(LAYOUT)
	$(BIN)/python -m tests.fakes --port 8765 $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
