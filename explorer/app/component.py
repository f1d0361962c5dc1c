"""Charts on the page: figures drawn once for every session (the figure cache), and
the chart component that keeps each plotly.js graph mounted and updates it in place.

The component's JavaScript is ``component.js`` beside this file; plotly.js and the other
scripts the browser loads are :mod:`.assets`.
"""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from ..numbers.record import encode
from ..state import State
from . import store
from .assets import chart_component, plotly_url, record_module_url, registered
from .controls import IMAGE_WIDTH
from .figure_cache import Drawn, FigureCache


@st.cache_resource(show_spinner=False)
def _figures() -> FigureCache:
    """The server's one figure cache (32 MB of JSON at most)."""
    return FigureCache()


def figure(draw, *args, **kwargs) -> Drawn:
    """``draw(*args, **kwargs)`` (a pure figure function), drawn once for every session
    that asks for the same call, in presenter mode when this session presents."""
    return _figures().draw(draw, args, kwargs, store.peek().present)


_WIDE_VIEWS = ("update", "tree", "curves")  # full-width charts: laid out wider in a file


def chart_config(state: State, view: str, *, fmt: str = "png",
                 size: tuple[int | None, int | None] = (None, None)) -> dict:
    """The plotly config of a chart: its toolbar camera downloads the chart laid out at
    a fixed size (``size``, else a width for the view and the figure's height) and
    scaled to :data:`IMAGE_WIDTH` pixels, as PNG or SVG, named after the data, the
    parameters, the view and the round."""
    width, height = size
    width = int(width or (1440 if view in _WIDE_VIEWS else 960))
    height = int(height or 560)
    return {
        "displaylogo": False,
        "responsive": True,
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
        "toImageButtonOptions": {"format": "svg" if str(fmt).lower() == "svg" else "png",
                                 "width": width, "height": height,
                                 "scale": IMAGE_WIDTH / width,
                                 "filename": f"boosting_{view}_{state.slug()}"},
    }


def chart(drawn: Drawn, state: State, view: str, *, key: str | None = None, on_select=None,
          live: bool = False, step: dict | None = None, draw: bool = False) -> None:
    """Draw a figure made by :func:`figure`; on_select(key, points) is called when the
    user clicks a point (with ``draw``, anywhere on the plane: then the one point is
    {plane: true, x, y, dx, dy}, the place clicked and a pixel's size in data units).

    live=True for charts redrawn at every step of the round: they stay mounted and are
    updated in place (see component.js). Otherwise, and when the app's static folder is not
    served, Streamlit's st.plotly_chart draws the figure. ``step`` says how the chart
    follows the round in the browser between two reruns (stepper.js), if it can.
    """
    key = key or f"chart_{view}"
    config = chart_config(state, view, fmt=st.session_state.get("imgfmt", "PNG"),
                          size=(drawn.width, drawn.height))
    url = plotly_url() if live else None
    if url is None:  # Streamlit's own chart (rebuilt whenever the figure changes)
        fig = json.loads(drawn.json)
        kwargs = dict(config=config, theme=None, width="stretch", key=key)
        if on_select is not None:
            def picked():
                on_select(key, _points(key))
            st.plotly_chart(fig, on_select=picked, selection_mode="points", **kwargs)
        else:
            st.plotly_chart(fig, **kwargs)
        return
    def clicked():
        value = st.session_state.get(key)
        points = []
        try:
            points = list(value["click"] or [])
        except (KeyError, TypeError):
            points = []
        if on_select is not None and points:
            on_select(key, points)
    # config and step go as JSON text: a dict among a component's data makes Streamlit
    # check it for a data frame, which imports pandas and pyarrow (0.2 s of a first run)
    chart_component()(key=key, data={"figure": drawn.json, "config": json.dumps(config),
                                     "plotly": url, "view": view, "step": json.dumps(step),
                                     "draw": draw},
                      on_click_change=clicked)


def _points(key: str) -> list[dict]:
    event = st.session_state.get(key)
    try:
        return list(event["selection"]["points"])
    except (KeyError, TypeError):
        return []



# --- stepping in the browser -------------------------------------------------------------

def _stepper():
    return registered("explorer_stepper", "stepper.js", styled=True)


def record_key(ctx) -> str:
    """The name the browser keeps the fit's record under."""
    return hashlib.sha1(ctx.key.encode()).hexdigest()[:16]


@st.cache_resource(max_entries=12, show_spinner=False)
def _record_bytes(fit_key: str, _trace, _grid) -> bytes:
    return encode(_trace, _grid, fit_key)


def round_bar(ctx, state: State, on_round, seq: int) -> bool:
    """The round bar that steps in the browser, with the fit's record sent once per fit
    where the charts can follow the round there (elsewhere each step is one rerun, as
    with Streamlit's bar); False where the browser cannot have it (no static folder:
    Streamlit's bar is used). ``seq`` is the count of the bar's step that set this round,
    or -1 when the server set it (the bar then shows it)."""
    module = record_module_url()
    if module is None:
        return False
    key = record_key(ctx)
    # record.js adds up one score per point of a plane: not along one input, nor K >= 3
    if not (ctx.grid.is_line or ctx.trace.is_multiclass):
        _stepper()(key="explorer_record", data=_record_bytes(key, ctx.trace, ctx.grid),
                   height=0)
    _stepper()(key="stepper", data={"round": state.round, "rounds": ctx.trace.n_rounds,
                                    "module": module, "tree": record_module_url("tree"),
                                    "present": state.present, "seq": seq},
               on_round_change=on_round)
    return True
