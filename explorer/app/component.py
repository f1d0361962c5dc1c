"""Charts on the page: figures drawn once for every session (the figure cache), and
the chart component that keeps each plotly.js graph mounted and updates it in place.

The component's JavaScript is ``component.js`` beside this file; plotly.js and the other
scripts the browser loads are :mod:`.assets`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import NamedTuple

import streamlit as st

from .. import browser
from ..figures import bindings, pages
from ..figures.hints import EXPORT_TITLE
from ..figures.theme import TOUCH
from ..numbers.record import encode
from ..state import State
from . import blobs, store
from .assets import chart_component, module_component, modules_url, plotly_url
from .controls import IMAGE_WIDTH
from .figure_cache import Drawn, FigureCache, Unnamed, build_step


@st.cache_resource(show_spinner=False)
def _figures() -> FigureCache:
    """The server's one figure cache (32 MB of JSON at most)."""
    return FigureCache()


def figure(draw, *args, **kwargs) -> Drawn:
    """``draw(*args, **kwargs)`` (a pure figure function), drawn once for every session
    that asks for the same call, in presenter mode when this session presents."""
    return _figures().draw(draw, args, kwargs, store.peek().present)


@st.cache_resource(show_spinner=False)
def _steps() -> FigureCache:
    """The server's one cache of how charts follow the round (their tables): 96 MB at
    most, in entries of 40 kB (the median) to a few MB."""
    return FigureCache(max_entries=4096, max_bytes=96 * 2**20, builder=build_step)


def following(fit, state: State, view: str, draw, *after, before=None,
              **kwargs) -> tuple[Drawn, str | None]:
    """The chart ``draw(*before, m, *after, **kwargs)`` (``before`` is the fit's trace by
    default) as it follows the round in the browser: (its template, its step) for
    :func:`chart`, both the same at every round and made once for every session on the
    same fit. ``fit`` is the page's context, or another fit on it as (trace, grid, key)
    (its record is then put on the page too). Without the browser's bar, or beyond the
    tables' budget, (the figure at the State's round, None): the server steps it. A new
    fit's chart, whose step is not made yet: (the figure at the State's round,
    :data:`LATER`), its step made after the page (:func:`bind_later`)."""
    fit = fit if hasattr(fit, "trace") else Fit(*fit)
    before = (fit.trace,) if before is None else tuple(before)
    if modules_url() is None:
        return figure(draw, *before, state.round, *after, **kwargs), None
    args, present = (fit.trace, fit.grid, before, after), store.peek().present
    try:
        step = _steps().cached(draw, args, kwargs, present)
    except Unnamed:  # no cache can hold it: bound now, as every run must
        step = _steps().draw(draw, args, kwargs, present)
    if step is None and fit.trace.n_rounds > LATER_ROUNDS and not store.repeating():
        # a new fit: its figure at the State's round now, its bindings once the page is
        # drawn (bind_later); the chart steps through the server until then
        st.session_state.setdefault(_LATER, []).append((draw, args, kwargs, present))
        return figure(draw, *before, state.round, *after, **kwargs), LATER
    step = step or _steps().draw(draw, args, kwargs, present)
    if step.json.startswith('{"over"'):
        st.caption(f"This chart steps through the server, a round trip a step: "
                   f"{json.loads(step.json)['over']} pass what the browser is sent "
                   f"({bindings.MAX_ROUNDS} rounds, {bindings.MAX_TABLE_BYTES // 2**20} MB "
                   "of tables a chart). Fewer rounds, or shallower trees, step in the "
                   "browser.")
        return figure(draw, *before, state.round, *after, **kwargs), None
    key = record_key(fit)
    placed = st.session_state.setdefault(_PLACED, {})
    record = None
    if key not in placed:  # another fit on the page (Compare, Sweep), put there once a run
        record = getattr(fit, "record", None)  # a sweep cell's, made with its fit
        record = record or _record_bytes(key, fit.trace, fit.grid)
    # the whole page's budget: what its charts' tables and records weigh together
    weight = len(step.json) + (len(record) if record is not None else 0)
    if sum(placed.values()) + weight > PAGE_BYTES:
        st.caption(f"This chart steps through the server, a round trip a step: the page's "
                   f"charts pass what the browser is sent for one page "
                   f"({PAGE_BYTES // 2**20} MB of records and tables). Fewer rounds, cells "
                   "or points step in the browser.")
        return figure(draw, *before, state.round, *after, **kwargs), None
    placed[key] = placed.get(key, 0) + weight
    _keep_fit(fit)
    if record is not None:
        _stepper()(key=f"record_{view}", height=0, data=record)
    at = int(step.json[len('{"at":'):step.json.index(",")])  # build_step writes it first
    names = json.dumps(pages.image_names(state, view, fit.trace.n_rounds))
    # the step as JSON, with what is this session's: its record and file names; its
    # tables inline, or by address where the server serves them
    shared = f'"at":{at},"src":"{_blob_url(step)}"}}' if blobs.served() else step.json[1:]
    return (figure(draw, *before, at, *after, **kwargs),
            f'{{"record":"{key}","filenames":{names},{shared}')


# The charts of this run drawn before their bindings were made, as (draw, args, kwargs,
# present) for _steps(); such a chart's step, for chart() (the page marks it as binding)
_LATER = "_bind_later"
LATER = "later"
# Up to this many rounds a chart is bound at once: its binding costs about what the second
# run that would send it does (0.1-0.3 s a page at 100 rounds, benchmarks/bench_binding.py,
# and about half that at 50); beyond, drawing first halved the Model page's change of
# setting at 500 rounds (benchmarks/README.md, bench_setting)
LATER_ROUNDS = 50


def bind_later(scope: str = "app") -> None:
    """After the page: make the bindings of the charts this run drew without them (a new
    fit's), then run the page again to send them. Binding draws every round in Python,
    0.1-1 s a chart (benchmarks/bench_binding.py), while one round's figure takes a few
    ms: so a new setting's charts are on screen at once, and step in the browser a moment
    later. A chart is bound at a time, with a check between for a run the user asked for
    (a new setting, a step), which then goes first; what was bound stays in the cache.
    The run asked for here (store.repeat_run: the same run for the user, its notes said
    again) binds whatever the cache has since let go at once (no third run). ``scope``:
    the run to repeat, the app's or the page fragment's alone (a step at rest)."""
    later = st.session_state.pop(_LATER, [])
    if store.repeated() or not later:
        return
    slot = st.empty()
    for draw, args, kwargs, present in later:
        slot.empty()  # where a run asked for by the user takes over
        _steps().draw(draw, args, kwargs, present)
    store.repeat_run(scope)


def forget_later() -> None:
    """Drop the charts a run cut short left to bind (at the start of a run)."""
    st.session_state.pop(_LATER, None)


def charts(ctx, state: State, page: str) -> pages.Page:
    """The charts that follow the round on ``page``, as :mod:`explorer.figures.pages`
    describes them for this fit and State (the lesson file draws the same)."""
    return pages.describe(page, ctx.trace, ctx.grid, state, ctx.names, key=ctx.key)


def follow(fit, state: State, chart: pages.Chart) -> tuple[Drawn, str | None]:
    """:func:`following` of a described chart (:func:`charts`)."""
    return following(fit, state, chart.view, chart.draw, *chart.after, before=chart.before,
                     **chart.kwargs)


class Fit(NamedTuple):
    """A fit as :func:`following` needs it: its trace, its grid and its cache key; a sweep
    cell's also its record (the browser's bytes, made with the fit and kept beside it;
    None: made when the fit is put on the page)."""

    trace: object
    grid: object
    key: str
    record: bytes | None = None


# the records put on the page in this run (the bar's first), and the bytes of each one's
# record and charts' tables
_PLACED = "_placed_records"
PAGE_BYTES = 48 * 2**20  # a page's records and tables, all charts together (the Sweep's)


# The fits last shown, by record key: tests apply a chart's bindings in Python
# (explorer.figures.bindings.figure_at) with its trace and grid
_FITS: OrderedDict = OrderedDict()
_FITS_LOCK = threading.Lock()  # sessions run in threads of their own


def _keep_fit(ctx) -> None:
    key = record_key(ctx)
    with _FITS_LOCK:
        _FITS[key] = ctx
        _FITS.move_to_end(key)
        while len(_FITS) > 8:
            _FITS.popitem(last=False)


def fit_of(key: str):
    """The page context (its trace and grid) of a fit last shown, by its record's name."""
    with _FITS_LOCK:
        return _FITS[key]


_WIDE_VIEWS = ("update", "tree", "curves")  # full-width charts: laid out wider in a file



def chart_config(state: State, view: str, *, fmt: str = "png",
                 size: tuple[int | None, int | None] = (None, None)) -> dict:
    """The plotly config of a chart: its toolbar camera downloads the chart laid out at
    a fixed size (``size``, else a width for the view and the figure's height) and
    scaled to :data:`IMAGE_WIDTH` pixels, as PNG or SVG, named after the data, the
    parameters, the view and the round. ``touch`` holds what a touch screen changes
    (:data:`TOUCH`: config and layout), and ``imageTitle`` the layout.meta key of the
    figure's title without interface hints (:data:`.hints.EXPORT_TITLE`), which the
    camera's image takes instead of the screen's: both for component.js, no plotly
    config."""
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
        "touch": TOUCH,
        "imageTitle": EXPORT_TITLE,
    }


def chart(drawn: Drawn | tuple, state: State, view: str, *, key: str | None = None,
          on_select=None, live: bool = False, draw: bool = False) -> None:
    """Draw a figure made by :func:`figure`, or the (template, step) of a chart that
    follows the round made by :func:`following`; on_select(key, points) is called when the
    user clicks a point (with ``draw``, anywhere on the plane: then the one point is
    {plane: true, x, y, dx, dy}, the place clicked and a pixel's size in data units).

    live=True for charts redrawn at every step of the round: they stay mounted and are
    updated in place (see component.js). Otherwise, and when the app's static folder is not
    served, Streamlit's st.plotly_chart draws the figure. ``step`` (from
    :func:`following`, with ``drawn`` its template) says how the chart follows the round
    in the browser.
    """
    drawn, step = drawn if isinstance(drawn, tuple) else (drawn, None)
    binding, step = (True, None) if step == LATER else (False, step)
    key = key or f"chart_{view}"
    # a chart that follows the round is the same at every round (its file name is bound)
    config = chart_config(state.with_round(0) if step else state, view,
                          fmt=st.session_state.get("imgfmt", "PNG"),
                          size=(drawn.width, drawn.height))
    url = plotly_url() if live else None
    component = chart_component() if url else None
    if component is None:  # Streamlit's own chart (rebuilt whenever the figure changes)
        fig = json.loads(drawn.json)
        config = {k: v for k, v in config.items()
                  if k not in ("touch", "imageTitle")}  # component.js's alone
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
    # a chart that follows the round is the same at every round: where the server serves
    # it by address, the rerun carries that instead of its JSON (blobs.py)
    src = _blob_url(drawn) if step and blobs.served() else None
    component(key=key, data={"figure": "" if src else drawn.json, "src": src,
                             "config": json.dumps(config), "plotly": url, "view": view,
                             "step": step or "null", "draw": draw, "binding": binding},
              on_click_change=clicked)


def _blob_url(drawn: Drawn) -> str:
    """The address the browser fetches ``drawn``'s JSON from (kept in blobs.py)."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + (base + "/" if base else "") + blobs.put(drawn.digest, drawn.json)


def _points(key: str) -> list[dict]:
    event = st.session_state.get(key)
    try:
        return list(event["selection"]["points"])
    except (KeyError, TypeError):
        return []



# --- stepping in the browser -------------------------------------------------------------

def _stepper():
    return module_component("explorer_stepper", "stepper.js", css=browser.CSS)


def record_key(ctx) -> str:
    """The name the browser keeps the fit's record under."""
    return hashlib.sha1(ctx.key.encode()).hexdigest()[:16]


# A record is about 9 bytes a point-round of the fit (the points budget: 2-3 million), so at
# most 12 x 27 MB; measured in a class, 0.4 MB (benchmarks/load.py --soak)
@st.cache_resource(max_entries=12, show_spinner=False)
def _record_bytes(fit_key: str, _trace, _grid) -> bytes:
    return encode(_trace, _grid, fit_key)


def round_bar(ctx, state: State, on_round, seq: int) -> bool:
    """The round bar that steps in the browser, with the fit's record sent once per fit
    (the charts that follow the round compute their terms from it); False where the
    browser cannot have it (no static folder: Streamlit's bar is used). ``seq`` is the
    count of the bar's step that set this round, or -1 when the server set it (the bar
    then shows it)."""
    modules = modules_url()
    if modules is None:
        return False
    key = record_key(ctx)
    record = _record_bytes(key, ctx.trace, ctx.grid)
    st.session_state[_PLACED] = {key: len(record)}
    _stepper()(key="explorer_record", data=record, height=0)
    _stepper()(key="stepper", data={"round": state.round, "rounds": ctx.trace.n_rounds,
                                    "present": state.present, "seq": seq},
               on_round_change=on_round)
    return True
