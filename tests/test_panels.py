"""explorer.figures.panels: a view drawn as one panel of a larger figure (Panel), the
storyboard's way of composing figures through arguments instead of editing their JSON;
and the traces' guards: every array finite on its way to plotly, WebGL for many points."""

import json

import numpy as np
import pytest

from explorer import export, figures, fit
from explorer.data import make_toy
from explorer.figures import panels
from explorer.figures.panels import Panel
from explorer.numbers.grid import make_grid

PANEL = Panel(3, x_domain=(0.5, 0.9), y_domain=(0.1, 0.4), x_labels=False, y_labels=True,
              legend=False, coloraxis=True, colorbar_len=0.6, message_width=20)


@pytest.fixture(scope="module")
def grid(moons_fit):
    return make_grid(moons_fit)


@pytest.mark.parametrize("view", list(export.VIEWS))
def test_a_placed_view_lives_on_its_own_axes(moons_fit, grid, view):
    draw = export.VIEWS[view][0]
    spec = json.loads(draw(moons_fit, 2, grid, panel=PANEL).to_json())
    layout = spec["layout"]
    assert {t["xaxis"] for t in spec["data"]} == {"x3"}
    assert {t["yaxis"] for t in spec["data"]} == {"y3"}
    assert all(t.get("showlegend") is False for t in spec["data"])
    assert layout["xaxis3"]["domain"] == [0.5, 0.9] and layout["yaxis3"]["domain"] == [0.1, 0.4]
    assert layout["xaxis3"]["anchor"] == "y3" and layout["yaxis3"]["anchor"] == "x3"
    assert layout["xaxis3"]["showticklabels"] is False and layout["xaxis3"]["title"]["text"] == ""
    assert layout["yaxis3"]["title"]["text"]  # the outer axis keeps its title
    for item in layout.get("shapes", []) + layout.get("annotations", []):
        assert item["xref"] == "x3" and item["yref"] == "y3", item
    # colours through the layout's one colour axis, with its bar
    coloured = [t for t in spec["data"] if "coloraxis" in t or "coloraxis" in t.get("marker", {})]
    assert coloured and "coloraxis" in layout and layout["coloraxis"]["colorbar"]["len"] == 0.6
    assert not any("colorscale" in t or "colorscale" in t.get("marker", {}) for t in spec["data"])


def test_a_view_alone_is_unchanged_by_the_default_panel(moons_fit, grid):
    for draw in (figures.model_view, figures.residual_map, figures.tree_regions):
        assert draw(moons_fit, 3, grid).to_json() == draw(moons_fit, 3, grid,
                                                          panel=Panel()).to_json()


def test_a_message_is_wrapped_and_centred_in_its_cell(moons_fit, grid):
    spec = json.loads(figures.tree_regions(moons_fit, 0, grid, panel=PANEL).to_json())
    (note,) = spec["layout"]["annotations"]
    assert note["x"] == pytest.approx(0.7) and note["y"] == pytest.approx(0.25)
    assert note["xanchor"] == "center" and note["yanchor"] == "middle"
    assert all(len(line) <= 20 for line in note["text"].split("<br>"))


def test_finite_guard():
    a = panels.finite([np.nan, np.inf, -np.inf, 1.0, 1e300])
    assert np.isfinite(a).all() and a[0] == 0 and a[1] == panels.BIG and a[2] == -panels.BIG


def test_many_points_are_drawn_with_webgl(warm_engine):
    ds = make_toy("moons", n=panels.GL_POINTS + 50)
    tr = fit(ds.X, ds.y, n_rounds=2)
    grid = make_grid(tr, resolution=20)
    for fig in (figures.probability_map(tr, 1, grid), figures.residual_map(tr, 1, grid),
                figures.tree_regions(tr, 1, grid)):
        kinds = {t.type for t in fig.data if t.type.startswith("scatter")
                 and t.mode == "markers" and t.customdata is not None
                 and len(t.x) > 1 and t.name != "leaf value γ"}
        assert kinds == {"scattergl"}, kinds
