"""The app serves its figures drawn plain, not validated (explorer.figures.panels.to_json:
plotly's JSON encoder, the arrays as plotly.js's typed arrays made by panels.typed), four
times cheaper than a go.Figure. Here every
figure the app draws is the same figure as plotly's validated go.Figure gives, value by
value: the pages' charts over every kind of fit, round 0 and a later round, on a screen
and for a projector; and every figure every page of the app draws, as AppTest runs it."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import assert_clean, open_page
from test_bindings import canonical
from test_interactive import lesson

from explorer.app import component
from explorer.figures import pages

# two classes, three, a regression on one input and on two, and iris (three classes)
DATA = ("moons", "spiral", "sine", "plane", "iris")
SERVED = pages.figure_json  # the server's own (the AppTest test puts a check around it)


def _same(draw, args, kwargs, present) -> list[str]:
    """How the plain JSON (and the size it names) differs from the validated figure's."""
    text, size = SERVED(draw, args, kwargs, present)
    fig = pages.figure(draw, args, kwargs, present)
    validated = json.loads(fig.to_json())
    where = f"{draw.__qualname__}{' presented' if present else ''}"
    found = []
    if canonical(json.loads(text)) != canonical(validated):
        found.append(f"{where}: the plain JSON is not the validated figure")
    if size != dict(width=fig.layout.width, height=fig.layout.height):
        found.append(f"{where}: size {size}, validated {fig.layout.width} x {fig.layout.height}")
    return found


@pytest.mark.parametrize("data", DATA)
def test_every_pages_chart_is_the_same_figure_plain_as_validated(warm_engine, data):
    trace, grid, state, names = lesson(data, rounds=6)
    found, drawn = [], 0
    for page in pages.PAGES:
        for chart in pages.describe(page, trace, grid, state, names, key="k").charts:
            for m in (0, 4):
                for present in (False, True):
                    found += _same(chart.draw, (*chart.before, m, *chart.after),
                                   chart.kwargs, present)
                    drawn += 1
    assert drawn >= 4 * 6 and not found, "\n".join(found)


# every page of the app, with what only it draws (the canvas for drawn points, the Splits
# page's both kinds of trees, Compare's pair, the Sweep's two settings, the Slides page's
# storyboard), a projector's too
LINKS = [("pages/model.py", dict(round=3, present=1)),
         ("pages/model.py", dict(data="draw")),  # the canvas of points drawn by hand
         ("pages/tree.py", dict(round=3, data="sine")),
         ("pages/leaf_maths.py", dict(round=2)),
         ("pages/splits.py", dict(round=2)),
         ("pages/splits.py", dict(round=2, split="histogram", present=1)),
         ("pages/compare.py", dict(round=3)),
         ("pages/slides.py", dict()),
         ("pages/sweep.py", dict(rounds=8, round=3, sweep="lr:0.1,0.5", sweep2="depth:1,2",
                                 present=1))]


@pytest.mark.parametrize("page,query", LINKS, ids=[f"{p[6:-3]}-{i}"
                                                  for i, (p, _) in enumerate(LINKS)])
def test_every_figure_a_page_draws_is_the_same_plain_as_validated(monkeypatch, page, query):
    drawn, found = [], []

    def checked(draw, args, kwargs, present=False):
        drawn.append(draw.__qualname__)
        found.extend(_same(draw, args, kwargs, present))
        return SERVED(draw, args, kwargs, present)

    monkeypatch.setattr(pages, "figure_json", checked)
    # the server's figures are cached across sessions: each is drawn here, afresh
    component._figures.clear()
    component._steps.clear()
    at = open_page(page, **query)
    assert_clean(at)
    assert drawn and not found, "\n".join(found)
