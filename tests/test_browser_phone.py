"""Issue 46: a shared link on a phone (390 px) and a tablet (768 px), by touch, in the
phone's context (conftest.py's ``phone``: mobile, touch, scale 2).

- A link opens its page with the sidebar closed and the chart first; the page links sit
  at the top of the sidebar, and a tap on one opens its page.
- Every page, presenter mode and the offline lesson file, each opened once (the app's
  pages in one tab, by the navigation's links but two), at rounds 1 and 10 at both
  widths (the window resized, the rounds reached with the round bar): no chart text on
  other text, none cut off, none under 12 px (tests/chart_text.js); every control of the
  round bar visible and at least 44 x 44 px; the page no wider than the window; a
  one-finger swipe on a chart (at each width's first round) scrolls the page and leaves
  every chart's axes as they were; a tap on Next steps in the browser, with no message to
  the server, to the server's figure (the lesson file's: Python's).
"""

from __future__ import annotations

import json
import re

import chart_text as ct
import pytest
from apptest_helpers import chart_payloads, charts, open_page
from test_bindings import canonical
from test_browser import no_exception, switch_page, title_of
from test_browser_bindings import DRAWN, _page_and_query
from test_interactive import data_of, lesson

from explorer.export import interactive
from explorer.figures import pages

pytestmark = pytest.mark.browser

LEAST = 12  # px: the smallest chart text a phone shows
PHONE, TABLET = {"width": 390, "height": 844}, {"width": 768, "height": 1024}
# link -> charts drawn at round >= 1 (ct.PAGES's, and the Sweep page's five cells and
# curves); presenter mode on the page with the most text
LINKS = {**{path: counts[1] for path, counts in ct.PAGES.items()},
         "/sweep": 6, "/tree?present=1": 3}
NO_BAR = ("/slides",)  # a storyboard of its own rounds: the page has no round bar
CONTROLS = ".explorer-stepper button, .explorer-stepper input[type=range]"
# every control of the bar: [what it is, width, height, visible within the window's width]
SIZES = f"""() => [...document.querySelectorAll('{CONTROLS}')].map(e => {{
    const b = e.getBoundingClientRect();
    return [e.dataset.go || e.type, b.width, b.height,
            b.left >= 0 && b.right <= innerWidth && getComputedStyle(e).visibility === 'visible'];
}})"""
WIDER = "() => document.documentElement.scrollWidth - innerWidth"
# the page's scroll: Streamlit scrolls its main block, the lesson file the document
SCROLLER = ("() => { const m = document.querySelector('[data-testid=stMain]'); "
            "return m && m.scrollHeight > m.clientHeight ? m : document.scrollingElement; }")
SCROLLED = f"() => ({SCROLLER})().scrollTop"
ROOM_BELOW = f"() => {{ const s = ({SCROLLER})(); return s.scrollHeight - s.clientHeight - s.scrollTop; }}"
RANGES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(g =>
    Object.keys(g._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k))
        .map(k => (g._fullLayout[k].range || []).join(',')).join(';'))"""
AT = "() => document.querySelector('.explorer-stepper')?.dataset.round"


def bar_problems(page, where: str) -> list[str]:
    sizes = page.evaluate(SIZES)
    found = []
    if sorted(name for name, *_ in sizes) != sorted(
            ["first", "prev", "next", "last", "play", "range"]):
        found.append(f"{where}: the round bar's controls are {sizes}")
    found += [f"{where}: {name} is {width:.0f} x {height:.0f} px, visible {inside}"
              for name, width, height, inside in sizes
              if not (width >= 44 and height >= 44 and inside)]
    return found


def swipe(page, cdp, x: float, y: float, dy: float) -> None:
    """One finger moved ``dy`` px (negative: up, as a student scrolls down the page)."""
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * k / 10}]})
        page.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)


def swipe_problems(page, cdp, where: str) -> list[str]:
    """A swipe on the first chart's plotting area, whichever way the page has room to
    scroll: the page scrolls by most of it, and no chart's axes move."""
    page.evaluate("() => document.querySelector('.js-plotly-plot .nsewdrag')"
                  ".scrollIntoView({block: 'center'})")
    page.wait_for_timeout(150)
    x, y = page.evaluate("""() => {
        const b = document.querySelector('.js-plotly-plot .nsewdrag').getBoundingClientRect();
        const left = Math.max(b.left, 0), right = Math.min(b.right, innerWidth);
        return [(left + right) / 2, Math.min(Math.max(b.top + b.height / 2, 230), innerHeight - 230)];
    }""")
    if page.evaluate(ROOM_BELOW) < 150 and page.evaluate(SCROLLED) < 150:
        # a page that fits the window (the lesson file's Curves) has nothing to scroll: room
        # below it, so that the swipe shows whether the chart lets the page scroll
        page.evaluate(f"""() => {{ const s = ({SCROLLER})(), room = document.createElement('div');
            room.style.cssText = 'height: 1000px; min-height: 1000px; flex: none';
            (s === document.scrollingElement ? document.body : s).appendChild(room); }}""")
    dy = -200 if page.evaluate(ROOM_BELOW) >= 150 else 200
    before, ranges = page.evaluate(SCROLLED), page.evaluate(RANGES)
    swipe(page, cdp, x, y, dy)
    moved = page.evaluate(SCROLLED) - before
    found = []
    if moved * -dy < 100 * 200:
        found.append(f"{where}: a swipe of {dy} px scrolled the page {moved:.0f} px")
    if page.evaluate(RANGES) != ranges:
        found.append(f"{where}: a swipe moved a chart's axes")
    return found


def page_problems(page, cdp, where: str, bar: bool = True, swipe: bool = True) -> list[str]:
    """Everything checked at one width and round, but the tap on Next; the swipe only
    where ``swipe`` (once a width: what a swipe does is the charts' configuration and
    the page's, the same at every round, and a swipe is a quarter of a test's time)."""
    found = [f"{where}: {line}" for line in ct.summary(ct.problems(page, least=LEAST))]
    if bar:
        found += bar_problems(page, where)
    wider = page.evaluate(WIDER)
    if wider > 0:
        found.append(f"{where}: the page is {wider} px wider than the window")
    return found + (swipe_problems(page, cdp, where) if swipe else [])


def tap_next(page, sent, m: int) -> list[dict]:
    """A tap on Next at round m - 1: round m drawn in the browser, with no message to the
    server within the bar's rest where the page's charts follow the round in the browser
    (sent is ct.frames_sent's list; None in the lesson file); returns the charts as drawn
    (none on a page whose charts the server draws, as the Splits page's)."""
    following = page.evaluate("() => [...document.querySelectorAll('.explorer-chart')]"
                              ".some(gd => gd.__step)")
    if sent is not None:  # the last rerun at rest over, and its answer drawn
        page.wait_for_selector(ct.READY, state="attached")
        ct.quiet(page, sent, 600)
    began = ct.now(page)
    page.locator(".explorer-stepper [data-go=next]").tap()
    page.wait_for_function(f"() => ({AT})() === '{m}'")
    if sent is None:
        page.wait_for_function("m => document.documentElement.dataset.drawn === String(m)",
                               arg=m)
    elif following:
        page.wait_for_function("() => document.documentElement.dataset.warmed !== undefined")
        assert ct.steps_sent(page, sent, began) == 0, "a tap went to the server"
    return json.loads(page.evaluate(DRAWN)) if following else []


def against_the_server(link: str, m: int, mine: list) -> list[str]:
    """The charts the browser drew at round m against the same link's figures made by the
    app in this process (AppTest, the bindings applied in Python); on a touch screen the
    chart is drawn without a drag mode (theme.TOUCH), which is no part of the figure."""
    name, query = _page_and_query(link)
    at = open_page(name, **query, round=m)
    served = dict(zip([p["view"] for p in chart_payloads(at)], charts(at)))
    return [f"{link} at round {m}: {chart['view']} is not the server's figure"
            for chart in mine
            if canonical(chart["data"]) != canonical(served[chart["view"]]["data"])
            or canonical(chart["layout"]) != canonical(served[chart["view"]]["layout"])]


def test_a_shared_link_opens_its_page_with_the_links_behind_the_sidebar(app_server, phone):
    page = phone.new_page()
    page.set_default_timeout(120_000)
    page.goto(app_server.url + "/tree?round=1")
    ct.settle(page, LINKS["/tree"])
    link = page.get_by_role("link", name="Sample", exact=True)
    box = link.bounding_box()
    assert box is None or box["x"] + box["width"] <= 0, box  # off screen, with the sidebar
    chart = page.locator(".explorer-chart").first.bounding_box()
    assert chart["y"] < PHONE["height"], chart  # the chart first: its top on the first screen
    # the page links: at the top of the sidebar, opened by the header's button
    page.locator("[data-testid=stExpandSidebarButton]").tap()
    page.wait_for_function("el => el.getBoundingClientRect().left >= 0",
                           arg=link.element_handle())
    box = link.bounding_box()
    assert box["x"] >= 0 and box["y"] + box["height"] < PHONE["height"], box
    link.tap()
    page.wait_for_url("**/sample**")
    ct.settle(page, LINKS["/sample"])
    no_exception(page)
    assert not bar_problems(page, "/sample, opened by its link")
    page.close()


# the walk's order: the pages opened by their links, and the rest by the navigation's
LOADED = ("/slides", "/tree?present=1")
WALK = ("/slides", *(link for link in LINKS if link not in LOADED), "/tree?present=1")


def test_every_page_on_a_phone_and_a_tablet(app_server, phone):
    """Two page loads: the Slides page's link, then each page by the navigation's link from
    the one before, as a student moves between them (the session, its round kept), then
    presenter mode's link. Each page: rounds 1 and 10 at 390 px, then 10 and 1 at 768 px;
    a tap on Next at each width (against the server's figures at 390 px)."""
    page = phone.new_page()
    page.set_default_timeout(120_000)
    page.add_init_script("window.__explorerTest = true")  # keep each figure as built
    cdp = phone.new_cdp_session(page)
    found = []
    for link in WALK:
        page.set_viewport_size(PHONE)
        if link in LOADED:
            sent = ct.frames_sent(page)  # what this load sends (WALK begins with one)
            path, _, query = link.partition("?")
            first = ct.PAGES[path][0][0] if link in NO_BAR else 1
            page.goto(f"{app_server.url}{path}?"
                      + "&".join(q for q in (query, f"round={first}") if q))
        else:
            switch_page(page, title_of(link))
        ct.settle(page, LINKS[link])
        no_exception(page)
        found += both_widths(page, cdp, sent, link)
    no_exception(page)
    page.close()
    assert not found, "\n".join(found)


def both_widths(page, cdp, sent, link: str) -> list[str]:
    """What one page shows at 390 px, then at 768 px, at two rounds each, and a tap on Next
    at each width."""
    count, bar = LINKS[link], link not in NO_BAR
    rounds = (1, 10) if bar else ct.PAGES[link][0]
    found = []
    for size, order in ((PHONE, rounds), (TABLET, rounds[::-1])):
        page.set_viewport_size(size)
        for m in order:
            if bar and page.evaluate(AT) != str(m):
                ct.drag(page, m)
                page.wait_for_function(
                    f"() => ({AT})() === '{m}' && new URLSearchParams(location.search)"
                    f".get('round') === '{m}'")
            ct.settle(page, count)
            found += page_problems(page, cdp, f"{link} at {size['width']} px, round {m}", bar,
                                   swipe=m == order[0])
        if bar:  # a tap on Next, then back to where the bar was
            m = order[-1] + 1
            mine = tap_next(page, sent, m)
            # the server's figures once (AppTest's run is a second or two a page); at the
            # tablet's width the tap is checked for its round and its silence
            found += against_the_server(link, m, mine) if mine and size is PHONE else []
            if not mine:  # a page whose charts the server draws: its rerun does, at round m
                page.wait_for_function(f"() => new URLSearchParams(location.search)"
                                       f".get('round') === '{m}'")
                ct.settle(page, count)
                titles = page.evaluate("() => [...document.querySelectorAll('.gtitle')]"
                                       ".map(t => t.textContent).join(' | ')")
                if not re.search(rf"(round|tree) {m}\b", titles, re.I):
                    found.append(f"{link}: after a tap on Next, no chart names round {m}: "
                                 f"{titles}")
    return found


LESSON_PAGES = ("model", "tree", "sample", "curves")


@pytest.mark.parametrize("view", LESSON_PAGES)
def test_the_lesson_file_on_a_phone_and_a_tablet(phone, tmp_path, warm_engine, view):
    """The offline lesson file of each of its pages, opened once from disk, checked as the
    app's pages are; a tap on Next draws Python's figure of the next round."""
    trace, grid, state, names = lesson("moons", rounds=12)
    text = interactive.lesson_html(trace, grid, state, names, page=view)
    path = tmp_path / f"{view}.html"
    path.write_text(text, encoding="utf-8")
    described = pages.describe(view, trace, grid, state, names, key=data_of(text)["key"])
    page = phone.new_page()
    page.set_default_timeout(60_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script("window.__explorerTest = true")
    cdp = phone.new_cdp_session(page)
    page.set_viewport_size(PHONE)
    page.goto(path.as_uri() + "?round=1")
    page.wait_for_function("document.documentElement.dataset.ready === 'true'")
    found = []
    for size, order in ((PHONE, (1, 10)), (TABLET, (10, 1))):
        page.set_viewport_size(size)
        for m in order:
            if page.evaluate(AT) != str(m):
                ct.drag(page, m)
            page.wait_for_function("m => document.documentElement.dataset.drawn === String(m)",
                                   arg=m)
            ct.still(page)
            found += page_problems(page, cdp, f"{view} file at {size['width']} px, round {m}",
                                   swipe=m == order[0])
        m = order[-1] + 1
        for chart, drawn in zip(described.charts, tap_next(page, None, m)):
            want = json.loads(chart.at(m, present=state.present).to_json())
            if canonical(drawn["data"]) != canonical(want["data"]) or \
                    canonical(drawn["layout"]) != canonical(want["layout"]):
                found.append(f"{view} file at round {m}: {chart.view} is not Python's figure")
    page.close()
    assert not errors, errors
    assert not found, "\n".join(found)
