"""explorer.numbers.splits: the split scan peaks at the split the tree chose, and each
rule's best row is its argmax."""

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
    assert ("= 2·(gain + γ)" in name) == hessian
    assert ("divided by N" in name) != hessian
    tree = t.tree(2)
    rule = "hessian" if hessian else "squared_error"
    for node in np.flatnonzero(tree["left"] >= 0):
        c = splits.scan(t, 2, node)[int(tree["feature"][node])]
        i = int(np.argmin(np.abs(c["thresholds"] - c["chosen"])))
        assert splits.as_gain(t, 2, node) == pytest.approx(c[rule][i], rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("split", ["squared_error", "hessian"])
def test_best_rows_are_each_rules_argmax(split):
    trace = explorer.fit(X, Y, n_rounds=3, split=split)
    tree = trace.tree(2)
    for node in range(len(tree)):
        scans = splits.scan(trace, 2, node)
        rows = splits.best_rows(scans, ("a", "b"))
        assert [(r["feature"], r["rule"]) for r in rows] == [
            ("a", "squared error"), ("a", "second order"), ("b", "squared error"),
            ("b", "second order")]
        for row, (sc, field) in zip(rows, [(sc, f) for sc in scans
                                           for f in ("squared_error", "hessian")]):
            assert row["chosen by the tree"] == sc["chosen"]
            if len(sc[field]):
                best = int(np.argmax(sc[field]))
                assert sc["best"][field] == best
                assert row["best threshold"] == float(sc["thresholds"][best])
                assert row["best gain"] == float(sc[field][best])
            else:
                assert sc["best"][field] is None
                assert row["best threshold"] is None and row["best gain"] is None


def test_best_rows_of_a_node_without_candidates():
    trace = explorer.fit(X, Y, n_rounds=2, max_depth=8)
    tree = trace.tree(2)
    tiny = [k for k in range(len(tree)) if tree["n"][k] == 1]
    assert tiny, "a depth-8 tree has a leaf of one sample"
    rows = splits.best_rows(splits.scan(trace, 2, tiny[0]), ("a", "b"))
    assert all(r["best threshold"] is None and r["best gain"] is None for r in rows)


def test_the_split_scan_of_a_class_tree_finds_its_split(three):
    from explorer.numbers import splits
    trace, _, _ = three
    for k in range(3):
        tree = trace.tree(2, k)
        scans = splits.scan(trace, 2, 0, k=k)
        f = int(tree["feature"][0])
        best = scans[f]["best"]["squared_error"]
        assert scans[f]["chosen"] == tree["threshold"][0]
        assert scans[f]["thresholds"][best] == pytest.approx(tree["threshold"][0])
