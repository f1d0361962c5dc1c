"""Presenter mode: a chart made for a projector, from the chart made for a screen.

Pure (no Streamlit): the app's presenter mode applies :func:`presented` to every chart, so
every view gets the same look from one piece of code.
"""

from __future__ import annotations

import base64
import copy

import numpy as np
import plotly.graph_objects as go

from .layout import LABELS_PLACED, PLOT_PX, arrange, is_label
from .leaf_labels import PLOT_PX as LABELS_PLOT_PX
from .panels import finished, finite
from .theme import FONT, PRINT_TEMPLATE

# Presenter mode is for a projector, whose window is short: 1280 x 720 (a shared screen in
# a video call too) or 1024 x 768. There the page's header folds away above the round bar
# (explorer/app/context.py) and the first row of charts starts 139 px down (measured at
# both sizes): a chart PRESENT_ROW_HEIGHT tall ends at 679 px. The tree's regions keep
# the plot their labels were placed for and the split scan is sized by its content: at
# the app's first settings they end at 686-709 and 702 px. Rows below may need a scroll.
# Python cannot see the window, so a taller one gets the same charts, and more of the
# next row.
PRESENT_SCALE = 1.2  # type, markers and lines this much larger: ticks 15 -> 18 px
PRESENT_MIN_TEXT = 18  # px: the least size of titles and tick labels, read from the back
PRESENT_ROW_HEIGHT = 540  # px: a chart's height, where its text keeps its room in it
PRESENT_MIN_PLOT = 140  # px: the plotting area gives up height to the budget down to this
# px: the plotting height of maps side by side (the Model page's two): the row's height
# less the margins of the map with the most around it (the probability map: a title line
# and its colour bar below, 67 + 180 px at 18 px type), so that both fit and their plots
# stay level
PRESENT_MAP_PLOT = 290


def _scaled(value, k: float):
    """A size (a number, a list, an array or plotly's typed array) times k."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) * k
    if isinstance(value, dict) and "bdata" in value:
        value = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    if isinstance(value, (list, tuple, np.ndarray)):
        # in float32, whether the figure came validated (its arrays as typed arrays) or
        # plain: both give the same bytes
        return finite(value).astype(np.float32) * np.float32(k)
    return value


def _scale_fonts(node, k: float) -> None:
    """Every font size (and colour bar thickness) in a layout or trace dict, times k."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("font", "tickfont", "textfont", "titlefont") and isinstance(value, dict):
                if "size" in value:
                    value["size"] = _scaled(value["size"], k)
            if key == "colorbar" and isinstance(value, dict) and "thickness" in value:
                value["thickness"] = value["thickness"] * k
            if key != "template":
                _scale_fonts(value, k)
    elif isinstance(node, list):
        for item in node:
            _scale_fonts(item, k)


def presented(fig: go.Figure, scale: float = PRESENT_SCALE) -> go.Figure:
    """A copy of ``fig`` for a projector: the light print template, type, markers and
    lines ``scale`` times larger, and the margins that larger text needs.

    Pure (no Streamlit): the app's presenter mode applies it to every chart, so every
    view gets the same look from one piece of code. The plotting area grows by half as
    much as the type, and the margins by what the larger titles, axis labels and legend
    need (:func:`arrange` at ``scale``).
    """
    spec = fig.to_plotly_json() if isinstance(fig, go.Figure) else copy.deepcopy(fig)
    layout = spec.setdefault("layout", {})
    layout["template"] = PRINT_TEMPLATE
    font = layout.setdefault("font", dict(FONT))
    font.setdefault("size", FONT["size"])
    title = layout.get("title")
    _scale_fonts(layout, scale)
    if (layout.get("meta") or {}).get(LABELS_PLACED):
        # labels the figure placed itself (explorer/figures/leaf_labels.py) keep the size
        # they were placed at: they are not placed again here, and grown they would meet
        # on a projector's narrowest plane (1024 x 768: by 19 px at 1.4 times, 1.6 px at
        # 1.17 times, the slack leaf_labels.GROW leaves them)
        for note in layout.get("annotations") or []:
            font = note.get("font") if is_label(note) else None
            if isinstance(font, dict) and font.get("size"):
                font["size"] = font["size"] / scale
    if isinstance(title, dict) and isinstance(title.get("font"), dict):
        # titles are long sentences, already 18 px on screen: they keep their size (at
        # least PRESENT_MIN_TEXT), or each would take a line more of a projector's row
        size = title["font"].get("size")
        if size:
            title["font"]["size"] = size / scale
    for trace in spec.get("data", []):
        _scale_fonts(trace, scale)
        marker = trace.get("marker")
        if isinstance(marker, dict):
            if "size" in marker:
                marker["size"] = _scaled(marker["size"], scale)
            if isinstance(marker.get("line"), dict) and "width" in marker["line"]:
                marker["line"]["width"] = _scaled(marker["line"]["width"], scale)
        if isinstance(trace.get("line"), dict) and "width" in trace["line"]:
            trace["line"]["width"] = _scaled(trace["line"]["width"], scale)
    for shape in layout.get("shapes", []) or []:
        line = shape.get("line")
        if isinstance(line, dict) and "width" in line:
            line["width"] = _scaled(line["width"], scale)
        if shape.get("xsizemode") == "pixel":  # a marker (round_marker): its size too
            for key in ("x0", "x1", "y0", "y1"):
                shape[key] = _scaled(shape[key], scale)
    _at_least(spec, PRESENT_MIN_TEXT)
    arrange(spec, scale=scale)
    _within_the_row(spec, scale)
    return finished(spec)


def _at_least(spec: dict, size: float) -> None:
    """Titles (the chart's, its axes', its colour bars') and tick labels of ``spec`` at
    least ``size`` px: a figure's own smaller type (a sweep's small maps) grows to it."""
    def floor(font):
        if isinstance(font, dict) and isinstance(font.get("size"), (int, float)):
            font["size"] = max(float(font["size"]), size)

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "tickfont":
                    floor(value)
                elif key == "title" and isinstance(value, dict):
                    floor(value.get("font"))
                if key != "template":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    layout = spec.get("layout", {})
    floor(layout.setdefault("font", dict(FONT)))
    walk(layout)
    walk(spec.get("data", []))


def sized_by_content(layout: dict) -> bool:
    """Whether a figure's plotting height is set by what is drawn in it, so that it cannot
    give height up to a projector's row: a diagram (its axes hidden, its plot boxes of
    text placed in its data: the tree) or axes stacked in rows (the split scan: the upper
    row's tick labels and the lower row's y title need the room between and beside the
    rows). Such a figure keeps growing with its type; its page shows it below the first
    row, or (the Splits page) with a header small enough for it."""
    axes = {key: value for key, value in layout.items()
            if key[:5] in ("xaxis", "yaxis") and isinstance(value, dict)}
    if any(a.get("visible") is False for a in axes.values()) and any(
            not is_label(note) and note.get("xref", "x")[:1] == "x"
            and note.get("yref", "y")[:1] == "y" for note in layout.get("annotations") or []):
        return True
    rows = {tuple(a.get("domain") or (0.0, 1.0)) for key, a in axes.items()
            if key.startswith("yaxis")}
    return any(lo >= hi2 for lo, _ in rows for _, hi2 in rows)


def _within_the_row(spec: dict, scale: float) -> None:
    """A chart taller than :data:`PRESENT_ROW_HEIGHT` laid out again by the layout rule to
    end within it: its titles, tick labels, legend and colour bars keep their room, and
    the plotting area gives up the height (the rule leaves out the data labels that would
    then meet), down to :data:`PRESENT_MIN_PLOT`, or to the plot its own labels were
    placed for. Figures :func:`sized_by_content` keep their height.

    Maps side by side (``PLOT_PX``) keep one plotting height, :data:`PRESENT_MAP_PLOT`,
    whatever is below each: the rule is given that plot, not a height, so that it places
    their legends as for any plot grown with the type (laid out at a height, a map's
    legend came up onto its x title)."""
    layout = spec["layout"]
    height = layout.get("height") or 0
    if height <= PRESENT_ROW_HEIGHT or sized_by_content(layout):
        return
    meta = layout["meta"]
    if PLOT_PX in meta:
        plot = height - layout["margin"]["t"] - layout["margin"]["b"]
        meta[PLOT_PX] = meta[PLOT_PX] * min(1.0, PRESENT_MAP_PLOT / plot)
        arrange(spec, scale=scale)
        return
    # labels the figure placed itself (the tree's leaf values) were placed for a plot of
    # at least leaf_labels.PLOT_PX: it keeps that much, or they would meet
    least = max(PRESENT_MIN_PLOT, LABELS_PLOT_PX if meta.get(LABELS_PLACED) else 0)
    arrange(spec, scale=scale, height=PRESENT_ROW_HEIGHT)  # the margins at a row's height
    margins = layout["margin"]["t"] + layout["margin"]["b"]
    height = margins + max(PRESENT_ROW_HEIGHT - margins, least)
    if height != PRESENT_ROW_HEIGHT:  # the labels placed again in the plot it has
        arrange(spec, scale=scale, height=height)
    layout["height"] = round(height)
