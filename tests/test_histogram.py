"""Histogram trees piece by piece: numpy's pairwise sum, histograms and the subtraction
trick, the split scan, heapq's order, the record, the refusals and the per-rule table."""

import heapq

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_moons

import explorer
from explorer import binning, histogram, histogram_tree, rules
from explorer.histogram_tree import BUILT, NO_HISTOGRAM, SUBTRACTED

MOONS = make_moons(1000, noise=0.3, random_state=0)


def test_root_sums_are_numpys_sum_of_feature_0s_histogram():
    """The root's G (and H) are np.sum over feature 0's bins of a histogram summed in
    sample order, at every round (np.bincount adds in sample order)."""
    X, y = make_moons(6000, noise=0.4, random_state=1)
    # a large learning rate spreads the gradients' magnitudes: their float64 sums round
    trace = explorer.fit(X, y, split="histogram", n_rounds=30, max_leaves=8, learning_rate=1.0,
                         min_samples_leaf=1)
    bins = binning.bin_columns(X, trace.bin_thresholds)[0]
    plain_differs = 0
    for m in range(1, 31):
        g = (-trace.residual(m - 1)).astype(np.float32).astype(np.float64)
        h = trace.hessian(m - 1).astype(np.float32).astype(np.float64)
        G_b = np.bincount(bins, weights=g, minlength=256)
        H_b = np.bincount(bins, weights=h, minlength=256)
        root = trace.tree(m)[0]
        assert -root["sum_r"] == np.sum(G_b)
        assert root["sum_h"] == np.sum(H_b)
        plain = 0.0
        for value in G_b:
            plain += value
        plain_differs += plain != np.sum(G_b)
    assert plain_differs > 0  # the data tell a running sum from numpy's


def _histograms(binned, g, h, samples, constant=False, width=256):
    pool = histogram.new_pool(3, binned.shape[0], width)
    g_node = np.empty(len(g), np.float32)
    h_node = np.empty(len(g), np.float32)
    histogram.build(binned, g, h, constant, samples, g_node, h_node, *pool, 0)
    return pool


def test_histogram_sums_each_bin_in_sample_order():
    rng = np.random.RandomState(1)
    binned = rng.randint(0, 5, size=(2, 300)).astype(np.uint8)
    g = rng.normal(size=300).astype(np.float32)
    h = rng.uniform(size=300).astype(np.float32)
    samples = np.sort(rng.choice(300, 120, replace=False)).astype(np.int64)
    G, H, C = _histograms(binned, g, h, samples)
    for f in range(2):
        for b in range(5):
            mine = samples[binned[f, samples] == b]
            total = 0.0
            for i in mine:
                total += float(g[i])
            assert G[0, f, b] == total
            assert C[0, f, b] == len(mine)
            assert H[0, f, b] == np.add.accumulate(h[mine].astype(np.float64))[-1]


def test_subtraction_gives_the_sibling():
    rng = np.random.RandomState(2)
    binned = rng.randint(0, 8, size=(2, 400)).astype(np.uint8)
    g = rng.normal(size=400).astype(np.float32)
    h = rng.uniform(size=400).astype(np.float32)
    everyone = np.arange(400, dtype=np.int64)
    left = everyone[binned[0] <= 3]
    right = everyone[binned[0] > 3]
    G, H, C = histogram.new_pool(3, 2, 256)
    g_node, h_node = np.empty(400, np.float32), np.empty(400, np.float32)
    histogram.build(binned, g, h, False, everyone, g_node, h_node, G, H, C, 0)
    histogram.build(binned, g, h, False, left, g_node, h_node, G, H, C, 1)
    histogram.subtract(G, H, C, 0, 1, 2)
    Gr, Hr, Cr = _histograms(binned, g, h, right)
    assert_array_equal(C[2], Cr[0])  # counts exactly
    np.testing.assert_allclose(G[2], Gr[0], atol=1e-12)  # sums up to rounding
    np.testing.assert_allclose(H[2], Hr[0], atol=1e-12)


def test_best_split_gain_and_ties():
    """The gain is G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l) (the root's term 0); of equal
    gains the lowest bin wins, and the lowest feature."""
    G = np.zeros((1, 2, 256))
    H = np.zeros((1, 2, 256))
    C = np.zeros((1, 2, 256), dtype=np.uint32)
    # feature 0: bins 0..3, gradients -1, +1, -1, +1: a split after bin 0 or after bin 2
    # gains the same; feature 1 has the same histogram
    for f in range(2):
        G[0, f, :4] = [-1.0, 1.0, -1.0, 1.0]
        H[0, f, :4] = 1.0
        C[0, f, :4] = 1
    split = np.empty(len(histogram.SPLIT_FIELDS))
    lam = 0.5
    gain = histogram.best_split(G, H, C, 0, np.array([4, 4]), 4, 0.0, 4.0, 0.0, False, lam, 1,
                                split)
    fields = dict(zip(histogram.SPLIT_FIELDS, split))
    assert fields["feature"] == 0 and fields["bin"] == 0
    expected = 1 / (1 + lam) + 1 / (3 + lam)  # G_L = -1, G_R = 1, root term 0
    assert gain == pytest.approx(expected, rel=1e-15)
    assert fields["value_left"] == 1 / (1 + lam + 1e-15)
    # min_samples_leaf 2: only the middle boundary is allowed, and it gains nothing
    assert histogram.best_split(G, H, C, 0, np.array([4, 4]), 4, 0.0, 4.0, 0.0, False, lam, 2,
                                split) == -1.0


class _Node:
    def __init__(self, gain, name):
        self.gain, self.name = gain, name

    def __lt__(self, other):  # scikit-learn's TreeNode: a larger gain comes first
        return self.gain > other.gain


def test_heap_pops_in_heapqs_order_on_ties():
    rng = np.random.RandomState(3)
    for trial in range(200):
        gains = rng.choice([1.0, 2.0, 3.0], size=rng.randint(1, 30))
        splits = np.zeros((len(gains), len(histogram.SPLIT_FIELDS)))
        splits[:, 0] = gains
        heap = np.empty(len(gains), dtype=np.int64)
        size = 0
        theirs = []
        popped_ours, popped_theirs = [], []
        for j in range(len(gains)):  # pushes with a pop now and then, as the grower does
            size = histogram_tree._push(heap, size, splits, j)
            heapq.heappush(theirs, _Node(gains[j], j))
            if rng.uniform() < 0.3:
                size, top = histogram_tree._pop(heap, size, splits)
                popped_ours.append(top)
                popped_theirs.append(heapq.heappop(theirs).name)
        while size:
            size, top = histogram_tree._pop(heap, size, splits)
            popped_ours.append(top)
            popped_theirs.append(heapq.heappop(theirs).name)
        assert popped_ours == popped_theirs


def test_the_record_of_each_tree():
    X, y = MOONS
    trace = explorer.fit(X, y, split="histogram", n_rounds=5, max_leaves=8, max_bins=16)
    assert trace.histogram and trace.bin_thresholds is not None
    assert [len(t) for t in trace.bin_thresholds] == [15, 15]
    for m in range(1, 6):
        tree, extra = trace.tree(m), trace.tree_histograms(m)
        inner = tree["left"] != -1
        assert (inner.sum() + 1) == (~inner).sum() <= 8
        # the splits' order: 0, 1, 2... over the inner nodes, the root first
        assert sorted(extra["split_order"][inner]) == list(range(inner.sum()))
        assert extra["split_order"][0] == 0 and (extra["split_order"][~inner] == -1).all()
        # thresholds are bin thresholds; the bin says which
        for node, more in zip(tree[inner], extra[inner]):
            assert node["threshold"] == trace.bin_thresholds[node["feature"]][more["bin"]]
        # the smaller child is built from its samples (the right one on equal counts), the
        # other subtracted; children that are never split may have no histogram
        assert extra[0]["histogram"] == BUILT
        for node in tree[inner]:
            a, b = node["left"], node["right"]
            kinds = {extra[a]["histogram"], extra[b]["histogram"]}
            if kinds == {NO_HISTOGRAM}:
                continue
            small = a if tree[a]["n"] < tree[b]["n"] else b
            assert extra[small]["histogram"] == BUILT
            assert extra[a + b - small]["histogram"] == SUBTRACTED
        # every sample's leaf holds it
        assert_array_equal(np.bincount(trace.leaf[m], minlength=len(tree))[~inner],
                           tree["n"][~inner])


def test_predictions_compare_in_float64():
    X, y = MOONS
    trace = explorer.fit(X, y, split="histogram", n_rounds=3, max_leaves=4)
    t = trace.tree(1)[0]
    f, thr = t["feature"], t["threshold"]
    just_above = np.nextafter(thr, np.inf)
    assert np.float32(thr) == np.float32(just_above)
    at = np.tile(X[:1], (2, 1))
    at[0, f], at[1, f] = thr, just_above
    leaves = trace.staged_decision_function(at)[1]
    assert leaves[0] != leaves[1]  # float32 would put both on the same side


@pytest.mark.parametrize("options, message", [
    (dict(loss="exponential"), "split='histogram' supports loss='log_loss' and 'squared_error'"),
    (dict(leaf="mean"), "leaf='mean' has no effect with split='histogram'"),
    (dict(leaf="line_search"), "leaf='line_search' has no effect with split='histogram'"),
    (dict(subsample=0.5), "subsample=0.5 has no effect with split='histogram'"),
    (dict(min_samples_split=4), "min_samples_split=4 has no effect with split='histogram'"),
    (dict(gamma=0.1), "gamma=0.1 has no effect with split='histogram'"),
    (dict(min_child_weight=2.0), "min_child_weight=2.0 has no effect with split='histogram'"),
    (dict(max_bins=1), "max_bins must be in 2..255; got 1"),
    (dict(max_bins=256), "max_bins must be in 2..255; got 256"),
    (dict(max_leaves=1), "max_leaves must be in 2..1000000; got 1"),
    (dict(min_samples_leaf=0), "min_samples_leaf must be in"),
    (dict(reg_lambda=-1.0), "reg_lambda must be in"),
])
def test_refusals(options, message):
    X, y = MOONS
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        explorer.fit(X, y, split="histogram", n_rounds=1, **options)


def test_refusals_of_data():
    X, y = MOONS
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        explorer.fit(bad, y, split="histogram", n_rounds=1)
    with pytest.raises(ValueError, match="max_bins=16 has no effect with split='squared_error'"):
        explorer.fit(X, y, n_rounds=1, max_bins=16)


def test_unused_values_are_accepted():
    """What a rule does not use may still be passed at its unused value (as the app's
    older links and the other rules' defaults do)."""
    X, y = MOONS
    trace = explorer.fit(X, y, split="histogram", n_rounds=1, subsample=1.0, gamma=0.0,
                         leaf="newton", min_samples_split=2, min_child_weight=1.0)
    assert trace.params["subsample"] == 1.0


def test_per_rule_defaults():
    X, y = MOONS
    default = explorer.fit(X, y, n_rounds=1)
    assert default.params["max_depth"] == 3 and default.params["min_samples_leaf"] == 1
    assert default.params["max_leaves"] is None and default.params["reg_lambda"] == 1.0
    hist = explorer.fit(X, y, n_rounds=1, split="histogram")
    assert (hist.params["max_depth"], hist.params["max_leaves"], hist.params["min_samples_leaf"],
            hist.params["reg_lambda"], hist.params["max_bins"]) == (None, 31, 20, 0.0, 255)
    for split in rules.SPLITS:
        table = rules.defaults(split)
        assert set(table) == set(rules.PARAMS)
        for name in rules.USES[split]:
            assert rules.uses(name, split)
    with pytest.raises(ValueError, match="split must be one of"):
        rules.defaults("exact")
