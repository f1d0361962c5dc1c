"""The app in a real browser: Playwright driving Debian's /usr/bin/chromium against a
Streamlit server this test starts on a free port (fixtures in conftest.py): every page,
stepping, clicks on charts, the URL as the state, uploads, a screenshot, the mathematics
pages, presenter mode and a chart image download."""

from __future__ import annotations

import io
import json
import os
import shutil
import statistics
import time
from typing import NamedTuple
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from PIL import Image
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from apptest_helpers import PAGES
from chart_text import (BOUND, SLIDER, drag, frames_sent, now, press, quiet, received,
                        steps_sent, until)
from export_helpers import png_size

pytestmark = pytest.mark.browser

READY = "[data-testid=stApp][data-test-script-state=notRunning]"
CHARTS_DRAWN = ("[...document.querySelectorAll('.explorer-chart')]"
                ".filter(c => c.querySelector('.main-svg')).length")
GOOD_CSV = "".join(
    ["x;y;kind\n"] + [f"{(i * 37) % 100 / 10};{(i * 53) % 100 / 10};"
                      f"{'A' if ((i * 37) % 100) + ((i * 53) % 100) > 100 else 'B'}\n"
                      for i in range(200)])


def open_app(browser, server, path: str = "/", *, width: int = 1600, height: int = 1000,
             charts: int = 1):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(90_000)
    page.goto(server.url + path)
    wait_ready(page, charts)
    return page


# the round bar's module comes from the static folder, after the page's script
BAR_LOADED = ("!document.querySelector('.st-key-stepper') || "
              "document.querySelector('.explorer-stepper') !== null")


def wait_ready(page, charts: int = 1) -> None:
    page.wait_for_selector(READY, state="attached")
    if charts:
        page.wait_for_function(f"{CHARTS_DRAWN} >= {charts}")
        page.wait_for_function(BAR_LOADED)
        page.wait_for_function(BOUND)  # a new fit's charts step in the browser
    # the engine's background compile shows its progress in a fragment that reruns every
    # second until it ends: those reruns are not the page's
    page.get_by_text("Compiling the").first.wait_for(state="detached")
    page.wait_for_selector(READY, state="attached")


def follow_link(page, link) -> None:
    """Follow ``link`` (a locator of a page link) and wait until a run has begun after
    the click: the old page stays on screen (script at rest, charts drawn) until the new
    page's run, and the address changes only during that run (``switch_page`` waits for
    it). The link is clicked as a script would, so a link hidden in presenter mode is
    followed too.

    A run begins as a change of the app's script state from rest, or from a rerun
    requested: the page may be changed while a run is going (the round bar holds a link
    at most a few seconds), and then the new page's run follows the old one's with no rest
    between. Or it shows as the new address alone: a run whose start and end reach the
    page in one batch leaves the state where it was (React writes the last of the two).
    Each change is logged, for the message if none comes."""
    page.evaluate("""() => {
        window.__from = location.href;
        window.__switched = false;
        window.__switchLog = [];
        const app = document.querySelector('[data-testid=stApp]');
        new MutationObserver((records) => {
            for (const r of records) {
                window.__switchLog.push([r.oldValue, app.dataset.testScriptState,
                                         location.pathname]);
                // a run began, though it may have ended since
                if (r.oldValue === 'notRunning' || r.oldValue === 'rerunRequested')
                    window.__switched = true;
            }
        }).observe(app, { attributes: true, attributeOldValue: true,
                          attributeFilter: ['data-test-script-state'] });
    }""")
    link.dispatch_event("click")
    try:
        page.wait_for_function("() => window.__switched || location.href !== window.__from")
    except Exception as error:  # say what was seen, not only that the wait ran out
        seen = page.evaluate("""() => ({ at: location.href, log: window.__switchLog,
            state: document.querySelector('[data-testid=stApp]')?.dataset.testScriptState })""")
        raise AssertionError(f"the new page's run was not seen to begin: {seen}") from error


def switch_page(page, title: str) -> None:
    """Click the navigation's link to the page ``title`` and wait until that page's run has
    started."""
    follow_link(page, page.get_by_role("link", name=title, exact=True).first)
    page.wait_for_url(lambda url: title_of(urlparse(url).path) == title)


def title_of(path: str) -> str:
    """The navigation's name for the page at ``path`` (the Model page is at /)."""
    return path.strip("/").replace("_", " ").capitalize() or "Model"


def no_exception(page) -> None:
    errors = page.locator("[data-testid=stException]")
    assert errors.count() == 0, errors.all_inner_texts()
    assert page.locator("[role=dialog]").count() == 0  # e.g. "Page not found"


NAMES = {"first": "First round", "prev": "Previous round", "next": "Next round",
         "last": "Last round"}


def current_round(page) -> int:
    return int(page.evaluate(f"() => ({SLIDER}).value"))


def wait_round(page, m: int) -> None:
    page.wait_for_function(f"m => {{ const s = {SLIDER}; return s && Number(s.value) === m; }}",
                           arg=m)


def titles_at_round(page, m: int) -> None:
    """Wait until every chart title that names a round names round m (charts redrawn)."""
    page.wait_for_function(
        """m => {
            const titles = [...document.querySelectorAll('.gtitle')].map(t => t.textContent);
            const rounds = titles.map(t => t.match(/(?:round|tree) (\\d+)/i)).filter(x => x);
            return rounds.length > 0 && rounds.every(x => Number(x[1]) === m);
        }""", arg=m)


def button(page, key: str):
    """A button of the round bar by its job (first, prev, next, last, play), or the
    clickable twin of a keyed st.button."""
    page.wait_for_function(BAR_LOADED)
    if key in (*NAMES, "play") and page.locator(".explorer-stepper").count():
        if key == "play":
            return page.locator(".explorer-stepper [data-go=play]")
        return page.get_by_role("button", name=NAMES[key], exact=True)
    return page.locator(f".st-key-{key} button:visible").first


def query(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def wait_query(page, key: str, value: str) -> None:
    until(page, lambda: query(page).get(key) == value,
          lambda: f"URL never got {key}={value}: {page.url}")


def caption_text(page) -> str:
    return " ".join(page.locator("[data-testid=stCaptionContainer]").all_inner_texts())


# --- loading --------------------------------------------------------------------------


def test_the_page_preloads_plotly_js_and_the_chart_uses_that_copy(private_browser,
                                                                   app_server):
    """app.py's server names plotly.js in a Link header of every HTML page, so the browser
    of a first visit fetches it while Streamlit's frontend loads; the chart then runs that
    one copy."""
    page = private_browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    response = page.goto(app_server.url + "/tree?n=300&round=3")
    link = response.headers.get("link", "")
    assert "rel=preload" in link and "as=script" in link, link
    url = link.split(">")[0].lstrip("<")
    assert url.startswith("/app/static/plotly-") and url.endswith(".min.js"), url
    wait_ready(page, 3)
    fetches = page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(e => /plotly-.*\\.min\\.js/.test(e.name) || /BidiComponent/.test(e.name))
        .map(e => [e.name, e.startTime])""")
    plotly = [t for name, t in fetches if name.endswith(url)]
    assert len(plotly) == 1, fetches  # fetched once: the script tag used the preloaded copy
    assert all(plotly[0] < t for name, t in fetches if "BidiComponent" in name), fetches
    assert page.evaluate("typeof Plotly.react") == "function"
    page.close()


def test_first_page_loads_with_charts_and_no_exception(model_tab):
    page = model_tab.page
    no_exception(page)
    assert page.locator(".explorer-chart").count() >= 2
    assert current_round(page) == 0
    assert "Model after round 0" in page.inner_text("[data-testid=stMain]") or \
        page.locator(".gtitle", has_text="Model after round 0").count() == 1


# --- stepping -------------------------------------------------------------------------


def test_a_step_updates_the_charts_in_place(model_tab):
    """The speed of a step rests on this: the same plotly graphs are updated (react), not
    rebuilt, so no WebGL context is created again (software WebGL makes that slow)."""
    go_to(model_tab, 3)
    page = model_tab.page
    page.evaluate("""() => {
        document.querySelectorAll('.explorer-chart').forEach((d, i) => { d.__tag = i + 1; });
        window.__contexts = 0;
        const original = HTMLCanvasElement.prototype.getContext;
        HTMLCanvasElement.prototype.getContext = function (...args) {
            if (String(args[0]).includes('webgl')) window.__contexts += 1;  // not heatmaps' 2d
            return original.apply(this, args);
        };
    }""")
    for m in (4, 5):
        button(page, "next").click()
        titles_at_round(page, m)
    tags = page.evaluate("() => [...document.querySelectorAll('.explorer-chart')]"
                         ".map(d => d.__tag || 0)")
    assert tags and all(tags), f"a chart was rebuilt: {tags}"
    assert page.evaluate("() => window.__contexts") == 0
    no_exception(page)


BAR_STATE = "document.querySelector('.explorer-stepper').__state"


class Held:
    """The page's messages to the server, held back while ``on``, then sent in order
    (:meth:`release`): a server slow to take up what the page asks. Playwright's route of
    the page's WebSocket, set before the page loads (``install``); the server's messages
    pass as they come."""

    def __init__(self):
        self.on, self.kept, self.server = False, [], None

    def install(self, page) -> None:
        def route(ws):
            self.server = ws.connect_to_server()
            ws.on_message(lambda message: self.kept.append(message) if self.on
                          else self.server.send(message))
        page.route_web_socket("**/_stcore/stream", route)

    def wait(self, page, count: int) -> None:
        """Wait until ``count`` messages are held (a loaded machine draws a step late, and
        the bar sends its round at rest only after the drawing)."""
        until(page, lambda: len(self.kept) >= count, lambda: f"{len(self.kept)} of {count} held")

    def release(self, first: int | None = None) -> int:
        """Send what was held (only the ``first`` few, the rest still held), and hold no
        more (but with ``first``); returns how many were sent."""
        self.on = first is not None
        count = len(self.kept) if first is None else first
        kept, self.kept = self.kept[:count], self.kept[count:]
        for message in kept:
            self.server.send(message)
        return len(kept)


def test_the_curves_page_steps_by_keys_by_a_click_on_the_curve_and_by_play(app_server,
                                                                           browser):
    """One page: the round bar is named for what it does, PageDown and PageUp step the
    round, also where the server takes up the round 1.5 s late (a loaded server's; the
    bar's watchdog once took that for a lost session and loaded the page again, and a key
    pressed meanwhile was lost); a run for a round the bar has since stepped past leaves
    the bar's round in the link, and no entry in the history; a click on the train loss
    curve's marker of round 12 goes to round 12; Play runs the rounds until Pause stops
    them."""
    held = Held()
    page, sent = open_settled(browser, app_server, "/curves?rounds=30&round=5", 1,
                              before=held.install)
    page.evaluate("window.__loaded = 1")  # gone if the page is loaded again
    round_bar_named_and_stepped(page, 5)
    quiet(page, sent)  # round 6's rest sent and run: only what comes next is held
    wait_ready(page)
    held.on = True
    page.keyboard.press("PageUp")
    wait_round(page, 5)
    held.wait(page, 1)  # the round at rest
    page.wait_for_timeout(1500)
    assert held.release() == 1  # and nothing else
    page.keyboard.press("PageUp")  # a key pressed while the late run goes
    wait_round(page, 4)
    page.keyboard.press("PageDown")
    wait_round(page, 5)
    quiet(page, sent)  # the steps' rerun at rest is over
    wait_ready(page)
    assert page.evaluate("window.__loaded") == 1, "the page was loaded again"
    assert query(page)["round"] == "5"
    history = page.evaluate("history.length")
    held.on = True
    for k, m in enumerate((6, 7)):  # each round's rest: its round held back
        page.keyboard.press("PageDown")
        wait_round(page, m)
        held.wait(page, k + 1)
    renders = page.evaluate(f"() => {BAR_STATE}.renders")
    assert held.release(1) == 1  # the run for round 6 alone, the bar on round 7
    page.wait_for_function(f"n => {BAR_STATE}.renders > n", arg=renders)
    wait_ready(page)
    assert query(page)["round"] == "7" and current_round(page) == 7
    assert page.evaluate("history.length") == history
    assert held.release() == 1
    quiet(page, sent)
    wait_ready(page)
    assert query(page)["round"] == "7" and page.evaluate("history.length") == history
    # the train loss line's markers: click the one of round 12 where plotly listens
    point = page.locator(".st-key-chart_curves .scatterlayer .trace").first \
        .locator(".points path").nth(12)
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_round(page, 12)
    quiet(page, sent)
    wait_ready(page)
    button(page, "play").click()
    page.wait_for_function(f"() => Number(({SLIDER}).value) >= 15", timeout=30_000)
    button(page, "play").click()
    page.wait_for_selector(".explorer-stepper [data-go=play]:has-text('Play')")
    wait_ready(page)
    stopped = current_round(page)
    page.wait_for_timeout(2000)
    assert current_round(page) == stopped
    no_exception(page)
    page.close()


# --- the URL is the state -------------------------------------------------------------


def test_the_url_round_trips_the_state(app_server, browser):
    path = "/tree?data=circles&n=300&rounds=40&lr=0.2&depth=2&loss=exponential&round=12&sample=7"
    page = open_app(browser, app_server, path)
    assert current_round(page) == 12
    page.wait_for_selector(".gtitle:has-text('Tree 12')")
    caption = caption_text(page)
    assert "circles" in caption and "exponential, M = 40, ν = 0.2, depth ≤ 2" in caption
    assert page.locator(".st-key-data input").input_value() == "circles"
    button(page, "next").click()
    wait_round(page, 13)
    wait_query(page, "round", "13")
    q = query(page)
    assert q["data"] == "circles" and q["rounds"] == "40" and q["lr"] == "0.2"
    assert q["loss"] == "exponential" and q["sample"] == "7"
    # the copied link opens the same view in a fresh session
    copy = open_app(browser, app_server, page.url.replace(app_server.url, ""))
    assert current_round(copy) == 13
    copy.wait_for_selector(".gtitle:has-text('Tree 13')")
    assert caption_text(copy) == caption_text(page)
    no_exception(copy)
    copy.close()
    page.close()


# --- uploads --------------------------------------------------------------------------


def test_uploads_one_after_another_bad_good_and_large(app_server, browser, tmp_path):
    """One page, three files: a bad one shows a message and no chart; a good one then
    draws; a large one is then sampled and drawn."""
    import numpy as np
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,label\n" + "".join(f"{i},{i},same\n" for i in range(30)))
    good = tmp_path / "points.csv"
    good.write_text(GOOD_CSV)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40_000, 2)).round(4)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    large = tmp_path / "forty-thousand.csv"
    large.write_text("x1,x2,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    assert large.stat().st_size < 5 * 2**20
    page = open_app(browser, app_server, "/?data=upload", charts=0)
    assert page.locator("[data-testid=stAlert]").count() >= 1  # "Upload a CSV file ..."
    uploader = page.locator("[data-testid=stFileUploaderDropzoneInput]")

    uploader.set_input_files(str(bad))
    page.wait_for_selector("[data-testid=stAlert]:has-text('only one class')")
    no_exception(page)
    assert page.evaluate(CHARTS_DRAWN) == 0

    uploader.set_input_files(str(good))
    wait_ready(page, 2)
    assert "upload points.csv" in caption_text(page)
    no_exception(page)

    uploader.set_input_files(str(large))
    page.locator("[data-testid=stCaptionContainer]",
                 has_text="of 40,000 points (random sample, seed 0)").first.wait_for()
    wait_ready(page, 2)
    no_exception(page)
    assert page.evaluate(CHARTS_DRAWN) >= 2
    page.close()


# --- a screenshot ---------------------------------------------------------------------


def test_screenshot_is_not_blank(model_tab, tmp_path):
    go_to(model_tab, 8)
    page = model_tab.page
    page.wait_for_timeout(500)
    png = page.screenshot()
    (tmp_path / "model.png").write_bytes(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 22)
    assert len(colours) > 500, f"only {len(colours)} colours: blank page?"
    most = max(count for count, _ in colours)
    assert most / (image.width * image.height) < 0.9


# --- speed (measured and printed) -----------------------------------------------------


def test_step_latency_at_2000_points(app_server, browser):
    page = open_app(browser, app_server, "/?n=2500&valid=0.2&round=10", charts=2)
    titles_at_round(page, 10)
    times = []
    for k in range(11, 17):
        start = time.perf_counter()
        button(page, "next").click()
        titles_at_round(page, k)
        times.append(time.perf_counter() - start)
    print(f"\nstep to next round, Model page, N = 2000 training points: "
          f"median of 6 {statistics.median(times) * 1000:.0f} ms")
    no_exception(page)
    # Printed, not asserted: the time depends on the machine and its load (2 shared
    # CPUs, software WebGL here); benchmarks/bench_app.py measures every page.
    page.close()


# --- regression -----------------------------------------------------------------------


def _a_regression_renders_and_steps(page, path: str, charts: int) -> None:
    wait_ready(page, charts)
    no_exception(page)
    titles_at_round(page, 3)
    assert "squared-error" in caption_text(page)
    if "steps" in path:  # the staircase with one residual bar per training point
        bars = page.evaluate("document.querySelectorAll('.explorer-chart .bars .point')"
                             ".length")
        assert bars == 320
    button(page, "next").click()
    wait_round(page, 4)
    titles_at_round(page, 4)
    no_exception(page)
    assert query(page)["data"] == path.split("data=")[1].split("&")[0]


@pytest.mark.parametrize("path, charts", [("/?data=steps&round=3", 1),
                                          ("/?data=plane&round=3", 2)])
def test_a_regression_renders_and_steps(app_server, browser, path, charts):
    page = open_app(browser, app_server, path, charts=charts)
    _a_regression_renders_and_steps(page, path, charts)
    page.close()


def test_along_a_line_the_round_bar_is_named_and_the_tree_page_steps(app_server, browser):
    """A regression on one input (its steps are reruns): the round bar on the Model page,
    then the Tree page by its link."""
    page, _ = open_settled(browser, app_server, "/?data=sine&round=2", 1)
    round_bar_named_and_stepped(page, 2)
    switch_page(page, "Tree")  # at once: the link waits for the step's run to end
    _a_regression_renders_and_steps(page, "/tree?data=sine&round=3", 3)
    page.close()


# --- the mathematics pages and slides -------------------------------------------------


CHART_TITLES = "[...document.querySelectorAll('.explorer-chart .gtitle')].map(t => t.textContent)"


def test_browser_maths_pages_draw_and_step(browser, app_server):
    """Leaf maths opened by its link at round 3, then Splits and Compare by theirs: each
    draws its charts at the round on screen, and Next redraws them at the next round. Each
    link is followed at once after the step: the new page opens at the step's round."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(app_server.url + "/leaf_maths?round=3")
    for title, charts, m in (("Leaf maths", 1, 3), ("Splits", 1, 4), ("Compare", 3, 5)):
        if m > 3:
            switch_page(page, title)
        wait_ready(page, charts)
        no_exception(page)
        assert current_round(page) == m
        before = page.evaluate(CHART_TITLES)
        assert any(str(m) in t for t in before), (title, before)
        button(page, "next").click()
        wait_round(page, m + 1)
        page.wait_for_function(
            f"old => {{ const now = {CHART_TITLES}; return now.length && now.join('|') !== old; }}",
            arg="|".join(before))
        no_exception(page)
    page.close()


STORYBOARD = '.explorer-chart[data-view$="-storyboard"]'  # the Slides page's


def test_the_slides_page_draws_its_storyboard_and_its_png_button_downloads_it(
        browser, app_server, tmp_path):
    """The storyboard names its rounds; its PNG button downloads a slide of at least
    1920 px."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.set_default_timeout(120_000)
    page.goto(app_server.url + "/slides?rounds=20&round=3")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_selector(f"{STORYBOARD} .main-svg")
    no_exception(page)
    titles = page.evaluate(f"[...document.querySelectorAll('{STORYBOARD} .annotation-text')]"
                           ".map(t => t.textContent)")
    assert sum(t.startswith("round ") for t in titles) >= 3, titles
    with page.expect_download(timeout=120_000) as info:
        page.locator(".st-key-slides_png button:visible").click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.suffix == ".png" and path.name.startswith("boosting_")
    assert png_size(path.read_bytes())[0] >= 1920
    no_exception(page)
    page.close()


# --- presenter mode -----------------------------------------------------------------


def test_browser_presenter_mode_has_charts_and_no_controls(app_server, browser, tmp_path):
    from PIL import Image, ImageStat
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.set_default_timeout(120_000)
    page.goto(app_server.url + "/model?present=1&round=5")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_function("[...document.querySelectorAll('.explorer-chart, "
                           "[data-testid=stPlotlyChart]')].filter(c => "
                           "c.querySelector('.main-svg')).length >= 2")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=stException]").count() == 0
    # no controls: the sidebar (and its widgets) are hidden, the exit button is there
    assert not page.locator("[data-testid=stSidebar]").is_visible()
    assert page.locator(".st-key-n, .st-key-lr, .st-key-depth").filter(
        has=page.locator(":visible")).count() == 0
    assert page.locator(".st-key-present_exit button:visible").count() == 1
    assert page.locator(".st-key-first button:visible").count() == 0
    # larger type in the drawn charts than the screen's 15 px: 18 px, read from the back
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector("
                         "'.main-svg .xtick text')).fontSize)")
    assert size >= 18
    shot = tmp_path / "presenter.png"
    page.screenshot(path=str(shot))
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("L")
    assert image.size == (1600, 900)
    assert ImageStat.Stat(image).stddev[0] > 20  # not blank
    if os.environ.get("PRESENTER_SHOT"):  # keep the screenshot to look at
        shutil.copyfile(shot, os.environ["PRESENTER_SHOT"])
    page.close()


# --- stepping in the browser ----------------------------------------------------------


def open_settled(browser, server, path: str, charts: int, before=None):
    """A page at ``path`` with its ``charts`` drawn, once it has sent what a page sends as it
    settles after loading; and the list of the messages it sends from then on. ``before``:
    called with the page before it loads."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    sent = frames_sent(page)
    if before:
        before(page)
    page.goto(server.url + path)
    wait_ready(page, charts)
    quiet(page, sent)
    wait_ready(page)
    return page, sent


class Tab(NamedTuple):
    """A page, the messages it sends (:func:`frames_sent`) and those it receives."""
    page: object
    sent: list
    got: list


def open_tab(browser, server, path: str, charts: int) -> Tab:
    """``path`` opened and settled (:func:`open_settled`), its messages both ways noted."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    sent, got = frames_sent(page), received(page)
    page.goto(server.url + path)
    wait_ready(page, charts)
    quiet(page, sent)
    wait_ready(page)
    return Tab(page, sent, got)


# One tab of a page, opened by the first test of this file that asks for it and shared by
# the tests after it, in the file's order (pytest-xdist's loadfile keeps a file in one
# process). A page load costs Chromium 3-5 CPU-seconds, most of what a test of a step
# costs: so a test takes the tab where the test before it left it, goes to the round it
# needs (go_to), and a test that changes a setting comes last of its tab's.


@pytest.fixture(scope="module")
def model_tab(app_server, browser):
    """The Model page on the defaults, from round 0; the file's first test times it."""
    began = time.perf_counter()
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(300_000)  # a cold numba cache may still compile in the server
    sent, got = frames_sent(page), received(page)
    page.goto(app_server.url + "/")
    wait_ready(page, 2)
    first_chart = time.perf_counter() - app_server.started
    print(f"\nfirst chart {first_chart:.2f} s after the server process started (includes "
          f"warming numba in this process); the page's load {time.perf_counter() - began:.2f} s")
    page.set_default_timeout(90_000)
    quiet(page, sent)
    wait_ready(page)
    yield Tab(page, sent, got)
    page.close()


@pytest.fixture(scope="module")
def tree_tab(app_server, browser):
    tab = open_tab(browser, app_server, "/tree?round=3&n=600&leaf=-1&sample=11", 3)
    yield tab
    tab.page.close()


@pytest.fixture(scope="module")
def sample_tab(app_server, browser):
    tab = open_tab(browser, app_server, "/sample?round=4&n=600&sample=7", 2)
    yield tab
    tab.page.close()


@pytest.fixture(scope="module")
def curves_tab(app_server, browser):
    tab = open_tab(browser, app_server, "/curves?round=4&n=600", 1)
    yield tab
    tab.page.close()


def settled(tab: Tab) -> None:
    """Wait until the tab has sent nothing for 400 ms (the round bar asks for its rerun 300
    ms after the last step: the test before this one may have stepped last), and its run
    is over."""
    quiet(tab.page, tab.sent, 400)
    wait_ready(tab.page)


def go_to(tab: Tab, m: int) -> None:
    """The tab settled, then its round bar moved to round m, as a drag of its slider does,
    and the tab settled again (its rerun at rest over)."""
    settled(tab)
    if current_round(tab.page) == m:
        return
    before = len(tab.sent)
    drag(tab.page, m)
    wait_sent(tab.page, tab.sent, before + 1)
    settled(tab)
    titles_at_round(tab.page, m)


def wait_sent(page, sent: list, count: int) -> None:
    """Wait until the page has sent ``count`` messages, then until the run they ask for
    is over."""
    until(page, lambda: len(sent) >= count, lambda: f"only {len(sent)} of {count} messages sent",
          seconds=10)
    page.wait_for_timeout(100)
    wait_ready(page)


def _chart_element(message: bytes) -> bool:
    """Whether a message from the server is a chart's element (the component's own)."""
    msg = ForwardMsg.FromString(message)
    return (msg.WhichOneof("type") == "delta"
            and msg.delta.WhichOneof("type") == "new_element"
            and msg.delta.new_element.WhichOneof("type") == "bidi_component"
            and msg.delta.new_element.bidi_component.component_name.endswith("explorer_chart"))


def test_a_burst_of_steps_runs_in_the_browser_then_one_rerun_then_the_buttons_step(
        model_tab):
    page, sent, got = model_tab
    go_to(model_tab, 3)
    quiet(page, sent)
    wait_ready(page)
    loaded = len(got)
    # each chart's title as drawn: its lines, and the lines its figure's text has (the
    # server's, wrapped by Python; a title of one line has no line elements)
    lines = ("() => [...document.querySelectorAll('.explorer-chart')].map(g => ["
             "g.querySelector('.gtitle').querySelectorAll('.line').length, "
             "g.layout.title.text.split('<br>').length])")
    before = len(sent)
    # ten steps in a burst: a presenter's clicker, a held key
    began = press(page, "PageDown", 10)
    titles_at_round(page, 13)  # drawn here, from the record
    assert steps_sent(page, sent, began) == 0, "a step went to the server"
    drawn = page.evaluate(lines)  # titles keep the server's lines
    assert all(shown == (given if given > 1 else 0) for shown, given in drawn), drawn
    assert query(page)["round"] == "13"  # the link names the round on screen
    wait_sent(page, sent, before + 1)  # at rest: the one rerun, for the text
    page.wait_for_timeout(1000)
    assert len(sent) - before == 1
    # the rerun sends what changed; an unchanged element goes by its hash (Streamlit's
    # message cache, .streamlit/config.toml): the charts' elements are not sent again
    charts = [len(m) for m in got[loaded:] if _chart_element(m)]
    assert sum(_chart_element(m) for m in got[:loaded]) >= 2 and not charts, charts
    assert "Round 13" in page.locator(".explorer-round").inner_text()
    assert "13" in " ".join(page.locator("[data-testid=stCaptionContainer]").all_inner_texts())
    no_exception(page)
    # then the bar's buttons: next and previous, last and first
    button(page, "next").click()
    wait_round(page, 14)
    titles_at_round(page, 14)
    wait_query(page, "round", "14")
    assert "Round 14" in page.locator(".explorer-round").inner_text()
    button(page, "prev").click()
    wait_round(page, 13)
    titles_at_round(page, 13)
    button(page, "last").click()
    wait_round(page, 100)
    button(page, "first").click()
    wait_round(page, 0)
    wait_ready(page, 2)
    no_exception(page)


def test_what_the_browser_draws_is_what_the_server_draws(model_tab):
    """The probability map and its boundary stepped in the browser equal the server's
    figure of the same round, which replaces them after the rerun."""
    go_to(model_tab, 5)
    page, sent, _ = model_tab
    before = len(sent)
    for _ in range(3):
        page.keyboard.press("PageDown")
    titles_at_round(page, 8)
    # what plotly draws (its full data: the server's typed arrays decoded)
    read = """() => { const data = document.querySelector('.explorer-chart')._fullData;
        const z = [];
        for (const row of data[0].z) z.push(...Array.from(row));
        const points = [2, 3].map(k => Array.from(data[k].customdata, c => Array.from(c)));
        return JSON.stringify({z, bx: Array.from(data[1].x), by: Array.from(data[1].y),
                               points}); }"""
    mine = json.loads(page.evaluate(read))
    wait_sent(page, sent, before + 1)
    titles_at_round(page, 8)
    server = json.loads(page.evaluate(read))
    assert mine["bx"] == server["bx"] and mine["by"] == server["by"]  # the boundary: exact
    z_mine, z_server = np.array(mine["z"]), np.array(server["z"])
    assert z_mine.shape == z_server.shape
    # p = sigmoid(F) of the same F; the server's p is sent as float32
    assert np.abs(z_mine - z_server).max() < 1e-6
    # the points keep their sample numbers (a click selects one) and show this round's p
    for mine_k, server_k in zip(mine["points"], server["points"]):
        mine_k, server_k = np.array(mine_k), np.array(server_k)
        assert mine_k.shape == server_k.shape and len(mine_k) > 100
        assert (mine_k[:, 0] == server_k[:, 0]).all()
        assert np.abs(mine_k[:, 1] - server_k[:, 1]).max() < 1e-6


# What a chart draws, as plotly.js holds it (the server's typed arrays decoded): its traces,
# shapes, annotations, title, size and colour ranges.
DRAWN = """view => {
    const gd = document.querySelector(`.explorer-chart[data-view=${view}]`);
    const L = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(L) : v;
    const fl = gd._fullLayout;
    return JSON.stringify({
        title: fl.title.text, height: fl.height, margin: [fl.margin.t, fl.margin.b],
        shapes: fl.shapes.map(s => [s.x0, s.x1, s.y0, s.y1, s.fillcolor, s.layer, s.opacity,
                                    s.line.color, s.line.width]),
        notes: fl.annotations.map(a => [a.text, a.x, a.y, a.visible, a.bgcolor, a.bordercolor,
                                        a.borderwidth, a.font && a.font.size]),
        colour: [fl.coloraxis && fl.coloraxis.cmin, fl.coloraxis2 && fl.coloraxis2.cmax],
        axes: [fl.xaxis.range, fl.yaxis.range],
        data: gd._fullData.map(t => ({name: t.name, x: L(t.x), y: L(t.y), z: L(t.z),
            customdata: L(t.customdata), hovertext: L(t.hovertext),
            color: L(t.marker && t.marker.color), cmin: t.marker && t.marker.cmin,
            cmax: t.marker && t.marker.cmax})),
    });
}"""
TREE_VIEWS = ("regions", "update", "tree")


@pytest.mark.parametrize("path", ["tree_tab",
                                  "/tree?round=2&n=300&subsample=0.5&depth=4&sample=3"])
def test_the_tree_page_steps_in_the_browser_as_the_server_draws(app_server, browser, request,
                                                                path):
    """Tree m's regions, the update and the diagram follow the round in the browser (no
    message to the server while stepping), and what they draw equals the server's figures
    of the same round, which replace them after the one rerun. On the shared Tree page
    (n = 600, leaf -1, sample 11), and on subsamples of 300 points."""
    own = path.startswith("/")
    tab = open_tab(browser, app_server, path, 3) if own else request.getfixturevalue(path)
    settled(tab)
    page, sent, _ = tab
    start = current_round(page)
    regions = "document.querySelector('.explorer-chart[data-view=regions]')"
    for step in range(3):
        before = len(sent)
        page.evaluate(f"() => {{ const gd = {regions}; gd.__calcdata = gd.calcdata; }}")
        began = now(page)
        if step == 1:
            button(page, "next").click()
        else:
            page.keyboard.press("PageDown")
        m = start + step + 1
        titles_at_round(page, m)  # drawn here, from the record
        assert steps_sent(page, sent, began) == 0, "a step went to the server"
        if "subsample" not in path:  # the same points: the boxes and labels alone redrawn
            assert page.evaluate(f"() => {{ const gd = {regions}; "
                                 "return gd.__calcdata === gd.calcdata; }")
        mine = {view: json.loads(page.evaluate(DRAWN, view)) for view in TREE_VIEWS}
        wait_sent(page, sent, before + 1)  # at rest: the one rerun brings the server's
        titles_at_round(page, m)
        for view in TREE_VIEWS:
            server = json.loads(page.evaluate(DRAWN, view))
            for key in server:
                assert mine[view][key] == server[key], (m, view, key)
    no_exception(page)
    if own:
        page.close()


# every label plotly.js measures (it measures a label it has not drawn before, and keeps
# the size): plotly.js's bBox copies the label into its tester and reads its box
LABELS_MEASURED = """() => {
    const box = Element.prototype.getBoundingClientRect;
    window.__measured = [];
    Element.prototype.getBoundingClientRect = function () {
        const text = this.getAttribute && this.getAttribute('data-unformatted');
        if (text !== null && this.closest && this.closest('#js-plotly-tester')) {
            window.__measured.push(text);
        }
        return box.call(this);
    };
}"""


def round_bar_named_and_stepped(page, m: int) -> None:
    """The round bar is named for what it does: each control's name, with its key in its
    title, and no key names as labels. PageDown then steps it from round m to m + 1, in
    the link too. The same bar, named the same, on a page whose charts follow the round
    in the browser (Curves) and on pages whose steps are reruns (one input along a line;
    three classes on the Model page)."""
    for key, name in NAMES.items():
        control = page.get_by_role("button", name=name, exact=True)
        assert control.count() == 1
        assert control.get_attribute("title").startswith(name + " (")  # with its key
    assert page.get_by_role("button", name="Play", exact=True).count() == 1
    assert page.get_by_role("slider", name="Round m").count() == 1
    assert page.locator("text=PageDown").count() == 0  # no key names as labels
    page.keyboard.press("PageDown")
    wait_round(page, m + 1)
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('round') === "
                           f"'{m + 1}'")
    wait_ready(page, 1)
    no_exception(page)


# round m's markers and rules, as plotly.js holds them; and whether the chart's traces were
# recomputed (plotly.js makes a new calcdata when it does)
MARKS = """key => {
    const gd = [...document.querySelectorAll('.explorer-chart')]
        .find(g => g.__step && ['curves', 'trajectory'].includes(g.dataset.view));
    const same = gd.__calcdata === gd.calcdata;
    gd.__calcdata = gd.calcdata;
    return JSON.stringify({same, title: gd._fullLayout.title.text,
        shapes: gd._fullLayout.shapes.map(s => [s.type, s.x0, s.x1, s.xanchor, s.yanchor,
                                                s.xref, s.yref])});
}"""


@pytest.mark.parametrize("tab", ["curves_tab", "sample_tab"])
def test_a_rounds_markers_move_in_the_browser_as_the_server_draws_them(request, tab):
    """The loss curves' and a sample's markers (and the round's rule) follow the round in
    the browser by a layout change alone: plotly.js recomputes none of the chart's traces.
    They land where the server's figure of that round puts them."""
    shared = request.getfixturevalue(tab)
    settled(shared)
    page, sent, _ = shared
    page.evaluate(MARKS)  # remember the traces' computed data
    start = current_round(page)
    for m in (start + 1, start + 2):
        before = len(sent)
        began = now(page)
        page.keyboard.press("PageDown")
        titles_at_round(page, m)
        mine = json.loads(page.evaluate(MARKS))
        assert steps_sent(page, sent, began) == 0, "a step went to the server"
        assert mine["same"], "the step recomputed the chart's traces"
        circles = [s for s in mine["shapes"] if s[0] == "circle"]
        assert circles and all(s[3] == m for s in circles)
        wait_sent(page, sent, before + 1)  # at rest: the server's figure of round m
        titles_at_round(page, m)
        server = json.loads(page.evaluate(MARKS))
        assert mine["shapes"] == server["shapes"] and mine["title"] == server["title"]
        page.evaluate(MARKS)
    no_exception(page)


# the tests that change a setting of a shared tab: the last of its tests


def test_a_setting_changed_at_once_after_a_step_keeps_the_step(model_tab):
    """Next, then at once a setting in the sidebar, two mouse clicks a few milliseconds
    apart: the page settles at the stepped round with the setting on, though the bar
    sends a step only once stepping rests (300 ms on) and the setting's rerun is asked
    for first. (The last test of the shared Model page: it changes a setting.)"""
    go_to(model_tab, 3)
    page = model_tab.page
    toggle = page.locator(".st-key-showvalid label").first
    toggle.scroll_into_view_if_needed()
    at = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
          for b in (button(page, "next").bounding_box(), toggle.bounding_box())]
    for x, y in at:
        page.mouse.click(x, y)
    wait_query(page, "showvalid", "true")
    page.wait_for_timeout(600)  # past the bar's rest, when a lost step would show
    wait_ready(page, 2)
    assert current_round(page) == 4
    titles_at_round(page, 4)
    assert query(page).get("round") == "4", page.url
    no_exception(page)


def test_clicking_a_point_selects_the_sample(sample_tab):
    settled(sample_tab)
    page = sample_tab.page
    target = page.evaluate("""() => {
        const gd = document.querySelector('.st-key-chart_sample_map .js-plotly-plot');
        const trace = gd._fullData.find(t => t.type === 'scattergl');
        const k = 5, xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const box = gd.getBoundingClientRect();
        return {i: trace.customdata[k][0],
                x: box.left + xa._offset + xa.l2p(trace.x[k]),
                y: box.top + ya._offset + ya.l2p(trace.y[k])};
    }""")
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function(
        "i => [...document.querySelectorAll('.gtitle')].some("
        "t => t.textContent.startsWith('Sample #' + i + ' '))", arg=int(target["i"]))
    wait_query(page, "sample", str(int(target["i"])))
    wait_ready(page, 2)
    no_exception(page)


def test_clicking_a_leafs_label_selects_the_leaf(tree_tab):
    """On tree m's regions, a click on a leaf's label (named label:<node>) selects that
    leaf, as the leaf picker would. (The shared Tree page's last test: the leaf is a
    setting.)"""
    settled(tree_tab)
    page = tree_tab.page
    regions = page.locator(".explorer-chart[data-view=regions]")
    index, node = page.evaluate("""() => {
        const gd = document.querySelector('.explorer-chart[data-view=regions]');
        const notes = gd.layout.annotations;
        const j = notes.findIndex(a => /^label:\\d+$/.test(a.name || '') && a.opacity !== 0);
        return [j, Number(notes[j].name.slice(6))];
    }""")
    regions.locator(f".annotation[data-index='{index}'] .annotation-text").click()
    wait_query(page, "leaf", str(node))
    wait_ready(page, 3)
    # the selected leaf's box gets its thick outline, its label a border
    notes = page.evaluate("() => document.querySelector('.explorer-chart[data-view=regions]')"
                          "._fullLayout.annotations.map(a => [a.name, a.borderwidth])")
    assert [f"label:{node}", 2] in notes
    no_exception(page)


# three classes: an upload with ";" separators, and each page's route and chart count
THREE_KINDS_CSV = "x;y;kind\n" + "".join(
    f"{(i * 37) % 100 / 10};{(i * 53) % 100 / 10 + 4 * (i % 3)};{('ant', 'bee', 'cow')[i % 3]}\n"
    for i in range(150))
ROUTES = {"pages/model.py": ("/", 2), "pages/tree.py": ("/tree", 3),
          "pages/sample.py": ("/sample", 2), "pages/curves.py": ("/curves", 1)}


def test_a_three_class_toy_renders_on_every_page(app_server, browser):
    """Opened on the Model page, where the round bar steps through the server, then each
    page by its link in the navigation."""
    page, _ = open_settled(browser, app_server, "/?data=blobs&rounds=8&round=3", 2)
    round_bar_named_and_stepped(page, 3)
    m = 4
    for page_file, (path, charts) in ROUTES.items():
        if path != "/":
            if m == 4:  # a step and a page link at once: the new page opens at the step
                page.keyboard.press("PageDown")
                m = 5
            switch_page(page, title_of(path))
            wait_ready(page, charts)
        no_exception(page)
        wait_query(page, "data", "blobs")  # the new page's run names its state in the link
        wait_query(page, "round", str(m))
        assert "class 2" in page.inner_text("[data-testid=stMain]") or page.locator(
            ".legendtext", has_text="class 2").count() >= 1 or "curves" in path, page_file
    assert set(ROUTES) == set(PAGES)
    page.close()


def test_a_three_class_upload_steps_and_opens_every_page(app_server, browser, tmp_path):
    csv = tmp_path / "three.csv"
    csv.write_text(THREE_KINDS_CSV)
    page = open_app(browser, app_server, "/?data=upload&rounds=8", charts=0)
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(str(csv))
    wait_ready(page, 2)
    assert "upload three.csv" in caption_text(page)
    assert page.locator(".legendtext", has_text="class cow").count() >= 1
    button(page, "next").click()
    wait_round(page, 1)
    titles_at_round(page, 1)
    no_exception(page)
    for title in ("Tree", "Sample", "Curves", "Leaf maths", "Splits", "Compare", "Slides"):
        switch_page(page, title)
        wait_ready(page, 0)
        no_exception(page)
        assert "upload three.csv" in caption_text(page)
    page.close()
