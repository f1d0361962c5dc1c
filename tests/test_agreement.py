"""explorer.numbers.agreement: the app's own check against scikit-learn (or xgboost's
exact method for second-order trees) finds no difference, and names what it cannot check."""

import pytest

import explorer
from explorer.data import make_toy
from fit_data import MOONS_300

X, Y = MOONS_300


@pytest.mark.parametrize("options", [
    {}, {"loss": "exponential", "subsample": 0.7}, {"max_leaves": 5},
    {"split": "hessian", "reg_lambda": 0.5}, {"loss": "squared_error"},
    {"split": "histogram", "max_bins": 16, "reg_lambda": 0.5},
    {"split": "histogram", "loss": "squared_error"},
])
def test_agreement_panel_reports_zero_difference(options):
    from explorer.numbers.agreement import agreement

    target = X[:, 1] if options.get("loss") == "squared_error" else Y
    trace = explorer.fit(X, target, n_rounds=8, **options)
    report = agreement(trace)
    assert report["train"] <= 1e-9 and report["grid"] <= 1e-9
    assert report["reference"] == {"hessian": "xgboost (exact)",
                                   "histogram": "scikit-learn (HistGradientBoosting)"}.get(
        options.get("split"), "scikit-learn")


def test_agreement_with_histogram_trees_on_three_classes():
    from sklearn.datasets import load_iris

    from explorer.numbers.agreement import agreement

    iris = load_iris()
    trace = explorer.fit(iris.data[:, 2:], iris.target, n_rounds=6, split="histogram")
    report = agreement(trace)
    assert report["train"] == 0.0 and report["grid"] == 0.0


def test_agreement_refuses_rules_the_reference_lacks():
    from explorer.numbers.agreement import ReferenceUnavailable, agreement

    with pytest.raises(ReferenceUnavailable, match="leaf"):
        agreement(explorer.fit(X, Y, n_rounds=2, leaf="mean"))


def test_agreement_with_scikit_learn_and_xgboost_for_three_classes(warm_engine):
    from explorer.numbers.agreement import agreement
    ds = make_toy("blobs", n=120, seed=2)
    for split in ("squared_error", "hessian"):
        trace = explorer.fit(ds.X, ds.y, n_rounds=4, split=split)
        result = agreement(trace)
        assert result["train"] <= (0.0 if split == "squared_error" else 1e-5)
        assert result["grid"] <= (0.0 if split == "squared_error" else 1e-5)
