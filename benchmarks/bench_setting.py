"""A change of setting in a real browser: from the learning-rate slider's step (a key
press on its thumb) until every chart on the page is drawn anew, against the floor, a bare
Streamlit script whose slider redraws one 200 x 200 heat map (``bare_slider.py``), in the
same run; and on the Sweep page, from a new value typed into the sweep until every chart
of the page is drawn.

    python -m benchmarks.bench_setting [--repeat 5] [--links /?rounds=100,/tree?rounds=500]

Each figure is the median of ``--repeat`` changes, each to a setting not seen before (the
slider goes up a step at a time; the sweep takes a new value), so that every change is a
new fit, bound afresh, as for a student dragging it. The machine's load
matters (2 CPUs here, shared): the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics

from explorer.process import CHROMIUM, CHROMIUM_ARGS, ROOT, start_server

LINKS = ["/?rounds=100", "/?rounds=500", "/tree?rounds=100", "/tree?rounds=500"]
SWEEP = ("/sweep?n=1250&rounds=500&sweep=lr:0.05,0.1,0.2,0.5&sweep2=depth:1,2,3,6", 18)
READY = "[data-testid=stApp][data-test-script-state=notRunning]"
# every chart, Streamlit's own (the floor) or ours, as plotly.js draws it
GRAPHS = "[...document.querySelectorAll('.js-plotly-plot')]"
# Resolves when every graph on the page has been drawn again since the call (plotly.js
# fires plotly_afterplot after each draw), and the script has ended; its time in ms
AFTER = """(count) => new Promise((resolve) => {
    const start = performance.now();
    const drawn = new Set();
    const watch = () => {
        for (const gd of """ + GRAPHS + """) {
            if (!gd.__watched) {
                gd.__watched = true;
                gd.on('plotly_afterplot', () => drawn.add(gd));
            }
        }
    };
    const poll = () => {
        watch();
        const graphs = """ + GRAPHS + """;
        const done = graphs.length >= count && graphs.every(gd => drawn.has(gd))
            && document.querySelector('""" + READY + """');
        if (done) resolve(performance.now() - start);
        else requestAnimationFrame(poll);
    };
    window.__arm = () => { drawn.clear(); watch(); };
    window.__arm();
    setTimeout(poll, 50);
})"""


def _slider_change(page, label: str, count: int, key: str) -> float:
    """ms from a key press on the slider labelled ``label`` to every graph drawn again."""
    thumb = page.locator(f"[data-testid=stSlider]:has-text('{label}') input[type=range]").first
    thumb.focus()
    done = page.evaluate_handle(AFTER, count)
    thumb.press(key)
    return float(done.json_value())


def _sweep_change(page, count: int, values: str) -> float:
    box = page.locator(".stTextInput input").first
    box.fill(values)
    done = page.evaluate_handle(AFTER, count)
    box.press("Enter")
    return float(done.json_value())


def _open(page, url: str, count: int) -> None:
    page.goto(url)
    page.wait_for_selector(READY, state="attached", timeout=180_000)
    page.wait_for_function(f"{GRAPHS}.length >= {count}", timeout=180_000)
    page.wait_for_timeout(1500)


def main(argv=None) -> None:
    from pathlib import Path
    from playwright.sync_api import sync_playwright
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--links", default="", help="comma-separated app links")
    args = parser.parse_args(argv)
    links = [link for link in args.links.split(",") if link] or LINKS
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    app = start_server(Path("/tmp/bench_setting_app.log"))
    bare = start_server(Path("/tmp/bench_setting_bare.log"), app=ROOT / "benchmarks/bare_slider.py")
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            _open(page, bare.url, 1)
            floor = statistics.median(
                _slider_change(page, "Learning rate", 1, "ArrowRight")
                for _ in range(args.repeat))
            page.close()
            for link in links:
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                count = 3 if link.startswith("/tree") else 2
                _open(page, app.url + link, count)
                times = [_slider_change(page, "Learning rate", count, "ArrowRight")
                         for _ in range(args.repeat)]
                rows.append((link, statistics.median(times)))
                page.close()
            link, count = SWEEP
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            _open(page, app.url + link, count)
            # a new last value each time: four new cells to fit and bind, twelve kept
            times = [_sweep_change(page, count, f"0.05, 0.1, 0.2, {0.3 + 0.01 * i:g}")
                     for i in range(args.repeat)]
            rows.append(("sweep 4 x 4, 1,000 points, 500 rounds: a new value",
                         statistics.median(times)))
            page.close()
            browser.close()
    finally:
        app.stop()
        bare.stop()
    print(f"floor: a bare slider redrawing one 200 x 200 heat map: {floor:.0f} ms")
    print(f"{'link':58} {'change ms':>10} {'/ floor':>8}")
    for link, ms in rows:
        print(f"{link:58} {ms:10.0f} {ms / floor:8.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
