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
    return finished(arrange(spec, scale=scale))
