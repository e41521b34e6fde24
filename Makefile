# Two commands on a fresh machine: `make run` serves the site, `make test` runs the whole suite.
# Both set everything up first (system packages, .venv, requirements, database, content).

PYTHON_SYSTEM ?= /usr/bin/python3
VENV := .venv
PY := $(VENV)/bin/python
# The runtime learners' code gets inside the sandbox: Debian's Python (under /usr, readable by the sandbox's
# unprivileged uid) with only mcp installed.
SANDBOX_RUNTIME := var/sandbox-runtime
SYSTEM_PACKAGES := python3-venv bubblewrap chromium
INSPECTOR := tools/inspector/node_modules/.bin/mcp-inspector
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 1

.PHONY: run test setup system-packages venv sandbox-runtime db inspector bench clean

run: setup
	@DJANGO_DEBUG=1 $(PY) manage.py create_demo_instructor
	@HOST=$(HOST) PORT=$(PORT) WORKERS=$(WORKERS) scripts/run.sh

test: setup inspector
	$(PY) -m pytest

setup: system-packages venv sandbox-runtime db

system-packages:
	@scripts/ensure_system_packages.sh $(SYSTEM_PACKAGES)

$(VENV)/.installed: requirements.txt
	@test -x $(PY) || $(PYTHON_SYSTEM) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

venv: $(VENV)/.installed

$(SANDBOX_RUNTIME)/.installed: requirements-sandbox.txt
	@test -x $(SANDBOX_RUNTIME)/bin/python || $(PYTHON_SYSTEM) -m venv $(SANDBOX_RUNTIME)
	$(SANDBOX_RUNTIME)/bin/python -m pip install --quiet -r requirements-sandbox.txt
	@chmod -R a+rX $(SANDBOX_RUNTIME)
	@touch $@

sandbox-runtime: $(SANDBOX_RUNTIME)/.installed

# The official MCP Inspector CLI, a client the tests use against the training server (npm, pinned by the lock file).
$(INSPECTOR): tools/inspector/package.json tools/inspector/package-lock.json
	@command -v npm >/dev/null 2>&1 || scripts/ensure_system_packages.sh nodejs npm
	cd tools/inspector && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

inspector: $(INSPECTOR)

db: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py sync_content

bench: setup
	@for script in bench/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) var test-artifacts tools/inspector/node_modules
