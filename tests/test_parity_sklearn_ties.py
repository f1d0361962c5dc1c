"""The fast paths of the engine (presorted rows partitioned stably, introsort only where
a feature has tied values, the bounded split scan, flat-array prediction) build
scikit-learn's model bit for bit: max |dF| is exactly 0.0, on the training points and
far beyond them, on data full of ties. Every reference is computed here by scikit-learn.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_moons
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

import explorer
from fit_data import assert_same_splits, beyond, sklearn_options, staged


def _assert_identical(trace, model, X):
    assert np.array_equal(trace.raw[1:], staged(model, X))
    G = np.vstack([beyond(X, n=3000), X[:500]])
    assert np.array_equal(trace.staged_decision_function(G)[1:], staged(model, G))
    for m, (est,) in enumerate(model.estimators_, start=1):
        theirs, ours = est.tree_, trace.tree(m)
        assert_same_splits(theirs, ours)
        assert np.array_equal(theirs.impurity, ours["impurity"])


def _tied(n, levels, seed, d=2):
    """Moons (and noise features) rounded to a few levels per unit: many tied values."""
    X, y = make_moons(n, noise=0.3, random_state=seed)
    if d > 2:
        X = np.column_stack([X, np.random.RandomState(seed).normal(size=(n, d - 2))])
    return np.round(X * levels) / levels, y


def _partly_tied(n, seed):
    """One feature continuous, the other with a few exact duplicates (as large data has)."""
    X, y = make_moons(n, noise=0.3, random_state=seed)
    rng = np.random.RandomState(seed)
    dup = rng.choice(n, n // 50, replace=False)
    X[dup, 0] = X[rng.choice(n, n // 50), 0]
    return X, y


CASES = {
    "tied-2": _tied(3000, 2, 0),
    "tied-20": _tied(3000, 20, 1),
    "tied-200": _tied(4000, 200, 2),
    "tied-4d": _tied(2000, 10, 3, d=4),
    "partly-tied": _partly_tied(4000, 4),
    "continuous": make_moons(3000, noise=0.3, random_state=5),
    "unit": (np.random.RandomState(6).uniform(0.5, 1.0, (3000, 2)),
             np.random.RandomState(7).randint(0, 2, 3000)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("options", [
    {},
    {"max_depth": 5},
    {"max_leaves": 9},
    {"subsample": 0.7},
    {"min_samples_leaf": 7, "max_depth": 4},
])
def test_classifier_is_bit_identical_on_tied_data(name, options):
    X, y = CASES[name]
    theirs = sklearn_options(options)
    trace = explorer.fit(X, y, n_rounds=30, random_state=11, **options)
    model = GradientBoostingClassifier(n_estimators=30, random_state=11, **theirs).fit(X, y)
    _assert_identical(trace, model, X)


@pytest.mark.parametrize("name", ["tied-20", "partly-tied", "tied-4d"])
def test_regressor_and_exponential_are_bit_identical_on_tied_data(name):
    X, y = CASES[name]
    target = np.round(np.sin(2 * X[:, 0]) + X[:, 1], 1)
    trace = explorer.fit(X, target, loss="squared_error", n_rounds=25, random_state=2)
    model = GradientBoostingRegressor(n_estimators=25, random_state=2).fit(X, target)
    _assert_identical(trace, model, X)
    trace = explorer.fit(X, y, loss="exponential", n_rounds=25, random_state=3)
    model = GradientBoostingClassifier(loss="exponential", n_estimators=25,
                                       random_state=3).fit(X, y)
    _assert_identical(trace, model, X)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(20, 600),
    d=st.integers(1, 3),
    levels=st.sampled_from([1, 2, 3, 10, 1000]),
    seed=st.integers(0, 10_000),
    max_depth=st.integers(1, 6),
    best_first=st.booleans(),
    subsample=st.sampled_from([1.0, 0.6]),
)
def test_random_tied_problems_are_bit_identical(n, d, levels, seed, max_depth, best_first,
                                                subsample):
    rng = np.random.RandomState(seed)
    X = np.round(rng.normal(size=(n, d)) * levels) / levels
    y = (X.sum(1) + rng.normal(0, 0.5, n) > 0).astype(int)
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    ours = dict(max_depth=max_depth, subsample=subsample)
    theirs = dict(ours)
    if best_first:
        ours["max_leaves"] = theirs["max_leaf_nodes"] = 2 + seed % 7
    trace = explorer.fit(X, y, n_rounds=12, random_state=seed, **ours)
    model = GradientBoostingClassifier(n_estimators=12, random_state=seed, **theirs).fit(X, y)
    _assert_identical(trace, model, X)
