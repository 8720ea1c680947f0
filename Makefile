# Two commands matter: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
ARGS ?=

.PHONY: run test test-python test-js test-browser lint format bench soak module schema demo clean chromium node-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

## Start the sidecar on the embedded SQLite store (first run installs into .venv).
run: $(STAMP_RUN)
	$(BIN)/vtt-sidecar serve $(ARGS)

## Every suite: lint, Python (unit, scenario, end-to-end), JavaScript, browser.
test: $(STAMP_DEV) node-deps chromium
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-js
	$(MAKE) --no-print-directory test-python

test-python: $(STAMP_DEV)
	$(BIN)/pytest -q -p no:cacheprovider

test-js: node-deps
	node --test vtt_module/test/
	npx --no-install eslint vtt_module

test-browser: $(STAMP_DEV) chromium
	$(BIN)/pytest -q -m browser

lint: $(STAMP_DEV)
	$(BIN)/ruff check sidecar tests bench
	$(BIN)/ruff format --check sidecar tests bench
	$(BIN)/mypy sidecar
	$(BIN)/vtt-sidecar schema --check
	$(BIN)/vtt-sidecar content check

format: $(STAMP_DEV)
	$(BIN)/ruff format sidecar tests bench
	$(BIN)/ruff check --fix sidecar tests bench

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

node-deps: node_modules/.installed

## Debian's chromium for the browser tests (installed with apt-get when missing and root).
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; \
	  else \
	    echo "chromium is missing: run 'sudo apt-get install chromium' (browser tests need it)"; exit 1; \
	  fi; \
	fi

bench: $(STAMP_DEV)
	$(BIN)/python bench/run_all.py

## 200 worlds x 10 events/s for 60 s against a server process: nothing lost, nothing doubled.
soak: $(STAMP_DEV)
	$(BIN)/python bench/soak.py $(ARGS)

module: $(STAMP_RUN)
	$(BIN)/python -c "from sidecar.module_routes import build_zip; open('vtt_module/vtt-sidecar.zip','wb').write(build_zip())"
	@echo "wrote vtt_module/vtt-sidecar.zip"

schema: $(STAMP_RUN)
	$(BIN)/vtt-sidecar schema

demo: $(STAMP_RUN)
	$(BIN)/vtt-sidecar demo $(ARGS)

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache test-artifacts vtt_module/vtt-sidecar.zip
