"""What the views show of a fit with three classes or more, computed without Streamlit: the
loss object's formulas, the numbers of a leaf and a sample, and the figures (class map,
p_k, residuals and tree per class, curves), with no NaN or inf in any of them."""

from __future__ import annotations

import json

import numpy as np
import pytest

import explorer
from explorer import figures, losses
from explorer.data import make_toy
from explorer.figures.classes import PALETTE, class_map
from explorer.numbers import summaries
from explorer.numbers.grid import make_grid, region_edges, tree_on_grid


@pytest.fixture(scope="module")
def three(warm_engine):
    ds = make_toy("spiral", n=240, noise=0.2, seed=1)
    trace = explorer.fit(ds.X, ds.y, n_rounds=6, subsample=0.8, X_valid=ds.X[:40],
                         y_valid=ds.y[:40])
    return trace, make_grid(trace, resolution=40), ds.classes


def _finite_numbers(fig) -> bool:
    """No NaN or infinity anywhere in the figure's JSON."""
    text = json.dumps(fig.to_plotly_json(), default=lambda a: np.asarray(a).tolist())
    return "NaN" not in text and "Infinity" not in text


def test_the_loss_of_a_three_class_fit_is_the_multinomial_one(three):
    trace, _, _ = three
    loss = losses.of(trace)
    assert loss.multiclass and loss.is_classifier and loss.title == "multinomial log-loss"
    assert r"\frac{K - 1}{K}" in loss.leaf_tex("R", "F") and "Friedman" in loss.leaf_note(2)
    f = summaries.f0_summary(trace)
    assert f["counts"] == [80, 80, 80] and np.allclose(f["p0"], 1 / 3)
    assert any("softmax" in line for line in loss.f0_tex(f))


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


def test_tree_on_grid_is_the_step_of_one_class(three):
    trace, grid, _ = three
    for k in range(3):
        step = tree_on_grid(trace, 2, grid, k)
        exact = trace.staged_decision_grid(grid.xs, grid.ys)
        assert np.allclose(exact[2, ..., k] - exact[1, ..., k], step, atol=1e-12)


def test_the_class_map_colours_the_most_probable_class_and_names_the_classes(three):
    trace, grid, classes = three
    fig = class_map(trace, 6, grid, classes=classes, show_valid=True, sample=3)
    heat = fig.data[0]
    best = np.argmax(trace.link(grid.F[6].astype(np.float64)), axis=-1)
    assert np.array_equal(np.floor(np.asarray(heat.z)).astype(int), best)
    # the hover names the most probable class and its p (a name per cell, p computed)
    assert heat.text[0][0] == f"class {classes[best[0, 0]]}"
    assert heat.hovertemplate.startswith("%{text}: p = %{customdata")
    top = trace.link(np.clip(grid.F[6].astype(np.float64), -1e6, 1e6)).max(axis=-1)
    assert np.array_equal(np.asarray(heat.customdata), top.astype(np.float32))
    names = {t.name for t in fig.data}
    assert {"class 0", "class 1", "class 2", "boundaries between classes"} <= names
    assert _finite_numbers(fig)
    one = class_map(trace, 6, grid, classes=classes, k=1)
    p1 = trace.link(grid.F[6].astype(np.float64))[..., 1]
    assert np.allclose(np.asarray(one.data[0].z), p1, atol=1e-6)
    assert "p of class 1" in one.layout.title.text


def test_class_boundaries_run_between_cells_of_different_classes():
    labels = np.array([[0, 0, 1], [0, 2, 1], [2, 2, 1]])
    px, py = region_edges(np.arange(3.0), np.arange(3.0), labels)
    segments = len([x for x in px if x is None])
    assert segments >= 4  # 0|1, 0|2 (both ways) and 2|1 edges
    px1, _ = region_edges(np.arange(3.0), np.arange(3.0), np.zeros((3, 3), int))
    assert px1 == []


def test_the_palette_holds_ten_distinct_colours():
    assert len(set(PALETTE)) == 10


@pytest.mark.parametrize("m", [0, 1, 6])
def test_every_view_of_three_classes_draws_finite_numbers(three, m):
    trace, grid, classes = three
    drawn = [figures.model_view(trace, m, grid, classes=classes),
             figures.residual_map(trace, m, grid, k=2, classes=classes),
             figures.curves(trace, m),
             figures.sample_trajectory(trace, 4, m, classes=classes)]
    if m:
        drawn += [figures.tree_regions(trace, m, grid, k=1, classes=classes),
                  figures.update_panels(trace, m, grid, k=2),
                  figures.tree_diagram(trace, m, k=1, classes=classes)]
    for fig in drawn:
        assert _finite_numbers(fig)
    assert "class 2" in drawn[1].layout.title.text
    if m:
        assert f"Tree ({m}, 1)" in drawn[4].layout.title.text
        assert "2/3" in drawn[6].layout.title.text


def test_a_leafs_own_loss_along_its_class_and_the_exact_minimiser(three):
    from explorer.numbers import leaves
    trace, _, _ = three
    for k in range(3):
        for leaf in summaries.leaves_of(trace, 2, k):
            story = leaves.leaf_story(trace, 2, int(leaf), k=k)
            assert story["newton"] == story["value"]  # scikit-learn's leaf, factor included
            assert story["newton_formula"] == "γ₁ = 2/3 · Σr / Σh"
            if not story["pure"]:  # the exact minimiser is the lowest point of the curve
                best = story["gammas"][np.argmin(story["loss"])]
                assert abs(best - story["exact"]) <= story["gammas"][1] - story["gammas"][0]


def test_the_split_scan_of_a_class_tree_finds_its_split(three):
    from explorer.numbers import splits
    trace, _, _ = three
    for k in range(3):
        tree = trace.tree(2, k)
        scans = splits.scan(trace, 2, 0, k=k)
        f = int(tree["feature"][0])
        best = scans[f]["best"]["squared_error"]
        assert scans[f]["chosen"] == tree["threshold"][0]
        assert scans[f]["thresholds"][best] == pytest.approx(tree["threshold"][0])


def test_agreement_with_scikit_learn_and_xgboost_for_three_classes(warm_engine):
    from explorer.numbers.agreement import agreement
    ds = make_toy("blobs", n=120, seed=2)
    for split in ("squared_error", "hessian"):
        trace = explorer.fit(ds.X, ds.y, n_rounds=4, split=split)
        result = agreement(trace)
        assert result["train"] <= (0.0 if split == "squared_error" else 1e-5)
        assert result["grid"] <= (0.0 if split == "squared_error" else 1e-5)


def test_the_grid_of_ten_classes_keeps_within_the_cells_budget(warm_engine):
    from explorer.numbers.grid import GRID_CELL_ROUNDS, GRID_RESOLUTION
    X = np.random.RandomState(0).normal(size=(200, 2))
    trace = explorer.fit(X, np.arange(200) % 10, n_rounds=50, max_depth=2)
    grid = make_grid(trace)
    assert grid.F.shape == (51, len(grid.ys), len(grid.xs), 10)
    assert len(grid.xs) < GRID_RESOLUTION and grid.F[..., 0].size * 10 <= GRID_CELL_ROUNDS
