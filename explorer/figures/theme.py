"""The charts' common look and small helpers: colours, templates, presenter mode,
finite numbers, escaped text and the pieces every plane view shares.

No Streamlit here. Every array handed to plotly goes through :func:`finite`, so no
NaN or inf ever reaches a chart; text that may come from an upload (feature, label
and class names) goes through :func:`esc`: plotly renders a small subset of HTML in
its labels. Figures are assembled from plain dicts and turned into a ``go.Figure``
in one validated call (:func:`make_figure`): plotly's incremental ``add_trace`` /
``update_layout`` cost 30-100 ms a chart, the one-shot build about 3 ms.

Colours: class 0 is blue, class 1 is orange, everywhere. Diverging scales use the
same two hues, so "orange" always means "towards class 1". A regression's target
and F share one sequential scale (VALUE_SCALE).
"""

from __future__ import annotations

import html
import re
import textwrap
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ..numbers.grid import boundary_lines

BLUE, ORANGE = "#2a6bb0", "#e6730b"
CLASS_COLORS = (BLUE, ORANGE)
INK = "#1f2328"
MUTED = "#6b7280"
TRAIN_COLOR, VALID_COLOR = "#1f2328", "#8e44ad"
# p(class 1) background: light tints so that the points stand out on it.
PROBA_SCALE = [[0.0, "#7fb0e0"], [0.25, "#c4daf1"], [0.5, "#f7f7f7"],
               [0.75, "#fbd3ae"], [1.0, "#f5a35a"]]
# Signed quantities (residuals, leaf values, F): saturated blue - white - orange.
DIVERGING = [[0.0, "#174a85"], [0.2, "#4f8cc9"], [0.4, "#bcd5ee"], [0.5, "#f4f4f4"],
             [0.6, "#f9c99a"], [0.8, "#e8822a"], [1.0, "#a34a00"]]
# A regression's target values and F: sequential, light to dark (no sign to show).
VALUE_SCALE = "Viridis"
FONT_FAMILY = "Inter, Segoe UI, Helvetica, Arial, sans-serif"
FONT = dict(family=FONT_FAMILY, size=15, color=INK)
BIG = 1e6  # any displayed magnitude is clipped to this
# Above this many points a chart draws them with WebGL: measured in headless Chromium
# at N = 2,000, a step took 1.4 s with WebGL against 2.2-2.7 s with one SVG node per point.
GL_POINTS = 300


def scatter_type(n: int) -> str:
    return "scattergl" if n > GL_POINTS else "scatter"

_AXIS = dict(gridcolor="#e8eaed", linecolor="#c9ced6", zerolinecolor="#d5d9df",
             ticks="outside", tickcolor="#c9ced6", automargin=True, showline=True)
# A small explicit template (plotly's named ones are large and copied into each figure).
TEMPLATE = dict(layout=dict(xaxis=_AXIS, yaxis=_AXIS, colorway=[INK, ORANGE, BLUE, MUTED],
                            paper_bgcolor="white", plot_bgcolor="white",
                            hoverlabel=dict(font=dict(size=14, family=FONT_FAMILY))))
# The light theme for projectors and print: the screen's template with opaque white
# everywhere and axis lines and ticks dark enough to survive a washed-out projector.
# Presenter mode (``presenter.presented``) and every exported file (``explorer.exports``)
# use it.
_PRINT_AXIS = dict(linecolor="#8c95a1", tickcolor="#8c95a1", tickfont=dict(color=INK))
PRINT_TEMPLATE = go.layout.Template(TEMPLATE)
PRINT_TEMPLATE.layout.update(
    paper_bgcolor="white", plot_bgcolor="white", xaxis=_PRINT_AXIS, yaxis=_PRINT_AXIS,
    legend=dict(bgcolor="white"), font=dict(family=FONT_FAMILY, color=INK))


# --- the layout rule: no text on other text, none past the edge ------------------------
#
# Every figure goes through :func:`arrange` (in :func:`make_figure`, ``presented`` and
# ``explorer.export.for_export``). Plotly places each piece of text on its own, and pushes
# a margin by the largest of the pieces that want it, not their sum: a legend below the
# plot then lands on the x-axis title. The rule places them itself, from the sizes of
# their text:
#
# - below the plot, top to bottom: the x axes' tick labels and titles, a horizontal
#   colour bar, the legend (one row or several, wrapped at the chart's width), the
#   animation controls; the bottom margin holds all of them;
# - a title wider than the chart wraps (at its clauses first: after ":" or ",", before
#   "("), anchored at the top, and the top margin grows by its extra lines;
# - an axis title longer than its axis wraps to its axis's length, so the y titles of
#   stacked subplots stay beside their own plots; a figure of its own grows until each
#   y title's longest word fits beside its plot;
# - labels in the data (annotations named LABEL, such as a leaf's γ) that would meet
#   one another are left out, to the hover.
#
# Sizes are estimated from the number of characters (CHAR_EM of the font size each,
# a little more than Chromium's sans-serif needs), at the figure's width when it has one
# (a file) or at the narrowest width the app draws a chart (CHART_MIN_WIDTH, times the
# type's scale in presenter mode, which hides the sidebar).

CHART_MIN_WIDTH = 370  # px: a half-width column beside the sidebar in a 1280 px window
CHAR_EM = 0.47  # a character's advance, in ems of its font (measured: about 0.42)
LINE_EM = 1.3  # a line's height, in ems
_RULE = "layout_rule"  # the figure's own margins and height, kept in layout.meta
LABELS_PLACED = "labels_placed"  # in layout.meta: the figure placed its data labels itself
PLOT_PX = "plot_px"  # in layout.meta: the plotting area's height, the figure's grows to it
MAP_PLOT_PX = 340  # the Model page's two maps: the same plotting area, side by side
MAP_SIDE_PX = 90  # and the same room beside it (a colour bar's, kept when there is none)
_BREAK = re.compile(r"<br\s*/?>", re.I)
_TAG = re.compile(r"<[^>]*>")
_CLAUSE = re.compile(r"(?<=[:;,])\s+|\s+(?=\()")


def text_width(text: str, size: float) -> float:
    """Estimated width in px of one line of plotly label text (tags and entities
    count as what they show) at font size ``size``."""
    return len(html.unescape(_TAG.sub("", text))) * CHAR_EM * size


_SYMBOL = re.compile(r"<(sub|sup)>.*?</\1>|tree \(\d+, \d+\)", re.I)
_KEEP = "\x00"  # a space inside a symbol, while the text is cut into lines


def _unbreakable(match: re.Match) -> str:
    return re.sub(r"\s", _KEEP, match.group(0))


def wrap(text: str, size: float, room: float) -> str:
    """``text`` in lines (joined by <br>) no wider than ``room`` px: whole clauses
    where they fit, else words. Line breaks it already has are undone first, so a
    text can be wrapped again for another width. A symbol is never cut: a sub- or
    superscript (F<sub>2, 0</sub>) and a tree's name (tree (3, 0)) stay whole."""
    text = _BREAK.sub(" ", text or "").strip()
    if text_width(text, size) <= room:
        return text
    text = _SYMBOL.sub(_unbreakable, text)
    lines, line = [], ""
    for clause in _CLAUSE.split(text):
        for piece in ([clause] if text_width(clause, size) <= room else clause.split(" ")):
            joined = f"{line} {piece}" if line else piece
            if line and text_width(joined, size) > room:
                lines.append(line)
                joined = piece
            line = joined
    return "<br>".join(lines + [line]).replace(_KEEP, " ")


def _lines(text) -> int:
    return len(_BREAK.findall(text or "")) + 1 if text else 0


def _font(node, fallback: float) -> float:
    font = (node or {}).get("font") if isinstance(node, dict) else None
    return float(font.get("size") or fallback) if isinstance(font, dict) else fallback


def _axes(layout: dict, letter: str) -> dict:
    return {key: value for key, value in layout.items()
            if re.fullmatch(letter + r"axis\d*", key) and isinstance(value, dict)}


def _title_text(node) -> str:
    title = node.get("title") if isinstance(node, dict) else None
    if isinstance(title, dict):
        return title.get("text") or ""
    return title or ""


def _legend_entries(data: list) -> list[str]:
    return [t.get("name") or "" for t in data
            if t.get("showlegend") is not False and t.get("visible", True) is not False
            and t.get("type", "scatter") in ("scatter", "scattergl", "bar")]


def _rows(widths: list[float], room: float) -> int:
    """Rows of a horizontal legend: one if its entries fit side by side, else plotly.js
    puts them in columns as wide as the widest entry."""
    if not widths or sum(widths) <= room:
        return 1
    columns = max(1, int(room // max(widths)))
    return -(-len(widths) // columns)


def arrange(spec: dict, scale: float | None = None, width: float | None = None,
            height: float | None = None) -> dict:
    """The layout rule (above), applied to a figure's spec (``data``, ``layout``,
    ``frames`` as plain dicts) in place; returns the spec.

    ``scale`` is how much larger than the figure's own the type is (presenter mode);
    ``width`` and ``height`` the size it is drawn at, when known (a file). Without a
    height the figure keeps its own (taller only where stacked y titles need it); with
    a scale, the plotting area grows by half as much, the margins by what they hold.
    The figure's own margins and height are kept in ``layout.meta``, so that the rule
    can be applied again at another scale or size.
    """
    layout = spec.setdefault("layout", {})
    data = spec.get("data") or []
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    margin = dict(layout.get("margin") or {})
    # the figure's own margins and height (at its own type size), kept from the first call
    own = meta.get(_RULE) or dict(t=margin.get("t", 56), b=margin.get("b", 10),
                                  height=layout.get("height") or 450, plot=None, scale=1.0)
    k = float(scale if scale is not None else own["scale"])
    # presenter mode hides the sidebar: its narrowest chart is about k times as wide
    W = float(width or layout.get("width") or CHART_MIN_WIDTH * k)
    fs = _font(layout, FONT["size"])
    side = 10 * k + (margin.get("l", 10) + margin.get("r", 10))

    # the title: wrapped to the width, at the top
    title = layout.get("title")
    extra_top = 0.0
    if isinstance(title, dict) and title.get("text"):
        tfs = _font(title, fs)
        texts = [title] + [f["layout"]["title"] for f in spec.get("frames") or []
                           if isinstance(f.get("layout", {}).get("title"), dict)]
        lines = 1
        for t in texts:
            t["text"] = wrap(t.get("text", ""), tfs, W - side)
            lines = max(lines, _lines(t["text"]))
        sub = title.get("subtitle")
        if isinstance(sub, dict) and sub.get("text"):
            sub["text"] = wrap(sub["text"], _font(sub, fs), W - side)
            extra_top += (_lines(sub["text"]) - 1) * _font(sub, fs) * LINE_EM
        # plotly.js anchors a title of several lines 0.9 em higher than one of one line
        shift = 0.9 * tfs if lines > 1 else 0.0
        extra_top += (lines - 1) * tfs * LINE_EM + shift / 4
        title.update(y=1.0, yref="container", yanchor="top",
                     pad=dict(t=round(10 * k + shift), b=0, l=round(10 * k), r=0))
    t = round(own["t"] * k + extra_top)

    # below the plot: each bottom x axis's tick labels and title
    ys = _axes(layout, "y")
    xs = _axes(layout, "x") or ({"xaxis": {}} if data else {})
    def bottom_of(axis):
        anchor = axis.get("anchor", "y")
        dom = (ys.get("yaxis" + anchor[1:], {}) or {}).get("domain") if anchor[:1] == "y" else None
        return (dom or [0.0, 1.0])[0]
    lowest = min((bottom_of(a) for a in xs.values()), default=0.0)
    below = 0.0
    for axis in xs.values():
        if axis.get("visible") is False or bottom_of(axis) > lowest + 1e-9 \
                or axis.get("side") == "top":
            continue
        room = (W - side - 60 * k) * float(np.diff(axis.get("domain") or [0.0, 1.0])[0])
        here = 0.0
        if axis.get("showticklabels", True):
            here += 9 * k + _font({"font": axis.get("tickfont")}, fs) * LINE_EM
        text = _title_text(axis)
        if text and isinstance(axis.get("title"), dict):
            tfs = _font(axis.get("title"), fs)
            axis["title"]["text"] = wrap(text, tfs, room)
            here += 14 * k + _lines(axis["title"]["text"]) * tfs * LINE_EM
        below = max(below, here)
    stack = []  # (thing to place, its height) under the axes, in order
    for bar in _horizontal_colorbars(layout, data):
        bar.setdefault("title", {})["side"] = "top"  # beside the bar it meets the end tick
        bar_fs = _font({"font": bar.get("tickfont")}, fs)
        stack.append((bar, _font(bar.get("title"), fs) * LINE_EM + bar.get("thickness", 30)
                      + 8 * k + bar_fs * LINE_EM))
    legend = layout.setdefault("legend", {})
    entries = _legend_entries(data)
    shown = len(entries) > 1 or any(t.get("showlegend") is True for t in data)
    if layout.get("showlegend", shown) and entries:
        lfs = _font(legend, fs)
        widths = [40 * k + text_width(name, lfs) for name in entries]
        stack.append((legend, _rows(widths, W - side) * lfs * LINE_EM * 1.15 + 10 * k))
    controls = [c for key in ("updatemenus", "sliders") for c in layout.get(key) or []]
    if controls:
        stack.append((controls, 90 * k))
    # Larger type (presenter mode): the plot grows a little, as much as the room under
    # it, so that the legend keeps its place relative to the plot (its y times k).
    grow = 1.0 + (k - 1.0) / 2 if (height is None and k != 1.0
                                   and own["plot"] is not None) else 1.0
    gap = 12 * k
    needed = grow * (below + sum(gap + h for _, h in stack)) + 8 * k
    b = round(max(own["b"] * k, needed))
    if height is not None:
        H = float(height)
    elif meta.get(PLOT_PX):  # maps side by side: one plotting height, whatever is below
        H = float(meta[PLOT_PX]) * grow + t + b
    elif grow != 1.0:
        H = own["plot"] * grow + t + b
    else:
        H = float(own["height"])
    plot = max(H - t - b, 1.0)
    # stacked subplots: the plot is tall enough for each y title's longest word
    ys_titled = [(a, _font(a.get("title"), fs), _title_text(a)) for a in ys.values()
                 if _title_text(a) and isinstance(a.get("title"), dict)
                 and a.get("visible") is not False]
    tallest = max((( max(text_width(w, tfs) for w in _BREAK.sub(" ", text).split()) + 8 * k)
                   / float(np.diff(a.get("domain") or [0.0, 1.0])[0])
                   for a, tfs, text in ys_titled), default=0.0)
    if height is None and plot < tallest:
        H += tallest - plot
        plot = tallest
    offset = below + gap
    for thing, h in stack:
        for item in (thing if isinstance(thing, list) else [thing]):
            item.update(y=-grow * offset / plot, yanchor="top")
        offset += h + gap
    legend.update(orientation="h", x=0.0, xanchor="left")

    # beside the plot: y titles no longer than their axes
    for axis, tfs, text in ys_titled:
        room = plot * float(np.diff(axis.get("domain") or [0.0, 1.0])[0]) - 8 * k
        axis["title"]["text"] = wrap(text, tfs, room)

    bar = any(key.startswith("coloraxis") for key in layout) or any(
        t.get("type") == "heatmap" or (isinstance(t.get("marker"), dict)
                                       and "colorbar" in t["marker"]) for t in data)
    _leave_out_crowded_labels(layout, W - side - (90 * k if bar else 0.0), plot, k, fs)
    margin.update(t=t, b=b)
    layout["margin"] = margin
    if height is None:
        layout["height"] = round(H)
    if own["plot"] is None:
        own = dict(own, plot=plot)
    layout["meta"] = dict(meta, **{_RULE: dict(own, scale=k)})
    return spec


LABEL = "label"  # the name of an annotation the rule may leave out (the hover has its text)


def is_label(note) -> bool:
    """A data label: an annotation named LABEL, or LABEL:<what it labels> (a leaf's γ)."""
    name = note.get("name") if isinstance(note, dict) else None
    return isinstance(name, str) and (name == LABEL or name.startswith(LABEL + ":"))


def _leave_out_crowded_labels(layout: dict, width: float, plot: float, k: float,
                              fs: float) -> None:
    """Labels in data coordinates (annotations named :data:`LABEL`, such as a leaf's γ)
    that would meet a label kept before them are not drawn (``opacity`` 0: unlike
    ``visible``, a change of it redraws the label alone in plotly.js, and its hover stays)."""
    if (layout.get("meta") or {}).get(LABELS_PLACED):
        return
    kept: dict[tuple, list] = {}
    for note in layout.get("annotations") or []:
        if not is_label(note):
            continue
        xref, yref = note.get("xref", "x"), note.get("yref", "y")
        xa, ya = layout.get("xaxis" + xref[1:], {}), layout.get("yaxis" + yref[1:], {})
        if not (xa.get("range") and ya.get("range")):
            continue
        (x0, x1), (y0, y1) = xa["range"], ya["range"]
        sx = (width - 60 * k) * float(np.diff(xa.get("domain") or [0, 1])[0]) / (x1 - x0)
        sy = plot * float(np.diff(ya.get("domain") or [0, 1])[0]) / (y1 - y0)
        if ya.get("scaleanchor"):
            sx = sy = min(sx, sy)
        size = _font(note, fs)
        lines = _BREAK.split(note.get("text") or "")
        pad = 2 * (note.get("borderpad", 1) + note.get("borderwidth", 1)) + 2 * k
        w = max(text_width(line, size) for line in lines) + pad
        h = len(lines) * size * LINE_EM + pad
        cx = (note["x"] - x0) * sx + note.get("xshift", 0)
        cy = (note["y"] - y0) * sy + note.get("yshift", 0)
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        others = kept.setdefault((xref, yref), [])
        crowded = any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3]
                      for o in others)
        note["opacity"] = 0.0 if crowded else 1.0
        if not crowded:
            others.append(box)


def _horizontal_colorbars(layout: dict, data: list) -> list[dict]:
    bars = [axis.get("colorbar") for key, axis in layout.items()
            if key.startswith("coloraxis") and isinstance(axis, dict)]
    bars += [t.get("colorbar") for t in data]
    bars += [t.get("marker", {}).get("colorbar") for t in data
             if isinstance(t.get("marker"), dict)]
    return [b for b in bars if isinstance(b, dict) and b.get("orientation") == "h"]


# --- small helpers -------------------------------------------------------------------


def finite(a, big: float = BIG) -> np.ndarray:
    """A float64 copy of ``a`` with NaN -> 0 and every value clipped to [-big, big]."""
    a = np.nan_to_num(np.asarray(a, dtype=np.float64), nan=0.0, posinf=big, neginf=-big)
    return np.clip(a, -big, big)


def num(x: float, digits: int = 4) -> str:
    """A number in at most ``digits`` significant digits, never 'nan' or 'inf'."""
    x = float(finite(x))
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def signed(x: float, digits: int = 3) -> str:
    s = num(x, digits)
    return s if s.startswith("-") or s == "0" else "+" + s


def esc(text) -> str:
    """User text for plotly's label text, escaped once: ``&``, ``<`` and ``>`` become
    ``&amp;``, ``&lt;`` and ``&gt;``, which plotly.js draws as those characters, so the
    text never becomes markup and shows exactly as typed. Quotes stay as they are:
    plotly.js does not know ``&quot;`` and would show it as it is written."""
    return html.escape(str(text), quote=False)


_PLAIN = threading.local()


@contextmanager
def plain():
    """Inside, figures come back as their arranged plain dicts, not validated: what the
    per-round tables are made of (:mod:`.bindings`), ten times cheaper than a go.Figure."""
    before = getattr(_PLAIN, "on", False)
    _PLAIN.on = True
    try:
        yield
    finally:
        _PLAIN.on = before


def finished(spec: dict):
    """A spec already laid out, as a validated go.Figure (the plain dict inside
    :func:`plain`)."""
    return spec if getattr(_PLAIN, "on", False) else go.Figure(spec)


def make_figure(data: list, layout: dict) -> go.Figure:
    """One validated go.Figure from plain dicts, laid out by :func:`arrange`."""
    return finished(arrange(dict(data=data, layout=layout)))


def map_size(panel=None, bar: bool = True) -> dict:
    """base_layout's settings for a map drawn beside another (the Model page's two): one
    plotting height (MAP_PLOT_PX), and the room of a colour bar beside it even without
    one, so that the two squares come out the same size. Nothing for a panel of a
    storyboard (its grid sets the sizes)."""
    if panel is not None and panel != ALONE:
        return {}
    return dict(meta={PLOT_PX: MAP_PLOT_PX},
                margin=dict(l=10, r=10 if bar else 10 + MAP_SIDE_PX, t=56, b=10))


def base_layout(title: str, height: int, uirevision=None, **extra) -> dict:
    layout = dict(
        template=TEMPLATE,
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=18)),
        font=FONT,
        height=height,
        margin=dict(l=10, r=10, t=56, b=10),
        uirevision=uirevision,
        legend=dict(orientation="h", x=0.0, y=-0.16, yanchor="top"),
    )
    layout.update(extra)
    return layout


@dataclass(frozen=True)
class Panel:
    """Where and how a view is drawn when it is one panel of a larger figure.

    A storyboard draws each round with its own Panel and puts the views' traces and
    layout pieces together as they are; the default, ``Panel()``, is a figure of its
    own and leaves the view exactly as it would be without one.

    Attributes
    ----------
    index : int
        The panel's axes: x/y for 1, x2/y2 for 2, and so on.
    x_domain, y_domain : (float, float) or None
        The axes' place in the figure (fractions of its plotting area).
    x_labels, y_labels : bool
        Tick labels and title on that axis; panels of a grid share their ranges, so
        only the outer ones need them.
    legend : bool
        Legend entries (a grid shows them once, from its first panel).
    coloraxis : bool
        Colour the traces through ``layout.coloraxis`` instead of each trace's own
        scale, so that panels drawn on one range (the views' ``scale``/``vmax``) share
        one colour bar.
    colorbar_len : float or None
        Length of that colour bar, as a fraction of the figure's height.
    message_width : int or None
        A message shown instead of a chart (such as "Round 0 has no tree") is wrapped
        to lines of this many characters, to fit a narrow panel.
    """

    index: int = 1
    x_domain: tuple[float, float] | None = None
    y_domain: tuple[float, float] | None = None
    x_labels: bool = True
    y_labels: bool = True
    legend: bool = True
    coloraxis: bool = False
    colorbar_len: float | None = None
    message_width: int | None = None

    @property
    def suffix(self) -> str:
        return "" if self.index == 1 else str(self.index)

    @property
    def xaxis(self) -> str:
        return f"x{self.suffix}"

    @property
    def yaxis(self) -> str:
        return f"y{self.suffix}"

    @property
    def placed(self) -> bool:
        """Drawn on named axes inside a larger figure (not a figure of its own)."""
        return self.index != 1 or self.x_domain is not None or self.y_domain is not None

    def trace(self, trace: dict) -> dict:
        """A trace being built, put on this panel's axes (and out of the legend)."""
        if self.placed:
            trace.update(xaxis=self.xaxis, yaxis=self.yaxis)
        if not self.legend:
            trace["showlegend"] = False
        return trace

    def ref(self, item: dict) -> dict:
        """A shape or annotation in data coordinates, put on this panel's axes."""
        if self.placed:
            item.update(xref=self.xaxis, yref=self.yaxis)
        return item

    def paper(self, letter: str, *fractions: float) -> list[float]:
        """Fractions of this panel's width ("x") or height ("y") as positions on the
        whole figure (plotly's "paper" coordinates)."""
        lo, hi = (self.x_domain if letter == "x" else self.y_domain) or (0.0, 1.0)
        return [lo + f * (hi - lo) for f in fractions]

    def axes(self, x: dict, y: dict) -> dict:
        """The layout entries of the panel's x and y axes, given their own settings."""
        for axis, other, domain, labels in ((x, self.yaxis, self.x_domain, self.x_labels),
                                            (y, self.xaxis, self.y_domain, self.y_labels)):
            if self.placed:
                axis["anchor"] = other
            if domain is not None:
                axis["domain"] = list(domain)
            if not labels:
                axis.update(title=dict(text=""), showticklabels=False)
        return {f"xaxis{self.suffix}": x, f"yaxis{self.suffix}": y}

    def colour(self, own: dict) -> dict:
        """A trace's colour settings: its ``own`` scale, or the shared colour axis."""
        return dict(coloraxis="coloraxis") if self.coloraxis else own

    def colour_axis(self, colorscale, lo: float, hi: float, bar: dict) -> dict:
        """The layout's shared colour axis (empty unless ``coloraxis``): the scale on
        [lo, hi] and its colour bar ``bar``."""
        if not self.coloraxis:
            return {}
        if self.colorbar_len is not None:
            bar = dict(bar, len=self.colorbar_len)
        return dict(coloraxis=dict(colorscale=colorscale, cmin=lo, cmax=hi, colorbar=bar))

    def message(self, text: str) -> str:
        if self.message_width is None:
            return text
        return "<br>".join(textwrap.wrap(text, self.message_width))


ALONE = Panel()  # a figure of its own


def plane_axis(lo: float, hi: float, name: str, **extra) -> dict:
    return dict(range=[lo, hi], title=dict(text=esc(name)), showgrid=False, zeroline=False,
                constrain="domain", **extra)


def plane_layout(grid, names, panel: Panel = ALONE) -> dict:
    """Equal-aspect x/y axes over the plane, labelled with the feature names."""
    x = plane_axis(grid.lo[0], grid.hi[0], names[0], anchor=panel.yaxis)
    y = plane_axis(grid.lo[1], grid.hi[1], names[1], anchor=panel.xaxis)
    if grid.equal_aspect:
        y.update(scaleanchor=panel.xaxis, scaleratio=1)
    return panel.axes(x, y)


def marker_size(n: int) -> float:
    return 10 if n <= 200 else 8 if n <= 800 else 6 if n <= 3000 else 4


def boundary_trace(grid, F, *, color=INK, width=2.5, dash="solid", name="boundary p = 0.5",
              showlegend=True, axes=("x", "y")) -> dict:
    """The decision boundary F = 0 (p = 0.5), computed here as axis-aligned lines.

    (A plotly contour would make the browser trace it at every step, and would draw
    diagonals where a tree ensemble's boundary only has steps.)
    """
    px, py = boundary_lines(grid.xs, grid.ys, F)
    return dict(type="scatter", x=px, y=py, mode="lines", connectgaps=False,
                line=dict(color=color, width=width, dash=dash), hoverinfo="skip",
                name=name, showlegend=showlegend, xaxis=axes[0], yaxis=axes[1])


def f32(a) -> np.ndarray:
    """Finite float32 for bulky arrays sent to the browser (half the bytes of float64)."""
    return finite(a).astype(np.float32)


def round_marker(x, y, color: str, *, xref: str = "x", yref: str = "y", size: float = 14,
                 outline: str = "white", outline_width: float = 2) -> dict:
    """Round m's marker on a line: a disc of ``size`` pixels centred on (x, y), a shape
    rather than a trace, so that the browser moves it to another round by changing the
    layout alone (plotly.js redraws the shape, not the chart's traces)."""
    r = size / 2
    return dict(type="circle", xref=xref, yref=yref, xsizemode="pixel", ysizemode="pixel",
                xanchor=float(x), yanchor=float(finite(y)), x0=-r, x1=r, y0=-r, y1=r,
                fillcolor=color, line=dict(color=outline, width=outline_width), layer="above")


def selected_ring(x, y, label: str, n_points: int = 0) -> dict:
    """A ring around the selected sample, of the points' kind so that it is drawn above
    them (plotly draws WebGL traces over SVG ones)."""
    return dict(type=scatter_type(n_points), x=[float(finite(x))], y=[float(finite(y))],
                mode="markers", name=label, hoverinfo="skip", showlegend=True,
                marker=dict(symbol="circle-open", size=22, color=INK, line=dict(width=3.5)))


def class_names(classes) -> tuple[str, str]:
    """Legend names of the two classes, escaped."""
    if classes is None or len(classes) != 2:
        return ("class 0", "class 1")
    return tuple(f"class {esc(c)}" for c in classes)


def colorbar(title: str, side: str = "right", **extra) -> dict:
    return dict(title=dict(text=title, side=side), thickness=14, len=0.8, outlinewidth=0,
                **extra)


def empty_figure(message: str, height: int = 420, panel: Panel = ALONE) -> go.Figure:
    """A blank chart carrying a message (e.g. round 0 has no tree)."""
    (x,), (y,) = panel.paper("x", 0.5), panel.paper("y", 0.5)
    note = dict(text=panel.message(message), x=x, y=y, xref="paper", yref="paper",
                showarrow=False, font=dict(size=18, color=MUTED))
    if panel.placed:  # centred in its cell (plotly anchors by the third of the figure)
        note.update(xanchor="center", yanchor="middle")
    return make_figure([], base_layout(
        "", height, annotations=[note],
        **panel.axes(dict(visible=False), dict(visible=False))))
