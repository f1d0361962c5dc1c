"""The views on the plane of two inputs (or along a regression's one input).

Pure functions (trace, round, grid, options) -> plotly Figure: the model (the
probability map, or a regression's staircase and surface), the residuals, tree m's
regions and leaf values, and the update F_m = F_(m-1) + nu * tree m. A regression
with one input draws the same ideas along its axis (``grid.is_line``): the model as
the staircase F_m(x) over the points, the residuals against x, tree m as its leaf
values over the residuals it fits. :func:`model_view` chooses the model's drawing for
a fit; the other views choose theirs from the grid.

The model, residual and tree views take a ``panel`` (:class:`~.theme.Panel`): where to
draw in a larger figure, and whether to colour through a shared colour axis. A
storyboard composes its grid from them with that argument and the views' shared
ranges (``scale``, ``vmax``), never by editing a finished figure.
"""

from __future__ import annotations

import functools

import numpy as np
from plotly.colors import sample_colorscale

import plotly.graph_objects as go

from .. import losses
from ..numbers.grid import Grid
from ..numbers.summaries import leaf_rule, most_leaves, resolve_leaf
from ..text import leaf_symbol, no_tree, number, signed
from . import leaf_labels
from .classes import class_boundaries, class_colour, class_labels, class_map
from .layout import LABEL, LABELS_PLACED
from .panels import (ALONE, Panel, base_layout, boundary_trace, class_names, colorbar,
                     empty_figure, esc, f32, finite, make_figure, map_size, marker_size,
                     plane_axis, plane_layout, scatter_type, selected_ring)
from .theme import (BLUE, CLASS_COLORS, DIVERGING, INK, MUTED, ORANGE, PROBA_SCALE,
                    VALID_COLOR, VALUE_SCALE)

# --- 1. the model: p = sigmoid(F_m) on the plane ------------------------------------


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
    p = finite(trace.link(F.astype(np.float64)))
    bar = colorbar("p(class 1)")
    data = [
        dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(p), name="p",
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


# --- 2. residuals --------------------------------------------------------------------


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
    bar = colorbar(f"r = {losses.of(trace).residual_html}")
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


# --- 3. tree m on the plane ----------------------------------------------------------


def tree_regions(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"),
                 classes=None, leaf: int | None = None, sample: int | None = None,
                 height: int = 560, uirevision=None, vmax: float | None = None,
                 panel: Panel = ALONE, k: int = 0) -> go.Figure:
    """View 3: the leaves of tree m as boxes, each labelled with its Newton value gamma.

    Each leaf's label is named ``label:<node id>`` (a click on it selects the leaf, its
    hover has the leaf's numbers); training points carry -1 - index in ``customdata[0]``.
    ``vmax`` is the largest |gamma| of the colour scale, used for the box fills and named
    in the colour bar's title; by default this tree's own (:func:`leaf_value_range` of
    several rounds shares one). Every round's figure holds as many boxes and labels.
    With K >= 3 classes: tree k of round m. With a ``sample``, ``leaf`` is the selection
    (:func:`~explorer.numbers.summaries.resolve_leaf`): a leaf of tree m, else the
    sample's leaf.
    """
    if m < 1:
        return empty_figure(no_tree(),
                            height, panel)
    if leaf is not None and sample is not None:
        leaf = resolve_leaf(trace, m, leaf, sample, k)[0]
    if grid.is_line:
        return tree_line(trace, m, grid, feature_names=feature_names, leaf=leaf, sample=sample,
                         height=height, uirevision=uirevision, vmax=vmax, panel=panel)
    tree = trace.tree(m, k)
    boxes = trace.regions(m, grid.lo, grid.hi, k)
    values = finite(tree["value"])
    is_leaf = tree["left"] < 0
    if vmax is None:
        vmax = float(np.max(np.abs(values[is_leaf])))
    vmax = max(float(finite(vmax)), 1e-12)
    shapes, notes, node_ids = [], [], []
    visible = [b for b in boxes if b["x1"] > b["x0"] and b["y1"] > b["y0"]]
    n_visible = len(visible)
    text_size = 16 if n_visible <= 8 else 13 if n_visible <= 20 else 11
    placed = None
    if panel == ALONE and n_visible <= 40:  # each label where it stays readable
        placed = leaf_labels.place(
            [dict(node=int(b["node"]), x0=float(b["x0"]), x1=float(b["x1"]), y0=float(b["y0"]),
                  y1=float(b["y1"]), g=float(values[int(b["node"])]),
                  border=2 if int(b["node"]) == leaf else 0) for b in visible],
            (grid.lo[0], grid.hi[0]), (grid.lo[1], grid.hi[1]), text_size, leaf_symbol(trace))
    selected = None
    for b in visible:
        node = int(b["node"])
        x0, x1, y0, y1 = (float(b[k]) for k in ("x0", "x1", "y0", "y1"))
        g = float(values[node])
        # (g - lo) / (hi - lo) on [-vmax, vmax], as plotly places the marker colours
        color = sample_colorscale(DIVERGING, [min(max((g + vmax) / (vmax + vmax), 0.0),
                                                  1.0)])[0]
        shapes.append(panel.ref(dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, layer="below",
                                     fillcolor=color, opacity=0.6, name=f"leaf:{node}",
                                     line=dict(color="white", width=2))))
        node_ids.append(node)
        if n_visible <= 40:  # a label per leaf: its hover has the leaf's numbers
            spot = placed[node] if placed else dict(text=f"γ = {signed(g)}", x=(x0 + x1) / 2,
                                                    y=(y0 + y1) / 2, ax=None, shown=True)
            note = dict(
                x=spot["x"], y=spot["y"], text=spot["text"], showarrow=False,
                name=f"{LABEL}:{node}", font=dict(size=text_size, color=INK),
                bgcolor="rgba(255,255,255,0.85)",
                bordercolor=INK if node == leaf else "rgba(0,0,0,0)",
                borderwidth=2 if node == leaf else 0, borderpad=leaf_labels.PAD,
                hovertext=_leaf_hover(trace, m, node, k), captureevents=True)
            if placed:  # beside its box, a leader line to it; or left to the hover
                note.update(leaf_labels.arrow(spot))
            notes.append(panel.ref(note))
        if node == leaf:
            selected = panel.ref(dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, layer="above",
                                      fillcolor="rgba(0,0,0,0)", line=dict(color=INK, width=4)))
    if selected is not None:
        shapes.append(selected)
    # As many boxes and labels at every round, the unused ones transparent: the browser
    # then steps by changing their values alone, and plotly.js redraws no trace (bindings).
    slots = most_leaves(trace, k)
    shapes += [panel.ref(dict(type="rect", x0=0, x1=0, y0=0, y1=0, layer="below",
                              fillcolor=_CLEAR, opacity=0, line=dict(color=_CLEAR, width=0)))
               for _ in range(slots + 1 - len(shapes))]
    notes += [panel.ref(dict(x=0, y=0, text=" ", showarrow=bool(placed), ax=0.0, ay=0.0,
                             opacity=0))  # showarrow as the labels': leaf_labels.arrow
              for _ in range(slots - len(notes))]
    size = max(marker_size(len(trace.y)) - 1, 3)
    in_bag = np.ones(len(trace.y), bool) if trace.in_bag is None else trace.in_bag[m]
    data = bin_lattice(trace, grid, panel)
    for name, color, members in _point_groups(trace, classes):
        idx = np.flatnonzero(members & in_bag)
        data.append(dict(
            type=scatter_type(len(trace.y)), x=f32(trace.X[idx, 0]), y=f32(trace.X[idx, 1]),
            mode="markers", name=name, customdata=np.column_stack([-1 - idx, idx]),
            marker=dict(color=color, size=size, line=dict(color="white", width=0.8)),
            hovertemplate="sample #%{customdata[1]}<extra></extra>"))
    if trace.in_bag is not None:
        out = np.flatnonzero(~in_bag)
        data.append(dict(
            type=scatter_type(len(trace.y)), x=f32(trace.X[out, 0]), y=f32(trace.X[out, 1]),
            mode="markers", name=f"not in tree {m}'s subsample",
            customdata=np.column_stack([-1 - out, out]),
            marker=dict(symbol="circle-open", color=MUTED, size=size, line=dict(width=1)),
            hovertemplate="sample #%{customdata[1]} (out of bag)<extra></extra>"))
    # The colour bar, on a scale of gamma / vmax, vmax in its title: a new tree changes the
    # title alone (a new scale, or new tick labels, would redraw every trace).
    bar = colorbar(bar_title(vmax, leaf_symbol(trace)), tickvals=[-1.0, 0.0, 1.0], ticktext=["−max", "0", "+max"])
    data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name="leaf value γ",
                     showlegend=False, hoverinfo="skip", marker=dict(color=[0.0], **panel.colour(
                         dict(cmin=-1.0, cmax=1.0, colorscale=DIVERGING, colorbar=bar,
                              showscale=True)))))
    if sample is not None and 0 <= sample < len(trace.y):
        data.append(selected_ring(trace.X[sample, 0], trace.X[sample, 1], f"sample #{sample}",
                                   len(trace.y)))
    hidden = (sum(not spot["shown"] for spot in placed.values()) if placed
              else n_visible if n_visible > 40 else 0)
    title = regions_title(trace, m, len(node_ids), k, classes, hidden)
    own = dict(meta={LABELS_PLACED: True}) if placed else {}
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, shapes=shapes, annotations=notes, **own,
        **plane_layout(grid, feature_names, panel),
        **panel.colour_axis(DIVERGING, -1.0, 1.0, bar)))


_CLEAR = "rgba(0,0,0,0)"
LATTICE_MAX = 64  # bin edges a feature may have for its lattice to be drawn (more: a blur)


def bin_lattice(trace, grid, panel: Panel = ALONE) -> list[dict]:
    """Histogram trees: each feature's bin edges on the plane, as a faint lattice (a split
    can only fall on one, so the leaves' boxes snap to it); none for other trees, or
    where a feature has more than LATTICE_MAX edges."""
    edges = getattr(trace, "bin_thresholds", None)
    if edges is None or len(edges) < 2 or max(len(e) for e in edges) > LATTICE_MAX:
        return []
    xs, ys = [], []
    for t in edges[0]:
        if grid.lo[0] < t < grid.hi[0]:
            xs += [float(t), float(t), None]
            ys += [grid.lo[1], grid.hi[1], None]
    for t in edges[1]:
        if grid.lo[1] < t < grid.hi[1]:
            xs += [grid.lo[0], grid.hi[0], None]
            ys += [float(t), float(t), None]
    return [dict(type="scatter", x=xs, y=ys, mode="lines", connectgaps=False,
                 name="bin edges (a split falls on one)", hoverinfo="skip",
                 line=dict(color="rgba(60,60,60,0.35)", width=1, dash="dot"))]


def bar_title(vmax: float, sym: str = "γ") -> str:
    """The leaf values' colour bar title: its scale ends at ±vmax (w: xgboost's weight)."""
    return f"leaf value {sym} (max |{sym}| = {number(vmax, 3)})"


def regions_title(trace, m: int, n_leaves: int, k: int = 0, classes=None,
                  hidden: int = 0) -> str:
    kind = "Newton value" if leaf_rule(trace) == "newton" else "value"
    sym = leaf_symbol(trace)
    tree = (f"Tree ({m}, {k}), of {class_labels(trace, classes)[k]}" if trace.is_multiclass
            else f"Tree {m} on the plane")
    if hidden:  # the smallest leaves' values are in their hover
        return (f"{tree}: {n_leaves} leaves, labelled with their {kind} {sym} "
                f"({hidden} too small: hover)")
    return f"{tree}: {n_leaves} leaves, each labelled with its {kind} {sym}"


def _point_groups(trace, classes):
    """(legend name, colour, mask) of the training points: one group per class, or all
    of a regression's points in one."""
    if not trace.is_classifier:
        return [("training points", INK, np.ones(len(trace.y), bool))]
    if trace.is_multiclass:
        return [(name, class_colour(c), trace.y == c)
                for c, name in enumerate(class_labels(trace, classes))]
    names = class_names(classes)
    return [(names[c], CLASS_COLORS[c], trace.y == c) for c in (0, 1)]


def _leaf_marks(trace, m, nodes, xs, ys, hover, size):
    """Invisible markers at the leaves' label positions: hover text, a click selects the
    leaf (its node id in ``customdata[0]``)."""
    gammas = [float(finite(trace.tree(m)["value"][node])) for node in nodes]
    return dict(type="scatter", x=xs, y=ys, mode="markers",
                customdata=f32(np.column_stack([nodes, gammas])) if len(nodes) else None,
                hovertext=hover, hoverinfo="text", name="leaf value γ", showlegend=False,
                marker=dict(size=size, opacity=0.0))


def _leaf_hover(trace, m, node, k=0) -> str:
    tree = trace.tree(m, k)
    g = float(finite(tree["value"][node]))
    return (f"leaf {node} (click to select)<br>n = {int(tree['n'][node])}"
            f"<br>γ = {number(g, 6)}<br>ν·γ = {number(trace.learning_rate * g, 6)}")


def tree_line(trace, m: int, grid: Grid, *, feature_names=("x",),
              leaf: int | None = None, sample: int | None = None, height: int = 560,
              uirevision=None, vmax: float | None = None, panel: Panel = ALONE) -> go.Figure:
    """View 3 for one input: tree m's leaf values γ over the residuals r_(m-1) it fits.

    Each leaf is an interval of x; its value is drawn as a step at height γ, the
    selected leaf's interval shaded. Points carry -1 - index in ``customdata[0]``
    and the leaf marks their node id, as in :func:`tree_regions`.
    """
    if m < 1:
        return empty_figure(no_tree(),
                            height, panel)
    tree = trace.tree(m)
    values = finite(tree["value"])
    is_leaf = tree["left"] < 0
    if vmax is None:
        vmax = float(np.max(np.abs(values[is_leaf])))
    vmax = max(float(finite(vmax)), 1e-12)
    x = trace.X[:, 0]
    r = finite(trace.residual(m - 1))
    in_bag = np.ones(len(r), bool) if trace.in_bag is None else trace.in_bag[m]
    size = max(marker_size(len(r)) - 1, 3)
    data = []
    for name, members, marker in (
            (f"r = y − F<sub>{m - 1}</sub> (what tree {m} fits)", in_bag,
             dict(color=MUTED, size=size, opacity=0.8)),
            (f"not in tree {m}'s subsample", ~in_bag,
             dict(symbol="circle-open", color=MUTED, size=size, line=dict(width=1)))):
        idx = np.flatnonzero(members)
        if len(idx) or members is in_bag:
            data.append(dict(type=scatter_type(len(r)), x=f32(x[idx]), y=f32(r[idx]),
                             mode="markers", name=name, marker=marker,
                             customdata=np.column_stack([-1 - idx, idx]),
                             hovertemplate="sample #%{customdata[1]}<br>r = %{y:.4f}"
                                           "<extra></extra>"))
    boxes = trace.regions(m, grid.lo, grid.hi)
    shapes, notes, cx, cy, nodes, hover = [], [], [], [], [], []
    sx, sy = [], []
    for b in boxes:
        node, x0, x1 = int(b["node"]), float(b["x0"]), float(b["x1"])
        if not x1 > x0:
            continue
        g = float(values[node])
        sx += [x0, x1, None]
        sy += [g, g, None]
        cx.append((x0 + x1) / 2)
        cy.append(g)
        nodes.append(node)
        hover.append(_leaf_hover(trace, m, node))
        if node == leaf:  # the leaf's interval, over the panel's whole height
            y0, y1 = panel.paper("y", 0, 1)
            shapes.append(dict(panel.ref(dict(type="rect", x0=x0, x1=x1)), y0=y0, y1=y1,
                               yref="paper", layer="below", fillcolor="rgba(230,115,11,0.12)",
                               line=dict(width=0)))
    reach = 1.1 * max(float(np.abs(r).max()), vmax, 1e-9)
    placed = None
    if panel == ALONE and len(nodes) <= 12:  # each label where it stays readable
        placed = leaf_labels.place_steps(
            [dict(node=n, x0=float(b["x0"]), x1=float(b["x1"]), g=float(values[n]),
                  border=2 if n == leaf else 0)
             for n, b in zip(nodes, [b for b in boxes if b["x1"] > b["x0"]])],
            (grid.lo[0], grid.hi[0]), (-reach, reach), 13)
    for node, g, mid in zip(nodes, cy, cx):
        if len(nodes) > 12:
            break
        spot = placed[node] if placed else dict(x=mid, y=g, text=f"γ = {signed(g)}",
                                                ax=None, shown=True)
        note = dict(x=spot["x"], y=spot["y"], text=spot["text"], showarrow=False,
                    name=f"{LABEL}:{node}",
                    font=dict(size=13, color=INK), bgcolor="rgba(255,255,255,0.8)",
                    bordercolor=INK if node == leaf else "rgba(0,0,0,0)",
                    borderwidth=2 if node == leaf else 0, borderpad=leaf_labels.PAD)
        if placed:
            note.update(leaf_labels.arrow(spot))
        else:
            note["yshift"] = 14
        notes.append(panel.ref(note))
    data.append(dict(type="scatter", x=sx, y=sy, mode="lines", name=f"tree {m}: leaf value γ",
                     line=dict(color=ORANGE, width=4), hoverinfo="skip"))
    # the steps show the values: no colour scale, no colour bar
    data.append(_leaf_marks(trace, m, nodes, cx, cy, hover, 30))
    if sample is not None and 0 <= sample < len(r):
        data.append(selected_ring(x[sample], r[sample], f"sample #{sample}", len(r)))
    title = f"Tree {m} over the residuals it fits: {len(nodes)} leaves, each at its γ"
    own = dict(meta={LABELS_PLACED: True}) if placed else {}
    return make_figure([panel.trace(t) for t in data], base_layout(
        title, height, uirevision, shapes=shapes, annotations=notes, **own,
        **panel.axes(dict(range=[grid.lo[0], grid.hi[0]],
                          title=dict(text=esc(feature_names[0]))),
                     dict(range=[-reach, reach], title=dict(text="r, γ"), zeroline=True,
                          zerolinecolor=MUTED))))


def leaf_value_range(trace, rounds, k: int = 0) -> float:
    """The largest |leaf value| of the trees of these rounds (round 0 has none; class k's
    with K >= 3 classes): the ``vmax`` that gives several :func:`tree_regions` one colour
    scale."""
    vmax = 0.0
    for m in rounds:
        if int(m) >= 1:
            tree = trace.tree(int(m), k)
            values = finite(tree["value"])[tree["left"] < 0]
            if len(values):
                vmax = max(vmax, float(np.max(np.abs(values))))
    return max(vmax, 1e-12)
