"""Glue between the engine's Trace and the app's views: grids, sums and ledgers.

Plain numpy, no Streamlit and no plotly: the app caches these results
(``explorer.session``), the figures draw them (``explorer.figures``) and the
tests check them directly. Every number here is read from the trace or computed
with the formulas of MATH.md, so what the app prints is what the engine did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import losses
from .tree import apply

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
    F : (n_rounds + 1, len(ys), len(xs)) float32, F_m at every grid point, or
        (n_rounds + 1, len(xs)) on a line
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


def make_grid(trace, resolution: int | None = None) -> Grid:
    """F_m for every round m on a resolution x resolution grid over the plane, or at
    ``resolution`` points along the axis of a one-input fit (one pass over the trees).

    By default the plane has GRID_RESOLUTION cells a side, fewer when the fit has so
    many rounds that the grid would pass GRID_CELL_ROUNDS."""
    if trace.X.shape[1] == 1:
        column = [a for a in (trace.X, trace.X_valid) if a is not None]
        lo, hi = plane_bounds(*[np.column_stack([a, np.zeros(len(a))]) for a in column])
        lo, hi = (lo[0], 0.0), (hi[0], 0.0)
        xs = np.linspace(lo[0], hi[0], resolution or LINE_RESOLUTION)
        ys, equal = None, False
        F = np.clip(trace.staged_decision_function(xs[:, None]), -1e30, 1e30).astype(np.float32)
    else:
        lo, hi, equal = square_bounds(*plane_bounds(trace.X, trace.X_valid))
        resolution = resolution or min(
            GRID_RESOLUTION, int(math.sqrt(GRID_CELL_ROUNDS / (trace.n_rounds + 1))))
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
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    above = np.asarray(F) > level
    # cell edges: midpoints between grid points, extended half a step at the ends
    xe = np.concatenate([[xs[0] - (xs[1] - xs[0]) / 2], (xs[:-1] + xs[1:]) / 2,
                         [xs[-1] + (xs[-1] - xs[-2]) / 2]])
    ye = np.concatenate([[ys[0] - (ys[1] - ys[0]) / 2], (ys[:-1] + ys[1:]) / 2,
                         [ys[-1] + (ys[-1] - ys[-2]) / 2]])
    px, py = [], []
    # vertical pieces: between columns j and j + 1, spanning row i
    change = above[:, 1:] != above[:, :-1]  # (ny, nx - 1)
    for j in np.flatnonzero(change.any(axis=0)):
        rows = change[:, j]
        starts = np.flatnonzero(rows & ~np.concatenate([[False], rows[:-1]]))
        ends = np.flatnonzero(rows & ~np.concatenate([rows[1:], [False]]))
        for a, b in zip(starts, ends):
            px += [float(xe[j + 1]), float(xe[j + 1]), None]
            py += [float(ye[a]), float(ye[b + 1]), None]
    # horizontal pieces: between rows i and i + 1, spanning column j
    change = above[1:, :] != above[:-1, :]  # (ny - 1, nx)
    for i in np.flatnonzero(change.any(axis=1)):
        cols = change[i, :]
        starts = np.flatnonzero(cols & ~np.concatenate([[False], cols[:-1]]))
        ends = np.flatnonzero(cols & ~np.concatenate([cols[1:], [False]]))
        for a, b in zip(starts, ends):
            px += [float(xe[a]), float(xe[b + 1]), None]
            py += [float(ye[i + 1]), float(ye[i + 1]), None]
    return px, py


def tree_leaf_of(tree, X) -> np.ndarray:
    """Node id of the leaf of ``tree`` each row of X falls in (float32 x <= threshold goes left)."""
    leaf = np.empty(len(X), dtype=np.int64)
    apply(tree, np.ascontiguousarray(X, dtype=np.float32), leaf)  # the engine's own walk
    return leaf


def tree_on_grid(trace, m: int, grid: Grid) -> np.ndarray:
    """nu * tree m on the grid, shaped as one round of grid.F, exactly as the engine adds it."""
    tree = trace.tree(m)
    leaf = tree_leaf_of(tree, grid.points)
    step = trace.learning_rate * tree["value"][leaf]
    return step.reshape(grid.F.shape[1:])


# --- f0 ------------------------------------------------------------------------------


def f0_summary(trace) -> dict:
    """f0 with its counts, in the 0/1 form and in the +-1 form (MATH.md sections 1, 2 and 6).

    Keys: n_pos, n_neg, n, pbar, ybar (mean of the +-1 labels), f0 (the engine's),
    from_counts (log(N+/N-), halved for the exponential loss), from_pm
    (log((1 + ybar)/(1 - ybar)), halved likewise), half (True for exponential),
    p0 (the probability at f0). A regression's f0 is its mean target (regression_f0).
    """
    if not trace.is_classifier:
        return regression_f0(trace)
    y = trace.y
    n = int(len(y))
    n_pos = int(np.count_nonzero(y == 1.0))
    n_neg = n - n_pos
    half = trace.loss == "exponential"
    factor = 0.5 if half else 1.0
    pbar = n_pos / n
    ybar = float(np.mean(2.0 * y - 1.0))
    from_counts = factor * math.log(n_pos / n_neg) if n_pos and n_neg else float(trace.f0)
    from_pm = (factor * math.log((1.0 + ybar) / (1.0 - ybar))
               if -1.0 < ybar < 1.0 else float(trace.f0))
    return dict(n_pos=n_pos, n_neg=n_neg, n=n, pbar=pbar, ybar=ybar, f0=float(trace.f0),
                from_counts=from_counts, from_pm=from_pm, half=half,
                p0=float(trace.link(np.array([trace.f0]))[0]))


def regression_f0(trace) -> dict:
    """f0 of squared error: the mean target. Keys: n, sum_y, mean (sum_y / n, recomputed),
    f0 (the engine's)."""
    y = np.asarray(trace.y, dtype=np.float64)
    return dict(n=int(len(y)), sum_y=float(y.sum()), mean=float(y.sum() / len(y)),
                f0=float(trace.f0))


# --- leaves --------------------------------------------------------------------------


def leaves_of(trace, m: int) -> np.ndarray:
    """Node ids of the leaves of tree m, in node order."""
    tree = trace.tree(m)
    return np.flatnonzero(tree["left"] < 0)


def resolve_leaf(trace, m: int, leaf: int, sample: int) -> tuple[int, bool]:
    """The leaf of tree m to show: ``leaf`` if it is one, else the selected sample's leaf.

    Returns (node id, followed) where followed is True when the sample's leaf was used.
    """
    tree = trace.tree(m)
    if 0 <= leaf < len(tree) and tree["left"][leaf] < 0:
        return int(leaf), False
    sample = min(max(int(sample), 0), len(trace.y) - 1)
    return int(trace.leaf[m, sample]), True


def leaf_summary(trace, m: int, node: int) -> dict:
    """The numbers of the Newton step of one leaf: sum r / sum h = gamma, times nu.

    Keys: node, n, sum_r, sum_h, gamma (the engine's value), ratio (sum_r / sum_h as
    printed), nu, step (nu * gamma), floored (True when the hessian sum was too small
    and the engine took no step), depth, members (indices of the in-bag training
    samples in the leaf).
    """
    tree = trace.tree(m)
    rec = tree[node]
    sum_r, sum_h, n = float(rec["sum_r"]), float(rec["sum_h"]), int(rec["n"])
    ratio = sum_r / sum_h if sum_h != 0 else 0.0
    in_leaf = trace.leaf[m] == node
    if trace.in_bag is not None:
        in_leaf &= trace.in_bag[m]
    floored = n > 0 and abs(sum_h / n) < losses.HESSIAN_FLOOR
    gamma = float(rec["value"])
    return dict(node=int(node), n=n, sum_r=sum_r, sum_h=sum_h, gamma=gamma, ratio=ratio,
                nu=float(trace.learning_rate), step=float(trace.learning_rate) * gamma,
                floored=bool(floored), depth=int(rec["depth"]),
                members=np.flatnonzero(in_leaf))


def leaf_rule(trace) -> str:
    """How the fit's leaf values were made: "newton", "second_order", "mean", or the
    engine's name of another rule ("exact", "line_search")."""
    params = getattr(trace, "params", {}) or {}
    if params.get("split") == "hessian":
        return "second_order"
    return str(params.get("leaf", "newton"))


def leaf_formula(trace, m: int, node: int) -> dict:
    """The ratio that gives the leaf value, with its numbers, when the rule has one.

    Keys: rule (see leaf_rule), numerator, denominator (None for rules without a
    closed form: exact, line search), value (the engine's), lam (second order).
    The ratio is checked against the recorded value; a mismatch gives no formula.
    """
    rec = trace.tree(m)[node]
    sum_r, sum_h, n = float(rec["sum_r"]), float(rec["sum_h"]), int(rec["n"])
    value = float(rec["value"])
    rule = leaf_rule(trace)
    lam = float(trace.params.get("reg_lambda", 0.0)) if rule == "second_order" else 0.0
    den = {"newton": sum_h, "second_order": sum_h + lam, "mean": float(n)}.get(rule)
    numerator = sum_r if den is not None else None
    if den is not None:
        ratio = sum_r / den if den != 0 else 0.0
        tol = 1e-6 if rule == "second_order" else 1e-9  # xgboost leaves are float32
        if not math.isclose(ratio, value, rel_tol=tol, abs_tol=tol):
            numerator = den = None
    return dict(rule=rule, numerator=numerator, denominator=den, value=value, lam=lam,
                n=n, sum_r=sum_r, sum_h=sum_h)


def node_table(trace, m: int, feature_names=("x1", "x2")) -> list[dict]:
    """One row per node of tree m, for a table: split, n, sums, improvement, value."""
    tree = trace.tree(m)
    rows = []
    for k, rec in enumerate(tree):
        is_leaf = rec["left"] < 0
        rows.append({
            "node": k,
            "depth": int(rec["depth"]),
            "kind": "leaf" if is_leaf else "split",
            "split": "" if is_leaf else
            f"{feature_names[int(rec['feature'])]} ≤ {float(rec['threshold']):.6g}",
            "n": int(rec["n"]),
            "Σ r": float(rec["sum_r"]),
            "Σ h": float(rec["sum_h"]),
            "improvement": float(rec["improvement"]),
            "value γ": float(rec["value"]) if is_leaf else None,
            "ν·γ": float(trace.learning_rate * rec["value"]) if is_leaf else None,
        })
    return rows


# --- one sample over all rounds ------------------------------------------------------


def sample_residuals(trace, i: int) -> np.ndarray:
    """Pseudo-residual of sample i at every round, (n_rounds + 1,): entry m is r at F_m."""
    code = losses.CODES[trace.loss]
    raw = np.ascontiguousarray(trace.raw[:, i], dtype=np.float64)
    y = np.full(len(raw), float(trace.y[i]))
    out = np.empty_like(raw)
    losses.negative_gradient(code, y, raw, out)
    return out


def ledger(trace, i: int) -> dict:
    """Sample i's account, one entry per round m = 0..M (arrays of length M + 1).

    round; leaf (node id in tree m, -1 at round 0); in_bag (None without subsampling);
    residual (r fitted by tree m, that is r at F_(m-1); NaN-free: 0 at round 0);
    gamma (its leaf's value; 0 at round 0); update (nu * gamma); F (F_m); p (p_m; None
    for a regression).
    """
    M = trace.n_rounds
    rounds = np.arange(M + 1)
    leaf = np.asarray(trace.leaf[:, i], dtype=np.int64).copy()
    leaf[0] = -1
    gamma = np.zeros(M + 1)
    # tree m is nodes[offsets[m - 1]:offsets[m]], so its node k is nodes[offsets[m - 1] + k]
    gamma[1:] = trace.nodes["value"][np.asarray(trace.offsets[:M], dtype=np.int64) + leaf[1:]]
    r = sample_residuals(trace, i)
    fitted = np.zeros(M + 1)
    fitted[1:] = r[:-1]
    F = np.asarray(trace.raw[:, i], dtype=np.float64)
    in_bag = None if trace.in_bag is None else np.asarray(trace.in_bag[:, i], dtype=bool)
    return dict(round=rounds, leaf=leaf, in_bag=in_bag, residual=fitted, gamma=gamma,
                update=trace.learning_rate * gamma, F=F,
                p=trace.link(F) if trace.is_classifier else None,
                y=float(trace.y[i]), x=np.asarray(trace.X[i], dtype=np.float64))


def round_metrics(trace, m: int) -> dict:
    """Loss and accuracy at round m (None where there is no validation set)."""
    def at(a):
        return None if a is None else float(a[m])
    return dict(train_loss=at(trace.train_loss), valid_loss=at(trace.valid_loss),
                train_accuracy=at(trace.train_accuracy), valid_accuracy=at(trace.valid_accuracy))


def warm_up() -> None:
    """Compile every kernel the app calls (numba caches them on disk): the engine's, and
    what the pages call beyond the fit (the staged grid, the leaf lookup, the ledger)."""
    from .boosting import fit, warmup
    warmup()
    X = np.random.default_rng(0).normal(size=(40, 2))
    trace = fit(X, (X[:, 0] > 0).astype(float), n_rounds=2)
    grid = make_grid(trace, resolution=8)
    tree_on_grid(trace, 1, grid)
    ledger(trace, 0)
