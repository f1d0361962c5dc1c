"""explorer.numbers.leaves: a leaf's numbers agree with the fit's own record, in both
label forms of its Newton step."""

import numpy as np
import pytest

import explorer
from explorer.numbers import leaves, summaries
from fit_data import MOONS_300

X, Y = MOONS_300


@pytest.mark.parametrize("options", [{}, {"subsample": 0.7}, {"loss": "exponential"}])
def test_leaf_story_matches_the_recorded_leaf(options):
    trace = explorer.fit(X, Y, n_rounds=5, **options)
    tree = trace.tree(3)
    for node in np.flatnonzero(tree["left"] == -1):
        story = leaves.leaf_story(trace, 3, node)
        assert story["n"] == tree["n"][node]
        assert story["sum_r"] == pytest.approx(tree["sum_r"][node], rel=1e-12, abs=1e-12)
        assert story["sum_h"] == pytest.approx(tree["sum_h"][node], rel=1e-12, abs=1e-12)
        assert story["newton"] == pytest.approx(tree["value"][node], rel=1e-12)
        assert story["update"] == pytest.approx(trace.learning_rate * tree["value"][node])
        # the Taylor quadratic touches the loss at 0 with the same slope
        i0 = np.argmin(np.abs(story["gammas"]))
        assert story["taylor"][i0] == pytest.approx(story["loss"][i0], rel=1e-6)
        if not story["pure"]:
            assert story["loss"].min() >= story["loss"][np.argmin(np.abs(story["gammas"] - story["exact"]))] - 1e-9
        assert np.isfinite(story["loss"]).all() and np.isfinite(story["taylor"]).all()
        if trace.loss == "log_loss":
            assert story["sum_r_pm"] == pytest.approx(story["sum_r"], rel=1e-9, abs=1e-12)
            assert story["sum_h_pm"] == pytest.approx(story["sum_h"], rel=1e-9, abs=1e-12)


def test_members_are_the_samples_the_tree_sends_there():
    trace = explorer.fit(X, Y, n_rounds=2, max_depth=4)
    tree = trace.tree(2)
    for node in range(len(tree)):
        assert leaves.members(trace, 2, node).sum() == tree["n"][node]


@pytest.mark.parametrize("loss", ["log_loss", "exponential"])
def test_forms_of_the_newton_step(loss):
    trace = explorer.fit(X, Y, n_rounds=3, loss=loss)
    for node in summaries.leaves_of(trace, 2):
        story = leaves.leaf_story(trace, 2, int(node))
        f = leaves.forms(story)
        assert f["sum_r"] == story["sum_r"] and f["sum_h"] == story["sum_h"]
        assert f["ratio"] == story["sum_r"] / story["sum_h"]
        if loss == "log_loss":
            assert f["beta"] == story["sum_r_pm"] / story["sum_h_pm"]
            assert f["beta"] == pytest.approx(f["ratio"], rel=1e-9)
            assert f["gap_r"] == abs(story["sum_r"] - story["sum_r_pm"]) < 1e-9
            assert f["gap_h"] == abs(story["sum_h"] - story["sum_h_pm"]) < 1e-9
        else:  # the +-1 form is the log-loss's
            assert f["sum_r_pm"] is f["sum_h_pm"] is f["beta"] is f["gap_r"] is None


def test_forms_with_no_hessian():
    story = dict(sum_r=0.0, sum_h=0.0, sum_r_pm=0.0, sum_h_pm=0.0)
    assert leaves.forms(story)["ratio"] == 0.0 and leaves.forms(story)["beta"] == 0.0


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
