"""Lessons page: every ready-made lesson with its one-line story, its link ready to copy
(for a slide or a course page) and a button that opens it."""

from urllib.parse import urlsplit

import streamlit as st

from explorer import app
from explorer.app import controls
from explorer.lessons import LESSONS

ctx = app.page("Lessons: ready-made settings, each with a caption computed from its fit",
               caption=False)


def app_base() -> str | None:
    """The app's root as the browser opened it (st.context.url, this page's path
    trimmed, so a base path behind a proxy is kept), or None where it is not known."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001  (no browser context: AppTest)
        url = ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    path = parts.path.rstrip("/")
    if path.endswith("/lessons") or path == "lessons":
        path = path[: -len("lessons")].rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{path}"


def body(ctx):
    base = app_base()
    st.caption("A lesson is a link: it sets the data and the settings, opens its page at the "
               "round it is about, and shows a caption with the numbers of the fit on "
               "screen, until a setting changes. Copy a link onto a slide or a course page "
               "(the copy icon at the right of each), or open it here."
               + ("" if base else " The links below are relative to the app's address."))
    for lesson in LESSONS.values():
        with st.container(border=True):
            text, act = st.columns([5, 1], vertical_alignment="center")
            with text:
                st.markdown(f"**{app.md_escape(lesson.title)}** · "
                            f"{lesson.page.replace('_', ' ').capitalize()} page")
                if lesson.story:
                    st.caption(app.md_escape(lesson.story))
                st.code(lesson.url(base) if base else lesson.link, language=None)
            act.button("Open", key=f"open_lesson_{lesson.key}", on_click=controls._open,
                       args=(lesson,), icon=":material/school:", width="stretch",
                       help=f"Open this lesson on the {lesson.page.replace('_', ' ')} page.")


body(ctx)  # not a fragment: a button opens another page, which needs the whole run
