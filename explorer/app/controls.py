"""The sidebar: one widget per field of :data:`explorer.state.FIELDS`, drawn from the
field's declaration and showing the State's value; the upload's columns; presenter mode.

A widget's key is its field's URL key, so :func:`explorer.app.store.current` can fold
what the user set back into the State.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from .. import data as datamod, drawn
from ..lessons import LESSONS
from ..settings import applies
from ..state import (BY_KEY, DRAW, ENGINE_SPLIT, KEYS, LEAF_CHOICES, LOSSES, TASKS, TOY_SETS,
                     UPLOAD, State)
from ..upload import default_features, read_table, to_dataset
from . import store

MAX_UPLOAD_MB = 5  # the same as server.maxUploadSize in .streamlit/config.toml (a test checks)
# What one setting may fit: points x rounds. Measured here at this budget: the fit, its
# grid and curves take 0.3-0.4 s, and a cached fit holds about 30 MB (9 bytes a
# point-round of record, a 4-10 MB grid), 60-65 MB at its peak.
MAX_POINT_ROUNDS = 2_000_000
# Histogram trees (split="histogram") fit the same record, 9-10 bytes a point-round, in
# less time: memory, not time, sets their budget. Measured here on 2026-11-25 with
# ``python -m benchmarks.bench_budget`` (fit, grid and curves, best of 3, the machine
# shared with other work):
#   exact at 2,000,000:     0.30-0.45 s, kept 18-27 MB (moons 20,000 x 100, 4,000 x 500,
#                           sine 20,000 x 100; blobs 6,666 x 100 x 3 trees 0.36 s, 27 MB)
#   histogram at 2,000,000: 0.21-0.25 s, kept 22 MB (moons 20,000 x 100)
#   histogram at 3,000,000: 0.14-0.36 s, kept 27-37 MB (moons 30,000 x 100, 6,000 x 500,
#                           sine 30,000 x 100; blobs 10,000 x 100 x 3 trees 0.36 s, 37 MB)
# At 3,000,000 a histogram fit takes no longer than an exact fit at its budget, and holds
# about 1.4 times its memory; beyond, the memory grows with the point-rounds.
MAX_POINT_ROUNDS_BY_SPLIT = {"histogram": 3_000_000}
MIN_VALIDATION_POINTS = 20  # fewer: a held-out set of 1-3 points says nothing
MAX_FILE_ROWS = 1_000_000  # 5 MB of the shortest rows; the budget decides what is fitted
IMAGE_WIDTH = 1920  # pixels: the toolbar's PNG, whatever the window's size
IMAGE_FORMATS = ("PNG", "SVG")
_NO_FEATURE = "(none: one input)"
_DATA_NAMES = {**{name: name for name in BY_KEY["data"].choices},
               UPLOAD: "upload a CSV file", DRAW: "draw your own (Model page)"}


def field(key: str, state: State, container=st, disabled: bool = False, on_change=None,
          options=None, format_func=str):
    """Draw the widget of one field, showing its value in ``state`` (a select box offers
    ``options``, by default all the field's choices)."""
    f = BY_KEY[key]
    store.seed(key, getattr(state, key))
    common = dict(key=key, help=f.help, disabled=disabled, on_change=on_change)
    if key == "data":
        return container.selectbox(f.label, f.choices, format_func=_DATA_NAMES.get, **common)
    if key in ("split", "leafrule", "pair", "cls"):
        # plain names: they are also what the URL says
        return container.selectbox(f.label, options or f.choices, format_func=format_func,
                                   **common)
    if key == "task":
        return container.radio(f.label, TASKS, horizontal=True, **common)
    if key == "loss":
        return container.radio(f.label, LOSSES, horizontal=True, **common)
    if key == "leaves":
        return container.select_slider(f.label, LEAF_CHOICES, **common)
    if key in ("dseed", "seed"):
        return container.number_input(f.label, int(f.low), int(f.high), step=int(f.step),
                                      **common)
    if f.kind is bool:
        return container.toggle(f.label, **common)
    if f.kind is int:
        return container.slider(f.label, int(f.low), int(f.high), step=int(f.step), **common)
    return container.slider(f.label, float(f.low), float(f.high), step=float(f.step), **common)


@st.cache_resource(max_entries=32, show_spinner=False)
def _toy(name: str, n: int, noise: float, balance: float, dseed: int, valid: float):
    ds = datamod.make_toy(name, n=n, noise=noise, balance=balance, seed=dseed)
    train, held = datamod.split(ds, valid, dseed)
    return train, held, datamod.dataset_hash(train) + (datamod.dataset_hash(held) if held else "")


@st.cache_data(max_entries=4, scope="session", show_spinner="Reading the file…")
def _read_upload(digest: str, _raw: bytes, name: str):
    class _Named:  # read_table takes the file name from the object
        def __init__(self, raw, name):
            self._raw, self.name = raw, name

        def read(self, k=-1):
            return self._raw if k < 0 else self._raw[:k]
    return read_table(_Named(_raw, name), max_rows=MAX_FILE_ROWS,
                      max_bytes=MAX_UPLOAD_MB * 2**20)


def point_rounds(split: str = "squared-error") -> int:
    """What one setting may fit, in point-rounds, under the split rule ``split``."""
    return MAX_POINT_ROUNDS_BY_SPLIT.get(ENGINE_SPLIT.get(split, split), MAX_POINT_ROUNDS)


def budget(rounds: int, trees: int = 1, split: str = "squared-error") -> int:
    """The most points one setting fits at this many rounds of this many trees (one per
    class with three classes or more: the record grows with each) under the split rule
    ``split``."""
    return max(point_rounds(split) // (rounds * trees), 2)


def data(state: State) -> tuple[object, object, str, str] | str:
    """Data controls; returns (train, valid, data key, a note on the points used) or an
    error message."""
    side = st.sidebar
    side.header("Data")
    field("data", state, side)
    if state.is_drawn:
        field("task", state, side)
        _seed_and_share(state)
        try:
            return _split(drawn.dataset(state.pts, state.task), state, "draw:")
        except (datamod.DataError, ValueError) as error:
            return str(error)
    if state.data != UPLOAD:
        # one list holds both tasks' sets: the set decides the task, said under it
        if state.data in TOY_SETS["regression"]:
            side.caption("Regression: predict the number y from x (squared error).")
        elif state.data in datamod.MULTICLASS_SETS:
            side.caption("Classification: three classes, one tree per class and round.")
        else:
            side.caption("Classification: two classes.")
        fixed = {datamod.IRIS: ("n", "noise", "balance")}.get(  # iris is measured data
            state.data, ("balance",) if state.data in datamod.MULTICLASS_SETS
            or state.is_regression else ())
        for key in ("n", "noise", "balance"):
            field(key, state, side, disabled=key in fixed)
        _seed_and_share(state)
        trees = 3 if state.data in datamod.MULTICLASS_SETS else 1
        n = min(state.n, budget(state.rounds, trees, state.split))
        note = "" if n == state.n else (
            f"Using {n:,} points, not {state.n:,}: {state.n:,} × {state.rounds} rounds"
            f"{f' × {trees} trees' if trees > 1 else ''} is more than this server fits for "
            f"one setting ({point_rounds(state.split):,} point-rounds).")
        if note:
            side.caption(note)
        try:
            return (*_toy(state.data, n, state.noise, state.balance, state.dseed, state.valid),
                    note)
        except (datamod.DataError, ValueError) as error:
            return str(error)
    field("task", state, side)
    upload = side.file_uploader(
        f"CSV file (at most {MAX_UPLOAD_MB} MB)", type=["csv", "txt", "tsv"], key="upload_file",
        help="A header row, then one row per point; comma, semicolon or tab separated. "
             "Choose two numeric feature columns (one is enough for a regression) and a "
             "label column: two to ten classes, or the numbers to predict.")
    _seed_and_share(state)
    if upload is None:
        return ("Upload a CSV file in the sidebar (a header row, then one row per point), "
                "or choose a toy dataset.")
    raw = upload.getvalue()
    try:
        table = _read_upload(hashlib.sha1(raw).hexdigest(), raw, upload.name)
    except datamod.DataError as error:
        return str(error)
    chosen, label = _columns(table, state.is_regression)
    try:
        ds, note = _points_used(to_dataset(table, chosen, label, task=state.task), state)
        return _split(ds, state, "upload:", note)
    except (datamod.DataError, ValueError) as error:
        return str(error)


def _split(ds, state: State, kind: str, note: str = ""):
    """The user's points split for validation (none below MIN_VALIDATION_POINTS, said
    beside the control): (train, valid, data key, note)."""
    valid = state.valid
    if len(ds.y) < MIN_VALIDATION_POINTS and valid > 0:
        valid = 0.0
        st.sidebar.caption(f"No validation split below {MIN_VALIDATION_POINTS} points: "
                           "every point trains.")
    train, held = datamod.split(ds, valid, state.dseed)
    return train, held, kind + datamod.dataset_hash(train) + (
        datamod.dataset_hash(held) if held is not None else ""), note


def _points_used(ds, state: State):
    """The upload's points to fit: all of them, or a seeded random sample of as many as
    asked for (0: as many as the budget allows), never more than the budget; with a note
    that says what was used."""
    total = len(ds.y)
    trees = len(ds.classes) if len(ds.classes) > 2 else 1  # one per class and round
    limit = min(budget(state.rounds, trees, state.split), total)
    wanted = min(state.points or limit, total)
    used = min(wanted, limit)
    store.seed("points", used)
    st.sidebar.slider("Points used", min(2, total), total, step=1, key="points",
                      help=BY_KEY["points"].help, disabled=total <= 2)
    if used == total:
        return ds, ""
    note = f"Using {used:,} of {total:,} points (random sample, seed {state.dseed})."
    if used < wanted:
        note += (f" {wanted:,} × {state.rounds} rounds"
                 f"{f' × {trees} trees' if trees > 1 else ''} is more than this server fits "
                 f"for one setting ({point_rounds(state.split):,} point-rounds).")
    st.sidebar.caption(note)
    return datamod.sample(ds, used, state.dseed), note


def _seed_and_share(state: State) -> None:
    c1, c2 = st.sidebar.columns(2)
    with c1:
        field("dseed", state)
    with c2:
        field("valid", state)


def _columns(table, regression: bool) -> tuple[list[str], str]:
    """The upload's feature and label columns, as chosen (first numeric ones by default)."""
    ss = st.session_state
    columns = list(table.columns)
    numeric = list(table.numeric_columns)
    default_label = columns[-1]
    features = default_features(table, default_label)[:2] or columns[:2]
    second = (numeric or columns) + ([_NO_FEATURE] if regression else [])
    choices = {"up_x": (numeric or columns, features[0] if features else columns[0]),
               "up_y": (second, features[1] if len(features) > 1 else second[-1]),
               "up_label": (columns, default_label)}
    for key, (options, default) in choices.items():
        if ss.get(key) not in options:
            ss[key] = default
    st.sidebar.selectbox("Feature on the x axis", choices["up_x"][0], key="up_x")
    st.sidebar.selectbox("Feature on the y axis", second, key="up_y")
    st.sidebar.selectbox("Target (numbers)" if regression else "Label (2 to 10 classes)", columns,
                         key="up_label")
    return [ss["up_x"]] + ([] if ss["up_y"] == _NO_FEATURE else [ss["up_y"]]), ss["up_label"]


def fit(state: State) -> None:
    side = st.sidebar
    side.header("Boosting")
    if state.is_regression:
        side.markdown("Loss: squared error ½(y − F)²")
    else:
        field("loss", state, side)
    for key in ("rounds", "lr", "depth"):
        field(key, state, side)
    # second-order trees here are xgboost's for the log-loss
    field("split", state, side, disabled=state.is_regression)
    # What a split rule does not use is disabled (the sidebar keeps its place) or, for
    # the second-order trees' own parameters, not shown; State.fit_params leaves it out.
    split = ENGINE_SPLIT[state.split]
    for key in ("leafrule", "leaves", "minleaf", "subsample"):
        field(key, state, side, disabled=not applies(BY_KEY[key].param, split))
    for key in ("lam", "gamma", "mcw"):
        if applies(BY_KEY[key].param, split):
            field(key, state, side)
    if state.is_hessian:
        side.caption("Second-order trees: log-loss only; the leaf rule, leaf limit, "
                     "minimum leaf size and subsample do not apply.")
    field("seed", state, side)


GOTO = store.GOTO  # the page a lesson opens, switched to in the next run


def lessons(state: State) -> None:
    """The ready-made lessons: a click sets the lesson's data and settings and opens its
    page; the address then holds the lesson, to be copied onto a slide."""
    with st.sidebar.expander("Lessons", expanded=bool(state.lesson)):
        for lesson in LESSONS.values():
            st.button(lesson.title, key=f"lesson_{lesson.key}", on_click=_open, args=(lesson,),
                      type="tertiary", icon=":material/school:", width="stretch")


def _open(lesson) -> None:
    start = State(present=store.peek().present)
    store.update(**{**{key: getattr(start, key) for key in KEYS}, **lesson.settings,
                    "lesson": lesson.key})
    st.session_state[GOTO] = lesson.page


# Presenter mode hides the controls with CSS rather than not drawing them: the upload and
# its column choices live in widgets, which lose their values when not drawn.
_PRESENT_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], .st-key-showvalid, .st-key-_w_leaf,
.st-key-_w_sample { display: none !important; }
.block-container { max-width: 100%; }
.block-container h4 { font-size: 2rem; }
.st-key-round_label p { font-size: 1.35rem; }
</style>"""


def presenting(state: State) -> None:
    """The presenter-mode toggle and the toolbar image format; when presenting, hide the
    controls and show a small exit button instead."""
    st.sidebar.header("Presenting")
    field("present", state, st.sidebar)
    st.sidebar.radio("Chart toolbar downloads", IMAGE_FORMATS, key="imgfmt",
                     horizontal=True,
                     help=f"The camera in each chart's toolbar saves it as a PNG "
                          f"{IMAGE_WIDTH} px wide or as an SVG (vector) image.")
    if state.present:
        st.html(_PRESENT_CSS)
        st.button("Exit presenter mode", key="present_exit",
                  on_click=lambda: store.update(present=False),
                  icon=":material/close_fullscreen:", type="tertiary",
                  help="Show the controls again (or remove present=true from the address).")
