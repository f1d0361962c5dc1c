"""The layout rule: no text on other text, none past the edge.

Every figure goes through :func:`arrange` (in :func:`make_figure`, ``presented`` and
``explorer.export.for_export``). Plotly places each piece of text on its own, and pushes
a margin by the largest of the pieces that want it, not their sum: a legend below the
plot then lands on the x-axis title. The rule places them itself, from the sizes of
their text:

- below the plot, top to bottom: the x axes' tick labels and titles, a horizontal
  colour bar, the legend (one row or several, wrapped at the chart's width), the
  animation controls; the bottom margin holds all of them;
- a title wider than the chart wraps (at its clauses first: after ":" or ",", before
  "("), anchored at the top, and the top margin grows by its extra lines;
- an axis title longer than its axis wraps to its axis's length, so the y titles of
  stacked subplots stay beside their own plots; a figure of its own grows until each
  y title's longest word fits beside its plot;
- labels in the data (annotations named LABEL, such as a leaf's γ) that would meet
  one another are left out, to the hover.

Sizes are estimated from the number of characters (CHAR_EM of the font size each,
a little more than Chromium's sans-serif needs), at the figure's width when it has one
(a file) or at the narrowest width the app draws a chart (CHART_MIN_WIDTH: a phone's
column; in presenter mode, a projector's: PRESENTER_MIN_WIDTH times the type's scale).
"""

from __future__ import annotations

import html
import re

from .theme import FONT

# px: a phone's column (356 px in a 390 px window, Streamlit's columns stacked; 342 px in
# the lesson file's), narrower than a half-width column beside the sidebar in a 1280 px
# window (370 px); a wider chart only has room to spare
CHART_MIN_WIDTH = 340
# px: presenter mode's narrowest chart per unit of its type's scale: a half-width column
# beside the sidebar in a 1280 px window. Presenter mode is laid out for a projector, not
# a phone (its larger titles would take more lines, and its plots less height)
PRESENTER_MIN_WIDTH = 370
CHAR_EM = 0.47  # a character's advance, in ems of its font (measured: about 0.42)
LINE_EM = 1.3  # a line's height, in ems
_RULE = "layout_rule"  # the figure's own margins and height, kept in layout.meta
LABELS_PLACED = "labels_placed"  # in layout.meta: the figure placed its data labels itself
PLOT_PX = "plot_px"  # in layout.meta: the plotting area's height, the figure's grows to it
# in layout.meta: the narrowest column the figure is drawn in where it is narrower than a
# chart's (a sweep's cell among four or five across): its text is wrapped to it
COLUMN_PX = "column_px"
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


def _widest(text, size: float) -> float:
    """The width of the widest line of ``text`` (px)."""
    return max(text_width(line, size) for line in _BREAK.split(text or ""))


def _lines(text) -> int:
    return len(_BREAK.findall(text or "")) + 1 if text else 0


def _font(node, fallback: float) -> float:
    font = (node or {}).get("font") if isinstance(node, dict) else None
    return float(font.get("size") or fallback) if isinstance(font, dict) else fallback


_AXIS = {letter: re.compile(letter + r"axis\d*") for letter in "xy"}


def _axes(layout: dict, letter: str) -> dict:
    return {key: value for key, value in layout.items()
            if _AXIS[letter].fullmatch(key) and isinstance(value, dict)}


def _span(axis: dict) -> float:
    """The fraction of the plotting area an axis's domain spans."""
    lo, hi = axis.get("domain") or (0.0, 1.0)
    return float(hi - lo)


def _title_text(node) -> str:
    title = node.get("title") if isinstance(node, dict) else None
    if isinstance(title, dict):
        return title.get("text") or ""
    return title or ""


def _legend_traces(data: list) -> list[dict]:
    return [t for t in data
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
    # presenter mode hides the sidebar: its narrowest chart, on a laptop, is about k times
    # as wide as a half-width column beside the sidebar (not a phone's: see the docstring)
    W = float(width or layout.get("width") or meta.get(COLUMN_PX)
              or (CHART_MIN_WIDTH if k == 1.0 else PRESENTER_MIN_WIDTH * k))
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
            # every line of it: plotly.js sets a subtitle under the title, in the margin
            extra_top += _lines(sub["text"]) * _font(sub, fs) * LINE_EM
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
        room = (W - side - 60 * k) * _span(axis)
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
    entries = _legend_traces(data)
    shown = len(entries) > 1 or any(trace.get("showlegend") is True for trace in data)
    if layout.get("showlegend", shown) and entries:
        lfs = _font(legend, fs)
        # an entry longer than the chart is wide (a phone's) wraps, its swatch beside it
        room = W - side - 40 * k
        for entry in entries:
            if _widest(entry.get("name"), lfs) > room:
                entry["name"] = wrap(entry["name"], lfs, room)
        widths = [40 * k + _widest(entry.get("name"), lfs) for entry in entries]
        lines = max(_lines(entry.get("name")) or 1 for entry in entries)
        stack.append((legend, _rows(widths, W - side) * lines * lfs * LINE_EM * 1.15 + 10 * k))
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
                   / _span(a)
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
        room = plot * _span(axis) - 8 * k
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
        sx = (width - 60 * k) * _span(xa) / (x1 - x0)
        sy = plot * _span(ya) / (y1 - y0)
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
