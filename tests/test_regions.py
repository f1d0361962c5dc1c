"""explorer.figures.regions: view 3, tree m's leaves on the plane (or along a
regression's one input), labelled with their values."""

from __future__ import annotations

import numpy as np

from explorer import figures
from explorer.numbers import summaries
from explorer.numbers.grid import tree_leaf_of
from explorer.text import number, signed
from figure_helpers import check_figure, trace_array


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
