"""The lesson file on a page: this page (or, on the Slides page, a chosen one) as one HTML
file that steps offline (:mod:`explorer.export.interactive`), and the iframe snippet that
embeds it from wherever the teacher puts it.

The file is made when asked for (a few seconds: every round of every chart is drawn),
kept for this session until the settings change, then offered for download.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from ..export import interactive
from ..settings import Settings
from ..state import State
from .context import md_escape

_MADE = "_lesson_file"  # (what it was made of, file name, bytes or the refusal)


def _app_url() -> str:
    """The address the app was opened at (st.context.url: its page's path trimmed, so
    the base path behind a proxy is kept), else the usual one."""
    try:
        url = st.context.url or ""
    except Exception:  # no browser context (AppTest)
        url = ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return interactive.APP_URL
    return url.rstrip("/")


def file_name(ctx, state: State, page: str) -> str:
    dataset = ("upload-" + ctx.train.name if state.is_upload else "drawn" if state.is_drawn
               else f"{state.data}{state.n}")
    return Settings.of(ctx.trace.params).file_name(dataset, f"{page}-lesson", None, "html")


def _make(ctx, state: State, page: str, made_of: tuple, name: str, described) -> None:
    """The button's callback (run before the rerun it causes): make the file, or keep
    why it cannot be made."""
    try:
        data = interactive.lesson_html(ctx.trace, ctx.grid, state, ctx.names, page=page,
                                       data_label=ctx.data_label, app_url=_app_url(),
                                       described=described)
        st.session_state[_MADE] = (made_of, name, data.encode("utf-8"))
    except interactive.LessonTooLarge as error:
        st.session_state[_MADE] = (made_of, name, str(error))


def lesson_file(ctx, state: State, page: str, key: str = "lesson", described=None) -> None:
    """A button that makes ``page``'s lesson file at ``state``, then its download and
    the embed code (or why it cannot be made: the setting to reduce). ``described``: the
    page's charts where they are not the page fit's own (the Sweep page's)."""
    made_of = (ctx.key, page, state.query_string())
    name = file_name(ctx, state, page)
    left, right = st.columns([1, 2], vertical_alignment="center")
    left.button("Lesson file (steps offline)", key=f"{key}_make",
                icon=":material/offline_bolt:", width="stretch",
                on_click=_make, args=(ctx, state, page, made_of, name, described),
                help="This page as one HTML file with every round inside: it steps with "
                     "no server and no network (a course page, a mail, a slide). Made "
                     "when you click, in a few seconds.")
    made = st.session_state.get(_MADE)
    if made is None or made[0] != made_of:
        right.caption("Click to make it: the file shows this page's charts at every round.")
        return
    _, name, data = made
    if isinstance(data, str):
        right.error(md_escape(data), icon=":material/error:")
        return
    right.download_button(
        f"Download ({len(data) / 2**20:.1f} MB)", data=data, file_name=name,
        mime="text/html", key=f"{key}_download", on_click="ignore",
        icon=":material/download:")
    with st.popover("Copy embed code", icon=":material/code:"):
        st.caption("Put the file beside the page or slide, then paste this (the copy "
                   "button is at the code's top right):")
        st.code(interactive.embed_code(name), language="html")
