"""explorer.multiclass, K >= 3 classes: the engine builds scikit-learn's multinomial
model exactly (K trees a round, the same trees and the same raw scores at every round, on
the training points and on the app's plot plane), and xgboost's multi:softprob with
split="hessian".

Every reference number is computed here by scikit-learn or xgboost itself.
"""

import numpy as np
import pytest
import xgboost as xgb
from sklearn.datasets import make_blobs
from sklearn.ensemble import GradientBoostingClassifier

import explorer
from explorer.numbers.grid import make_grid
from fit_data import assert_same_splits, beyond, sklearn_options

ROUNDS = 12


def _data():
    Xb, yb = make_blobs(300, centers=3, cluster_std=2.5, random_state=0)
    X10, y10 = make_blobs(500, centers=10, cluster_std=1.5, random_state=4)
    X4, y4 = make_blobs(400, centers=4, cluster_std=3.0, random_state=5)
    names = np.array(["setosa", "versicolor", "virginica", "zebra"])
    return {
        "blobs": (Xb, yb),
        "ties": (np.round(Xb), yb),  # rounded features: many equal values
        "ten": (X10, y10),
        "strings": (X4, names[y4]),  # string labels, sorted as scikit-learn sorts them
    }


DATA = _data()


def _staged(model, X):
    """scikit-learn's F_m(X) for m = 0..M, shape (M + 1, n, K)."""
    X32 = X.astype(np.float32)
    return np.stack([model._raw_predict_init(X32)] + list(model._staged_raw_predict(X32)))


def _same_model(trace, model, X):
    K = len(model.classes_)
    assert trace.n_classes == K and trace.is_multiclass
    assert list(trace.classes) == list(model.classes_)
    theirs = _staged(model, X)
    assert trace.raw.shape == theirs.shape
    assert np.abs(trace.raw - theirs).max() == 0.0
    assert np.abs(trace.staged_decision_function(X) - theirs).max() == 0.0
    G = beyond(X)
    assert np.abs(trace.staged_decision_function(G) - _staged(model, G)).max() == 0.0
    # the plot plane, as the app computes it (explorer.numbers.grid)
    grid = make_grid(trace)
    exact = trace.staged_decision_grid(grid.xs, grid.ys)
    assert exact.shape == (trace.n_rounds + 1, len(grid.ys), len(grid.xs), K)
    on_plane = _staged(model, grid.points).reshape(exact.shape)
    assert np.abs(exact - on_plane).max() == 0.0
    assert np.array_equal(grid.F, on_plane.astype(np.float32))
    for m, trees in enumerate(model.estimators_, start=1):
        for k, est in enumerate(trees):
            ours = trace.tree(m, k)
            assert_same_splits(est.tree_, ours)
            assert np.array_equal(est.tree_.value[:, 0, 0][ours["left"] < 0],
                                  ours["value"][ours["left"] < 0])
            assert np.array_equal(est.apply(X.astype(np.float32)), trace.leaf[m, :, k])


@pytest.mark.parametrize("name", sorted(DATA))
def test_multiclass_parity(name):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=ROUNDS, max_depth=3, random_state=3)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, max_depth=3, random_state=3)
    _same_model(trace, model.fit(X, y), X)


@pytest.mark.parametrize("options", [
    {"subsample": 0.6},
    {"max_leaves": 6},
    {"max_leaves": 9, "max_depth": None, "subsample": 0.8},
    {"min_samples_leaf": 7, "learning_rate": 0.5},
])
@pytest.mark.parametrize("name", ["ties", "strings"])
def test_multiclass_parity_by_option(name, options):
    X, y = DATA[name]
    theirs = sklearn_options(options)
    trace = explorer.fit(X, y, n_rounds=ROUNDS, random_state=11, **options)
    model = GradientBoostingClassifier(n_estimators=ROUNDS, random_state=11, **theirs)
    _same_model(trace, model.fit(X, y), X)


def test_one_bag_a_round_shared_by_the_trees():
    X, y = DATA["blobs"]
    trace = explorer.fit(X, y, n_rounds=5, subsample=0.5)
    assert trace.in_bag.shape == (6, len(y))
    for m in range(1, 6):
        for k in range(3):
            assert trace.tree(m, k)[0]["n"] == trace.in_bag[m].sum() == len(y) // 2


def test_contract_shapes_and_probabilities():
    X, y = DATA["strings"]
    trace = explorer.fit(X, y, n_rounds=4, X_valid=X[:50], y_valid=y[:50])
    K = 4
    assert trace.f0.shape == (K,) and abs(trace.f0.sum()) < 1e-12
    S = trace.staged_decision_function(X[:7])
    assert S.shape == (5, 7, K)
    assert np.array_equal(S[0], np.tile(trace.f0, (7, 1)))
    P = trace.predict_proba(X, m=2)
    assert P.shape == (len(X), K) and np.allclose(P.sum(axis=1), 1.0)
    assert set(trace.predict(X)) <= set(trace.classes)
    assert trace.residual(1).shape == trace.proba(1).shape == trace.hessian(1).shape == (len(X), K)
    assert np.allclose(trace.residual(0).sum(axis=1), 0.0)  # the y_k - p_k of a sample sum to 0
    assert trace.sample_residuals(3).shape == (5, K)
    assert np.array_equal(trace.sample_residuals(3)[2], trace.residual(2)[3])
    model = GradientBoostingClassifier(n_estimators=4, random_state=0).fit(X, y)
    assert np.allclose(trace.train_loss[-1], _log_loss(model, X, y), rtol=1e-12)
    assert trace.train_accuracy[-1] == pytest.approx(model.score(X, y))
    assert trace.valid_loss.shape == trace.valid_accuracy.shape == (5,)


def _log_loss(model, X, y):
    from sklearn.metrics import log_loss
    return log_loss(y, model.predict_proba(X), labels=model.classes_)


def test_softmax_stays_finite_far_out():
    trace = explorer.fit(*DATA["blobs"], n_rounds=3)
    P = trace.link(np.array([[800.0, -800.0, 0.0], [-1e300, -1e300, -1e300]]))
    assert np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1.0)


def test_more_than_ten_classes_are_refused():
    X, y = make_blobs(220, centers=11, random_state=0)
    with pytest.raises(ValueError, match="11 classes.*at most 10"):
        explorer.fit(X, y, n_rounds=2)


def test_exponential_loss_with_three_classes_is_refused():
    with pytest.raises(ValueError, match="exponential.*two classes"):
        explorer.fit(*DATA["blobs"], loss="exponential", n_rounds=2)


def test_squared_error_is_unchanged_by_many_distinct_targets():
    X, y = DATA["blobs"]
    trace = explorer.fit(X, y.astype(float), loss="squared_error", n_rounds=3)
    assert not trace.is_classifier and trace.raw.shape == (4, len(y))


@pytest.mark.parametrize("name, depth, eta", [("blobs", 3, 0.3), ("ties", 2, 0.5),
                                              ("ten", 3, 0.3), ("strings", 4, 0.1)])
def test_xgboost_softprob_parity(name, depth, eta):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=ROUNDS, split="hessian", max_depth=depth,
                         learning_rate=eta)
    codes = np.searchsorted(trace.classes, y)
    booster = xgb.train(dict(objective="multi:softprob", num_class=trace.n_classes,
                             tree_method="exact", max_depth=depth, eta=eta, nthread=1),
                        xgb.DMatrix(X, label=codes), num_boost_round=ROUNDS)
    for points in (X, beyond(X, n=500)):
        staged = trace.staged_decision_function(points)
        for m in range(1, ROUNDS + 1):
            theirs = booster.predict(xgb.DMatrix(points), output_margin=True,
                                     iteration_range=(0, m))
            assert np.abs(staged[m] - theirs).max() <= 1e-5
    last = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert np.abs(trace.raw[ROUNDS] - last).max() <= 1e-5
