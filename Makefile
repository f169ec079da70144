# Every target bootstraps .venv itself, so each works from a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "mif-rdf needs Python 3.11 or newer (found: $$($(PYTHON) --version))"; exit 2; }
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "could not create a virtual environment; on Debian: apt-get install python3-venv"; exit 2; }

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

demo: $(STAMP)
	$(BIN)/mif-rdf load examples --output out/examples.ttl

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_load.py
	$(BIN)/python benchmarks/bench_validation.py

clean:
	rm -rf $(VENV) out build dist .pytest_cache
