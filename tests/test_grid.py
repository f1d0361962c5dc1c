"""explorer.numbers.grid: F on a grid over the plane (or a line), and the boundary."""

from __future__ import annotations

import numpy as np

from explorer.numbers.grid import LINE_RESOLUTION, boundary_lines, tree_on_grid


def test_boundary_lines_follow_the_sign_changes():
    xs, ys = np.linspace(0, 1, 11), np.linspace(0, 2, 21)
    gx, gy = np.meshgrid(xs, ys)
    F = np.where((gx > 0.42) & (gy < 1.5), 1.0, -1.0)
    px, py = boundary_lines(xs, ys, F)
    assert len(px) == len(py) and len(px) % 3 == 0
    segments = [(px[k], py[k], px[k + 1], py[k + 1]) for k in range(0, len(px), 3)]
    assert all(px[k + 2] is None and py[k + 2] is None for k in range(0, len(px), 3))
    # one vertical run between x = 0.4 and 0.5, one horizontal between y = 1.4 and 1.5
    assert (0.45, -0.05, 0.45, 1.45) in [tuple(round(v, 10) for v in s) for s in segments]
    assert (0.45, 1.45, 1.05, 1.45) in [tuple(round(v, 10) for v in s) for s in segments]
    assert len(segments) == 2
    assert boundary_lines(xs, ys, np.ones_like(F)) == ([], [])


def test_a_one_input_grid_is_a_line_of_the_staged_predictions(sine):
    tr, grid = sine
    assert grid.is_line and grid.F.shape == (tr.n_rounds + 1, LINE_RESOLUTION)
    assert grid.lo[0] < tr.X.min() and grid.hi[0] > tr.X.max()
    expected = tr.staged_decision_function(grid.xs[:, None])
    np.testing.assert_allclose(grid.F, expected.astype(np.float32))
    for m in (1, 7):
        np.testing.assert_allclose(tree_on_grid(tr, m, grid),
                                   expected[m] - expected[m - 1], atol=1e-6)
