# The two commands: `make run` serves a local pbem, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean catalogues messages

# Translation: the gettext keywords pybabel extract looks for (see babel.cfg and pbem/present/i18n.py).
KEYWORDS := -k N_ -k NN_:1,2 -k tr:2 -k ntr:2,3 -k ptr:2c,3

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

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

test: $(STAMP) catalogues
	$(BIN)/ruff check pbem tests bench migrations
	$(BIN)/mypy pbem
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check pbem tests bench migrations

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) instance .pytest_cache .hypothesis
