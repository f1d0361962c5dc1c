"""How a view is built: its figure (one validated call from plain dicts, laid out by
the rule of :mod:`.layout`), the :class:`Panel` it is drawn in, its layout's pieces
(title, axes, colour bars) and the traces and marks every view shares.

Every array handed to plotly goes through :func:`finite`, so no NaN or inf ever
reaches a chart; text that may come from an upload (feature, label and class names)
goes through :func:`esc`: plotly renders a small subset of HTML in its labels. Figures
are assembled from plain dicts and turned into a ``go.Figure`` in one validated call
(:func:`make_figure`): plotly's incremental ``add_trace`` / ``update_layout`` cost
30-100 ms a chart, the one-shot build about 3 ms.
"""

from __future__ import annotations

import base64
import html
import textwrap
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from ..numbers.grid import boundary_lines
from . import hints
from .layout import PLOT_PX, arrange
from .theme import FONT, INK, MUTED, TEMPLATE

BIG = 1e6  # any displayed magnitude is clipped to this
# Above this many points a chart draws them with WebGL: measured in headless Chromium
# at N = 2,000, a step took 1.4 s with WebGL against 2.2-2.7 s with one SVG node per point.
GL_POINTS = 300
MAP_PLOT_PX = 340  # the Model page's two maps: the same plotting area, side by side
MAP_SIDE_PX = 90  # and the same room beside it (a colour bar's, kept when there is none)


def finite(a, big: float = BIG) -> np.ndarray:
    """A float64 copy of ``a`` with NaN -> 0 and every value clipped to [-big, big]."""
    a = np.array(a, dtype=np.float64)
    np.clip(a, -big, big, out=a)  # inf too (np.nan_to_num, which did both, was 4 times slower)
    a[np.isnan(a)] = 0.0
    return a


def f32(a) -> np.ndarray:
    """Finite float32 for bulky arrays sent to the browser (half the bytes of float64)."""
    return finite(a).astype(np.float32)


def scatter_type(n: int) -> str:
    return "scattergl" if n > GL_POINTS else "scatter"


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
    :func:`plain`), carrying its title without interface hints for the toolbar's image
    (:func:`.hints.mark`)."""
    hints.mark(spec)
    return spec if getattr(_PLAIN, "on", False) else go.Figure(spec)


def to_json(fig) -> str:
    """A figure as plotly's JSON, the browser's: a go.Figure by its own ``to_json``, a
    plain spec (:func:`plain`) by plotly's encoder with its numpy arrays as plotly.js's
    typed arrays (:func:`typed`). The two give the same figure (tests/test_figure_json.py,
    every view the app draws); the plain one costs a quarter of the time, building and
    validating the go.Figure being the rest."""
    if isinstance(fig, go.Figure):
        return fig.to_json()
    return to_json_plotly(typed(fig))


# plotly.js's typed arrays: numpy's dtype -> plotly.js's name for it
_TYPED = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4",
          "uint32": "u4", "float32": "f4", "float64": "f8"}
# 64-bit integers (plotly.js has none) go as the narrowest type that holds them
_NARROWER = {"i": (np.int8, np.int16, np.int32), "u": (np.uint8, np.uint16, np.uint32)}
_AS_IS = frozenset(("geojson", "layer", "layers", "range"))  # keys plotly's encoder skips


def typed(node):
    """``node`` (a figure's dicts and lists) with each numpy array as the typed array
    plotly's own encoder makes of it (``{dtype, bdata[, shape]}``), the arrays of a
    few keys (axis ranges) left as they are, as plotly leaves them. A copy: the figure
    is not changed."""
    if isinstance(node, dict):
        return {k: v if k in _AS_IS else typed(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [typed(v) for v in node]
    if not isinstance(node, np.ndarray) or node.size == 0:
        return node
    a = node
    if a.dtype.kind in _NARROWER and a.dtype.itemsize == 8:
        lo, hi = a.min(), a.max()
        fits = [t for t in _NARROWER[a.dtype.kind]
                if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max]
        if not fits:
            return node
        a = a.astype(fits[0])
    name = _TYPED.get(a.dtype.name)
    if name is None:
        return node
    out = {"dtype": name, "bdata": base64.b64encode(np.ascontiguousarray(a)).decode("ascii")}
    if a.ndim > 1:
        out["shape"] = ", ".join(map(str, a.shape))
    return out


def spec_of(fig) -> dict:
    """A figure as a plain dict: a go.Figure's own (a copy), or a plain spec as it is."""
    return fig.to_plotly_json() if isinstance(fig, go.Figure) else fig


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
        legend=dict(orientation="h", x=0.0, y=-0.16, yanchor="top"),
    )
    if uirevision is not None:  # None is no uirevision (as plotly's validation drops it)
        layout["uirevision"] = uirevision
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
    px, py = _boundary(grid, F)
    return dict(type="scatter", x=px, y=py, mode="lines", connectgaps=False,
                line=dict(color=color, width=width, dash=dash), hoverinfo="skip",
                name=name, showlegend=showlegend, xaxis=axes[0], yaxis=axes[1])


# boundary_lines by what decides them (the grid's points and the side of 0 of each cell):
# a fit's boundary at round m is drawn by several charts (the model and residual maps, the
# update's F_(m-1) at round m and F_m at round m - 1, each page's chart at every round when
# it is bound), and took half of a map's drawing (190 us of 380 at 70 x 70 cells)
_BOUNDARIES: OrderedDict = OrderedDict()
_BOUNDARIES_KEPT = 2048  # two fits of MAX_ROUNDS rounds; a few hundred numbers each
_BOUNDARIES_LOCK = threading.Lock()


def _boundary(grid, F) -> tuple[list, list]:
    """:func:`boundary_lines` of F on ``grid``, new lists each time (a figure's own)."""
    above = np.asarray(F) > 0.0
    key = (np.asarray(grid.xs, dtype=float).tobytes(), np.asarray(grid.ys, dtype=float).tobytes(),
           above.shape, np.packbits(above).tobytes())
    with _BOUNDARIES_LOCK:
        lines = _BOUNDARIES.get(key)
        if lines is not None:
            _BOUNDARIES.move_to_end(key)
    if lines is None:
        lines = boundary_lines(grid.xs, grid.ys, F)
        with _BOUNDARIES_LOCK:
            _BOUNDARIES[key] = lines
            while len(_BOUNDARIES) > _BOUNDARIES_KEPT:
                _BOUNDARIES.popitem(last=False)
    return list(lines[0]), list(lines[1])


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
