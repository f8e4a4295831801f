# Two commands for a newcomer: `make demo` (the core install only, ready in about a minute)
# and `make test` (the extras too: dev, train, rllib, openspiel, jax, web, libraries; several
# minutes). `make check` is the inner loop: the same, less the tests marked slow.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.core
FULL := $(VENV)/.installed

# One worker per core (pytest-xdist), each handed whole test files, the slow ones first
# (tests/conftest.py orders them; --no-loadscope-reorder keeps that order).
PYTEST := $(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

.PHONY: test check demo lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The core package (numpy, gymnasium, pettingzoo, pyyaml); a full install already holds it.
$(CORE): $(BIN)/python pyproject.toml
	@if [ -f $(FULL) ] && [ ! $(FULL) -ot pyproject.toml ]; then :; \
	else $(BIN)/pip install --quiet -e .; fi
	@touch $(CORE)

$(FULL): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e ".[dev,train,rllib,openspiel,jax,web,libraries]"
	@touch $(FULL)

test: $(FULL)
	$(BIN)/ruff check .
	$(PYTEST)

check: $(FULL)
	$(BIN)/ruff check .
	$(PYTEST) -m "not slow"

demo: $(CORE)
	$(BIN)/hilo demo

lint: $(FULL)
	$(BIN)/ruff check .

# Benchmarks need the peer environments: pip install -e ".[bench]" (not part of `make test`).
bench: $(FULL)
	$(BIN)/pip install --quiet -e ".[bench]"
	for f in bench/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
