"""The session's one State: read from the link once, kept in the session, written back to
the link after every change. Nothing else reads or writes the URL.

A widget of a field (:mod:`.controls`) carries the field's URL key as its own key;
:func:`current` folds what the widgets hold into the State at the start of every run,
so a widget that is not drawn on this page (the Compare pair, the round on the Slides
page) loses nothing: its value lives in the State. Callbacks that change the state
from a chart click or a button go through :func:`update`, which keeps the widgets and
the State in step.
"""

from __future__ import annotations

import streamlit as st

from ..state import BY_KEY, KEYS, State

_STATE = "_state"
_UNSETTLED = "_unsettled"  # a callback changed the data or the fit: the whole app must rerun


GOTO = "_goto"  # the page a lesson opens, switched to in the next run (context.py)


def current() -> State:
    """The State of this run: the link on a session's first run, then the session's own,
    with whatever the user has just set in a widget; written to the URL."""
    ss = st.session_state
    first = _STATE not in ss
    state = _kept()
    if first and state.lesson:  # a lesson's link opens the lesson's page
        from ..lessons import LESSONS
        ss[GOTO] = LESSONS[state.lesson].page
    moved = {key: ss[key] for key in KEYS if key in ss and ss[key] != getattr(state, key)}
    if moved:
        state = state.changed(**moved)
    return save(state)


def _kept() -> State:
    """The session's State, or on its first run the one the link names."""
    return st.session_state.get(_STATE) or State.from_query(st.query_params)


def peek() -> State:
    """The session's State as the last :func:`current` or :func:`save` left it."""
    return st.session_state.get(_STATE) or current()


def save(state: State) -> State:
    """Keep ``state`` as the session's and name it in the URL."""
    st.session_state[_STATE] = state
    state.write_query(st.query_params)
    return state


def update(**values) -> State:
    """From a callback: set fields (and the widgets that show them) before the next run."""
    ss = st.session_state
    before = _kept()
    state = before.changed(**values)
    if any(BY_KEY[key].group != "view" and getattr(state, key) != getattr(before, key)
           for key in values):
        ss[_UNSETTLED] = True
    for key in values:
        if key in ss:  # a widget of this field: it would fold its old value back in
            ss[key] = getattr(state, key)
    ss[_STATE] = state
    return state


def seed(key: str, value) -> None:
    """Before a field's widget is drawn: let it show the State's value.

    Always set, even when the key already reads that value: on another page the widget
    is a new one, which would start from its default instead.
    """
    st.session_state[key] = value


def unsettled() -> bool:
    """Whether a callback changed the data or the fit since the app last ran whole (a
    page's fragment then reruns the app); reading it settles it."""
    return bool(st.session_state.pop(_UNSETTLED, False))


# --- a run repeated --------------------------------------------------------------------

_REPEAT = "_repeat"  # this run repeats the last one (repeat_run)
_SAID = "_said"  # what the last run that was not a repeat said (said, once)


def repeat_run(scope: str = "app") -> None:
    """Run the page again at once (``scope``: the app, or the fragment running), as the
    same run for the user: what the last run said once is said again (:func:`once`).
    component.bind_later sends a new fit's bindings so."""
    st.session_state[_REPEAT] = True
    st.rerun(scope=scope)


def repeating() -> bool:
    """Whether this run repeats the last one (:func:`repeat_run`)."""
    return bool(st.session_state.get(_REPEAT))


def repeated() -> bool:
    """Whether this run repeated the last one: asked at its end, which settles it."""
    return bool(st.session_state.pop(_REPEAT, False))


def said(key: str, value):
    """What this run says under ``key``: ``value``; or, in a run that repeats the last one,
    what that run said (a note about a change, which the repeat no longer sees)."""
    kept = st.session_state.setdefault(_SAID, {})
    if repeating():
        return kept.get(key, value)
    kept[key] = value
    return value


def once(key: str, default=""):
    """A note said once (a callback sets it under ``key``): taken as it is shown, and said
    again by a run that repeats this one, and only by it."""
    return said(key, default if repeating() else st.session_state.pop(key, default))
