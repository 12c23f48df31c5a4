# Everything a fresh machine needs: `make run` opens the app, `make test` runs ruff, mypy and the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@echo "Installing Foldchat and the local model server (building llama-cpp-python takes a few minutes the first time)..."
	$(BIN)/pip install --quiet -e '.[local,dev]'
	touch $(STAMP)

run: $(STAMP)
	@# byte-compiled ahead: with PYTHONDONTWRITEBYTECODE set (common in containers) every start compiled our sources
	@$(BIN)/python -m compileall -q engine tui foldchat
	$(BIN)/foldchat

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python bench/fold_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
