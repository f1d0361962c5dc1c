"""The charts' look: colours, colour scales, the font and the plotly templates (the
screen's, and the light one for projectors and print).

Colours: class 0 is blue, class 1 is orange, everywhere. Diverging scales use the
same two hues, so "orange" always means "towards class 1". A regression's target
and F share one sequential scale (VALUE_SCALE).
"""

from __future__ import annotations

import functools
from bisect import bisect_left

import plotly.graph_objects as go
from plotly.colors import get_colorscale, validate_colors

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
# plotly's Viridis, spelled out as its validation spells it: plotly.js has a Viridis of
# its own, with other stops, and a figure sent unvalidated (panels.to_json) would get it.
VALUE_SCALE = [list(stop) for stop in go.Heatmap(colorscale="Viridis").colorscale]

FONT_FAMILY = "Inter, Segoe UI, Helvetica, Arial, sans-serif"
FONT = dict(family=FONT_FAMILY, size=15, color=INK)

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


# On a touch screen (no hover, a coarse pointer: a phone, a tablet), what a chart changes
# (component.js and the lesson file's interactive.js apply it there, nowhere else): no
# mode bar, which a screen without hover shows all the time, over the chart's title; and
# a one-finger drag that scrolls the page instead of zooming the chart (no drag mode, no
# axis drag handles; two fingers still zoom the page). A tap still selects a point.
TOUCH = {"config": {"displayModeBar": False, "showAxisDragHandles": False},
         "layout": {"dragmode": False}}


def colours_at(scale, points) -> list[str]:
    """``scale`` (a list of [stop, colour] pairs, or a plotly scale's name) at each of
    ``points`` in [0, 1], as ``plotly.colors.sample_colorscale`` gives it, colour for
    colour ("rgb(r, g, b)"). plotly parses and checks the scale at every call, and each
    colour it gives through a Decimal: a third of the Tree page's regions as it is bound.
    Here the scale is parsed once, by plotly, and each channel rounded half to even, as
    plotly's Decimal does (a float whose shortest form ends in .5 is that half exactly)."""
    stops, colours = _parsed(scale if isinstance(scale, str) else
                             tuple((float(s), c) for s, c in scale))
    out = []
    for point in points:
        high = bisect_left(stops, point)
        low = high - 1
        t = (point - stops[low]) / (stops[high] - stops[low])
        a, b = colours[low], colours[high]
        out.append("rgb(%s, %s, %s)" % tuple(
            round((a[i] + t * float(b[i] - a[i])) * 255.0) for i in range(3)))
    return out


@functools.lru_cache(maxsize=16)  # 16 scales of a dozen stops at most: under 32 kB
def _parsed(scale) -> tuple[list, list]:
    """A scale's stops and its colours as plotly's (r, g, b) tuples in [0, 1]."""
    pairs = get_colorscale(scale) if isinstance(scale, str) else scale
    return [s for s, _ in pairs], validate_colors([c for _, c in pairs], colortype="tuple")
