"""View 1, the model after round m: the probability map of a classifier, a one-input
regression's staircase F_m(x) over the points, a two-input one's surface;
:func:`model_view` chooses the drawing for a fit (the class map of K >= 3 classes is
:mod:`.classes`'). Also the plane before a fit (:func:`drawn_points`).

Pure functions (trace, round, grid, options) -> plotly Figure, drawn in a ``panel``
(see :mod:`explorer.figures`).
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go

from .. import losses
from ..numbers.grid import Grid
from .classes import class_map
from .panels import (ALONE, Panel, base_layout, boundary_trace, class_names, colorbar, esc,
                     f32, finite, make_figure, map_size, marker_size, plane_axis, plane_layout,
                     scatter_type, selected_ring)
from .theme import BLUE, CLASS_COLORS, INK, ORANGE, PROBA_SCALE, VALID_COLOR, VALUE_SCALE


def probability_title(trace, m: int) -> str:
    return f"Model after round {m}: p(x) = {losses.of(trace).p_html(m)}(x)"


def probability_map(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"),
                    classes=None, show_valid: bool = False, sample: int | None = None,
                    height: int = 560, uirevision=None, title=None,
                    panel: Panel = ALONE, ring_label: str | None = None) -> go.Figure:
    """View 1: p(class 1) after round m, the boundary p = 0.5 and the points (the
    ``sample`` ringed, in the legend as ``ring_label``, by default "sample #i").

    Training points carry their index in ``customdata[0]`` (validation points -1),
    so a click can select a sample.
    """
    F = grid.F[m]
    # the title on top, its labels below their ticks: plotly sets a title on the right in
    # the tick labels' column (as the residuals' and the leaf values' bars)
    bar = colorbar("p(class 1)", side="top", ticklabelposition="outside bottom")
    data = [
        dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(trace.link(F.astype(np.float64))),
             name="p",
             hovertemplate="p = %{z:.3f}<extra></extra>",
             **panel.colour(dict(zmin=0.0, zmax=1.0, colorscale=PROBA_SCALE, colorbar=bar))),
        boundary_trace(grid, F, axes=(panel.xaxis, panel.yaxis)),
    ]
    names = class_names(classes)
    X, y = trace.X, trace.y
    p_train = finite(trace.proba(m))
    size = marker_size(len(y))
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        data.append(dict(
            type=scatter_type(len(y)), x=f32(X[idx, 0]), y=f32(X[idx, 1]), mode="markers",
            name=names[c], customdata=f32(np.column_stack([idx, p_train[idx]])),
            marker=dict(color=CLASS_COLORS[c], size=size, line=dict(color="white", width=1)),
            hovertemplate="sample #%{customdata[0]}<br>p = %{customdata[1]:.3f}<extra>"
                          + names[c] + "</extra>"))
    if show_valid and trace.X_valid is not None:
        p_valid = finite(trace.link(trace.valid_raw[m]))
        for c in (0, 1):
            idx = np.flatnonzero(trace.y_valid == c)
            data.append(dict(
                type=scatter_type(len(y)), x=f32(trace.X_valid[idx, 0]),
                y=f32(trace.X_valid[idx, 1]), mode="markers",
                name=f"{names[c]} (validation)",
                customdata=f32(np.column_stack([np.full(len(idx), -1), p_valid[idx]])),
                marker=dict(symbol="diamond-open", color=CLASS_COLORS[c], size=size + 2,
                            line=dict(color=CLASS_COLORS[c], width=2)),
                hovertemplate="validation point<br>p = %{customdata[1]:.3f}<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(selected_ring(X[sample, 0], X[sample, 1],
                                  esc(ring_label or f"sample #{sample}"), len(y)))
    title = title(trace, m) if callable(title) else title or probability_title(trace, m)
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, **map_size(panel), **plane_layout(grid, feature_names, panel),
        **panel.colour_axis(PROBA_SCALE, 0.0, 1.0, bar)))


def sample_map_title(trace, m: int) -> str:
    """The Sample page's map: the title says what a click does."""
    return f"Click a point to follow it (round {m})"


@functools.lru_cache(maxsize=4)  # by identity: a fit's trace and grid, drawn at each round
def _value_range(trace, grid) -> tuple[float, float]:
    """One range for a regression's targets and F at every round: steps keep their scale."""
    values = [np.asarray(trace.y, float), grid.F.ravel()]
    if trace.y_valid is not None:
        values.append(np.asarray(trace.y_valid, float))
    lo = min(float(finite(v).min()) for v in values)
    hi = max(float(finite(v).max()) for v in values)
    pad = max(hi - lo, 1e-9) * 0.06
    return lo - pad, hi + pad


def regression_line(trace, m: int, grid: Grid, *, feature_names=("x",),
                    target_name="y", show_valid: bool = False, sample: int | None = None,
                    height: int = 560, uirevision=None, title=None,
                    panel: Panel = ALONE) -> go.Figure:
    """View 1 for one input: the staircase F_m(x) over the points (x, y), and each
    point's residual y − F_m as a bar from F_m to y (what tree m + 1 fits).

    Training points and their bars carry the point's index in ``customdata[0]``.
    """
    x, y = trace.X[:, 0], trace.y
    F = trace.raw[m]
    idx = np.arange(len(y))
    fname, tname = esc(feature_names[0]), esc(target_name)
    lo, hi = _value_range(trace, grid)
    span = grid.hi[0] - grid.lo[0]
    data = [
        dict(type="bar", x=f32(x), y=f32(y - F), base=f32(F),
             name=f"residual y − F<sub>{m}</sub>",
             marker=dict(color=ORANGE, opacity=0.5, line=dict(width=0)),
             width=max(span / max(len(x), 1) * 0.5, span * 1e-3), customdata=idx,
             hovertemplate="sample #%{customdata}<br>y − F = %{y:.4g}<extra></extra>"),
        dict(type=scatter_type(len(y)), x=f32(x), y=f32(y), mode="markers",
             name="training points", customdata=idx,
             marker=dict(color=INK, size=marker_size(len(y)) - 2),
             hovertemplate=f"sample #%{{customdata}}<br>{fname} = %{{x:.4g}}<br>"
                           f"{tname} = %{{y:.4g}}<extra></extra>"),
    ]
    if show_valid and trace.X_valid is not None:
        data.append(dict(
            type=scatter_type(len(y)), x=f32(trace.X_valid[:, 0]), y=f32(trace.y_valid),
            mode="markers", name="validation points",
            customdata=np.full(len(trace.y_valid), -1),
            marker=dict(symbol="diamond-open", color=VALID_COLOR, size=marker_size(len(y))),
            hovertemplate=f"validation point<br>{tname} = %{{y:.4g}}<extra></extra>"))
    data.append(dict(type="scatter", x=grid.xs, y=f32(grid.F[m]), mode="lines",
                     name=f"F<sub>{m}</sub>(x)", line=dict(color=BLUE, width=3, shape="hv"),
                     hovertemplate="F = %{y:.4g}<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(selected_ring(x[sample], y[sample], f"sample #{sample}", len(y)))
    title = title(trace, m) if callable(title) else title or (f"Model after round {m}: F<sub>{m}</sub>(x), and the residuals "
                      f"y − F<sub>{m}</sub>")
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, barmode="overlay", hovermode="closest",
        **panel.axes(dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=fname)),
                     dict(range=[lo, hi], title=dict(text=tname)))))


def regression_surface(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"),
                       target_name="y", show_valid: bool = False, sample: int | None = None,
                       height: int = 560, uirevision=None, title=None,
                       panel: Panel = ALONE) -> go.Figure:
    """View 1 for two inputs: F_m on the plane as a heat map, the points coloured by y on
    the same scale (a point that stands out from its background is badly fitted).

    Training points carry their index in ``customdata[0]``, validation points -1.
    """
    X, y = trace.X, trace.y
    lo, hi = _value_range(trace, grid)
    tname = esc(target_name)
    size = marker_size(len(y))
    # the points share the map's scale (one colour, one value) but not its colour bar
    scale = panel.colour(dict(colorscale=VALUE_SCALE, cmin=lo, cmax=hi, showscale=False))
    bar = colorbar(f"F, {tname}")
    data = [
        dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(grid.F[m]), name="F",
             hovertemplate="F = %{z:.4g}<extra></extra>",
             **panel.colour(dict(colorscale=VALUE_SCALE, zmin=lo, zmax=hi, colorbar=bar))),
        dict(type=scatter_type(len(y)), x=f32(X[:, 0]), y=f32(X[:, 1]), mode="markers",
             name=f"training points (colour: {tname})",
             customdata=f32(np.column_stack([np.arange(len(y)), y, trace.raw[m]])),
             marker=dict(color=f32(y), size=size, line=dict(color="white", width=1), **scale),
             hovertemplate=f"sample #%{{customdata[0]}}<br>{tname} = %{{customdata[1]:.4g}}"
                           "<br>F = %{customdata[2]:.4g}<extra></extra>"),
    ]
    if show_valid and trace.X_valid is not None:
        data.append(dict(
            type=scatter_type(len(y)), x=f32(trace.X_valid[:, 0]),
            y=f32(trace.X_valid[:, 1]), mode="markers", name="validation points",
            customdata=f32(np.column_stack([np.full(len(trace.y_valid), -1),
                                             trace.y_valid])),
            marker=dict(symbol="diamond", color=f32(trace.y_valid), size=size + 2,
                        line=dict(color=VALID_COLOR, width=2), **scale),
            hovertemplate=f"validation point<br>{tname} = %{{customdata[1]:.4g}}"
                          "<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(y)))
    title = title(trace, m) if callable(title) else (
        title or f"Model after round {m}: F<sub>{m}</sub>(x) on the plane")
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, **plane_layout(grid, feature_names, panel),
        **panel.colour_axis(VALUE_SCALE, lo, hi, bar)))


def model_view(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"), classes=None,
               target_name="y", **options) -> go.Figure:
    """View 1 for any fit: the probability map of a classifier (the class map with K >= 3
    classes, or its p_k with ``k``), the staircase of a one-input regression, the surface
    of a two-input one."""
    k = options.pop("k", None)
    if trace.is_multiclass:
        return class_map(trace, m, grid, feature_names=feature_names, classes=classes, k=k,
                         **options)
    if trace.is_classifier:
        return probability_map(trace, m, grid, feature_names=feature_names, classes=classes,
                               **options)
    draw = regression_line if grid.is_line else regression_surface
    return draw(trace, m, grid, feature_names=feature_names, target_name=target_name,
                **options)


def drawn_points(X, labels, lo, hi, *, regression: bool = False, classes=None,
                 feature_names=("x1", "x2"), target_name="y", height: int = 560,
                 uirevision=None) -> go.Figure:
    """The plane before a fit: the points drawn so far (none at first) on the plane
    (lo, hi), coloured by class, or by target on the model's colour scale."""
    X, labels = np.asarray(X, float).reshape(-1, 2), np.asarray(labels, float)
    common = dict(type="scatter", mode="markers", hovertemplate="(%{x}, %{y})<extra></extra>",
                  marker=dict(size=12, line=dict(color="white", width=1)))
    if regression:
        data = [dict(common, x=X[:, 0], y=X[:, 1], name=f"points (colour: {esc(target_name)})",
                     marker=dict(common["marker"], color=labels, colorscale=VALUE_SCALE,
                                 colorbar=colorbar(esc(target_name))))]
    else:
        data = [dict(common, x=X[labels == c, 0], y=X[labels == c, 1], name=name,
                     marker=dict(common["marker"], color=CLASS_COLORS[c]))
                for c, name in enumerate(class_names(classes))]
    axes = (plane_axis(lo[0], hi[0], feature_names[0]),
            plane_axis(lo[1], hi[1], feature_names[1], scaleanchor="x", scaleratio=1))
    return make_figure(data, base_layout(f"Drawn points: {len(X)}", height, uirevision,
                                         xaxis=axes[0], yaxis=axes[1], showlegend=True))
