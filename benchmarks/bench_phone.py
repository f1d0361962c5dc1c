"""A student's phone (issue 46): the browser's step at 390 px with Chromium's processor
slowed 4x, as a mid-range phone, against plotly.js's own redraw in the same page; and each
page's first-load bytes, since students are often on mobile data.

    python -m benchmarks.bench_phone [--steps 10] [--rate 4] [--links /,/tree]

Starts the app (``explorer.process``; numba's disk cache warmed first in a separate
process), drives Debian's /usr/bin/chromium in the phone's emulation (390 x 844, scale 2,
mobile, touch, as tests/conftest.py's ``phone``) and prints, for each link of LINKS (the
default settings a shared lesson link opens, at round 10):

- first load: bytes over the network from a fresh private context (nothing cached) until
  the page's charts are drawn and the script has finished: HTTP responses as sent (after
  compression: Chrome's encodedDataLength) and the WebSocket's frames from the server;
  plotly.js's share of it apart. The throttle is off here: bytes do not depend on it;
- step p50 / p90 with the processor throttled (CDP Emulation.setCPUThrottlingRate): from
  the tap on Next (a click event, as bench_app's) until the charts that follow the round
  are drawn, timed in the page; plotly.js's own full redraw of the same charts from their
  current data as new figures, throttled the same, in the same page, after each step; and
  step / redraw (bench_app.py's measures, at a phone's width and speed).

The machine's load matters (2 CPUs here, shared): the load average is printed, and the
ratio, measured in one page between steps, is the figure to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks import split_links
from benchmarks.bench_app import (
    CHARTS_DRAWN,
    FOLLOWING,
    READY,
    REDRAW,
    STEP_IN_PAGE,
    settled,
    warm_numba_cache,
)
from explorer.process import CHROMIUM, CHROMIUM_ARGS, start_server, stop_process

PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
             has_touch=True)
# the pages a shared link opens, with the charts each draws at round 10
LINKS = {"/": 2, "/tree": 3, "/sample": 2, "/curves": 1, "/leaf_maths": 1, "/splits": 1,
         "/compare": 3, "/slides": 1, "/sweep": 6, "/?present=1": 2, "/tree?present=1": 3}
# every chart of the page drawn: ours and Streamlit's own (the Slides page's storyboard)
DRAWN = CHARTS_DRAWN.replace(".explorer-chart", ".js-plotly-plot")


def first_load(browser, url: str, charts: int) -> dict:
    """Bytes a first visit of ``url`` takes, in a fresh context: HTTP (as sent) and the
    WebSocket's frames from the server, until the page is drawn and still."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(300_000)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls, http, ws = {}, {}, []
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"],
                                                                    e["request"]["url"]))
    cdp.on("Network.loadingFinished",
           lambda e: http.__setitem__(e["requestId"], e["encodedDataLength"]))
    cdp.on("Network.webSocketFrameReceived",
           lambda e: ws.append(len(e["response"]["payloadData"])))  # base64 for binary
    page.goto(url)
    page.wait_for_function(f"{DRAWN} >= {charts}")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(2000)
    page.wait_for_selector(READY, state="attached")
    plotly = sum(n for rid, n in http.items() if "plotly" in urls.get(rid, ""))
    kinds = {}  # bytes by kind: Streamlit's scripts and styles, fonts, our blobs, ...
    for rid, n in http.items():
        u = urls.get(rid, "")
        kind = ("plotly.js" if "plotly" in u else "blobs" if "_explorer/blob" in u
                else "fonts" if u.endswith((".woff2", ".woff", ".ttf")) else
                "scripts" if u.endswith(".js") else "other")
        kinds[kind] = kinds.get(kind, 0) + n
    out = dict(http=sum(http.values()), plotly=plotly, kinds=kinds,
               ws=int(sum(ws) * 3 / 4))  # binary frames come base64-encoded: 4 chars, 3 bytes
    context.close()
    return out


def throttled_steps(browser, url: str, charts: int, steps: int, rate: float) -> dict:
    """Step p50 / p90 and plotly.js's redraw (ms), the processor slowed ``rate`` times."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(300_000)
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(1)))
    page.goto(url)
    page.wait_for_function(f"{DRAWN} >= {charts}")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(2000)
    if not page.evaluate(FOLLOWING + ".length"):  # no round bar, or charts the server draws
        context.close()
        return dict(in_browser=False)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    times, redraws = [], []
    for _ in range(steps):
        # the bar is drawn again by a rerun at rest: wait until it is there to tap
        page.wait_for_selector(".explorer-stepper [data-go=next]")
        times.append(page.evaluate(STEP_IN_PAGE))
        settled(page, sent)  # its one rerun at rest comes and goes
        redraws.append(page.evaluate(REDRAW))
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    context.close()
    times.sort()
    return dict(in_browser=True, p50=statistics.median(times),
                p90=times[int(0.9 * len(times))], redraw=statistics.median(redraws))


def main() -> None:
    from playwright.sync_api import sync_playwright
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rate", type=float, default=4.0,
                        help="Chromium's CPU throttling rate (4: a mid-range phone)")
    parser.add_argument("--links", default="", help="comma-separated links (default: LINKS)")
    args = parser.parse_args()
    links = ({link: LINKS.get(link, 1) for link in split_links(args.links)}
             if args.links else LINKS)
    print(f"warm numba cache (separate process): {warm_numba_cache():.1f} s")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    rows = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        server = start_server(Path(tempfile.mkdtemp()) / "streamlit.log")
        try:
            for link, charts in links.items():
                join = "&" if "?" in link else "?"
                url = f"{server.url}{link}{join}round=10"
                try:
                    rows[link] = dict(first_load(browser, url, charts),
                                      **throttled_steps(browser, url, charts, args.steps,
                                                        args.rate))
                except Exception as error:  # one link's failure is reported, not fatal
                    rows[link] = dict(error=str(error).splitlines()[0])
                print(link, rows[link], flush=True)
        finally:
            stop_process(server.process)
            browser.close()
    print(f"\n390 x 844 px, scale 2, touch; CPU throttled {args.rate:g}x for the steps")
    print(f"{'link':20} {'first load':>11} {'plotly.js':>10} {'scripts':>8} {'fonts':>6} "
          f"{'blobs':>6} {'websocket':>10} {'step p50':>9} {'p90':>6} {'redraw':>7} "
          f"{'ratio':>6}")
    for link, n in rows.items():
        if "error" in n:
            print(f"{link:20} failed: {n['error']}")
            continue
        steps = (f"{n['p50']:8.0f}ms {n['p90']:6.0f} {n['redraw']:7.0f} "
                 f"{n['p50'] / n['redraw']:6.2f}" if n["in_browser"]
                 else "   (through the server)")
        kinds = n["kinds"]
        print(f"{link:20} {n['http'] / 1e6:9.2f}MB {n['plotly'] / 1e6:8.2f}MB "
              f"{kinds.get('scripts', 0) / 1e6:8.2f} {kinds.get('fonts', 0) / 1e6:6.2f} "
              f"{kinds.get('blobs', 0) / 1e6:6.2f} {n['ws'] / 1e6:8.2f}MB {steps}")
    print("  first load: HTTP bytes as sent (compressed where the server compresses), "
          "plotly.js's, Streamlit's other scripts', the fonts' and the charts' blobs' "
          "shares of them (MB), and the WebSocket's frames from the server; ratio: "
          "step p50 / plotly.js's own full redraw of the same charts, both throttled")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
