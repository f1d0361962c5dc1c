"""The explorer's charts: pure functions (trace, round, options) -> plotly Figure.

No Streamlit here, and no model computation beyond reading the trace and the
precomputed grid (``explorer.appdata``). Every array handed to plotly goes
through :func:`_finite`, so no NaN or inf ever reaches a chart. Text that may
come from an upload (feature, label and class names) is escaped with
:func:`_esc`: plotly renders a small subset of HTML in its labels.

Each figure is assembled from plain dicts and turned into a ``go.Figure`` in
one validated call (:func:`_figure`): plotly's incremental ``add_trace`` /
``update_layout`` cost 30-100 ms a chart, the one-shot build about 3 ms, and a
step of the round redraws several charts.

Colours: class 0 is blue, class 1 is orange, everywhere. Diverging scales use
the same two hues, so "orange" always means "towards class 1". A regression's
target and F share one sequential scale (VALUE_SCALE).

The views are drawn on the plane of two inputs; a regression with one input
draws the same ideas along its axis (``grid.is_line``): the model as the
staircase F_m(x) over the points, the residuals against x, tree m as its leaf
values over the residuals it fits. :func:`model_view` chooses the model's
drawing for a fit; the other views choose theirs from the grid.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from . import appdata

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


def _scatter_type(n: int) -> str:
    return "scattergl" if n > GL_POINTS else "scatter"

_AXIS = dict(gridcolor="#e8eaed", linecolor="#c9ced6", zerolinecolor="#d5d9df",
             ticks="outside", tickcolor="#c9ced6", automargin=True, showline=True)
# A small explicit template (plotly's named ones are large and copied into each figure).
TEMPLATE = dict(layout=dict(xaxis=_AXIS, yaxis=_AXIS, colorway=[INK, ORANGE, BLUE, MUTED],
                            paper_bgcolor="white", plot_bgcolor="white",
                            hoverlabel=dict(font=dict(size=14, family=FONT_FAMILY))))
# The light theme for projectors and print: the screen's template with opaque white
# everywhere and axis lines and ticks dark enough to survive a washed-out projector.
# Presenter mode (:func:`presented`) and every exported file (``explorer.exports``) use it.
_PRINT_AXIS = dict(linecolor="#8c95a1", tickcolor="#8c95a1", tickfont=dict(color=INK))
PRINT_TEMPLATE = go.layout.Template(TEMPLATE)
PRINT_TEMPLATE.layout.update(
    paper_bgcolor="white", plot_bgcolor="white", xaxis=_PRINT_AXIS, yaxis=_PRINT_AXIS,
    legend=dict(bgcolor="white"), font=dict(family=FONT_FAMILY, color=INK))
PRESENT_SCALE = 1.4  # presenter mode: type, markers and lines this much larger


# --- presenter mode --------------------------------------------------------------------


def _scaled(value, k: float):
    """A size (a number, a list, an array or plotly's typed array) times k."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) * k
    if isinstance(value, dict) and "bdata" in value:
        import base64
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return (raw.astype(np.float32) * k).astype(np.float32)
    if isinstance(value, (list, tuple, np.ndarray)):
        return (_finite(np.asarray(value, dtype=float)) * k).astype(np.float32)
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
    lines ``scale`` times larger, and a little more height and title room.

    Pure (no Streamlit): the app's presenter mode applies it to every chart, so every
    view gets the same look from one piece of code.
    """
    spec = fig.to_plotly_json()
    layout = spec.setdefault("layout", {})
    layout["template"] = PRINT_TEMPLATE
    font = layout.setdefault("font", dict(FONT))
    font.setdefault("size", FONT["size"])
    title = layout.get("title")
    _scale_fonts(layout, scale)
    if isinstance(title, dict) and isinstance(title.get("font"), dict):
        # titles are long sentences and plotly does not wrap them: grow them less
        size = title["font"].get("size")
        if size:
            title["font"]["size"] = size / scale * (1 + (scale - 1) / 2)
    margin = layout.setdefault("margin", {})
    margin["t"] = int(margin.get("t", 56) * scale)
    legend = layout.get("legend")
    if isinstance(legend, dict) and isinstance(legend.get("y"), (int, float)) and legend["y"] < 0:
        legend["y"] = legend["y"] * scale  # below the larger axis title, not on it
    if layout.get("height"):
        layout["height"] = int(layout["height"] * (1 + (scale - 1) / 2))
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
    return go.Figure(spec)


# --- small helpers -------------------------------------------------------------------


def _finite(a, big: float = BIG) -> np.ndarray:
    """A float64 copy of ``a`` with NaN -> 0 and every value clipped to [-big, big]."""
    a = np.nan_to_num(np.asarray(a, dtype=np.float64), nan=0.0, posinf=big, neginf=-big)
    return np.clip(a, -big, big)


def _num(x: float, digits: int = 4) -> str:
    """A number in at most ``digits`` significant digits, never 'nan' or 'inf'."""
    x = float(_finite(x))
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def _signed(x: float, digits: int = 3) -> str:
    s = _num(x, digits)
    return s if s.startswith("-") or s == "0" else "+" + s


def _esc(text) -> str:
    """User text made safe for plotly labels: HTML special characters become entities."""
    return html.escape(str(text), quote=True)


def _figure(data: list, layout: dict) -> go.Figure:
    """One validated go.Figure from plain dicts."""
    return go.Figure(data=data, layout=layout)


def _layout(title: str, height: int, uirevision=None, **extra) -> dict:
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


def _plane_axis(lo: float, hi: float, name: str, **extra) -> dict:
    return dict(range=[lo, hi], title=dict(text=_esc(name)), showgrid=False, zeroline=False,
                constrain="domain", **extra)


def _plane_layout(grid, names, suffix: str = "", domain=None, y_title=True) -> dict:
    """Equal-aspect x/y axes over the plane, labelled with the feature names."""
    x = _plane_axis(grid.lo[0], grid.hi[0], names[0], anchor=f"y{suffix}")
    y = _plane_axis(grid.lo[1], grid.hi[1], names[1] if y_title else "", anchor=f"x{suffix}")
    if grid.equal_aspect:
        y.update(scaleanchor=f"x{suffix}", scaleratio=1)
    if not y_title:
        y["showticklabels"] = False
    if domain is not None:
        x["domain"] = domain
    return {f"xaxis{suffix}": x, f"yaxis{suffix}": y}


def _marker_size(n: int) -> float:
    return 10 if n <= 200 else 8 if n <= 800 else 6 if n <= 3000 else 4


def _p_label(trace, m) -> str:
    return f"σ(2F<sub>{m}</sub>)" if trace.loss == "exponential" else f"σ(F<sub>{m}</sub>)"


def _residual_name(trace) -> str:
    if not trace.is_classifier:
        return "y − F"
    return "ỹ·e<sup>−ỹF</sup>" if trace.loss == "exponential" else "y − p"


def _boundary(grid, F, *, color=INK, width=2.5, dash="solid", name="boundary p = 0.5",
              showlegend=True, axes=("x", "y")) -> dict:
    """The decision boundary F = 0 (p = 0.5), computed here as axis-aligned lines.

    (A plotly contour would make the browser trace it at every step, and would draw
    diagonals where a tree ensemble's boundary only has steps.)
    """
    px, py = appdata.boundary_lines(grid.xs, grid.ys, F)
    return dict(type="scatter", x=px, y=py, mode="lines", connectgaps=False,
                line=dict(color=color, width=width, dash=dash), hoverinfo="skip",
                name=name, showlegend=showlegend, xaxis=axes[0], yaxis=axes[1])


def _f32(a) -> np.ndarray:
    """Finite float32 for bulky arrays sent to the browser (half the bytes of float64)."""
    return _finite(a).astype(np.float32)


def _selected_ring(x, y, label: str, n_points: int = 0) -> dict:
    """A ring around the selected sample, of the points' kind so that it is drawn above
    them (plotly draws WebGL traces over SVG ones)."""
    return dict(type=_scatter_type(n_points), x=[float(_finite(x))], y=[float(_finite(y))],
                mode="markers", name=label, hoverinfo="skip", showlegend=True,
                marker=dict(symbol="circle-open", size=22, color=INK, line=dict(width=3.5)))


def class_names(classes) -> tuple[str, str]:
    """Legend names of the two classes, escaped."""
    if classes is None or len(classes) != 2:
        return ("class 0", "class 1")
    return tuple(f"class {_esc(c)}" for c in classes)


def _colorbar(title: str, side: str = "right", **extra) -> dict:
    return dict(title=dict(text=title, side=side), thickness=14, len=0.8, outlinewidth=0,
                **extra)


def empty_figure(message: str, height: int = 420) -> go.Figure:
    """A blank chart carrying a message (e.g. round 0 has no tree)."""
    return _figure([], _layout(
        "", height, xaxis=dict(visible=False), yaxis=dict(visible=False),
        annotations=[dict(text=message, x=0.5, y=0.5, xref="paper", yref="paper",
                          showarrow=False, font=dict(size=18, color=MUTED))]))


# --- 1. the model: p = sigmoid(F_m) on the plane ------------------------------------


def probability_map(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"),
                    classes=None, show_valid: bool = False, sample: int | None = None,
                    height: int = 560, uirevision=None, title: str | None = None) -> go.Figure:
    """View 1: p(class 1) after round m, the boundary p = 0.5 and the points.

    Training points carry their index in ``customdata[0]`` (validation points -1),
    so a click can select a sample.
    """
    F = grid.F[m]
    p = _finite(trace.link(F.astype(np.float64)))
    data = [
        dict(type="heatmap", x=grid.xs, y=grid.ys, z=_f32(p), zmin=0.0, zmax=1.0,
             colorscale=PROBA_SCALE, colorbar=_colorbar("p(class 1)"), name="p",
             hovertemplate="p = %{z:.3f}<extra></extra>"),
        _boundary(grid, F),
    ]
    names = class_names(classes)
    X, y = trace.X, trace.y
    p_train = _finite(trace.proba(m))
    size = _marker_size(len(y))
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        data.append(dict(
            type=_scatter_type(len(y)), x=_f32(X[idx, 0]), y=_f32(X[idx, 1]), mode="markers",
            name=names[c], customdata=_f32(np.column_stack([idx, p_train[idx]])),
            marker=dict(color=CLASS_COLORS[c], size=size, line=dict(color="white", width=1)),
            hovertemplate="sample #%{customdata[0]}<br>p = %{customdata[1]:.3f}<extra>"
                          + names[c] + "</extra>"))
    if show_valid and trace.X_valid is not None:
        p_valid = _finite(trace.link(trace.valid_raw[m]))
        for c in (0, 1):
            idx = np.flatnonzero(trace.y_valid == c)
            data.append(dict(
                type=_scatter_type(len(y)), x=_f32(trace.X_valid[idx, 0]),
                y=_f32(trace.X_valid[idx, 1]), mode="markers",
                name=f"{names[c]} (validation)",
                customdata=_f32(np.column_stack([np.full(len(idx), -1), p_valid[idx]])),
                marker=dict(symbol="diamond-open", color=CLASS_COLORS[c], size=size + 2,
                            line=dict(color=CLASS_COLORS[c], width=2)),
                hovertemplate="validation point<br>p = %{customdata[1]:.3f}<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(_selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(y)))
    title = title or f"Model after round {m}: p(x) = {_p_label(trace, m)}(x)"
    return _figure(data, _layout(title, height, uirevision,
                                 **_plane_layout(grid, feature_names)))


def _value_range(trace, grid) -> tuple[float, float]:
    """One range for a regression's targets and F at every round: steps keep their scale."""
    values = [np.asarray(trace.y, float), grid.F.ravel()]
    if trace.y_valid is not None:
        values.append(np.asarray(trace.y_valid, float))
    lo = min(float(_finite(v).min()) for v in values)
    hi = max(float(_finite(v).max()) for v in values)
    pad = max(hi - lo, 1e-9) * 0.06
    return lo - pad, hi + pad


def regression_line(trace, m: int, grid: appdata.Grid, *, feature_names=("x",),
                    target_name="y", show_valid: bool = False, sample: int | None = None,
                    height: int = 560, uirevision=None, title: str | None = None) -> go.Figure:
    """View 1 for one input: the staircase F_m(x) over the points (x, y), and each
    point's residual y − F_m as a bar from F_m to y (what tree m + 1 fits).

    Training points and their bars carry the point's index in ``customdata[0]``.
    """
    x, y = trace.X[:, 0], trace.y
    F = trace.raw[m]
    idx = np.arange(len(y))
    fname, tname = _esc(feature_names[0]), _esc(target_name)
    lo, hi = _value_range(trace, grid)
    span = grid.hi[0] - grid.lo[0]
    data = [
        dict(type="bar", x=_f32(x), y=_f32(y - F), base=_f32(F),
             name=f"residual y − F<sub>{m}</sub>",
             marker=dict(color=ORANGE, opacity=0.5, line=dict(width=0)),
             width=max(span / max(len(x), 1) * 0.5, span * 1e-3), customdata=idx,
             hovertemplate="sample #%{customdata}<br>y − F = %{y:.4g}<extra></extra>"),
        dict(type=_scatter_type(len(y)), x=_f32(x), y=_f32(y), mode="markers",
             name="training points", customdata=idx,
             marker=dict(color=INK, size=_marker_size(len(y)) - 2),
             hovertemplate=f"sample #%{{customdata}}<br>{fname} = %{{x:.4g}}<br>"
                           f"{tname} = %{{y:.4g}}<extra></extra>"),
    ]
    if show_valid and trace.X_valid is not None:
        data.append(dict(
            type=_scatter_type(len(y)), x=_f32(trace.X_valid[:, 0]), y=_f32(trace.y_valid),
            mode="markers", name="validation points",
            customdata=np.full(len(trace.y_valid), -1),
            marker=dict(symbol="diamond-open", color=VALID_COLOR, size=_marker_size(len(y))),
            hovertemplate=f"validation point<br>{tname} = %{{y:.4g}}<extra></extra>"))
    data.append(dict(type="scatter", x=grid.xs, y=_f32(grid.F[m]), mode="lines",
                     name=f"F<sub>{m}</sub>(x)", line=dict(color=BLUE, width=3, shape="hv"),
                     hovertemplate="F = %{y:.4g}<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(_selected_ring(x[sample], y[sample], f"sample #{sample}", len(y)))
    title = title or (f"Model after round {m}: F<sub>{m}</sub>(x), and the residuals "
                      f"y − F<sub>{m}</sub>")
    return _figure(data, _layout(
        title, height, uirevision, barmode="overlay", hovermode="closest",
        xaxis=dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=fname)),
        yaxis=dict(range=[lo, hi], title=dict(text=tname))))


def regression_surface(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"),
                       target_name="y", show_valid: bool = False, sample: int | None = None,
                       height: int = 560, uirevision=None,
                       title: str | None = None) -> go.Figure:
    """View 1 for two inputs: F_m on the plane as a heat map, the points coloured by y on
    the same scale (a point that stands out from its background is badly fitted).

    Training points carry their index in ``customdata[0]``, validation points -1.
    """
    X, y = trace.X, trace.y
    lo, hi = _value_range(trace, grid)
    tname = _esc(target_name)
    size = _marker_size(len(y))
    # one scale stated on each coloured trace (a storyboard moves them onto one axis)
    scale = dict(colorscale=VALUE_SCALE, cmin=lo, cmax=hi, showscale=False)
    data = [
        dict(type="heatmap", x=grid.xs, y=grid.ys, z=_f32(grid.F[m]), colorscale=VALUE_SCALE,
             zmin=lo, zmax=hi, colorbar=_colorbar(f"F, {tname}"), name="F",
             hovertemplate="F = %{z:.4g}<extra></extra>"),
        dict(type=_scatter_type(len(y)), x=_f32(X[:, 0]), y=_f32(X[:, 1]), mode="markers",
             name=f"training points (colour: {tname})",
             customdata=_f32(np.column_stack([np.arange(len(y)), y, trace.raw[m]])),
             marker=dict(color=_f32(y), size=size, line=dict(color="white", width=1), **scale),
             hovertemplate=f"sample #%{{customdata[0]}}<br>{tname} = %{{customdata[1]:.4g}}"
                           "<br>F = %{customdata[2]:.4g}<extra></extra>"),
    ]
    if show_valid and trace.X_valid is not None:
        data.append(dict(
            type=_scatter_type(len(y)), x=_f32(trace.X_valid[:, 0]),
            y=_f32(trace.X_valid[:, 1]), mode="markers", name="validation points",
            customdata=_f32(np.column_stack([np.full(len(trace.y_valid), -1),
                                             trace.y_valid])),
            marker=dict(symbol="diamond", color=_f32(trace.y_valid), size=size + 2,
                        line=dict(color=VALID_COLOR, width=2), **scale),
            hovertemplate=f"validation point<br>{tname} = %{{customdata[1]:.4g}}"
                          "<extra></extra>"))
    if sample is not None and 0 <= sample < len(y):
        data.append(_selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(y)))
    title = title or f"Model after round {m}: F<sub>{m}</sub>(x) on the plane"
    return _figure(data, _layout(title, height, uirevision,
                                 **_plane_layout(grid, feature_names)))


def model_view(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"), classes=None,
               target_name="y", **options) -> go.Figure:
    """View 1 for any fit: the probability map of a classifier, the staircase of a
    one-input regression, the surface of a two-input one."""
    if trace.is_classifier:
        return probability_map(trace, m, grid, feature_names=feature_names, classes=classes,
                               **options)
    draw = regression_line if grid.is_line else regression_surface
    return draw(trace, m, grid, feature_names=feature_names, target_name=target_name,
                **options)


# --- 2. residuals --------------------------------------------------------------------


def residual_scale(trace, r: np.ndarray) -> float:
    """Half-range of the residual colour scale: 1 for log-loss (|y - p| < 1)."""
    if trace.loss == "log_loss":
        return 1.0
    return max(float(np.quantile(np.abs(r), 0.98)), 1e-12)


def residual_map(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"),
                 sample: int | None = None, height: int = 560, uirevision=None,
                 scale: float | None = None) -> go.Figure:
    """View 2: each training point coloured by its pseudo-residual after round m, sized by |r|.

    These are the residuals tree m + 1 is fitted to (y - p for log-loss).
    ``scale`` is the half-range |r| of both the colour scale and the marker sizes; by
    default this round's own (:func:`residual_scale`). A storyboard passes one scale
    for all its panels, so that one colour and one size mean one residual everywhere.
    """
    r = _finite(trace.residual(m))
    X = trace.X
    scale = residual_scale(trace, r) if scale is None else max(float(_finite(scale)), 1e-12)
    size = 4.0 + 16.0 * np.clip(np.abs(r) / scale, 0.0, 1.0)
    nxt = f"tree {m + 1} fits these" if m < trace.n_rounds else "no tree follows"
    title = f"Residuals after round {m}: r = {_residual_name(trace)} ({nxt})"
    if grid.is_line:
        return _residual_line(trace, m, grid, r, scale, feature_names[0], sample, title,
                              height, uirevision)
    data = [] if not trace.is_classifier else [
        _boundary(grid, grid.F[m], color=MUTED, width=1.5, dash="dot")]
    data += [
        dict(type=_scatter_type(len(r)), x=_f32(X[:, 0]), y=_f32(X[:, 1]), mode="markers",
             name=_residual_name(trace), showlegend=False,
             customdata=_f32(np.column_stack([np.arange(len(r)), r])),
             marker=dict(color=_f32(r), cmin=-scale, cmid=0.0, cmax=scale, colorscale=DIVERGING,
                         size=_f32(size), line=dict(color="rgba(60,60,60,0.45)", width=0.6),
                         colorbar=_colorbar(f"r = {_residual_name(trace)}")),
             hovertemplate="sample #%{customdata[0]}<br>r = %{customdata[1]:.4f}"
                           "<extra></extra>"),
    ]
    if sample is not None and 0 <= sample < len(r):
        data.append(_selected_ring(X[sample, 0], X[sample, 1], f"sample #{sample}", len(r)))
    return _figure(data, _layout(title, height, uirevision,
                                 **_plane_layout(grid, feature_names)))


def _residual_line(trace, m, grid, r, scale, name, sample, title, height, uirevision):
    """The residuals of a one-input fit against x, coloured as on the plane."""
    x = trace.X[:, 0]
    data = [dict(type=_scatter_type(len(r)), x=_f32(x), y=_f32(r), mode="markers",
                 name=_residual_name(trace), showlegend=False,
                 customdata=_f32(np.column_stack([np.arange(len(r)), r])),
                 marker=dict(color=_f32(r), cmin=-scale, cmid=0.0, cmax=scale,
                             colorscale=DIVERGING, size=_marker_size(len(r)),
                             line=dict(color="rgba(60,60,60,0.45)", width=0.6),
                             colorbar=_colorbar(f"r = {_residual_name(trace)}")),
                 hovertemplate="sample #%{customdata[0]}<br>r = %{customdata[1]:.4f}"
                               "<extra></extra>")]
    if sample is not None and 0 <= sample < len(r):
        data.append(_selected_ring(x[sample], r[sample], f"sample #{sample}", len(r)))
    reach = 1.1 * max(float(np.abs(r).max()), scale)
    return _figure(data, _layout(
        title, height, uirevision,
        xaxis=dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=_esc(name))),
        yaxis=dict(range=[-reach, reach], title=dict(text=f"r = {_residual_name(trace)}"),
                   zeroline=True, zerolinecolor=MUTED, zerolinewidth=1.5)))


# --- 3. tree m on the plane ----------------------------------------------------------


def tree_regions(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"),
                 classes=None, leaf: int | None = None, sample: int | None = None,
                 height: int = 560, uirevision=None, vmax: float | None = None) -> go.Figure:
    """View 3: the leaves of tree m as boxes, each labelled with its Newton value gamma.

    The label markers carry the leaf's node id in ``customdata[0]``; training points
    carry -1 - index, so a click can tell a leaf from a sample. ``vmax`` is the largest
    |gamma| of the colour scale, used for both the box fills and the markers' cmin/cmax;
    by default this tree's own (:func:`leaf_value_range` of several rounds shares one).
    """
    if m < 1:
        return empty_figure("Round 0 has no tree: F₀(x) = f₀ everywhere. Step to round 1.",
                            height)
    if grid.is_line:
        return tree_line(trace, m, grid, feature_names=feature_names, leaf=leaf, sample=sample,
                         height=height, uirevision=uirevision, vmax=vmax)
    tree = trace.tree(m)
    boxes = trace.regions(m, grid.lo, grid.hi)
    values = _finite(tree["value"])
    is_leaf = tree["left"] < 0
    if vmax is None:
        vmax = float(np.max(np.abs(values[is_leaf])))
    vmax = max(float(_finite(vmax)), 1e-12)
    shapes, notes, cx, cy, node_ids, hover = [], [], [], [], [], []
    n_visible = sum(1 for b in boxes if b["x1"] > b["x0"] and b["y1"] > b["y0"])
    text_size = 16 if n_visible <= 8 else 13 if n_visible <= 20 else 11
    selected = None
    for b in boxes:
        node = int(b["node"])
        x0, x1, y0, y1 = (float(b[k]) for k in ("x0", "x1", "y0", "y1"))
        if not (x1 > x0 and y1 > y0):
            continue  # the leaf lies outside the plane shown
        g = float(values[node])
        # (g - lo) / (hi - lo) on [-vmax, vmax], as plotly places the marker colours
        color = sample_colorscale(DIVERGING, [min(max((g + vmax) / (vmax + vmax), 0.0),
                                                  1.0)])[0]
        shapes.append(dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, layer="below",
                           fillcolor=color, opacity=0.6, line=dict(color="white", width=2)))
        cx.append((x0 + x1) / 2)
        cy.append((y0 + y1) / 2)
        node_ids.append(node)
        hover.append(_leaf_hover(trace, m, node))
        if n_visible <= 40:
            notes.append(dict(x=cx[-1], y=cy[-1], text=f"γ = {_signed(g)}", showarrow=False,
                              font=dict(size=text_size, color=INK),
                              bgcolor="rgba(255,255,255,0.85)",
                              bordercolor=INK if node == leaf else "rgba(0,0,0,0)",
                              borderwidth=2 if node == leaf else 0, borderpad=3))
        if node == leaf:
            selected = dict(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, layer="above",
                            fillcolor="rgba(0,0,0,0)", line=dict(color=INK, width=4))
    if selected is not None:
        shapes.append(selected)
    size = max(_marker_size(len(trace.y)) - 1, 3)
    in_bag = np.ones(len(trace.y), bool) if trace.in_bag is None else trace.in_bag[m]
    data = []
    for name, color, members in _point_groups(trace, classes):
        idx = np.flatnonzero(members & in_bag)
        data.append(dict(
            type=_scatter_type(len(trace.y)), x=_f32(trace.X[idx, 0]), y=_f32(trace.X[idx, 1]),
            mode="markers", name=name, customdata=np.column_stack([-1 - idx, idx]),
            marker=dict(color=color, size=size, line=dict(color="white", width=0.8)),
            hovertemplate="sample #%{customdata[1]}<extra></extra>"))
    if trace.in_bag is not None:
        out = np.flatnonzero(~in_bag)
        data.append(dict(
            type=_scatter_type(len(trace.y)), x=_f32(trace.X[out, 0]), y=_f32(trace.X[out, 1]),
            mode="markers", name=f"not in tree {m}'s subsample",
            customdata=np.column_stack([-1 - out, out]),
            marker=dict(symbol="circle-open", color=MUTED, size=size, line=dict(width=1)),
            hovertemplate="sample #%{customdata[1]} (out of bag)<extra></extra>"))
    n_leaves = len(node_ids)
    data.append(_leaf_marks(trace, m, node_ids, cx, cy, vmax, hover))
    if sample is not None and 0 <= sample < len(trace.y):
        data.append(_selected_ring(trace.X[sample, 0], trace.X[sample, 1], f"sample #{sample}",
                                   len(trace.y)))
    kind = "Newton value" if appdata.leaf_rule(trace) == "newton" else "value"
    title = f"Tree {m} on the plane: {n_leaves} leaves, each labelled with its {kind} γ"
    return _figure(data, _layout(title, height, uirevision, shapes=shapes, annotations=notes,
                                 **_plane_layout(grid, feature_names)))


def _point_groups(trace, classes):
    """(legend name, colour, mask) of the training points: one group per class, or all
    of a regression's points in one."""
    if not trace.is_classifier:
        return [("training points", INK, np.ones(len(trace.y), bool))]
    names = class_names(classes)
    return [(names[c], CLASS_COLORS[c], trace.y == c) for c in (0, 1)]


def _leaf_marks(trace, m, nodes, xs, ys, vmax, hover):
    """Invisible markers at the leaves' label positions: hover text, a click selects the
    leaf (its node id in ``customdata[0]``), and they carry the leaf-value colour bar."""
    gammas = [float(_finite(trace.tree(m)["value"][k])) for k in nodes]
    return dict(type="scatter", x=xs, y=ys, mode="markers",
                customdata=np.column_stack([nodes, gammas]) if len(nodes) else None,
                hovertext=hover, hoverinfo="text", name="leaf value γ", showlegend=False,
                marker=dict(size=40, color=gammas, cmin=-vmax, cmax=vmax,
                            colorscale=DIVERGING, opacity=0.0,
                            colorbar=_colorbar("leaf value γ")))


def _leaf_hover(trace, m, node) -> str:
    tree = trace.tree(m)
    g = float(_finite(tree["value"][node]))
    return (f"leaf {node} (click to select)<br>n = {int(tree['n'][node])}"
            f"<br>γ = {_num(g, 6)}<br>ν·γ = {_num(trace.learning_rate * g, 6)}")


def tree_line(trace, m: int, grid: appdata.Grid, *, feature_names=("x",),
              leaf: int | None = None, sample: int | None = None, height: int = 560,
              uirevision=None, vmax: float | None = None) -> go.Figure:
    """View 3 for one input: tree m's leaf values γ over the residuals r_(m-1) it fits.

    Each leaf is an interval of x; its value is drawn as a step at height γ, the
    selected leaf's interval shaded. Points carry -1 - index in ``customdata[0]``
    and the leaf marks their node id, as in :func:`tree_regions`.
    """
    if m < 1:
        return empty_figure("Round 0 has no tree: F₀(x) = f₀ everywhere. Step to round 1.",
                            height)
    tree = trace.tree(m)
    values = _finite(tree["value"])
    is_leaf = tree["left"] < 0
    if vmax is None:
        vmax = float(np.max(np.abs(values[is_leaf])))
    vmax = max(float(_finite(vmax)), 1e-12)
    x = trace.X[:, 0]
    r = _finite(trace.residual(m - 1))
    in_bag = np.ones(len(r), bool) if trace.in_bag is None else trace.in_bag[m]
    size = max(_marker_size(len(r)) - 1, 3)
    data = []
    for name, members, marker in (
            (f"r = y − F<sub>{m - 1}</sub> (what tree {m} fits)", in_bag,
             dict(color=MUTED, size=size, opacity=0.8)),
            (f"not in tree {m}'s subsample", ~in_bag,
             dict(symbol="circle-open", color=MUTED, size=size, line=dict(width=1)))):
        idx = np.flatnonzero(members)
        if len(idx) or members is in_bag:
            data.append(dict(type=_scatter_type(len(r)), x=_f32(x[idx]), y=_f32(r[idx]),
                             mode="markers", name=name, marker=marker,
                             customdata=np.column_stack([-1 - idx, idx]),
                             hovertemplate="sample #%{customdata[1]}<br>r = %{y:.4f}"
                                           "<extra></extra>"))
    boxes = trace.regions(m, grid.lo, grid.hi)
    shapes, notes, cx, cy, nodes, hover = [], [], [], [], [], []
    sx, sy = [], []
    for b in boxes:
        node, x0, x1 = int(b["node"]), float(b["x0"]), float(b["x1"])
        if not x1 > x0:
            continue
        g = float(values[node])
        sx += [x0, x1, None]
        sy += [g, g, None]
        cx.append((x0 + x1) / 2)
        cy.append(g)
        nodes.append(node)
        hover.append(_leaf_hover(trace, m, node))
        if node == leaf:
            shapes.append(dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, yref="paper",
                               layer="below", fillcolor="rgba(230,115,11,0.12)",
                               line=dict(width=0)))
        if len(boxes) <= 12:
            notes.append(dict(x=cx[-1], y=g, text=f"γ = {_signed(g)}", showarrow=False,
                              yshift=14, font=dict(size=13, color=INK),
                              bgcolor="rgba(255,255,255,0.8)",
                              bordercolor=INK if node == leaf else "rgba(0,0,0,0)",
                              borderwidth=2 if node == leaf else 0))
    data.append(dict(type="scatter", x=sx, y=sy, mode="lines", name=f"tree {m}: leaf value γ",
                     line=dict(color=ORANGE, width=4), hoverinfo="skip"))
    marks = _leaf_marks(trace, m, nodes, cx, cy, vmax, hover)
    marks["marker"] = dict(size=30, opacity=0.0)  # the steps show the values: no colour bar
    data.append(marks)
    if sample is not None and 0 <= sample < len(r):
        data.append(_selected_ring(x[sample], r[sample], f"sample #{sample}", len(r)))
    reach = 1.1 * max(float(np.abs(r).max()), vmax, 1e-9)
    title = f"Tree {m} over the residuals it fits: {len(nodes)} leaves, each at its γ"
    return _figure(data, _layout(
        title, height, uirevision, shapes=shapes, annotations=notes,
        xaxis=dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=_esc(feature_names[0]))),
        yaxis=dict(range=[-reach, reach], title=dict(text="r, γ"), zeroline=True,
                   zerolinecolor=MUTED)))


def leaf_value_range(trace, rounds) -> float:
    """The largest |leaf value| of the trees of these rounds (round 0 has none): the
    ``vmax`` that gives several :func:`tree_regions` one colour scale."""
    vmax = 0.0
    for m in rounds:
        if int(m) >= 1:
            tree = trace.tree(int(m))
            values = _finite(tree["value"])[tree["left"] < 0]
            if len(values):
                vmax = max(vmax, float(np.max(np.abs(values))))
    return max(vmax, 1e-12)


# --- 4. the update F_(m-1) + nu * tree m = F_m ---------------------------------------


def update_panels(trace, m: int, grid: appdata.Grid, *, feature_names=("x1", "x2"),
                  height: int = 480, uirevision=None) -> go.Figure:
    """View 4: F_(m-1), plus nu times tree m, equals F_m, as three maps side by side."""
    if m < 1:
        return empty_figure(f"Round 0: F₀(x) = f₀ = {_num(trace.f0, 5)} everywhere. "
                            "Step to round 1 to see the first update.", height)
    if grid.is_line:
        return _update_line(trace, m, grid, feature_names[0], height, uirevision)
    before = _finite(grid.F[m - 1])
    step = _finite(appdata.tree_on_grid(trace, m, grid))
    after = _finite(grid.F[m])
    fmax = max(float(np.abs(before).max()), float(np.abs(after).max()), 0.5)
    smax = max(float(np.abs(step).max()), 1e-9)
    nu = _num(trace.learning_rate)
    gap = 0.05
    width = (1.0 - 2 * gap) / 3
    domains = [[k * (width + gap), k * (width + gap) + width] for k in range(3)]
    titles = (f"F<sub>{m - 1}</sub>(x)", f"+ ν · tree {m}(x)   (ν = {nu})",
              f"= F<sub>{m}</sub>(x)")
    data, axes, notes = [], {}, []
    for k, (z, coloraxis) in enumerate(((before, "coloraxis"), (step, "coloraxis2"),
                                        (after, "coloraxis"))):
        suffix = "" if k == 0 else str(k + 1)
        xa, ya = f"x{suffix}", f"y{suffix}"
        data.append(dict(type="heatmap", x=grid.xs, y=grid.ys, z=_f32(z), coloraxis=coloraxis,
                         xaxis=xa, yaxis=ya, hovertemplate="%{z:.4f}<extra></extra>"))
        if k != 1 and trace.is_classifier:  # F = 0 is a boundary only between classes
            data.append(_boundary(grid, z, width=2, showlegend=False, name="F = 0",
                                  axes=(xa, ya)))
        axes.update(_plane_layout(grid, feature_names, suffix, domains[k], y_title=k == 0))
        notes.append(dict(text=titles[k], x=sum(domains[k]) / 2, y=1.0, xref="paper",
                          yref="paper", xanchor="center", yanchor="bottom", showarrow=False,
                          font=dict(size=17)))
    layout = _layout(
        f"The update at round {m}: F<sub>{m}</sub> = F<sub>{m - 1}</sub> + ν · tree {m}",
        height, uirevision, annotations=notes, margin=dict(l=10, r=10, t=90, b=110),
        coloraxis=dict(colorscale=DIVERGING, cmin=-fmax, cmax=fmax,
                       colorbar=_colorbar("F", x=1.0)),
        coloraxis2=dict(colorscale=DIVERGING, cmin=-smax, cmax=smax,
                        colorbar=dict(title=dict(text="ν·γ", side="right"), thickness=10,
                                      len=0.25, orientation="h", x=0.5, xanchor="center",
                                      y=-0.36, yanchor="top", outlinewidth=0)),
        **axes)
    return _figure(data, layout)


def _update_line(trace, m, grid, name, height, uirevision) -> go.Figure:
    """The update of a one-input fit: F_(m-1), nu times tree m, and F_m along x."""
    step = _f32(appdata.tree_on_grid(trace, m, grid))
    nu = _num(trace.learning_rate)
    data = [
        dict(type="scatter", x=grid.xs, y=_f32(grid.F[m - 1]), mode="lines",
             name=f"F<sub>{m - 1}</sub>(x)", line=dict(color=MUTED, width=2.5, dash="dot"),
             hovertemplate=f"F<sub>{m - 1}</sub> = %{{y:.4g}}<extra></extra>"),
        dict(type="scatter", x=grid.xs, y=step, mode="lines", name=f"ν · tree {m}(x) (ν = {nu})",
             line=dict(color=ORANGE, width=2.5), fill="tozeroy",
             fillcolor="rgba(230,115,11,0.15)",
             hovertemplate="ν·γ = %{y:.4g}<extra></extra>"),
        dict(type="scatter", x=grid.xs, y=_f32(grid.F[m]), mode="lines",
             name=f"F<sub>{m}</sub>(x)", line=dict(color=BLUE, width=3),
             hovertemplate=f"F<sub>{m}</sub> = %{{y:.4g}}<extra></extra>"),
    ]
    return _figure(data, _layout(
        f"The update at round {m}: F<sub>{m}</sub> = F<sub>{m - 1}</sub> + ν · tree {m}",
        height, uirevision, hovermode="x",
        xaxis=dict(range=[grid.lo[0], grid.hi[0]], title=dict(text=_esc(name))),
        yaxis=dict(title=dict(text="F"), zeroline=True, zerolinecolor=MUTED)))


# --- 5. loss and accuracy against rounds ---------------------------------------------


def curves(trace, m: int, *, height: int = 430, uirevision=None) -> go.Figure:
    """View 5: train (and validation) loss and accuracy per round, round m marked.

    Every point carries its round in ``customdata``, so a click can move to it.
    """
    rounds = np.arange(trace.n_rounds + 1)
    series = [("", "train", trace.train_loss, TRAIN_COLOR, "solid"),
              ("", "validation", trace.valid_loss, VALID_COLOR, "dash"),
              ("2", "train", trace.train_accuracy, TRAIN_COLOR, "solid"),
              ("2", "validation", trace.valid_accuracy, VALID_COLOR, "dash")]
    marker_size = 5 if len(rounds) <= 150 else 3
    data = []
    for suffix, name, values, color, dash in series:
        if values is None:
            continue
        v = _finite(values)
        data.append(dict(
            type="scatter", x=rounds, y=v, mode="lines+markers", name=name, legendgroup=name,
            showlegend=suffix == "", customdata=rounds, xaxis=f"x{suffix}", yaxis=f"y{suffix}",
            line=dict(color=color, width=2.5, dash=dash), marker=dict(size=marker_size),
            hovertemplate="round %{x}: %{y:.4f}<extra>" + name + "</extra>"))
        data.append(dict(
            type="scatter", x=[m], y=[v[m]], mode="markers", showlegend=False,
            legendgroup=name, customdata=[m], xaxis=f"x{suffix}", yaxis=f"y{suffix}",
            marker=dict(size=14, color=color, line=dict(color="white", width=2)),
            hovertemplate=f"round {m}: %{{y:.4f}}<extra>{name}</extra>"))
    xrange = [-0.5, trace.n_rounds + 0.5]
    # a regression has no accuracy: its loss takes the whole width
    panels = ("", "2") if trace.is_classifier else ("",)
    loss_name = ("½(y − F)²" if trace.loss == "squared_error"
                 else trace.loss.replace("_", "-"))
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref=f"x{s}", yref=f"y{s} domain",
                   line=dict(color=ORANGE, width=2)) for s in panels]
    width = 0.45 if trace.is_classifier else 1.0
    notes = [dict(text=t, x=x, y=1.0, xref="paper", yref="paper", xanchor="center",
                  yanchor="bottom", showarrow=False, font=dict(size=17))
             for t, x in ((f"Mean {loss_name}", width / 2), ("Accuracy", 0.775))[:len(panels)]]
    axes = dict(xaxis=dict(domain=[0.0, width], range=xrange, title=dict(text="round m"),
                           anchor="y"),
                yaxis=dict(anchor="x", rangemode="tozero"))
    if trace.is_classifier:
        axes.update(xaxis2=dict(domain=[0.55, 1.0], range=xrange, title=dict(text="round m"),
                                anchor="y2"),
                    yaxis2=dict(anchor="x2", range=[0, 1.02]))
    what = "Loss and accuracy" if trace.is_classifier else "Loss"
    layout = _layout(
        f"{what} by round (round {m} marked; click a point to go there)", height,
        uirevision, hovermode="x", shapes=shapes, annotations=notes,
        margin=dict(l=10, r=10, t=80, b=10),
        legend=dict(orientation="h", x=0, y=-0.3, yanchor="top"), **axes)
    return _figure(data, layout)


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


def tree_diagram(trace, m: int, *, feature_names=("x1", "x2"), leaf: int | None = None,
                 height: int | None = None, uirevision=None) -> go.Figure:
    """View 7: tree m, per node its split, n, sums and improvement; per leaf its value.

    Node markers carry the node id in ``customdata[0]`` (and 1 for a leaf in
    ``customdata[1]``) so a click can select a leaf.
    """
    if m < 1:
        return empty_figure("Round 0 has no tree: F₀(x) = f₀ everywhere. Step to round 1.")
    tree = trace.tree(m)
    x, depth = _tree_layout(tree)
    is_leaf = tree["left"] < 0
    n_leaves = int(is_leaf.sum())
    compact, tiny = n_leaves > 8, n_leaves > 20
    names = [_esc(n) for n in feature_names]
    values = _finite(tree["value"])
    vmax = max(float(np.max(np.abs(values[is_leaf]))), 1e-12)
    ex, ey = [], []
    notes = []
    font_size = 13 if not compact else 11 if not tiny else 9
    for k in range(len(tree)):
        n = int(tree["n"][k])
        sr, sh = _num(tree["sum_r"][k]), _num(tree["sum_h"][k])
        if not is_leaf[k]:
            left, right = int(tree["left"][k]), int(tree["right"][k])
            for child in (left, right):
                ex += [x[k], x[child], None]
                ey += [-depth[k], -depth[child], None]
            split = f"<b>{names[int(tree['feature'][k])]} ≤ {_num(tree['threshold'][k], 4)}</b>"
            if tiny:
                text = split
            elif compact:
                text = f"{split}<br>n={n}"
            else:
                text = (f"{split}<br>n = {n}<br>Σr = {sr}<br>Σh = {sh}"
                        f"<br>improvement {_num(tree['improvement'][k], 3)}")
            bg, border, bw = "#ffffff", "#9aa3ad", 1
            if not tiny:
                for child, word in ((left, "yes"), (right, "no")):
                    notes.append(dict(x=(x[k] + x[child]) / 2, y=-(depth[k] + depth[child]) / 2,
                                      text=word, showarrow=False, bgcolor="white",
                                      font=dict(size=12, color=MUTED)))
        else:
            g = float(values[k])
            if tiny:
                text = f"<b>{_signed(g, 2)}</b>"
            elif compact:
                text = f"n={n}<br><b>γ={_signed(g, 3)}</b>"
            else:
                text = (f"leaf {k}<br>n = {n}<br>Σr = {sr}<br>Σh = {sh}"
                        f"<br><b>γ = {_signed(g, 4)}</b>")
            bg = sample_colorscale(DIVERGING, [0.5 + 0.3 * g / vmax])[0]
            border, bw = (INK, 3) if k == leaf else ("#9aa3ad", 1)
        notes.append(dict(x=x[k], y=-depth[k], text=text, showarrow=False, align="center",
                          font=dict(size=font_size, color=INK), bgcolor=bg, bordercolor=border,
                          borderwidth=bw, borderpad=5))
    data = [
        dict(type="scatter", x=ex, y=ey, mode="lines", line=dict(color="#9aa3ad", width=1.5),
             hoverinfo="skip", showlegend=False),
        dict(type="scatter", x=x, y=-depth, mode="markers", showlegend=False,
             marker=dict(size=34, color="rgba(0,0,0,0)"),
             customdata=np.column_stack([np.arange(len(tree)), is_leaf.astype(int)]),
             hovertext=[f"leaf {k}: click to select" if is_leaf[k] else f"node {k}"
                        for k in range(len(tree))], hoverinfo="text"),
    ]
    max_depth = float(depth.max())
    height = height or int(190 + (150 if not compact else 110) * max_depth)
    span = max(n_leaves - 1, 1)
    layout = _layout(
        f"Tree {m} (go left = yes): per node its split, n, Σr, Σh and improvement; "
        f"per leaf γ = Σr / Σh, before ν = {_num(trace.learning_rate)}",
        height, uirevision, annotations=notes,
        xaxis=dict(visible=False, range=[-0.7, span + 0.7] if n_leaves > 1 else [-1, 1]),
        yaxis=dict(visible=False, range=[-max_depth - 0.5, 0.5]))
    return _figure(data, layout)


# --- 8. one sample over the rounds ---------------------------------------------------


def sample_trajectory(trace, i: int, m: int, *, ledger: dict | None = None, height: int = 380,
                      uirevision=None) -> go.Figure:
    """View 8 (chart part): F_m and p_m of sample i against rounds, round m marked."""
    L = ledger if ledger is not None else appdata.ledger(trace, i)
    rounds = L["round"]
    F = _finite(L["F"])
    if L["p"] is None:
        return _target_trajectory(trace, i, m, rounds, F, float(L["y"]), height, uirevision)
    p = _finite(L["p"])
    data = [
        dict(type="scatter", x=rounds, y=F, mode="lines", name="F<sub>m</sub> (left axis)",
             line=dict(color=INK, width=2.5), customdata=rounds,
             hovertemplate="round %{x}: F = %{y:.4f}<extra></extra>"),
        dict(type="scatter", x=rounds, y=p, mode="lines", name="p<sub>m</sub> (right axis)",
             line=dict(color=ORANGE, width=2.5, dash="dash"), yaxis="y2", customdata=rounds,
             hovertemplate="round %{x}: p = %{y:.4f}<extra></extra>"),
        dict(type="scatter", x=[m], y=[F[m]], mode="markers", showlegend=False,
             marker=dict(size=13, color=INK), hoverinfo="skip"),
        dict(type="scatter", x=[m], y=[p[m]], mode="markers", showlegend=False, yaxis="y2",
             marker=dict(size=13, color=ORANGE), hoverinfo="skip"),
    ]
    label = "class 1" if L["y"] == 1 else "class 0"
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref="x", yref="paper",
                   line=dict(color=ORANGE, width=1.5)),
              dict(type="line", x0=0, x1=1, y0=0.5, y1=0.5, xref="paper", yref="y2",
                   line=dict(color=MUTED, width=1, dash="dot"))]
    layout = _layout(
        f"Sample #{i} ({label}): F and p by round", height, uirevision, hovermode="x",
        shapes=shapes, legend=dict(orientation="h", x=0, y=-0.35, yanchor="top"),
        xaxis=dict(title=dict(text="round m"), range=[-0.5, trace.n_rounds + 0.5],
                   domain=[0, 0.92]),
        yaxis=dict(title=dict(text="F<sub>m</sub>")),
        yaxis2=dict(title=dict(text="p<sub>m</sub>"), range=[0, 1], overlaying="y",
                    side="right", showgrid=False, anchor="x", tickmode="array",
                    tickvals=[0, 0.25, 0.5, 0.75, 1]))
    return _figure(data, layout)


def _target_trajectory(trace, i, m, rounds, F, y, height, uirevision) -> go.Figure:
    """A regression sample's F_m against rounds, closing on its target y."""
    data = [
        dict(type="scatter", x=rounds, y=F, mode="lines", name="F<sub>m</sub>",
             line=dict(color=INK, width=2.5), customdata=rounds,
             hovertemplate="round %{x}: F = %{y:.4f}<extra></extra>"),
        dict(type="scatter", x=[rounds[0], rounds[-1]], y=[y, y], mode="lines",
             name=f"target y = {_num(y)}", line=dict(color=ORANGE, width=2, dash="dash"),
             hoverinfo="skip"),
        dict(type="scatter", x=[m], y=[F[m]], mode="markers", showlegend=False,
             marker=dict(size=13, color=INK), hoverinfo="skip"),
    ]
    shapes = [dict(type="line", x0=m, x1=m, y0=0, y1=1, xref="x", yref="paper",
                   line=dict(color=ORANGE, width=1.5))]
    return _figure(data, _layout(
        f"Sample #{i}: F by round, and its target y", height, uirevision, hovermode="x",
        shapes=shapes, legend=dict(orientation="h", x=0, y=-0.35, yanchor="top"),
        xaxis=dict(title=dict(text="round m"), range=[-0.5, trace.n_rounds + 0.5]),
        yaxis=dict(title=dict(text="F<sub>m</sub>"))))
