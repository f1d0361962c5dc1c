"""explorer.figures.update: view 4, F_(m-1) + nu * tree m = F_m."""

from __future__ import annotations

import numpy as np

from explorer import figures
from explorer.numbers.grid import tree_on_grid
from figure_helpers import trace_array


def test_update_panels_add_up(moons_fit, grid):
    tr, m = moons_fit, 6
    fig = figures.update_panels(tr, m, grid)
    heat = [k for k, t in enumerate(fig.data) if t.type == "heatmap"]
    before, step, after = (trace_array(fig, k, "z") for k in heat)
    np.testing.assert_allclose(before + step, after, atol=1e-5)
    exact = tree_on_grid(tr, m, grid)
    np.testing.assert_allclose(step, exact)
    assert set(np.unique(np.round(exact / tr.learning_rate, 12))) <= set(
        np.round(tr.tree(m)["value"], 12))
