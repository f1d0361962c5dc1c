"""View 3, tree m: its leaves as boxes on the plane, each labelled with its value
(:func:`tree_regions`), or as steps at height γ over the residuals it fits for a
regression with one input (:func:`tree_line`); a histogram tree's bin lattice under
the boxes.

Pure functions (trace, round, grid, options) -> plotly Figure, drawn in a ``panel``
(see :mod:`explorer.figures`).
"""

from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go

from ..numbers.grid import Grid
from ..numbers.summaries import (STOP_MARK, exact_stops, leaf_rule, most_leaves, resolve_leaf,
                                 stop_note)
from ..text import leaf_symbol, no_tree, number, signed
from . import leaf_labels
from .classes import class_colour, class_labels
from .layout import LABEL, LABELS_PLACED
from .panels import (ALONE, Panel, base_layout, class_names, colorbar, empty_figure, esc, f32,
                     finite, make_figure, marker_size, plane_layout, scatter_type,
                     selected_ring)
from .theme import CLASS_COLORS, DIVERGING, INK, MUTED, ORANGE, colours_at


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
    stops = exact_stops(trace, m) if not trace.is_multiclass else {}
    if panel == ALONE and n_visible <= 40:  # each label where it stays readable
        placed = leaf_labels.place(
            [dict(node=int(b["node"]), x0=float(b["x0"]), x1=float(b["x1"]), y0=float(b["y0"]),
                  y1=float(b["y1"]), g=float(values[int(b["node"])]),
                  border=2 if int(b["node"]) == leaf else 0,
                  mark=STOP_MARK if int(b["node"]) in stops else "") for b in visible],
            (grid.lo[0], grid.hi[0]), (grid.lo[1], grid.hi[1]), text_size, leaf_symbol(trace))
    selected = None
    # (g - lo) / (hi - lo) on [-vmax, vmax], as plotly places the marker colours
    colors = colours_at(DIVERGING, [
        min(max((float(values[int(b["node"])]) + vmax) / (vmax + vmax), 0.0), 1.0)
        for b in visible])
    for b, color in zip(visible, colors):
        node = int(b["node"])
        x0, x1, y0, y1 = (float(b[k]) for k in ("x0", "x1", "y0", "y1"))
        g = float(values[node])
        shapes.append(panel.ref(dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, layer="below",
                                     fillcolor=color, opacity=0.6, name=f"leaf:{node}",
                                     line=dict(color="white", width=2))))
        node_ids.append(node)
        if n_visible <= 40:  # a label per leaf: its hover has the leaf's numbers
            mark = STOP_MARK if node in stops else ""
            spot = placed[node] if placed else dict(text=f"γ = {signed(g)}{mark}",
                                                    x=(x0 + x1) / 2, y=(y0 + y1) / 2,
                                                    ax=None, shown=True)
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
    # The title on top, its labels just below their ticks: plotly sets a title on the
    # right in the tick labels' column (beside the 0), and one on top over the +max
    bar = colorbar(bar_title(vmax, leaf_symbol(trace)), side="top", tickvals=[-1.0, 0.0, 1.0],
                   ticktext=["−max", "0", "+max"], ticklabelposition="outside bottom")
    data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name="leaf value γ",
                     showlegend=False, hoverinfo="skip", marker=dict(color=[0.0], **panel.colour(
                         dict(cmin=-1.0, cmax=1.0, colorscale=DIVERGING, colorbar=bar,
                              showscale=True)))))
    if sample is not None and 0 <= sample < len(trace.y):
        data.append(selected_ring(trace.X[sample, 0], trace.X[sample, 1], f"sample #{sample}",
                                   len(trace.y)))
    hidden = (sum(not spot["shown"] for spot in placed.values()) if placed
              else n_visible if n_visible > 40 else 0)
    title = regions_title(trace, m, len(node_ids), k, classes, hidden, bool(stops))
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
    return f"leaf value {sym}<br>(max |{sym}| = {number(vmax, 3)})"  # on top: two lines


def regions_title(trace, m: int, n_leaves: int, k: int = 0, classes=None,
                  hidden: int = 0, stopped: bool = False) -> str:
    kind = "Newton value" if leaf_rule(trace) == "newton" else "value"
    sym = leaf_symbol(trace)
    tree = (f"Tree ({m}, {k}), of {class_labels(trace, classes)[k]}" if trace.is_multiclass
            else f"Tree {m} on the plane")
    # an exact leaf's value is a minimiser only where Newton's method converged
    mark = f"; {STOP_MARK}: no minimiser reached (hover)" if stopped else ""
    if hidden:  # the smallest leaves' values are in their hover
        return (f"{tree}: {n_leaves} leaves, labelled with their {kind} {sym} "
                f"({hidden} too small: hover){mark}")
    return f"{tree}: {n_leaves} leaves, each labelled with its {kind} {sym}{mark}"


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
    stop = None if trace.is_multiclass else exact_stops(trace, m).get(node)
    why = f"<br>{STOP_MARK} γ is {_lines(stop_note(stop))}" if stop else ""
    return (f"leaf {node} (click to select)<br>n = {int(tree['n'][node])}"
            f"<br>γ = {number(g, 6)}{STOP_MARK if stop else ''}"
            f"<br>ν·γ = {number(trace.learning_rate * g, 6)}{why}")


def _lines(text: str, width: int = 48) -> str:
    """A long hover sentence in lines of about ``width`` characters (a hover box does not
    wrap by itself)."""
    return "<br>".join(textwrap.wrap(text, width))


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
    stops = exact_stops(trace, m)
    placed = None
    if panel == ALONE and len(nodes) <= 12:  # each label where it stays readable
        placed = leaf_labels.place_steps(
            [dict(node=n, x0=float(b["x0"]), x1=float(b["x1"]), g=float(values[n]),
                  border=2 if n == leaf else 0, mark=STOP_MARK if n in stops else "")
             for n, b in zip(nodes, [b for b in boxes if b["x1"] > b["x0"]])],
            (grid.lo[0], grid.hi[0]), (-reach, reach), 13)
    for node, g, mid in zip(nodes, cy, cx):
        if len(nodes) > 12:
            break
        mark = STOP_MARK if node in stops else ""
        spot = placed[node] if placed else dict(x=mid, y=g, text=f"γ = {signed(g)}{mark}",
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
