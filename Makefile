# Two commands do everything on a fresh machine: `make app` and `make test`.
# Both run from a project environment (.venv, made with the python3 on the PATH), so the
# system's own Python is never touched (Debian 12 and Ubuntu 23.04+ refuse pip there).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# numba's compiled-kernel cache: one folder, kept out of the source tree.
export NUMBA_CACHE_DIR ?= $(CURDIR)/.cache/numba
# Python's compiled modules, kept there too. This machine's environment sets
# PYTHONDONTWRITEBYTECODE=1; with pip's --no-compile (below) every process then compiled
# every module it imported from source, each time: 4.0 s to import the app's libraries
# against 1.6 s from bytecode. The project's commands write bytecode, outside the source
# tree, as each module is first imported.
export PYTHONPYCACHEPREFIX ?= $(CURDIR)/.cache/pyc
unexport PYTHONDONTWRITEBYTECODE

.PHONY: app test test-env quick bench load warm browsers screenshots

# A stamp per requirements file: packages are installed again only when a file changes,
# the dependencies' own list (pyproject.toml, which both files refer to) included.
# uv installs them, into the venv, from the same PyPI and to the same versions as pip:
# 17 s for both files against pip's 57 s (a clean clone, warm download caches,
# 2026-11-28). Like pip's --no-compile, it leaves byte-compiling to Python, a module at
# its first import (pip's compile of every file was 20 s here, plotly's thousands of
# modules most of it).
UV := $(VENV)/bin/uv pip install -q --python $(PY)

$(PY):
	@$(PYTHON) -c "import venv, ensurepip" 2>/dev/null || { \
		echo "$(PYTHON) has no venv support. Add it with: sudo apt-get install python3-venv"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "uv>=0.9"

$(VENV)/.app: requirements.txt pyproject.toml | $(PY)
	$(UV) -r requirements.txt
	@touch $@

# The dev extra on top of the app's packages (installed first: see test-env).
$(VENV)/.dev: requirements-dev.txt pyproject.toml $(VENV)/.app
	$(UV) -r requirements-dev.txt
	@touch $@

# Compiles the engine's kernels into numba's cache, a process per core, so the first visit
# is warm. A stamp in the cache says when: the kernels live in explorer/*.py and
# explorer/numbers/*.py, and numba's cache is keyed by their source files, so the warm-up
# runs again only when one of them, or the installed packages, changed since (or the
# cache was deleted, stamp and all). It takes 4-5 s even when there is nothing to compile.
WARM := $(NUMBA_CACHE_DIR)/.warm
$(WARM): $(VENV)/.app $(wildcard explorer/*.py explorer/numbers/*.py)
	$(PY) -m explorer warmup
	@mkdir -p $(@D) && touch $@

warm: $(WARM)

app: warm
	$(PY) -m streamlit run app.py

# The browser tests drive Debian's /usr/bin/chromium (never a downloaded browser) and the
# cluster tests Debian's nginx: installed with apt-get when missing, if we are root.
browsers:
	@if ! command -v chromium >/dev/null || ! command -v nginx >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium nginx; \
		else \
			echo "The browser and cluster tests need Debian's chromium and nginx. Install them with:"; \
			echo "  sudo apt-get install chromium nginx"; exit 1; \
		fi; \
	fi

# The tests run in three processes on the two cores (pytest-xdist), a test file at a time,
# so that a file's fixtures, server and browser are made once. A browser test waits on the
# browser and the server for much of its time, and a third process fills those waits: a
# clean-clone `bash .ci/run` took 8 min 10 s against 9 min 11 s with two (runs 33 and 32,
# 2026-11-28 afternoon). That morning, with the machine slower, three were slower
# (14 min 10 s against 13 min 27 s). `make quick`, with no browser, keeps one per core:
# 59.0-59.6 s against 60.6-61.3 s with three.
# The engine is compiled into numba's cache first (warm): two processes compiling one
# function at once could each write their own signature under the same cache entry.
# --no-loadscope-reorder: the longest files first (tests/conftest.py, LONGEST_FIRST).
WORKERS ?= 3
QUICK_WORKERS ?= 2
XDIST = -n $(1) --dist loadfile --no-loadscope-reorder

# apt's chromium and nginx install beside pip's and the engine's compile: the one waits
# mostly on downloads and the disk, the others mostly on the processors.
test:
	$(MAKE) --no-print-directory -j2 browsers test-env
	$(PY) -m pytest -q $(call XDIST,$(WORKERS)) --durations=25

# What every test needs but the browsers: the app's packages, then the engine compiled
# beside the dev extra's install: a clean clone reached the tests in 59 s (2026-11-28; the
# compile, 42 s, is most of it). Two makes: under -j, .dev and warm would each start their
# shared prerequisite (.app), two installs in one environment.
test-env: $(VENV)/.app
	$(MAKE) --no-print-directory -j2 warm $(VENV)/.dev

# Everything but the browser and cluster tests: a quick check while working.
quick: test-env
	$(PY) -m pytest -q $(call XDIST,$(QUICK_WORKERS)) -m "not browser and not cluster"

bench: $(VENV)/.dev
	$(PY) -m benchmarks.bench_fit

load: $(VENV)/.dev
	$(PY) -m benchmarks.load

# The README's screenshots (docs/model.png, docs/tree.png), made again from the app itself
screenshots: warm $(VENV)/.dev browsers
	$(PY) docs/screenshots.py
