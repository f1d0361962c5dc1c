"""The plane with K >= 3 classes: which class the model favours where, and how sure it is.

Pure functions (trace, round, grid, options) -> plotly Figure, like :mod:`.model`:
the class map (each cell coloured by its most probable class, paler where the model is
unsure, the boundaries between classes drawn), or on request the map of one class's
probability p_k. The colours are Okabe and Ito's colour-blind-safe set, with three of
Paul Tol's for the ninth and tenth classes.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .. import losses
from ..numbers.grid import Grid, region_edges
from ..numbers.terms import class_shade, grid_probabilities
from .panels import (ALONE, Panel, base_layout, colorbar, esc, f32, finite, make_figure,
                     map_size, marker_size, plane_layout, round_marker, scatter_type,
                     selected_ring)
from .theme import INK

# Okabe & Ito (2008), black left out (it cannot be made pale), then Tol's indigo, wine
# and olive: ten classes that stay apart for the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#332288", "#882255", "#999933")
_SURE, _UNSURE = 0.5, 0.1  # how much of the class colour a cell shows at p = 1 and at 1/K


def class_colour(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def class_labels(trace, classes=None) -> list[str]:
    """Legend names of the K classes, escaped."""
    names = classes if classes is not None and len(classes) == trace.n_classes else trace.classes
    return [f"class {esc(c)}" for c in names]


def _tint(colour: str, share: float) -> str:
    """The colour mixed with white: ``share`` of the colour."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - share * (255 - c)) for c in rgb]
    return f"rgb({mixed[0]},{mixed[1]},{mixed[2]})"


def _class_scale(K: int) -> list:
    """One colour scale for z = k + certainty (certainty in [0, 1)): class k's band runs
    from its pale tint (p = 1/K) to its full tint (p = 1)."""
    scale = []
    for k in range(K):
        scale.append([k / K, _tint(class_colour(k), _UNSURE)])
        scale.append([(k + 0.999) / K, _tint(class_colour(k), _SURE)])
    scale[-1][0] = 1.0
    return scale


NEUTRAL = "#f0f0f0"  # the class map where every class is as probable


def class_map_title(trace, m: int, k: int | None = None, classes=None) -> str:
    if k is None:
        return (f"Model after round {m}: the most probable class, p = "
                f"{losses.of(trace).p_html(m)}, paler where unsure")
    return f"Model after round {m}: p of {class_labels(trace, classes)[k]}"


def class_boundaries(grid: Grid, F, *, color=INK, width=2.5, dash="solid",
                     name="boundaries between classes", showlegend=True,
                     axes=("x", "y")) -> dict:
    """The edges between cells whose most probable class differs (F: (ny, nx, K))."""
    px, py = region_edges(grid.xs, grid.ys, np.argmax(F, axis=-1))
    return dict(type="scatter", x=px, y=py, mode="lines", connectgaps=False, name=name,
                line=dict(color=color, width=width, dash=dash), hoverinfo="skip",
                showlegend=showlegend, xaxis=axes[0], yaxis=axes[1])


def class_map(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"), classes=None,
              k: int | None = None, show_valid: bool = False, sample: int | None = None,
              height: int = 560, uirevision=None, title=None,
              panel: Panel = ALONE) -> go.Figure:
    """View 1 with K classes: each cell in the colour of its most probable class, paler the
    less sure the model is there, and the boundaries between classes; with ``k`` the map
    of p_k alone (white at 0, class k's colour at 1). Hover names the classes.

    Training points carry their index in ``customdata[0]`` (validation points -1).
    """
    K = trace.n_classes
    names = class_labels(trace, classes)
    P = grid_probabilities(trace, grid.F[m])  # (ny, nx, K), rows summing to 1
    # hover: the most probable class by name (a few names, stored once a round in the
    # browser's tables) and its p (computed there from the record)
    best = np.array(names, dtype=object)[np.argmax(P, axis=-1)].tolist()
    # p = (1/K, ..., 1/K) everywhere (round 0 of balanced classes): no class is the most
    # probable, and the map is neutral, not the first class's tint
    tied = bool(np.all(np.abs(P - 1.0 / K) <= 1e-9))
    if k is None:
        heat = dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(class_shade(P)),
                    text=[["no class (all equal)"] * P.shape[1]] * P.shape[0] if tied
                    else best, customdata=f32(P.max(axis=-1)),
                    hovertemplate="%{text}: p = %{customdata:.3f}<extra></extra>",
                    zmin=0.0, zmax=float(K), showscale=False, name="most probable class",
                    colorscale=[[0.0, NEUTRAL], [1.0, NEUTRAL]] if tied else _class_scale(K))
        shared = {}
    else:
        bar = colorbar(f"p of {names[k]}")
        scale = [[0.0, "#ffffff"], [1.0, _tint(class_colour(k), _SURE)]]  # light: points show
        heat = dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(P[..., k]), text=best,
                    hovertemplate="p = %{z:.3f}<br>most probable: %{text}<extra></extra>",
                    name=f"p of {names[k]}",
                    **panel.colour(dict(zmin=0.0, zmax=1.0, colorscale=scale, colorbar=bar)))
        shared = panel.colour_axis(scale, 0.0, 1.0, bar)  # a storyboard's one colour bar
    data = [heat, class_boundaries(grid, grid.F[m], axes=(panel.xaxis, panel.yaxis))]
    X, y = trace.X, trace.y
    p_train = finite(trace.proba(m))
    size = marker_size(len(y))
    for c in range(K):
        idx = np.flatnonzero(y == c)
        data.append(dict(
            type=scatter_type(len(y)), x=f32(X[idx, 0]), y=f32(X[idx, 1]), mode="markers",
            name=names[c], customdata=f32(np.column_stack([idx, p_train[idx, c]])),
            marker=dict(color=class_colour(c), size=size, line=dict(color="white", width=1)),
            hovertemplate="sample #%{customdata[0]}<br>p of its class = %{customdata[1]:.3f}"
                          "<extra>" + names[c] + "</extra>"))
    if show_valid and trace.X_valid is not None:
        p_valid = finite(trace.link(trace.valid_raw[m]))
        for c in range(K):
            idx = np.flatnonzero(trace.y_valid == c)
            data.append(dict(
                type=scatter_type(len(y)), x=f32(trace.X_valid[idx, 0]),
                y=f32(trace.X_valid[idx, 1]), mode="markers", name=f"{names[c]} (validation)",
                customdata=f32(np.column_stack([np.full(len(idx), -1), p_valid[idx, c]])),
                marker=dict(symbol="diamond-open", color=class_colour(c), size=size + 2,
                            line=dict(color=class_colour(c), width=2)),
                hovertemplate="validation point<br>p of its class = %{customdata[1]:.3f}"
                              "<extra>" + names[c] + "</extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(y)))
    return make_figure([panel.trace(t) for t in data], base_layout(
        title(trace, m) if callable(title) else title or class_map_title(trace, m, k, classes),
        height, uirevision, **map_size(panel, bar=k is not None),
        **plane_layout(grid, feature_names, panel), **shared))


def class_trajectory(trace, i: int, m: int, ledger: dict, *, height: int = 380,
                     uirevision=None, classes=None) -> go.Figure:
    """Sample i's F_k (solid, left axis) and p_k (dashed, right axis) of every class against
    rounds, round m marked; its own class drawn thicker."""
    names = class_labels(trace, classes)
    rounds = ledger["round"]
    F, P = finite(ledger["F"]), finite(ledger["p"])
    own = int(ledger["y"])
    data = []
    for k, name in enumerate(names):
        width = 3.5 if k == own else 1.8
        data += [
            dict(type="scatter", x=rounds, y=F[:, k], mode="lines", name=f"F of {name}",
                 legendgroup=name, line=dict(color=class_colour(k), width=width),
                 hovertemplate="round %{x}: F = %{y:.4f}<extra>" + name + "</extra>"),
            dict(type="scatter", x=rounds, y=P[:, k], mode="lines", name=f"p of {name}",
                 legendgroup=name, yaxis="y2", showlegend=False,
                 line=dict(color=class_colour(k), width=width, dash="dash"),
                 hovertemplate="round %{x}: p = %{y:.4f}<extra>" + name + "</extra>"),
        ]
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref="x", yref="paper",
                   line=dict(color=INK, width=1.5))]
    shapes += [round_marker(m, P[m, k], class_colour(k), yref="y2", size=11, outline_width=1.5)
               for k in range(len(names))]
    return make_figure(data, base_layout(
        f"Sample #{i} ({names[own]}): F_k (solid) and p_k (dashed) by round", height,
        uirevision, hovermode="x", shapes=shapes,
        legend=dict(orientation="h", x=0, y=-0.35, yanchor="top"),
        xaxis=dict(title=dict(text="round m"), range=[-0.5, trace.n_rounds + 0.5],
                   domain=[0, 0.92]),
        yaxis=dict(title=dict(text="F<sub>m,k</sub>")),
        yaxis2=dict(title=dict(text="p<sub>m,k</sub>"), range=[0, 1], overlaying="y",
                    side="right", showgrid=False, anchor="x", tickmode="array",
                    tickvals=[0, 0.25, 0.5, 0.75, 1])))
