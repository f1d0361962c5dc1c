"""Where the Tree page's plane writes each leaf's value: a label that stays readable.

The rule (issue 29, item 8): every leaf whose box is at least about 40 × 20 px on the
chart keeps a label; the label goes inside its box where it fits (at the centre, else
anywhere inside, else shortened: "γ = +1.27", "+1.27", "+1.3"), and otherwise beside the
box with a leader line to it; so does the leaf of the largest |γ|, however small its
box. Smaller leaves keep a label only where one fits without meeting another; their
value is always in the hover. The leaves are placed in the order
of |γ|, largest first, so a large value never loses its label to a smaller one, and no
label meets another.

Sizes are in px at the chart's smallest scale on the Tree page (a 1280 px window; wider
windows and presenter mode only spread the boxes further apart), and the labels are
measured a little larger than they are, for presenter mode's larger type. Plain Python:
the positions are decided here, once per round, and the browser only applies them.
"""

from __future__ import annotations

from ..text import signed
from .layout import LINE_EM, text_width
from .theme import INK

# the least plotting height of the plane (560 px, less a title of three lines and the
# legend): a round whose title is shorter has a taller plot, which only spreads the labels
PLOT_PX = 315
WIDTH_PX = 316  # its plotting width at the narrowest: the Tree page's column at 1280 px
BIG = (34.0, 17.0)  # a box at least this large here (40 × 20 px on screen) keeps a label
GROW = 1.17  # labels measured this much larger: presenter mode's type grows faster
PAD = 3  # the label's border pad (px)
GAP = 3.0  # px between two labels


def scale(x_range, y_range) -> float:
    """px per data unit on the equal-aspect plane at its smallest."""
    return min(WIDTH_PX / max(x_range[1] - x_range[0], 1e-12),
               PLOT_PX / max(y_range[1] - y_range[0], 1e-12))


def texts(g: float, symbol: str = "γ", mark: str = "") -> list[str]:
    """A leaf's label, from the longest to the shortest form; every form keeps the
    leaf's ``mark`` (summaries.STOP_MARK: its value is not a minimiser)."""
    return [f"{symbol} = {signed(g)}{mark}", signed(g) + mark, signed(g, 2) + mark]


def arrow(spot: dict) -> dict:
    """A placed label's annotation fields: its leader line, or one of no length.

    showarrow is True at every round, for a label with no leader line too: plotly.js
    recomputes every trace of the chart when an annotation's showarrow changes (its
    editType is calc: an arrow counts in autorange), but not when ax and ay change. An
    arrow of no length draws nothing and leaves the label where showarrow=False would."""
    lead = spot["ax"] is not None
    return dict(showarrow=True, ax=spot["ax"] if lead else 0.0, ay=spot["ay"] if lead else 0.0,
                arrowhead=0, arrowwidth=1.5, arrowcolor=INK, standoff=0,
                opacity=1.0 if spot["shown"] else 0.0)


def _size(text: str, font: float, border: float) -> tuple[float, float]:
    pad = 2 * (PAD + border)
    return (GROW * text_width(text, font) + pad, GROW * font * LINE_EM + pad)


def _meets(a, b) -> bool:
    return (a[0] < b[2] + GAP and b[0] < a[2] + GAP and a[1] < b[3] + GAP
            and b[1] < a[3] + GAP)


def place(leaves: list[dict], x_range, y_range, font: float, symbol: str = "γ") -> dict:
    """Each leaf's label: {node: dict(text, x, y, ax, ay, shown)}.

    ``leaves`` are dicts with node, x0, x1, y0, y1 (the box on the plane, in data
    units), g (the value), border (the label's border width) and optionally mark (text
    after the value in every form of the label). x and y are where the
    label's centre goes (data units); with a leader line, (x, y) is the box's centre and
    (ax, ay) the label's offset from it in px (y down, as plotly's), else ax = ay = None.
    shown is False for a leaf left to the hover.
    """
    S = scale(x_range, y_range)
    px = {}
    for leaf in leaves:
        px[leaf["node"]] = ((leaf["x0"] - x_range[0]) * S, (leaf["y0"] - y_range[0]) * S,
                            (leaf["x1"] - x_range[0]) * S, (leaf["y1"] - y_range[0]) * S)
    frame = (0.0, 0.0, (x_range[1] - x_range[0]) * S, (y_range[1] - y_range[0]) * S)
    order = sorted(leaves, key=lambda leaf: (-abs(leaf["g"]),
                                             -(leaf["x1"] - leaf["x0"]) * (leaf["y1"] - leaf["y0"])))
    kept, out = [], {}

    def inside(leaf):
        box = px[leaf["node"]]
        for text in texts(leaf["g"], symbol, leaf.get("mark", "")):
            w, h = _size(text, font, leaf["border"])
            if w > box[2] - box[0] or h > box[3] - box[1]:
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            # the centre first, then points ever further from it, inside the box
            spots = [(cx + fx * (box[2] - box[0] - w) / 2, cy + fy * (box[3] - box[1] - h) / 2)
                     for fx, fy in _SPOTS]
            for x, y in spots:
                rect = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
                if not any(_meets(rect, other) for other in kept):
                    kept.append(rect)
                    return dict(text=text, x=x / S + x_range[0], y=y / S + y_range[0],
                                ax=None, ay=None, shown=True)
        return None

    def beside(leaf):
        box = px[leaf["node"]]
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for text in texts(leaf["g"], symbol, leaf.get("mark", ""))[1:]:
            w, h = _size(text, font, leaf["border"])
            for r in (30, 45, 60, 80, 100, 130):
                for dx, dy in _RING:
                    x, y = cx + dx * r, cy + dy * r
                    rect = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
                    if (rect[0] < frame[0] or rect[1] < frame[1] or rect[2] > frame[2]
                            or rect[3] > frame[3]):
                        continue
                    if not any(_meets(rect, other) for other in kept):
                        kept.append(rect)
                        return dict(text=text, x=cx / S + x_range[0], y=cy / S + y_range[0],
                                    ax=x - cx, ay=-(y - cy), shown=True)
        return None

    # the big boxes keep a label, and so does the largest |γ| however small its box
    big = [leaf for j, leaf in enumerate(order) if j == 0 or _is_big(px[leaf["node"]])]
    for leaf in big:
        out[leaf["node"]] = inside(leaf)
    for leaf in big:
        if out[leaf["node"]] is None:
            out[leaf["node"]] = beside(leaf)
    for leaf in order:
        if leaf["node"] not in out:
            out[leaf["node"]] = inside(leaf)
    for leaf in order:
        if out[leaf["node"]] is None:  # to the hover
            out[leaf["node"]] = dict(text=texts(leaf["g"], symbol, leaf.get("mark", ""))[0],
                                     x=(leaf["x0"] + leaf["x1"]) / 2,
                                     y=(leaf["y0"] + leaf["y1"]) / 2, ax=None, ay=None,
                                     shown=False)
    return out


def _is_big(box) -> bool:
    return box[2] - box[0] >= BIG[0] and box[3] - box[1] >= BIG[1]


_SPOTS = [(0, 0), (0, 0.5), (0, -0.5), (0.5, 0), (-0.5, 0), (0, 1), (0, -1), (1, 0), (-1, 0),
          (0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5), (1, 1), (-1, 1), (1, -1),
          (-1, -1), (0.5, 1), (-0.5, 1), (0.5, -1), (-0.5, -1), (1, 0.5), (-1, 0.5),
          (1, -0.5), (-1, -0.5)]
_RING = [(0, 1), (0, -1), (1, 0), (-1, 0), (0.7, 0.7), (-0.7, 0.7), (0.7, -0.7),
         (-0.7, -0.7)]


LINE_WIDTH_PX = 360  # one input: the plotting width at the narrowest (no colour bar)


def place_steps(steps: list[dict], x_range, y_range, font: float,
                symbol: str = "γ") -> dict:
    """The labels of a one-input tree's steps: {node: dict(text, x, y, ax, ay, shown)}.

    ``steps`` are dicts with node, x0, x1 (the leaf's interval), g (its value, the step's
    height), border and optionally mark (as :func:`place`'s). A label sits just above or below its own step, over no other
    step's line and no other label; a step at least 40 px long keeps its label (beside
    it, with a leader line, when there is no room next to it); a shorter one only where
    it fits. Placed in the order of |γ|, largest first.
    """
    sx = LINE_WIDTH_PX / max(x_range[1] - x_range[0], 1e-12)
    sy = PLOT_PX / max(y_range[1] - y_range[0], 1e-12)

    def to_px(x, y):
        return (x - x_range[0]) * sx, (y - y_range[0]) * sy

    lines = []
    for s in steps:
        (a, y), (b, _) = to_px(s["x0"], s["g"]), to_px(s["x1"], s["g"])
        lines.append((a, y - 3, b, y + 3))
    frame = (0.0, 0.0, LINE_WIDTH_PX, PLOT_PX)
    order = sorted(steps, key=lambda s: -abs(s["g"]))
    kept, out = [], {}

    def free(rect, over_lines=False):
        return (frame[0] <= rect[0] and frame[1] <= rect[1] and rect[2] <= frame[2]
                and rect[3] <= frame[3] and not any(_meets(rect, o) for o in kept)
                and (over_lines or not any(_meets(rect, o) for o in lines)))

    def near(s, lead: bool):
        (a, y), (b, _) = to_px(s["x0"], s["g"]), to_px(s["x1"], s["g"])
        mid = (a + b) / 2
        for text in texts(s["g"], symbol, s.get("mark", "")):
            w, h = _size(text, font, s["border"])
            offsets = (30, 45, 60, 80, 100, 130, 160) if lead else (h / 2 + 5,)
            shifts = (0.0, -0.25, 0.25, -0.45, 0.45)
            # a leader line's label may lie over another step's line, never over a label
            for over in ((False, True) if lead else (False,)):
                for off in offsets:
                    for side in (1, -1):
                        for f in shifts:
                            x = mid + f * (b - a) if not lead else mid + f * w * 2
                            cy = y + side * off
                            rect = (x - w / 2, cy - h / 2, x + w / 2, cy + h / 2)
                            if not free(rect, over):
                                continue
                            kept.append(rect)
                            if lead:
                                return dict(text=text, x=(mid / sx) + x_range[0], y=s["g"],
                                            ax=x - mid, ay=-(cy - y), shown=True)
                            return dict(text=text, x=x / sx + x_range[0],
                                        y=cy / sy + y_range[0], ax=None, ay=None,
                                        shown=True)
        return None

    big = [s for j, s in enumerate(order) if j == 0 or (s["x1"] - s["x0"]) * sx >= BIG[0]]
    for s in big:
        out[s["node"]] = near(s, False) or near(s, True)
    for s in order:
        if s["node"] not in out:
            out[s["node"]] = near(s, False)
        if out[s["node"]] is None:
            out[s["node"]] = dict(text=texts(s["g"], symbol, s.get("mark", ""))[0], x=(s["x0"] + s["x1"]) / 2,
                                  y=s["g"], ax=None, ay=None, shown=False)
    return out
