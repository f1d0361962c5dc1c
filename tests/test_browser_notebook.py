"""explorer.show's widget in real notebooks, driven in Chromium: JupyterLab (one server
for the file, with Notebook 7 on the same server) and marimo.

JupyterLab: a notebook's cells run one by one (Shift+Enter). Two widgets, three classes
(iris, Model page) and a regression (sine, Tree page), draw at round 1, step with their
bar, and step to 10 when a cell sets ``w.round = 10``; at each of those rounds each chart
plotly.js is given equals the page's Python figure. A step in the view reaches the
kernel once stepping rests: a cell reads it back. Nothing is fetched from outside the
server. Notebook 7 and marimo: the same, shorter."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from explorer import notebook
from explorer.figures import pages
from explorer.process import CHROMIUM, CHROMIUM_ARGS, free_port, stop_process
from test_bindings import canonical
from test_browser_bindings import DRAWN
from test_interactive import lesson

pytestmark = pytest.mark.browser
pytest.importorskip("anywidget")

TESTS = Path(__file__).resolve().parent
ROUNDS = 12
# the charts one widget draws (DRAWN, the app's test's, on the widget's own element)
DRAWN_HERE = "root => (" + DRAWN.replace("document.querySelectorAll", "root.querySelectorAll") + ")()"
SETUP = f"""\
import sys
sys.path.insert(0, {str(TESTS)!r})
import explorer
from test_interactive import lesson
def shown(name, page):
    trace, grid, state, names = lesson(name, rounds={ROUNDS})
    w = explorer.show(trace, page=page, round=1, **names)
    print("KEY", w._key)
    return w
"""


def _env(tmp: Path) -> dict:
    return dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
                JUPYTER_CONFIG_DIR=str(tmp / "config"), PYTHONUNBUFFERED="1")


def _wait_for(url: str, process, seconds: float = 60):
    given = time.monotonic() + seconds
    while time.monotonic() < given:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped ({process.returncode}) before {url} answered")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {seconds} s")


@pytest.fixture(scope="module")
def lab(tmp_path_factory, warm_engine):
    """A JupyterLab server on a free port (Notebook 7 served by it too), no token, its
    settings, workspaces and runtime files in a temporary folder."""
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "notebooks"
    root.mkdir()
    port = free_port()
    log = open(tmp / "lab.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.token=",
         "--ServerApp.password=", "--ServerApp.ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.root_dir={root}", "--allow-root",
         f"--LabApp.user_settings_dir={tmp / 'settings'}",
         f"--LabApp.workspaces_dir={tmp / 'workspaces'}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"],
        env=_env(tmp), stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status", process)
        yield f"http://127.0.0.1:{port}", root
    finally:
        stop_process(process, timeout=10)  # its kernels too
        log.close()


@pytest.fixture(scope="module")
def chromium(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


def _page(chromium, base: str):
    """A page of a fresh context: (page, requests beyond ``base``, page errors)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    outside, errors = [], []
    context.on("request", lambda r: outside.append(r.url)
               if not r.url.startswith((base, "data:", "blob:")) else None)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}"))
    page.add_init_script("window.__explorerTest = true")  # keep each figure as built
    return page, outside, errors


def _write_notebook(path: Path, cells: list[str]):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)


def widget(page, n: int):
    return page.locator(".explorer-widget").nth(n)


def drawn_at(page, n: int, m: int) -> list[dict]:
    root = widget(page, n)  # (a locator finds it inside marimo's shadow roots too)
    root.wait_for(state="attached")
    page.wait_for_function("([root, m]) => root.dataset.drawn === String(m)",
                           arg=[root.element_handle(), m])
    return json.loads(root.evaluate(DRAWN_HERE))


@functools.cache
def _fit(name):
    return lesson(name, rounds=ROUNDS)


def _notebook_7_s_own(error: str) -> bool:
    frames = [line for line in error.splitlines()
              if line.strip().startswith("at ") and "://" in line]
    return bool(frames) and all("/static/notebook/" in line for line in frames)


def assert_python_figures(mine, name, view, key, m):
    """Each chart drawn equals the page's figure in Python at round m."""
    trace, grid, _, names = _fit(name)
    state = notebook.state_of(trace, round=m)
    described = pages.describe(view, trace, grid, state, notebook.names_of(trace, **names),
                               key=key)
    assert [c["view"] for c in mine] == [c.view for c in described.charts]
    for chart, drawn in zip(described.charts, mine):
        want = json.loads(chart.at(m).to_json())
        assert canonical(drawn["data"]) == canonical(want["data"]), (name, chart.view, m)
        assert canonical(drawn["layout"]) == canonical(want["layout"]), (name, chart.view, m)


def _cell_output(page, cells: str, k: int, wanted: str) -> str:
    """Cell k's output once it holds ``wanted`` (a widget's view, or a warning on stderr,
    may come before the cell's own print)."""
    output = page.locator(cells).nth(k).locator(".jp-OutputArea")
    output.wait_for()
    page.wait_for_function("([sel, k, wanted]) => document.querySelectorAll(sel)[k]"
                           ".querySelector('.jp-OutputArea').innerText.includes(wanted)",
                           arg=[cells, k, wanted])
    return output.inner_text()


def _kernel_idle(base: str, name: str, seconds: float = 120):
    """Wait until the notebook ``name``'s kernel is up and idle (the server's sessions)."""
    given = time.monotonic() + seconds
    while time.monotonic() < given:
        with urllib.request.urlopen(f"{base}/api/sessions", timeout=5) as answer:
            for session in json.load(answer):
                if (session["path"].endswith(name)
                        and session["kernel"]["execution_state"] == "idle"):
                    return
        time.sleep(0.2)
    raise RuntimeError(f"{name}'s kernel was not idle in {seconds} s")


def _open(page, base: str, url: str, cells: str):
    """Open the notebook and run its first cell once its kernel is up."""
    page.goto(base + url)
    page.locator(cells).first.wait_for()
    _kernel_idle(base, url.rsplit("/", 1)[1])
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           state="attached")
    _run_cell(page, cells, 0)


def _run_cell(page, cells: str, k: int):
    """Select cell k, run it, and wait until its prompt shows it ran ([*] or [n], not
    [ ]). A run asked for is asked again if the prompt did not change: a run asked
    before the page had the kernel was lost, and on a loaded machine (CI) a click
    that should have selected the cell once did not run it. Each cell is run once."""
    prompt = page.locator(cells).nth(k).locator(".jp-InputPrompt")
    for _ in range(10):
        prompt.click()
        page.keyboard.press("Escape")  # command mode
        page.keyboard.press("Shift+Enter")  # run it
        try:
            page.wait_for_function("el => !/\\[ \\]/.test(el.textContent)",
                                   arg=prompt.element_handle(), timeout=3000)
            return
        except Exception:  # noqa: BLE001 - not run yet: again
            continue
    raise RuntimeError(f"the notebook's cell {k} would not run")


def sent(page, n: int, m: int):
    """Wait until widget n has told its kernel round m (the bar tells it once stepping
    rests, 300 ms after a step's drawing): a cell run before then would race it."""
    page.wait_for_function("([root, m]) => root.dataset.sent === String(m)",
                           arg=[widget(page, n).element_handle(), m])


CASES = [("iris", "model"), ("sine", "tree")]


def test_jupyterlab_draws_steps_and_reads_the_round_back(lab, chromium, tmp_path):
    base, root = lab
    _write_notebook(root / "lab.ipynb", [
        SETUP,
        "wi = shown('iris', 'model')\nwi",
        "ws = shown('sine', 'tree')\nws",
        "wi.round = 10\nws.round = 10",
        "print('ROUNDS', wi.round, ws.round)"])
    page, outside, errors = _page(chromium, base)
    cells = ".jp-Notebook .jp-Cell"
    _open(page, base, "/lab/tree/lab.ipynb", cells)
    for k in (1, 2):
        _run_cell(page, cells, k)
    keys = [_cell_output(page, cells, k, "KEY ").split("KEY ")[1].split()[0] for k in (1, 2)]
    for n, (name, view) in enumerate(CASES):
        assert_python_figures(drawn_at(page, n, 1), name, view, keys[n], 1)
    page.screenshot(path=tmp_path / "round-1.png")
    for n, (name, view) in enumerate(CASES):  # the bar's next button
        widget(page, n).locator("[data-go=next]").click()
        assert_python_figures(drawn_at(page, n, 2), name, view, keys[n], 2)
    for n in range(len(CASES)):
        sent(page, n, 2)
    _run_cell(page, cells, 3)  # w.round = 10 from a cell
    for n, (name, view) in enumerate(CASES):
        assert_python_figures(drawn_at(page, n, 10), name, view, keys[n], 10)
    page.screenshot(path=tmp_path / "round-10.png")
    widget(page, 0).locator("[data-go=next]").click()  # iris to 11, in the view
    drawn_at(page, 0, 11)
    sent(page, 0, 11)
    _run_cell(page, cells, 4)
    assert "ROUNDS 11 10" in _cell_output(page, cells, 4, "ROUNDS")
    assert not errors and not outside, (errors, outside)
    page.context.close()


def test_notebook_7_draws_and_steps_both_ways(lab, chromium):
    base, root = lab
    _write_notebook(root / "nb7.ipynb", [
        SETUP, "w = shown('sine', 'model')\nw", "w.round = 10", "print('ROUND', w.round)"])
    page, outside, errors = _page(chromium, base)
    cells = ".jp-Notebook .jp-Cell"
    _open(page, base, "/notebooks/nb7.ipynb", cells)
    _run_cell(page, cells, 1)
    key = _cell_output(page, cells, 1, "KEY ").split("KEY ")[1].split()[0]
    assert_python_figures(drawn_at(page, 0, 1), "sine", "model", key, 1)
    _run_cell(page, cells, 2)
    assert_python_figures(drawn_at(page, 0, 10), "sine", "model", key, 10)
    widget(page, 0).locator("[data-go=prev]").click()
    drawn_at(page, 0, 9)
    sent(page, 0, 9)
    _run_cell(page, cells, 3)
    assert "ROUND 9" in _cell_output(page, cells, 3, "ROUND")
    # Notebook 7.6 itself throws an error or two as it loads, on a notebook with no widget
    # too ("reading 'schema'", "Command 'filebrowser:open-path' not registered"): errors
    # raised only in its own bundle are its own
    errors = [e for e in errors if not _notebook_7_s_own(e)]
    assert not errors and not outside, (errors, outside)
    page.context.close()


MARIMO_APP = f'''\
import marimo

app = marimo.App()


@app.cell
def _():
    import sys
    sys.path.insert(0, {str(TESTS)!r})
    import marimo as mo
    import explorer
    from test_interactive import lesson
    trace, grid, state, names = lesson("iris", rounds={ROUNDS})
    w = mo.ui.anywidget(explorer.show(trace, page="tree", round=1, **names))
    w
    return mo, w


@app.cell
def _(mo, w):
    mo.md(f"ROUND {{w.value['round']}} KEY {{w.widget._key}}")
    return


if __name__ == "__main__":
    app.run()
'''


def test_marimo_draws_steps_and_the_round_reaches_python(chromium, tmp_path, warm_engine):
    path = tmp_path / "app.py"
    path.write_text(textwrap.dedent(MARIMO_APP))
    port = free_port()
    log = open(tmp_path / "marimo.log", "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "marimo", "run", str(path), "--headless", "--no-token",
         "--host", "127.0.0.1", "--port", str(port), "--no-sandbox", "--no-check"],
        env=dict(os.environ, MARIMO_SKIP_UPDATE_CHECK="1"), stdout=log,
        stderr=subprocess.STDOUT, cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(base + "/health", process)
        page, outside, errors = _page(chromium, base)
        page.goto(base)
        page.wait_for_selector("text=ROUND 1", timeout=120_000)
        text = page.inner_text("body")
        key = text.split("KEY ")[1].split()[0]
        assert_python_figures(drawn_at(page, 0, 1), "iris", "tree", key, 1)
        widget(page, 0).locator("[data-go=last]").click()
        assert_python_figures(drawn_at(page, 0, ROUNDS), "iris", "tree", key, ROUNDS)
        page.wait_for_selector(f"text=ROUND {ROUNDS}")  # the trait, read by a cell
        assert not errors and not outside, (errors, outside)
        page.context.close()
    finally:
        stop_process(process, timeout=10)  # its kernels too
        log.close()
