"""explorer.numbers.summaries: f0, the leaf's Newton step, a sample's ledger, the node table."""

from __future__ import annotations

import math

import numpy as np
import pytest

import explorer
from explorer import fit
from explorer.data import make_toy
from explorer.numbers import summaries
from fit_data import MOONS_300


def test_f0_summary_both_forms_agree(moons_fit):
    f = summaries.f0_summary(moons_fit)
    assert f["n_pos"] + f["n_neg"] == len(moons_fit.y)
    assert math.isclose(f["from_counts"], math.log(f["n_pos"] / f["n_neg"]))
    assert math.isclose(f["from_counts"], f["from_pm"], rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(f["f0"], f["from_counts"], rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(f["p0"], f["pbar"], rel_tol=1e-12)


def test_f0_summary_exponential_halves(exp_fit):
    f = summaries.f0_summary(exp_fit)
    assert f["half"]
    assert math.isclose(f["f0"], 0.5 * math.log(f["n_pos"] / f["n_neg"]), abs_tol=1e-12)
    assert math.isclose(f["from_pm"], f["from_counts"], abs_tol=1e-12)


def test_leaf_summary_is_the_newton_step(moons_fit):
    tr = moons_fit
    for m in (1, 6, 12):
        for leaf in summaries.leaves_of(tr, m):
            L = summaries.leaf_summary(tr, m, int(leaf))
            assert math.isclose(L["ratio"], L["gamma"], rel_tol=1e-9, abs_tol=1e-12)
            assert math.isclose(L["step"], tr.learning_rate * L["gamma"])
            members = L["members"]
            assert len(members) == L["n"]
            r, h = tr.residual(m - 1)[members], tr.hessian(m - 1)[members]
            assert math.isclose(r.sum(), L["sum_r"], rel_tol=1e-9, abs_tol=1e-9)
            assert math.isclose(h.sum(), L["sum_h"], rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("kwargs, rule, closed", [
    ({}, "newton", True), ({"leaf": "mean"}, "mean", True), ({"leaf": "exact"}, "exact", False),
    ({"leaf": "line_search"}, "line_search", True),
    ({"split": "hessian"}, "second_order", True), ({"split": "histogram"}, "histogram", True)])
def test_leaf_formula_matches_the_recorded_value(warm_engine, kwargs, rule, closed):
    ds = make_toy("moons", n=200, seed=2)
    tr = fit(ds.X, ds.y, n_rounds=3, **kwargs)
    for leaf in summaries.leaves_of(tr, 2):
        f = summaries.leaf_formula(tr, 2, int(leaf))
        assert f["rule"] == rule
        if closed:
            assert f["denominator"] is not None
            assert math.isclose(f["factor"] * f["numerator"] / f["denominator"], f["value"],
                                rel_tol=1e-6, abs_tol=1e-9)
        else:
            assert f["denominator"] is None


def test_resolve_leaf_follows_the_sample_unless_a_leaf_is_chosen(moons_fit):
    tr = moons_fit
    leaf, followed = summaries.resolve_leaf(tr, 4, -1, 10)
    assert followed and leaf == tr.leaf[4, 10]
    chosen = int(summaries.leaves_of(tr, 4)[-1])
    assert summaries.resolve_leaf(tr, 4, chosen, 10) == (chosen, False)
    assert summaries.resolve_leaf(tr, 4, 0, 10)[1]  # the root is no leaf: follow the sample


def test_ledger_adds_up(moons_fit):
    tr = moons_fit
    for i in (0, 17, len(tr.y) - 1):
        L = summaries.ledger(tr, i)
        np.testing.assert_allclose(L["F"][0] + np.cumsum(L["update"][1:]), L["F"][1:],
                                   atol=1e-12)
        np.testing.assert_allclose(L["F"][1:], L["F"][:-1] + L["update"][1:], atol=0)
        np.testing.assert_allclose(L["residual"][1:], [tr.residual(m - 1)[i]
                                                       for m in range(1, tr.n_rounds + 1)])
        assert list(L["leaf"][1:]) == [int(tr.leaf[m, i]) for m in range(1, tr.n_rounds + 1)]
        np.testing.assert_allclose(L["gamma"][1:], [tr.tree(m)["value"][tr.leaf[m, i]]
                                                    for m in range(1, tr.n_rounds + 1)])
        assert L["in_bag"] is not None and L["in_bag"].dtype == bool


def test_node_table_rows(moons_fit):
    rows = summaries.node_table(moons_fit, 2, ("u", "v"))
    assert len(rows) == len(moons_fit.tree(2))
    assert rows[0]["kind"] == "split" and rows[0]["split"].startswith(("u ≤", "v ≤"))
    assert all(r["value γ"] is not None for r in rows if r["kind"] == "leaf")


def test_regression_f0_is_the_mean_and_the_ledger_has_no_probability(sine):
    tr, _ = sine
    f = summaries.f0_summary(tr)
    assert f["mean"] == pytest.approx(tr.y.mean(), abs=1e-12)
    assert f["f0"] == pytest.approx(f["mean"], abs=1e-12)
    ledger = summaries.ledger(tr, 5)
    assert ledger["p"] is None
    np.testing.assert_allclose(ledger["F"][1:], ledger["F"][:-1] + ledger["update"][1:],
                               atol=1e-12)


@pytest.mark.parametrize("options", [{}, {"split": "hessian"},
                                     {"loss": "exponential", "subsample": 0.6}])
def test_a_samples_residuals_are_the_traces(options):
    X, Y = MOONS_300
    """The ledger's residuals are Trace.residual's, second-order branch included."""
    trace = explorer.fit(X, Y, n_rounds=6, **options)
    for i in (0, 17, 299):
        at_rounds = np.array([trace.residual(m)[i] for m in range(trace.n_rounds + 1)])
        assert np.array_equal(trace.sample_residuals(i), at_rounds)
        ledger = summaries.ledger(trace, i)
        assert np.array_equal(ledger["residual"][1:], at_rounds[:-1])


def test_a_leafs_numbers_give_its_value_with_the_factor(three):
    trace, _, _ = three
    for k in range(3):
        for leaf in summaries.leaves_of(trace, 3, k):
            f = summaries.leaf_formula(trace, 3, int(leaf), k)
            assert f["factor"] == pytest.approx(2 / 3)
            assert f["factor"] * f["numerator"] / f["denominator"] == pytest.approx(
                f["value"], rel=1e-12, abs=1e-15)
            L = summaries.leaf_summary(trace, 3, int(leaf), k)
            assert np.all(trace.leaf[3, L["members"], k] == leaf)
            assert np.all(trace.in_bag[3, L["members"]])


def test_a_samples_ledger_follows_it_through_each_class_tree(three):
    trace, _, _ = three
    i = 7
    L = summaries.ledger(trace, i)
    assert L["F"].shape == L["p"].shape == L["gamma"].shape == (7, 3)
    for m in range(1, 7):
        for k in range(3):
            tree = trace.tree(m, k)
            assert L["gamma"][m, k] == tree["value"][trace.leaf[m, i, k]]
            assert L["F"][m, k] == L["F"][m - 1, k] + trace.learning_rate * L["gamma"][m, k]
        assert np.array_equal(L["residual"][m], trace.residual(m - 1)[i])
    assert np.allclose(L["p"].sum(axis=1), 1.0)
