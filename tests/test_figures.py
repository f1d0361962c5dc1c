"""explorer.figures as a whole: every view is a finite, valid figure, whatever the loss,
the tree shape, the scores, the round or the text of an upload."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import figures, fit
from explorer.numbers.grid import make_grid
from explorer.numbers import summaries
from explorer.data import make_toy
from figure_helpers import check_figure, finite_numbers, trace_array


@pytest.mark.parametrize("m", [0, 1, 5, 12])
def test_every_view_is_a_finite_valid_figure(moons_fit, grid, m):
    tr = moons_fit
    leaf = summaries.resolve_leaf(tr, m, -1, 3)[0] if m else None
    figs = [
        figures.probability_map(tr, m, grid, show_valid=True, sample=3),
        figures.residual_map(tr, m, grid, sample=3),
        figures.tree_regions(tr, m, grid, leaf=leaf, sample=3),
        figures.update_panels(tr, m, grid),
        figures.curves(tr, m),
        figures.tree_diagram(tr, m, leaf=leaf),
        figures.sample_trajectory(tr, 3, m),
    ]
    for fig in figs:
        check_figure(fig)


def test_exponential_loss_and_best_first_trees(exp_fit):
    tr = exp_fit
    grid = make_grid(tr, resolution=30)
    for m in (0, 1, tr.n_rounds):
        for fig in (figures.probability_map(tr, m, grid), figures.residual_map(tr, m, grid),
                    figures.tree_regions(tr, m, grid), figures.update_panels(tr, m, grid),
                    figures.tree_diagram(tr, m), figures.curves(tr, m)):
            check_figure(fig)
    assert "σ(2F" in figures.probability_map(tr, 2, grid).layout.title.text
    # best-first trees have at most max_leaves leaves, all drawn on the plane
    assert len(summaries.leaves_of(tr, 3)) <= 5


def test_extreme_scores_never_give_nan(warm_engine):
    """A large learning rate on separable data drives |F| far out; charts stay finite."""
    ds = make_toy("linear", n=100, noise=0.0, seed=0)
    tr = fit(ds.X, ds.y, n_rounds=60, learning_rate=10.0, max_depth=2)
    grid = make_grid(tr, resolution=30)
    assert np.abs(tr.raw).max() > 30
    for m in (1, 30, 60):
        for fig in (figures.probability_map(tr, m, grid), figures.residual_map(tr, m, grid),
                    figures.update_panels(tr, m, grid), figures.tree_regions(tr, m, grid),
                    figures.tree_diagram(tr, m), figures.curves(tr, m),
                    figures.sample_trajectory(tr, 0, m)):
            check_figure(fig)


def test_round_zero_has_no_tree(moons_fit, grid):
    for fig in (figures.tree_regions(moons_fit, 0, grid), figures.tree_diagram(moons_fit, 0),
                figures.update_panels(moons_fit, 0, grid)):
        assert "Round 0" in fig.layout.annotations[0].text


def test_upload_text_is_escaped_in_figures(moons_fit, grid):
    nasty = ("<b onmouseover=alert(1)>x</b>", "<a href='javascript:alert(1)'>y</a>")
    classes = ("<script>", "&lt;ok")
    for fig in (figures.probability_map(moons_fit, 2, grid, feature_names=nasty,
                                        classes=classes),
                figures.tree_diagram(moons_fit, 2, feature_names=nasty),
                figures.tree_regions(moons_fit, 2, grid, feature_names=nasty, classes=classes)):
        js = fig.to_json()
        assert "<script>" not in js and "<b onmouseover" not in js and "<a href" not in js
        assert "&lt;script&gt;" in js or "&lt;b onmouseover" in js


def test_the_other_views_on_a_line(sine):
    tr, grid = sine
    update = check_figure(figures.update_panels(tr, 4, grid, feature_names=("x",)))
    F0, step, F1 = (np.asarray(t["y"] if isinstance(t["y"], list) else
                               trace_array(figures.update_panels(tr, 4, grid), k, "y"))
                    for k, t in enumerate(update["data"]))
    np.testing.assert_allclose(F0 + step, F1, atol=1e-5)
    residuals = figures.residual_map(tr, 4, grid, feature_names=("x",), sample=1)
    check_figure(residuals)
    np.testing.assert_allclose(trace_array(residuals, 0, "y"), tr.y - tr.raw[4], rtol=1e-5,
                               atol=1e-5)
    curves = check_figure(figures.curves(tr, 4))
    assert "xaxis2" not in curves["layout"] and curves["layout"]["xaxis"]["domain"] == [0, 1]
    assert "½(y − F)²" in figures.curves(tr, 4).to_json()
    path = check_figure(figures.sample_trajectory(tr, 3, 4))
    assert path["data"][1]["y"] == [tr.y[3], tr.y[3]]


@pytest.mark.parametrize("m", [0, 1, 6])
def test_every_view_of_three_classes_drawsfinite_numbers(three, m):
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
        assert finite_numbers(fig)
    assert "class 2" in drawn[1].layout.title.text
    if m:
        assert f"Tree ({m}, 1)" in drawn[4].layout.title.text
        assert "2/3" in drawn[6].layout.title.text
