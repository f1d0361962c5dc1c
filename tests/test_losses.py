"""explorer.losses: the identities MATH.md asks the app to show (f0, residuals,
hessians) and the exact pairwise sum."""

import numpy as np
import pytest

import explorer
from explorer.losses import pairwise_sum
from fit_data import DATA


@pytest.mark.parametrize("name", ["moons", "imbalanced"])
def test_f0_is_the_log_odds_in_both_label_forms(name):
    X, y = DATA[name]
    trace = explorer.fit(X, y, n_rounds=3)
    n_pos, n_neg = np.sum(trace.y == 1), np.sum(trace.y == 0)
    ybar = np.mean(2 * trace.y - 1)  # mean of the +-1 labels
    assert trace.f0 == pytest.approx(np.log(n_pos / n_neg), rel=1e-12)
    assert trace.f0 == pytest.approx(np.log((1 + ybar) / (1 - ybar)), rel=1e-12)
    assert np.all(trace.raw[0] == trace.f0)
    exp_trace = explorer.fit(X, y, loss="exponential", n_rounds=3)
    assert exp_trace.f0 == pytest.approx(0.5 * np.log(n_pos / n_neg), rel=1e-12)


def test_plus_minus_one_residual_equals_y_minus_p():
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, n_rounds=20, learning_rate=0.5)
    y_pm = 2 * trace.y - 1
    for m in (0, 1, 10, 20):
        F = trace.raw[m]
        r = trace.residual(m)
        assert np.allclose(r, trace.y - trace.proba(m), atol=1e-15)
        assert np.allclose(r, y_pm / (1 + np.exp(y_pm * F)), atol=1e-15)
        # |r| (1 - |r|) is the hessian p (1 - p)
        assert np.allclose(np.abs(r) * (1 - np.abs(r)), trace.hessian(m), atol=1e-15)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 100, 128, 129, 1000, 4097, 100_003])
def test_pairwise_sum_is_numpys(n):
    a = np.random.RandomState(n).standard_normal(n) * 10.0 ** np.random.RandomState(1).randint(-8, 8, n)
    assert pairwise_sum(a, n) == np.sum(a)
