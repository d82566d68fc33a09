# The two commands: `make run` serves a local pbem, `make test` runs every test; `make check`
# is the quick loop (lint, types, the tests not marked slow: tests/conftest.py says which).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check lint bench clean catalogues messages lock wheel

# Translation: the gettext keywords pybabel extract looks for (see babel.cfg and pbem/present/i18n.py).
KEYWORDS := -k N_ -k NN_:1,2 -k tr:2 -k ntr:2,3 -k ptr:2c,3

# Every version comes from requirements-dev.txt, hashes checked; pbem itself is installed
# editable, built with the locked setuptools (no build isolation fetching the newest).
$(STAMP): pyproject.toml setup.py requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# The lock files, made anew from pyproject.toml at the newest versions that fit it: dev.txt
# (server, test tools, build) and server.txt (what a server installs: the same versions).
PIP_COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links
lock: $(STAMP)
	$(PIP_COMPILE) --upgrade --extra test -o requirements-dev.txt pyproject.toml
	$(PIP_COMPILE) --upgrade -c requirements-dev.txt -o requirements.txt pyproject.toml

# dist/pbem-<version>-py3-none-any.whl and dist/requirements.txt, the server's lock to install it with.
wheel: $(STAMP)
	rm -rf build dist
	$(BIN)/pip wheel --quiet --no-deps --no-build-isolation -w dist .
	cp requirements.txt dist/requirements.txt

# Compile translations/*/LC_MESSAGES/messages.po to .mo (not committed).
catalogues: $(STAMP)
	$(BIN)/pybabel compile -d translations

# After changing strings: extract messages.pot, merge it into every .po, then translate.
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg $(KEYWORDS) --no-location --sort-output --width 100 \
		--project pbem --copyright-holder "pbem contributors" -o translations/messages.pot .
	$(BIN)/pybabel update -i translations/messages.pot -d translations --no-fuzzy-matching --ignore-obsolete --width 100

# `make run PORT=5001` serves on another port; the links in mail follow it.
PORT ?= 5000
run: $(STAMP) catalogues
	PBEM_DEBUG=1 PBEM_SENDER_INTERVAL=2 PBEM_BASE_URL=$${PBEM_BASE_URL:-http://127.0.0.1:$(PORT)} \
		$(BIN)/pbem serve --port $(PORT)

# pytest-xdist runs the tests on every core (tests/conftest.py gives each worker its own
# databases; `--dist loadgroup` keeps the files of ONE_WORKER whole): PYTEST_WORKERS=0 runs
# them in one process. PYTHONDONTWRITEBYTECODE is emptied for pytest alone: set, it makes
# every run rewrite the asserts of every test file again (10 s a worker instead of 4).
PYTEST_WORKERS ?= auto
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

test: $(STAMP) catalogues
	$(BIN)/ruff check pbem tests bench migrations setup.py
	$(BIN)/ruff format --check pbem tests bench migrations setup.py
	$(BIN)/mypy pbem
	$(PYTEST) $(PYTEST_ARGS)

check: $(STAMP) catalogues
	$(BIN)/ruff check pbem tests bench migrations setup.py
	$(BIN)/ruff format --check pbem tests bench migrations setup.py
	$(BIN)/mypy pbem
	$(PYTEST) -q -m "not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check pbem tests bench migrations setup.py
	$(BIN)/ruff format --check pbem tests bench migrations setup.py

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) instance .pytest_cache .hypothesis build dist
