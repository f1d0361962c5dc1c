"""The plane a fit is drawn on: the grid of cells, F_m on it at every round, and the
decision boundary F = 0 as axis-aligned lines.

Plain numpy, no Streamlit and no plotly: the app caches a Grid per fit and the figures
draw it. F on the grid comes from the engine's own staged prediction, so what is drawn
is what the engine computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..nodes import apply

GRID_RESOLUTION = 100  # cells along each axis of the plane, at most


# Cells x rounds of one grid (4 bytes each, 10 MB): beyond 250 rounds the plane gets
# fewer cells (70 x 70 at 500 rounds), so thirty students with thirty settings fit
# in the server's memory.
GRID_CELL_ROUNDS = 2_500_000


LINE_RESOLUTION = 600  # points along the axis of a one-input fit


MARGIN = 0.08  # fraction of the data's range added around it on the plane


@dataclass(frozen=True, eq=False)
class Grid:
    """A regular grid over the plane (or the line, for one input) and F_m on it for every round.

    Attributes
    ----------
    xs, ys : 1-D arrays, the grid's coordinates along each feature; ys is None for a
        fit with one input (a line)
    lo, hi : (x, y) corners of the plane shown (y is 0 on a line)
    F : (n_rounds + 1, len(ys), len(xs)) float32, F_m at every grid point (with a last
        axis of K classes for K >= 3), or (n_rounds + 1, len(xs)) on a line
    equal_aspect : bool, True when both features have comparable ranges, so that
        the plane is drawn square with one unit the same length on both axes
    """

    xs: np.ndarray
    ys: np.ndarray
    lo: tuple[float, float]
    hi: tuple[float, float]
    F: np.ndarray
    equal_aspect: bool = True

    @property
    def is_line(self) -> bool:
        return self.ys is None

    @property
    def points(self) -> np.ndarray:
        if self.is_line:
            return self.xs[:, None]
        gx, gy = np.meshgrid(self.xs, self.ys)
        return np.column_stack([gx.ravel(), gy.ravel()])


def plane_bounds(*arrays) -> tuple[tuple[float, float], tuple[float, float]]:
    """Corners (lo, hi) of a box around all points, with a margin; never empty."""
    pts = np.vstack([np.asarray(a, dtype=np.float64)[:, :2] for a in arrays if a is not None])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = hi - lo
    pad = np.where(span > 0, span * MARGIN, np.maximum(np.abs(lo) * 0.1, 1.0))
    lo, hi = lo - pad, hi + pad
    return (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1]))


def square_bounds(lo, hi, max_ratio: float = 3.0):
    """Bounds made square (the shorter side widened about its centre) when the two
    ranges are within ``max_ratio`` of each other; returns (lo, hi, equal_aspect)."""
    span = (hi[0] - lo[0], hi[1] - lo[1])
    if max(span) > max_ratio * min(span):
        return lo, hi, False
    half = max(span) / 2
    cx, cy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
    return (cx - half, cy - half), (cx + half, cy + half), True


def plane_of(*arrays) -> tuple[tuple[float, float], tuple[float, float], bool]:
    """(lo, hi, equal_aspect) of the plane that frames the points of all the arrays
    (None ones are skipped)."""
    return square_bounds(*plane_bounds(*arrays))


def make_grid(trace, resolution: int | None = None, around=None) -> Grid:
    """F_m for every round m on a resolution x resolution grid over the plane, or at
    ``resolution`` points along the axis of a one-input fit (one pass over the trees).

    By default the plane has GRID_RESOLUTION cells a side, fewer when the fit has so
    many rounds (or classes: a grid holds F of each) that the grid would pass
    GRID_CELL_ROUNDS. ``around``: points the plane also frames (see :func:`plane_of`)."""
    if trace.X.shape[1] == 1:
        column = [a for a in (trace.X, trace.X_valid) if a is not None]
        lo, hi = plane_bounds(*[np.column_stack([a, np.zeros(len(a))]) for a in column])
        lo, hi = (lo[0], 0.0), (hi[0], 0.0)
        xs = np.linspace(lo[0], hi[0], resolution or LINE_RESOLUTION)
        ys, equal = None, False
        F = np.clip(trace.staged_decision_function(xs[:, None]), -1e30, 1e30).astype(np.float32)
    else:
        lo, hi, equal = plane_of(trace.X, trace.X_valid, around)
        resolution = resolution or min(
            GRID_RESOLUTION, int(math.sqrt(GRID_CELL_ROUNDS / (trace.n_rounds + 1) / (
                trace.n_classes if trace.is_multiclass else 1))))
        xs = np.linspace(lo[0], hi[0], resolution)
        ys = np.linspace(lo[1], hi[1], resolution)
        F = trace.staged_decision_grid(xs, ys, dtype=np.float32)
    # float32 halves the cache; the exact numbers are shown from the trace itself
    F.setflags(write=False)
    return Grid(xs, ys, lo, hi, F, equal)


def boundary_lines(xs, ys, F, level: float = 0.0) -> tuple[list, list]:
    """The boundary F = level on a grid as axis-aligned polylines (x, y lists, None between).

    F of a tree ensemble is constant on boxes, so its boundary is made of horizontal
    and vertical pieces: drawn along the edges between grid cells whose F lie on
    either side of the level (where a heatmap of the same grid changes colour).
    Runs of collinear edges are merged, so a straight stretch is one segment.
    """
    return region_edges(xs, ys, np.asarray(F) > level)


def region_edges(xs, ys, labels) -> tuple[list, list]:
    """The edges between grid cells of different ``labels`` (an (ny, nx) array: the side
    of a level, or the most probable class) as axis-aligned polylines."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    above = np.asarray(labels)
    # cell edges: midpoints between grid points, extended half a step at the ends
    xe = np.concatenate([[xs[0] - (xs[1] - xs[0]) / 2], (xs[:-1] + xs[1:]) / 2,
                         [xs[-1] + (xs[-1] - xs[-2]) / 2]])
    ye = np.concatenate([[ys[0] - (ys[1] - ys[0]) / 2], (ys[:-1] + ys[1:]) / 2,
                         [ys[-1] + (ys[-1] - ys[-2]) / 2]])
    # vertical pieces: between columns j and j + 1, spanning rows a to b
    j, a, b = _runs((above[:, 1:] != above[:, :-1]).T)
    # horizontal pieces: between rows i and i + 1, spanning columns a to b
    i, c, d = _runs(above[1:, :] != above[:-1, :])
    return (_polylines(xe[j + 1], xe[j + 1]) + _polylines(xe[c], xe[d + 1]),
            _polylines(ye[a], ye[b + 1]) + _polylines(ye[i + 1], ye[i + 1]))


def _runs(change) -> tuple:
    """(line, first, last) of each run of True along the lines (rows) of ``change``, line
    by line and in order along each."""
    padded = np.zeros((change.shape[0], change.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = change
    step = np.diff(padded, axis=1)
    line, first = np.nonzero(step == 1)
    _, after = np.nonzero(step == -1)
    return line, first, after - 1


def _polylines(start, end) -> list:
    """Segments from ``start`` to ``end`` as one polyline list, None between them."""
    out = [None] * (3 * len(start))
    out[0::3] = start.tolist()
    out[1::3] = end.tolist()
    return out


def tree_leaf_of(tree, X, dtype=np.float32) -> np.ndarray:
    """Node id of the leaf of ``tree`` each row of X falls in (x <= threshold goes left,
    x in ``dtype``: float32, or float64 for histogram trees)."""
    leaf = np.empty(len(X), dtype=np.int64)
    apply(tree, np.ascontiguousarray(X, dtype=dtype), leaf)  # the engine's own walk
    return leaf


def tree_on_grid(trace, m: int, grid: Grid, k: int = 0) -> np.ndarray:
    """nu * tree m (of class k) on the grid, shaped as one round of one class's grid.F,
    exactly as the engine adds it."""
    tree = trace.tree(m, k)
    leaf = tree_leaf_of(tree, grid.points, trace.point_dtype)
    step = trace.learning_rate * tree["value"][leaf]
    return step.reshape(grid.F.shape[1:3] if trace.is_multiclass else grid.F.shape[1:])

