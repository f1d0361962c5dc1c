"""Charts of the lessons on histogram trees: pure functions (numbers, round, options) ->
plotly Figure.

Split finding at a node (per feature: the gradient and hessian histograms over the bins,
the running sums G_L and H_L, and the gain at each bin boundary, the chosen boundary
marked); the tree grown best-first (the order of its splits, and which child's
histogram was built from its samples and which was its parent's minus its sibling's);
the leaf values −G/(H + λ) · ν.

They draw the numbers of :mod:`explorer.numbers.histograms` and compute none: every array
goes through ``finite``, every name from the user's data through ``esc``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..text import no_tree, number, signed
from .charts import _tree_layout
from .panels import base_layout, empty_figure, esc, finite, make_figure
from .theme import BLUE, INK, MUTED, ORANGE

GREEN = "#2e8b57"  # the chosen split, as on the split scan
BUILT_BG, SUBTRACTED_BG = "#d6e6f5", "#fde3cc"  # a node whose histogram was built / subtracted
NONE_BG = "#ffffff"
_BG = {"built": BUILT_BG, "subtracted": SUBTRACTED_BG, None: NONE_BG}
_BORDER = {"built": BLUE, "subtracted": ORANGE, None: "#9aa3ad"}


def _name(feature_names, f: int) -> str:
    return esc(feature_names[f] if f < len(feature_names) else f"x{f + 1}")


# --- split finding at a node -------------------------------------------------------------


def split_finding(numbers: dict | None, m: int, node: int, *, feature_names=("x1", "x2"),
                  gain_name: str = "gain", tree_name: str | None = None, height: int = 700,
                  uirevision=None) -> go.Figure:
    """Per feature (a column each), three rows against the bins: the histograms G_b and
    H_b; the running sums G_L and H_L at each boundary; the gain there (allowed
    boundaries only), the feature's best ringed and the tree's chosen boundary a dashed
    line through the three rows. H has its own axis, on the right: it is a count for
    squared error (and Σp(1 − p) ≤ n/4 for the log-loss), which would flatten G.

    ``numbers`` is :func:`explorer.numbers.histograms.split_finding` of ``node`` of tree
    m (None for a node without a histogram; at round 0, which has no tree, the chart says
    so); ``gain_name`` names the gain (the Splits page's name for it).
    """
    if m < 1:
        return empty_figure(no_tree(), height)
    tree = tree_name or f"tree {m}"
    if numbers is None:
        return empty_figure(f"Node {node} of {tree} had no histogram: it became a leaf "
                            "without a search for a split (the leaf or depth limit, or too "
                            "few samples).", height)
    features = numbers["features"]
    d = len(features)
    gap = 0.16  # room for a column's right-hand (H) ticks and the next one's left ticks
    width = (1.0 - gap * (d - 1)) / d
    rows = ((0.72, 1.0), (0.38, 0.64), (0.0, 0.3))
    data, shapes, notes, axes = [], [], [], {}
    chosen = numbers["chosen"]
    for col, fe in enumerate(features):
        f = fe["feature"]
        name = _name(feature_names, f)
        edges = finite(fe["edges"])
        bins = np.arange(len(fe["G_b"]))
        bounds = np.arange(len(edges)) + 0.5  # the boundary after bin b sits at b + 0.5
        x0 = col * (width + gap)
        for row in range(3):
            n = row * d + col + 1
            sfx = "" if n == 1 else str(n)
            axes[f"xaxis{sfx}"] = dict(domain=[x0, x0 + width], anchor=f"y{sfx}",
                                       range=[-0.6, len(bins) - 0.4],
                                       showticklabels=row == 2,
                                       title=dict(text=f"bin of {name}" if row == 2 else ""))
            if row:  # the lower rows follow the top one's bins
                axes[f"xaxis{sfx}"]["matches"] = f"x{col + 1 if col else ''}"
            title = ("per bin: G<sub>b</sub>", "running sum G<sub>L</sub>",
                     esc(gain_name))[row] if col == 0 else ""
            # three rows: a few ticks each, or they meet (in presenter mode above all)
            axes[f"yaxis{sfx}"] = dict(domain=list(rows[row]), anchor=f"x{sfx}", nticks=4,
                                       title=dict(text=title))
            if row < 2:  # H's own axis over the same plot, its 0 level with G's
                axes[f"yaxis{sfx}"]["tickfont"] = dict(color=ORANGE)
                g_range, h_range, h_ticks = _zero_aligned(fe[("G_b", "G_L")[row]],
                                                          fe[("H_b", "H_L")[row]])
                axes[f"yaxis{sfx}"]["range"] = g_range
                right = ("H<sub>b</sub>", "H<sub>L</sub>")[row] if col == d - 1 else ""
                axes[f"yaxis{_h_axis(row, col, d)}"] = dict(
                    overlaying=f"y{sfx}", side="right", anchor=f"x{sfx}", range=h_range,
                    tickvals=h_ticks, showgrid=False, zeroline=False,
                    tickfont=dict(color=BLUE), title=dict(text=right))
            if chosen is not None and chosen[0] == f:
                c = float(chosen[1]) + 0.5
                shapes.append(dict(type="line", x0=c, x1=c, y0=0, y1=1, xref=f"x{sfx}",
                                   yref=f"y{sfx} domain",
                                   line=dict(color=GREEN, width=2, dash="dash")))
        s1, s2, s3 = ("" if col == 0 else str(col + 1)), str(d + col + 1), str(2 * d + col + 1)
        hover_bin = [f"bin {b}: {name} in ({_edge(edges, b - 1)}, {_edge(edges, b)}]"
                     for b in bins]
        for field, label, color, y in (
                ("G_b", "G<sub>b</sub> = Σg in bin b (left axis)", ORANGE, s1),
                ("H_b", "H<sub>b</sub> = Σh in bin b (right axis)", BLUE, _h_axis(0, col, d))):
            # side by side in each bin although on two axes: one alignment group
            data.append(dict(type="bar", x=bins, y=finite(fe[field]), name=label,
                             legendgroup=field, showlegend=col == 0, marker=dict(color=color),
                             offsetgroup=field, alignmentgroup=f"bins{col}",
                             xaxis=f"x{s1}", yaxis=f"y{y}", customdata=hover_bin,
                             hovertemplate=f"%{{customdata}}<br>{label}: %{{y:.5g}}"
                                           "<extra></extra>"))
        hover_cut = [f"{name} ≤ {number(e, 5)} (bins 0..{b} left)" for b, e in enumerate(edges)]
        for field, label, color, y in (
                ("G_L", "G<sub>L</sub>: Σ of G<sub>b</sub>, left of the boundary", ORANGE, s2),
                ("H_L", "H<sub>L</sub>: Σ of H<sub>b</sub>, left of the boundary", BLUE,
                 _h_axis(1, col, d))):
            data.append(dict(type="scatter", x=bounds, y=finite(fe[field]), mode="lines",
                             name=label, legendgroup=field, showlegend=col == 0,
                             line=dict(color=color, width=2.5), xaxis=f"x{s2}",
                             yaxis=f"y{y}", customdata=hover_cut,
                             hovertemplate=f"%{{customdata}}<br>{label}: %{{y:.5g}}"
                                           "<extra></extra>"))
        ok = np.flatnonzero(fe["allowed"])
        gain = finite(fe["gain"])
        data.append(dict(type="scatter", x=bounds[ok], y=gain[ok],
                         mode="lines+markers" if len(ok) < 60 else "lines",
                         name=f"{esc(gain_name)} at a boundary", legendgroup="gain",
                         showlegend=col == 0, line=dict(color=INK, width=2),
                         marker=dict(size=4), xaxis=f"x{s3}", yaxis=f"y{s3}",
                         customdata=[hover_cut[i] for i in ok],
                         hovertemplate="%{customdata}<br>gain %{y:.6g}<extra></extra>"))
        if fe["best"] is not None:
            b = fe["best"]
            data.append(dict(type="scatter", x=[bounds[b]], y=[gain[b]], mode="markers",
                             name="best boundary of the feature", legendgroup="best",
                             showlegend=col == 0, xaxis=f"x{s3}", yaxis=f"y{s3}",
                             marker=dict(size=12, color=INK, symbol="circle-open",
                                         line=dict(width=2)),
                             hovertemplate=f"best on {name}: {hover_cut[b]}<extra></extra>"))
        else:
            notes.append(dict(text="no boundary allowed", x=0.5, y=0.5, xref=f"x{s3} domain",
                              yref=f"y{s3} domain", showarrow=False,
                              font=dict(color=MUTED, size=13)))
        if chosen is not None and chosen[0] == f:
            # the label reads away from the nearer end, so that it stays over its plot
            notes.append(dict(text=f"chosen: {name} ≤ {number(edges[chosen[1]], 4)}",
                              x=float(chosen[1]) + 0.5, y=1.0, xref=f"x{s1}",
                              yref=f"y{s1} domain", showarrow=False, yanchor="bottom",
                              xanchor="left" if chosen[1] + 0.5 < len(bins) / 2 else "right",
                              font=dict(color=GREEN, size=13)))
    if chosen is None:
        notes.append(dict(text="this node is a leaf: its best boundary was not split "
                          "(the leaf limit, or no positive gain)", x=0.5, y=0.33,
                          xref="paper", yref="paper", showarrow=False,
                          font=dict(color=MUTED, size=13)))
    title = (f"Node {node} of {tree}: histograms, running sums, {esc(gain_name)} "
             "per bin boundary")
    layout = base_layout(title, height, uirevision, shapes=shapes, annotations=notes,
                         barmode="group", bargap=0.05, hovermode="closest",
                         margin=dict(l=10, r=10, t=80, b=90), **axes)
    return make_figure(data, layout)


def _zero_aligned(g, h) -> tuple[list, list, list]:
    """The ranges of G's axis and of H's (H >= 0) with 0 at the same height, and H's
    ticks (0 and up only: below its 0 the axis is G's room). G keeps at least the top half
    for H when it is mostly negative."""
    g, h = finite(np.asarray(g, float)), finite(np.asarray(h, float))
    lo, hi = min(0.0, float(g.min(initial=0.0))), max(0.0, float(g.max(initial=0.0)))
    if hi <= -lo:
        hi = max(hi, -lo, 1e-12)  # 0 no higher than halfway
    lo, hi = lo - 0.06 * (hi - lo), hi * 1.06
    zero = -lo / (hi - lo)  # the height of 0, as a share of the plot
    top = max(float(h.max(initial=0.0)), 1e-12) * 1.06
    # as many ticks above 0 as H's share of the plot has room for (3 in a whole row, with
    # presenter mode's type), and at least one
    room = max(1, int(3 * (1 - zero)))
    step = _nice(top / room, up=True)
    if step > top:
        step = _nice(top, up=False)
    ticks = [float(step * i) for i in range(int(top / step) + 1)]
    return [lo, hi], [-top * zero / (1 - zero), top], ticks


def _nice(x: float, up: bool) -> float:
    """1, 2 or 5 times a power of 10: the smallest at least x (up), or the largest at most
    x."""
    power = 10.0 ** np.floor(np.log10(x))
    steps = [f * power for f in (1, 2, 5, 10)]
    return float(next(v for v in steps if v >= x) if up else max(v for v in steps if v <= x))


def _h_axis(row: int, col: int, d: int) -> str:
    """The number of H's right-hand y axis in row 0 or 1 of column ``col`` (after the 3d
    axes of the rows)."""
    return str(3 * d + row * d + col + 1)


def _edge(edges, b: int) -> str:
    if b < 0:
        return "−∞"
    if b >= len(edges):
        return "+∞"
    return number(edges[b], 5)


# --- best-first growth and the subtraction trick ------------------------------------------


def growth(tree, grown: dict, children: list, leaves: list, m: int, *,
           feature_names=("x1", "x2"), tree_name: str | None = None, height: int | None = None,
           uirevision=None) -> go.Figure:
    """Tree m as best-first growth made it: each split labelled with its rank (#1 first)
    and its gain, each node's box tinted by how its histogram came (built from its
    samples, or parent − sibling), each leaf with its value.

    ``tree`` is the tree's node records (for the drawing's places); ``grown``,
    ``children`` and ``leaves`` are :func:`explorer.numbers.histograms.growth`,
    ``subtraction`` and ``leaf_values`` of it.
    """
    if m < 1:
        return empty_figure(no_tree(), height or 420)
    name = tree_name or f"tree {m}"
    x, depth = _tree_layout(tree)
    n_leaves = len(leaves)
    # the labels shrink as the leaves crowd: in a chart 790 px wide, two split nodes of
    # the same depth are two leaves' widths apart at least, a leaf and a node one and a
    # half; past 12 leaves a split shows its rank alone and a leaf is a square (the hover
    # and the tables below have their numbers)
    compact, tiny = n_leaves > 8, n_leaves > 12
    kind = {0: "built"}  # the root's histogram is built from every sample
    for c in children:
        if c["built"] is not None:
            kind[c["built"]], kind[c["subtracted"]] = "built", "subtracted"
    rank = {s["node"]: s for s in grown["splits"]}
    value = {row["node"]: row for row in leaves}
    ex, ey, notes = [], [], []
    size = 13 if not compact else 11 if not tiny else 10
    squares = []  # the leaves drawn as squares
    for u in range(len(tree)):
        left, right = int(tree["left"][u]), int(tree["right"][u])
        if left >= 0:
            for child in (left, right):
                ex += [float(x[u]), float(x[child]), None]
                ey += [-float(depth[u]), -float(depth[child]), None]
            s = rank[u]
            split = f"<b>#{s['order']}</b> {_name(feature_names, s['feature'])} ≤ " \
                    f"{number(s['threshold'], 3)}"
            text = (f"<b>#{s['order']}</b>" if tiny else
                    f"{split}<br>gain {number(s['gain'], 3)}")
            if not compact:
                text += f"<br>n = {s['n']}"
        elif tiny:
            squares.append(u)
            continue
        else:
            v = value[u]
            text = (f"n={v['n']}<br>γ={signed(v['value'], 3)}" if compact else
                    f"leaf {u}, n = {v['n']}<br>γ = {signed(v['value'], 4)}")
        notes.append(dict(x=float(x[u]), y=-float(depth[u]), text=text, showarrow=False,
                          align="center", font=dict(size=size, color=INK),
                          bgcolor=_BG[kind.get(u)], bordercolor=_BORDER[kind.get(u)],
                          borderwidth=2 if u in kind else 1,
                          borderpad=2 if tiny else 4))
    data = [dict(type="scatter", x=ex, y=ey, mode="lines", hoverinfo="skip", showlegend=False,
                 line=dict(color="#9aa3ad", width=1.5))]
    for label, bg, border in (("histogram built from its own samples (the smaller child)",
                               BUILT_BG, BLUE),
                              ("histogram = parent − sibling, bin by bin", SUBTRACTED_BG,
                               ORANGE),
                              ("no histogram (never searched)", NONE_BG, "#9aa3ad")):
        data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=label,
                         marker=dict(symbol="square", size=14, color=bg,
                                     line=dict(color=border, width=2)), hoverinfo="skip"))
    hover = [(f"split #{rank[u]['order']}: node {u}, n = {rank[u]['n']}"
              if u in rank else f"leaf {u}, n = {value[u]['n']}")
             + {"built": ", histogram built from its samples",
                "subtracted": ", histogram = parent − sibling"}.get(kind.get(u), "")
             for u in range(len(tree))]
    if squares:
        data.append(dict(type="scatter", x=finite(x[squares]), y=-finite(depth[squares]),
                         mode="markers", showlegend=False, hoverinfo="skip",
                         marker=dict(symbol="square", size=12,
                                     color=[_BG[kind.get(u)] for u in squares],
                                     line=dict(color=[_BORDER[kind.get(u)] for u in squares],
                                               width=2))))
    hover = [h + (f", γ = {number(value[u]['value'], 4)}" if u in value else "")
             for u, h in enumerate(hover)]
    data.append(dict(type="scatter", x=finite(x), y=-finite(depth), mode="markers",
                     showlegend=False, marker=dict(size=30, color="rgba(0,0,0,0)"),
                     hovertext=hover, hoverinfo="text"))
    limit = grown["max_leaves"]
    why = (f"max leaves = {limit} reached" if grown["stopped"] == "max_leaves" else
           "none left to split")
    S = len(grown["splits"])
    order = f"splits #1 to #{S}" if S > 1 else "split #1" if S else "no split"
    count = f"{n_leaves} leaves" if n_leaves != 1 else "1 leaf"
    title = f"{name[:1].upper()}{name[1:]} grown best-first: {order}, {count}, {why}"
    max_depth = float(depth.max())
    height = height or int(230 + (140 if not compact else 100) * max_depth)
    span = max(n_leaves - 1, 1)
    layout = base_layout(title, height, uirevision, annotations=notes,
                         legend=dict(orientation="h", x=0.0, y=-0.02, yanchor="top"),
                         margin=dict(l=10, r=10, t=70, b=10),
                         xaxis=dict(visible=False,
                                    range=[-0.7, span + 0.7] if n_leaves > 1 else [-1, 1]),
                         yaxis=dict(visible=False, range=[-max_depth - 0.5, 0.5]))
    return make_figure(data, layout)


# --- leaf values ---------------------------------------------------------------------------


def leaf_values(leaves: list, m: int, *, tree_name: str | None = None,
                height: int | None = None, uirevision=None) -> go.Figure:
    """Each leaf's step ν · γ, γ = −G/(H + λ), as a horizontal bar with its number;
    the hover has the sums. ``leaves`` is :func:`explorer.numbers.histograms.leaf_values`
    of tree m."""
    if m < 1:
        return empty_figure(no_tree(), height or 360)
    name = tree_name or f"tree {m}"
    labels = [f"leaf {r['node']} (n = {r['n']})" for r in leaves]
    step = finite([r["step"] for r in leaves])
    hover = [f"γ = −G/(H + λ) = −({number(r['G'], 5)})/({number(r['H'], 5)} + "
             f"{number(r['lam'], 4)}) = {number(r['value'], 5)}<br>ν · γ = "
             f"{number(r['nu'], 4)} × {number(r['value'], 5)} = {number(r['step'], 5)}"
             for r in leaves]
    data = [dict(type="bar", orientation="h", y=labels, x=step, name="ν · γ",
                 showlegend=False, marker=dict(color=[ORANGE if s > 0 else BLUE for s in step]),
                 text=[signed(s, 3) for s in step], textposition="auto",
                 hovertext=hover, hoverinfo="text")]
    nu = number(leaves[0]["nu"], 4) if leaves else "ν"
    lam = number(leaves[0]["lam"], 4) if leaves else "λ"
    reach = max(float(np.max(np.abs(step))) if len(step) else 0.0, 1e-12) * 1.15
    height = height or int(150 + 26 * max(len(leaves), 3))
    layout = base_layout(f"Leaves of {name}: ν · γ, γ = −G/(H + λ) (ν = {nu}, λ = {lam})",
                         height, uirevision,
                         margin=dict(l=10, r=10, t=60, b=10),
                         xaxis=dict(title=dict(text="ν · γ, the leaf's step"),
                                    range=[-reach, reach], zeroline=True),
                         yaxis=dict(autorange="reversed", automargin=True))
    return make_figure(data, layout)
