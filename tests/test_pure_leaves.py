"""Issue 29, item 6: a pure leaf of class k's tree holds only class k, or no class k at
all, and its loss keeps falling as γ → +∞ in the first case and γ → −∞ in the second."""

from __future__ import annotations

import numpy as np

from apptest_helpers import assert_clean, open_page
from explorer import fit
from explorer.data import make_toy
from explorer.numbers import leaves

X = np.random.RandomState(0).randn(200, 2)
Y = (X[:, 0] > 0).astype(int)  # separable: the first tree's leaves are pure


def _leaf_ids(trace, m, k=0):
    return np.flatnonzero(trace.tree(m, k)["left"] < 0)


def test_binary_pure_leaves_fall_towards_their_class():
    t = fit(X, Y, n_rounds=1, max_depth=1)
    sides = set()
    for node in _leaf_ids(t, 1):
        s = leaves.leaf_story(t, 1, node)
        assert s["pure"]
        y = t.y[leaves.members(t, 1, node)]
        assert s["side"] == (1 if (y == 1).all() else -1)
        assert np.sign(s["newton"]) == s["side"]  # the Newton step points the same way
        loss = s["loss"]  # and L_R falls towards that end of the γ range
        assert (loss[-1] < loss[0]) == (s["side"] > 0)
        sides.add(s["side"])
    assert sides == {1, -1}


def test_a_multiclass_leaf_with_no_point_of_class_k_is_pure_towards_minus_infinity():
    d = make_toy("iris", n=150, noise=0.2, seed=0)
    t = fit(d.X, d.y, n_rounds=1, max_depth=1)
    seen = []
    for k in range(3):
        for node in _leaf_ids(t, 1, k):
            s = leaves.leaf_story(t, 1, node, k=k)
            y = t.y[leaves.members(t, 1, node, k)]
            want = 1 if (y == k).all() else -1 if (y != k).all() else 0
            assert s["side"] == want and s["pure"] == (want != 0)
            seen.append((want, len(np.unique(y))))
    assert (-1, 2) in seen  # two classes in the leaf, neither of them k: pure all the same


def test_the_page_warns_which_way_the_loss_falls(warm_engine):
    at = open_page("pages/leaf_maths.py", round=1, leaf=2)
    assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "pure" in warnings and "γ → −∞" in warnings and "none of its" in warnings
    assert "grows" not in warnings and "one class only" not in warnings
    at = open_page("pages/leaf_maths.py", data="iris", round=10, cls=2, leaf=3)
    assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "one class only" not in warnings and "in class virginica" in warnings
    assert "γ → −∞" in warnings