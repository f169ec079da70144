# Every target bootstraps .venv itself, so each works from a fresh clone.
PYTHON ?= python3
# the shared/ folder with the upstream MIF data (only `make conformance` reads it)
SHARED ?= ../shared
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo lint test test-lowest conformance browser bench bench-scale clean

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

# The checked habits: ruff (lint and format), the import contract of pyproject.toml (the pipeline's
# layers, no cycles), mypy (the package; --strict on the public API).  `make test` runs them first.
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy

# The main suite on every core (pytest-xdist): each test file stays on one worker, so its
# module fixtures (servers, loaded bundles, the executed notebook) are made once.
test: lint
	$(BIN)/python -m pytest -n auto --dist loadfile

# The main suite with every dependency at the floor pyproject.toml declares (pip's "lowest-direct":
# .ci/lowest-constraints.py pins each direct dependency to its lowest release at or above the floor),
# in a fresh environment of its own: a floor the suite does not pass with fails here.
LOWEST := .venv-lowest
test-lowest: | $(BIN)/python
	rm -rf $(LOWEST)
	$(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip packaging
	$(LOWEST)/bin/python .ci/lowest-constraints.py > $(LOWEST)/constraints.txt
	$(LOWEST)/bin/python -m pip install --quiet -c $(LOWEST)/constraints.txt -e '.[dev]'
	$(LOWEST)/bin/python -m pytest -n auto --dist loadfile -p no:cacheprovider

# The upstream-conformance suite: the same properties on the public MIF data in $(SHARED).
# A missing folder is an error, never a skip.
conformance: $(STAMP)
	$(BIN)/python -m pytest tests/conformance --shared $(SHARED)

# The browser suite: the page of `mif-rdf serve` in headless Chromium (apt-get install chromium chromium-driver).
# Screenshots land in out/browser/.
browser: $(STAMP)
	$(BIN)/python -m pytest tests/browser --browser

# The benchmark suite on 10,000 generated memories (under 10 minutes), one table;
# then `serve` at 10,000 memories: query latency against `oxigraph serve`, and the edit delay;
# then time and change (issue 38): adjacent revisions through the cache, diff, --as-of;
# then ontology compile memory against the YAML's size at two sizes.
bench: $(STAMP)
	$(BIN)/python benchmarks/suite.py
	$(BIN)/python benchmarks/bench_serve.py
	$(BIN)/python benchmarks/bench_time.py
	$(BIN)/python benchmarks/bench_ontology_memory.py

# The 100,000-memory cases (Oxigraph store): load, warm reload, validation, queries, peak memory.
bench-scale: $(STAMP)
	$(BIN)/python benchmarks/suite.py --scale

clean:
	rm -rf $(VENV) $(LOWEST) out build dist .pytest_cache .mypy_cache
