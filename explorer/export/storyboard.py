"""Slides from the figures: one view at one round, a storyboard of rounds in a grid with
one colour scale, and the rounds as a self-contained HTML animation.

A storyboard asks each view for its panel (``panel=``: its cell, labels, legend and the
shared colour axis) on the range the rounds share (``scale=``, ``vmax=``), then puts the
panels' traces, axes, shapes and labels together as they come: it never rewrites a
finished figure.

No Streamlit here; the Slides page and the command line (``python -m explorer export``)
call these functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from .. import figures
from ..figures import panels, theme
from ..figures.hints import clean_title
from ..figures.panels import Panel
from ..numbers.grid import Grid, make_grid
from ..settings import Settings
from .images import PLANE_SIZE, PRINT_TEMPLATE, for_export


# name -> (figures function, what a storyboard's title calls it): the plane's views,
# which a storyboard composes from their panels and an animation steps through
VIEWS = {
    "model": (figures.model_view, "The model"),
    "residuals": (figures.residual_map, "The residuals"),
    "tree": (figures.tree_regions, "Tree m on the plane"),
}


# Every other chart a page draws, as one slide at one round: name -> (what a title
# calls it, a function (trace, m, grid, names) -> figure). The page each comes from is
# in its label. The Sweep page's views are exported by the command line's --sweep.
def _curves(trace, m, grid, names):
    return figures.curves(trace, m)


def _diagram(trace, m, grid, names):
    return figures.tree_diagram(trace, m, feature_names=names["feature_names"],
                                classes=names["classes"], k=names["k"] or 0)


def _update(trace, m, grid, names):
    return figures.update_panels(trace, m, grid, feature_names=names["feature_names"],
                                 k=names["k"] or 0)


def _sample_map(trace, m, grid, names):
    return figures.model_view(trace, m, grid, sample=names["sample"],
                              **{k: names[k] for k in ("feature_names", "classes",
                                                       "target_name")})


def _trajectory(trace, m, grid, names):
    return figures.sample_trajectory(trace, names["sample"], m, classes=names["classes"])


def _leaf(trace, m, grid, names):
    # the typical leaf, as the Leaf maths page opens
    return figures.leaf_loss_of(trace, m, k=names["k"] or 0, typical=True)


def _splits(trace, m, grid, names):
    from ..numbers import histograms, splits
    from ..figures import histograms as hist_figures
    k = names["k"] or 0
    if m < 1:
        return figures.split_scan(None, m, 0, feature_names=names["feature_names"])
    if trace.histogram:
        return hist_figures.split_finding(histograms.split_finding(trace, m, 0, k), m, 0,
                                          feature_names=names["feature_names"],
                                          gain_name=splits.HISTOGRAM_GAIN)
    return figures.split_scan(splits.scan(trace, m, 0, k=k), m, 0,
                              feature_names=names["feature_names"])


CHARTS = {
    "update": ("The update F_(m−1) + ν·tree m = F_m (Tree page)", _update),
    "diagram": ("Tree m as a diagram (Tree page)", _diagram),
    "sample-map": ("The selected sample on the model (Sample page)", _sample_map),
    "trajectory": ("The selected sample's F and p by round (Sample page)", _trajectory),
    "curves": ("Loss and accuracy by round (Curves page)", _curves),
    "leaf": ("A leaf's loss and its Newton step (Leaf maths page)", _leaf),
    "splits": ("Split finding at the root (Splits page)", _splits),
}
ALL_VIEWS = tuple(VIEWS) + tuple(CHARTS)  # every view one slide can show


# a slide's layout size: 16:9 (the default) or 4:3, scaled to the image's width
ASPECTS = {"16:9": (1600, 900), "4:3": (1200, 900)}


def slide_subtitle(data_label: str | None, params, m: int) -> str:
    """What a slide names under its title: the data, the settings and the round."""
    return " · ".join(x for x in (data_label, Settings.of(params).params_line(), f"round {m}")
                      if x)


def _slide(fig: go.Figure, trace, m: int, label: str, data_label: str | None,
           aspect: str, subtitle: str | None = None, prefix: str = "") -> go.Figure:
    """``fig`` as a slide: its title without hints (the view's name where nothing is
    left; after ``prefix`` and a colon if given), under it ``subtitle`` or the data, the
    settings and the round, at the aspect's size."""
    if aspect not in ASPECTS:
        raise ValueError(f"aspect must be one of {', '.join(ASPECTS)}; got {aspect!r}.")
    spec = panels.spec_of(fig)
    layout = spec["layout"]
    title = layout.get("title") or {}
    title = dict(title) if isinstance(title, dict) else dict(text=str(title))
    text = clean_title(title.get("text", ""), panels.esc(label))
    if prefix:  # a Compare side: which side it is
        text = f"{panels.esc(prefix)}: {text}"
    under = subtitle if subtitle is not None else slide_subtitle(data_label, trace.params, m)
    title.update(text=text, subtitle=dict(text=panels.esc(under),
                                          font=dict(size=15, color=theme.MUTED)))
    layout["title"] = title  # the layout rule gives the subtitle its room
    return for_export(go.Figure(spec), ASPECTS[aspect])


FORMATS = ("png", "svg", "html")

PANEL = 430  # layout size of one storyboard panel


ANIMATION_FRAMES = 50  # at most, so that an animation file stays near 10 MB


def _check_view(view: str) -> None:
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}.")


def _draw(trace, view, m, grid, feature_names, classes, target_name="y", height=PLANE_SIZE[1],
          k=None, **extra):
    """One view at round m. With K >= 3 classes, ``k`` is the class of the residuals and
    the tree (0 by default), and on the model asks for p_k instead of the class map."""
    _check_view(view)
    draw = VIEWS[view][0]
    options = dict(feature_names=feature_names, height=height, classes=classes, **extra)
    if view == "model":
        options.update(target_name=target_name, k=k)
    else:
        options["k"] = k or 0
    return draw(trace, m, grid, **options)


def _shared_range(trace, view: str, rounds, k=None) -> dict:
    """The colour range several rounds of a view share, as the figure's own option:
    the residuals' half-range, or the largest |leaf value| of the trees (the model's
    p is always on [0, 1]); of class k with K >= 3 classes."""
    if view == "residuals":
        def r(m):
            values = trace.residual(m)
            return values[:, k or 0] if trace.is_multiclass else values
        return dict(scale=max(figures.residual_scale(trace, panels.finite(r(m))) for m in rounds))
    if view == "tree":
        return dict(vmax=figures.leaf_value_range(trace, rounds, k or 0))
    return {}


def view_figure(trace, view: str, m: int, grid: Grid | None = None, *,
                feature_names=("x1", "x2"), classes=None, target_name="y",
                k: int | None = None, aspect: str = "16:9", data_label: str | None = None,
                sample: int = 0) -> go.Figure:
    """One view at round m as a slide (print template, 16:9 or 4:3): any of
    :data:`ALL_VIEWS`, its title without interface hints, the data, the settings and the
    round under it.

    Parameters
    ----------
    trace : explorer.Trace
    view : one of :data:`ALL_VIEWS`
        The plane's views (:data:`VIEWS`) and every other chart a page draws
        (:data:`CHARTS`).
    m : int
        The round, 0..trace.n_rounds.
    grid : Grid, optional
        The grid predictions (made from the trace when not given).
    feature_names, classes, target_name
        As in :mod:`explorer.figures` (the target's name labels a regression's model).
    k : int, optional
        With K >= 3 classes: the class of the residuals and the tree (default 0), and
        the model's p_k (default: the most probable class).
    aspect : {"16:9", "4:3"}
    data_label : str, optional
        The data as the subtitle names it (e.g. "moons, 320 training points").
    sample : int
        The selected sample (the Sample page's views).
    """
    check_rounds(trace, [m])
    if view not in ALL_VIEWS:
        raise ValueError(f"view must be one of {', '.join(ALL_VIEWS)}; got {view!r}.")
    grid = grid if grid is not None else make_grid(trace)
    if view in VIEWS:
        fig, label = _draw(trace, view, m, grid, feature_names, classes, target_name,
                           k=k), VIEWS[view][1]
    else:
        label, draw = CHARTS[view]
        names = dict(feature_names=feature_names, classes=classes, target_name=target_name,
                     k=k, sample=min(max(int(sample), 0), len(trace.y) - 1))
        fig = draw(trace, m, grid, names)
    return _slide(fig, trace, m, label, data_label, aspect)


def slide(fig: go.Figure, trace, m: int, *, label: str = "", data_label: str | None = None,
          aspect: str = "16:9", subtitle: str | None = None, prefix: str = "") -> go.Figure:
    """Any figure of the fit ``trace`` at round m (a Compare side, a Sweep page's view:
    explorer.export.groups) as a slide, like :func:`view_figure`'s; ``subtitle`` in place
    of the one fit's settings line (several fits), ``prefix`` before the title."""
    return _slide(fig, trace, m, label, data_label, aspect, subtitle, prefix)


def check_rounds(trace, rounds) -> list[int]:
    """The rounds as a list of ints, or a ValueError naming the first one out of 0..M."""
    rounds = [int(m) for m in rounds]
    if not rounds:
        raise ValueError("Give at least one round.")
    for m in rounds:
        if not 0 <= m <= trace.n_rounds:
            raise ValueError(f"Round {m} is not in 0..{trace.n_rounds} (the fit has "
                             f"{trace.n_rounds} rounds).")
    return rounds


def parse_rounds(text: str, n_rounds: int | None = None) -> list[int]:
    """Rounds from text such as "0, 1, 2, 5, 10, 50" (duplicates dropped, order kept).

    Raises
    ------
    ValueError
        For anything but non-negative integers, or a round beyond ``n_rounds``.
    """
    rounds = []
    for part in re.split(r"[\s,;]+", str(text).strip()):
        if not part:
            continue
        if not part.isdigit():
            raise ValueError(f"Rounds are whole numbers separated by commas, such as "
                             f"0,1,2,5,10,50; {part!r} is not one.")
        m = int(part)
        if n_rounds is not None and m > n_rounds:
            raise ValueError(f"Round {m} is beyond the last round, {n_rounds}.")
        if m not in rounds:
            rounds.append(m)
    if not rounds:
        raise ValueError("Give at least one round, such as 0,1,2,5,10,50.")
    return rounds


def storyboard_rounds(n_rounds: int) -> list[int]:
    """A good first storyboard: 0, 1, 2, 5, 10, 50 as far as the fit goes, ending at M
    when fewer than six fit in."""
    rounds = [m for m in (0, 1, 2, 5, 10, 50) if m <= n_rounds]
    if len(rounds) < 6 and rounds[-1] < n_rounds:
        rounds.append(n_rounds)
    return rounds


def animation_rounds(n_rounds: int, frames: int = ANIMATION_FRAMES) -> list[int]:
    """Every round when there are at most ``frames``; otherwise the first ten and
    evenly spaced ones after them (boosting changes most in its first rounds)."""
    if n_rounds + 1 <= frames:
        return list(range(n_rounds + 1))
    later = np.linspace(10, n_rounds, frames - 10).round().astype(int)
    return sorted(set(range(10)) | set(int(m) for m in later))


def storyboard(trace, view: str, rounds: Sequence[int], grid: Grid | None = None, *,
               feature_names=("x1", "x2"), classes=None, target_name="y",
               title: str | None = None,
               data_label: str | None = None, k: int | None = None) -> go.Figure:
    """One view at several rounds in a grid of panels, with one shared colour scale.

    Parameters
    ----------
    trace : explorer.Trace
    view : {"model", "residuals", "tree"}
    rounds : sequence of int
        The rounds, each in 0..trace.n_rounds, one panel each, in this order.
    grid : Grid, optional
        The grid predictions (made from the trace when not given).
    feature_names, classes, target_name
        As in :mod:`explorer.figures` (the target's name labels a regression's model).
    title : str, optional
        The storyboard's title; by default the view and the rounds.
    data_label : str, optional
        Shown with the fit's parameters under the title (e.g. "moons, 320 points").
    k : int, optional
        With K >= 3 classes, as in :func:`view_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        Panel i is titled "round m" and drawn on axes x{i+1}/y{i+1}; every coloured
        trace uses ``layout.coloraxis`` (one range, one colour bar). Legend entries
        come from the first panel only.
    """
    _check_view(view)
    rounds = check_rounds(trace, rounds)
    grid = grid if grid is not None else make_grid(trace)
    shared = _shared_range(trace, view, rounds, k)
    n = len(rounds)
    cols = n if n <= 3 else math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    gap_x, gap_y = 0.04, 0.12 / rows
    cell_w, cell_h = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    data, layout_axes, shapes, notes, coloraxis = [], {}, [], [], {}
    for i, m in enumerate(rounds):  # panel i (k is the class)
        r, c = divmod(i, cols)
        dx = (c * (cell_w + gap_x), c * (cell_w + gap_x) + cell_w)
        top = 1 - r * (cell_h + gap_y)
        dy = (top - cell_h, top)
        # Each round is the view itself, drawn in its cell: the ranges are the same in
        # every panel, so only the outer axes are labelled; the legend comes from the
        # first panel; colours go through one colour axis on the shared range.
        panel = Panel(i + 1, x_domain=dx, y_domain=dy, x_labels=i + cols >= n,
                      y_labels=c == 0, legend=i == 0, coloraxis=True, colorbar_len=0.6,
                      message_width=32)
        spec = panels.spec_of(_draw(trace, view, m, grid, feature_names, classes,
                                    target_name, k=k, panel=panel, **shared))
        own = spec["layout"]
        data += spec["data"]
        layout_axes.update({key: own[key] for key in (f"xaxis{panel.suffix}",
                                                      f"yaxis{panel.suffix}")})
        shapes += own.get("shapes", [])
        notes += own.get("annotations", [])
        # the same in every panel that has colours (round 0 of the tree view has none)
        coloraxis = coloraxis or own.get("coloraxis", {})
        notes.append(dict(text=f"round {m}", x=sum(dx) / 2, y=top, xref="paper", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False,
                          font=dict(size=18, color=theme.INK)))
    label = VIEWS[view][1]
    title = title or f"{label} at rounds {', '.join(map(str, rounds))}"
    subtitle = " · ".join(x for x in (data_label, Settings.of(trace.params).params_line()) if x)
    margin = dict(l=70, r=20, t=130, b=110)
    height = rows * PANEL + margin["t"] + margin["b"]
    layout = dict(
        template=PRINT_TEMPLATE, font=theme.FONT,
        title=dict(text=panels.esc(title), x=0.0, xref="paper", xanchor="left",
                   font=dict(size=22), subtitle=dict(text=panels.esc(subtitle),
                                                     font=dict(size=15, color=theme.MUTED))),
        width=cols * PANEL + 150, height=height, margin=margin, shapes=shapes,
        annotations=notes, **layout_axes)  # the legend goes where the figures' rule puts it
    if coloraxis:
        layout["coloraxis"] = coloraxis
    return for_export(go.Figure(data=data, layout=layout))


def animation(trace, view: str, rounds: Sequence[int] | None = None,
              grid: Grid | None = None, *, feature_names=("x1", "x2"), classes=None,
              target_name="y", frame_ms: int = 500, k: int | None = None) -> go.Figure:
    """The rounds of a fit as plotly frames, with a slider and a play button.

    Parameters
    ----------
    trace : explorer.Trace
    view : {"model", "residuals", "tree"}
    rounds : sequence of int, optional
        One frame each; by default :func:`animation_rounds`. The tree view has no
        tree at round 0, so round 0 is left out of its frames.
    grid : Grid, optional
    feature_names, classes, target_name
        As in :mod:`explorer.figures` (the target's name labels a regression's model).
    frame_ms : int
        Time each frame is shown while playing.
    k : int, optional
        With K >= 3 classes, as in :func:`view_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        Showing the first round, with one frame (named by its round) per round.
    """
    _check_view(view)
    rounds = check_rounds(trace, animation_rounds(trace.n_rounds) if rounds is None else rounds)
    if view == "tree":
        rounds = [m for m in rounds if m > 0] or [1]
    grid = grid if grid is not None else make_grid(trace)
    specs = [panels.spec_of(_draw(trace, view, m, grid, feature_names, classes, target_name,
                                  k=k)) for m in rounds]
    # A frame replaces the title, and the shapes and labels (the tree view's leaves).
    frames = [dict(name=str(m), data=data,
                   layout=dict(title=s["layout"]["title"], shapes=s["layout"].get("shapes", []),
                               annotations=s["layout"].get("annotations", [])))
              for m, s, data in zip(rounds, specs, _frame_data([s["data"] for s in specs]))]

    def go_to(names, duration):
        # redraw: heatmaps, contours and shapes do not tween; each frame is drawn whole
        return dict(mode="immediate", fromcurrent=True, transition=dict(duration=0),
                    frame=dict(duration=duration, redraw=True))

    layout = dict(specs[0]["layout"])
    layout.update(
        height=PLANE_SIZE[1] + 110, width=PLANE_SIZE[0],
        margin=dict(l=10, r=10, t=56, b=150),
        legend=dict(orientation="h", x=0.0, y=-0.13, yanchor="top"),
        updatemenus=[dict(
            type="buttons", direction="left", x=0.0, y=-0.24, xanchor="left", yanchor="top",
            pad=dict(t=0, r=10), showactive=False,
            buttons=[dict(label="▶ Play", method="animate", args=[None, go_to(None, frame_ms)]),
                     dict(label="❚❚ Pause", method="animate",
                          args=[[None], dict(mode="immediate", frame=dict(duration=0),
                                             transition=dict(duration=0))])])],
        sliders=[dict(
            active=0, x=0.3, len=0.7, y=-0.24, yanchor="top", pad=dict(t=0),
            currentvalue=dict(prefix="round ", font=dict(size=15)),
            steps=[dict(label=str(m), method="animate", args=[[str(m)], go_to([str(m)], 0)])
                   for m in rounds])])
    return for_export(go.Figure(data=specs[0]["data"], layout=layout, frames=frames))


def _same(a, b) -> bool:
    """Deep equality of plotly JSON values (dicts, lists, numpy arrays, scalars)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _frame_data(rounds_data: list[list[dict]]) -> list[list[dict]]:
    """Per frame, only the properties of each trace that change over the frames.

    Plotly merges a frame into the traces already drawn, so what never changes
    (point positions, colour scales, names) need not be repeated in every frame:
    that makes an animation file several times smaller. A property that changes
    anywhere is written in every frame, so jumping between any two frames is right.
    """
    first = rounds_data[0]
    if any(len(d) != len(first) for d in rounds_data):
        return rounds_data  # different traces: frames must carry everything
    changing = [{key for d in rounds_data for key in set(d[i]) | set(first[i])
                 if not _same(d[i].get(key), first[i].get(key))}
                for i in range(len(first))]
    return [[dict(type=t["type"], **{key: t.get(key) for key in keys})
             for t, keys in zip(d, changing)] for d in rounds_data]


def animation_html(trace, view: str, rounds: Sequence[int] | None = None,
                   grid: Grid | None = None, **options) -> str:
    """:func:`animation` as one self-contained HTML page (plotly.js inside: plays offline).

    ``options`` go to :func:`animation`. The page fetches nothing from elsewhere.
    """
    # The views send their bulky arrays as float32 (half the bytes): plotly writes them so.
    return pio.to_html(animation(trace, view, rounds, grid, **options), include_plotlyjs=True,
                       full_html=True, auto_play=False,
                       config=dict(displaylogo=False, responsive=True))

