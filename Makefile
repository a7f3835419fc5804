# make setup | demo | test | bench        (make test PYTEST_ARGS='-k grad -x')
#
# Everything goes into .venv (use .venv/bin/python, or `. .venv/bin/activate`); first-time
# times measured from a fresh clone on 2 busy cores (README.md):
#   demo   37 s: .venv + minigrad, numpy, graphviz (and dot by apt-get)
#   setup  4 min 18 s: + pytest, hypothesis, ruff, selenium, a Jupyter kernel, matplotlib,
#          PyTorch 2.13 (CPU, from /opt/wheels), Chromium and a Chinese font by apt-get
#   test   setup, then ruff + the whole suite, one pytest-xdist worker per core: 7 min 17 s
#          from a fresh clone on 2 free cores
#   bench  + autograd, mygrad, micrograd; a few minutes
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=
# pytest-xdist workers: one per core (JOBS=0 runs the suite in this one process)
JOBS ?= auto

.PHONY: setup demo test bench

setup:
	bash scripts/setup.sh

demo:
	bash scripts/setup.sh --demo-only
	$(PY) -m minigrad demo

# Runs ruff and pytest both, then fails if either failed. pytest's exit code 5 ("no tests
# collected") is a failure too.
test: setup
	@ruff=0; $(VENV)/bin/ruff check minigrad compare tests || ruff=$$?; \
	pytest=0; $(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS) || pytest=$$?; \
	if [ $$pytest -eq 5 ]; then echo "make test: pytest collected no tests (exit 5)" >&2; fi; \
	if [ $$ruff -ne 0 ] || [ $$pytest -ne 0 ]; then \
		echo "make test: FAILED (ruff exit $$ruff, pytest exit $$pytest)" >&2; exit 1; \
	fi

bench: setup
	@$(PY) -c 'import autograd, mygrad, micrograd' 2>/dev/null || \
		{ $(PY) -m pip install -q --disable-pip-version-check -e '.[bench]' 2>&1 | \
		  { grep -v 'is ignored: it is neither a file nor a directory' || true; }; }
	$(PY) -m compare bench
