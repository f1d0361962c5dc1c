"""App speed in a real browser: time to first chart after the server starts, and the
latency of a step to the next round at N = 2,000 training points.

    python -m benchmarks.bench_app [--steps 20] [--links /?data=iris,/tree] [--starts 3]
    python -m benchmarks.bench_app --cold    # a new machine: numba's cache empty

Starts ``streamlit run app.py`` on a free port (``explorer.process``; numba's disk cache warmed first in a
separate process, so the number is the warm-cache start the issue asks for), drives
Debian's /usr/bin/chromium with Playwright, and prints:

- first chart: seconds from starting the server process to the first drawn chart (median
  of ``--starts``), and the same for a bare Streamlit script that draws one three-point
  chart with st.plotly_chart (``bare_chart.py``, started in turn with the app): the floor
  Streamlit and plotly.js set on this machine;
- for each link of LINKS (every page and every kind of data): step p50 / p90, from the
  click on "Next round" until the charts that follow the round are drawn (timed in the
  page); plotly.js's own redraw of the same charts in the same page (Plotly.react of each
  chart's current data as a new figure, measured after each step), and step / redraw;
  plotly.js's own draw of the change of round (from copies of the previous round's
  figures to copies of this round's: titles, shapes and axis ranges change too), and
  step / change, the part of a step that is ours;
- the server's traffic: kB it sends during a burst of 10 steps 120 ms apart, and in the
  rerun at rest after it; messages the page sends during the burst and after it;
- Play: rounds drawn a second, and plotly.js's own full redraws of the charts that follow
  the round, back to back in the same page (what the browser allows here);
- server time per step: the same step run by AppTest in-process (Python only).

With ``--cold`` the server starts with an empty numba cache (a new NUMBA_CACHE_DIR), as on
a new machine, and it prints instead: the seconds from the server's start to the first
chart, to the end of the background compile (the sidebar's progress gone) and each part's
compile time in the server (from its log); then each jitted function's compile time,
measured in a separate process with its own empty cache (``benchmarks.compile_report``).

The machine's load matters (2 CPUs here, shared); the load average is printed too.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import split_links
from explorer.process import APP, CHROMIUM, CHROMIUM_ARGS, ROOT, start_server, stop_process

N_TOTAL = 2500  # with the default validation share 0.2: 2,000 training points
# The links of the issue "every page and every kind of data steps in the browser", with
# the charts each draws: two classes on four pages, iris, a three-arm spiral of 16
# leaves, the sine staircase, the plane, Compare, Leaf maths and presenter mode
LINKS = {
    f"/?n={N_TOTAL}": 2, f"/tree?n={N_TOTAL}": 3, f"/sample?n={N_TOTAL}": 2,
    f"/curves?n={N_TOTAL}": 1, "/?data=iris": 2, "/tree?data=iris": 3,
    "/sample?data=iris": 2, "/tree?data=spiral&leaves=16&depth=8": 3,
    "/?data=sine&n=400": 1, "/tree?data=sine&n=400": 2, "/?data=plane&n=1000": 2,
    "/compare?n=1000": 3, "/leaf_maths?n=1000": 1, "/tree?n=1000&present=true": 3,
    # the Sweep page: its 4 x 4 sweep of moons (1,000 training points, 500 rounds: 16 maps,
    # the curves, the heat map) and a 5 x 1 sweep of iris (5 class maps, the curves)
    "/sweep?n=1250&rounds=500&sweep=lr:0.05,0.1,0.2,0.5&sweep2=depth:1,2,3,6": 18,
    "/sweep?data=iris&sweep=depth:1,2,3,4,6": 6,
}
ROUND_TITLES = """m => {
    const titles = [...document.querySelectorAll('.gtitle')].map(t => t.textContent);
    const rounds = titles.map(t => t.match(/(?:round|tree) (\\d+)/i)).filter(x => x);
    return rounds.length > 0 && rounds.every(x => Number(x[1]) === m);
}"""
CHARTS_DRAWN = ("[...document.querySelectorAll('.explorer-chart')]"
                ".filter(c => c.querySelector('.main-svg')).length")
# plotly.js redrawing every chart of the page from its current data as a new figure: the
# floor a step can reach (the same drawing, with no numbers to compute)
REDRAW = """async () => {
    const charts = """ + "[...document.querySelectorAll('.explorer-chart')].filter(gd => gd.__step)" + """;
    // copies with new identities (typed arrays stay typed): plotly.js takes them as new
    const figures = charts.map(gd => [structuredClone(gd.data), structuredClone(gd.layout)]);
    const start = performance.now();
    for (let i = 0; i < charts.length; i++) {
        await Plotly.react(charts[i], figures[i][0], figures[i][1]);
    }
    await new Promise(r => requestAnimationFrame(() => r()));
    return performance.now() - start;
}"""

# plotly.js's own drawing of the change from one round's figures to the next: the charts
# go back to the figures kept before the step (window.__before, untimed), then to copies of
# the ones on screen (timed). A step changes titles, shapes and axis ranges, which a redraw
# of unchanged figures does not: this is the floor for a step with nothing of ours in it.
KEEP = ("() => { window.__before = " + "[...document.querySelectorAll('.explorer-chart')]"
        ".filter(gd => gd.__step).map(gd => [structuredClone(gd.data), "
        "structuredClone(gd.layout)]); }")
CHANGE = """async () => {
    const charts = """ + "[...document.querySelectorAll('.explorer-chart')].filter(gd => gd.__step)" + """;
    const after = charts.map(gd => [structuredClone(gd.data), structuredClone(gd.layout)]);
    for (let i = 0; i < charts.length; i++) {
        await Plotly.react(charts[i], window.__before[i][0], window.__before[i][1]);
    }
    await new Promise(r => requestAnimationFrame(() => r()));
    const start = performance.now();
    for (let i = 0; i < charts.length; i++) {
        await Plotly.react(charts[i], after[i][0], after[i][1]);
    }
    await new Promise(r => requestAnimationFrame(() => r()));
    return performance.now() - start;
}"""

# A step timed in the page itself, as the redraw is: from the click on "Next round" to
# the frame after the charts are drawn (stepper.js says when with "explorer-drawn").
STEP_IN_PAGE = """async () => {
    const drawn = new Promise(r => document.addEventListener('explorer-drawn', r, {once: true}));
    const start = performance.now();
    document.querySelector('.explorer-stepper [data-go=next]').click();
    await drawn;
    await new Promise(r => requestAnimationFrame(() => r()));
    return performance.now() - start;
}"""
# Play for PLAY_SECONDS: how many rounds were drawn (stepper.js draws every round while
# playing, and says so with "explorer-drawn" after each), and how many distinct rounds.
PLAY_SECONDS = 3
PLAY = """async (seconds) => {
    const bar = document.querySelector('.explorer-stepper');
    let drawn = 0;
    const rounds = new Set();
    const on = () => { drawn++; rounds.add(bar.dataset.round); };
    document.addEventListener('explorer-drawn', on);
    bar.querySelector('[data-go=play]').click();
    const start = performance.now();
    await new Promise(r => setTimeout(r, 1000 * seconds));
    bar.querySelector('[data-go=play]').click();
    document.removeEventListener('explorer-drawn', on);
    return [drawn, rounds.size, (performance.now() - start) / 1000];
}"""
# the charts that follow the round in the browser (component.js marks them)
FOLLOWING = "[...document.querySelectorAll('.explorer-chart')].filter(gd => gd.__step)"
# plotly.js's own full redraws, back to back for that long, of the charts that follow the
# round (two copies of each one's data taken in turn, so that every array is new to it, as
# in REDRAW; between two redraws a frame and a task, as between two rounds of Play):
# redraws a second. Play keeps the arrays a round leaves unchanged, so it can beat this.
PLAY_FLOOR = """async (seconds) => {
    const charts = """ + FOLLOWING + """;
    const copies = [0, 1].map(() => charts.map(gd => [structuredClone(gd.data),
                                                       structuredClone(gd.layout)]));
    let drawn = 0;
    const start = performance.now();
    while (performance.now() - start < 1000 * seconds) {
        const figures = copies[drawn % 2];
        for (let i = 0; i < charts.length; i++) {
            await Plotly.react(charts[i], figures[i][0], figures[i][1]);
        }
        drawn++;
        await new Promise(r => requestAnimationFrame(() => setTimeout(r)));
    }
    return drawn / ((performance.now() - start) / 1000);
}"""
# Play's own cap, rounds a second, read from stepper.js's PLAY_MS
PLAY_CAP = 1000 / int(re.search(r"const PLAY_MS = (\d+);",
                                (ROOT / "explorer/browser/stepper.js").read_text()).group(1))


def next_round(page):
    """The round bar's next button: the browser's, or Streamlit's where it has none."""
    if page.locator(".explorer-stepper").count():
        return page.get_by_role("button", name="Next round", exact=True)
    return page.locator(".st-key-next button:visible").first


READY = "[data-testid=stApp][data-test-script-state=notRunning]"


def settled(page, sent: list) -> None:
    """Wait for a browser step's one rerun to come and go (asked 300 ms after the step is
    drawn; then the server runs the page and the browser draws what it sends), so that it
    does not fall into the next step's time. A fixed pause is too short for the Tree
    page, whose rerun redraws three charts."""
    before = len(sent)
    deadline = time.perf_counter() + 3
    while len(sent) == before and time.perf_counter() < deadline:
        page.wait_for_timeout(20)
    page.wait_for_timeout(100)
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(250)  # the browser draws the server's figures


FIRST_DRAWN = f"{CHARTS_DRAWN} >= 1"


def first_chart(browser, server, drawn: str = FIRST_DRAWN):
    """A new page at / until its first chart is drawn: (the page, seconds since the server
    process started)."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(300_000)
    page.goto(server.url + "/")
    page.wait_for_function(drawn, polling="raf")
    return page, time.perf_counter() - server.started


# The bare script's chart (Streamlit's own st.plotly_chart) has been drawn.
BARE_DRAWN = "document.querySelector('[data-testid=stPlotlyChart] .main-svg') !== null"
BARE_APP = Path(__file__).with_name("bare_chart.py")


def first_charts(browser, starts: int) -> tuple[float, float]:
    """Medians of the first chart (seconds from the server's start) of the app and of a bare
    Streamlit script drawing one small plotly chart, started alternately (which goes first
    alternates too: the browser's first page is slower)."""
    if starts < 1:
        raise ValueError("starts must be at least 1")
    times = {APP: [], BARE_APP: []}
    runs = ((APP, FIRST_DRAWN), (BARE_APP, BARE_DRAWN))
    for k in range(starts):
        for app, drawn in runs[::-1] if k % 2 else runs:
            server = start_server(Path(tempfile.mkdtemp()) / "streamlit.log", app=app)
            try:
                page, seconds = first_chart(browser, server, drawn)
                times[app].append(seconds)
                page.close()
            finally:
                stop_process(server.process)
    return statistics.median(times[APP]), statistics.median(times[BARE_APP])


def warm_numba_cache() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "explorer", "warmup"], cwd=ROOT, check=True,
                   capture_output=True)
    return time.perf_counter() - start


def cold_numbers() -> dict:
    """First chart and everything compiled, in seconds from the server's start, with an
    empty numba cache; the message the page showed at the first chart, the parts' compile
    times from the server's log. The page's progress must then go away."""
    from playwright.sync_api import sync_playwright
    from explorer.numbers.warmup import PARTS
    n = len(PARTS)
    out = {}
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as cache:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        log = Path(tempfile.mkdtemp()) / "streamlit.log"
        server = start_server(log, env={"NUMBA_CACHE_DIR": cache})
        try:
            page, out["first_chart_s"] = first_chart(browser, server)
            out["message"] = page.get_by_text("Compiling the").first.inner_text()
            while f"compiled part {n} of {n} " not in log.read_text():
                time.sleep(0.1)
            out["all_compiled_s"] = time.perf_counter() - server.started
            page.get_by_text("Compiling the").wait_for(state="detached")
            page.close()
        finally:
            stop_process(server.process)
            browser.close()
        out["parts"] = [line.split("explorer: compiled ", 1)[1]
                        for line in log.read_text().splitlines() if "explorer: compiled " in line]
    return out


def cold_main() -> None:
    from benchmarks.compile_report import measure, print_report
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    numbers = cold_numbers()
    print(f"first chart after server start (empty numba cache): {numbers['first_chart_s']:.2f} s")
    print(f"  the page said then: {numbers['message']}")
    print(f"everything compiled (the server logs its last part): "
          f"{numbers['all_compiled_s']:.2f} s after server start")
    for line in numbers["parts"]:
        print(f"  server: {line}")
    print(f"load average after the server: {os.getloadavg()[0]:.2f}\n")
    print_report(measure())


def traffic(page) -> list:
    """A list that grows with the size in bytes of every WebSocket message the server
    sends the page (listened to before the socket opens)."""
    got = []
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda p: got.append(len(p) if isinstance(p, (bytes, str)) else 0)))
    return got


AT_ROUND = """m => document.querySelector('.explorer-stepper')?.dataset.round === String(m)"""


def link_numbers(browser, server, link: str, charts: int, steps: int) -> dict:
    """Step speed against plotly.js's own redraw, and the server's traffic during a burst
    of 10 steps 120 ms apart and in the rerun at rest after it, on one link."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(120_000)
    sent = []  # messages to the server
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(1)))
    received = traffic(page)
    join = "&" if "?" in link else "?"
    page.goto(f"{server.url}{link}{join}round=10")
    page.wait_for_function(f"{CHARTS_DRAWN} >= {charts}")
    page.wait_for_function(AT_ROUND, arg=10)
    # a new fit's charts are drawn first and bound a moment later (component.bind_later)
    page.wait_for_function("!document.querySelector('.explorer-chart[data-binding]')")
    page.wait_for_timeout(2000)
    in_browser = page.evaluate(FOLLOWING + ".length") > 0
    times, redraws, changes = [], [], []
    for k in range(11, 11 + steps):
        if not in_browser:
            start = time.perf_counter()
            next_round(page).click(timeout=20_000)
            page.wait_for_function(ROUND_TITLES, arg=k, polling="raf")
            times.append(time.perf_counter() - start)
            continue
        page.evaluate(KEEP)
        times.append(page.evaluate(STEP_IN_PAGE) / 1000)  # timed in the page
        settled(page, sent)  # let its one rerun come and go
        # the redraw of this round's charts, between the steps: a slow spell of the
        # machine weighs on both sides of the ratio
        redraws.append(page.evaluate(REDRAW))
        changes.append(page.evaluate(CHANGE))
    times.sort()
    redraw = statistics.median(redraws or [page.evaluate(REDRAW) for _ in range(5)])
    page.wait_for_timeout(1500)
    k = 11 + steps
    before, bytes_before = len(sent), sum(received)
    for _ in range(10):
        page.keyboard.press("PageDown")
        page.wait_for_timeout(120)
    burst_kb = (sum(received) - bytes_before) / 1000
    burst = len(sent) - before
    page.wait_for_function(AT_ROUND, arg=k + 9)
    rest_from = sum(received)
    page.wait_for_timeout(2000)
    page.wait_for_selector(READY, state="attached")
    rest_kb = (sum(received) - rest_from) / 1000
    after = len(sent) - before - burst
    play = None
    if in_browser:  # the floor first: after Play a rerun comes (and redraws)
        floor = page.evaluate(PLAY_FLOOR, PLAY_SECONDS)
        drawn, distinct, seconds = page.evaluate(PLAY, PLAY_SECONDS)
        play = dict(rate=drawn / seconds, every=drawn == distinct, floor=floor)
    page.close()
    return dict(p50=statistics.median(times) * 1000, p90=times[int(0.9 * len(times))] * 1000,
                redraw=redraw, change=statistics.median(changes) if changes else None,
                in_browser=in_browser, burst=burst, after=after,
                burst_kb=burst_kb, rest_kb=rest_kb, play=play)


def browser_numbers(steps: int, links: dict, starts: int) -> dict:
    from playwright.sync_api import sync_playwright
    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if starts:
            out["first_chart_s"], out["bare_first_chart_s"] = first_charts(browser, starts)
        server = start_server(Path(tempfile.mkdtemp()) / "streamlit.log")
        try:
            for link, charts in links.items():
                try:
                    out[link] = link_numbers(browser, server, link, charts, steps)
                except Exception as error:  # one link's failure is reported, not fatal
                    out[link] = dict(error=str(error).splitlines()[0])
        finally:
            stop_process(server.process)
            browser.close()
    return out


def server_step_ms(steps: int) -> float:
    """The Model page step run in-process by AppTest (full script, Python side only)."""
    from streamlit.testing.v1 import AppTest
    from explorer.numbers.warmup import PARTS, compile_parts
    compile_parts(PARTS)
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.query_params["n"] = str(N_TOTAL)
    at.query_params["round"] = "10"
    at.run()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        at.button(key="next").click().run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--links", default="",
                        help="comma-separated links to measure (default: all of LINKS)")
    parser.add_argument("--starts", type=int, default=3,
                        help="server starts for the first chart (the median is printed; 0: "
                             "skip it)")
    parser.add_argument("--cold", action="store_true",
                        help="start with an empty numba cache: first chart, compile times")
    args = parser.parse_args()
    if args.cold:
        return cold_main()
    links = ({link: LINKS.get(link, 1) for link in split_links(args.links)}
             if args.links else LINKS)
    print(f"warm numba cache (separate process): {warm_numba_cache():.1f} s")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    numbers = browser_numbers(args.steps, links, args.starts)
    if args.starts:
        ours, bare = numbers["first_chart_s"], numbers["bare_first_chart_s"]
        print(f"first chart after server start (warm numba cache, median of {args.starts}): "
              f"{ours:.2f} s; a bare Streamlit script's st.plotly_chart of three points "
              f"(benchmarks/bare_chart.py, started in turn): {bare:.2f} s; ours / bare "
              f"{ours / bare:.2f}")
    print(f"{'link':40} {'step p50':>9} {'p90':>6} {'redraw':>7} {'ratio':>6} "
          f"{'change':>7} {'ratio':>6} {'burst kB':>9} {'rest kB':>8} {'msgs':>5}  play / floor")
    for link in links:
        n = numbers[link]
        if "error" in n:
            print(f"{link:40} failed: {n['error']}")
            continue
        where = "" if n["in_browser"] else "  (through the server)"
        play = n["play"]
        played = (f"{play['rate']:.1f}/s, {play['rate'] / min(play['floor'], PLAY_CAP):.2f}"
                  if play else "-")
        change = (f"{n['change']:7.0f} {n['p50'] / n['change']:6.2f}" if n["change"]
                  else f"{'-':>7} {'-':>6}")
        print(f"{link:40} {n['p50']:8.0f}ms {n['p90']:5.0f} {n['redraw']:6.0f} "
              f"{n['p50'] / n['redraw']:6.2f} {change} {n['burst_kb']:9.1f} {n['rest_kb']:8.1f} "
              f"{n['burst']:>2}+{n['after']:<2}  {played}{where}")
    print("  ratio: step p50 / plotly.js's own full redraw of the same charts; change, "
          "ratio: plotly.js's own draw of the change from the previous round's figures to "
          "these, and step p50 / it; msgs: "
          "messages to the server during the burst of 10 steps + after it; play / floor: "
          f"Play's rounds a second / min(plotly.js's back-to-back redraws, Play's cap {PLAY_CAP:g})")
    print(f"server-side step (AppTest, full script, Model page): "
          f"p50 {server_step_ms(min(args.steps, 15)):.0f} ms")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
