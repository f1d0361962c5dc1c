"""Drawing points by hand on the Model page: the tools above the plane (what a click
adds, undo, clear, the CSV), a click's edit, and the bare plane to draw on while there
are too few points to fit.

The points are the State's field ``pts`` (so the link carries them); undo is a stack of
earlier texts kept in the session beside it.
"""

from __future__ import annotations

import streamlit as st

from .. import drawn, figures
from ..data import DataError
from ..numbers.grid import plane_of
from ..state import State
from . import component, store
from .stepper import mark_acted

_UNDO = "_draw_undo"
_UNDO_DEPTH = 200
_CLASS, _TARGET = "draw_class", "draw_target"
_PROBLEM = "_draw_problem"


def tools(state: State) -> None:
    """What a click adds, undo, clear and the CSV download, with how to draw."""
    n = drawn.count(state.pts)
    ss = st.session_state
    cols = st.columns([3.2, 1, 1, 1.6], vertical_alignment="bottom")
    with cols[0]:
        if state.is_regression:
            st.slider("A click adds a point with target y =", -3.0, 3.0, 1.0, 0.1, key=_TARGET)
        else:
            st.radio("A click adds a point of", (1, 0), key=_CLASS, horizontal=True,
                     format_func=lambda c: f"class {c}")
    cols[1].button("Undo", key="draw_undo", on_click=_undo, disabled=not ss.get(_UNDO),
                   icon=":material/undo:", width="stretch", help="Take back the last edit.")
    cols[2].button("Clear", key="draw_clear", on_click=_set, args=("",), disabled=n == 0,
                   icon=":material/delete_sweep:", width="stretch",
                   help="Start again from an empty plane (undo brings the points back).")
    try:
        csv = drawn.csv(state.pts, state.task)
    except DataError:
        csv = b""
    cols[3].download_button("Points as CSV", csv, file_name="drawn_points.csv",
                            mime="text/csv", key="draw_csv", disabled=not csv or n == 0,
                            icon=":material/download:", width="stretch",
                            help="The points as a file the upload reads back.")
    note = "Click the plane to add a point; click a point to remove it."
    if n > drawn.LINK_POINTS:
        note += (f" The link holds the first {drawn.LINK_POINTS} of these {n:,} points "
                 f"and says that {n - drawn.LINK_POINTS:,} more were drawn, which only "
                 "this session has: download the CSV to keep them all.")
    st.caption(note)
    # a link's points beyond its limit, which this session never had (our own text: a
    # count, no text of the link)
    lost = drawn.lost_message(state.pts)
    if lost:
        st.warning(lost, icon=":material/warning:")
    problem = ss.pop(_PROBLEM, None)
    if problem:
        st.warning(problem, icon=":material/warning:")


def _set(text: str) -> None:
    """Callback: the drawn points become ``text``; the old ones go on the undo stack."""
    ss = st.session_state
    stack = ss.setdefault(_UNDO, [])
    stack.append(store.peek().pts)
    del stack[:-_UNDO_DEPTH]
    store.update(pts=text)


def _undo() -> None:
    stack = st.session_state.get(_UNDO)
    if stack:
        store.update(pts=stack.pop())


def edit_from(key: str, points: list[dict]) -> None:
    """Chart callback: a click on the plane adds a point there, or removes the point
    under it."""
    mark_acted()
    ss = st.session_state
    for point in points:
        if not point.get("plane"):
            continue
        state = store.peek()
        label = ss.get(_TARGET, 1.0) if state.is_regression else ss.get(_CLASS, 1)
        try:
            text = drawn.edit(state.pts, state.task, float(point["x"]), float(point["y"]),
                              (abs(float(point["dx"])), abs(float(point["dy"]))), float(label))
        except (DataError, KeyError, TypeError, ValueError, ZeroDivisionError) as error:
            ss[_PROBLEM] = f"That click could not be drawn: {error}"
            return
        _set(text)
        return


def canvas(state: State, message: str) -> None:
    """The plane with the points drawn so far, while they are too few to fit."""
    try:
        X, labels = drawn.parse(state.pts, state.task)
    except DataError:  # a broken link: the message says so; Clear starts again
        X, labels = drawn.parse("", state.task)
    lo, hi, _ = plane_of(X, drawn.BOX)
    chart = component.figure(figures.drawn_points, X, labels, lo, hi,
                             regression=state.is_regression, classes=drawn.CLASSES,
                             feature_names=drawn.FEATURES)
    left, right = st.columns(2, gap="small")  # where the model's plane will be
    with left:
        component.chart(chart, state, "model", on_select=edit_from, live=True, draw=True)
    right.info(message, icon=":material/draw:")
