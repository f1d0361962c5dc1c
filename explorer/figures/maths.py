"""Charts of the mathematics pages: pure functions (numbers, round, options) -> plotly Figure.

Leaf maths (a leaf's loss, its Taylor quadratic, the Newton step and the exact
minimiser), the split scan (gain against threshold for both split rules), and the
comparison of two fits (overlaid loss curves). The regression views are
the model's own (:mod:`.model`).

Like :mod:`.model`: no Streamlit, and no maths either: the charts draw the numbers
they are given (a leaf story of :mod:`explorer.numbers.leaves`, the scans of
:mod:`explorer.numbers.splits`), every array through ``finite`` and every piece of user
text through ``esc``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..numbers.leaves import leaf_story, typical_leaf
from ..numbers.summaries import CONVERGED, FLOOR, resolve_leaf
from ..text import no_tree, number
from .panels import base_layout, empty_figure, esc, finite, make_figure
from .theme import BLUE, INK, MUTED, ORANGE

GREEN = "#2e8b57"
RED = "#c0392b"
PURPLE = "#7b3fa0"


def _shown_range(y) -> tuple[float, float]:
    y = finite(y)
    return float(y.min()), float(y.max())


HUGE = 1e300  # the leaf's loss curve is drawn as it is, up to this
DECADES = 1e3  # a loss curve that climbs this many times above L_R(0): a log axis


def _vline(x: float, color: str, name: str, dash: str = "dot", y0=0.0, y1=1.0) -> dict:
    return dict(type="line", x0=float(finite(x)), x1=float(finite(x)), y0=y0, y1=y1,
                yref="paper", line=dict(color=color, width=2, dash=dash), name=name)


# --- leaf maths ------------------------------------------------------------------------


def leaf_loss_of(trace, m: int, *, leaf: int = -1, sample: int = 0, k: int = 0,
                 typical: bool = False, height: int = 520, uirevision=None) -> go.Figure:
    """:func:`leaf_loss` of the selected leaf of tree m (of class k): ``leaf`` if it is
    one of tree m's, else the ``sample``'s, or with ``typical`` the tree's typical leaf
    (:func:`explorer.numbers.leaves.typical_leaf`: the Leaf maths page, at any round)."""
    if m < 1:
        return leaf_loss(None, m, -1, height=height, uirevision=uirevision)
    node, followed = resolve_leaf(trace, m, leaf, sample, k)
    if typical and followed:
        node = typical_leaf(trace, m, k)[0]
    return leaf_loss(leaf_story(trace, m, node, k=k), m, node, height=height,
                     uirevision=uirevision)


def leaf_loss(story: dict | None, m: int, node: int, *, height: int = 520,
              uirevision=None) -> go.Figure:
    """L_R(gamma) of a leaf, its quadratic Taylor approximation at 0, the one-step Newton
    value and the exact minimiser (or a note that a pure leaf has none).

    ``story`` is :func:`explorer.numbers.leaves.leaf_story` of leaf ``node`` of tree m
    (None at round 0, which has no tree: the chart says so); m and node title the chart.
    """
    if m < 1:
        return empty_figure(no_tree(), height)
    s = story  # the leaf story: every number the chart draws
    g = finite(s["gammas"])
    # the true values, however large (the exponential loss reaches 1e10 and beyond): never
    # NaN or inf, and not clipped to the charts' usual 1e6
    loss = finite(s["loss"], HUGE)
    taylor = finite(s["taylor"], HUGE)
    lo, hi = float(loss.min()), float(loss.max())
    positive = loss[loss > 0]
    # a curve that climbs many decades above the leaf's loss now (the exponential loss's
    # e^(−ỹγ)) is drawn on a log axis, else its minimum and the quadratic are squashed flat
    at_0 = float(np.interp(0.0, g, loss)) if g[0] <= 0.0 <= g[-1] else lo
    log = len(positive) == len(loss) and hi > DECADES * max(lo, at_0)
    if log:
        lo = float(positive.min())
        taylor_shown = np.clip(taylor, lo / 3.0, hi * 3.0)  # the quadratic, where it is > 0
        y_range = [float(np.log10(lo)) - 0.15, float(np.log10(hi)) + 0.15]
    else:
        # keep the quadratic from squashing the curve: clip it to the loss curve's range
        pad = max(hi - lo, 1e-9) * 0.5
        taylor_shown = np.clip(taylor, lo - pad, hi + pad)
        y_range = [lo - 0.1 * pad, hi + 0.1 * pad]
    data = [
        dict(type="scatter", x=g, y=loss, mode="lines", name="L_R(γ): the leaf's loss",
             line=dict(color=INK, width=3),
             hovertemplate="γ = %{x:.4f}<br>L_R = %{y:.6g}<extra></extra>"),
        dict(type="scatter", x=g, y=taylor_shown, mode="lines",
             name="Taylor at 0: L_R(0) − γΣr + ½γ²Σh", line=dict(color=BLUE, width=2.5,
                                                                  dash="dash"),
             hovertemplate="γ = %{x:.4f}<br>quadratic = %{y:.6g}<extra></extra>"),
    ]
    if s.get("regularised") is not None:  # λ > 0: the quadratic the rule minimises
        data.append(dict(type="scatter", x=g, y=np.clip(finite(s["regularised"], HUGE),
                                                        *_shown_range(taylor_shown)),
                         mode="lines", name="Taylor + ½λγ²: least at Σr / (Σh + λ)",
                         line=dict(color=PURPLE, width=2, dash="dot"),
                         hovertemplate="γ = %{x:.4f}<br>with ½λγ² = %{y:.6g}<extra></extra>"))
    newton = float(finite(s["newton"]))
    formula = s.get("newton_formula", "γ₁ = Σr / Σh")  # K classes: with (K - 1)/K
    points = [(newton, f"Newton step {formula}", ORANGE, "diamond", 16)]
    # Newton's method iterated finds the minimiser only when it converges
    found = not s["pure"] and s.get("stop_rule", CONVERGED) == CONVERGED
    if found:
        points.append((float(finite(s["exact"])), "exact minimiser γ*", GREEN, "star", 16))
    used = float(finite(s.get("used", s.get("value", newton))))
    # the value the fit uses, ringed: it may sit on the Newton step or the minimiser
    sym = s.get("symbol", "γ")
    stop = s.get("fit_stop")
    stopped = stop is not None and stop["rule"] != CONVERGED
    points.append((used, f"the value the fit uses, {sym} = {number(used, 6)}"
                   + (": where Newton's method stopped" if stopped else ""), RED,
                   "circle-open", 22))
    for x, name, color, symbol, size in points:
        y = float(np.interp(x, g, loss)) if g[0] <= x <= g[-1] else float(loss.min())
        data.append(dict(type="scatter", x=[x], y=[y], mode="markers", name=name,
                         marker=dict(color=color, size=size, symbol=symbol,
                                     line=dict(color=color if symbol.endswith("open")
                                               else "white", width=3 if symbol.endswith(
                                                   "open") else 1.5)),
                         hovertemplate=f"{esc(name)}<extra></extra>"))
    shapes = [_vline(newton, ORANGE, "newton"), _vline(used, RED, "used", dash="solid")]
    tree = s.get("tree", f"tree {m}")  # tree (m, k) with K >= 3 classes
    uses = f"uses {sym} = {number(used, 6)}"
    if s.get("rho") is not None:
        uses += f" (ρ<sub>{m}</sub> = {number(s['rho'], 6)} × mean {number(s['mean'], 6)})"
    elif s.get("lam"):
        uses += f" (λ = {number(s['lam'], 4)})"
    elif stopped:  # an exact leaf whose iterations ended short of a minimiser
        uses += (" (Newton's method stopped: Σh below its floor)" if stop["rule"] == FLOOR
                 else f" (Newton's method stopped at its {stop['steps']} steps' limit)")
    if s["pure"]:
        way = "+∞" if s.get("side", 1) > 0 else "−∞"
        title = (f"Leaf {node} of {tree}, pure (L_R falls as γ → {way}): the fit {uses}; "
                 f"Newton {number(newton, 4)}, no finite minimiser")
    elif not found:
        title = (f"Leaf {node} of {tree}: the fit {uses}; Newton {number(newton, 4)}, "
                 "the minimiser not reached by Newton's method")
    else:
        shapes.append(_vline(s["exact"], GREEN, "exact"))
        title = (f"Leaf {node} of {tree}: the fit {uses}; Newton {number(newton, 4)}, exact "
                 f"{number(s['exact'], 4)}, gap {number(s['gap'], 3)}")
    layout = base_layout(title, height, uirevision, shapes=shapes,
                     xaxis=dict(title=dict(text="γ (the leaf's step)")),
                     yaxis=dict(title=dict(text="Σ loss over the leaf"
                                           + (" (log scale)" if log else "")),
                                type="log" if log else "linear", range=y_range),
                     margin=dict(l=10, r=10, t=56, b=120),
                     legend=dict(orientation="h", x=0.0, y=-0.3, yanchor="top"))
    return make_figure(data, layout)


# --- split scan ------------------------------------------------------------------------


def split_scan(scans: list | None, m: int, node: int, *, feature_names=("x1", "x2"),
               height: int = 460, uirevision=None) -> go.Figure:
    """Gain against threshold at a node of tree m, for each feature and both split rules.

    ``scans`` is :func:`explorer.numbers.splits.scan` of that node (None at round 0,
    which has no tree: the chart says so). One row per rule (squared-error reduction;
    second-order gain), one column per feature; each rule's best threshold is ringed and
    the tree's chosen split is a vertical line in its feature's column.
    """
    if m < 1:
        return empty_figure(no_tree(), height)
    k = len(scans)
    gap = 0.08
    width = (1.0 - gap * (k - 1)) / k
    data, shapes, notes, axes = [], [], [], {}
    rules = (("squared_error", "squared-error reduction", INK),
             ("hessian", "second-order gain", ORANGE))
    for row, (field, label, color) in enumerate(rules):
        for col, sc in enumerate(scans):
            n = row * k + col + 1
            suffix = "" if n == 1 else str(n)
            x0 = col * (width + gap)
            ydom = [0.56, 1.0] if row == 0 else [0.0, 0.42]
            name = esc(feature_names[sc["feature"]] if sc["feature"] < len(feature_names)
                        else f"x{sc['feature'] + 1}")
            t = finite(sc["thresholds"])
            v = finite(sc[field])
            data.append(dict(type="scatter", x=t, y=v, mode="lines+markers" if len(t) < 80
                             else "lines", name=label, legendgroup=field,
                             showlegend=col == 0, line=dict(color=color, width=2),
                             marker=dict(size=4), xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                             hovertemplate=f"{name} ≤ %{{x:.4g}}: %{{y:.5g}}<extra>{label}"
                                           "</extra>"))
            best = sc["best"][field]
            if best is not None:
                data.append(dict(type="scatter", x=[t[best]], y=[v[best]], mode="markers",
                                 showlegend=False, xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                                 marker=dict(size=10, color=color, symbol="circle-open",
                                             line=dict(width=2)),
                                 hovertemplate=f"best by this rule: {name} ≤ "
                                               "%{x:.4g}<extra></extra>"))
            axes[f"xaxis{suffix}"] = dict(domain=[x0, x0 + width], anchor=f"y{suffix}",
                                          title=dict(text=f"threshold on {name}"
                                                     if row == 1 else ""))
            axes[f"yaxis{suffix}"] = dict(domain=ydom, anchor=f"x{suffix}",
                                          title=dict(text=label if col == 0 else ""))
            if sc["chosen"] is not None:
                c = float(finite(sc["chosen"]))
                shapes.append(dict(type="line", x0=c, x1=c, y0=0, y1=1,
                                   xref=f"x{suffix}", yref=f"y{suffix} domain",
                                   line=dict(color=GREEN, width=2.5, dash="dash")))
                if row == 0:
                    notes.append(dict(text=f"chosen: {name} ≤ {number(c, 4)}", x=c, y=1.0,
                                      xref=f"x{suffix}", yref=f"y{suffix} domain",
                                      showarrow=False, yanchor="bottom",
                                      font=dict(color=GREEN, size=13)))
    if not any(sc["chosen"] is not None for sc in scans):
        notes.append(dict(text="this node is a leaf: no split was made here", x=0.5, y=0.5,
                          xref="paper", yref="paper", showarrow=False,
                          font=dict(color=MUTED, size=15)))
    layout = base_layout(f"Node {node} of tree {m}: every candidate split, both rules", height,
                     uirevision, shapes=shapes, annotations=notes,
                     margin=dict(l=10, r=10, t=70, b=90), **axes)
    return make_figure(data, layout)
