"""The notebook widget (explorer.show) in a real JupyterLab, driven by Chromium.

    python -m benchmarks.bench_notebook [--steps 30] [--shots DIR]

Prints:
- the time from running the cell (Shift+Enter) to the first chart drawn, warm numba cache,
  the app's default fit (moons, 400 points, 100 rounds) on the Model page;
- a step's p50 (the bar's next button to every chart drawn) against plotly.js's full
  redraw of the same charts at the same round (Plotly.newPlot of the figure the step drew);
- the bytes the browser received over the kernel's WebSocket while each of two widgets'
  cells ran, and how many of them were plotly.js (goal: 0 for the second);
- the bytes a notebook saved with its widget state stores per widget, and for plotly.js;
- what nbconvert's HTML export of that notebook needs to step (its scripts' addresses).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from explorer.process import CHROMIUM, CHROMIUM_ARGS, free_port

SETUP = """\
import explorer
from explorer.data import make_toy, split
from explorer.state import State
s = State()
train, valid = split(make_toy(s.data, n=s.n, noise=s.noise, seed=s.dseed), s.valid, s.dseed)
explorer.fit(train.X, train.y, **s.fit_params())  # the engine loaded from numba's cache
"""
SHOW = ("w{n} = explorer.show(train.X, train.y, page={page!r}, X_valid=valid.X, "
        "y_valid=valid.y, feature_names=train.feature_names, **s.fit_params())\nw{n}")
STEP = """async (root) => {
  const bar = root.querySelector('.explorer-stepper');
  const drawn = () => new Promise((r) => root.addEventListener('explorer-drawn', r, {once: true}));
  const times = [];
  for (let k = 0; k < STEPS; k++) {
    const done = drawn();
    const t = performance.now();
    bar.querySelector('[data-go=next]').click();
    await done;
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 60));
  }
  const full = [];
  for (const gd of root.querySelectorAll('.explorer-chart')) {
    const fig = structuredClone(gd.__drawn);
    const div = document.createElement('div');
    div.style.width = gd.clientWidth + 'px';
    document.body.appendChild(div);
    for (let k = 0; k < 5; k++) {
      const t = performance.now();
      await window.__explorerPlotlyRef.newPlot(div, structuredClone(fig.data),
                                              structuredClone(fig.layout));
      full.push([gd.dataset.view, performance.now() - t]);
    }
    window.__explorerPlotlyRef.purge(div);
    div.remove();
  }
  return {times, full};
}"""


def start_lab(root: Path, tmp: Path):
    settings = tmp / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.token=",
         "--ServerApp.ip=127.0.0.1", f"--port={port}", f"--ServerApp.root_dir={root}",
         "--allow-root", f"--LabApp.user_settings_dir={tmp / 'settings'}",
         f"--LabApp.workspaces_dir={tmp / 'ws'}", "--LabApp.news_url=None",
         "--LabApp.extension_manager=readonly"],
        env=dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp / "rt")),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/api/status", timeout=2)
            return process, base
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("JupyterLab did not start")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--shots", default="", help="a folder for screenshots at rounds 1 and 10")
    args = parser.parse_args(argv)
    import nbformat
    from playwright.sync_api import sync_playwright
    from explorer import notebook
    plotly_bytes = len(notebook.plotly_js())

    tmp = Path(tempfile.mkdtemp(prefix="bench_notebook_"))
    root = tmp / "nb"
    root.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (
        SETUP, SHOW.format(n=1, page="model"), SHOW.format(n=2, page="tree"),
        "w1.round = 1", "w1.round = 10")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, root / "bench.ipynb")
    process, base = start_lab(root, tmp)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(180_000)
            page.add_init_script("window.__explorerTest = true")
            received = [0]
            page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.__setitem__(
                0, received[0] + len(frame if isinstance(frame, (bytes, str)) else b""))))
            page.goto(base + "/lab/tree/bench.ipynb")
            cells = page.locator(".jp-Notebook .jp-Cell")
            cells.first.wait_for()
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                                   state="attached")
            time.sleep(1)

            def run(k):
                cells.nth(k).locator(".jp-InputPrompt").click()
                page.keyboard.press("Escape")
                page.keyboard.press("Shift+Enter")

            prompt = cells.first.locator(".jp-InputPrompt")
            for _ in range(20):  # a run asked before the page had its kernel is asked again
                run(0)
                try:
                    page.wait_for_function("el => !/\\[ \\]/.test(el.textContent)",
                                           arg=prompt.element_handle(), timeout=3000)
                    break
                except Exception:  # noqa: BLE001
                    continue
            page.wait_for_function("el => /\\[1\\]/.test(el.textContent)",
                                   arg=prompt.element_handle())
            sizes = []
            for n in (1, 2):
                before = received[0]
                began = time.perf_counter()
                run(n)
                page.locator(".explorer-widget").nth(n - 1).wait_for(state="attached")
                page.wait_for_function("n => document.querySelectorAll('.explorer-widget')[n]"
                                       "?.dataset.drawn === '0'", arg=n - 1)
                seconds = time.perf_counter() - began
                time.sleep(1)
                sizes.append((seconds, received[0] - before))
            print(f"cell run to first chart drawn (default fit, warm cache): Model page "
                  f"{sizes[0][0]:.2f} s (plotly.js loaded with it), a second widget (Tree "
                  f"page) {sizes[1][0]:.2f} s")
            for n, (_, size) in enumerate(sizes, 1):
                print(f"widget {n}: {size / 2**20:.2f} MB received over the kernel's "
                      f"WebSocket, of which plotly.js {plotly_bytes / 2**20:.2f} MB "
                      f"{'once' if size > plotly_bytes else 'not at all (0 bytes)'}")
            page.evaluate("() => globalThis.__explorerPlotly.then(p => "
                          "{ window.__explorerPlotlyRef = p; })")
            for n, name in ((0, "Model"), (1, "Tree")):
                out = page.locator(".explorer-widget").nth(n).evaluate(
                    STEP.replace("STEPS", str(args.steps)))
                p50 = statistics.median(out["times"])
                full = {}
                for view, ms in out["full"]:
                    full.setdefault(view, []).append(ms)
                full_sum = sum(statistics.median(v) for v in full.values())
                print(f"{name} page: step p50 {p50:.0f} ms (p90 "
                      f"{sorted(out['times'])[int(0.9 * len(out['times']))]:.0f}) against "
                      f"plotly.js's full redraw of its charts {full_sum:.0f} ms "
                      f"({', '.join(f'{v} {statistics.median(t):.0f}' for v, t in full.items())}):"
                      f" {p50 / full_sum:.2f}x")
            if args.shots:
                shots = Path(args.shots)
                shots.mkdir(parents=True, exist_ok=True)
                for k, m in ((3, 1), (4, 10)):
                    run(k)
                    page.wait_for_function("m => document.querySelector('.explorer-widget')"
                                           ".dataset.drawn === String(m)", arg=m)
                    page.locator(".explorer-widget").first.scroll_into_view_if_needed()
                    page.evaluate("() => document.querySelector('.explorer-widget')"
                                  ".scrollIntoView({block: 'start'})")
                    time.sleep(0.5)
                    page.screenshot(path=shots / f"jupyterlab-round-{m}.png")
            page.keyboard.press("Control+s")
            time.sleep(3)
            browser.close()
        saved = json.loads((root / "bench.ipynb").read_text())
        state = saved["metadata"].get("widgets", {}).get(
            "application/vnd.jupyter.widget-state+json", {}).get("state", {})
        print(f"saved notebook: {(root / 'bench.ipynb').stat().st_size / 2**20:.2f} MB, "
              f"{len(state)} widget models in its state")
        for model_id, model in state.items():
            size = len(json.dumps(model))
            paths = [b.get("path") for b in model.get("buffers", [])]
            kind = ("PlotlyJS (plotly.js)" if ["source"] in paths
                    else "explorer widget" if ["_record"] in paths else model.get("model_name"))
            print(f"  {model_id[:8]} {kind}: {size / 2**20:.2f} MB")
        html = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
                               "--stdout", str(root / "bench.ipynb")], capture_output=True,
                              text=True).stdout
        import re
        scripts = sorted(set(re.findall(r'<script[^>]+src="([^"]+)"', html)))
        print(f"nbconvert --to html: {len(html) / 2**20:.2f} MB; its scripts: {scripts}")
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    main()
