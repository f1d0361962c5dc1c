"""The app's Streamlit side: controls, caches, the round bar and chart helpers.

The only module of ``explorer`` that imports Streamlit (the engine, the data,
the state and the figures do not). ``app.py`` calls :func:`setup` once per run
(sidebar controls, data, fit); each page calls :func:`page_context` and then
:func:`run_page` with a body function that draws its views at the round m.

State: every field of :mod:`explorer.state` lives in ``st.session_state`` under
its URL key. The data and fit fields, the round and the view toggles are
widgets bound to the URL (``bind="query-params"``); the selected sample and
leaf are set by clicks on charts as well as by widgets, so they are kept under
their keys by hand and written to ``st.query_params`` on every run.
:func:`current_state` reads all of them into one :class:`~explorer.state.State`.

Caching: a fit is computed once per data + parameters and shared by every
session (``st.cache_resource``, bounded); so are the grid predictions, and each
figure is drawn once for every session that shows it (:func:`figure`,
``explorer.figure_cache``). Uploads' fits are cached per session only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from .. import data as datamod, fit
from ..upload import read_table, to_dataset
from ..numbers import summaries
from ..numbers.grid import Grid, make_grid
from .figure_cache import Drawn, FigureCache, name as name_shared
from ..state import BY_KEY, DATASETS, LEAF_CHOICES, LOSSES, TASKS, TOY_SETS, UPLOAD, State

PLAY_INTERVAL = 0.7  # seconds between rounds while playing
MAX_UPLOAD_MB = 5
# A session keeps its fit (about 11 bytes a point-round, plus its grid and figures); 30
# sessions each fitting this much measured 1.11 GB on the server (load.py --heavy 1000x500).
MAX_POINT_ROUNDS = 500_000

# Everything a page needs for one run; stored in st.session_state by app.py.
_CTX = "_ctx"
_ROUTED = "_routed"


@dataclass(frozen=True, eq=False)
class Context:
    """The data, the fit and what the pages show about them (the round is read separately)."""

    state: State
    trace: object
    grid: Grid
    train: datamod.Dataset
    valid: datamod.Dataset | None
    key: str  # identifies data + parameters: uirevision of the charts, cache key
    data_key: str = ""  # identifies the data alone

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
        name = "upload " + self.train.name if self.state.is_upload else self.train.name
        return f"{name}: {len(self.train.y)} training points{valid}"


# --- text safety -----------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&\"'])")


def md_escape(text) -> str:
    """Text made inert for Streamlit markdown: every ASCII punctuation mark backslash-escaped.

    Upload text (file, column and class names, and the DataError messages that quote
    them) goes through this before any st.markdown / st.error / st.caption.
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


# --- router guard ----------------------------------------------------------------------


def ensure_routed() -> None:
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


def mark_routed(ctx: Context | None, error: str | None) -> None:
    st.session_state[_ROUTED] = True
    st.session_state[_CTX] = (ctx, error)


# --- caches ----------------------------------------------------------------------------


@st.cache_resource(show_spinner="Compiling the boosting engine (first start of the server "
                                "only; this takes a few seconds)…")
def _warm() -> bool:
    summaries.warm_up()
    return True


@st.cache_resource(max_entries=32, show_spinner=False)
def _toy(name: str, n: int, noise: float, balance: float, dseed: int, valid: float):
    ds = datamod.make_toy(name, n=n, noise=noise, balance=balance, seed=dseed)
    train, held = datamod.split(ds, valid, dseed)
    return train, held, datamod.dataset_hash(train) + (datamod.dataset_hash(held) if held else "")


def _fit(_train, _valid, params: dict):
    Xv = None if _valid is None else _valid.X
    yv = None if _valid is None else _valid.y
    return fit(_train.X, _train.y, X_valid=Xv, y_valid=yv, **params)


@st.cache_resource(max_entries=12, show_spinner="Fitting the trees…")
def _fitted(data_key: str, params_key: tuple, _train, _valid, _params: dict):
    return _fit(_train, _valid, _params)


@st.cache_resource(max_entries=2, scope="session", show_spinner="Fitting the trees…")
def _fitted_upload(data_key: str, params_key: tuple, _train, _valid, _params: dict):
    return _fit(_train, _valid, _params)


@st.cache_resource(max_entries=12, show_spinner=False)
def _grid(fit_key: str, _trace) -> Grid:
    return make_grid(_trace)


@st.cache_resource(max_entries=2, scope="session", show_spinner=False)
def _grid_upload(fit_key: str, _trace) -> Grid:
    return make_grid(_trace)


@st.cache_data(max_entries=4, scope="session", show_spinner="Reading the file…")
def _read_upload(digest: str, _raw: bytes, name: str):
    class _Named:  # read_table takes the file name from the object
        def __init__(self, raw, name):
            self._raw, self.name = raw, name

        def read(self, k=-1):
            return self._raw if k < 0 else self._raw[:k]
    return read_table(_Named(_raw, name), max_bytes=MAX_UPLOAD_MB * 2**20)


# --- sidebar controls ------------------------------------------------------------------


def _field_widget(key: str, container=st, disabled: bool = False) -> None:
    """Draw the bound widget of one data or fit field."""
    f = BY_KEY[key]
    common = dict(key=key, help=f.help, bind="query-params", disabled=disabled)
    if key in ("split", "leafrule"):
        container.selectbox(f.label, f.choices, **common)
    elif key == "data":
        # plain names: a bound select box writes its shown text into the URL
        container.selectbox(f.label, DATASETS, **common)
    elif key == "task":
        container.radio(f.label, TASKS, horizontal=True, **common)
    elif key == "loss":
        container.radio(f.label, LOSSES, horizontal=True, **common)
    elif key == "leaves":
        container.select_slider(f.label, LEAF_CHOICES, value=f.default, **common)
    elif key in ("dseed", "seed"):
        container.number_input(f.label, int(f.low), int(f.high), int(f.default), int(f.step),
                               **common)
    elif f.kind is int:
        container.slider(f.label, int(f.low), int(f.high), int(f.default), int(f.step), **common)
    else:
        container.slider(f.label, float(f.low), float(f.high), float(f.default),
                         float(f.step), **common)


_NO_FEATURE = "(none: one input)"


def _sidebar_data() -> tuple[object, object, str] | str:
    """Data controls; returns (train, valid, data key) or an error message."""
    st.sidebar.header("Data")
    _field_widget("data", st.sidebar)
    ss = st.session_state
    if ss["data"] != UPLOAD:
        # one list holds both tasks' sets: the set decides the task, said under it
        regression = ss["data"] in TOY_SETS["regression"]
        st.sidebar.caption("Regression: predict the number y from x (squared error)."
                           if regression else "Classification: two classes.")
        for key in ("n", "noise", "balance"):
            _field_widget(key, st.sidebar, disabled=key == "balance" and regression)
        c1, c2 = st.sidebar.columns(2)
        with c1:
            _field_widget("dseed")
        with c2:
            _field_widget("valid")
        try:
            return _toy(ss["data"], int(ss["n"]), float(ss["noise"]), float(ss["balance"]),
                        int(ss["dseed"]), float(ss["valid"]))
        except (datamod.DataError, ValueError) as error:
            return str(error)
    _field_widget("task", st.sidebar)
    regression = ss.get("task") == "regression"
    upload = st.sidebar.file_uploader(
        f"CSV file (at most {MAX_UPLOAD_MB} MB)", type=["csv", "txt", "tsv"], key="upload_file",
        help="A header row, then one row per point; comma, semicolon or tab separated. "
             "Choose two numeric feature columns (one is enough for a regression) and a "
             "label column: two classes, or the numbers to predict.")
    c1, c2 = st.sidebar.columns(2)
    with c1:
        _field_widget("dseed")
    with c2:
        _field_widget("valid")
    if upload is None:
        return ("Upload a CSV file in the sidebar (a header row, then one row per point), "
                "or choose a toy dataset.")
    raw = upload.getvalue()
    digest = hashlib.sha1(raw).hexdigest()
    try:
        table = _read_upload(digest, raw, upload.name)
    except datamod.DataError as error:
        return str(error)
    columns = list(table.columns)
    numeric = list(table.numeric_columns)
    default_label = columns[-1]
    features = [c for c in numeric if c != default_label][:2] or columns[:2]
    second = (numeric or columns) + ([_NO_FEATURE] if regression else [])
    choices = {"up_x": (numeric or columns, features[0] if features else columns[0]),
               "up_y": (second, features[1] if len(features) > 1 else second[-1]),
               "up_label": (columns, default_label)}
    for key, (options, default) in choices.items():
        if ss.get(key) not in options:
            ss[key] = default
    st.sidebar.selectbox("Feature on the x axis", choices["up_x"][0], key="up_x")
    st.sidebar.selectbox("Feature on the y axis", second, key="up_y")
    st.sidebar.selectbox("Target (numbers)" if regression else "Label (two classes)", columns,
                         key="up_label")
    chosen = [ss["up_x"]] + ([] if ss["up_y"] == _NO_FEATURE else [ss["up_y"]])
    try:
        ds = to_dataset(table, chosen, ss["up_label"],
                                task="regression" if regression else "classification")
        train, held = datamod.split(ds, float(ss["valid"]), int(ss["dseed"]))
    except (datamod.DataError, ValueError) as error:
        return str(error)
    return train, held, "upload:" + datamod.dataset_hash(train) + (
        datamod.dataset_hash(held) if held is not None else "")


def _sidebar_fit(regression: bool) -> None:
    st.sidebar.header("Boosting")
    if regression:
        st.sidebar.markdown("Loss: squared error ½(y − F)²")
        # second-order trees here are xgboost's for the log-loss
        st.session_state["split"] = BY_KEY["split"].default
    else:
        _field_widget("loss", st.sidebar)
    for key in ("rounds", "lr", "depth"):
        _field_widget(key, st.sidebar)
    _field_widget("split", st.sidebar, disabled=regression)
    hessian = st.session_state.get("split") == "hessian"
    # Second-order (xgboost exact) trees have no leaf limit, subsample, minimum leaf
    # size or leaf rule: those controls are disabled (and ignored by State.fit_params).
    for key in ("leafrule", "leaves", "minleaf", "subsample"):
        _field_widget(key, st.sidebar, disabled=hessian)
    if hessian:
        for key in ("lam", "gamma", "mcw"):
            _field_widget(key, st.sidebar)
        st.sidebar.caption("Second-order trees: log-loss only; the leaf rule, leaf limit, "
                           "minimum leaf size and subsample do not apply.")
    _field_widget("seed", st.sidebar)


# Presenter mode hides the controls with CSS rather than not drawing them: a keyed
# widget that is not drawn loses its value, and the data and fit live in the widgets.
_PRESENT_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], .st-key-showvalid, .st-key-_w_leaf,
.st-key-_w_sample { display: none !important; }
.block-container { max-width: 100%; }
.block-container h4 { font-size: 2rem; }
.st-key-round_label p { font-size: 1.35rem; }
</style>"""


def _exit_present() -> None:
    st.session_state["present"] = False


def _sidebar_present() -> None:
    """The presenter-mode toggle and the toolbar image format; when presenting, hide the
    controls and show a small exit button instead."""
    st.sidebar.header("Presenting")
    f = BY_KEY["present"]
    ss = st.session_state
    # Kept in the URL by hand (as the selection is), not by bind="query-params": a bound
    # toggle drops ?present=1, and the flag should accept 1 as well as true.
    qp = st.query_params
    if "present" not in ss:
        ss["present"] = f.parse(qp.get("present"))
    st.sidebar.toggle(f.label, key="present", help=f.help)
    text = f.format(True) if ss["present"] else None
    if qp.get("present") != text:
        if text is None:
            del qp["present"]
        else:
            qp["present"] = text
    st.sidebar.radio("Chart toolbar downloads", IMAGE_FORMATS, key="imgfmt",
                     horizontal=True,
                     help=f"The camera in each chart's toolbar saves it as a PNG "
                          f"{IMAGE_WIDTH} px wide or as an SVG (vector) image.")
    if st.session_state.get("present"):
        st.html(_PRESENT_CSS)
        st.button("Exit presenter mode", key="present_exit", on_click=_exit_present,
                  icon=":material/close_fullscreen:", type="tertiary",
                  help="Show the controls again (or remove present=true from the address).")


def setup() -> tuple[Context | None, str | None]:
    """Draw the sidebar, make the data and the fit; returns (context, error message)."""
    preload_charts()
    _warm()
    got = _sidebar_data()
    _sidebar_fit(current_state().is_regression)
    _sidebar_present()
    st.sidebar.caption("Every setting is in the page's address: copy the link to share "
                       "this exact view.")
    if isinstance(got, str):
        return None, got
    train, held, data_key = got
    state = current_state()
    params = state.fit_params()
    params_key = tuple(sorted(params.items()))
    if len(train.y) * state.rounds > MAX_POINT_ROUNDS:
        return None, (f"{len(train.y):,} training points × {state.rounds} rounds is more than "
                      f"this server fits for one setting ({MAX_POINT_ROUNDS:,} point-rounds): "
                      "lower the number of points or the rounds.")
    cached_fit, cached_grid = ((_fitted_upload, _grid_upload) if state.is_upload
                               else (_fitted, _grid))
    try:
        trace = cached_fit(data_key, params_key, train, held, params)
    except ValueError as error:
        return None, f"These settings cannot be fitted: {error}"
    fit_key = f"{data_key}|{params_key}"
    grid = name_shared(cached_grid(fit_key, trace), fit_key + "|grid")
    return Context(state, name_shared(trace, fit_key), grid, train, held, fit_key, data_key), None


def variant(ctx: Context, state: State, flip: float = 0.0):
    """Another setting's fit of the page's data, cached like the main fit (Compare page).

    ``flip`` flips that share of the training labels first. Returns (trace, grid, key);
    raises ValueError (DataError, DivergedError) when the setting cannot be fitted.
    """
    train = datamod.flip_labels(ctx.train, flip, seed=state.dseed) if flip else ctx.train
    data_key = f"{ctx.data_key}|flip{flip:g}" if flip else ctx.data_key
    params = state.fit_params()
    params_key = tuple(sorted(params.items()))
    cached_fit, cached_grid = ((_fitted_upload, _grid_upload) if state.is_upload
                               else (_fitted, _grid))
    key = f"{data_key}|{params_key}"
    trace = name_shared(cached_fit(data_key, params_key, train, ctx.valid, params), key)
    return trace, name_shared(cached_grid(key, trace), key + "|grid"), key


def current_state() -> State:
    """The one State, read from session state (widgets, round, selection)."""
    ss = st.session_state
    values = {key: ss.get(key) for key in BY_KEY}
    values["sample"] = ss.get("sel_sample")
    values["leaf"] = ss.get("sel_leaf")
    return State.from_mapping(values)


# --- page scaffolding ------------------------------------------------------------------


def page_context(title: str) -> Context:
    """Guard the router, print the page header, return the context (or stop with a message)."""
    ensure_routed()
    ctx, error = st.session_state.get(_CTX, (None, None))
    if ctx is None:
        st.subheader(title)
        if error:
            st.error(md_escape(error), icon=":material/error:")
        st.stop()
    s = ctx.state
    sub = f", subsample {s.subsample:g}" if s.subsample < 1 else ""
    st.markdown(f"#### {title}")
    if s.is_hessian:
        rule = (f"second-order trees (λ = {s.lam:g}, γ = {s.gamma:g}, "
                f"min child weight {s.mcw:g})")
    else:
        limit = f"≤ {s.leaves} leaves, " if s.leaves else ""
        rule = f"{limit}min {s.minleaf} per leaf{sub}, {s.leafrule} leaves"
    st.caption(f"{md_escape(ctx.data_label)} · {s.loss_name}, M = {s.rounds}, ν = {s.lr:g}, "
               f"depth ≤ {s.depth}, {rule}, seed {s.seed}")
    return ctx


def _sync_selection(ctx: Context) -> tuple[int, int]:
    """The selected sample and leaf: seeded from the URL once, clamped, written back to it."""
    ss = st.session_state
    qp = st.query_params
    if "sel_sample" not in ss:
        ss["sel_sample"] = BY_KEY["sample"].parse(qp.get("sample"))
    if "sel_leaf" not in ss:
        ss["sel_leaf"] = BY_KEY["leaf"].parse(qp.get("leaf"))
    n = len(ctx.trace.y)
    ss["sel_sample"] = min(max(int(ss["sel_sample"]), 0), n - 1)
    for key, state_key in (("sample", "sel_sample"), ("leaf", "sel_leaf")):
        value = ss[state_key]
        text = None if value == BY_KEY[key].default else str(value)
        if qp.get(key) != text:
            if text is None:
                del qp[key]
            else:
                qp[key] = text
    return ss["sel_sample"], ss["sel_leaf"]


def _acted() -> None:
    st.session_state["_acted"] = True


def mark_acted() -> None:
    """on_change callback for any widget inside a page's fragment (so play does not step)."""
    _acted()


def _go(target: str) -> None:
    """Callback of the round buttons."""
    ss = st.session_state
    _acted()
    ss["_playing"] = False
    M = ss.get("_M", 1)
    m = int(ss.get("round", 0))
    ss["round"] = {"first": 0, "prev": max(m - 1, 0), "next": min(m + 1, M), "last": M}[target]


def _toggle_play() -> None:
    ss = st.session_state
    _acted()
    ss["_playing"] = not ss.get("_playing", False)
    if ss["_playing"] and int(ss.get("round", 0)) >= ss.get("_M", 1):
        ss["round"] = 0  # play from the start when at the end


def round_bar(ctx: Context) -> int:
    """First / previous / slider / next / last / play; returns the current round m.

    Runs inside the page's fragment: a step reruns only the fragment.
    """
    ss = st.session_state
    M = ctx.trace.n_rounds
    ss["_M"] = M
    playing = ss.get("_playing", False)
    if playing != ss.get("_timer", False):
        st.rerun(scope="app")  # start or stop the fragment's timer
    full_run = ss.pop("_full_run", False)
    acted = ss.pop("_acted", False)
    # The round: clamp it when the number of rounds shrank (a bound slider would reset).
    if "round" in ss:
        if ss["round"] > M:
            ss["round"] = M
    else:
        wanted = BY_KEY["round"].parse(st.query_params.get("round"))
        if wanted > M:
            ss["round"] = M
    if playing and not full_run and not acted:
        step = max(1, M // 100)
        ss["round"] = min(int(ss.get("round", 0)) + step, M)
        if ss["round"] >= M:
            ss["_playing"] = False
    if ss.get("present"):  # presenter mode: a minimal stepper (previous, slider, next, play)
        cols = st.columns([1.4, 0.8, 8, 0.8, 1.2], vertical_alignment="center")
        cols = [cols[0], None, cols[1], cols[2], cols[3], None, cols[4]]
    else:
        cols = st.columns([1.6, 1, 1, 6, 1, 1, 1.4], vertical_alignment="center")
    label = cols[0].container(key="round_label").empty()
    if cols[1] is not None:
        cols[1].button("", icon=":material/first_page:", key="first", on_click=_go,
                       args=("first",), help="Round 0", shortcut="Home", width="stretch")
    cols[2].button("", icon=":material/chevron_left:", key="prev", on_click=_go,
                   args=("prev",), help="Previous round", shortcut="PageUp",
                   width="stretch")
    with cols[3]:
        m = st.slider("Round m", min_value=0, max_value=M, step=1, key="round",
                      bind="query-params", on_change=_acted, label_visibility="collapsed",
                      help="Round 0 is the constant f0; round m adds tree m.")
    cols[4].button("", icon=":material/chevron_right:", key="next", on_click=_go,
                   args=("next",), help="Next round (a presenter's clicker works too)",
                   shortcut="PageDown", width="stretch")
    if cols[5] is not None:
        cols[5].button("", icon=":material/last_page:", key="last", on_click=_go,
                       args=("last",), help=f"Round {M}", shortcut="End", width="stretch")
    playing = ss.get("_playing", False)
    cols[6].button("Pause" if playing else "Play", key="play", on_click=_toggle_play,
                   icon=":material/pause:" if playing else ":material/play_arrow:",
                   type="primary" if playing else "secondary", width="stretch",
                   help="Step through the rounds automatically")
    label.markdown(f"**Round {int(m)}** / {M}")
    return int(m)


def run_page(body, ctx: Context) -> None:
    """Run a page's body in a fragment (with a timer while playing)."""
    ss = st.session_state
    playing = ss.get("_playing", False)
    ss["_timer"] = playing
    ss["_full_run"] = True
    st.fragment(body, run_every=PLAY_INTERVAL if playing else None)(ctx)


def view_state(ctx: Context, m: int) -> State:
    """The State for this run: the context's, with the round and the selection filled in."""
    sample, leaf = _sync_selection(ctx)
    return replace(ctx.state, round=m, sample=sample, leaf=leaf,
                   showvalid=bool(st.session_state.get("showvalid", False)))


# --- the shared figure cache ------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _figures() -> FigureCache:
    """The server's one figure cache (32 MB of JSON at most)."""
    return FigureCache()


def figure(draw, *args, **kwargs) -> Drawn:
    """``draw(*args, **kwargs)`` (a pure figure function), drawn once for every session
    that asks for the same call, in presenter mode when this session presents."""
    return _figures().draw(draw, args, kwargs, bool(st.session_state.get("present")))


# --- chart helpers ---------------------------------------------------------------------


IMAGE_WIDTH = 1920  # pixels: the toolbar's PNG, whatever the window's size
IMAGE_FORMATS = ("PNG", "SVG")
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


# A chart that stays mounted: st.plotly_chart gives a chart a new identity whenever its
# figure changes, so every step of the round would tear down and rebuild each chart
# (WebGL contexts included). This component keeps one plotly.js graph per key and
# updates it with Plotly.react; clicks come back as a trigger value. plotly.js is the
# copy that ships with the plotly package, served from the app's static folder.
_PLOT_JS = r"""
function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__explorerPlotly) {
    window.__explorerPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly.js did not load from " + url));
      document.head.appendChild(script);
    });
  }
  return window.__explorerPlotly;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (data.preload) {  // drawn early in the sidebar: start fetching plotly.js at once
    loadPlotly(data.preload).catch(() => {});
    return;
  }
  let gd = parentElement.querySelector(".explorer-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "explorer-chart";
    gd.style.width = "100%";
    parentElement.appendChild(gd);
  }
  gd.__trigger = setTriggerValue;
  gd.setAttribute("data-view", data.view);
  const figure = JSON.parse(data.figure);
  gd.style.minHeight = (figure.layout.height || 450) + "px";
  // plotly.js rebuilds the whole graph (WebGL contexts too) when the config changes:
  // keep the first config and only update the image file name, which names the round.
  if (!gd.__config) gd.__config = data.config;
  const imageOptions = data.config.toImageButtonOptions;
  loadPlotly(data.plotly).then((Plotly) =>
    Plotly.react(gd, figure.data, figure.layout, gd.__config).then(() => {
      if (gd._context && gd._context.toImageButtonOptions) {
        // the file name names the round; the size and format follow the figure and the
        // sidebar's choice. Update the options object in place: a new object would
        // differ from the config react is given, and plotly.js would rebuild the graph
        // (WebGL contexts and all) at every step.
        Object.assign(gd._context.toImageButtonOptions, imageOptions);
      }
      if (gd.__bound) return;
      gd.__bound = true;
      gd.on("plotly_click", (event) => {
        const points = (event.points || []).map((p) => ({
          x: p.x, y: p.y, curve: p.curveNumber, index: p.pointIndex,
          customdata: p.customdata === undefined ? null
            : (ArrayBuffer.isView(p.customdata) ? Array.from(p.customdata) : p.customdata),
        }));
        gd.__trigger("click", points);
      });
    })
  ).catch((error) => {
    gd.textContent = String(error);
  });
}
"""

_plot_component = None


@st.cache_resource(show_spinner=False)
def _plotly_url() -> str | None:
    """Copy plotly.js (from the plotly package) into the app's static folder once;
    its URL, or None when static serving is off (then st.plotly_chart is used)."""
    if not st.get_option("server.enableStaticServing"):
        return None
    import os
    import shutil
    from pathlib import Path

    import plotly
    from plotly.offline import get_plotlyjs_version

    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    static = Path(__file__).resolve().parents[2] / "static"
    name = f"plotly-{get_plotlyjs_version()}.min.js"
    target = static / name
    try:
        if not target.exists() or target.stat().st_size != source.stat().st_size:
            static.mkdir(exist_ok=True)
            ignore = static / ".gitignore"  # a copy made at run time: keep it out of git
            if not ignore.exists():
                ignore.write_text("# made by explorer/session.py at run time\n*\n")
            partial = static / f".{name}.{os.getpid()}.part"
            shutil.copyfile(source, partial)
            os.replace(partial, target)
    except OSError:
        return None
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return "/" + (base + "/" if base else "") + "app/static/" + name


def _component():
    global _plot_component
    if _plot_component is None:
        _plot_component = st.components.v2.component(
            "explorer_chart", js=_PLOT_JS, isolate_styles=False)
    return _plot_component


def preload_charts() -> None:
    """Start loading plotly.js in the browser while the server is still fitting."""
    url = _plotly_url()
    if url is not None:
        with st.sidebar:
            _component()(key="plotly_preload", data={"preload": url}, height=1)


def chart(drawn: Drawn, state: State, view: str, *, key: str | None = None, on_select=None,
          live: bool = False) -> None:
    """Draw a figure made by :func:`figure`; on_select(key, points) is called when the
    user clicks a point.

    live=True for charts redrawn at every step of the round: they stay mounted and are
    updated in place (see _PLOT_JS). Otherwise, and when the app's static folder is not
    served, Streamlit's st.plotly_chart draws the figure.
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
                                "view": view},
                 on_click_change=clicked)


def _points(key: str) -> list[dict]:
    event = st.session_state.get(key)
    try:
        return list(event["selection"]["points"])
    except (KeyError, TypeError):
        return []


def _custom(point: dict) -> list:
    data = point.get("customdata")
    if data is None:
        return []
    if isinstance(data, dict):  # a typed array serialised as {"0": .., "1": ..}
        data = [data[k] for k in sorted(data, key=lambda k: int(k)) if str(k).isdigit()]
    return list(data) if isinstance(data, (list, tuple)) else [data]


def select_sample_from(key: str, points: list[dict]) -> None:
    """Chart callback: the clicked training point becomes the selected sample."""
    _acted()
    for point in points:
        custom = _custom(point)
        if custom and custom[0] is not None and int(custom[0]) >= 0:
            st.session_state["sel_sample"] = int(custom[0])
            st.session_state["_w_sample"] = int(custom[0])
            return


def select_leaf_from(key: str, points: list[dict]) -> None:
    """Chart callback (tree views): a leaf selects the leaf; a point selects the sample."""
    _acted()
    for point in points:
        custom = _custom(point)
        if not custom or custom[0] is None:
            continue
        value = int(custom[0])
        if key.endswith("diagram"):
            if len(custom) > 1 and int(custom[1]) == 1:
                st.session_state["sel_leaf"] = value
                return
            continue
        if value >= 0:
            st.session_state["sel_leaf"] = value
        else:
            st.session_state["sel_sample"] = -1 - value
            st.session_state["_w_sample"] = -1 - value
            st.session_state["sel_leaf"] = -1
        return


def select_round_from(key: str, points: list[dict]) -> None:
    """Chart callback (curves): the clicked round becomes the current round."""
    _acted()
    st.session_state["_playing"] = False
    for point in points:
        x = point.get("x")
        if x is not None:
            st.session_state["round"] = int(round(float(x)))
            return


def sample_picker(ctx: Context, sample: int) -> int:
    """A number input for the selected sample, kept in step with chart clicks."""
    ss = st.session_state
    n = len(ctx.trace.y)
    if ss.get("_w_sample") != sample:
        ss["_w_sample"] = sample

    def changed():
        _acted()
        ss["sel_sample"] = int(ss["_w_sample"])
    st.number_input(f"Sample # (0 to {n - 1}; or click a point)", 0, n - 1, key="_w_sample",
                    step=1, on_change=changed)
    return int(ss["sel_sample"])


def leaf_picker(ctx: Context, m: int, leaf: int, followed: bool) -> None:
    """Choose a leaf of tree m, or follow the selected sample's leaf."""
    ss = st.session_state
    leaves = [int(k) for k in summaries.leaves_of(ctx.trace, m)]
    options = [-1] + leaves
    current = -1 if followed else leaf
    ss["_w_leaf"] = current

    def changed():
        _acted()
        ss["sel_leaf"] = int(ss["_w_leaf"])
    tree = ctx.trace.tree(m)
    st.selectbox("Leaf of tree m", options, key="_w_leaf", on_change=changed,
                 format_func=lambda k: ("the selected sample's leaf" if k < 0 else
                                        f"leaf {k} (n = {int(tree['n'][k])})"))


# --- blocks of text and numbers (layout only: the numbers come from appdata) -------------


def metrics_row(ctx: Context, m: int) -> None:
    """Loss and accuracy at round m, with the change from round m - 1."""
    now = summaries.round_metrics(ctx.trace, m)
    before = summaries.round_metrics(ctx.trace, max(m - 1, 0))
    items = [("Train loss", "train_loss", "inverse", "{:.4f}"),
             ("Validation loss", "valid_loss", "inverse", "{:.4f}"),
             ("Train accuracy", "train_accuracy", "normal", "{:.1%}"),
             ("Validation accuracy", "valid_accuracy", "normal", "{:.1%}")]
    if not ctx.trace.is_classifier:  # a regression has a loss, not an accuracy
        items = items[:2]
    cols = st.columns(len(items))
    for col, (label, key, color, form) in zip(cols, items):
        if now[key] is None:
            col.metric(label, "–", help="No validation set (validation share 0).")
            continue
        delta = None if m == 0 else now[key] - before[key]
        shown = None
        if delta is not None:
            shown = f"{delta:+.4f}" if "loss" in key else f"{delta:+.1%}"
        col.metric(label, form.format(now[key]), shown, delta_color=color)


def f0_block(ctx: Context) -> None:
    """View 6: f0 = log(N+/N-) with the counts, and the same number from the +-1 form
    (a regression's: the mean target)."""
    f = summaries.f0_summary(ctx.trace)
    if not ctx.trace.is_classifier:
        st.latex(r"f_0 = \arg\min_c \sum_i \tfrac12 (y_i - c)^2 = \frac{1}{N}\sum_i y_i = "
                 r"\frac{" + fmt(f["sum_y"]) + "}{" + str(f["n"]) + "} = " + fmt(f["mean"]))
        st.caption(f"The mean of the {f['n']} training targets: the derivative "
                   f"−Σ(yᵢ − c) is zero there. The engine's f₀ = {fmt(f['f0'], 12)}.")
        return
    half = r"\tfrac{1}{2}\," if f["half"] else ""
    two = "2" if f["half"] else ""
    st.latex(r"f_0 = \arg\min_c \sum_i L(y_i, c) = " + half + r"\log\frac{N_+}{N_-} = "
             + half + r"\log\frac{" + str(f["n_pos"]) + "}{" + str(f["n_neg"]) + "} = "
             + fmt(f["from_counts"]))
    st.latex(r"\text{with labels } y_i \in \{-1, +1\}:\quad \bar y = \frac{N_+ - N_-}{N} = "
             + fmt(f["ybar"]) + r",\qquad f_0 = " + half
             + r"\log\frac{1 + \bar y}{1 - \bar y} = " + half + r"\log\frac{"
             + fmt(1 + f["ybar"]) + "}{" + fmt(1 - f["ybar"]) + "} = " + fmt(f["from_pm"]))
    st.latex(r"p_0 = \sigma(" + two + r"f_0) = " + fmt(f["p0"]) + r" = \frac{N_+}{N}")
    names = ctx.classes
    gap = abs(f["from_counts"] - f["from_pm"])
    note = ("The exponential loss e^(−ỹF) halves the log-odds, so p = σ(2F)." if f["half"]
            else "f₀ is the log-odds log(p̄ / (1 − p̄)), not the odds p̄ / (1 − p̄).")
    st.caption(f"N₊ = {f['n_pos']} training points of class {md_escape(names[1])}, "
               f"N₋ = {f['n_neg']} of class {md_escape(names[0])}. The engine's "
               f"f₀ = {fmt(f['f0'], 12)}; the two forms differ by {gap:.1e}. {note}")


def leaf_block(ctx: Context, m: int, leaf: int, followed: bool, sample: int) -> None:
    """View 3 (text): how the selected leaf's value is made, with its numbers, times nu."""
    tr = ctx.trace
    L = summaries.leaf_summary(tr, m, leaf)
    f = summaries.leaf_formula(tr, m, leaf)
    who = f"the leaf of sample #{sample}" if followed else "the chosen leaf"
    st.markdown(f"**Leaf {leaf} of tree {m}** ({who}): {L['n']} training points fitted it.")
    R = r"i \in R_{" + str(leaf) + "}"
    F = r"F_{" + str(m - 1) + "}(x_i)"
    if f["denominator"] is None:
        # a rule without a closed form here (exact minimiser, line search)
        st.latex(r"\gamma = " + fmt(f["value"]))
        st.caption(f"Leaf rule: {f['rule'].replace('_', ' ')}. For comparison, the Newton "
                   f"step Σr / Σh would be {fmt(f['sum_r'])} / {fmt(f['sum_h'])} = "
                   f"{fmt(f['sum_r'] / f['sum_h'] if f['sum_h'] else 0.0)}.")
    else:
        numbers = (r" = \frac{" + fmt(f["numerator"]) + "}{" + fmt(f["denominator"]) + "} = "
                   + fmt(f["value"]))
        if f["rule"] == "second_order":
            st.latex(r"w = -\frac{G}{H + \lambda} = \frac{\sum_{" + R + r"} r_i}{\sum_{" + R
                     + r"} h_i + \lambda}" + numbers)
            st.caption(f"Second-order (xgboost) leaf: G = −Σr = {fmt(-f['sum_r'])}, "
                       f"H = Σh = {fmt(f['sum_h'])}, λ = {fmt(f['lam'])}.")
        elif f["rule"] == "mean" or not tr.is_classifier:
            st.latex(r"\gamma = \frac{1}{n}\sum_{" + R + r"} r_i" + numbers)
            st.caption(f"The mean residual r = y − F_{m - 1}(x). With squared error every "
                       "hessian is 1, so the Newton step Σr / Σh is this same mean."
                       if not tr.is_classifier else
                       "Leaf rule: mean residual (a plain gradient step, no Newton step).")
        elif tr.loss == "exponential":
            st.latex(r"\gamma = \frac{\sum_{" + R + r"} \tilde y_i\, e^{-\tilde y_i " + F + "}}"
                     r"{\sum_{" + R + r"} e^{-\tilde y_i " + F + "}}" + numbers)
            st.caption("ỹ = 2y − 1 ∈ {−1, +1}: the residual is ỹ·e^(−ỹF) and the hessian "
                       "its absolute value (scikit-learn's exponential loss).")
        else:
            st.latex(r"\gamma = \frac{\sum_{" + R + r"} (y_i - p_i)}{\sum_{" + R
                     + r"} p_i\,(1 - p_i)}" + numbers)
            st.caption(f"p_i = σ(F_{m - 1}(x_i)) are the probabilities before tree {m}: "
                       "γ is one Newton step on the leaf's own log-loss.")
    st.latex(r"\nu\,\gamma = " + fmt(L["nu"]) + r" \times " + fmt(L["gamma"]) + " = "
             + fmt(L["step"]))
    st.caption(f"Every point of the leaf moves by ν·γ: "
               f"F_{m}(x) = F_{m - 1}(x) + {fmt(L['step'])}.")
    if L["floored"]:
        st.warning("The hessian sum of this leaf is below the floor (1e-150 per point): "
                   "the engine takes no step (γ = 0), as scikit-learn does.",
                   icon=":material/warning:")
    members = L["members"]
    if len(members):
        with st.expander(f"The {len(members)} points of leaf {leaf} and their sums"):
            r = tr.residual(m - 1)[members]
            h = tr.hessian(m - 1)[members]
            before = (tr.proba(m - 1) if tr.is_classifier else tr.raw[m - 1])[members]
            rows = {"sample": members, "y": tr.y[members],
                    f"{'p' if tr.is_classifier else 'F'} at round {m - 1}": before,
                    "r": r, "h": h}
            st.dataframe(rows, hide_index=True, width="stretch", height=240)
            st.caption(f"Σ r = {fmt(r.sum())}, Σ h = {fmt(h.sum())}: the numbers above.")


def sample_block(ctx: Context, i: int, m: int, ledger: dict) -> None:
    """Sample i at round m: its label and the update F_m = F_(m-1) + nu gamma."""
    tr = ctx.trace
    where = ", ".join(f"{md_escape(name)} = {fmt(v, 4)}"
                      for name, v in zip(ctx.feature_names, ledger["x"]))
    if tr.is_classifier:
        y = int(ledger["y"])
        st.caption(f"Sample #{i}: {where}, label y = {y} (class {md_escape(ctx.classes[y])})")
    else:
        st.caption(f"Sample #{i}: {where}, target {md_escape(ctx.target_name)} = "
                   f"{fmt(ledger['y'])}")
    if tr.is_classifier:
        sigma = r"\sigma(2F_{" + str(m) + "})" if tr.loss == "exponential" else (
            r"\sigma(F_{" + str(m) + "})")
        after = r"p_{" + str(m) + "} = " + sigma + " = " + fmt(ledger["p"][m])
    else:  # a regression's F is the prediction itself: what is left is the residual
        after = r"y - F_{" + str(m) + "} = " + fmt(ledger["y"] - ledger["F"][m])
    if m == 0:
        st.latex(r"F_0 = f_0 = " + fmt(ledger["F"][0]) + r",\qquad " + after)
        return
    leaf = int(ledger["leaf"][m])
    bag = ""
    if ledger["in_bag"] is not None:
        bag = (r"\ \text{(in the subsample)}" if ledger["in_bag"][m]
               else r"\ \text{(not in the subsample)}")
    st.latex(r"\text{tree " + str(m) + ": leaf " + str(leaf) + "}" + bag
             + r",\quad r_{" + str(m - 1) + "} = " + fmt(ledger["residual"][m])
             + r",\quad \gamma = " + fmt(ledger["gamma"][m]))
    st.latex(r"F_{" + str(m) + r"} = F_{" + str(m - 1) + r"} + \nu\gamma = "
             + fmt(ledger["F"][m - 1]) + " + " + fmt(tr.learning_rate) + r" \times "
             + fmt(ledger["gamma"][m]) + " = " + fmt(ledger["F"][m]))
    st.latex(after)


def ledger_table(ctx: Context, ledger: dict, m: int) -> None:
    """View 8: the sample's F, p, residual, leaf and update at every round."""
    rows = {
        "round m": ledger["round"],
        "now": np.where(ledger["round"] == m, "◀", ""),
        "leaf in tree m": ledger["leaf"],
        "r fitted by tree m": ledger["residual"],
        "leaf value γ": ledger["gamma"],
        "update ν·γ": ledger["update"],
        "F_m": ledger["F"],
    }
    if ledger["p"] is not None:
        rows["p_m"] = ledger["p"]
    if ledger["in_bag"] is not None:
        rows["in subsample"] = ledger["in_bag"]
    st.dataframe(rows, hide_index=True, width="stretch", height=320)
    st.caption("Round 0 has no tree (leaf −1): F₀ = f₀. From round 1, F_m = F_(m−1) + ν·γ, "
               "where r is the residual at F_(m−1) and γ the value of the leaf the sample "
               "falls in.")


def fmt(x: float, digits: int = 6) -> str:
    """A number for the page (LaTeX-safe, no NaN)."""
    x = float(np.nan_to_num(x, nan=0.0, posinf=1e300, neginf=-1e300))
    return f"{x:.{digits}g}"
