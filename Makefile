# The two commands: `make run` serves a local pbem, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	PBEM_DEBUG=1 PBEM_SENDER_INTERVAL=2 $(BIN)/pbem serve

test: $(STAMP)
	$(BIN)/ruff check pbem tests bench
	$(BIN)/mypy pbem
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check pbem tests bench

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) instance .pytest_cache .hypothesis
