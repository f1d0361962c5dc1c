"""Second-order trees against xgboost's exact method: the same margins at every round,
on the data and beyond it, and as many leaves. Every reference is computed here."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_moons

import explorer
import xgboost

ROUNDS = 25
TOL = 1e-5


def _data():
    rng = np.random.RandomState(0)
    Xm, ym = make_moons(500, noise=0.3, random_state=1)
    X10, y10 = make_classification(400, n_features=10, n_informative=4, random_state=3)
    return {
        "moons": (Xm, ym),
        "ties": (np.round(Xm * 2) / 2, ym),
        "10d": (X10, y10),
        "imbalanced": (Xm, (Xm[:, 0] > 1.2).astype(int)),
        "unit": (rng.uniform(0.5, 1, (400, 2)), rng.randint(0, 2, 400)),
    }


DATA = _data()


def _margins(booster, X, m):
    return booster.predict(xgboost.DMatrix(X), output_margin=True, iteration_range=(0, m))


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("params", [
    {},
    {"max_depth": 1},
    {"max_depth": 5, "learning_rate": 0.5},
    {"reg_lambda": 0.0},
    {"reg_lambda": 5.0, "min_child_weight": 3.0},
    {"gamma": 0.8},
    {"min_child_weight": 0.0, "reg_lambda": 0.1},
])
def test_hessian_split_builds_xgboost_exact_trees(name, params):
    X, y = DATA[name]
    params = {"max_depth": 3, "learning_rate": 0.3, **params}
    trace = explorer.fit(X, y, split="hessian", n_rounds=ROUNDS, **params)
    model = xgboost.XGBClassifier(tree_method="exact", n_estimators=ROUNDS, n_jobs=1,
                                  **params).fit(X, y)
    booster = model.get_booster()
    span = X.max(0) - X.min(0)
    G = np.random.RandomState(2).uniform(X.min(0) - span, X.max(0) + span, (1500, X.shape[1]))
    staged = trace.staged_decision_function(G)
    for m in range(1, ROUNDS + 1):
        assert np.abs(trace.raw[m] - _margins(booster, X, m)).max() <= TOL
        assert np.abs(staged[m] - _margins(booster, G, m)).max() <= TOL
    # the same trees: as many leaves as xgboost's, on the same features
    dump = booster.get_dump()
    for m in (1, ROUNDS):
        tree = trace.tree(m)
        assert (tree["left"] == -1).sum() == dump[m - 1].count("leaf=")
