"""What the browser draws as it steps equals the server's figures: for each kind of data
and each page, the charts stepped in Chromium (bindings.js with record.js's terms, no
message to the server) are compared with the same link's figures at that round, made
in this process by the app (AppTest) and its bindings applied in Python, which
test_bindings.py checks against the figure functions at every round."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl, urlparse

import numpy as np
import pytest

from apptest_helpers import PAGES, chart_payloads, open_page
from apptest_helpers import charts as charts_of
from test_bindings import canonical
from chart_text import frames_sent, press, quiet, steps_sent
from test_browser import (go_to, no_exception, open_tab, switch_page, titles_at_round,
                          wait_ready)

pytestmark = pytest.mark.browser

# every chart that follows the round, as plotly.js was given it: typed arrays as lists
DRAWN = """() => {
    const L = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(L)
        : (v && typeof v === 'object') ? Object.fromEntries(Object.entries(v)
            .filter(([k]) => !k.startsWith('_') && k !== 'uid').map(([k, x]) => [k, L(x)])) : v;
    return JSON.stringify([...document.querySelectorAll('.explorer-chart')]
        .filter(gd => gd.__step)
        .map(gd => ({view: gd.dataset.view, data: L(gd.__drawn.data),
                     layout: L(gd.__drawn.layout)})));
}"""

ROUND = "document.querySelector('.explorer-stepper')?.dataset.round"

# Each tour is one page load: its link, then the pages opened by their links in the
# navigation, each with the charts it draws. The session keeps the link's settings from
# page to page, as a class's does; the page to compare is the one the address names.
# (Each page on the default data, two classes, is test_browser_phone's, against the same
# figures at a phone's width.)
TOURS = [
    # three classes: p_k of one class on the Model page, that class's trees, a sample
    ("/?data=iris&pk=1&cls=2&sample=5", 2, ("Tree", 3), ("Sample", 2)),
    ("/?data=iris", 2),                              # three classes: the likeliest class
    ("/?data=sine&n=300", 1, ("Tree", 2)),           # regression on one input
    ("/?data=plane&n=300", 2),                       # regression on two inputs
    ("/tree?n=400&leaf=-1&sample=11", 3, ("Sample", 2)),
    ("/tree?data=spiral&leaves=16&depth=8", 3),      # a three-arm spiral, 16 leaves
    ("/?split=histogram&bins=8", 2),                 # histogram trees: float64 comparisons
    ("/tree?data=iris&split=histogram", 3),
    # the Sweep page: each cell from its own record, the curves and heat map from tables
    ("/sweep?n=300&rounds=30&sweep=lr:0.1,0.5&sweep2=depth:1,3", 6),
    ("/sweep?data=iris&rounds=20&sweep=depth:1,3", 3),
    ("/sweep?data=sine&n=300&rounds=20&sweep=lr:0.1,0.5", 3),
]


def _page_and_query(link: str):
    url = urlparse(link)
    page = {"": PAGES[0], "/": PAGES[0]}.get(url.path, f"pages{url.path}.py")
    return page, dict(parse_qsl(url.query))


@pytest.mark.parametrize("tour", TOURS, ids=lambda tour: tour[0])
def test_the_browser_steps_to_the_servers_figures(app_server, browser, tour):
    """At each page of the tour, three steps in the browser, with no message to the
    server, draw the server's figures of the round they reach."""
    link, count, *stops = tour
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    page.add_init_script("window.__explorerTest = true")  # keep each figure as built
    sent = frames_sent(page)
    join = "&" if "?" in link else "?"
    page.goto(app_server.url + link + f"{join}round=2")
    for title, charts in [(None, count), *stops]:
        if title:
            switch_page(page, title)
        wait_ready(page, charts)
        quiet(page, sent)
        wait_ready(page)
        here = page.url.removeprefix(app_server.url)
        start = int(page.evaluate(f"() => {ROUND}"))
        began = press(page, "PageDown", 3)
        m = start + 3
        page.wait_for_function(f"m => {ROUND} === String(m)", arg=m)
        if "data=iris" not in here:
            titles_at_round(page, m)
        page.wait_for_timeout(50)  # the last draw settles
        mine = json.loads(page.evaluate(DRAWN))
        assert steps_sent(page, sent, began) == 0, ("a step went to the server", here)
        assert len(mine) >= charts - (1 if "sine" in here and "tree" in here else 0), here
        no_exception(page)

        name, query = _page_and_query(here)
        at = open_page(name, **{**query, "round": m})
        served = dict(zip([p["view"] for p in chart_payloads(at)], charts_of(at)))
        for chart in mine:
            want = served[chart["view"]]
            assert canonical(chart["data"]) == canonical(want["data"]), (here, chart["view"])
            assert canonical(chart["layout"]) == canonical(want["layout"]), (here, chart["view"])
    page.close()


@pytest.fixture(scope="module")
def tree_tab(app_server, browser):
    """The Tree page (400 points, from round 2), shared by the two tests below (a page
    load is most of what either costs)."""
    tab = open_tab(browser, app_server, "/tree?n=400&round=2", 3)
    yield tab
    tab.page.close()


def test_a_step_to_round_0_and_back_draws_round_0s_own_figure(tree_tab):
    page = tree_tab.page
    page.keyboard.press("Home")
    page.wait_for_function(f"() => {ROUND} === '0'")
    # the charts end on round 0's own figure (a redraw still going when the bar moved ends
    # first: a busy machine showed tree 2's update for a while)
    page.wait_for_function("""() => {
        const text = [...document.querySelectorAll('.explorer-chart .annotation')]
            .map(a => a.textContent).join(' ');
        return text.includes('Step to round 1') || text.toLowerCase().includes('no tree');
    }""", timeout=20_000)
    page.keyboard.press("End")
    page.wait_for_timeout(1000)
    no_exception(page)
    assert np.isfinite(float(page.evaluate(f"() => {ROUND}")))


# every chart's width on the page and the width plotly.js drew it at
WIDTHS = """() => [...document.querySelectorAll('.explorer-chart')].map(
    gd => [gd.getBoundingClientRect().width, gd._fullLayout.width])"""
# every axis of every chart: its domain and its length in pixels, as plotly.js laid it out
AXES = """() => [...document.querySelectorAll('.explorer-chart')].filter(gd => gd.__step).map(
    gd => Object.fromEntries(Object.keys(gd._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k))
        .map(k => [k, [...gd._fullLayout[k].domain, gd._fullLayout[k]._length]])))"""


def test_every_panel_keeps_its_size_and_every_chart_its_columns_width(tree_tab):
    """plotly.js writes a square panel's domain back into the layout it draws; the charts'
    panels (the Tree page's plane and update panels are held square) must come back to
    the same size at the same round, however many steps came between. A chart follows its
    column's width when the column widens without the window (the tab's last test: the
    sidebar is closed)."""
    go_to(tree_tab, 2)  # the test before it left the bar at the last round
    page = tree_tab.page
    before = page.evaluate(AXES)
    assert len(before) == 3 and all(before)
    for m in list(range(3, 9)) + list(range(7, 1, -1)):  # each step drawn before the next
        page.keyboard.press("PageDown" if m > int(page.evaluate(ROUND)) else "PageUp")
        page.wait_for_function(f"() => {ROUND} === '{m}'")
        titles_at_round(page, m)
        page.wait_for_timeout(200)
    assert page.evaluate(AXES) == before
    # a column that widens without the window (the sidebar closed, as for a class) takes
    # its charts with it
    narrow = page.evaluate(WIDTHS)
    page.hover("[data-testid=stSidebar]")
    page.locator("[data-testid=stSidebarCollapseButton] button").click()
    page.wait_for_function(f"() => ({WIDTHS})().every(([box, drawn], i) => "
                           f"box > {[box for box, _ in narrow]}[i] && Math.abs(box - drawn) < 1.5)")
    page.keyboard.press("PageDown")
    page.wait_for_function(f"() => {ROUND} === '3'")
    page.wait_for_timeout(200)
    assert all(abs(box - drawn) < 1.5 for box, drawn in page.evaluate(WIDTHS))


# After a change of setting: every chart's draws, as whether each came with its bindings
DRAWS = """() => {
    window.__draws = [...document.querySelectorAll('.explorer-chart')].map(gd => {
        const draws = [];
        const sent = gd.__sent;
        gd.on('plotly_afterplot', () => { if (gd.__sent !== sent) draws.push(!!gd.__step); });
        return draws;
    });
}"""


def test_a_new_settings_charts_are_drawn_first_then_step_in_the_browser(app_server,
                                                                         browser):
    """A new fit's charts come at once as the server's figures at the State's round, and
    their bindings in a second run (component.bind_later): the first draw after the change
    of setting has none, a later one has them, and the charts then step with no message
    to the server."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.set_default_timeout(90_000)
    sent = frames_sent(page)
    page.goto(app_server.url + "/?n=300&rounds=300&round=5")
    wait_ready(page, 2)
    page.evaluate(DRAWS)
    page.locator(".st-key-lr input[type=range]").press("ArrowRight")  # ν 0.10 -> 0.11
    page.wait_for_function("() => window.__draws.every(d => d.includes(true))")
    draws = page.evaluate("() => window.__draws")
    assert len(draws) == 2 and all(d[0] is False for d in draws), draws
    wait_ready(page, 2)
    quiet(page, sent)
    began = press(page, "PageDown", 2)
    page.wait_for_function(f"() => {ROUND} === '7'")
    titles_at_round(page, 7)
    assert steps_sent(page, sent, began) == 0, "a step went to the server"
    assert page.url.count("lr=0.11") == 1
    no_exception(page)
    page.close()


def test_the_loader_drops_data_older_than_what_its_element_took(browser):
    """Streamlit hands a component's data to its script once the script is imported, and
    Chromium may resolve a first import after later ones: the older data, come late, is
    dropped (loader.js; assets.py's _in_order gives each its place)."""
    from explorer.app import assets
    loader = (Path(assets.__file__).parent / "loader.js").read_text(encoding="utf-8")
    page = browser.new_page()
    page.set_content("<div id='chart'></div><div id='other'></div>")
    took = page.evaluate("""async (loader) => {
        window.took = [];
        const url = (code) => 'data:text/javascript,' + encodeURIComponent(code);
        const module = url('export default (c) => { window.took.push(' +
                           '[c.parentElement.id, c.data.session, c.data.order]); }');
        const run = (await import(url(loader.replaceAll('"MODULE"', JSON.stringify(module)))))
            .default;
        const call = (id, session, order) =>
            run({data: {session, order}, parentElement: document.getElementById(id)});
        // the second run's data handed over first, then the first run's, come late
        await Promise.all([call('chart', 's', 2), call('chart', 's', 1)]);
        await call('other', 's', 1);  // another element keeps its own place
        await call('chart', 't', 1);  // another session (a restarted server): taken
        await call('chart', 't', 1);  // the same data again (a rerun at rest): taken
        return window.took;
    }""", loader)
    page.close()
    assert took == [["chart", "s", 2], ["other", "s", 1], ["chart", "t", 1], ["chart", "t", 1]]
