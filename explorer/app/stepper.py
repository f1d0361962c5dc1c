"""The round bar (first, previous, slider, next, last, play) and the selection (a sample,
a leaf, a round picked on a chart or in a picker).

A page's body runs in a fragment (:func:`run_page`), so a step reruns only the body. The
round, the sample and the leaf are fields of the State (:mod:`.store`); playing is the
one thing kept beside it, because it is no part of a link.
"""

from __future__ import annotations

import functools

import streamlit as st

from ..numbers import summaries
from ..state import State
from . import component, store
from .controls import field

PLAY_INTERVAL = 0.7  # seconds between rounds while playing
# Play's bookkeeping: whether it plays, whether the fragment's timer runs, and whether
# this fragment run was caused by the user (then it must not also step).
_PLAYING, _TIMER, _FULL_RUN, _ACTED = "_playing", "_timer", "_full_run", "_acted"
_WHOLE = "_whole"  # the page's fragment runs within the whole app's run
# In a browser the round bar is stepper.js; Streamlit's bar stays for what has no browser
# (AppTest, the load harness), out of sight.
_HIDE_SERVER_BAR = "<style>.st-key-server_bar { display: none !important; }</style>"
_BAR = "_bar"  # (round, seq): the round the browser's bar last set, and its step count


def mark_acted() -> None:
    """on_change callback of any widget inside a page's fragment (so play does not step)."""
    st.session_state[_ACTED] = True


def _go(target: str, last: int) -> None:
    """Callback of the round buttons."""
    mark_acted()
    st.session_state[_PLAYING] = False
    m = store.peek().round
    store.update(round={"first": 0, "prev": m - 1, "next": m + 1, "last": last}[target])


def _toggle_play(last: int) -> None:
    ss = st.session_state
    mark_acted()
    ss[_PLAYING] = not ss.get(_PLAYING, False)
    if ss[_PLAYING] and store.peek().round >= last:
        store.update(round=0)  # play from the start when at the end


def round_bar(ctx) -> State:
    """First / previous / slider / next / last / play; returns the State of this run, its
    round and selected sample within the fit.

    Runs inside the page's fragment: a step reruns only the fragment.
    """
    ss = st.session_state
    M = ctx.trace.n_rounds
    playing = ss.get(_PLAYING, False)
    if playing != ss.get(_TIMER, False):
        st.rerun(scope="app")  # start or stop the fragment's timer
    full_run = ss.pop(_FULL_RUN, False)
    acted = ss.pop(_ACTED, False)
    state = store.current()
    if playing and not full_run and not acted:
        state = state.with_round(state.round + max(1, M // 100))
        if state.round >= M:
            ss[_PLAYING] = False
    trees = ctx.trace.n_classes if ctx.trace.is_multiclass else 1  # a class picker's range
    state = store.save(state.for_samples(len(ctx.trace.y), trees))
    bar_round, seq = ss.get(_BAR, (None, -1))
    in_browser = component.round_bar(ctx, state, _stepped,
                                     seq if bar_round == state.round else -1)
    if in_browser:
        st.html(_HIDE_SERVER_BAR)
    with st.container(key="server_bar"):
        _server_bar(state, M, keys=not in_browser)
    return state


def _stepped() -> None:
    """The browser's round bar came to rest on a round: one rerun for what it cannot draw."""
    ss = st.session_state
    mark_acted()
    ss[_PLAYING] = False
    # {"m": round, "seq": the bar's count of its steps}; a bar on a page just opened may
    # call with its state not yet set: nothing moved
    moved = (ss.get("stepper") or {}).get("round")
    if not isinstance(moved, dict) or "m" not in moved:
        return
    ss[_BAR] = (store.update(round=int(moved["m"])).round, int(moved.get("seq", -1)))


def _server_bar(state: State, M: int, keys: bool) -> None:
    """Streamlit's round bar: each step a rerun (with the keyboard shortcuts when ``keys``,
    that is when no browser bar has them)."""
    ss = st.session_state
    if state.present:  # presenter mode: a minimal stepper (previous, slider, next, play)
        cols = st.columns([1.4, 0.8, 8, 0.8, 1.2], vertical_alignment="center")
        cols = [cols[0], None, cols[1], cols[2], cols[3], None, cols[4]]
    else:
        cols = st.columns([1.6, 1, 1, 6, 1, 1, 1.4], vertical_alignment="center")
    cols[0].container(key="round_label").markdown(f"**Round {state.round}** / {M}")
    if cols[1] is not None:
        cols[1].button("", icon=":material/first_page:", key="first", on_click=_go,
                       args=("first", M), help="Round 0", shortcut="Home" if keys else None, width="stretch")
    cols[2].button("", icon=":material/chevron_left:", key="prev", on_click=_go,
                   args=("prev", M), help="Previous round", shortcut="PageUp" if keys else None,
                   width="stretch")
    with cols[3]:
        store.seed("round", state.round)
        st.slider("Round m", min_value=0, max_value=M, step=1, key="round",
                  on_change=mark_acted, label_visibility="collapsed",
                  help="Round 0 is the constant f0; round m adds tree m.")
    cols[4].button("", icon=":material/chevron_right:", key="next", on_click=_go,
                   args=("next", M), help="Next round (a presenter's clicker works too)",
                   shortcut="PageDown" if keys else None, width="stretch")
    if cols[5] is not None:
        cols[5].button("", icon=":material/last_page:", key="last", on_click=_go,
                       args=("last", M), help=f"Round {M}", shortcut="End" if keys else None, width="stretch")
    playing = ss.get(_PLAYING, False)
    cols[6].button("Pause" if playing else "Play", key="play", on_click=_toggle_play,
                   args=(M,), icon=":material/pause:" if playing else ":material/play_arrow:",
                   type="primary" if playing else "secondary", width="stretch",
                   help="Step through the rounds automatically")


def run_page(body, ctx) -> None:
    """Run a page's body in a fragment (with a timer while playing)."""
    ss = st.session_state
    playing = ss.get(_PLAYING, False)
    ss[_TIMER] = playing
    ss[_FULL_RUN] = ss[_WHOLE] = True
    store.unsettled()  # this run is whole

    @functools.wraps(body)  # the fragment keeps the page's name (Streamlit's id for it)
    def fragment(ctx):
        if store.unsettled():  # a click in the page changed the data (drawn points)
            st.rerun(scope="app")
        # the charts a run draws before binding them are bound at its end: the app's
        # (context.finish), or this fragment's when it runs alone (a step at rest)
        alone = not ss.pop(_WHOLE, False)
        if alone:
            component.forget_later()
        body(ctx)
        if alone:
            component.bind_later(scope="fragment")
    st.fragment(fragment, run_every=PLAY_INTERVAL if playing else None)(ctx)


# --- the selection ---------------------------------------------------------------------


def _custom(point: dict) -> list:
    data = point.get("customdata")
    if data is None:
        return []
    if isinstance(data, dict):  # a typed array serialised as {"0": .., "1": ..}
        data = [data[k] for k in sorted(data, key=lambda k: int(k)) if str(k).isdigit()]
    return list(data) if isinstance(data, (list, tuple)) else [data]


def select_sample_from(key: str, points: list[dict]) -> None:
    """Chart callback: the clicked training point becomes the selected sample."""
    mark_acted()
    for point in points:
        custom = _custom(point)
        if custom and custom[0] is not None and int(custom[0]) >= 0:
            store.update(sample=int(custom[0]))
            return


def select_leaf_from(key: str, points: list[dict]) -> None:
    """Chart callback (tree views): a leaf selects the leaf; a point selects the sample."""
    mark_acted()
    for point in points:
        custom = _custom(point)
        if not custom or custom[0] is None:
            continue
        value = int(custom[0])
        if key.endswith("diagram"):
            if len(custom) > 1 and int(custom[1]) == 1:
                store.update(leaf=value)
                return
            continue
        if value >= 0:
            store.update(leaf=value)
        else:  # training points carry -1 - their index
            store.update(sample=-1 - value, leaf=-1)
        return


def select_round_from(key: str, points: list[dict]) -> None:
    """Chart callback (curves): the clicked round becomes the current round."""
    mark_acted()
    st.session_state[_PLAYING] = False
    for point in points:
        x = point.get("x")
        if x is not None:
            store.update(round=int(round(float(x))))
            return


def sample_picker(ctx, state: State) -> int:
    """A number input for the selected sample, kept in step with chart clicks."""
    n = len(ctx.trace.y)
    store.seed("_w_sample", state.sample)

    def changed():
        mark_acted()
        store.update(sample=int(st.session_state["_w_sample"]))
    st.number_input(f"Sample # (0 to {n - 1}; or click a point)", 0, n - 1, key="_w_sample",
                    step=1, on_change=changed)
    return state.sample


def class_picker(ctx, state: State, container=st) -> int:
    """With K >= 3 classes: choose the class k whose residuals and tree are shown."""
    if not ctx.trace.is_multiclass:
        return 0
    names = ctx.classes
    field("cls", state, container, on_change=mark_acted,
          options=list(range(ctx.trace.n_classes)), format_func=lambda k: f"{k}: {names[k]}")
    return state.cls


def leaf_picker(ctx, m: int, leaf: int, followed: bool, k: int = 0) -> None:
    """Choose a leaf of tree m (of class k), or follow the selected sample's leaf."""
    leaves = [int(j) for j in summaries.leaves_of(ctx.trace, m, k)]
    store.seed("_w_leaf", -1 if followed else leaf)

    def changed():
        mark_acted()
        store.update(leaf=int(st.session_state["_w_leaf"]))
    tree = ctx.trace.tree(m, k)
    st.selectbox("Leaf of tree m", [-1] + leaves, key="_w_leaf", on_change=changed,
                 format_func=lambda k: ("the selected sample's leaf" if k < 0 else
                                        f"leaf {k} (n = {int(tree['n'][k])})"))
