"""The charts beside the plane: the loss curves, tree m as a diagram, one sample's
path through the rounds.

Pure functions (trace, round, options) -> plotly Figure, like :mod:`.model`.
"""

from __future__ import annotations

import textwrap

import numpy as np
import plotly.graph_objects as go

from .. import losses
from ..numbers import summaries
from ..best_round import best_round
from ..numbers.summaries import STOP_MARK
from ..text import leaf_symbol, no_tree, number, settled, signed
from .classes import class_trajectory
from .layout import text_width
from .panels import base_layout, empty_figure, esc, finite, make_figure, round_marker
from .theme import DIVERGING, INK, MUTED, ORANGE, TRAIN_COLOR, VALID_COLOR, colours_at

# --- 5. loss and accuracy against rounds ---------------------------------------------


def curves_title(trace, m: int) -> str:
    what = "Loss and accuracy" if trace.is_classifier else "Loss"
    return f"{what} by round (round {m} marked; click a point to go there)"


def _best_round_notes(trace, log: bool) -> list[dict]:
    """The lowest validation loss marked on the loss panel: a star on the point and its
    round and value above it (annotations, which a log axis places by log10). None
    without validation points. The same at every round: part of the chart's template."""
    best = best_round(trace)
    if best is None:
        return []
    y = float(np.log10(best.valid)) if log and best.valid > 0 else best.valid
    at = dict(x=best.round, y=y, xref="x", yref="y")
    # the label leans into the panel, away from the nearer edge
    side = 1 if best.round <= 0.6 * trace.n_rounds else -1
    return [dict(text="★", showarrow=False, xanchor="center", yanchor="middle",
                 font=dict(size=20, color=VALID_COLOR), **at),
            dict(text=f"best round {best.round}: {number(best.valid, 4)}", showarrow=True,
                 arrowhead=0, arrowcolor=VALID_COLOR, ax=30 * side, ay=-30, standoff=9,
                 xanchor="left" if side > 0 else "right", font=dict(size=13, color=VALID_COLOR),
                 bgcolor="rgba(255,255,255,0.8)", **at)]


def curves(trace, m: int, *, height: int = 430, uirevision=None,
           log: bool = False) -> go.Figure:
    """View 5: train (and validation) loss and accuracy per round, round m marked (a rule
    per panel, then a marker per line: the shapes, in this order), and the round of the
    lowest validation loss (:func:`explorer.best_round.best_round`) starred.
    ``log``: the loss on a log axis.

    Every point carries its round in ``customdata``, so a click can move to it.
    """
    rounds = np.arange(trace.n_rounds + 1)
    series = [("", "train", trace.train_loss, TRAIN_COLOR, "solid"),
              ("", "validation", trace.valid_loss, VALID_COLOR, "dash"),
              ("2", "train", trace.train_accuracy, TRAIN_COLOR, "solid"),
              ("2", "validation", trace.valid_accuracy, VALID_COLOR, "dash")]
    marker_size = 5 if len(rounds) <= 150 else 3
    data, marks = [], []
    for suffix, name, values, color, dash in series:
        if values is None:
            continue
        v = finite(values)
        data.append(dict(
            type="scatter", x=rounds, y=v, mode="lines+markers", name=name, legendgroup=name,
            showlegend=suffix == "", customdata=rounds, xaxis=f"x{suffix}", yaxis=f"y{suffix}",
            line=dict(color=color, width=2.5, dash=dash), marker=dict(size=marker_size),
            hovertemplate="round %{x}: %{y:.4f}<extra>" + name + "</extra>"))
        marks.append(round_marker(m, v[m], color, xref=f"x{suffix}", yref=f"y{suffix}"))
    xrange = [-0.5, trace.n_rounds + 0.5]
    # a regression has no accuracy: its loss takes the whole width
    panels = ("", "2") if trace.is_classifier else ("",)
    loss_name = losses.of(trace).title
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref=f"x{s}", yref=f"y{s} domain",
                   line=dict(color=ORANGE, width=2)) for s in panels] + marks
    width = 0.45 if trace.is_classifier else 1.0
    notes = [dict(text=t, x=x, y=1.0, xref="paper", yref="paper", xanchor="center",
                  yanchor="bottom", showarrow=False, font=dict(size=17))
             for t, x in ((f"Mean {loss_name}" + (" (log scale)" if log else ""), width / 2),
                          ("Accuracy", 0.775))[:len(panels)]]
    notes += _best_round_notes(trace, log)
    axes = dict(xaxis=dict(domain=[0.0, width], range=xrange, title=dict(text="round m"),
                           anchor="y"),
                yaxis=dict(anchor="x", type="log", exponentformat="power") if log else
                dict(anchor="x", rangemode="tozero"))
    if trace.is_classifier:
        axes.update(xaxis2=dict(domain=[0.55, 1.0], range=xrange, title=dict(text="round m"),
                                anchor="y2"),
                    yaxis2=dict(anchor="x2", range=[0, 1.02]))
    layout = base_layout(
        curves_title(trace, m), height,
        uirevision, hovermode="x", shapes=shapes, annotations=notes,
        margin=dict(l=10, r=10, t=80, b=10),
        legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), **axes)
    return make_figure(data, layout)


# --- 7. the tree as a diagram --------------------------------------------------------


def _tree_layout(tree) -> tuple[np.ndarray, np.ndarray]:
    """x (leaves evenly spaced, in left-to-right order; parents centred) and depth per node."""
    n = len(tree)
    x = np.zeros(n)
    left, right = tree["left"], tree["right"]
    next_leaf = 0.0
    stack = [(0, False)]
    while stack:  # post-order without recursion: deep trees stay safe
        k, done = stack.pop()
        if left[k] < 0:
            x[k] = next_leaf
            next_leaf += 1.0
        elif done:
            x[k] = (x[left[k]] + x[right[k]]) / 2
        else:
            stack += [(k, True), (int(right[k]), False), (int(left[k]), False)]
    return x, np.asarray(tree["depth"], dtype=float)


def leaf_rule_text(trace, m: int | None = None) -> str:
    """The rule that gave tree m's leaf values γ, as the fit used it: −G/(H + λ) for
    second-order trees, Σr / Σh for Newton leaves ((K − 1)/K of it with K classes), the
    mean residual, the exact minimiser of the leaf's loss, or line search's ρ_m times
    the mean."""
    p = trace.params
    leaf, split = p.get("leaf", "newton"), p.get("split", "squared_error")
    if split in ("hessian", "histogram"):  # xgboost's leaf weight w; scikit-learn's γ
        lam = number(p.get("reg_lambda", 0.0), 4)
        return f"{leaf_symbol(trace)} = −G / (H + λ) = Σr / (Σh + λ), λ = {lam}"
    if leaf == "mean" or (not trace.is_classifier and leaf != "line_search"):
        return "γ = Σr / n (the mean residual)"  # squared error: Newton and exact are the mean
    if leaf == "exact":  # Newton's method iterated: a minimiser only where it converged
        stopped = m is not None and m >= 1 and bool(summaries.exact_stops(trace, m))
        return ("γ = the exact minimiser of Σ L(y, F + γ) over the leaf, by Newton's method"
                + (f" ({STOP_MARK}: none reached, hover)" if stopped else ""))
    if leaf == "line_search":
        rho = "" if trace.rho is None or m is None else f", ρ_{m} = {number(trace.rho[m], 4)}"
        return f"γ = ρ_m · Σr / n (line search's step times the mean){rho}"
    if trace.is_multiclass:
        K = trace.n_classes
        return f"γ = {K - 1}/{K} · Σr / Σh"
    return "γ = Σr / Σh"


# Past these many leaves a node shows fewer numbers (the rest are in its hover): the
# Tree page's diagram gives a leaf about 29 px at 1280 px (31 leaves, HistGradientBoosting's
# default).
COMPACT, TINY = 8, 20
DIAGRAM_PX = 840  # the diagram's plotting width at its narrowest (the Tree page at 1280 px)


def diagram_title(trace, m: int, k: int = 0, classes=None, n_leaves: int = 0) -> str:
    # which tree, what each node shows (fewer numbers when there are many), and the leaf
    # rule: with K classes the (K - 1)/K factor is in γ
    name = f"Tree {m}"
    if trace.is_multiclass:
        name = f"Tree ({m}, {k}), of class {esc((classes or trace.classes)[k])}"
    shown = ("per node its split, n, Σr, Σh and improvement" if n_leaves <= COMPACT else
             "per node its split and n (Σr, Σh, improvement: hover)" if n_leaves <= TINY
             else "per node its split in its hover, and a crowded leaf's value")
    return (f"{name} (go left = yes): {shown}; per leaf {leaf_rule_text(trace, m)}, "
            f"before ν = {number(trace.learning_rate, 4)}")


def tree_diagram(trace, m: int, *, feature_names=("x1", "x2"), leaf: int | None = None,
                 sample: int | None = None, height: int | None = None, uirevision=None,
                 k: int = 0, classes=None) -> go.Figure:
    """View 7: tree m (of class k), per node its split, n, sums and improvement; per leaf
    its value.

    Node markers carry the node id in ``customdata[0]`` (and 1 for a leaf in
    ``customdata[1]``) so a click can select a leaf. With a ``sample``, ``leaf`` is the
    selection (:func:`~explorer.numbers.summaries.resolve_leaf`).
    """
    if m < 1:
        return empty_figure(no_tree())
    if leaf is not None and sample is not None:
        leaf = summaries.resolve_leaf(trace, m, leaf, sample, k)[0]
    tree = trace.tree(m, k)
    sym = leaf_symbol(trace)  # w for second-order trees (xgboost's leaf weight)
    x, depth = _tree_layout(tree)
    is_leaf = tree["left"] < 0
    n_leaves = int(is_leaf.sum())
    title = diagram_title(trace, m, k, classes, n_leaves)
    compact, tiny = n_leaves > COMPACT, n_leaves > TINY
    names = [esc(n) for n in feature_names]
    values = finite(tree["value"])
    scales = summaries.node_scales(trace, m, k)  # Σ|r|: a smaller Σr is noise, printed 0
    vmax = max(float(np.max(np.abs(values[is_leaf]))), 1e-12)
    ex, ey = [], []
    notes, hover = [], []
    font_size = 13 if not compact else 11 if not tiny else 9
    shades = dict(zip(np.flatnonzero(is_leaf).tolist(), colours_at(
        DIVERGING, (0.5 + 0.3 * values[is_leaf] / vmax).tolist()))) if is_leaf.any() else {}
    stops = {} if trace.is_multiclass else summaries.exact_stops(trace, m)
    for k in range(len(tree)):  # (the class k is not needed below: name and rule have it)
        n = int(tree["n"][k])
        sr = number(settled(tree["sum_r"][k], scales[k]), 4)
        sh = number(tree["sum_h"][k], 4)
        sums = f"n = {n}, Σr = {sr}, Σh = {sh}"
        if not is_leaf[k]:
            left, right = int(tree["left"][k]), int(tree["right"][k])
            for child in (left, right):
                ex += [x[k], x[child], None]
                ey += [-depth[k], -depth[child], None]
            rule = f"{names[int(tree['feature'][k])]} ≤ {number(tree['threshold'][k], 4)}"
            hover.append(f"node {k}: {rule}<br>{sums}, improvement "
                         f"{number(tree['improvement'][k], 3)}")
            split = f"<b>{rule}</b>"
            if tiny:  # a dot (the nodes trace), its split in its hover: no room for text
                continue
            elif compact:
                text = f"{split}<br>n={n}"
            else:
                text = (f"{split}<br>n = {n}<br>Σr = {sr}<br>Σh = {sh}"
                        f"<br>improvement {number(tree['improvement'][k], 3)}")
            bg, border, bw = "#ffffff", "#9aa3ad", 1
            if not tiny:
                for child, word in ((left, "yes"), (right, "no")):
                    notes.append(dict(x=(x[k] + x[child]) / 2, y=-(depth[k] + depth[child]) / 2,
                                      text=word, showarrow=False, bgcolor="white",
                                      font=dict(size=12, color=MUTED)))
        else:
            g = float(values[k])
            # an exact leaf whose Newton's method stopped short: marked, the hover says why
            mark = STOP_MARK if k in stops else ""
            why = (f"<br>{STOP_MARK} {sym} is " + "<br>".join(textwrap.wrap(
                summaries.stop_note(stops[k], sym), 48))) if mark else ""
            hover.append(f"leaf {k}: {sym} = {signed(g, 4)}{mark}<br>{sums}{why}"
                         "<br>click to select")
            if tiny:
                text = f"<b>{signed(g, 2)}</b>{mark}"
            elif compact:
                text = f"n={n}<br><b>{sym}={signed(g, 3)}</b>{mark}"
            else:
                text = (f"leaf {k}<br>n = {n}<br>Σr = {sr}<br>Σh = {sh}"
                        f"<br><b>{sym} = {signed(g, 4)}</b>{mark}")
            bg = shades[k]
            border, bw = (INK, 3) if k == leaf else ("#9aa3ad", 1)
        notes.append(dict(x=x[k], y=-depth[k], text=text, showarrow=False, align="center",
                          font=dict(size=font_size, color=INK), bgcolor=bg, bordercolor=border,
                          borderwidth=bw, borderpad=2 if tiny else 5))
    if tiny:  # the notes are the leaves', in order
        _leave_room(notes, values[is_leaf], font_size,
                    DIAGRAM_PX / (max(n_leaves - 1, 1) + 1.4))
    # every node's numbers in its hover; with many leaves a split is a dot, and a leaf
    # keeps its box
    dot = [tiny and not is_leaf[j] for j in range(len(tree))]
    data = [
        dict(type="scatter", x=ex, y=ey, mode="lines", line=dict(color="#9aa3ad", width=1.5),
             hoverinfo="skip", showlegend=False),
        dict(type="scatter", x=x, y=-depth, mode="markers", showlegend=False,
             marker=dict(size=[9 if d else 34 for d in dot],
                         color=[MUTED if d else "rgba(0,0,0,0)" for d in dot]),
             customdata=np.column_stack([np.arange(len(tree)), is_leaf.astype(int)]),
             hovertext=hover, hoverinfo="text"),
    ]
    max_depth = float(depth.max())
    height = height or int(190 + (150 if not compact else 110) * max_depth)
    span = max(n_leaves - 1, 1)
    layout = base_layout(
        title, height, uirevision, annotations=notes,
        xaxis=dict(visible=False, range=[-0.7, span + 0.7] if n_leaves > 1 else [-1, 1]),
        yaxis=dict(visible=False, range=[-max_depth - 0.5, 0.5]))
    return make_figure(data, layout)


def _leave_room(notes: list[dict], values, size: float, px: float) -> None:
    """Many leaves side by side: a leaf whose value would meet a neighbour's (at the same
    depth, ``px`` pixels a unit apart) keeps its coloured box without the text, its value
    in the hover; larger |γ| first, so a large value keeps its text."""
    kept: dict[float, list] = {}
    for i in np.argsort(-np.abs(values), kind="stable"):
        note = notes[i]
        width = text_width(note["text"], size) + 2 * (note["borderpad"] + note["borderwidth"])
        lo, hi = note["x"] * px - width / 2 - 1, note["x"] * px + width / 2 + 1
        row = kept.setdefault(note["y"], [])
        if any(lo < b and a < hi for a, b in row):
            note["text"] = " "
        else:
            row.append((lo, hi))


# --- 8. one sample over the rounds ---------------------------------------------------


def sample_trajectory(trace, i: int, m: int, *, ledger: dict | None = None, height: int = 380,
                      uirevision=None, classes=None) -> go.Figure:
    """View 8 (chart part): F_m and p_m of sample i against rounds, round m marked (every
    class's F_k and p_k with K >= 3 classes): the shapes are round m's rule, p = 0.5's
    line, then F's and p's markers."""
    L = ledger if ledger is not None else summaries.ledger(trace, i)
    if trace.is_multiclass:
        return class_trajectory(trace, i, m, L, height=height, uirevision=uirevision,
                                classes=classes)
    rounds = L["round"]
    F = finite(L["F"])
    if L["p"] is None:
        return _target_trajectory(trace, i, m, rounds, F, float(L["y"]), height, uirevision)
    p = finite(L["p"])
    data = [
        dict(type="scatter", x=rounds, y=F, mode="lines", name="F<sub>m</sub> (left axis)",
             line=dict(color=INK, width=2.5), customdata=rounds,
             hovertemplate="round %{x}: F = %{y:.4f}<extra></extra>"),
        dict(type="scatter", x=rounds, y=p, mode="lines", name="p<sub>m</sub> (right axis)",
             line=dict(color=ORANGE, width=2.5, dash="dash"), yaxis="y2", customdata=rounds,
             hovertemplate="round %{x}: p = %{y:.4f}<extra></extra>"),
    ]
    label = "class 1" if L["y"] == 1 else "class 0"
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref="x", yref="paper",
                   line=dict(color=ORANGE, width=1.5)),
              dict(type="line", x0=0, x1=1, y0=0.5, y1=0.5, xref="paper", yref="y2",
                   line=dict(color=MUTED, width=1, dash="dot")),
              round_marker(m, F[m], INK, size=13, outline_width=0),
              round_marker(m, p[m], ORANGE, yref="y2", size=13, outline_width=0)]
    layout = base_layout(
        f"Sample #{i} ({label}): F and p by round", height, uirevision, hovermode="x",
        shapes=shapes, legend=dict(orientation="h", x=0, y=-0.35, yanchor="top"),
        xaxis=dict(title=dict(text="round m"), range=[-0.5, trace.n_rounds + 0.5],
                   domain=[0, 0.92]),
        yaxis=dict(title=dict(text="F<sub>m</sub>")),
        yaxis2=dict(title=dict(text="p<sub>m</sub>"), range=[0, 1], overlaying="y",
                    side="right", showgrid=False, anchor="x", tickmode="array",
                    tickvals=[0, 0.25, 0.5, 0.75, 1]))
    return make_figure(data, layout)


def _target_trajectory(trace, i, m, rounds, F, y, height, uirevision) -> go.Figure:
    """A regression sample's F_m against rounds, closing on its target y."""
    data = [
        dict(type="scatter", x=rounds, y=F, mode="lines", name="F<sub>m</sub>",
             line=dict(color=INK, width=2.5), customdata=rounds,
             hovertemplate="round %{x}: F = %{y:.4f}<extra></extra>"),
        dict(type="scatter", x=[rounds[0], rounds[-1]], y=[y, y], mode="lines",
             name=f"target y = {number(y, 4)}", line=dict(color=ORANGE, width=2, dash="dash"),
             hoverinfo="skip"),
    ]
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref="x", yref="paper",
                   line=dict(color=ORANGE, width=1.5)),
              round_marker(m, F[m], INK, size=13, outline_width=0)]
    return make_figure(data, base_layout(
        f"Sample #{i}: F by round, and its target y", height, uirevision, hovermode="x",
        shapes=shapes, legend=dict(orientation="h", x=0, y=-0.35, yanchor="top"),
        xaxis=dict(title=dict(text="round m"), range=[-0.5, trace.n_rounds + 0.5]),
        yaxis=dict(title=dict(text="F<sub>m</sub>"))))
