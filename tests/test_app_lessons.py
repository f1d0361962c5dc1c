"""The Lessons page (AppTest): every lesson listed with its story, its link ready to copy,
and a button; the link names the lesson, and the button opens it on its page, at the
round it is about, with its caption."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from apptest_helpers import assert_clean, open_page, round_of, unescape
from explorer.lessons import LESSONS, PAGE_PATHS
from explorer.state import State

LESSONS_PAGE = "pages/lessons.py"
FIRST_LECTURE = ("residuals", "newton", "update", "boundary", "multiclass", "histogram")


def test_every_lesson_has_a_visible_link_and_a_button_that_opens_it(warm_engine):
    at = open_page(LESSONS_PAGE)
    assert_clean(at)
    codes = [c.value for c in at.code]
    text = unescape(" ".join(m.value for m in at.markdown) + " "
                    + " ".join(c.value for c in at.caption)).replace("\\", "")
    assert len(codes) == len(LESSONS)
    for lesson, link in zip(LESSONS.values(), codes):
        # no browser in AppTest: the app's relative link, its page's path and the key
        assert link == lesson.link and lesson.title in text and lesson.story in text
        url = urlsplit(link)
        assert url.path == PAGE_PATHS[lesson.page]
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        state = State.from_query(query)
        assert state.lesson == lesson.key and state.is_lesson
    # the buttons (every one is the sidebar's callback): the first lecture's, in one
    # session, back to the Lessons page each time; test_lessons.py opens every lesson by
    # its link
    at = open_page(LESSONS_PAGE)
    for key in FIRST_LECTURE:
        lesson = LESSONS[key]
        at.button(key=f"open_lesson_{key}").click().run()
        assert_clean(at)
        infos = unescape(" ".join(i.value for i in at.info))
        assert f"Lesson: {lesson.title}" in infos, key
        assert round_of(at) == State.from_query({"lesson": key}).round, key
        at.switch_page(LESSONS_PAGE).run()


def test_the_full_link_keeps_the_apps_base_path():
    lesson = LESSONS["newton"]
    assert lesson.url("https://class.example/explorer/") == \
        "https://class.example/explorer/tree?lesson=newton"
    assert LESSONS["residuals"].link == "/?lesson=residuals"
