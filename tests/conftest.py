"""Shared fixtures: a warm numba engine, small fits and their grids, and a Streamlit server
and a browser for the browser tests."""

from __future__ import annotations

import os

# One OpenMP thread per test process, set before numpy, scikit-learn or LightGBM load
# their OpenMP runtime (it reads this once). The tests run in two or three processes on two
# cores; each library's default of a thread per core put four spinning threads on two
# cores, and an OpenMP thread that waits for a descheduled one spins: HistGradientBoosting's
# split of 800 points took 18 ms instead of 0.1 ms (test_parity_histogram.py's one-input
# regression: 143 s against 7 s on a busy machine, 7.5 against 0.2 CPU-seconds). The
# results do not depend on it (xgboost is given one thread by the tests themselves). The
# app's servers started by the tests inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from explorer import fit
from explorer.data import make_toy, split
from explorer.numbers.grid import make_grid
from explorer.process import CHROMIUM, CHROMIUM_ARGS, start_server, stop_process


# The test files that take longest, longest first: seconds of test time per file in a
# clean-clone `bash .ci/run` on 2026-11-28 (run 33, three processes busy throughout):
# test_browser 220, test_browser_phone 170, test_browser_bindings 147, test_chart_text 100,
# test_browser_interactive 77, test_browser_notebook 68, test_browser_presenter 59,
# test_cluster 57, test_load 42, test_browser_histogram 39, test_leaf_labels 36, test_app 35,
# test_export 25, test_browser_drawing 23, test_cli 23, test_app_slides 20, then 15 or less
# each. pytest-xdist (--dist loadfile --no-loadscope-reorder, in the Makefile) hands out
# whole files in the order collected, to whichever process is nearly done; its own order
# is by the number of tests, which sent a file of two 45 s tests (test_chart_text.py) out
# last, to run alone while the other processes had nothing left. Longest first, they end
# together. A file missing from the list only runs later.
LONGEST_FIRST = ("test_browser.py", "test_browser_phone.py", "test_browser_bindings.py",
                 "test_chart_text.py", "test_browser_interactive.py",
                 "test_browser_notebook.py", "test_browser_presenter.py", "test_cluster.py",
                 "test_load.py", "test_browser_histogram.py", "test_leaf_labels.py",
                 "test_app.py", "test_export.py", "test_browser_drawing.py", "test_cli.py",
                 "test_app_slides.py", "test_browser_model_alias.py", "test_bindings.py",
                 "test_lessons.py", "test_formulas.py", "test_interactive.py",
                 "test_warmup.py", "test_figure_json.py", "test_parity_sklearn_ties.py",
                 "test_sample_table.py", "test_app_leaf_maths.py", "test_wrap_symbols.py",
                 "test_controls.py", "test_escaping.py", "test_app_histogram.py",
                 "test_parity_sklearn.py", "test_truth_items.py", "test_app_sweep.py",
                 "test_layers.py")


def pytest_collection_modifyitems(items):
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    # a stable sort: each file's tests stay together and in their own order
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once():
    """Streamlit's AppTest scans every installed package's metadata for components each
    time it starts a script (0.25 s here, most of a cached page's run); the packages do
    not change during a test run, so the scan's answer is kept."""
    from streamlit.components.v2 import manifest_scanner
    scan = manifest_scanner.scan_component_manifests
    once = functools.lru_cache(maxsize=None)(lambda workers: tuple(scan(workers)))
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(once(max_workers))
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture(scope="session")
def warm_engine():
    """Compile the numba kernels once per test process (AppTest runs the app in-process)."""
    from explorer.numbers.warmup import PARTS, compile_parts
    compile_parts(PARTS)
    return True


@pytest.fixture(scope="session")
def moons_fit(warm_engine):
    """A small fit with a validation set, subsampling and every kind of quantity."""
    from explorer import fit
    from explorer.data import make_toy, split
    train, valid = split(make_toy("moons", n=300, noise=0.3, seed=1), 0.2, 1)
    return fit(train.X, train.y, n_rounds=12, learning_rate=0.3, max_depth=3, subsample=0.8,
               random_state=0, X_valid=valid.X, y_valid=valid.y)


@pytest.fixture(scope="session")
def three(warm_engine):
    """Three classes (the spiral), subsampled, with a validation set: (trace, grid, classes)."""
    ds = make_toy("spiral", n=240, noise=0.2, seed=1)
    trace = fit(ds.X, ds.y, n_rounds=6, subsample=0.8, X_valid=ds.X[:40], y_valid=ds.y[:40])
    return trace, make_grid(trace, resolution=40), ds.classes


@pytest.fixture(scope="module")
def grid(moons_fit):
    return make_grid(moons_fit, resolution=40)


@pytest.fixture(scope="module")
def exp_fit(warm_engine):
    ds = make_toy("circles", n=200, noise=0.1, seed=3)
    return fit(ds.X, ds.y, loss="exponential", n_rounds=8, learning_rate=0.5, max_leaves=5)


def _fit(name, **options):
    train, valid = split(make_toy(name, n=150, noise=0.2, seed=2), 0.2, 2)
    params = dict(loss="squared_error", n_rounds=12, learning_rate=0.3, max_depth=2)
    params.update(options)
    tr = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, **params)
    return tr, make_grid(tr)


@pytest.fixture(scope="module")
def sine(warm_engine):
    return _fit("sine")


@pytest.fixture(scope="module")
def plane(warm_engine):
    return _fit("plane", subsample=0.7)


def run_async(coroutine):
    """Run a coroutine to completion on a thread of its own.

    The session's Playwright browser keeps an event loop running in the main thread,
    where asyncio.run() refuses to start another.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture(scope="session")
def app_server(tmp_path_factory, warm_engine):
    """A server for the browser tests; numba is warmed here first so that the server
    process loads the compiled kernels from numba's disk cache instead of compiling."""
    server = start_server(tmp_path_factory.mktemp("server") / "streamlit.log")
    yield server
    stop_process(server.process)


@pytest.fixture(scope="session")
def playwright():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium "
                           "(make test does it with apt-get)")
    with sync_playwright() as pw:
        yield pw


# Streamlit's own animations and transitions (a run's status icon, a stale element's fade)
# draw a frame at the screen's rate while a run goes on, and Chromium composites each one in
# software: stilled, the GPU process used 4 CPU-s instead of 6.7 over test_browser_bindings'
# fifteen links, and all of Chromium 5% less. Nothing a test checks moves by them; the
# app's own code animates nothing.
STILL = """document.addEventListener('DOMContentLoaded', () => {
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after '
        + '{ animation: none !important; transition: none !important; }';
    document.head.appendChild(style);
});"""


class Profile:
    """One Chromium profile, as a returning visitor's browser: each page is a tab of it.

    Its HTTP cache keeps Streamlit's and plotly.js's scripts, and V8's compiled code for
    them, from one page to the next; a page then loads in about two thirds of the time of
    a fresh private one (4 s against 6 s here). Each tab is still a Streamlit session of
    its own, and starts with the site's local storage empty, as a first visit does:
    Streamlit keeps there whether the sidebar was closed, which one test does.
    """

    def __init__(self, context):
        self.context = context
        context.add_init_script(STILL)
        # every request a tab of the profile made beyond this machine (none may be)
        self.elsewhere: list[str] = []
        context.on("request", lambda r: self.elsewhere.append(r.url)
                   if not _here(r.url) else None)

    def new_page(self, viewport: dict | None = None):
        page = self.context.new_page()
        page.add_init_script("localStorage.clear()")
        if viewport:
            page.set_viewport_size(viewport)
        return page

    def new_cdp_session(self, page):
        """A CDP session on one of the profile's tabs (the phone's touch events)."""
        return self.context.new_cdp_session(page)


def _here(url: str) -> bool:
    """Whether a request stays on this machine: the test's servers on loopback, a file,
    or data the page made itself."""
    parts = urlsplit(url)
    return (parts.scheme in ("data", "blob", "about", "file")
            or parts.hostname in ("127.0.0.1", "localhost"))


@pytest.fixture(autouse=True)
def nothing_fetched_beyond_the_server(request):
    """Every page a browser test opens in the profile fetches nothing from the internet
    at run time (the tab's icon and fonts included)."""
    if "browser" not in request.fixturenames:
        yield
        return
    profile = request.getfixturevalue("browser")
    before = len(profile.elsewhere)
    yield
    assert profile.elsewhere[before:] == [], "fetched beyond the server"


@pytest.fixture(scope="session")
def browser(playwright, tmp_path_factory):
    """The app's pages, opened as tabs of one profile (:class:`Profile`)."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
        accept_downloads=True)
    yield Profile(context)
    context.close()


@pytest.fixture(scope="session")
def private_browser(playwright):
    """Chromium whose pages each start from nothing, as a first visit does: a private
    context per page (``new_page``) or per ``new_context``."""
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


# A student's phone (issue 46): Chromium's mobile emulation, touch on, a coarse pointer and
# no hover (as plotly.js and the CSS media queries see it). A test resizes its page to a
# tablet's width instead of loading it again.
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
             has_touch=True)


@pytest.fixture(scope="session")
def phone(playwright, tmp_path_factory):
    """A phone's browser (390 x 844, scale 2, mobile, touch): a :class:`Profile` of its
    own, so that it keeps plotly.js's compiled code from one page to the next as a phone's
    browser does. A private context compiled plotly.js at every page: 1.75 s of the 11.5 s
    a phone test's page kept Chromium's main thread busy."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("phone"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
        **PHONE)
    yield Profile(context)
    context.close()
