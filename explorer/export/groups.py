"""The views of several fits as slides: the Compare page's two sides and curves, and the
Sweep page's grid of maps, curves and heat map.

The Slides page and the command line (``python -m explorer export --compare PAIR``,
``--sweep OPTION=V,V``) both call :func:`compare_figure` and :func:`sweep_figure`, and
name their files with :func:`file_view`: the lists below are the only ones. The fits come
from the caller (the app's caches, or the command line's own fits). No Streamlit here.
"""

from __future__ import annotations

import plotly.graph_objects as go

from .. import figures
from ..data import deepest_row
from ..figures.pages import describe_sweep
from ..figures.sweep import colours, sweep_curves, sweep_grid
from ..settings import Settings
from .storyboard import check_rounds, slide

# name -> what the Slides page and --help call it
COMPARE_VIEWS = {
    "compare-a": "Compare: the first side's model",
    "compare-b": "Compare: the second side's model",
    "compare-curves": "Compare: both fits' loss by round",
}
SWEEP_VIEWS = {
    "sweep-maps": "Sweep: every cell's map, as one grid",
    "sweep-curves": "Sweep: every fit's loss by round",
    "sweep-heat": "Sweep: validation loss of each cell (two settings)",
}


def file_view(view: str, which: str) -> str:
    """The view as a file names it: the comparison's pair or the swept settings' keys
    after the page's name ("compare-lr-curves", "sweep-lr-depth-maps")."""
    page, _, part = view.partition("-")
    return f"{page}-{which}-{part}"


def compare_marked(flip, train) -> dict:
    """The point the "deepest" comparison flips, ringed on both sides (as on the page)."""
    if flip != "deepest":
        return {}
    i = deepest_row(train)
    return dict(sample=i, ring_label=f"flipped point #{i}")


def compare_figure(view: str, fits, labels, m: int, *, marked=None, data_label: str = "",
                   names=None, log: bool = False, aspect: str = "16:9") -> go.Figure:
    """One of :data:`COMPARE_VIEWS` at round m as a slide. ``fits``: the two sides'
    (trace, grid, ...) in order, ``labels`` their names ("ν = 1.0"); ``names`` the
    features' and classes' names as :func:`explorer.figures.model_view` takes them."""
    if view not in COMPARE_VIEWS:
        raise ValueError(f"view must be one of {', '.join(COMPARE_VIEWS)}; got {view!r}.")
    (a, grid_a), (b, grid_b) = (tuple(f[:2]) for f in fits)
    check_rounds(a, [m])
    both = Settings.of(a.params).shared_caption(Settings.of(b.params), data_label)
    if view == "compare-curves":
        fig = sweep_curves(a, b, m, labels=list(labels), colors=colours(2), log=log)
        return slide(fig, a, m, label=COMPARE_VIEWS[view], subtitle=both,
                     aspect=aspect)
    side = 0 if view == "compare-a" else 1
    trace, grid = (a, grid_a) if side == 0 else (b, grid_b)
    fig = figures.model_view(trace, m, grid, **(marked or {}), **(names or {}))
    return slide(fig, trace, m, label=labels[side], data_label=data_label,
                 prefix=labels[side], aspect=aspect)


def sweep_figure(view: str, sweep, cells, fits, state, m: int, *, data_label: str = "",
                 aspect: str = "16:9") -> go.Figure:
    """One of :data:`SWEEP_VIEWS` at round m as a slide. ``sweep``: the plan
    (:func:`explorer.sweep.plan`); ``cells`` and ``fits`` (each (trace, grid, key, ...))
    the cells that could be fitted, in order; ``state`` the page's State. ValueError for
    the heat map of one setting or of fits without validation points."""
    if view not in SWEEP_VIEWS:
        raise ValueError(f"view must be one of {', '.join(SWEEP_VIEWS)}; got {view!r}.")
    trace = fits[0][0]
    check_rounds(trace, [m])
    what = " × ".join(axis.name for axis, _ in sweep.axes)
    subtitle = " · ".join(x for x in (data_label, f"{what}: {len(cells)} fits",
                                      f"round {m}") if x)
    fits = [tuple(f[:3]) for f in fits]
    described = describe_sweep(sweep.axes, cells, fits, state, key="sweep")
    if view == "sweep-maps":
        rows, columns = sweep.shape
        fig = sweep_grid([(c.row, c.col, c.label, f[0], f[1]) for c, f in zip(cells, fits)],
                         m, rows=rows, columns=columns,
                         value_range=described.charts[0].kwargs["value_range"],
                         title=f"{what}, round {m}")
    else:
        chart = {c.view: c for c in described.charts}.get(view.replace("-", "_"))
        if chart is None:
            raise ValueError("the heat map needs two swept settings and validation points "
                             "(a validation share above 0).")
        fig = chart.at(m)
    return slide(fig, trace, m, label=SWEEP_VIEWS[view], subtitle=subtitle, aspect=aspect)
