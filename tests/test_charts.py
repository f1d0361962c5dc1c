"""explorer.figures.charts: the loss curves and the tree diagram."""

from __future__ import annotations

import numpy as np

from explorer import figures
from explorer.figures.layout import text_width
from explorer.text import number, signed


def test_curves_mark_the_round_and_carry_rounds(moons_fit):
    tr, m = moons_fit, 5
    fig = figures.curves(tr, m)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert {t.name for t in lines} == {"train", "validation"}
    np.testing.assert_allclose(lines[0].y, tr.train_loss)
    assert list(lines[0].customdata) == list(range(tr.n_rounds + 1))
    assert all(t.mode == "lines+markers" for t in fig.data)  # round m's markers are shapes
    rules = [s for s in fig.layout.shapes if s.type == "line"]
    marks = [s for s in fig.layout.shapes if s.type == "circle"]
    assert [s.x0 for s in rules] == [m, m]  # one per panel: loss, accuracy
    assert [(s.xanchor, s.yanchor, s.yref) for s in marks] == [
        (m, line.y[m], line.yaxis) for line in fig.data]


def test_tree_diagram_shows_split_n_sums_improvement_and_values(moons_fit):
    tr, m = moons_fit, 3
    tree = tr.tree(m)
    fig = figures.tree_diagram(tr, m, feature_names=("a", "b"))
    text = " ".join(a.text for a in fig.layout.annotations)
    for k in range(len(tree)):
        assert f"n = {int(tree['n'][k])}" in text
    for k in np.flatnonzero(tree["left"] < 0):
        assert f"leaf {k}" in text
        assert signed(tree["value"][k], 4) in text
    root = tree[0]
    assert f"{'ab'[root['feature']]} ≤ {number(root['threshold'], 4)}" in text
    assert "improvement" in text and "Σr" in text and "Σh" in text


def test_a_tree_of_31_leaves_keeps_every_split_in_its_hover_and_no_label_on_another(
        warm_engine):
    """HistGradientBoosting's 31 leaves in the Tree page's diagram: a split is a dot with
    its rule and numbers in its hover; a leaf's value is written where it has room at
    the narrowest width (largest |γ| first) and is always in its hover."""
    from explorer import fit
    from explorer.data import make_toy
    from explorer.figures import charts
    ds = make_toy("moons", n=2500, noise=0.3, seed=0)
    tr = fit(ds.X, ds.y, split="histogram", n_rounds=3)
    tree = tr.tree(3)
    is_leaf = tree["left"] < 0
    assert is_leaf.sum() > charts.TINY
    fig = figures.tree_diagram(tr, 3, feature_names=("a", "b"))
    assert "per node its split in its hover" in fig.layout.title.text
    nodes = fig.data[1]
    for k in range(len(tree)):
        if is_leaf[k]:
            assert nodes.hovertext[k].startswith(f"leaf {k}: γ = "
                                                 f"{signed(tree['value'][k], 4)}")
        else:
            rule = f"{'ab'[tree['feature'][k]]} ≤ {number(tree['threshold'][k], 4)}"
            assert nodes.hovertext[k].startswith(f"node {k}: {rule}")
    notes = list(fig.layout.annotations)
    assert len(notes) == is_leaf.sum()  # the leaves' boxes; no text for a split
    px = charts.DIAGRAM_PX / (is_leaf.sum() - 1 + 1.4)
    boxes = {}
    for a in notes:
        if a.text.strip():
            half = (text_width(a.text, a.font.size) + 2 * (a.borderpad + a.borderwidth)) / 2
            boxes.setdefault(a.y, []).append((a.x * px - half, a.x * px + half))
    assert sum(map(len, boxes.values())) >= is_leaf.sum() // 2  # most values are written
    for row in boxes.values():
        row.sort()
        assert all(a[1] <= b[0] for a, b in zip(row, row[1:]))
    top = max(np.flatnonzero(is_leaf), key=lambda k: abs(tree["value"][k]))
    assert any(signed(tree["value"][top], 2) in a.text for a in notes)
