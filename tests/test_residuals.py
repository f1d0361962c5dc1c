"""explorer.figures.residuals: view 2, the residuals tree m + 1 fits."""

from __future__ import annotations

import numpy as np

from explorer import figures


def test_residual_map_colours_and_sizes_by_y_minus_p(moons_fit, grid):
    tr, m = moons_fit, 3
    fig = figures.residual_map(tr, m, grid)
    scatter = fig.data[1]
    r = np.asarray(scatter.marker.color)
    np.testing.assert_allclose(r, tr.y - tr.proba(m), atol=1e-12)
    size = np.asarray(scatter.marker.size)
    assert np.all(np.diff(size[np.argsort(np.abs(r))]) >= -1e-12)  # bigger |r|, bigger point
    assert scatter.marker.cmid == 0 and scatter.marker.cmin == -1 and scatter.marker.cmax == 1
