"""The chart text check of the browser tests: chart_text.js loaded into a Playwright page
(the app's, or a blank one holding an exported SVG), and the pages, rounds, modes and
window widths it is run over."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

SCRIPT = Path(__file__).with_name("chart_text.js")
READY = "[data-testid=stApp][data-test-script-state=notRunning]"
DRAWN = ("[...document.querySelectorAll('.js-plotly-plot')]"
         ".filter(c => c.querySelector('.main-svg .gtitle, .main-svg .xtick')).length")

# page path -> (rounds to look at, charts drawn at a round >= 1, at round 0)
PAGES = {
    "/": ((0, 1, 10), 2, 2),
    "/tree": ((1, 10), 3, 0),
    "/sample": ((0, 1, 10), 2, 2),
    "/curves": ((0, 1, 10), 1, 1),
    "/leaf_maths": ((1, 10), 1, 0),
    "/splits": ((1, 10), 1, 0),
    "/compare": ((1, 10), 3, 3),
    "/slides": ((10,), 1, 1),  # a storyboard of its own rounds; the round bar is not used
}
WIDTHS = (1600, 1280)


def problems(page, tolerance: float = 1.5, least: float = 0) -> list[dict]:
    """Every chart of the page with its overlapping and cut-off texts, and with ``least``
    (px) its texts in a smaller font."""
    if not page.evaluate("typeof window.chartTextProblems === 'function'"):
        page.add_script_tag(path=str(SCRIPT))
    return page.evaluate(f"chartTextProblems({tolerance}, {least})")


# no chart of a new fit still waits for its bindings (explorer/app/component.py bind_later)
BOUND = "!document.querySelector('.explorer-chart[data-binding]')"


def settle(page, charts: int) -> None:
    """Wait until the script has run and ``charts`` graphs are drawn and still."""
    page.wait_for_selector(READY, state="attached")
    if charts:
        page.wait_for_function(f"{DRAWN} >= {charts}")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_function(BOUND)
    still(page)


def still(page) -> None:
    """Wait until every graph of the page keeps its width and title for three looks."""
    last, same = None, 0
    for _ in range(60):  # the component draws after the script has finished
        now = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map("
                            "g => g.getBoundingClientRect().width + ':' + (g._fullLayout || "
                            "{}).width + ':' + (g.querySelector('.gtitle') || {}).textContent"
                            ").join('|')")
        same = same + 1 if now == last else 0
        if same >= 3:
            return
        last = now
        page.wait_for_timeout(150)


def frames_sent(page) -> list:
    """A list that grows with every WebSocket message the page sends to the server; the
    page also notes when it sent each (for :func:`steps_sent`)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(1)))
    page.add_init_script("""(() => {
        const send = WebSocket.prototype.send;
        window.__sentAt = [];
        WebSocket.prototype.send = function (data) {
            window.__sentAt.push(performance.now());
            return send.call(this, data);
        };
    })()""")
    return sent


def now(page) -> float:
    """The page's clock (performance.now()), to take just before a step."""
    return page.evaluate("performance.now()")


def steps_sent(page, sent: list, since: float) -> int:
    """Messages the page sent within 300 ms of ``since`` (the page's clock just before its
    steps, all within one task): a step through the server is sent at once, while the round
    bar's one rerun at rest waits 300 ms after the last step, however busy the machine.
    ``sent`` is the page's :func:`frames_sent`: the page's own notes hold every message it
    counts (the page notes a message as it sends it, so it may be ahead)."""
    noted, within = page.evaluate("""t => [window.__sentAt.length,
        window.__sentAt.filter(x => x >= t && x < t + 300).length]""", since)
    assert noted >= len(sent) > 0, (noted, len(sent))
    return within


def received(page) -> list:
    """A list of the WebSocket messages the page receives from the server."""
    got = []
    page.on("websocket", lambda ws: ws.on("framereceived",
                                          lambda payload: got.append(payload)))
    return got


def quiet(page, sent: list, ms: int = 1500) -> None:
    """Wait until the page has sent nothing for ``ms`` (what a page sends as it settles
    after loading; on a busy machine it settles later), at most 20 s."""
    for _ in range(20_000 // ms):
        count = len(sent)
        page.wait_for_timeout(ms)
        if len(sent) == count:
            return


def press(page, key: str, times: int) -> float:
    """Press ``key`` ``times`` times within one task of the page, as a held key does on a
    quiet machine (on a busy one, Playwright's presses can come more than the round bar's
    300 ms apart, and the bar then asks for its rerun at rest between two of them).
    Returns the page's clock just before the first press, for :func:`steps_sent`."""
    return page.evaluate("""([key, times]) => {
        const t = performance.now();
        for (let i = 0; i < times; i++) {
            document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
        }
        return t;
    }""", [key, times])


def visit(page, base_url: str, path: str, m: int) -> list[dict]:
    """Open ``path`` at round m and check its charts."""
    page.goto(f"{base_url}{path}?round={m}")
    return checked(page, path, m)


def arrive(page, sent: list, path: str, m: int) -> list[dict]:
    """The charts of ``path``, just opened by its link in the navigation (the same session:
    its round is the page before's), checked at round m (:func:`reach`). ``sent`` is
    :func:`frames_sent`'s."""
    reach(page, sent, path, m)
    return _checked_at(page, path, m)


def step(page, sent: list, path: str, m: int) -> list[dict]:
    """The page's round bar moved to round m (:func:`move`), and its charts checked."""
    move(page, sent, path, m)
    return _checked_at(page, path, m)


def _checked_at(page, path: str, m: int) -> list[dict]:
    found = checked(page, path, m)
    assert query_round(page) == m, (path, m)  # the link names the round on screen
    return found


def query_round(page) -> int:
    """The round the page's link names (round 0 is the link without one)."""
    return int(parse_qs(urlsplit(page.url).query).get("round", ["0"])[0])


def checked(page, path: str, m: int) -> list[dict]:
    """The charts of ``path``, on screen at round m, checked once drawn and still."""
    rounds, charts, at_zero = PAGES[path]
    settle(page, charts if m else at_zero)
    # each chart is drawn as wide as its column, as the column is now, but a slide: it
    # names its file's width, and scrolls in its frame where the column is narrower
    gaps = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(g => "
                         "g.layout.width ? 0 : "
                         "Math.abs(g.getBoundingClientRect().width - g._fullLayout.width))")
    assert all(gap < 1.5 for gap in gaps), (path, m, gaps)
    return problems(page)


def reach(page, sent: list, path: str, m: int) -> None:
    """A page just opened by its navigation link, settled, then at round m: as it is if
    it is there (its round is the page before's), else moved there (:func:`move`)."""
    settle(page, 0)
    if query_round(page) != m:
        move(page, sent, path, m)


def move(page, sent: list, path: str, m: int) -> None:
    """The page's round bar moved to round m (:func:`drag`); then waits until the bar has
    asked for its rerun at rest (once the round is drawn), and for the run to start.
    ``sent`` is the page's :func:`frames_sent`."""
    count = len(sent)
    drag(page, m)
    until(page, lambda: len(sent) > count,
          lambda: f"{path}: no rerun asked for after the step to round {m}", seconds=10)
    page.wait_for_timeout(100)
    page.wait_for_selector(READY, state="attached")


# The round bar's slider: the browser's (stepper.js), or Streamlit's where the browser has
# none (a regression along one input steps through the server).
SLIDER = ("document.querySelector('.explorer-stepper input[type=range]')"
          " || document.querySelector('.st-key-round input[type=range]')")


def drag(page, m: int) -> None:
    """The round bar's slider moved to round m, as a drag of it does (if not there)."""
    page.evaluate(f"""m => {{ const s = {SLIDER};
        if (Number(s.value) !== m) {{ s.value = String(m); s.dispatchEvent(new Event('input')); }}
    }}""", m)


def until(page, ok, what, seconds: float = 30) -> None:
    """Poll ``ok()`` every 50 ms, the page's events served meanwhile, until it holds;
    fail with ``what()`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ok():
        assert time.monotonic() < deadline, what()
        page.wait_for_timeout(50)


def svg_problems(page, svg: bytes) -> list[dict]:
    """The check on an exported SVG file, shown alone in a blank page."""
    page.set_content("<!doctype html><html><body style='margin:0'>"
                     + svg.decode("utf-8") + "</body></html>")
    return problems(page)


def summary(found: list[dict]) -> list[str]:
    """One line per problem: the chart, then the texts that overlap or are cut off."""
    lines = []
    for chart in found:
        for a, b, depth in chart["overlaps"]:
            lines.append(f"{chart['chart']} ({chart['width']} px): {a} overlaps {b} by {depth} px")
        for a, past in chart["cut"]:
            lines.append(f"{chart['chart']} ({chart['width']} px): {a} is cut off by {past} px")
        for text, size in chart.get("small", []):
            lines.append(f"{chart['chart']} ({chart['width']} px): {text} is {size} px, too "
                         "small to read")
        for text in chart.get("broken", []):
            lines.append(f"{chart['chart']} ({chart['width']} px): a line break inside a "
                         f"sub- or superscript: {text!r}")
    return lines


# The Curves chart's camera clicked (the app's and the lesson file's), plotly.js's download
# watched: what the image is made of (the figure's title, the screen's, the file's options)
CAMERA = """() => new Promise((resolve) => {
    const gd = document.querySelector('.explorer-chart[data-view=curves]');
    const button = gd.querySelector('.modebar-btn[data-title="Download plot"]');
    if (!button) { resolve(null); return; }
    const original = Plotly.downloadImage;
    Plotly.downloadImage = (figure, options) => {
        Plotly.downloadImage = original;
        resolve({title: figure.layout.title.text, screen: gd.layout.title.text,
                 cameras: gd.querySelectorAll('.modebar-btn[data-title^="Download plot"]').length,
                 filename: options.filename, format: options.format});
        return original(figure, options);
    };
    button.click();
})"""
