"""explorer.numbers.leaves: a leaf's numbers agree with the fit's own record."""

import numpy as np
import pytest

import explorer
from explorer.numbers import leaves
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
