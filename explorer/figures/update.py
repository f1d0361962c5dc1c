"""View 4: the update F_(m-1) + nu * tree m = F_m, as three maps side by side (or three
lines along a regression's one input).

Pure: (trace, round, grid, options) -> plotly Figure, like :mod:`.model`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..numbers.grid import Grid, tree_on_grid
from ..text import number
from .panels import (Panel, base_layout, boundary_trace, colorbar, empty_figure, esc, f32,
                     finite, make_figure, plane_layout)
from .theme import BLUE, DIVERGING, MUTED, ORANGE


def update_panels(trace, m: int, grid: Grid, *, feature_names=("x1", "x2"),
                  height: int = 480, uirevision=None, k: int = 0) -> go.Figure:
    """View 4: F_(m-1), plus nu times tree m, equals F_m, as three maps side by side
    (class k's F_k with K >= 3 classes)."""
    if m < 1:
        f0 = trace.f0[k] if trace.is_multiclass else trace.f0
        return empty_figure(f"Round 0: F₀(x) = f₀ = {number(f0, 5)} everywhere. "
                            "Step to round 1 to see the first update.", height)
    if grid.is_line:
        return _update_line(trace, m, grid, feature_names[0], height, uirevision)
    F = grid.F[..., k] if trace.is_multiclass else grid.F
    before = finite(F[m - 1])
    step = finite(tree_on_grid(trace, m, grid, k))
    after = finite(F[m])
    fmax = max(float(np.abs(before).max()), float(np.abs(after).max()), 0.5)
    smax = max(float(np.abs(step).max()), 1e-9)
    gap = 0.05
    width = (1.0 - 2 * gap) / 3
    domains = [[k * (width + gap), k * (width + gap) + width] for k in range(3)]
    title, titles = update_titles(trace, m, k)
    data, axes, notes = [], {}, []
    for j, (z, coloraxis) in enumerate(((before, "coloraxis"), (step, "coloraxis2"),
                                        (after, "coloraxis"))):
        suffix = "" if j == 0 else str(j + 1)
        xa, ya = f"x{suffix}", f"y{suffix}"
        data.append(dict(type="heatmap", x=grid.xs, y=grid.ys, z=f32(z), coloraxis=coloraxis,
                         xaxis=xa, yaxis=ya, hovertemplate="%{z:.4f}<extra></extra>"))
        if j != 1 and trace.is_classifier and not trace.is_multiclass:  # F = 0: p = 0.5
            data.append(boundary_trace(grid, z, width=2, showlegend=False, name="F = 0",
                                  axes=(xa, ya)))
        axes.update(plane_layout(grid, feature_names,
                                 Panel(j + 1, x_domain=domains[j], y_labels=j == 0)))
        notes.append(dict(text=titles[j], x=sum(domains[j]) / 2, y=1.0, xref="paper",
                          yref="paper", xanchor="center", yanchor="bottom", showarrow=False,
                          font=dict(size=17)))
    layout = base_layout(
        title, height, uirevision, annotations=notes, margin=dict(l=10, r=10, t=90, b=110),
        coloraxis=dict(colorscale=DIVERGING, cmin=-fmax, cmax=fmax,
                       # on top: plotly sets a short title on the right in the tick
                       # labels' column, where "F" reads as part of the "0" beside it
                       colorbar=colorbar("F", side="top", x=1.0)),
        coloraxis2=dict(colorscale=DIVERGING, cmin=-smax, cmax=smax,
                        colorbar=dict(title=dict(text="ν·γ", side="right"), thickness=10,
                                      len=0.25, orientation="h", x=0.5, xanchor="center",
                                      y=-0.36, yanchor="top", outlinewidth=0)),
        **axes)
    return make_figure(data, layout)


def update_titles(trace, m: int, k: int = 0) -> tuple[str, tuple[str, str, str]]:
    """The update's title, and its three panels' titles (class k's F_k and tree (m, k)
    with K >= 3 classes)."""
    nu = number(trace.learning_rate, 4)
    c = f", {k}" if trace.is_multiclass else ""
    tree = f"tree ({m}, {k})" if trace.is_multiclass else f"tree {m}"
    return (f"The update at round {m}: F<sub>{m}{c}</sub> = F<sub>{m - 1}{c}</sub> + ν · "
            f"{tree}",
            (f"F<sub>{m - 1}{c}</sub>(x)", f"+ ν · {tree}(x)   (ν = {nu})",
             f"= F<sub>{m}{c}</sub>(x)"))


def _update_line(trace, m, grid, name, height, uirevision) -> go.Figure:
    """The update of a one-input fit: F_(m-1), nu times tree m, and F_m along x."""
    step = f32(tree_on_grid(trace, m, grid))
    nu = number(trace.learning_rate, 4)
    data = [
        dict(type="scatter", x=grid.xs, y=f32(grid.F[m - 1]), mode="lines",
             name=f"F<sub>{m - 1}</sub>(x)", line=dict(color=MUTED, width=2.5, dash="dot"),
             hovertemplate=f"F<sub>{m - 1}</sub> = %{{y:.4g}}<extra></extra>"),
        dict(type="scatter", x=grid.xs, y=step, mode="lines", name=f"ν · tree {m}(x) (ν = {nu})",
             line=dict(color=ORANGE, width=2.5), fill="tozeroy",
             fillcolor="rgba(230,115,11,0.15)",
             hovertemplate="ν·γ = %{y:.4g}<extra></extra>"),
        dict(type="scatter", x=grid.xs, y=f32(grid.F[m]), mode="lines",
             name=f"F<sub>{m}</sub>(x)", line=dict(color=BLUE, width=3),
             hovertemplate=f"F<sub>{m}</sub> = %{{y:.4g}}<extra></extra>"),
    ]
    return make_figure(data, base_layout(
        f"The update at round {m}: F<sub>{m}</sub> = F<sub>{m - 1}</sub> + ν · tree {m}",
        height, uirevision, hovermode="x",
        xaxis=dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=esc(name))),
        yaxis=dict(title=dict(text="F"), zeroline=True, zerolinecolor=MUTED)))

