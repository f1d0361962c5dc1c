"""explorer.figures.model: view 1, the model after round m (the probability map, a
regression's staircase and surface), drawn from what the engine fitted."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import figures, fit
from explorer.numbers.grid import make_grid
from figure_helpers import check_figure, trace_array


def test_probability_map_shows_p_of_round_m_and_clickable_points(moons_fit, grid):
    tr, m = moons_fit, 4
    fig = figures.probability_map(tr, m, grid, show_valid=True, sample=7)
    z = trace_array(fig, 0, "z")
    assert z.min() >= 0 and z.max() <= 1
    np.testing.assert_allclose(z, tr.link(grid.F[m].astype(float)), atol=1e-6)
    assert fig.data[1].name == "boundary p = 0.5" and fig.data[1].mode == "lines"
    points = [t for t in fig.data if t.type in ("scatter", "scattergl") and t.mode == "markers"
              and t.customdata is not None]
    assert all(t.type == "scatter" for t in points)  # few points: SVG, many: WebGL
    # training points carry their index; together they are every training point once
    train_idx = np.concatenate([np.asarray(t.customdata)[:, 0] for t in points
                                if "validation" not in t.name])
    assert sorted(train_idx.astype(int)) == list(range(len(tr.y)))
    valid = [t for t in points if "validation" in t.name]
    assert sum(len(t.x) for t in valid) == len(tr.y_valid)
    assert any(t.name == "sample #7" for t in fig.data)
    assert fig.layout.yaxis.scaleanchor == "x"  # comparable ranges: equal aspect


def test_uncomparable_feature_ranges_drop_the_equal_aspect(warm_engine):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 1, 200), rng.uniform(0, 1000, 200)])
    y = (X[:, 0] > 0.5).astype(float)
    tr = fit(X, y, n_rounds=3)
    grid = make_grid(tr, resolution=20)
    assert not grid.equal_aspect
    fig = figures.probability_map(tr, 1, grid)
    assert fig.layout.yaxis.scaleanchor is None


@pytest.mark.parametrize("m", [0, 1, 12])
def test_the_staircase_draws_F_m_and_the_residual_bars(sine, m):
    tr, grid = sine
    fig = figures.model_view(tr, m, grid, feature_names=("<b>x</b>",), target_name="y",
                             show_valid=True, sample=4)
    spec = check_figure(fig)
    kinds = [t["type"] for t in spec["data"]]
    bars = kinds.index("bar")
    base = trace_array(fig, bars, "base").astype(float)  # plotly keeps "base" as objects
    np.testing.assert_allclose(base, tr.raw[m], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(trace_array(fig, bars, "y"), tr.y - tr.raw[m], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(trace_array(fig, bars, "customdata"), np.arange(len(tr.y)))
    line = [k for k, t in enumerate(spec["data"]) if t.get("mode") == "lines"][0]
    np.testing.assert_allclose(trace_array(fig, line, "y"), grid.F[m])
    # one y range for every round, holding the targets and F at every round
    lo, hi = spec["layout"]["yaxis"]["range"]
    assert lo < min(tr.y.min(), grid.F.min()) and hi > max(tr.y.max(), grid.F.max())
    assert lo == figures.model_view(tr, 0, grid).layout.yaxis.range[0]
    assert spec["layout"]["xaxis"]["title"]["text"] == "&lt;b&gt;x&lt;/b&gt;"
    assert any(t.get("name") == "validation points" for t in spec["data"])


def test_the_surface_draws_F_m_on_the_plane_with_the_points_on_one_scale(plane):
    tr, grid = plane
    fig = figures.model_view(tr, 5, grid, feature_names=("a", "b"), sample=2,
                             target_name="<img src=x>")
    spec = check_figure(fig)
    assert "<img" not in fig.to_json() and "&lt;img src=x&gt;" in spec["data"][1]["name"]
    heat = spec["data"][0]
    assert heat["type"] == "heatmap"
    np.testing.assert_allclose(trace_array(fig, 0, "z"), grid.F[5])
    points = spec["data"][1]["marker"]
    assert (points["cmin"], points["cmax"]) == (heat["zmin"], heat["zmax"])
    assert heat["zmin"] < tr.y.min() and heat["zmax"] > tr.y.max()
    custom = trace_array(fig, 1, "customdata")
    np.testing.assert_array_equal(custom[:, 0], np.arange(len(tr.y)))
    np.testing.assert_allclose(custom[:, 2], tr.raw[5], rtol=1e-6, atol=1e-6)
