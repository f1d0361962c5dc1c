"""explorer.figures.plane: the views on the plane (or along a regression's one input)
draw what the engine fitted."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import figures, fit
from explorer.figures import panels
from explorer.numbers.grid import make_grid, tree_leaf_of, tree_on_grid
from explorer.numbers import summaries
from explorer.data import make_toy
from explorer.text import number, signed
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


def test_residual_map_colours_and_sizes_by_y_minus_p(moons_fit, grid):
    tr, m = moons_fit, 3
    fig = figures.residual_map(tr, m, grid)
    scatter = fig.data[1]
    r = np.asarray(scatter.marker.color)
    np.testing.assert_allclose(r, tr.y - tr.proba(m), atol=1e-12)
    size = np.asarray(scatter.marker.size)
    assert np.all(np.diff(size[np.argsort(np.abs(r))]) >= -1e-12)  # bigger |r|, bigger point
    assert scatter.marker.cmid == 0 and scatter.marker.cmin == -1 and scatter.marker.cmax == 1


def test_tree_regions_label_every_leaf_with_its_newton_value(moons_fit, grid):
    tr, m = moons_fit, 2
    leaf = int(summaries.leaves_of(tr, m)[0])
    fig = figures.tree_regions(tr, m, grid, leaf=leaf)
    labels = [a for a in fig.layout.annotations if (a.name or "").startswith("label:")]
    nodes = [int(a.name.split(":")[1]) for a in labels]  # named label:<node>: a click selects
    boxes = tr.regions(m, grid.lo, grid.hi)
    visible = [int(b["node"]) for b in boxes if b["x1"] > b["x0"] and b["y1"] > b["y0"]]
    assert sorted(nodes) == sorted(visible)
    for a, node in zip(labels, nodes):
        g = tr.tree(m)["value"][node]
        # the label in full, or shortened where its box is small (leaf_labels)
        assert a.text in (f"γ = {signed(g)}", signed(g), signed(g, 2))
        assert a.captureevents
        assert a.hovertext.startswith(f"leaf {node} (click to select)")
        assert f"γ = {number(g, 6)}" in a.hovertext
    # the selected leaf gets a thick outline on top, then transparent boxes and labels up to
    # the most any tree of the fit has: every round's figure holds as many
    outline = [s for s in fig.layout.shapes if s.opacity != 0][-1]
    assert outline.line.width == 4 and outline.layer == "above"
    assert all(a.opacity == 0 for a in fig.layout.annotations if a not in labels)
    slots = max(len(tr.tree(r)) + 1 for r in range(1, tr.n_rounds + 1)) // 2
    assert len(fig.layout.shapes) == slots + 1 and len(fig.layout.annotations) == slots


def test_update_panels_add_up(moons_fit, grid):
    tr, m = moons_fit, 6
    fig = figures.update_panels(tr, m, grid)
    heat = [k for k, t in enumerate(fig.data) if t.type == "heatmap"]
    before, step, after = (trace_array(fig, k, "z") for k in heat)
    np.testing.assert_allclose(before + step, after, atol=1e-5)
    exact = tree_on_grid(tr, m, grid)
    np.testing.assert_allclose(step, exact)
    assert set(np.unique(np.round(exact / tr.learning_rate, 12))) <= set(
        np.round(tr.tree(m)["value"], 12))


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


def test_tree_m_on_a_line_shows_each_leaf_value_over_its_interval(sine):
    tr, grid = sine
    m = 3
    tree = tr.tree(m)
    leaf = int(tr.leaf[m, 0])
    fig = figures.tree_regions(tr, m, grid, feature_names=("x",), leaf=leaf, sample=0)
    spec = check_figure(fig)
    steps = [t for t in spec["data"] if t.get("name", "").startswith(f"tree {m}")][0]
    ys = [v for v in steps["y"] if v is not None]
    xs = [v for v in steps["x"] if v is not None]
    # every leaf's step sits at its value, and the steps tile the line without gaps
    leaves = summaries.leaves_of(tr, m)
    assert sorted(set(ys)) == sorted(set(float(tree["value"][k]) for k in leaves))
    assert xs[0] == grid.lo[0] and xs[-1] == grid.hi[0]
    inside = tree_leaf_of(tree, np.array([[x] for x in xs[::2]]) + 1e-9)
    np.testing.assert_allclose([float(tree["value"][k]) for k in inside], ys[::2])
    # the residuals it fits are r at F_(m-1); the selected leaf is shaded
    points = [k for k, t in enumerate(spec["data"]) if t.get("name", "").startswith("r =")][0]
    np.testing.assert_allclose(trace_array(fig, points, "y"), tr.residual(m - 1), rtol=1e-5,
                               atol=1e-6)
    assert len(spec["layout"]["shapes"]) == 1
    marks = [t for t in spec["data"] if t.get("name") == "leaf value γ"][0]
    assert sorted(int(k) for k in np.asarray(trace_array(fig, spec["data"].index(marks),
                                                         "customdata"))[:, 0]) == list(leaves)


def test_histogram_trees_draw_their_bin_lattice_and_others_none(moons_fit, grid):
    """With max_bins = 4 each feature has 3 bin edges: the lattice of lines a split can
    fall on, drawn under the leaves' boxes; exact trees have no lattice."""
    from sklearn.datasets import make_moons
    import explorer
    from explorer.numbers.grid import make_grid
    X, y = make_moons(200, noise=0.3, random_state=0)
    tr = explorer.fit(X, y, split="histogram", max_bins=4, n_rounds=3)
    g = make_grid(tr, resolution=20)
    fig = figures.tree_regions(tr, 2, g)
    lattice = [t for t in fig.data if t.name and t.name.startswith("bin edges")]
    assert len(lattice) == 1
    xs = {v for v in lattice[0].x if v is not None}
    inside = [t for t in tr.bin_thresholds[0] if g.lo[0] < t < g.hi[0]]
    assert len(tr.bin_thresholds[0]) == 3 and set(inside) <= xs
    # every split of the tree is on an edge of the lattice
    tree = tr.tree(2)
    for f, t in zip(tree["feature"], tree["threshold"]):
        if f >= 0:
            assert t in set(tr.bin_thresholds[f])
    assert not [t for t in figures.tree_regions(moons_fit, 2, grid).data
                if t.name and t.name.startswith("bin edges")]
