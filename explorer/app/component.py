"""Charts on the page: figures drawn once for every session (the figure cache), and
the chart component that keeps each plotly.js graph mounted and updates it in place.

The component's JavaScript is ``component.js`` beside this file; plotly.js is the copy that
ships with the plotly package, copied into the app's static folder on first use.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from pathlib import Path

import streamlit as st

from ..numbers.record import encode
from ..state import State
from . import store
from .controls import IMAGE_WIDTH
from .figure_cache import Drawn, FigureCache

_JS = Path(__file__).with_name("component.js")
_STATIC = Path(__file__).resolve().parents[2] / "static"  # served by Streamlit (config.toml)


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


def _static_url(source: Path, name: str) -> str | None:
    """Copy ``source`` into the app's static folder as ``name`` (once, atomically); its
    URL, or None when static serving is off (then st.plotly_chart is used)."""
    if not st.get_option("server.enableStaticServing"):
        return None
    target = _STATIC / name
    try:
        if not target.exists() or target.stat().st_size != source.stat().st_size:
            _STATIC.mkdir(exist_ok=True)
            ignore = _STATIC / ".gitignore"  # copies made at run time: keep them out of git
            if not ignore.exists():
                ignore.write_text("# made by explorer/app/component.py at run time\n*\n")
            partial = _STATIC / f".{name}.{os.getpid()}.part"
            shutil.copyfile(source, partial)
            os.replace(partial, target)
    except OSError:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + (base + "/" if base else "") + "app/static/" + name


@st.cache_resource(show_spinner=False)
def _plotly_url() -> str | None:
    """plotly.js, from the plotly package."""
    import plotly
    from plotly.offline import get_plotlyjs_version
    return _static_url(Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
                       f"plotly-{get_plotlyjs_version()}.min.js")


@st.cache_resource(show_spinner=False)
def record_module_url() -> str | None:
    """record.js, named by its content so that a browser never keeps an old copy."""
    source = _JS.with_name("record.js")
    digest = hashlib.sha1(source.read_bytes()).hexdigest()[:10]
    return _static_url(source, f"record-{digest}.js")


@functools.cache
def _registered(name: str, script: str, styled: bool = False):
    """A component whose code is ``script`` (a .js file beside this one, with its .css
    when ``styled``), registered once per process."""
    path = _JS.with_name(script)
    css = path.with_suffix(".css").read_text(encoding="utf-8") if styled else None
    return st.components.v2.component(name, js=path.read_text(encoding="utf-8"), css=css,
                                      isolate_styles=False)


def _component():
    return _registered("explorer_chart", "component.js")


def preload() -> None:
    """Start loading plotly.js in the browser while the server is still fitting."""
    url = _plotly_url()
    if url is not None:
        with st.sidebar:
            _component()(key="plotly_preload", data={"preload": url}, height=1)


def chart(drawn: Drawn, state: State, view: str, *, key: str | None = None, on_select=None,
          live: bool = False, step: dict | None = None) -> None:
    """Draw a figure made by :func:`figure`; on_select(key, points) is called when the
    user clicks a point.

    live=True for charts redrawn at every step of the round: they stay mounted and are
    updated in place (see component.js). Otherwise, and when the app's static folder is not
    served, Streamlit's st.plotly_chart draws the figure. ``step`` says how the chart
    follows the round in the browser between two reruns (stepper.js), if it can.
    """
    key = key or f"chart_{view}"
    config = chart_config(state, view, fmt=st.session_state.get("imgfmt", "PNG"),
                          size=(drawn.width, drawn.height))
    url = _plotly_url() if live else None
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
    _component()(key=key, data={"figure": drawn.json, "config": config, "plotly": url,
                                "view": view, "step": step},
                 on_click_change=clicked)


def _points(key: str) -> list[dict]:
    event = st.session_state.get(key)
    try:
        return list(event["selection"]["points"])
    except (KeyError, TypeError):
        return []



# --- stepping in the browser -------------------------------------------------------------

def _stepper():
    return _registered("explorer_stepper", "stepper.js", styled=True)


def record_key(ctx) -> str:
    """The name the browser keeps the fit's record under."""
    return hashlib.sha1(ctx.key.encode()).hexdigest()[:16]


@st.cache_resource(max_entries=12, show_spinner=False)
def _record_bytes(fit_key: str, _trace, _grid) -> bytes:
    return encode(_trace, _grid, fit_key)


def round_bar(ctx, state: State, on_round, seq: int) -> bool:
    """The round bar that steps in the browser, with the fit's record sent once per fit;
    False where the browser cannot have it (no static folder: Streamlit's bar is used).
    ``seq`` is the count of the bar's step that set this round, or -1 when the server set
    it (the bar then shows it)."""
    module = record_module_url()
    # record.js adds up one score per point: K >= 3 classes step on the server instead
    if module is None or ctx.grid.is_line or ctx.trace.is_multiclass:
        return False
    key = record_key(ctx)
    _stepper()(key="explorer_record", data=_record_bytes(key, ctx.trace, ctx.grid), height=0)
    _stepper()(key="stepper", data={"round": state.round, "rounds": ctx.trace.n_rounds,
                                    "module": module, "present": state.present, "seq": seq},
               on_round_change=on_round)
    return True
