# lull — two entry points: `make run` (start lull) and `make test` (lint, types, tests).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: run test lint typecheck pytest bench fake smoke clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/lull $(ARGS)

test: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q $(ARGS)

bench: $(VENV)/.installed-dev
	$(BIN)/python -m tests.bench

# A short run against a real local server (llama.cpp, Ollama …); skipped when none is set:
#   LULL_SMOKE_BASE_URL=http://127.0.0.1:8080/v1 [LULL_SMOKE_MODEL=name] make smoke
smoke: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -m smoke -rs tests/smoke $(ARGS)

fake: $(VENV)/.installed-dev
	$(BIN)/python -m tests.fakes --port 8765 $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
