# Everything a fresh machine needs: `make run` opens the app, `make test` runs ruff, mypy and the test suite.
# Installs come from the lock (constraints.txt); `make lock` refreshes it on purpose.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := constraints.txt

.PHONY: run test lint bench clean venv lock

# scripts/install.py repairs a half-made venv, installs from the lock and says what it is waiting for
$(STAMP): pyproject.toml $(LOCK)
	@rm -f $(STAMP)
	$(PYTHON) scripts/install.py --python $(PYTHON) --venv $(VENV) --lock $(LOCK)
	@touch $(STAMP)

venv:
	$(PYTHON) scripts/install.py --python $(PYTHON) --venv $(VENV) --venv-only

run: $(STAMP)
	@# byte-compiled ahead: with PYTHONDONTWRITEBYTECODE set (common in containers) every start compiled our sources
	@$(BIN)/python -m compileall -q engine tui foldchat
	$(BIN)/foldchat

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python scripts/typecheck.py
	@# two workers, a test file each at a time (its module fixtures, a wheel or a local server, are built once): on
	@# 2 cores one worker's waits (child processes, sockets, the local model) overlap the other's CPU. A plain
	@# `pytest` (one file, --snapshot-update) stays one process
	$(BIN)/pytest -q -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/python bench/fold_bench.py

# A new lock: the newest releases pyproject.toml allows, installed in a scratch venv and frozen.
# Run it, then `make test`, and commit constraints.txt if it is green.
lock:
	rm -rf .venv-lock
	$(PYTHON) scripts/install.py --python $(PYTHON) --venv .venv-lock --lock /nonexistent --extras '[local,dev]'
	@{ echo "# The lock: exact versions every install uses (make run, make test, CI). Refresh: make lock"; \
	   .venv-lock/bin/python -m pip freeze --exclude-editable; } > $(LOCK)
	rm -rf .venv-lock

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
