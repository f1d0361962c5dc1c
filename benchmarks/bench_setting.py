"""A change of setting in a real browser: from the release of a sidebar slider (a key
press on it) to every chart of the page drawn anew, against a bare Streamlit script whose
slider redraws one 200 x 200 heat map (``bare_slider.py``), in the same run.

    python -m benchmarks.bench_setting [--trials 5] [--links /?rounds=500,/tree]

For each link it prints, medians of ``--trials`` changes (each one notch of the slider up,
so that each fit is new: no cache holds it or its charts):

- drawn: until every chart has been drawn with the new fit (plotly.js's afterplot after
  the component got its new data);
- stepping: until every chart that follows the round has its bindings again (steps in
  the browser), which comes in a second run (explorer/app/component.py ``bind_later``);
- drawn / floor and stepping / floor; and drawn / the app's own floor: the app without
  its charts (``floor_app.py``, the same router, sidebar, fit and round bar), from the same
  key press to the end of its run;
- drawn / the page's own figures redrawn by a bare script with st.plotly_chart
  (``bare_figures.py``: the same figures, made beforehand, at each key press).

The Sweep link changes "Min samples per leaf", so that all 16 cells are fitted anew; its
drawn time is the issue's time to a drawn 4 x 4 sweep. Each page is loaded once; its
first change is not counted (plotly.js's first redraw of a page is slower).

The machine's load matters (2 CPUs here, shared); the load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks import split_links
from explorer.process import CHROMIUM, CHROMIUM_ARGS, start_server, stop_process

SWEEP = "/sweep?n=1250&rounds=500&sweep=lr:0.05,0.1,0.2,0.5&sweep2=depth:1,2,3,6"
# link -> the slider changed (its widget key): the pages at 100 and 500 rounds,
# and its 4 x 4 sweep (1,000 training points, 500 rounds), exact and histogram trees
LINKS = {
    "/?round=10": "lr", "/?rounds=500&round=10": "lr",
    "/tree?round=10": "lr", "/tree?rounds=500&round=10": "lr",
    SWEEP: "minleaf", SWEEP + "&split=histogram": "minleaf",
}
READY = "[data-testid=stApp][data-test-script-state=notRunning]"
BARE = Path(__file__).with_name("bare_slider.py")
# a page's own figures redrawn by a bare script (bare_figures.py): a reference for the page
BARE_FIGURES = Path(__file__).with_name("bare_figures.py")
FIGURES_ARM = ("() => { window.__titles = [...document.querySelectorAll('.gtitle')]"
               ".map(t => t.textContent); window.__pressed = performance.now(); }")
FIGURES_DONE = ("() => { const now = [...document.querySelectorAll('.gtitle')]"
                ".map(t => t.textContent); return now.length >= window.__titles.length"
                " && window.__titles.every(t => !now.includes(t)); }")
# the app without its charts: the same router, sidebar, fit and round bar (load.py --floor)
FLOOR_APP = Path(__file__).with_name("floor_app.py")
# before the key press on the floor app: the end of the run that the press starts
ARM_RUN = """() => {
    window.__pressed = performance.now();
    window.__ranAt = null;
    let began = false;
    const app = document.querySelector('[data-testid=stApp]');
    const seen = new MutationObserver(() => {
        const now = app.dataset.testScriptState;
        if (now === 'running') began = true;
        if (began && now === 'notRunning' && window.__ranAt === null) {
            window.__ranAt = performance.now();
            seen.disconnect();
        }
    });
    seen.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
}"""

# Before the key press: each chart's data as last sent, and a listener on its draws
ARM = """() => {
    window.__change = [...document.querySelectorAll('.explorer-chart')].map(gd => {
        const seen = { gd, sent: gd.__sent, drawn: null, bound: null };
        if (!gd.__armed) {
            gd.__armed = true;
            gd.on('plotly_afterplot', () => {
                const s = window.__change.find(c => c.gd === gd);
                if (!s || gd.__sent === s.sent) return;
                const now = performance.now();
                if (s.drawn === null) s.drawn = now;
                if (s.bound === null && gd.__step) s.bound = now;
            });
        }
        return seen;
    });
    window.__pressed = performance.now();
    return window.__change.length;
}"""
DRAWN = "() => window.__change.every(s => s.drawn !== null)"
# [drawn, stepping again (null while a chart is not), charts bound, charts] in ms
TIMES = """() => {
    const last = (key) => window.__change.some(s => s[key] === null) ? null
        : Math.max(...window.__change.map(s => s[key])) - window.__pressed;
    return [last('drawn'), last('bound'), window.__change.filter(s => s.gd.__step).length,
            window.__change.length];
}"""
# the bare script: its title names the slider's value
BARE_ARM = ("() => { window.__title = document.querySelector('.gtitle').textContent;"
            " window.__pressed = performance.now(); }")
BARE_DONE = ("() => { const t = document.querySelector('.gtitle');"
             " return t !== null && t.textContent !== window.__title; }")


def _press(page, key: str) -> None:
    page.locator(f".st-key-{key} input[type=range]").first.press("ArrowRight")


def _slider_ms(browser, app: Path, path: str, shown: str, arm: str, done: str,
               elapsed: str, trials: int, env: dict | None = None) -> list[float]:
    """A script (``app``, opened at ``path`` until ``shown`` is on the page) at rest, then a
    key press on its learning-rate slider: ``trials`` times after a first one not counted,
    from ``arm`` (run just before the press) until ``done``, as ``elapsed`` gives it."""
    server = start_server(Path(tempfile.mkdtemp()) / "streamlit.log", app=app, env=env)
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(server.url + path)
        page.wait_for_selector(shown)
        out = []
        for k in range(trials + 1):
            page.wait_for_selector(READY, state="attached")
            page.wait_for_timeout(500)
            page.evaluate(arm)
            _press(page, "lr")
            page.wait_for_function(done, polling="raf")
            ms = page.evaluate(elapsed)
            if k:
                out.append(ms)
        page.close()
        return out
    finally:
        stop_process(server.process)


def floor_ms(browser, trials: int) -> list[float]:
    """The bare slider (bare_slider.py): from the key press until its heat map's title
    names the new value."""
    return _slider_ms(browser, BARE, "/", ".gtitle", BARE_ARM, BARE_DONE,
                      "() => performance.now() - window.__pressed", trials)


def own_figures_ms(browser, trials: int, page: str) -> list[float]:
    """The page's own figures redrawn by a bare script (bare_figures.py): from the key
    press until every chart's title names the new learning rate."""
    return _slider_ms(browser, BARE_FIGURES, "/", ".gtitle", FIGURES_ARM, FIGURES_DONE,
                      "() => performance.now() - window.__pressed", trials,
                      env={"EXPLORER_BARE_PAGE": page})


def app_floor_ms(browser, trials: int) -> list[float]:
    """The app without charts (floor_app.py): from the key press on its learning-rate
    slider to the end of the run it starts (a new fit, the sidebar, the round bar)."""
    return _slider_ms(browser, FLOOR_APP, "/?round=10", ".explorer-stepper", ARM_RUN,
                      "() => window.__ranAt !== null",
                      "() => window.__ranAt - window.__pressed", trials)


def link_ms(browser, server, link: str, key: str, trials: int) -> dict:
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(300_000)
    page.goto(server.url + link)
    page.wait_for_selector(".explorer-stepper")
    drawn, bound = [], []
    for k in range(trials + 1):
        page.wait_for_selector(READY, state="attached")
        page.wait_for_timeout(500)  # the page at rest: its rerun at rest done
        page.evaluate(ARM)
        _press(page, key)
        page.wait_for_function(DRAWN, polling="raf")
        # then the run that brings the bindings, and the page at rest
        page.wait_for_timeout(300)
        page.wait_for_selector(READY, state="attached")
        page.wait_for_timeout(300)
        page.wait_for_selector(READY, state="attached")
        d, b, following, charts = page.evaluate(TIMES)
        if k:
            drawn.append(d)
            bound.append(b if b is not None else float("nan"))
    page.close()
    return {"drawn": drawn, "bound": bound, "charts": charts, "following": following}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--links", default="", help="comma-separated links (default: all)")
    args = parser.parse_args()
    links = {k: LINKS.get(k, "lr") for k in split_links(args.links)} if args.links else LINKS
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        floor = statistics.median(floor_ms(browser, args.trials))
        app_floor = statistics.median(app_floor_ms(browser, args.trials))
        # each page's own figures, redrawn by a bare script (not the Sweep's: its cells
        # are fits of their own)
        own_figures = {page: statistics.median(own_figures_ms(browser, args.trials, page))
                       for page in dict.fromkeys(map(_page, links)) if page != "sweep"}
        server = start_server(Path(tempfile.mkdtemp()) / "streamlit.log")
        try:
            rows = {link: link_ms(browser, server, link, key, args.trials)
                    for link, key in links.items()}
        finally:
            stop_process(server.process)
        floor2 = statistics.median(floor_ms(browser, args.trials))  # the load may change
        browser.close()
    floor = min(floor, floor2)
    print(f"load average {os.getloadavg()[0]:.1f}; floor (bare slider, one 200 x 200 heat "
          f"map): {floor:.0f} ms (runs {floor:.0f}, {floor2:.0f}); the app without charts "
          f"(floor_app.py, to its run's end): {app_floor:.0f} ms = {app_floor / floor:.2f}x")
    if own_figures:
        print("each page's own figures redrawn by a bare script (bare_figures.py, "
              "st.plotly_chart): " + ", ".join(f"{page} {ms:.0f} ms = {ms / floor:.2f}x"
                                                for page, ms in own_figures.items()))
    print("| link | charts | drawn | x floor | x app floor | x page's figures | stepping "
          "| x floor |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for link, r in rows.items():
        d, b = statistics.median(r["drawn"]), statistics.median(r["bound"])
        own = own_figures.get(_page(link))
        print(f"| `{link}` ({links[link]}) | {r['charts']} | {d:.0f} ms | {d / floor:.2f}x "
              f"| {d / app_floor:.2f}x | {'-' if own is None else f'{d / own:.2f}x'} "
              f"| {b:.0f} ms | {b / floor:.2f}x |")


def _page(link: str) -> str:
    """The page a link opens, as pages.describe names it ("/" and "/model": model)."""
    return link.split("?")[0].strip("/") or "model"


if __name__ == "__main__":
    main()
