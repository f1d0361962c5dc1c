"""explorer.numbers.grid: F on a grid over the plane (or a line), and the boundary."""

from __future__ import annotations

import numpy as np

import explorer
from explorer.numbers.grid import (LINE_RESOLUTION, boundary_lines, make_grid, region_edges,
                                  tree_on_grid)


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


def test_tree_on_grid_is_the_step_of_one_class(three):
    trace, grid, _ = three
    for k in range(3):
        step = tree_on_grid(trace, 2, grid, k)
        exact = trace.staged_decision_grid(grid.xs, grid.ys)
        assert np.allclose(exact[2, ..., k] - exact[1, ..., k], step, atol=1e-12)


def test_class_boundaries_run_between_cells_of_different_classes():
    labels = np.array([[0, 0, 1], [0, 2, 1], [2, 2, 1]])
    px, py = region_edges(np.arange(3.0), np.arange(3.0), labels)
    segments = len([x for x in px if x is None])
    assert segments >= 4  # 0|1, 0|2 (both ways) and 2|1 edges
    px1, _ = region_edges(np.arange(3.0), np.arange(3.0), np.zeros((3, 3), int))
    assert px1 == []


def _edges_by_hand(xs, ys, labels) -> set:
    """Each run of cell edges between different labels, walked cell by cell: a vertical
    run between columns j and j + 1 over rows a to b, a horizontal one between rows i and
    i + 1 over columns a to b, as (x0, y0, x1, y1) on the cells' edges."""
    ny, nx = labels.shape
    xe = np.concatenate([[xs[0] - (xs[1] - xs[0]) / 2], (xs[:-1] + xs[1:]) / 2,
                         [xs[-1] + (xs[-1] - xs[-2]) / 2]])
    ye = np.concatenate([[ys[0] - (ys[1] - ys[0]) / 2], (ys[:-1] + ys[1:]) / 2,
                         [ys[-1] + (ys[-1] - ys[-2]) / 2]])
    found = set()
    for j in range(nx - 1):
        i = 0
        while i < ny:
            if labels[i, j] != labels[i, j + 1]:
                a = i
                while i + 1 < ny and labels[i + 1, j] != labels[i + 1, j + 1]:
                    i += 1
                found.add((xe[j + 1], ye[a], xe[j + 1], ye[i + 1]))
            i += 1
    for i in range(ny - 1):
        j = 0
        while j < nx:
            if labels[i, j] != labels[i + 1, j]:
                a = j
                while j + 1 < nx and labels[i, j + 1] != labels[i + 1, j + 1]:
                    j += 1
                found.add((xe[a], ye[i + 1], xe[j + 1], ye[i + 1]))
            j += 1
    return found


def test_region_edges_are_the_runs_found_cell_by_cell():
    rng = np.random.default_rng(0)
    for trial in range(200):
        ny, nx = rng.integers(2, 25, size=2)
        labels = rng.integers(0, 1 + trial % 4, size=(ny, nx))
        xs, ys = np.sort(rng.uniform(-3, 3, nx)), np.sort(rng.uniform(0, 1, ny))
        if len(np.unique(xs)) < nx or len(np.unique(ys)) < ny:
            continue
        px, py = region_edges(xs, ys, labels)
        assert px[2::3] == [None] * (len(px) // 3) and py[2::3] == px[2::3]
        segments = [(px[k], py[k], px[k + 1], py[k + 1]) for k in range(0, len(px), 3)]
        assert all(type(v) is float for seg in segments for v in seg)
        assert len(segments) == len(set(segments))
        assert set(segments) == _edges_by_hand(xs, ys, labels), trial


def test_the_grid_of_ten_classes_keeps_within_the_cells_budget(warm_engine):
    from explorer.numbers.grid import GRID_CELL_ROUNDS, GRID_RESOLUTION
    X = np.random.RandomState(0).normal(size=(200, 2))
    trace = explorer.fit(X, np.arange(200) % 10, n_rounds=50, max_depth=2)
    grid = make_grid(trace)
    assert grid.F.shape == (51, len(grid.ys), len(grid.xs), 10)
    assert len(grid.xs) < GRID_RESOLUTION and grid.F[..., 0].size * 10 <= GRID_CELL_ROUNDS
