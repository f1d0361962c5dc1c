# Two commands do everything on a fresh machine: `make app` and `make test`.
PYTHON ?= python3

.PHONY: install app test bench load

install:
	$(PYTHON) -m pip install -q -r requirements.txt

app: install
	$(PYTHON) -m streamlit run app.py

# Installs what the tests need (Python packages, and Debian's chromium and nginx
# when missing: the browser tests drive /usr/bin/chromium, never a downloaded one).
test:
	$(PYTHON) -m pip install -q -r requirements.txt -r requirements-dev.txt
	@command -v chromium >/dev/null && command -v nginx >/dev/null || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium nginx)
	$(PYTHON) -m pytest -q

bench: install
	$(PYTHON) -m pip install -q -r requirements-dev.txt
	$(PYTHON) benchmarks/bench_fit.py

load: install
	$(PYTHON) -m pip install -q -r requirements-dev.txt
	$(PYTHON) benchmarks/load.py
