"""Second-order trees against xgboost's exact method, and the leaf rules against their
definitions; every reference is computed here."""

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar
from sklearn.datasets import make_classification, make_moons

import explorer
import xgboost
from explorer import losses


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


def test_hessian_leaves_are_minus_G_over_H_plus_lambda():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, split="hessian", n_rounds=5, reg_lambda=2.0)
    for m in range(1, 6):
        tree = trace.tree(m)
        G, H = -tree["sum_r"], tree["sum_h"]
        leaves = tree["left"] == -1
        assert np.allclose(tree["value"][leaves], -G[leaves] / (H[leaves] + 2.0), rtol=1e-6)
        # and the sums are those of the samples in each leaf
        g = -trace.residual(m - 1)
        for k in np.flatnonzero(leaves):
            assert G[k] == pytest.approx(g[trace.leaf[m] == k].sum(), rel=1e-6, abs=1e-9)


def test_with_lambda_zero_hessian_leaves_equal_newton_leaves_on_the_same_regions():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, split="hessian", n_rounds=1, reg_lambda=0.0, min_child_weight=0.0)
    tree = trace.tree(1)
    r, h = trace.residual(0), trace.hessian(0)
    for k in np.flatnonzero(tree["left"] == -1):
        members = trace.leaf[1] == k
        assert tree["value"][k] == pytest.approx(r[members].sum() / h[members].sum(), rel=1e-5)


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_exact_leaves_are_the_root_of_the_leaf_loss_derivative(loss):
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, loss=loss, leaf="exact", n_rounds=6, max_depth=2)
    code = losses.CODES[loss]
    for m in range(1, 7):
        tree, F = trace.tree(m), trace.raw[m - 1]
        for k in np.flatnonzero(tree["left"] == -1):
            members = trace.leaf[m] == k
            yk, Fk = trace.y[members], F[members]
            if yk.min() == yk.max():
                continue  # a pure leaf has no finite minimiser

            def slope(t):
                return sum(losses.residual(code, a, b + t) for a, b in zip(yk, Fk))

            root = brentq(slope, -50, 50, xtol=1e-13)
            assert tree["value"][k] == pytest.approx(root, abs=1e-9)


def test_exact_leaves_differ_from_one_newton_step():
    X, y = DATA["moons"]
    newton = explorer.fit(X, y, n_rounds=1, max_depth=2)
    exact = explorer.fit(X, y, n_rounds=1, max_depth=2, leaf="exact")
    assert np.array_equal(newton.tree(1)["threshold"], exact.tree(1)["threshold"])
    leaves = newton.tree(1)["left"] == -1
    gap = np.abs(newton.tree(1)["value"][leaves] - exact.tree(1)["value"][leaves])
    assert gap.max() > 1e-6


@pytest.mark.parametrize("loss", ["log_loss", "exponential", "squared_error"])
def test_line_search_step_minimises_the_loss_along_the_tree(loss):
    X, y = DATA["moons"]
    target = X[:, 1] if loss == "squared_error" else y
    trace = explorer.fit(X, target, loss=loss, leaf="line_search", n_rounds=4)
    mean_leaves = explorer.fit(X, target, loss=loss, leaf="mean", n_rounds=1)
    # round 1 starts from the same F_0, so its direction is round 1 of the mean-leaf fit
    direction = mean_leaves.tree(1)["value"][mean_leaves.leaf[1]]
    code = losses.CODES[loss]

    def total(rho):
        return losses.mean_loss(code, trace.y, trace.raw[0] + rho * direction)

    best = minimize_scalar(total, bracket=(0.0, 1.0), tol=1e-12).x
    assert trace.rho[1] == pytest.approx(best, rel=1e-6)
    assert np.allclose(trace.tree(1)["value"][trace.leaf[1]], trace.rho[1] * direction)
    if loss == "squared_error":
        assert trace.rho[1] == pytest.approx(1.0)


def test_mean_leaves_are_the_mean_residual():
    X, y = DATA["ties"]
    trace = explorer.fit(X, y, leaf="mean", n_rounds=3)
    r = trace.residual(2)
    tree = trace.tree(3)
    for k in np.flatnonzero(tree["left"] == -1):
        assert tree["value"][k] == pytest.approx(r[trace.leaf[3] == k].mean(), rel=1e-12)


@pytest.mark.parametrize("kwargs, words", [
    ({"split": "gini"}, "split"),
    ({"leaf": "median"}, "leaf"),
    ({"split": "hessian", "loss": "exponential"}, "log_loss"),
    ({"split": "hessian", "max_depth": None}, "max_depth"),
    ({"split": "hessian", "max_leaves": 4}, "max_leaves"),
    ({"split": "hessian", "subsample": 0.5}, "subsample"),
    ({"split": "hessian", "leaf": "exact"}, "leaf"),
    ({"reg_lambda": 2.0}, "reg_lambda"),
    ({"split": "hessian", "reg_lambda": -1.0}, "reg_lambda"),
    ({"split": "hessian", "gamma": float("nan")}, "gamma"),
    ({"split": "hessian", "min_child_weight": -0.5}, "min_child_weight"),
])
def test_variant_options_are_checked(kwargs, words):
    X, y = DATA["moons"]
    with pytest.raises(ValueError, match=words):
        explorer.fit(X, y, n_rounds=2, **kwargs)
