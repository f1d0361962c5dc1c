"""The leaf view's and the split scan's numbers agree with the fit's own record."""

import numpy as np
import pytest
from sklearn.datasets import make_moons

import explorer
from explorer.numbers import leaves, splits

X, Y = make_moons(300, noise=0.3, random_state=0)


@pytest.mark.parametrize("options", [{}, {"subsample": 0.7}, {"loss": "exponential"}])
def test_leaf_story_matches_the_recorded_leaf(options):
    trace = explorer.fit(X, Y, n_rounds=5, **options)
    tree = trace.tree(3)
    for node in np.flatnonzero(tree["left"] == -1):
        story = leaves.leaf_story(trace, 3, node)
        assert story["n"] == tree["n"][node]
        assert story["sum_r"] == pytest.approx(tree["sum_r"][node], rel=1e-12, abs=1e-12)
        assert story["sum_h"] == pytest.approx(tree["sum_h"][node], rel=1e-12, abs=1e-12)
        assert story["newton"] == pytest.approx(tree["value"][node], rel=1e-12)
        assert story["update"] == pytest.approx(trace.learning_rate * tree["value"][node])
        # the Taylor quadratic touches the loss at 0 with the same slope
        i0 = np.argmin(np.abs(story["gammas"]))
        assert story["taylor"][i0] == pytest.approx(story["loss"][i0], rel=1e-6)
        if not story["pure"]:
            assert story["loss"].min() >= story["loss"][np.argmin(np.abs(story["gammas"] - story["exact"]))] - 1e-9
        assert np.isfinite(story["loss"]).all() and np.isfinite(story["taylor"]).all()
        if trace.loss == "log_loss":
            assert story["sum_r_pm"] == pytest.approx(story["sum_r"], rel=1e-9, abs=1e-12)
            assert story["sum_h_pm"] == pytest.approx(story["sum_h"], rel=1e-9, abs=1e-12)


def test_members_are_the_samples_the_tree_sends_there():
    trace = explorer.fit(X, Y, n_rounds=2, max_depth=4)
    tree = trace.tree(2)
    for node in range(len(tree)):
        assert leaves.members(trace, 2, node).sum() == tree["n"][node]


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


@pytest.mark.parametrize("options", [
    {}, {"loss": "exponential", "subsample": 0.7}, {"max_leaves": 5},
    {"split": "hessian", "reg_lambda": 0.5}, {"loss": "squared_error"},
])
def test_agreement_panel_reports_zero_difference(options):
    from explorer.numbers.agreement import agreement

    target = X[:, 1] if options.get("loss") == "squared_error" else Y
    trace = explorer.fit(X, target, n_rounds=8, **options)
    report = agreement(trace)
    assert report["train"] <= 1e-9 and report["grid"] <= 1e-9
    assert report["reference"] == ("xgboost (exact)" if "split" in options else "scikit-learn")


def test_agreement_refuses_rules_the_reference_lacks():
    from explorer.numbers.agreement import ReferenceUnavailable, agreement

    with pytest.raises(ReferenceUnavailable, match="leaf"):
        agreement(explorer.fit(X, Y, n_rounds=2, leaf="mean"))
