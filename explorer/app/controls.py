"""The sidebar: one widget per field of :data:`explorer.state.FIELDS`, drawn from the
field's declaration and showing the State's value; the upload's columns; presenter mode.

A widget's key is its field's URL key, so :func:`explorer.app.store.current` can fold
what the user set back into the State.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import streamlit as st

from .. import dataset, rules
from ..data import IRIS, MULTICLASS_SETS, DataError
from ..lessons import LESSONS
from ..state import (BY_KEY, DRAW, FIELDS, KEYS, LEAF_CHOICES, LOSSES, RULE_NAMES, TASKS,
                     TOY_SETS, UPLOAD, State, why_unused)
from ..upload import default_features
from . import store

IMAGE_WIDTH = 1920  # pixels: the toolbar's PNG, whatever the window's size
IMAGE_FORMATS = ("PNG", "SVG")
_NO_FEATURE = "(none: one input)"
_OPENED_AS, _FILE_READ = "_data_opened_as", "_file_read"
_DATA_NAMES = {**{name: name for name in BY_KEY["data"].choices},
               UPLOAD: "upload a CSV file", DRAW: "draw your own (Model page)"}


def field(key: str, state: State, container=st, disabled: bool = False, on_change=None,
          options=None, format_func=str, help: str | None = None):
    """Draw the widget of one field, showing its value in ``state`` (a select box offers
    ``options``, by default all the field's choices; ``help`` replaces the field's)."""
    f = BY_KEY[key]
    store.seed(key, getattr(state, key))
    common = dict(key=key, help=help or f.help, disabled=disabled, on_change=on_change)
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


# a toy set of at most 10,000 points (State's n), 24 bytes each: at most 32 x 240 kB = 8 MB
@st.cache_resource(max_entries=32, show_spinner=False)
def _toy(reads: tuple, _state: State) -> dataset.Data:
    """A toy set's data, made once for every session: ``reads`` holds the State's fields
    that :func:`explorer.dataset.make` reads (the user's own data is made per run)."""
    return dataset.make(_state)


# a session's files read: at most 4 x dataset.MAX_UPLOAD_MB of text, as a table
@st.cache_data(max_entries=4, scope="session", show_spinner="Reading the file…")
def _read_upload(digest: str, _raw: bytes, name: str):
    return dataset.read(_raw, name)


def data(state: State) -> dataset.Data:
    """Data controls; returns the data they choose (:func:`explorer.dataset.make`), its
    notes said beside them, or in its message why there is none."""
    side = st.sidebar
    side.header("Data")
    # the data the session's link named: a link to an upload cannot bring the file
    opened = st.session_state.setdefault(_OPENED_AS, state.data)
    field("data", state, side)
    upload = None
    if state.is_drawn:
        field("task", state, side)
        _seed_and_share(state)
    elif not state.is_upload:
        # one list holds both tasks' sets: the set decides the task, said under it
        if state.data in TOY_SETS["regression"]:
            side.caption("Regression: predict the number y from x (squared error).")
        elif state.data in MULTICLASS_SETS:
            side.caption("Classification: three classes, one tree per class and round.")
        else:
            side.caption("Classification: two classes.")
        fixed = {IRIS: ("n", "noise", "balance")}.get(  # iris is measured data
            state.data, ("balance",) if state.data in MULTICLASS_SETS
            or state.is_regression else ())
        for key in ("n", "noise", "balance"):
            field(key, state, side, disabled=key in fixed)
        _seed_and_share(state)
    else:
        field("task", state, side)
        file = side.file_uploader(
            f"CSV file (at most {dataset.MAX_UPLOAD_MB} MB)", type=["csv", "txt", "tsv"],
            key="upload_file",
            help="A header row, then one row per point; comma, semicolon or tab separated. "
                 "Choose two numeric feature columns (one is enough for a regression) and a "
                 "label column: two to ten classes, or the numbers to predict.")
        _seed_and_share(state)
        if file is not None:
            raw = file.getvalue()
            try:
                table = _read_upload(hashlib.sha1(raw).hexdigest(), raw, file.name)
            except DataError as error:
                return dataset.Data(message=str(error))
            st.session_state[_FILE_READ] = True
            upload = dataset.Upload(table, *_columns(table, state.is_regression))
        elif opened == UPLOAD and not st.session_state.get(_FILE_READ):
            return dataset.Data(message=dataset.LOST_FILE)
    made = (dataset.make(state, upload) if state.own_data
            else _toy(tuple(getattr(state, key) for key in dataset.READS), state))
    # why fewer points than asked were fitted is seen once (the widget then holds the
    # number used): a run that repeats this one says it too
    made = replace(made, note=store.said("data_note", made.note))
    if made.total:  # an upload's points: how many of them are fitted
        store.seed("points", made.used)
        side.slider("Points used", min(2, made.total), made.total, step=1, key="points",
                    help=BY_KEY["points"].help, disabled=made.total <= 2)
    for note in made.notes:
        side.caption(note)
    return made


def _seed_and_share(state: State) -> None:
    c1, c2 = st.sidebar.columns(2)
    with c1:
        field("dseed", state)
    with c2:
        field("valid", state)


def _columns(table, regression: bool) -> tuple[tuple[str, ...], str]:
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
    return (ss["up_x"],) + (() if ss["up_y"] == _NO_FEATURE else (ss["up_y"],)), ss["up_label"]


_RULE_NOTE = "_rule_note"  # what the last change of split rule changed, said once
_SHARED = ("loss", "rounds", "lr", "depth", "split", "seed")  # drawn first, every rule


def fit(state: State) -> None:
    """The fit's controls: every fit field of FIELDS, those the split rule uses in place
    and the others, disabled, under a heading that says why each is not used."""
    side = st.sidebar
    side.header("Boosting")
    if state.is_regression:
        side.markdown("Loss: squared error ½(y − F)²")
    else:
        field("loss", state, side)
    for key in ("rounds", "lr", "depth"):
        field(key, state, side)
    # second-order trees here are xgboost's for the log-loss
    field("split", state, side, disabled=state.is_regression, on_change=_split_changed)
    note = store.once(_RULE_NOTE)
    if note:
        side.caption(note)
    rest = [f.key for f in FIELDS if f.group == "fit" and f.key not in _SHARED]
    unused = [key for key in rest if why_unused(key, state.split)]
    for key in rest:
        if key not in unused:
            field(key, state, side)
    field("seed", state, side)
    if state.is_hessian:
        side.caption("Second-order trees: log-loss only.")
    if unused:
        rule = RULE_NAMES[state.split]
        with side.expander(f"Not used by {rule.lower()} ({len(unused)})"):
            for key in unused:
                why = _plain(why_unused(key, state.split))
                field(key, state, st, disabled=True,
                      help=f"{BY_KEY[key].help}\n\nNot used by {rule.lower()}: {why}.")
                st.caption(f"{rule} do not use {_label(key)}: {why}.")
    _libraries(state)


def _plain(text: str) -> str:
    """The libraries' parameter names as they are written: markdown would read the
    underscores of max_bin or n_estimators as italics."""
    return text.replace("_", "\\_")


def _label(key: str) -> str:
    """A field's label without its parameter name in brackets: "Max bins"."""
    return BY_KEY[key].label.split(" (")[0]


def _split_changed() -> None:
    """The split rule's callback: the State folds the new rule in at the next run
    (moving the settings at the old rule's defaults to the new rule's); say what moved."""
    before = store.peek()
    after = before.changed(split=st.session_state["split"])
    st.session_state[_RULE_NOTE] = after.rule_note(before)


def _libraries(state: State) -> None:
    """One click sets a library's defaults, as ordinary settings (the link carries them),
    each with what of that library the explorer reproduces and what it cannot."""
    current = state.library
    with st.sidebar.expander("Library defaults", expanded=current not in (None,
                                                                          "gradientboosting")):
        for name, (label, split, _) in rules.LIBRARIES.items():
            refused = state.is_regression and split == "hessian"  # log-loss only
            st.button(label, key=f"library_{name}", on_click=_set_library, args=(name,),
                      type="primary" if name == current else "secondary", width="stretch",
                      disabled=refused,
                      help="Second-order trees here are for the log-loss only: not for a "
                           "regression." if refused else
                           f"Set the split rule and {label}'s defaults on these data.")
            st.caption(_plain(rules.LIBRARY_CAVEATS[name]))


def _set_library(name: str) -> None:
    after = store.peek().with_library(name)
    store.update(**{f.key: getattr(after, f.key) for f in FIELDS if f.group == "fit"})


GOTO = store.GOTO  # the page a lesson opens, switched to in the next run


def lessons(state: State) -> None:
    """The ready-made lessons: a click sets the lesson's data and settings and opens its
    page; the address then holds the lesson, to be copied onto a slide."""
    with st.sidebar.expander("Lessons", expanded=bool(state.lesson)):
        for lesson in LESSONS.values():
            st.button(lesson.title, key=f"lesson_{lesson.key}", on_click=_open, args=(lesson,),
                      type="tertiary", icon=":material/school:", width="stretch")


def _open(lesson) -> None:
    # the lesson's settings over its split rule's defaults, as its link means them
    start = replace(State.lesson_base(lesson.key), present=store.peek().present)
    store.update(**{**{key: getattr(start, key) for key in KEYS}, "lesson": lesson.key})
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
