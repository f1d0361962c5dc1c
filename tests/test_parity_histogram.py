"""split="histogram" builds scikit-learn's HistGradientBoosting model exactly.

At every round m, the engine's F_m equals scikit-learn's m-th staged decision
(``staged_decision_function``, ``staged_predict`` for regressions) with no difference at
all, on the training points, on points well beyond them and on a regular grid over the
plane; and tree (m, k) is scikit-learn's predictor ``_predictors[m - 1][k]`` node for node
(feature, float64 threshold, bin, children, count, depth, gain, value).

Every reference number is computed here by scikit-learn itself.
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import make_blobs, make_moons
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

import explorer
from fit_data import beyond

ROUNDS = 15
# explorer.fit's names for HistGradientBoosting's parameters
SKLEARN_NAMES = {"max_leaves": "max_leaf_nodes", "reg_lambda": "l2_regularization",
                 "n_rounds": "max_iter"}


def _fit_both(X, y, regression=False, **options):
    """The engine's fit and scikit-learn's, from the same options (explorer's names)."""
    options.setdefault("n_rounds", ROUNDS)
    trace = explorer.fit(X, y, split="histogram",
                         loss="squared_error" if regression else "log_loss", **options)
    theirs = {SKLEARN_NAMES.get(name, name): value for name, value in options.items()}
    cls = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    model = cls(early_stopping=False, random_state=0, **theirs).fit(X, y)
    return trace, model


def _staged(model, X):
    """scikit-learn's F_m(X) for m = 1..M, as (M, n) or (M, n, K)."""
    if isinstance(model, HistGradientBoostingRegressor):
        return np.array(list(model.staged_predict(X)))
    return np.array(list(model.staged_decision_function(X)))


def _plane(X, size=120):
    """A regular grid over (and a little beyond) the data: the app's plane."""
    lo, hi = X.min(0), X.max(0)
    pad = 0.1 * (hi - lo)
    axes = [np.linspace(lo[f] - pad[f], hi[f] + pad[f], size) for f in range(X.shape[1])]
    if X.shape[1] == 1:
        return axes[0][:, None]
    xx, yy = np.meshgrid(axes[0], axes[1])
    return np.column_stack([xx.ravel(), yy.ravel()])


def _same_model(trace, model, X):
    """Same baseline, same F_m at every round everywhere, same trees."""
    K = trace.n_classes if trace.is_multiclass else 1
    f0 = np.asarray(model._baseline_prediction).reshape(-1)
    assert_array_equal(np.atleast_1d(trace.f0), f0)
    # training points, from the fit's own record and from predicting again
    theirs = _staged(model, X)
    assert_array_equal(trace.raw[1:], theirs.reshape(trace.raw[1:].shape))
    assert_array_equal(trace.staged_decision_function(X)[1:], theirs.reshape(trace.raw[1:].shape))
    for points in (beyond(X), _plane(X)):
        ours = trace.staged_decision_function(points)
        assert_array_equal(ours[1:], _staged(model, points).reshape(ours[1:].shape))
    if X.shape[1] == 2:  # the plane as the app computes it: tree by tree, cell by cell
        xs, ys = np.linspace(*_span(X[:, 0]), 90), np.linspace(*_span(X[:, 1]), 70)
        grid = trace.staged_decision_grid(xs, ys)
        points = np.column_stack([np.tile(xs, len(ys)), np.repeat(ys, len(xs))])
        flat = _staged(model, points).reshape((trace.n_rounds, len(ys), len(xs)) + grid.shape[3:])
        assert_array_equal(grid[1:], flat)
    for m in range(1, trace.n_rounds + 1):
        for k in range(K):
            _same_tree(trace, m, k, model._predictors[m - 1][k].nodes)


def _span(column):
    span = column.max() - column.min()
    return column.min() - 0.5 * span, column.max() + 0.5 * span


def _same_tree(trace, m, k, theirs):
    ours = trace.tree(m, k)
    extra = trace.tree_histograms(m, k)
    assert len(ours) == len(theirs), (m, k)
    inner = ours["left"] != -1
    assert_array_equal(inner, ~theirs["is_leaf"].astype(bool))
    assert_array_equal(ours["n"], theirs["count"])
    assert_array_equal(ours["depth"], theirs["depth"])
    assert_array_equal(ours["feature"][inner], theirs["feature_idx"][inner])
    assert_array_equal(ours["threshold"][inner], theirs["num_threshold"][inner])
    assert_array_equal(extra["bin"][inner], theirs["bin_threshold"][inner])
    assert_array_equal(ours["left"][inner], theirs["left"][inner])
    assert_array_equal(ours["right"][inner], theirs["right"][inner])
    assert_array_equal(ours["improvement"][inner], theirs["gain"][inner])
    # leaves: scikit-learn stores the shrunk value (value * nu); inner nodes their own value
    lr = trace.learning_rate
    assert_array_equal((ours["value"] * lr)[~inner], theirs["value"][~inner])
    assert_array_equal(ours["value"][inner], theirs["value"][inner])


MOONS = make_moons(2000, noise=0.3, random_state=0)


def test_defaults_are_histgradientboosting_defaults():
    """fit(split="histogram") with nothing else set is HistGradientBoostingClassifier()."""
    X, y = MOONS
    trace = explorer.fit(X, y, split="histogram", n_rounds=ROUNDS)
    model = HistGradientBoostingClassifier(early_stopping=False, max_iter=ROUNDS,
                                           random_state=0).fit(X, y)
    assert trace.params["max_leaves"] == 31 and trace.params["max_depth"] is None
    assert trace.params["min_samples_leaf"] == 20 and trace.params["reg_lambda"] == 0.0
    assert trace.params["max_bins"] == 255
    _same_model(trace, model, X)


CASES = {
    # the benchmark's setting
    "8 leaves, depth 3": dict(max_bins=255, max_leaves=8, max_depth=3, min_samples_leaf=20),
    "2 bins": dict(max_bins=2),
    "4 bins, unlimited leaves": dict(max_bins=4, max_leaves=None, max_depth=6,
                                     min_samples_leaf=5, reg_lambda=1.0),
    "small leaves, lambda": dict(max_bins=32, max_leaves=12, min_samples_leaf=1, reg_lambda=0.5,
                                 learning_rate=0.7),
    "depth 1": dict(max_depth=1, learning_rate=1.0),
    # hundreds of leaves waiting at once: the histogram pool grows
    "no limits": dict(max_leaves=None, max_depth=None, min_samples_leaf=1, n_rounds=4),
}


@pytest.mark.parametrize("case", CASES)
def test_binary(case):
    X, y = MOONS
    _same_model(*_fit_both(X, y, **CASES[case]), X)


def test_tied_values():
    """Features with few distinct values (each a bin of its own), many points tied."""
    X, y = MOONS
    _same_model(*_fit_both(np.round(X * 2) / 2, y, max_leaves=10), np.round(X * 2) / 2)
    _same_model(*_fit_both(np.round(X * 8) / 8, y, max_bins=6, min_samples_leaf=3),
                np.round(X * 8) / 8)


def test_values_float32_cannot_tell_apart():
    """Values 1e-9 apart: float32 merges them, the bins and the float64 predictions do not."""
    rng = np.random.RandomState(3)
    X = 1.0 + rng.randint(0, 40, size=(1500, 2)) * 1e-9
    y = ((X[:, 0] - 1.0) * 1e9 + rng.normal(0, 6, size=1500) > 20).astype(int)
    assert len(np.unique(X[:, 0].astype(np.float32))) < 5
    trace, model = _fit_both(X, y, min_samples_leaf=5)
    _same_model(trace, model, X)
    inner = trace.tree(1)["left"] != -1
    assert len(np.unique(trace.tree(1)["threshold"][inner].astype(np.float32))) < inner.sum()


def test_imbalanced_and_string_labels():
    X, y = MOONS
    names = np.array(["no", "yes"])
    keep = (y == 1) | (np.arange(len(y)) % 5 == 0)  # about 1 in 6 of class "no"
    trace, model = _fit_both(X[keep], names[y[keep]], max_leaves=6)
    assert list(trace.classes) == list(model.classes_)
    assert trace.f0 != 0.0
    _same_model(trace, model, X[keep])
    assert_array_equal(trace.predict(X), model.predict(X))


@pytest.mark.parametrize("K", [3, 5, 10])
def test_multiclass(K):
    X, y = make_blobs(600 + 50 * K, centers=K, cluster_std=2.0, random_state=K)
    trace, model = _fit_both(X, y, max_leaves=8, n_rounds=8)
    assert trace.raw.shape == (9, len(y), K)
    _same_model(trace, model, X)


def test_multiclass_string_labels_and_ties():
    X, y = make_blobs(800, centers=4, cluster_std=3.0, random_state=5)
    names = np.array(["setosa", "versicolor", "virginica", "zebra"])
    X = np.round(X)
    trace, model = _fit_both(X, names[y], max_bins=16, n_rounds=8)
    assert list(trace.classes) == list(model.classes_)
    _same_model(trace, model, X)
    assert_array_equal(trace.predict(X), model.predict(X))
    assert_array_equal(trace.predict_proba(X), model.predict_proba(X))


def test_more_than_10000_points():
    X, y = make_moons(12_000, noise=0.35, random_state=2)
    trace, model = _fit_both(X, y, max_leaves=8, max_depth=3, n_rounds=10)
    _same_model(trace, model, X)


def test_regression_one_input():
    rng = np.random.RandomState(0)
    x = rng.uniform(-3, 3, size=(800, 1))
    y = np.sin(2 * x[:, 0]) + rng.normal(0, 0.3, size=800)
    for options in (dict(), dict(max_bins=8, max_depth=2), dict(max_leaves=None,
                                                                min_samples_leaf=2)):
        trace, model = _fit_both(x, y, regression=True, **options)
        _same_model(trace, model, x)


def test_regression_two_inputs_and_ties():
    rng = np.random.RandomState(1)
    X = np.round(rng.uniform(-2, 2, size=(1200, 2)), 1)
    y = X[:, 0] ** 2 - X[:, 1] + rng.normal(0, 0.2, size=1200)
    trace, model = _fit_both(X, y, regression=True, reg_lambda=2.0, max_leaves=16)
    _same_model(trace, model, X)


def test_equal_gains_follow_heapqs_order():
    """Two leaves with exactly equal gains (mirror images, labels flipped) and room to
    split one: scikit-learn's heap decides which, and so does ours."""
    x1 = np.tile(np.arange(10.0), 10)
    y_half = (x1 < 3).astype(int)
    X = np.column_stack([np.r_[np.zeros(100), np.ones(100)], np.r_[x1, x1]])
    y = np.r_[y_half, 1 - y_half]
    trace, model = _fit_both(X, y, max_leaves=3, min_samples_leaf=1, n_rounds=3)
    first = trace.tree(1)
    children = first[[first[0]["left"], first[0]["right"]]]
    assert first[0]["feature"] == 0 and (children["left"] != -1).sum() == 1
    _same_model(trace, model, X)


def test_above_200000_points_the_bins_come_from_scikit_learns_subsample():
    X, y = make_moons(200_500, noise=0.3, random_state=4)
    trace, model = _fit_both(X, y, n_rounds=2, max_leaves=6)
    for ours, theirs in zip(trace.bin_thresholds, model._bin_mapper.bin_thresholds_):
        assert_array_equal(ours, theirs)
    _same_model(trace, model, X)
