# Two commands for a newcomer: `make test` and `make demo`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e ".[dev,train,rllib,openspiel,jax]"
	@touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/hilo demo

lint: $(STAMP)
	$(BIN)/ruff check .

# Benchmarks need the peer environments: pip install -e ".[bench]" (not part of `make test`).
bench: $(STAMP)
	$(BIN)/pip install --quiet -e ".[bench]"
	for f in bench/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
