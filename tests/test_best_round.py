"""The best round (explorer.best_round) against the reference libraries' staged
losses on the validation points, computed here: scikit-learn's staged_predict_proba (two
and three classes) and staged_predict (regression), and xgboost's predict with
iteration_range for second-order trees."""

import numpy as np
import pytest
import xgboost as xgb
from sklearn.datasets import load_iris, make_moons
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.metrics import log_loss

import explorer
from explorer.best_round import best_round

M = 60


def _reference_best(losses):
    losses = np.asarray(losses)
    return int(np.argmin(losses)), float(losses.min())


def _moons(n=300, seed=0):
    X, y = make_moons(n, noise=0.35, random_state=seed)
    return X[:200], y[:200], X[200:], y[200:]


def _check(trace, theirs):
    best = best_round(trace)
    m, value = _reference_best(theirs)
    assert best.round == m
    assert best.valid == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert best.train == trace.train_loss[m]
    assert best.last == pytest.approx(theirs[-1], rel=1e-12)


def test_two_classes_against_staged_predict_proba():
    X, y, Xv, yv = _moons()
    trace = explorer.fit(X, y, X_valid=Xv, y_valid=yv, n_rounds=M, learning_rate=0.5,
                         max_depth=4)
    ref = GradientBoostingClassifier(n_estimators=M, learning_rate=0.5, max_depth=4,
                                     random_state=0).fit(X, y)
    p0 = np.full(len(yv), y.mean())  # round 0: the prior
    theirs = [log_loss(yv, p0, labels=[0, 1])] + [
        log_loss(yv, p[:, 1], labels=[0, 1]) for p in ref.staged_predict_proba(Xv)]
    _check(trace, theirs)
    assert best_round(trace).round < M  # deep trees at ν 0.5: the loss turns up


def test_three_classes_against_staged_predict_proba():
    iris = load_iris()
    X, y = iris.data[:, 2:], iris.target
    order = np.random.RandomState(0).permutation(len(y))
    tr, va = order[:100], order[100:]
    trace = explorer.fit(X[tr], y[tr], X_valid=X[va], y_valid=y[va], n_rounds=M,
                         learning_rate=0.3, max_depth=3)
    ref = GradientBoostingClassifier(n_estimators=M, learning_rate=0.3, max_depth=3,
                                     random_state=0).fit(X[tr], y[tr])
    prior = np.bincount(y[tr], minlength=3) / len(tr)
    theirs = [log_loss(y[va], np.tile(prior, (len(va), 1)), labels=[0, 1, 2])] + [
        log_loss(y[va], p, labels=[0, 1, 2]) for p in ref.staged_predict_proba(X[va])]
    _check(trace, theirs)


def test_regression_against_staged_predict():
    rng = np.random.RandomState(1)
    X = rng.uniform(-3, 3, size=(300, 1))
    y = np.sin(X[:, 0]) + rng.normal(0, 0.4, 300)
    trace = explorer.fit(X[:200], y[:200], X_valid=X[200:], y_valid=y[200:], n_rounds=M,
                         learning_rate=0.5, max_depth=5, loss="squared_error")
    ref = GradientBoostingRegressor(n_estimators=M, learning_rate=0.5, max_depth=5,
                                    random_state=0).fit(X[:200], y[:200])
    # the engine's loss is half the squared error, as scikit-learn's HalfSquaredError
    half = lambda pred: 0.5 * np.mean((y[200:] - pred) ** 2)  # noqa: E731
    theirs = [half(np.full(100, y[:200].mean()))] + [half(p) for p in ref.staged_predict(X[200:])]
    _check(trace, theirs)


def test_second_order_against_xgboost_iteration_range():
    X, y, Xv, yv = _moons(seed=2)
    trace = explorer.fit(X, y, X_valid=Xv, y_valid=yv, n_rounds=M, learning_rate=0.5,
                         max_depth=4, split="hessian", reg_lambda=1.0)
    ref = xgb.XGBClassifier(n_estimators=M, learning_rate=0.5, max_depth=4, reg_lambda=1.0,
                            tree_method="exact", base_score=float(y.mean()), n_jobs=1)
    ref.fit(X, y)
    theirs = [log_loss(yv, ref.predict_proba(Xv, iteration_range=(0, m))[:, 1]
                       if m else np.full(len(yv), y.mean()), labels=[0, 1])
              for m in range(M + 1)]
    best = best_round(trace)
    m, value = _reference_best(theirs)
    assert best.round == m
    assert best.valid == pytest.approx(value, rel=1e-5)  # xgboost predicts in float32


def test_no_validation_no_best_round():
    X, y, _, _ = _moons()
    assert best_round(explorer.fit(X, y, n_rounds=5)) is None


def test_the_first_of_equal_minima():
    class Flat:  # a loss that reaches its minimum twice
        valid_loss = np.array([0.5, 0.2, 0.3, 0.2, 0.4])
        train_loss = np.array([0.5, 0.3, 0.2, 0.1, 0.05])
    best = best_round(Flat())
    assert (best.round, best.valid, best.train, best.last) == (1, 0.2, 0.3, 0.4)
    assert best.risen == pytest.approx(0.2)
