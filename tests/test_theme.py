"""explorer.figures.theme: the finite guard and presenter mode's larger figures."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import figures
from explorer.figures import theme


def test_finite_guard():
    a = theme.finite([np.nan, np.inf, -np.inf, 1.0, 1e300])
    assert np.isfinite(a).all() and a[0] == 0 and a[1] == theme.BIG and a[2] == -theme.BIG
    assert theme.num(float("nan")) == "0"


def test_presented_is_pure_and_scales_markers(moons_fit):
    from explorer.numbers.grid import make_grid
    grid = make_grid(moons_fit, resolution=40)
    fig = figures.residual_map(moons_fit, 2, grid)
    big = figures.presented(fig, scale=1.5)
    assert fig.layout.font.size == theme.FONT["size"]  # the input is left as it was
    points = [t for t in fig.data if t.mode == "markers"][0]
    bigger = [t for t in big.data if t.mode == "markers"][0]
    assert max(bigger.marker.size) == pytest.approx(1.5 * max(points.marker.size), rel=1e-4)
    assert big.layout.font.size == pytest.approx(1.5 * fig.layout.font.size)
    # the legend below the plot moves down with the larger axis title
    assert fig.layout.legend.y < 0
    assert big.layout.legend.y == pytest.approx(1.5 * fig.layout.legend.y)


def test_presented_scales_a_rounds_markers_too(moons_fit):
    fig = figures.curves(moons_fit, 3)
    big = figures.presented(fig, scale=1.5)
    marks = [(s, b) for s, b in zip(fig.layout.shapes, big.layout.shapes) if s.type == "circle"]
    assert marks and all(b.x1 == pytest.approx(1.5 * s.x1) and b.y0 == pytest.approx(1.5 * s.y0)
                         and (b.xanchor, b.yanchor) == (s.xanchor, s.yanchor) for s, b in marks)


def test_wrap_breaks_at_clauses_and_keeps_every_word():
    text = "Leaf 4 of tree 10 is pure: L_R keeps falling, no finite minimiser (Newton step 1.3)"
    wrapped = theme.wrap(text, 18, 340)
    lines = wrapped.split("<br>")
    assert len(lines) > 1 and " ".join(lines) == text
    assert all(theme.text_width(line, 18) <= 340 for line in lines)
    assert "no finite minimiser" in wrapped  # a clause is not split when it fits
    assert theme.wrap(wrapped, 18, 2000) == text  # wrapped again for a wider chart


def test_the_rule_puts_the_legend_under_the_axis_text_with_room_for_it(moons_fit):
    from explorer.numbers.grid import make_grid
    fig = figures.probability_map(moons_fit, 3, make_grid(moons_fit, resolution=40))
    layout = fig.layout
    plot = layout.height - layout.margin.t - layout.margin.b
    gap = -layout.legend.y * plot  # px from the plot's bottom to the legend's top
    assert gap >= 2 * 15  # the tick labels and the axis title
    assert layout.margin.b >= gap + 15  # and the bottom margin holds a row of legend
    # idempotent: the rule applied again changes nothing
    again = theme.arrange(fig.to_plotly_json())
    assert again["layout"]["legend"]["y"] == pytest.approx(layout.legend.y)
    assert again["layout"]["margin"] == fig.to_plotly_json()["layout"]["margin"]


def test_an_export_wraps_the_title_for_its_own_width(moons_fit):
    from explorer.export import for_export
    story = {"gammas": np.linspace(-1, 1, 5), "loss": np.arange(5.0), "taylor": np.arange(5.0),
             "newton": 0.5, "pure": True}
    fig = figures.leaf_loss(story, 10, 4)
    assert "<br>" in fig.layout.title.text  # narrow in the app
    wide = for_export(fig, (1400, 600))
    assert "<br>" not in wide.layout.title.text and "no finite minimiser" in wide.layout.title.text
    assert wide.layout.height == 600
