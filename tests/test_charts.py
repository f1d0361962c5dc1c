"""explorer.figures.charts: the loss curves and the tree diagram."""

from __future__ import annotations

import numpy as np

from explorer import figures
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
