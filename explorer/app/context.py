"""One run's data and fit: the sidebar, the cached shared fits and grids, the page header.

``app.py`` calls :func:`setup` once per run (sidebar controls, data, fit) and
:func:`finish` after the page (the rest of the engine); each page calls :func:`page` for
its header and the context. A fit is computed once per data + parameters and shared by
every session (``st.cache_resource``, bounded); so is its grid. Uploads' fits are cached
per session only.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import NamedTuple

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from .. import data as datamod, dataset, drawn, fit, sweep as sweeping
from ..numbers import warmup
from ..numbers.grid import Grid, make_grid
from ..numbers.record import encode
from ..lessons import LESSONS
from ..settings import Settings
from ..state import State
from . import controls, drawing as draw, store
from .component import Fit, bind_later, forget_later, record_key
from .figure_cache import name as name_shared

_CTX = "_ctx"
_ROUTED = "_routed"


@dataclass(frozen=True, eq=False)
class Context:
    """The data and the fit the pages show (the State of the run comes with the round)."""

    trace: object
    grid: Grid
    train: datamod.Dataset
    valid: datamod.Dataset | None
    upload: bool  # the data is the user's file
    key: str  # identifies data + parameters: uirevision of the charts, cache key
    data_key: str = ""  # identifies the data alone
    note: str = ""  # what was done to fit within the server's budget, if anything

    @property
    def feature_names(self):
        return self.train.feature_names

    @property
    def classes(self):
        return self.train.classes or ("0", "1")

    @property
    def target_name(self) -> str:
        return self.train.target_name

    @property
    def names(self) -> dict:
        """The names a figure's labels take: features, classes and target."""
        return dict(feature_names=self.feature_names, classes=self.classes,
                    target_name=self.target_name)

    @property
    def data_label(self) -> str:
        """A plain-text description of the data (may contain upload text: escape for markdown)."""
        valid = f", {len(self.valid.y)} held out" if self.valid is not None else ""
        name = "upload " + self.train.name if self.upload else self.train.name
        note = f" ({self.note})" if self.note else ""
        return f"{name}: {len(self.train.y)} training points{valid}{note}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&\"'])")


def md_escape(text) -> str:
    """Text made inert for Streamlit markdown: every ASCII punctuation mark backslash-escaped.

    Upload text (file, column and class names, and the DataError messages that quote
    them) goes through this before any st.markdown / st.error / st.caption.
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


# --- caches ----------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _engine() -> warmup.Background:
    """The engine compiled once per server process, part by part on a background thread:
    the default page's parts first (the first run waits for those), then the rest."""
    return warmup.Background(warmup.PARTS, report=_log_part).start()


def _log_part(k, n, part, seconds):
    print(f"explorer: compiled part {k} of {n} ({part.name}) in {seconds:.1f} s",
          file=sys.stderr, flush=True)


LOADED = 2.0  # seconds: the first parts took less, so numba's cache held them


def _wait_for_first_parts(engine: warmup.Background) -> None:
    """Hold the run until the default page's parts are compiled, saying which part is
    compiling and about how long is left."""
    first = len(warmup.FIRST)
    if not engine.wait(first, timeout=0):
        box = st.empty()
        while not engine.wait(first, timeout=0.5):
            box.info(compiling_message(engine), icon=":material/hourglass_top:")
        box.empty()


def compiling_message(engine: warmup.Background) -> str:
    """Which part of the engine is compiling, of how many, and about how long is left."""
    first = len(warmup.FIRST)
    part = engine.current
    name = f" ({part.name})" if part is not None else ""
    if engine.done < first:
        return (f"Compiling the boosting engine: part {engine.done + 1} of {engine.total}"
                f"{name}, about {engine.seconds_left(first):.0f} s more before the first chart. "
                "This happens once on a new machine (numba keeps the result on disk); the "
                f"other {engine.total - first} parts follow in the background.")
    return (f"Compiling the rest of the engine in the background: part {engine.done + 1} of "
            f"{engine.total}{name}, about {engine.seconds_left():.0f} s more. A fit that "
            "needs it meanwhile waits for it.")


def _rest_progress(engine: warmup.Background) -> None:
    """The background compile's progress in the sidebar, refreshed every second until it
    ends; then one rerun of the app removes it (and its timer)."""
    if engine.stopped:
        return

    @st.fragment(run_every=1.0)
    def progress():
        if engine.stopped:
            st.rerun()
        st.progress(engine.done / engine.total, text=compiling_message(engine))

    with st.sidebar:
        progress()


def _fit(_train, _valid, params: dict):
    Xv = None if _valid is None else _valid.X
    yv = None if _valid is None else _valid.y
    return fit(_train.X, _train.y, X_valid=Xv, y_valid=yv, **params)


# The shared fits and grids, bounded in entries whose bytes the points budget bounds: a fit
# is at most dataset.MAX_POINT_ROUNDS_BY_SPLIT's 3,000,000 point-rounds of about 10 bytes
# (30 MB), a grid GRID_CELL_ROUNDS' 10 MB; so at most 12 x 30 = 360 MB of fits and
# 12 x 10 = 120 MB of grids (measured in a class: 3 and 35 MB, benchmarks/load.py --soak).
# An upload's are per session: 2 x 40 MB.
@st.cache_resource(max_entries=12, show_spinner="Fitting the trees…")
def _fitted(data_key: str, params_key: tuple, _train, _valid, _params: dict):
    return _fit(_train, _valid, _params)


@st.cache_resource(max_entries=2, scope="session", show_spinner="Fitting the trees…")
def _fitted_upload(data_key: str, params_key: tuple, _train, _valid, _params: dict):
    return _fit(_train, _valid, _params)


@st.cache_resource(max_entries=12, show_spinner=False)
def _grid(fit_key: str, _trace, around) -> Grid:
    return make_grid(_trace, around=around)


@st.cache_resource(max_entries=2, scope="session", show_spinner=False)
def _grid_upload(fit_key: str, _trace, around) -> Grid:
    return make_grid(_trace, around=around)


def _fitted_with_grid(state: State, data_key: str, train, valid):
    """(trace, grid, key) of ``state``'s fit parameters on this data, from the caches."""
    params = state.fit_params()
    params_key = tuple(sorted(params.items()))
    cached_fit, cached_grid = ((_fitted_upload, _grid_upload) if state.own_data
                               else (_fitted, _grid))
    key = f"{data_key}|{params_key}"
    trace = name_shared(cached_fit(data_key, params_key, train, valid, params), key)
    # drawn points: the plane keeps the place the teacher draws on, edit after edit
    around = drawn.BOX if state.is_drawn else None
    return trace, name_shared(cached_grid(key, trace, around), key + "|grid"), key


# --- one run ---------------------------------------------------------------------------


def setup() -> None:
    """Draw the sidebar, make the data and the fit, and keep them for the page."""
    engine = _engine()  # numba's cache loads on its thread while the sidebar is drawn
    forget_later()  # a run cut short left its charts to bind: this run lists its own
    state = store.current()
    got = controls.data(state)
    controls.fit(state)
    controls.lessons(state)
    controls.presenting(state)
    st.sidebar.caption("Every setting is in the page's address: copy the link to share "
                       "this exact view.")
    st.session_state[_ROUTED] = True
    goto = st.session_state.pop(controls.GOTO, None)
    if goto:
        st.switch_page(f"pages/{goto}.py")
    _wait_for_first_parts(engine)
    st.session_state[_CTX] = (None, got.message) if got.train is None else _context(state, got)


def finish() -> None:
    """After the page: the rest of the engine. When the first parts came from numba's
    cache, the rest does too, in a second or so: wait for it here, once the page is on its
    way, so that no progress bar or rerun comes after the first chart. Else its progress
    shows in the sidebar."""
    engine = _engine()
    if sum(engine.seconds.get(part.name, LOADED) for part in warmup.FIRST) < LOADED:
        engine.wait(timeout=10 * LOADED)
    _rest_progress(engine)
    bind_later()


def _context(state: State, got: dataset.Data):
    """(context, None), or (None, the message that says why there is none)."""
    try:
        trace, grid, key = _fitted_with_grid(state, got.key, got.train, got.valid)
    except ValueError as error:
        return None, f"These settings cannot be fitted: {error}"
    return Context(trace, grid, got.train, got.valid, state.is_upload, key, got.key,
                   got.note), None


def variant(ctx: Context, state: State, flip: float = 0.0):
    """Another setting's fit of the page's data, cached like the main fit (Compare page).

    ``flip`` flips that share of the training labels first. Returns (trace, grid, key);
    raises ValueError (DataError, DivergedError) when the setting cannot be fitted.
    """
    train = datamod.flip_labels(ctx.train, flip, seed=state.dseed) if flip else ctx.train
    data_key = f"{ctx.data_key}|flip{flip}" if flip else ctx.data_key
    return _fitted_with_grid(state, data_key, train, ctx.valid)


def _ensure_routed() -> None:
    """Make sure this run went through app.py's router.

    Streamlit remembers, per process, whether the app folder has a ``pages/``
    directory, and until the first run has called ``st.navigation`` it serves
    ``/<page>`` by running ``pages/<page>.py`` directly (the legacy multipage
    mode), skipping app.py: the first visitor of a fresh server who opens a
    shared link would get a page with no sidebar and no data. (AppTest resets
    that memory before every run.) Switch the legacy mode off and rerun; the
    rerun goes through app.py to the same page.
    """
    if PagesManager.uses_pages_directory or not st.session_state.get(_ROUTED):
        PagesManager.uses_pages_directory = False
        st.rerun()


def lesson(ctx: Context, state: State, page: str, *traces) -> None:
    """The caption of the lesson this state is, on the lesson's page, with the numbers of
    the fits on screen (the page's own, or the Compare page's two). Only while the data
    and fit settings on screen are the lesson's (State ends the lesson when one changes)."""
    chosen = LESSONS.get(state.lesson)
    if chosen is not None and chosen.page == page and state.is_lesson:
        args = (ctx.trace,) if not traces else (*traces, state, ctx.train)
        st.info(f"**Lesson: {chosen.title}.** {md_escape(chosen.caption(*args))}",
                icon=":material/school:")


# Presenter mode on a projector: the round bar and the first row of charts fit in the
# window without a scroll (1280 x 720 and 1024 x 768; the charts' heights are
# explorer/figures/presenter.py's). The controls between the bar and the first charts are
# hidden, as controls.py hides the sidebar's (Compare's pair, the Splits node, the Sweep's
# axes: they keep their values, the link holds them). In a short window (a projector; the
# measure is the window's height) the header folds away: the page's title and settings
# line go (the top bar's links name the page, the charts' titles the round and the
# setting) and the exit button moves into the top bar, so that the round bar comes first
# (at 1280 x 720 and 1024 x 768 it ends 126 px down, and the first row of charts starts
# at 139 px).
_PRESENT_FOLD = """<style>
.st-key-pair, .st-key-splits_node,
[data-testid="stHorizontalBlock"]:has(.st-key-sweep_axis) { display: none !important; }
/* the Tree page's plane keeps the width its larger leaf labels are placed for (stepper.css
   keeps the screen's 456 px; a phone opening a presenter's link scrolls it in its frame) */
.explorer-chart[data-view="regions"] { min-width: 500px; }
@media (max-height: 820px) {
  .block-container { padding-top: 4rem; }  /* the top bar's height */
  .block-container [data-testid="stVerticalBlock"] { gap: 0.4rem; }
  .st-key-explorer_record, [class*="st-key-record_"] { display: none; }
  .block-container .st-key-present_exit { position: fixed; top: 0.8rem; right: 3.5rem;
    width: auto; z-index: 999991; }
  .st-key-page_title, .st-key-page_caption,
  [data-testid="stLayoutWrapper"]:has(> .st-key-page_title) + [data-testid="stElementContainer"]:has(
    [data-testid="stCaptionContainer"]) { display: none; }  /* (Compare writes its own) */
}
</style>"""


def page(title: str, drawing: bool = False, caption: bool = True) -> Context:
    """Guard the router, print the page header, return the context (or stop with a message).

    ``drawing``: the page where points are drawn by hand (the Model page). On drawn data
    it shows the drawing tools, and while the points are too few to fit, the bare plane
    to draw on. ``caption``: the settings line under the title (False: the page writes
    its own, as Compare does for its two fits).
    """
    _ensure_routed()
    ctx, error = st.session_state.get(_CTX, (None, None))
    drawing = drawing and store.peek().is_drawn
    if ctx is None:
        st.subheader(title)
        if drawing:
            state = store.peek()
            draw.tools(state)
            draw.canvas(state, md_escape(error))
        elif error:
            st.error(md_escape(error), icon=":material/error:")
        finish()  # what app.py would call after the page: nothing is drawn after st.stop
        st.stop()
    if store.peek().present:
        st.html(_PRESENT_FOLD)
    st.container(key="page_title").markdown(f"#### {title}")
    if caption:
        st.container(key="page_caption").caption(
            Settings.of(ctx.trace.params).caption(md_escape(ctx.data_label)))
    if drawing:
        draw.tools(store.peek())
    return ctx


# --- the Sweep page's fits -------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _sweep_fits() -> sweeping.FitCache:
    """The sweep cells' fits, grids and records, for every session:
    :data:`explorer.sweep.CACHE_BYTES` at most."""
    return sweeping.FitCache()


def _cell_job(job) -> tuple:
    """Fit one cell (on a worker thread): (its Fit, with its record, or the ValueError that
    stopped it; its bytes)."""
    key, train, valid, params = job
    try:
        trace = fit(train.X, train.y, X_valid=None if valid is None else valid.X,
                    y_valid=None if valid is None else valid.y, **params)
    except ValueError as error:
        return error, 0
    grid = make_grid(trace, resolution=None if trace.X.shape[1] == 1 else sweeping.GRID)
    # named, so that the figure caches know the same fit again (figure_cache.token)
    name_shared(trace, key)
    name_shared(grid, key + "|grid")
    fitted = Fit(trace, grid, key)
    # the record is named as the browser asks for it, as every fit's is
    fitted = fitted._replace(record=encode(trace, grid, record_key(fitted)))
    return fitted, trace.nbytes + grid.F.nbytes + len(fitted.record)


def sweep_cells(ctx: Context, sweep: sweeping.Sweep, progress=None) -> list:
    """Each cell's :class:`~.component.Fit` (or the ValueError that stopped its fit), fitted on
    threads where not cached, ``progress(done, total)`` after each; or a str saying which
    setting to reduce when the sweep passes :data:`explorer.sweep.MAX_POINT_ROUNDS`."""
    jobs = []
    for cell in sweep.cells:
        train, valid, data_key = ctx.train, ctx.valid, ctx.data_key
        if sweep.own_data:  # the noise or the points swept: each cell its own toy set
            made = dataset.make(cell.state)
            if made.train is None:
                return f"{cell.label}: {made.message}"
            train, valid, data_key = made.train, made.valid, made.key
        params = cell.state.fit_params()
        key = f"sweep|{data_key}|{tuple(sorted(params.items()))}"
        jobs.append((key, (key, train, valid, params)))
    cost = sum(len(train.y) * params["n_rounds"] for _, (_, train, _, params) in jobs)
    if cost > sweeping.MAX_POINT_ROUNDS:
        return (f"This sweep would fit {cost:,} point-rounds (training points × rounds, over "
                f"its {len(jobs)} cells); this server fits {sweeping.MAX_POINT_ROUNDS:,} at "
                "once. Reduce the rounds, the points, or the values swept.")
    return sweeping.fit_cells(jobs, _sweep_fits(), _cell_job, progress)
