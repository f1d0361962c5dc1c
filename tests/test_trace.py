"""explorer.trace: staged predictions, per-round losses and accuracy, and bad rounds."""

import numpy as np
import pytest

import explorer
from fit_data import DATA, X_OK, Y_OK, beyond


def test_staged_rows_equal_decision_function_at_that_round():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, n_rounds=12, max_leaves=4)
    G = beyond(X, 500)
    staged = trace.staged_decision_function(G)
    assert staged.shape == (13, 500)
    for m in range(13):
        assert np.array_equal(staged[m], trace.decision_function(G, m))
    assert np.array_equal(trace.staged_decision_function(X), trace.raw)


def test_losses_and_accuracy_per_round():
    X, y = DATA["moons"]
    trace = explorer.fit(X[:400], y[:400], n_rounds=30, X_valid=X[400:], y_valid=y[400:])
    p = trace.proba(30)
    assert trace.train_loss[30] == pytest.approx(-np.mean(trace.y * np.log(p) + (1 - trace.y) * np.log(1 - p)))
    assert trace.train_loss[0] > trace.train_loss[30]
    assert trace.valid_loss.shape == (31,)
    pred = trace.predict(X[400:], 30)
    assert trace.valid_accuracy[30] == pytest.approx(np.mean(pred == y[400:]))


def test_bad_round_and_prediction_input():
    trace = explorer.fit(X_OK, Y_OK, n_rounds=3)
    for bad in (-1, 4, 1.0):
        with pytest.raises(ValueError, match="round"):
            trace.decision_function(X_OK, bad)
    with pytest.raises(ValueError, match="round"):
        trace.tree(0)
    with pytest.raises(ValueError, match="shape"):
        trace.decision_function(X_OK[:, :1])
    with pytest.raises(ValueError, match="NaN"):
        trace.decision_function(np.full((2, 2), np.nan))


def test_row_zero_of_the_staged_predictions_is_f0_everywhere():
    X, y = DATA["moons"]
    for loss in ("log_loss", "exponential"):
        trace = explorer.fit(X, y, loss=loss, n_rounds=4)
        G = beyond(X, 300)
        assert np.all(trace.staged_decision_function(G)[0] == trace.f0)
        assert np.all(trace.decision_function(G, 0) == trace.f0)
        assert np.all(trace.staged_decision_grid(G[:5, 0], G[:7, 1])[0] == trace.f0)


def test_predictions_follow_the_probability_of_class_one():
    X, y = DATA["circles"]  # string labels
    trace = explorer.fit(X, y, n_rounds=6)
    G = beyond(X, 400)
    proba = trace.predict_proba(G, 6)
    assert proba.shape == (400, 2) and np.allclose(proba.sum(axis=1), 1.0)
    chosen = trace.classes[(proba[:, 1] > 0.5).astype(int)]
    assert np.array_equal(trace.predict(G, 6), chosen)
