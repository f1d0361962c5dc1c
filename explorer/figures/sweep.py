"""The Sweep page's views: many fits of the same data side by side, at one round.

- :func:`sweep_map`: one cell's map at round m, small: the probability and boundary, the
  most probable class (K >= 3), or a regression's surface or staircase; no colour bar
  (every cell is on one scale, said once by the page), the cell's values and its loss at
  round m in the title.
- :func:`sweep_curves`: every fit's validation loss (solid) and training loss (dashed)
  against the round, coloured along the first swept setting, each fit's best round
  marked, round m ruled.
- :func:`sweep_grid`: every cell's map at round m in one figure, for a slide.
- :func:`sweep_heat`: with two swept settings, the validation loss at round m of each
  cell, and beside it each cell's best validation loss and its round, the best cell
  outlined.

Pure functions (traces, round, options) -> plotly Figure, like the other views; the
best round is :func:`explorer.best_round.best_round`'s.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .. import losses
from ..best_round import best_round
from ..numbers.grid import Grid
from ..numbers.terms import class_shade, grid_probabilities
from .classes import _class_scale, class_boundaries
from .layout import COLUMN_PX, PLOT_PX
from .panels import base_layout, boundary_trace, esc, f32, finite, make_figure, plain
from .theme import INK, MUTED, ORANGE, PROBA_SCALE, VALUE_SCALE, colours_at

CELL_HEIGHT = 250
SWEEP_SCALE = "Viridis"  # the curves' colours along the first swept setting


def colours(n: int) -> list[str]:
    """``n`` colours along the sequential scale, dark to light (one: its middle)."""
    return colours_at(SWEEP_SCALE, [0.45] if n == 1 else [0.85 * i / (n - 1) for i in range(n)])


def loss_at(trace, m: int) -> tuple[str, float]:
    """("validation", its loss) at round m, or ("train", its loss) with no validation."""
    if trace.valid_loss is not None:
        return "validation", float(trace.valid_loss[m])
    return "train", float(trace.train_loss[m])


def cell_subtitle(trace, m: int) -> str:
    kind, value = loss_at(trace, m)
    return f"{kind} {value:.4f} at round {m}"


def cell_px(columns: int) -> int:
    """The narrowest a cell is drawn among ``columns`` across: in the narrowest window that
    keeps Streamlit's columns side by side (641 px, 580 px of it for the page), with the
    small gap (16 px) between them. Narrower, the columns stack: a chart's whole width."""
    return (580 - 16 * (columns - 1)) // columns


def sweep_map(trace, m: int, grid: Grid, *, label: str, value_range=None,
              height: int = CELL_HEIGHT, uirevision=None, columns: int = 1) -> go.Figure:
    """One cell: the fit's map at round m on ``grid``, titled with ``label`` and its loss at
    round m. ``value_range``: a regression's (lo, hi), one for every cell. ``columns``:
    the cells across the page, whose width the titles are wrapped to."""
    if trace.is_multiclass:
        P = grid_probabilities(trace, grid.F[m])
        K = trace.n_classes
        data = [dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(class_shade(P)),
                     zmin=0.0, zmax=float(K), colorscale=_class_scale(K), showscale=False,
                     hoverinfo="skip"),
                class_boundaries(grid, grid.F[m], width=1.5, showlegend=False)]
    elif trace.is_classifier:
        p = finite(trace.link(grid.F[m].astype(np.float64)))
        data = [dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(p), zmin=0.0, zmax=1.0,
                     colorscale=PROBA_SCALE, showscale=False,
                     hovertemplate="p = %{z:.3f}<extra></extra>"),
                boundary_trace(grid, grid.F[m], width=1.5, showlegend=False)]
    elif grid.is_line:
        lo, hi = value_range
        data = [dict(type="scatter", x=f32(trace.X[:, 0]), y=f32(trace.y), mode="markers",
                     marker=dict(color=MUTED, size=4), hoverinfo="skip"),
                dict(type="scatter", x=grid.xs, y=f32(grid.F[m]), mode="lines",
                     line=dict(color=ORANGE, width=2.5, shape="hv"),
                     hovertemplate="F = %{y:.4g}<extra></extra>")]
    else:
        lo, hi = value_range
        data = [dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(grid.F[m]), zmin=lo,
                     zmax=hi, colorscale=VALUE_SCALE, showscale=False,
                     hovertemplate="F = %{z:.4g}<extra></extra>")]
    axis = dict(showgrid=False, zeroline=False, ticks="", showticklabels=False)
    x = dict(axis, range=[grid.lo[0], grid.hi[0]], constrain="domain")
    y = dict(axis, range=list(value_range) if grid.is_line else [grid.lo[1], grid.hi[1]])
    if not grid.is_line and grid.equal_aspect:
        y.update(scaleanchor="x", scaleratio=1, constrain="domain")
    narrow = dict(meta={COLUMN_PX: cell_px(columns)}) if columns > 1 else {}
    layout = base_layout(esc(label), height, uirevision, xaxis=x, yaxis=y,
                         showlegend=False, margin=dict(l=4, r=4, t=52, b=4), **narrow)
    layout["title"].update(font=dict(size=14),
                           subtitle=dict(text=cell_subtitle(trace, m), font=dict(size=12)))
    return make_figure(data, layout)


def value_range(traces, grids) -> tuple[float, float]:
    """One range for every regression cell: its targets and F at every round."""
    values = [np.asarray(t.y, float) for t in traces] + [g.F.ravel() for g in grids]
    lo = min(float(finite(v).min()) for v in values)
    hi = max(float(finite(v).max()) for v in values)
    pad = max(hi - lo, 1e-9) * 0.06
    return lo - pad, hi + pad


def sweep_curves(*traces_and_m, labels, colors, widths=None, height: int = 440,
                 log: bool = False, uirevision=None) -> go.Figure:
    """Validation (solid) and training (dashed) loss against the round of every fit, each
    fit's best round marked (a diamond), round m ruled. ``labels`` and ``colors``: one
    per fit; ``widths``: the validation lines' widths (a second setting's values, thin
    to thick)."""
    *traces, m = traces_and_m
    data = []
    for trace, label, color, wide in zip(traces, labels, colors,
                                         widths or [2.5] * len(traces)):
        rounds = np.arange(trace.n_rounds + 1)
        name = esc(label)
        for values, kind, dash, width in ((trace.valid_loss, "validation", "solid", wide),
                                          (trace.train_loss, "train", "dash", 1.5)):
            if values is None:
                continue
            data.append(dict(type="scatter", x=rounds, y=finite(values), mode="lines",
                             name=f"{name}: {kind}", legendgroup=name,
                             showlegend=kind == "validation" or trace.valid_loss is None,
                             line=dict(color=color, width=width, dash=dash),
                             hovertemplate=f"round %{{x}}: %{{y:.4f}}<extra>{name} {kind}"
                                           "</extra>"))
        best = best_round(trace)
        if best is not None:
            data.append(dict(type="scatter", x=[best.round], y=[best.valid], mode="markers",
                             legendgroup=name, showlegend=False,
                             marker=dict(symbol="diamond", size=11, color=color,
                                         line=dict(color=INK, width=1.5)),
                             hovertemplate=f"{name}: best round %{{x}}, validation "
                                           "%{y:.4f}<extra></extra>"))
    loss = losses.of(traces[0]).title
    has_valid = traces[0].valid_loss is not None
    what = "◆ each fit's best round" if has_valid else "training loss only: no validation points"
    layout = base_layout(
        f"Mean {loss} by round (round {int(m)} ruled; {what})", height, uirevision,
        shapes=[dict(type="line", x0=m, x1=m, y0=0, y1=1, yref="y domain",
                     line=dict(color=ORANGE, width=2))],
        xaxis=dict(title=dict(text="round m"), range=[-0.5, traces[0].n_rounds + 0.5]),
        yaxis=dict(title=dict(text=f"mean {loss}"), type="log" if log else "linear"),
        hovermode="closest", margin=dict(l=10, r=10, t=56, b=10),
        # a legend entry a fit, up to 25 in rows below: the plot keeps its height
        meta={PLOT_PX: 340})
    return make_figure(data, layout)


def sweep_heat(*traces_and_m, grid_of, across, down, across_name, down_name,
               height: int = 380, uirevision=None) -> go.Figure:
    """Two settings: the validation loss of each cell at round m (left), and each cell's
    best validation loss with its round (right), the best cell outlined on both.
    ``grid_of``: each trace's (row, column); a cell left out stays blank."""
    *traces, m = traces_and_m
    rows, cols = len(down), len(across)
    now = [[None] * cols for _ in range(rows)]
    best = [[None] * cols for _ in range(rows)]
    words = [[""] * cols for _ in range(rows)]
    lowest = None
    for trace, (r, c) in zip(traces, grid_of):
        now[r][c] = float(finite(trace.valid_loss[m]))
        b = best_round(trace)
        best[r][c] = b.valid
        words[r][c] = f"{b.valid:.4f}<br>at round {b.round}"
        if lowest is None or b.valid < lowest[0]:
            lowest = (b.valid, r, c)
    x, y = [esc(a) for a in across], [esc(d) for d in down]
    values = [v for row in now + best for v in row if v is not None]
    lo, hi = min(values), max(values)
    common = dict(type="heatmap", x=x, y=y, colorscale=VALUE_SCALE, reversescale=True,
                  zmin=lo, zmax=hi, xgap=2, ygap=2)
    data = [dict(common, z=now, text=[[f"{v:.4f}" if v is not None else "" for v in row]
                                      for row in now],
                 texttemplate="%{text}", colorbar=dict(title=dict(text="loss"), len=0.8),
                 hovertemplate="%{y}, %{x}: %{z:.4f}<extra>round " + str(int(m)) + "</extra>"),
            dict(common, z=best, text=words, texttemplate="%{text}", showscale=False,
                 xaxis="x2", yaxis="y2",
                 hovertemplate="%{y}, %{x}: best %{z:.4f}<extra></extra>")]
    _, r, c = lowest
    outline = [dict(type="rect", xref=xr, yref=yr, x0=c - 0.5, x1=c + 0.5, y0=r - 0.5,
                    y1=r + 0.5, line=dict(color=ORANGE, width=4))
               for xr, yr in (("x", "y"), ("x2", "y2"))]
    axis = dict(type="category", showgrid=False)
    layout = base_layout(
        f"Validation loss at round {int(m)} (left) and each fit's best (right)", height,
        uirevision, shapes=outline,
        xaxis=dict(axis, domain=[0.0, 0.44], title=dict(text=esc(across_name))),
        yaxis=dict(axis, title=dict(text=esc(down_name))),
        xaxis2=dict(axis, domain=[0.56, 1.0], title=dict(text=esc(across_name)),
                    anchor="y2"),
        yaxis2=dict(axis, anchor="x2", showticklabels=False),
        margin=dict(l=10, r=10, t=56, b=10))
    return make_figure(data, layout)


def sweep_grid(cells, m: int, *, rows: int, columns: int, value_range=None,
               title: str = "", height: int | None = None) -> go.Figure:
    """Every cell's map at round m in one figure (a slide): ``cells`` are (row, column,
    label, trace, grid); each is :func:`sweep_map`'s drawing, placed in its square of the
    grid, its label and loss above it."""
    gap = 0.04
    w, h = (1 - gap * (columns - 1)) / columns, (0.94 - 0.08 * (rows - 1)) / rows
    data, layout, notes = [], {}, []
    for row, col, label, trace, grid in cells:
        i = row * columns + col + 1
        n = "" if i == 1 else str(i)  # plotly's names: x, x2, x3...
        with plain():
            one = sweep_map(trace, m, grid, label=label, value_range=value_range)
        x0, y1 = col * (w + gap), 1 - row * (h + 0.08) - 0.06  # a label's room above
        for t in one["data"]:
            data.append(dict(t, xaxis=f"x{n}", yaxis=f"y{n}"))
        x, y = dict(one["layout"]["xaxis"]), dict(one["layout"]["yaxis"])
        if "scaleanchor" in y:
            y["scaleanchor"] = f"x{n}"
        layout[f"xaxis{n}"] = dict(x, domain=[x0, x0 + w], anchor=f"y{n}")
        layout[f"yaxis{n}"] = dict(y, domain=[max(y1 - h, 0.0), y1], anchor=f"x{n}")
        notes.append(dict(text=f"{esc(label)}<br>{cell_subtitle(trace, m)}", x=x0 + w / 2,
                          y=y1, xref="paper", yref="paper", xanchor="center",
                          yanchor="bottom", showarrow=False, font=dict(size=13)))
    full = base_layout(title or f"Round {int(m)}", height or 300 * rows + 60, None,
                       annotations=notes, showlegend=False,
                       margin=dict(l=10, r=10, t=70, b=10), **layout)
    return make_figure(data, full)
