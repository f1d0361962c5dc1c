"""explorer.figures.presenter: presenter mode's larger figures."""

from __future__ import annotations

import pytest

from explorer import figures
from explorer.figures import theme


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
