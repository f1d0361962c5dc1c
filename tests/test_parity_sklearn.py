"""The engine builds scikit-learn's model exactly: the same trees, thresholds, values and
staged predictions, on the data and well beyond it.

Every reference number is computed here by scikit-learn itself.
"""

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

import explorer
from fit_data import DATA, assert_same_splits, beyond, sklearn_options, staged

TOL = 1e-9
ROUNDS = 25


def _assert_same_model(trace, model, X):
    assert np.abs(trace.raw[1:] - staged(model, X)).max() <= TOL
    assert trace.raw[0] == pytest.approx(np.ravel(model._raw_predict_init(X.astype(np.float32))),
                                         abs=TOL)
    G = beyond(X)
    assert np.abs(trace.staged_decision_function(G)[1:] - staged(model, G)).max() <= TOL
    for m, (est,) in enumerate(model.estimators_, start=1):
        theirs, ours = est.tree_, trace.tree(m)
        assert_same_splits(theirs, ours)
        assert np.abs(theirs.value[:, 0, 0] - ours["value"]).max() <= TOL
        assert np.abs(theirs.impurity - ours["impurity"]).max() <= TOL
        assert np.array_equal(est.apply(X.astype(np.float32)), trace.leaf[m])


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_classifier_parity_by_depth(name, depth):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=ROUNDS, max_depth=depth, random_state=7)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=depth, random_state=7)
    _assert_same_model(trace, model.fit(X, y), X)


@pytest.mark.parametrize("name", ["moons", "ties", "10d", "unit"])
@pytest.mark.parametrize("options", [
    {"min_samples_leaf": 9},
    {"min_samples_split": 40, "max_depth": 4},
    {"max_leaves": 5},
    {"max_leaves": 12, "max_depth": None},
    {"max_depth": None, "min_samples_leaf": 5},
    {"subsample": 0.5},
    {"subsample": 0.7, "max_leaves": 6, "learning_rate": 0.5},
    {"loss": "exponential"},
    {"loss": "exponential", "subsample": 0.8, "max_depth": 2},
])
def test_classifier_parity_by_option(name, options):
    X, y = DATA[name]
    ours = dict(options)
    theirs = sklearn_options(options)
    trace = explorer.fit(X, y, n_rounds=ROUNDS, random_state=3, **ours)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, random_state=3, **theirs)
    _assert_same_model(trace, model.fit(X, y), X)


@pytest.mark.parametrize("name", ["moons", "ties", "10d"])
@pytest.mark.parametrize("options", [{}, {"max_depth": 1}, {"max_leaves": 7}, {"subsample": 0.6}])
def test_regressor_parity(name, options):
    X, _ = DATA[name]
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + np.random.RandomState(0).normal(0, 0.2, len(X))
    theirs = sklearn_options(options)
    trace = explorer.fit(X, y, loss="squared_error", n_rounds=ROUNDS, random_state=5, **options)
    model = GradientBoostingRegressor(n_estimators=ROUNDS, random_state=5, **theirs)
    _assert_same_model(trace, model.fit(X, y), X)


def test_labels_are_encoded_like_scikit_learn():
    X, y = DATA["circles"]
    trace = explorer.fit(X, y, n_rounds=5)
    model = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert list(trace.classes) == list(model.classes_)
    G = beyond(X)
    assert np.array_equal(trace.predict(G), model.predict(G))
    assert np.abs(trace.predict_proba(G) - model.predict_proba(G)).max() <= TOL


@pytest.mark.parametrize("options", [{}, {"max_leaves": 6, "max_depth": None}])
def test_grid_predictions_equal_pointwise_ones_and_scikit_learns(options):
    X, y = DATA["ties"]
    trace = explorer.fit(X, y, n_rounds=20, **options)
    xs = np.concatenate([np.linspace(-3, 3, 37), np.unique(X[:, 0])])  # includes the ties themselves
    ys = np.concatenate([np.linspace(-2, 2.5, 23), np.unique(X[:, 1])])
    grid = trace.staged_decision_grid(xs, ys)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    assert grid.shape == (21, len(ys), len(xs))
    assert np.array_equal(grid.reshape(21, -1), trace.staged_decision_function(points))
    # the app's float32 grid: the same numbers, each rounded once
    assert np.array_equal(trace.staged_decision_grid(xs, ys, dtype=np.float32),
                          grid.astype(np.float32))
    theirs = sklearn_options(options)
    model = GradientBoostingClassifier(n_estimators=20, random_state=0, **theirs).fit(X, y)
    assert np.abs(grid.reshape(21, -1)[1:] - staged(model, points)).max() <= TOL
