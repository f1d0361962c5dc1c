"""View 2, the residuals after round m (what tree m + 1 fits): each training point
coloured and sized by its pseudo-residual on the plane, or plotted against x for a
regression with one input.

Pure functions (trace, round, grid, options) -> plotly Figure, drawn in a ``panel``
(see :mod:`explorer.figures`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .. import losses
from ..numbers.grid import Grid
from .classes import class_boundaries, class_labels
from .panels import (ALONE, Panel, base_layout, boundary_trace, colorbar, esc, f32, finite,
                     make_figure, map_size, marker_size, plane_layout, scatter_type,
                     selected_ring)
from .theme import DIVERGING, MUTED


def residual_title(trace, m: int, k: int = 0, classes=None) -> str:
    if trace.is_multiclass:
        nxt = f"tree ({m + 1}, {k}) fits these" if m != trace.n_rounds else "no tree follows"
        return (f"Residuals of {class_labels(trace, classes)[k]} after round {m}: "
                f"r = {losses.of(trace).residual_html} ({nxt})")
    nxt = f"tree {m + 1} fits these" if m != trace.n_rounds else "no tree follows"
    return f"Residuals after round {m}: r = {losses.of(trace).residual_html} ({nxt})"


def residual_scale(trace, r: np.ndarray) -> float:
    """Half-range of the residual colour scale: 1 for log-loss (|y - p| < 1)."""
    bound = losses.of(trace).residual_bound
    if bound is not None:
        return bound
    return max(float(np.quantile(np.abs(r), 0.98)), 1e-12)


def residual_map(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"),
                 sample: int | None = None, height: int = 560, uirevision=None,
                 scale: float | None = None, panel: Panel = ALONE, k: int = 0,
                 classes=None) -> go.Figure:
    """View 2: each training point coloured by its pseudo-residual after round m, sized by |r|.

    These are the residuals tree m + 1 is fitted to (y - p for log-loss).
    ``scale`` is the half-range |r| of both the colour scale and the marker sizes; by
    default this round's own (:func:`residual_scale`). A storyboard passes one scale
    for all its panels, so that one colour and one size mean one residual everywhere.
    With K >= 3 classes: class k's residuals y_k - p_k (``classes`` names them).
    """
    r = finite(trace.residual(m))
    if trace.is_multiclass:
        r = r[:, k]
    X = trace.X
    scale = residual_scale(trace, r) if scale is None else max(float(finite(scale)), 1e-12)
    # in quarter pixels: the browser gets a round's sizes as a few values and their codes
    size = np.round(4.0 * (4.0 + 16.0 * np.clip(np.abs(r) / scale, 0.0, 1.0))) / 4.0
    title = residual_title(trace, m, k, classes)
    if grid.is_line:
        return _residual_line(trace, grid, r, scale, feature_names[0], sample, title, height,
                              uirevision, panel)
    colour, colour_axis = _residual_colours(trace, scale, panel)
    boundary = class_boundaries if trace.is_multiclass else boundary_trace
    data = [] if not trace.is_classifier else [
        boundary(grid, grid.F[m], color=MUTED, width=1.5, dash="dot",
                 axes=(panel.xaxis, panel.yaxis))]
    data += [
        dict(type=scatter_type(len(r)), x=f32(X[:, 0]), y=f32(X[:, 1]), mode="markers",
             name=losses.of(trace).residual_html, showlegend=False,
             customdata=f32(np.column_stack([np.arange(len(r)), r])),
             marker=dict(color=f32(r), size=f32(size),
                         line=dict(color="rgba(60,60,60,0.45)", width=0.6), **colour),
             hovertemplate="sample #%{customdata[0]}<br>r = %{customdata[1]:.4f}"
                           "<extra></extra>"),
    ]
    if sample is not None and 0 <= sample < len(r):
        data.append(selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(r)))
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, **map_size(panel), **plane_layout(grid, feature_names, panel),
        **colour_axis))


def _residual_colours(trace, scale, panel) -> tuple[dict, dict]:
    """(the residual markers' colour settings, the layout's shared colour axis if any):
    the diverging scale on [-scale, scale], white at r = 0."""
    # the title on top, its labels just below their ticks: plotly sets a title on the
    # right in the tick labels' column, beside the 0 (as regions.py's leaf-value bar)
    bar = colorbar(f"r = {losses.of(trace).residual_html}", side="top",
                   ticklabelposition="outside bottom")
    return (panel.colour(dict(cmin=-scale, cmid=0.0, cmax=scale, colorscale=DIVERGING,
                              colorbar=bar)),
            panel.colour_axis(DIVERGING, -scale, scale, bar))


def _residual_line(trace, grid, r, scale, name, sample, title, height, uirevision, panel):
    """The residuals of a one-input fit against x, coloured as on the plane."""
    x = trace.X[:, 0]
    colour, colour_axis = _residual_colours(trace, scale, panel)
    data = [dict(type=scatter_type(len(r)), x=f32(x), y=f32(r), mode="markers",
                 name=losses.of(trace).residual_html, showlegend=False,
                 customdata=f32(np.column_stack([np.arange(len(r)), r])),
                 marker=dict(color=f32(r), size=marker_size(len(r)),
                             line=dict(color="rgba(60,60,60,0.45)", width=0.6), **colour),
                 hovertemplate="sample #%{customdata[0]}<br>r = %{customdata[1]:.4f}"
                               "<extra></extra>")]
    if sample is not None and 0 <= sample < len(r):
        data.append(selected_ring(x[sample], r[sample], f"sample #{sample}", len(r)))
    reach = 1.1 * max(float(np.abs(r).max()), scale)
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision,
        **panel.axes(dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=esc(name))),
                     dict(range=[-reach, reach],
                          title=dict(text=f"r = {losses.of(trace).residual_html}"),
                          zeroline=True, zerolinecolor=MUTED, zerolinewidth=1.5)),
        **colour_axis))
