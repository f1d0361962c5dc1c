"""explorer.losses: the identities MATH.md asks the app to show (f0, residuals,
hessians) and the exact pairwise sum."""

import numpy as np
import pytest

import explorer
from explorer import losses
from explorer.numbers import summaries
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


# --- what the views show of each loss ----------------------------------------------


@pytest.mark.parametrize("loss, fragments", [
    ("log_loss", [r"\sum_{R} (y_i - p_i)", r"\sum_{R} p_i\,(1 - p_i)"]),
    ("exponential", [r"\tilde y_i\, e^{-\tilde y_i F_1}", r"\sum_{R} e^{-\tilde y_i F_1}"]),
    ("squared_error", [r"\frac{1}{n}\sum_{R} r_i"]),
])
def test_a_trace_finds_its_loss_and_the_loss_names_its_leaf_formula(loss, fragments):
    from explorer import losses
    X, y = DATA["moons"]
    target = X[:, 1] if loss == "squared_error" else y
    trace = explorer.fit(X, target, loss=loss, n_rounds=2)
    shown = losses.of(trace)
    assert shown.name == loss and shown.is_classifier == trace.is_classifier
    text = shown.leaf_tex("R", "F_1")
    assert text.startswith(r"\gamma = ")
    for fragment in fragments:
        assert fragment in text, (fragment, text)
    assert shown.leaf_note(3)  # the letters are explained


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_the_probability_label_is_the_link_the_trace_uses(loss):
    from explorer import losses
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, loss=loss, n_rounds=4)
    shown = losses.of(trace)
    scale = 2.0 if shown.half else 1.0
    assert shown.p_tex(4) == (r"\sigma(2F_{4})" if shown.half else r"\sigma(F_{4})")
    assert np.allclose(trace.proba(4), 1 / (1 + np.exp(-scale * trace.raw[4])), rtol=1e-12)


def test_the_f0_text_plugs_in_the_counts_and_the_mean():
    from explorer import losses
    from explorer.numbers import summaries
    X, y = DATA["imbalanced"]
    trace = explorer.fit(X, y, n_rounds=1)
    f = summaries.f0_summary(trace)
    first = losses.of(trace).f0_tex(f)[0]
    assert rf"\log\frac{{{int(np.sum(trace.y == 1))}}}{{{int(np.sum(trace.y == 0))}}}" in first
    reg = explorer.fit(X, X[:, 1], loss="squared_error", n_rounds=1)
    (text,) = losses.of(reg).f0_tex(summaries.f0_summary(reg))
    assert rf"{{{len(X)}}}" in text and r"\frac{1}{N}\sum_i y_i" in text


def test_log_loss_residuals_stay_within_their_colour_bound():
    from explorer import losses
    X, y = DATA["moons"]
    trace = explorer.fit(X, y, n_rounds=30, learning_rate=1.0)
    bound = losses.of(trace).residual_bound
    assert bound == 1.0
    assert max(np.abs(trace.residual(m)).max() for m in range(31)) < bound


def test_the_loss_of_a_three_class_fit_is_the_multinomial_one(three):
    trace, _, _ = three
    loss = losses.of(trace)
    assert loss.multiclass and loss.is_classifier and loss.title == "multinomial log-loss"
    assert r"\frac{K - 1}{K}" in loss.leaf_tex("R", "F") and "Friedman" in loss.leaf_note(2)
    f = summaries.f0_summary(trace)
    assert f["counts"] == [80, 80, 80] and np.allclose(f["p0"], 1 / 3)
    assert any("softmax" in line for line in loss.f0_tex(f))
