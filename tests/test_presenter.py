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
    # the legend below the plot moves further down (in pixels) with the larger axis title
    assert fig.layout.legend.y < 0
    assert -big.layout.legend.y * _plot(big) > -1.4 * fig.layout.legend.y * _plot(fig)


def _plot(fig) -> float:
    """The plotting area's height in px."""
    return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b


def _sizes(fig) -> list[float]:
    """The font sizes of the figure's titles (its own, its axes', its colour bars') and
    tick labels, as plotly.js would draw them (a size not set is the layout font's)."""
    spec = fig.to_plotly_json()
    base = spec["layout"]["font"]["size"]
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "tickfont" or key == "title" and isinstance(value, dict):
                    font = value if key == "tickfont" else value.get("font") or {}
                    found.append(font.get("size") or base)
                if key != "template":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(spec["layout"])
    walk(spec["data"])
    return found + [base]


def test_presented_charts_fit_a_projectors_row_with_text_of_18_px(moons_fit):
    """The first row's charts end within PRESENT_ROW_HEIGHT (the tree's regions give up
    height down to the plot their leaf labels were placed for); the Model page's two maps
    keep one plotting height; every title and tick label is at least 18 px, a sweep's
    small map's too; a chart whose content sets its height (the tree diagram, the split
    scan's stacked rows) keeps the height its type needs."""
    from explorer.figures.layout import LABELS_PLACED
    from explorer.figures.leaf_labels import PLOT_PX as LABELS_PLOT_PX
    from explorer.figures.presenter import (PRESENT_MIN_TEXT, PRESENT_ROW_HEIGHT,
                                            PRESENT_SCALE, sized_by_content)
    from explorer.figures.sweep import sweep_map
    from explorer.numbers import splits
    from explorer.numbers.grid import make_grid
    grid = make_grid(moons_fit, resolution=40)
    m = 10
    row = {"model": figures.model_view(moons_fit, m, grid),
           "residuals": figures.residual_map(moons_fit, m, grid),
           "regions": figures.tree_regions(moons_fit, m, grid),
           "curves": figures.curves(moons_fit, m),
           "leaf": figures.leaf_loss_of(moons_fit, m, leaf=-1, sample=0, typical=True),
           "sweep": sweep_map(moons_fit, m, grid, label="learning rate 0.3")}
    shown = {name: figures.presented(fig) for name, fig in row.items()}
    for name, fig in shown.items():
        if name == "regions":  # its leaf labels were placed for a plot this high at least
            assert fig.layout.meta[LABELS_PLACED]
            assert _plot(fig) == pytest.approx(LABELS_PLOT_PX, abs=1), _plot(fig)
            assert fig.layout.height < row[name].layout.height * PRESENT_SCALE
        else:
            assert fig.layout.height <= PRESENT_ROW_HEIGHT, (name, fig.layout.height)
        assert _plot(fig) >= 140, (name, _plot(fig))
        assert min(_sizes(fig)) >= PRESENT_MIN_TEXT, (name, sorted(_sizes(fig))[:3])
    assert min(_sizes(row["sweep"])) < PRESENT_MIN_TEXT  # (its own type was smaller)
    # they gave height up: grown with the type alone, they would not fit
    assert max(row[n].layout.height * PRESENT_SCALE for n in ("model", "regions", "leaf")) \
        > PRESENT_ROW_HEIGHT
    assert _plot(shown["model"]) == pytest.approx(_plot(shown["residuals"]), abs=1)
    diagram = figures.tree_diagram(moons_fit, m)
    scan = figures.split_scan(splits.scan(moons_fit, m, 0), m, 0)
    for fig in (diagram, scan):
        assert sized_by_content(fig.to_plotly_json()["layout"])
        assert _plot(figures.presented(fig)) >= _plot(fig)
    assert not any(sized_by_content(fig.to_plotly_json()["layout"]) for fig in row.values())


def test_presented_scales_a_rounds_markers_too(moons_fit):
    fig = figures.curves(moons_fit, 3)
    big = figures.presented(fig, scale=1.5)
    marks = [(s, b) for s, b in zip(fig.layout.shapes, big.layout.shapes) if s.type == "circle"]
    assert marks and all(b.x1 == pytest.approx(1.5 * s.x1) and b.y0 == pytest.approx(1.5 * s.y0)
                         and (b.xanchor, b.yanchor) == (s.xanchor, s.yanchor) for s, b in marks)
