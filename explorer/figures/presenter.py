"""Presenter mode: a chart made for a projector, from the chart made for a screen.

Pure (no Streamlit): the app's presenter mode applies :func:`presented` to every chart, so
every view gets the same look from one piece of code.
"""

from __future__ import annotations

import base64
import copy

import numpy as np
import plotly.graph_objects as go

from .layout import arrange
from .panels import finished, finite
from .theme import FONT, PRINT_TEMPLATE

PRESENT_SCALE = 1.4  # presenter mode: type, markers and lines this much larger
# A projector's window (1280 x 720, 1024 x 768) holds the page's folded header, the round
# bar and a chart this tall: a taller chart gives up plotting height, down to
# PRESENT_MIN_PLOT (a chart that needs more stays taller: a row further down may scroll).
PRESENT_MAX_HEIGHT = 500
PRESENT_MIN_PLOT = 120
PRESENT_MIN_TEXT = 18  # px: the least size of titles and tick labels, read from the back


def _scaled(value, k: float):
    """A size (a number, a list, an array or plotly's typed array) times k."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) * k
    if isinstance(value, dict) and "bdata" in value:
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return (raw.astype(np.float32) * k).astype(np.float32)
    if isinstance(value, (list, tuple, np.ndarray)):
        return (finite(np.asarray(value, dtype=float)) * k).astype(np.float32)
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
    if isinstance(title, dict) and isinstance(title.get("font"), dict):
        # titles are long sentences: grow them less (and :func:`arrange` wraps them)
        size = title["font"].get("size")
        if size:
            title["font"]["size"] = size / scale * (1 + (scale - 1) / 2)
    # a legend is read up close, as a key: it grows as the titles do, and takes fewer rows
    legend = layout.setdefault("legend", {})
    legend_font = legend.setdefault("font", {})
    grown = legend_font.get("size") or font["size"]  # (already scale times its own)
    legend_font["size"] = grown / scale * (1 + (scale - 1) / 2)
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
    spec = arrange(spec, scale=scale)
    _fit_the_window(spec, scale)
    return finished(spec)


def _at_least(spec: dict, size: float) -> None:
    """Titles (the chart's, its axes', its colour bars') and tick labels of ``spec`` at
    least ``size`` px: the figure's own smaller type (a sweep's small maps) grows to it."""
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
    floor(layout.get("font"))
    walk(layout)
    walk(spec.get("data", []))


def _fit_the_window(spec: dict, scale: float) -> None:
    """A chart taller than :data:`PRESENT_MAX_HEIGHT` laid out again at that height (its
    title, labels and legend keep their room; the plotting area gives it up), but its
    plotting area no lower than :data:`PRESENT_MIN_PLOT`."""
    layout = spec["layout"]
    height = layout.get("height")
    if not height or height <= PRESENT_MAX_HEIGHT:
        return
    margin = layout.get("margin") or {}
    plot = height - margin.get("t", 0) - margin.get("b", 0)
    target = max(PRESENT_MAX_HEIGHT, height - max(0.0, plot - PRESENT_MIN_PLOT))
    if target < height:
        arrange(spec, scale=scale, height=target)
        layout["height"] = round(target)
