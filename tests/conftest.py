"""Shared fixtures: a warm numba engine, small fits, and a Streamlit server for browser tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.load import free_port, stop_process  # noqa: E402  (shared with the harness)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def warm_engine():
    """Compile the numba kernels once per test process (AppTest runs the app in-process)."""
    from explorer import fit, warmup
    from explorer.numbers.grid import make_grid
    import numpy as np
    warmup()
    X = np.random.default_rng(0).normal(size=(40, 2))
    tr = fit(X, (X[:, 0] > 0).astype(float), n_rounds=2)
    make_grid(tr, resolution=8)
    return True


@pytest.fixture(scope="session")
def moons_fit(warm_engine):
    """A small fit with a validation set, subsampling and every kind of quantity."""
    from explorer import fit
    from explorer.data import make_toy, split
    train, valid = split(make_toy("moons", n=300, noise=0.3, seed=1), 0.2, 1)
    return fit(train.X, train.y, n_rounds=12, learning_rate=0.3, max_depth=3, subsample=0.8,
               random_state=0, X_valid=valid.X, y_valid=valid.y)


def run_async(coroutine):
    """Run a coroutine to completion on a thread of its own.

    The session's Playwright browser keeps an event loop running in the main thread,
    where asyncio.run() refuses to start another.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    started: float  # time.perf_counter() when the process was started
    log: Path


def start_server(log: Path, timeout: float = 120.0) -> Server:
    """Start ``streamlit run app.py`` on a free port and wait until it answers its health check."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
         f"--server.port={port}", "--server.headless=true", "--server.address=127.0.0.1",
         "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
        cwd=ROOT, stdout=open(log, "w"), stderr=subprocess.STDOUT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_process(process)
            raise RuntimeError(f"streamlit did not become healthy:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)
    return Server(url, process, started, log)


@pytest.fixture(scope="session")
def app_server(tmp_path_factory, warm_engine):
    """A server for the browser tests; numba is warmed here first so that the server
    process loads the compiled kernels from numba's disk cache instead of compiling."""
    server = start_server(tmp_path_factory.mktemp("server") / "streamlit.log")
    yield server
    stop_process(server.process)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium "
                           "(make test does it with apt-get)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
