"""The tree diagram's title states the leaf rule the fit used, and that rule, applied to
the node sums the diagram prints, gives the leaf values it prints (issue 29, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import fit
from explorer.figures.charts import diagram_title, tree_diagram

RNG = np.random.RandomState(3)
X = RNG.randn(120, 2)
Y = (X[:, 0] + 0.5 * RNG.randn(120) > 0).astype(int)
Y3 = np.digitize(X[:, 0] + 0.3 * RNG.randn(120), [-0.5, 0.5])


def _leaves(trace, m, k=0):
    tree = trace.tree(m, k)
    return tree[tree["left"] < 0]


def test_newton_leaves_say_sum_r_over_sum_h():
    t = fit(X, Y, n_rounds=2)
    title = diagram_title(t, 1)
    assert "γ = Σr / Σh" in title
    leaves = _leaves(t, 1)
    assert np.allclose(leaves["value"], leaves["sum_r"] / leaves["sum_h"])


def test_second_order_trees_say_minus_g_over_h_plus_lambda():
    t = fit(X, Y, n_rounds=2, split="hessian", reg_lambda=1.0)
    title = diagram_title(t, 1)
    assert "−G / (H + λ)" in title and "λ = 1" in title and "per leaf γ = Σr / Σh," not in title
    leaves = _leaves(t, 1)
    assert np.allclose(leaves["value"], leaves["sum_r"] / (leaves["sum_h"] + 1.0))
    assert not np.allclose(leaves["value"], leaves["sum_r"] / leaves["sum_h"])


def test_mean_leaves_say_the_mean():
    t = fit(X, Y, n_rounds=2, leaf="mean")
    assert "γ = Σr / n (the mean residual)" in diagram_title(t, 1)
    leaves = _leaves(t, 1)
    assert np.allclose(leaves["value"], leaves["sum_r"] / leaves["n"])


def test_exact_leaves_say_the_exact_minimiser():
    t = fit(X, Y, n_rounds=2, leaf="exact")
    title = diagram_title(t, 1)
    assert "exact minimiser" in title and "Σr / Σh" not in title


def test_line_search_says_rho_times_the_mean_with_its_rho():
    t = fit(X, Y, n_rounds=3, leaf="line_search")
    for m in (1, 2):
        title = diagram_title(t, m)
        assert "ρ_m · Σr / n" in title and f"ρ_{m} = {float(t.rho[m]):.4g}" in title
        leaves = _leaves(t, m)
        assert np.allclose(leaves["value"], t.rho[m] * leaves["sum_r"] / leaves["n"])


def test_regression_says_the_mean():
    t = fit(X, X[:, 0] * 2 + RNG.randn(120) * 0.1, n_rounds=2, loss="squared_error")
    assert "γ = Σr / n (the mean residual)" in diagram_title(t, 1)


def test_multiclass_keeps_its_factor_and_the_figure_carries_the_title():
    t = fit(X, Y3, n_rounds=2)
    title = diagram_title(t, 1, 2)
    assert "γ = 2/3 · Σr / Σh" in title and "Tree (1, 2)" in title
    fig = tree_diagram(t, 1, k=2)
    assert "2/3 · Σr / Σh" in str(fig.layout.title.text)


@pytest.mark.parametrize("loss", ["exponential"])
def test_exponential_newton_leaves_say_sum_r_over_sum_h(loss):
    t = fit(X, Y, n_rounds=2, loss=loss)
    leaves = _leaves(t, 1)
    assert "γ = Σr / Σh" in diagram_title(t, 1)
    assert np.allclose(leaves["value"], leaves["sum_r"] / leaves["sum_h"])
