"""explorer.figures.hints: a title without its interface hints, carried by every figure
(layout.meta) for the chart toolbar's image, and bound per round where it changes."""

from __future__ import annotations

import re

from explorer.figures import hints, pages
from explorer.numbers.grid import make_grid
from explorer.state import State

HINT_WORDS = re.compile(r"\b(click|hover|tap)\b", re.IGNORECASE)


def test_clean_title_leaves_out_what_a_click_or_a_hover_does():
    assert hints.clean_title("Loss and accuracy by round<br>(round 40 marked;<br>click a "
                             "point to go there)") == "Loss and accuracy by round"
    assert hints.clean_title("Click a point to follow it (round 3)") == "(round 3)"
    assert hints.clean_title("Click a point to follow it (round 3)", "The sample") \
        == "The sample (round 3)"
    assert hints.clean_title("Tree 2 (go left = yes): per node its split in its hover, "
                             "and a crowded leaf's value") \
        == "Tree 2 (go left = yes): a crowded leaf's value"
    assert hints.clean_title("Tree 4 on the plane: 9 leaves (4 too small: hover)") \
        == "Tree 4 on the plane: 9 leaves"
    assert hints.clean_title("") == ""


def test_every_page_chart_carries_its_clean_title_at_every_round(moons_fit):
    """The figures the app draws (and presenter mode's) carry meta.export_title: the
    title on screen without its hints; where it changes with the round, the chart's
    bindings carry it (the browser's figure at round m has round m's)."""
    grid = make_grid(moons_fit, resolution=30)
    names = dict(feature_names=("x1", "x2"), classes=("0", "1"), target_name="y")
    seen = 0
    for name in pages.PAGES:
        page = pages.describe(name, moons_fit, grid, State(), names, key="k")
        for chart in page.charts:
            for m in (1, 5):
                for present in (False, True):
                    layout = chart.at(m, present).to_plotly_json()["layout"]
                    title = layout["title"]["text"]
                    clean = layout["meta"][hints.EXPORT_TITLE]
                    assert clean == hints.clean_title(title), (chart.view, m, present)
                    assert clean and not HINT_WORDS.search(clean), (chart.view, clean)
                    seen += HINT_WORDS.search(title) is not None
    assert seen  # some titles on screen do carry a hint
    curves = pages.describe("curves", moons_fit, grid, State(), names).chart("curves")
    assert curves.at(4).layout.meta[hints.EXPORT_TITLE] == "Loss and accuracy by round"
    # the Sample page's map: its clean title names the round, so it is bound per round
    sample = pages.describe("sample", moons_fit, grid, State(), names).chart("sample_map")
    step = pages.step(sample, moons_fit, grid)
    assert any(b["path"][-2:] == ["meta", hints.EXPORT_TITLE] for b in step["bindings"]), \
        [b["path"] for b in step["bindings"]]


def test_a_figure_without_a_title_gets_no_clean_title():
    assert "meta" not in hints.mark({"layout": {"height": 300}})["layout"]
    spec = hints.mark({"layout": {"title": {"text": "Hi (hover)"}, "meta": {"a": 1}}})
    assert spec["layout"]["meta"] == {"a": 1, hints.EXPORT_TITLE: "Hi"}
