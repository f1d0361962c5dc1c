"""explorer.numbers.splits: the split scan peaks at the split the tree chose."""

import numpy as np
import pytest

import explorer
from explorer.numbers import splits
from fit_data import MOONS_300

X, Y = MOONS_300


@pytest.mark.parametrize("split", ["squared_error", "hessian"])
def test_split_scan_peaks_at_the_chosen_split(split):
    trace = explorer.fit(X, Y, n_rounds=3, split=split)
    tree = trace.tree(2)
    for node in np.flatnonzero(tree["left"] >= 0):
        features = splits.scan(trace, 2, node)
        gain = "squared_error" if split == "squared_error" else "hessian"
        best = max((s[gain].max(), s["feature"]) for s in features if len(s[gain]))
        chosen = features[tree["feature"][node]]
        assert chosen["chosen"] is not None
        at_choice = chosen[gain][np.argmin(np.abs(chosen["thresholds"] - chosen["chosen"]))]
        assert at_choice == pytest.approx(best[0], rel=1e-6)
        if split == "squared_error":  # the scan's reduction is the recorded improvement, rescaled
            n_root = tree["n"][0]
            assert at_choice / n_root == pytest.approx(tree["improvement"][node], rel=1e-6)


@pytest.mark.parametrize("params", [{}, dict(split="hessian"), dict(split="hessian", gamma=0.5),
                                    dict(subsample=0.5)])
def test_the_tree_pages_improvement_is_the_splits_pages_gain_as_named(params):
    """Issue 29, item 5: the two pages' numbers of one split, each named, and related by
    splits.as_gain exactly as improvement_name says."""
    from explorer import fit
    from explorer.data import make_toy, split as split_data
    train, _ = split_data(make_toy("moons", n=400, noise=0.25, seed=0), 0.2, 0)
    t = fit(train.X, train.y, n_rounds=3, **params)
    hessian = params.get("split") == "hessian"
    name = splits.improvement_name(t)
    assert ("twice the Splits page's gain, plus γ" in name) == hessian
    assert ("divided by N" in name) != hessian
    tree = t.tree(2)
    rule = "hessian" if hessian else "squared_error"
    for node in np.flatnonzero(tree["left"] >= 0):
        c = splits.scan(t, 2, node)[int(tree["feature"][node])]
        i = int(np.argmin(np.abs(c["thresholds"] - c["chosen"])))
        assert splits.as_gain(t, 2, node) == pytest.approx(c[rule][i], rel=1e-5, abs=1e-6)
