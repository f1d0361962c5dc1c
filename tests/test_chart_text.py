"""Charts that go onto a slide as they are: no chart text on other text, none cut off.

The check is tests/chart_text.js, run in Chromium on the drawn SVG of every chart: on
every page at several rounds, at two window widths (presenter mode on a projector's
windows: test_browser_presenter.py); and
on the exported SVG file of every view and storyboard, shown alone in a blank page.
"""

from __future__ import annotations

import json

import pytest

import chart_text as ct
from explorer import export
from explorer.numbers.grid import make_grid
from test_browser import switch_page, title_of

pytestmark = pytest.mark.browser


def test_no_chart_text_overlaps_or_is_cut_off_on_any_page(app_server, browser):
    """Each page opened once, in the wider window, at its first round; its other rounds
    reached with the round bar; then the window narrowed and the rounds checked again on
    the way back. One page load: the Slides page by its link (its one round, 10, where
    it has no round bar), then each page by the navigation's link from the page before,
    as a student moves between them (the session's round kept, then stepped to the page's
    first). (Presenter mode's walk is test_browser_presenter's, on a projector's
    windows.)"""
    wide, *narrower = ct.WIDTHS
    page = browser.new_page(viewport={"width": wide, "height": 1000})
    page.set_default_timeout(120_000)
    sent = ct.frames_sent(page)
    problems, seen = [], []

    def check(path, width, m, found):
        rounds, charts, at_zero = ct.PAGES[path]
        assert len(found) >= (charts if m else at_zero), (path, width, m, found)
        # the widths of the charts that follow their column (not a slide's: its file's)
        seen.append((path, width, m, sorted(c["width"] for c in found if not c["fixed"])))
        problems.extend(f"{path}?round={m} at {width} px: {line}"
                        for line in ct.summary(found))

    try:
        for k, path in enumerate(sorted(ct.PAGES, key=lambda path: path != "/slides")):
            rounds = ct.PAGES[path][0]
            page.set_viewport_size({"width": wide, "height": 1000})
            if k == 0:
                check(path, wide, rounds[0], ct.visit(page, app_server.url, path, rounds[0]))
            else:
                switch_page(page, title_of(path))
                check(path, wide, rounds[0], ct.arrive(page, sent, path, rounds[0]))
            for m in rounds[1:]:
                check(path, wide, m, ct.step(page, sent, path, m))
            for width in narrower:
                page.set_viewport_size({"width": width, "height": 1000})
                here, *back = reversed(rounds)
                check(path, width, here, ct.checked(page, path, here))
                for m in back:
                    check(path, width, m, ct.step(page, sent, path, m))
    finally:
        page.close()
    assert len(seen) == 2 * sum(len(rounds) for rounds, *_ in ct.PAGES.values()), seen
    for path in ct.PAGES:  # the narrower window did narrow the charts
        widths = {width: max((w for p, wd, _, ws in seen if p == path and wd == width
                              for w in ws), default=0) for width in ct.WIDTHS}
        if path == "/slides":  # its charts are slides, at their files' width
            assert not any(widths.values()), (path, widths)
            continue
        assert widths[wide] > max(widths[w] for w in narrower), (path, widths)
    assert not problems, "\n".join(problems)


def _views(trace, grid, rounds, **names):
    for view in export.VIEWS:
        for m in rounds:
            yield f"{view} at round {m}", export.view_figure(trace, view, m, grid, **names)
        yield f"{view} storyboard", export.storyboard(trace, view, export.storyboard_rounds(
            trace.n_rounds), grid, data_label="test data, 240 points", **names)


def test_exported_svgs_have_no_overlapping_or_cut_off_text(browser, moons_fit, sine):
    figures = list(_views(moons_fit, make_grid(moons_fit), (0, 1, 10)))
    trace, grid = sine
    figures += [(f"regression {name}", fig) for name, fig in _views(trace, grid, (0, 3))]
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    problems = []
    try:
        for name, fig in figures:
            (found,) = ct.svg_problems(page, export.to_image(fig, "svg"))
            assert found["texts"] >= 1, (name, found)  # round 0 of the tree: a message
            problems += [f"{name}: {line}" for line in ct.summary([found])]
    finally:
        page.close()
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_legend_on_an_axis_title_and_a_title_past_the_edge(browser):
    """The check itself: plotly's own placement, without the rule, fails it."""
    from pathlib import Path

    import plotly
    page = browser.new_page(viewport={"width": 800, "height": 600})
    try:
        page.set_content("<!doctype html><html><body style='margin:0'></body></html>")
        page.add_script_tag(path=str(Path(plotly.__file__).parent / "package_data"
                                     / "plotly.min.js"))
        figure = dict(
            data=[dict(type="scatter", x=[0, 1], y=[0, 1], name=f"series {i}")
                  for i in range(3)],
            layout=dict(width=400, height=300, margin=dict(t=40, b=10, l=10, r=10),
                        title=dict(text="A title much longer than the chart is wide, "
                                        "running past its right edge", x=0),
                        xaxis=dict(title=dict(text="round m"), automargin=True),
                        legend=dict(orientation="h", y=-0.1, yanchor="top")))
        page.evaluate("f => Plotly.newPlot(document.body.appendChild("
                      "document.createElement('div')), f.data, f.layout)",
                      json.loads(json.dumps(figure)))
        (found,) = ct.problems(page)
    finally:
        page.close()
    assert any("legend" in a and "x title" in b or "x title" in a and "legend" in b
               for a, b, _ in found["overlaps"]), found
    assert any(text.startswith("title 'A title") for text, _ in found["cut"]), found


def _drawn(browser, figures, width=1100):
    """The check on plotly figures drawn by plotly.js in a blank page, each alone."""
    from pathlib import Path

    import plotly
    page = browser.new_page(viewport={"width": width, "height": 800})
    found = []
    try:
        for fig in figures:
            page.set_content("<!doctype html><html><body style='margin:0'></body></html>")
            page.add_script_tag(path=str(Path(plotly.__file__).parent / "package_data"
                                         / "plotly.min.js"))
            page.evaluate("f => Plotly.newPlot(document.body.appendChild("
                          "document.createElement('div')), f.data, f.layout)",
                          json.loads(fig if isinstance(fig, str) else fig.to_json()))
            found += ct.problems(page)
    finally:
        page.close()
    return found


def test_the_check_finds_a_colour_bar_title_among_its_tick_labels(browser):
    """Issue 44, item 4: plotly puts a short title on a vertical colour bar's right side
    in the column of its tick labels, beside the 0 and over no single label: the check
    sees the title against the labels together."""
    fig = dict(data=[dict(type="heatmap", z=[[-0.5, 0.5]], coloraxis="coloraxis")],
               layout=dict(width=600, height=400, coloraxis=dict(
                   cmin=-0.5, cmax=0.5, colorbar=dict(title=dict(text="F", side="right"),
                                                      thickness=14, len=0.8, x=1.0))))
    (found,) = _drawn(browser, [json.dumps(fig)])
    assert any("colour bar title 'F'" in a and "tick labels" in b
               for a, b, _ in found["overlaps"]), found


def test_the_update_rows_colour_bar_titles_stand_clear_of_their_ticks(browser, moons_fit):
    """Issue 44, item 4: the Tree page's update row (the app's chart and the lesson
    file's: one figure) has no text on other text, its colour bars' titles included."""
    from explorer.figures.update import update_panels
    grid = make_grid(moons_fit)
    figs = [update_panels(moons_fit, m, grid) for m in (1, 10)]
    found = _drawn(browser, figs)
    assert not ct.summary(found), "\n".join(ct.summary(found))
