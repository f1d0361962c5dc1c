"""Issue 45: presenter mode on a projector's window, 1280 x 720 and 1024 x 768.

Each page is opened once in presenter mode, at round 1, in a 1280 x 720 window (one page
load: the Sweep page's link, then each page by the navigation's link from the one before,
stepped to round 1 where the page before left another); the round bar then steps it to
round 10, the window becomes 1024 x 768 (the same page, resized, not loaded again) and
the bar steps back to its first round (round 0 where the page draws one). At each of
those four views (presenter mode's only chart-text walk: test_chart_text walks the pages
in normal mode):

- the round bar and the page's first row of charts (its main view: the Model page's two
  maps, the Tree page's regions, the Sample page's map, Curves, the Leaf maths chart, the
  split scan, Compare's two sides, the Sweep page's grid) lie wholly inside the window,
  with the page not scrolled;
- the chart text check holds on every chart drawn (tests/chart_text.js: no text on other
  text, none cut off);
- at 1280 x 720, every chart's title and tick labels are at least 18 px, read from the
  SVG text's computed font size.

On the Curves page at round 10 the toolbar's camera is clicked: the image it makes has the
title a file has (the server's, explorer/figures/hints.py: the screen's without "click a
point to go there"), at the round on screen.

The figures' heights are explorer/figures/presenter.py's (PRESENT_ROW_HEIGHT); the
header's fold is explorer/app/context.py's (_PRESENT_FOLD, a max-height media query).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import chart_text as ct
from explorer.app.controls import IMAGE_WIDTH
from export_helpers import png_size
from test_browser import no_exception, switch_page, title_of

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
SQUARE = {"width": 1024, "height": 768}  # an older projector's
SWEEP = "/sweep?sweep=lr:0.1,0.3,1"
# page -> the views of its first row (each chart's data-view), in the walk's order: the
# Sweep page's link opens presenter mode, and each other page is opened by the
# navigation's link from the one before (the session, its sweep and its round kept)
FIRST_ROW = {
    SWEEP: ("sweep_0_0", "sweep_0_1", "sweep_0_2"),
    "/": ("model", "residuals"),
    "/tree": ("regions",),
    "/sample": ("sample_map",),
    "/curves": ("curves",),
    "/leaf_maths": ("leaf_loss",),
    "/splits": ("splits",),
    "/compare": ("compare_a", "compare_b"),
}
MIN_TEXT = 18  # px, at 1280 x 720

# [view, left, top, right, bottom] of each chart drawn, the bar's box, the window, how far
# the page is scrolled, and the least size of any chart's title or tick label
MEASURE = """() => {
    const box = (e) => { const r = e.getBoundingClientRect();
                         return [r.left, r.top, r.right, r.bottom]; };
    const charts = [...document.querySelectorAll('.js-plotly-plot')]
        .filter(g => g.querySelector('.main-svg'))
        .map(g => [g.getAttribute('data-view') || '', ...box(g)]);
    const sizes = [...document.querySelectorAll('.js-plotly-plot .main-svg')].flatMap(svg =>
        [...svg.querySelectorAll('.gtitle, .xtick text, .ytick text, [class*=tick] text')]
            .filter(t => (t.textContent || '').trim())
            .map(t => [t.textContent.trim().slice(0, 30),
                       parseFloat(getComputedStyle(t).fontSize)]));
    const main = document.querySelector('[data-testid=stMain]');
    const bar = document.querySelector('.explorer-stepper');
    return {charts, sizes, bar: bar ? box(bar) : null, window: [innerWidth, innerHeight],
            scrolled: window.scrollY + (main ? main.scrollTop : 0)
                      + document.scrollingElement.scrollTop};
}"""


def _drawn_first_row(page, views) -> None:
    """Wait until each chart of the first row is drawn."""
    wanted = " && ".join(f"document.querySelector('.js-plotly-plot[data-view=\"{v}\"] "
                         ".main-svg')" for v in views)
    page.wait_for_function(f"() => Boolean({wanted})")


def _inside(where, box, window) -> list[str]:
    left, top, right, bottom = box
    width, height = window
    return ([] if left >= -0.5 and top >= -0.5 and right <= width + 0.5
            and bottom <= height + 0.5 else
            [f"{where}: {[round(v) for v in box]} outside the {width} x {height} window"])


def _look(page, path: str, m: int, size: dict, problems: list, seen: list) -> None:
    views = FIRST_ROW[path]
    _drawn_first_row(page, views)
    if path in ct.PAGES:
        found = ct.checked(page, path, m)
    else:  # the Sweep page (not in chart_text's table): drawn, and still for a moment
        ct.settle(page, len(views))
        found = ct.problems(page)
    no_exception(page)
    where = f"{path} round {m} at {size['width']} x {size['height']}"
    problems += [f"{where}: {line}" for line in ct.summary(found)]
    got = page.evaluate(MEASURE)
    assert got["window"] == [size["width"], size["height"]], (where, got["window"])
    assert got["scrolled"] == 0, (where, got["scrolled"])
    assert got["bar"] is not None, where
    problems += _inside(f"{where}, the round bar", got["bar"], got["window"])
    charts = {view: box for view, *box in got["charts"]}
    for view in views:
        assert view in charts, (where, view, sorted(charts))
        problems += _inside(f"{where}, chart {view}", charts[view], got["window"])
    if size == PROJECTOR:
        assert got["sizes"], where
        problems += [f"{where}: {text!r} at {px} px" for text, px in got["sizes"]
                     if px < MIN_TEXT - 0.01]
    seen.append((path, m, size["width"], max(b for *_, b in got["charts"])))
    if path == "/curves" and m == 10 and size == PROJECTOR:
        _camera(page)


def _camera(page) -> None:
    from explorer.figures.hints import clean_title
    with page.expect_download(timeout=120_000) as info:
        shot = page.evaluate(ct.CAMERA)
        assert shot is not None, "no camera of its own in the Curves chart's toolbar"
    name = info.value.suggested_filename
    assert name == f"{shot['filename']}.{shot['format']}", (name, shot)
    if shot["format"] == "png":
        assert png_size(Path(info.value.path()).read_bytes())[0] >= IMAGE_WIDTH - 1, name
    assert shot["cameras"] == 1, shot  # plotly.js's own is gone
    assert "click a point" in shot["screen"] and "round 10" in shot["screen"], shot
    assert shot["title"] == clean_title(shot["screen"]) == "Loss and accuracy by round", shot
    assert shot["format"] in ("png", "svg") and shot["filename"].startswith(
        "boosting_curves_"), shot


def test_presenter_mode_fits_a_projector_on_every_page(app_server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    page.set_default_timeout(120_000)
    sent = ct.frames_sent(page)
    problems, seen = [], []
    try:
        for k, path in enumerate(FIRST_ROW):
            page.set_viewport_size(PROJECTOR)
            if k == 0:
                page.goto(f"{app_server.url}{path}&present=1&round=1")
            else:
                switch_page(page, title_of(path))
                ct.reach(page, sent, path, 1)
            _look(page, path, 1, PROJECTOR, problems, seen)
            ct.move(page, sent, path, 10)
            _look(page, path, 10, PROJECTOR, problems, seen)
            page.set_viewport_size(SQUARE)
            _look(page, path, 10, SQUARE, problems, seen)
            # back to the page's first round: round 0 where it draws one (chart_text's)
            first = ct.PAGES[path][0][0] if path in ct.PAGES else 1
            ct.move(page, sent, path, first)
            _look(page, path, first, SQUARE, problems, seen)
    finally:
        page.close()
    assert len(seen) == 4 * len(FIRST_ROW), seen
    assert not problems, "\n".join(problems)
