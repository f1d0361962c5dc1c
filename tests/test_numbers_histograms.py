"""explorer.numbers.histograms: a node's histograms and scan, as the engine had them."""

import functools

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs, make_moons

import explorer
from explorer.histogram_tree import BUILT, NO_HISTOGRAM, SUBTRACTED
from explorer.numbers.histograms import node_histograms, scan

MOONS = make_moons(1500, noise=0.3, random_state=0)


@functools.cache
def fitted(name):
    """(trace, the class whose trees are looked at) of a problem, fitted when a test first
    asks: not at collection, which every test process does for every file."""
    if name == "binary":
        X, y = MOONS
        return explorer.fit(X, y, split="histogram", n_rounds=4, max_leaves=8, max_bins=32,
                            reg_lambda=0.5), 0
    if name == "three classes":
        X3, y3 = make_blobs(900, centers=3, cluster_std=2.0, random_state=0)
        return explorer.fit(X3, y3, split="histogram", n_rounds=3, max_leaves=6), 2
    x1 = np.random.RandomState(0).uniform(-3, 3, size=(700, 1))
    return explorer.fit(x1, np.sin(2 * x1[:, 0]), loss="squared_error", split="histogram",
                        n_rounds=3, max_leaves=6), 0


NAMES = ("binary", "three classes", "regression")


@pytest.mark.parametrize("name", NAMES)
def test_the_scan_finds_the_recorded_split_and_gain(name):
    trace, k = fitted(name)
    for m in range(1, trace.n_rounds + 1):
        tree, extra = trace.tree(m, k), trace.tree_histograms(m, k)
        for u in np.flatnonzero(tree["left"] >= 0):
            s = scan(trace, m, u, k)
            best = np.nanargmax(s["gain"])  # the first of equal gains: lowest feature, bin
            f, b = np.unravel_index(best, s["gain"].shape)
            assert (f, b) == (tree[u]["feature"], extra[u]["bin"])
            assert s["gain"][f, b] == tree[u]["improvement"]
            # the children's sums are the scan's at the chosen boundary
            left = tree[tree[u]["left"]]
            assert -left["sum_r"] == s["G_L"][f, b] and left["sum_h"] == s["H_L"][f, b]
            assert left["n"] == s["n_L"][f, b]


def test_built_and_subtracted_histograms():
    trace, _ = fitted("binary")
    tree, extra = trace.tree(2), trace.tree_histograms(2)
    kinds = set(extra["histogram"])
    assert {BUILT, SUBTRACTED} <= kinds
    G0, H0, n0 = node_histograms(trace, 2, 0)
    assert n0.sum(axis=1).tolist() == [len(trace.y)] * 2
    for u in np.flatnonzero(extra["histogram"] == SUBTRACTED):
        G, H, n = node_histograms(trace, 2, u)
        assert (n.sum(axis=1) == tree[u]["n"]).all()
        assert np.allclose(G.sum(axis=1), -tree[u]["sum_r"], atol=1e-9)
    no = np.flatnonzero(extra["histogram"] == NO_HISTOGRAM)
    if len(no):
        with pytest.raises(ValueError, match="had no histogram"):
            node_histograms(trace, 2, no[0])


def test_other_rules_are_refused():
    X, y = MOONS
    trace = explorer.fit(X, y, n_rounds=1)
    with pytest.raises(ValueError, match="split='histogram' fits"):
        scan(trace, 1, 0)
    assert_array_equal(trace.bin_thresholds is None, True)


def test_the_views_numbers_compare_in_float64():
    """Values 1e-9 apart (one float32): a node's members and a tree on the grid see
    them apart, as the histogram trees do."""
    from explorer.numbers.grid import make_grid, tree_on_grid
    from explorer.numbers.leaves import members

    rng = np.random.RandomState(3)
    X = 1.0 + rng.randint(0, 40, size=(1000, 2)) * 1e-9
    y = ((X[:, 0] - 1.0) * 1e9 + rng.normal(0, 6, size=1000) > 20).astype(int)
    trace = explorer.fit(X, y, split="histogram", n_rounds=3, min_samples_leaf=5)
    assert trace.point_dtype == np.float64
    tree = trace.tree(2)
    for u in range(len(tree)):
        assert members(trace, 2, u).sum() == tree[u]["n"]
    grid = make_grid(trace, resolution=25)
    exact = trace.staged_decision_grid(grid.xs, grid.ys)
    step = tree_on_grid(trace, 2, grid)
    assert np.allclose(exact[2] - exact[1], step, rtol=0, atol=1e-12)
    assert len(np.unique(step)) > 1
