"""Drawn data in the app (AppTest): the empty plane, every page once the points fit, clear
and undo, and the link's limit. The clicks themselves are in test_browser_drawing.py."""

from __future__ import annotations

import re

import pytest

from apptest_helpers import PAGES, assert_clean, chart_payloads, open_page, page_text
from explorer import drawn

FOUR = "1_1_0.5~1_1.5_-1~0_-1_-1~0_-1.2_0.5"


def test_an_empty_plane_to_draw_on(warm_engine):
    at = open_page(PAGES[0], data="draw")
    assert_clean(at)
    assert [p["view"] for p in chart_payloads(at)] == ["model"]
    assert chart_payloads(at)[0]["draw"] is True
    assert "there are 0 of class 0 and 0 of class 1" in at.info[0].value
    assert at.button(key="draw_undo").disabled and at.button(key="draw_clear").disabled


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("m", ["0", "1", "100"])
def test_every_page_shows_four_drawn_points(page, m, warm_engine):
    at = open_page(page, data="draw", pts=FOUR, round=m)
    assert_clean(at)
    assert "drawn points: 4 training points" in page_text(at)
    drawing = [p["draw"] for p in chart_payloads(at)]  # only the Model page's plane draws
    assert drawing == ([True, False] if page == PAGES[0] else [False] * len(drawing))


def test_clear_then_undo_bring_the_points_back(warm_engine):
    at = open_page(PAGES[0], data="draw", pts=FOUR)
    at.button(key="draw_clear").click().run()
    assert_clean(at)
    assert at.query_params.get("pts") is None and at.info  # the empty plane again
    at.button(key="draw_undo").click().run()
    assert_clean(at)
    assert at.query_params["pts"] == FOUR
    assert at.button(key="draw_undo").disabled


def _many(n: int) -> str:
    return "~".join(f"{k % 2}_{k / 100:g}_{(k % 7) / 3:.2f}" for k in range(n))


def _fitted(text: str) -> int:
    """The points the settings line says the fit has (trained and held out)."""
    found = re.search(r"drawn points: (\d+) training points, (\d+) held out", text)
    return int(found[1]) + int(found[2])


def test_beyond_the_link_limit_the_page_says_so(warm_engine):
    at = open_page(PAGES[0], data="draw", pts=_many(drawn.LINK_POINTS + 1))
    assert_clean(at)
    # the link: the first points and how many more; this session has them all
    assert at.query_params["pts"] == _many(drawn.LINK_POINTS) + "~more_1"
    assert (f"The link holds the first {drawn.LINK_POINTS} of these "
            f"{drawn.LINK_POINTS + 1} points") in page_text(at)
    assert "could not come back" not in page_text(at) and not at.warning
    assert _fitted(page_text(at)) == drawn.LINK_POINTS + 1


@pytest.mark.parametrize("page", [PAGES[0], "pages/tree.py"])
def test_a_link_opened_without_its_points_beyond_the_limit_says_how_many(page, warm_engine):
    """Issue 48: the link's points came back, the 37 beyond its limit could not (another
    student, or a process that died): the fit has the link's points and the page says
    how many are missing, as text; the link keeps saying so."""
    link = _many(drawn.LINK_POINTS) + "~more_37"
    at = open_page(page, data="draw", pts=link)
    assert_clean(at)
    text = page_text(at)
    # every page: the settings line under the title and the sidebar's note
    assert _fitted(text) == drawn.LINK_POINTS
    assert f"held out (37 drawn points could not come back: a link holds {drawn.LINK_POINTS})" \
        in text
    assert f"37 drawn points could not come back: a link holds {drawn.LINK_POINTS}" in [
        c.value for c in at.sidebar.caption]
    warnings = [w.value for w in at.warning]
    if page == PAGES[0]:  # where points are drawn: why, and what to do
        assert warnings == [drawn.lost_message(link)]
        assert "(it may have restarted)" in warnings[0] and "<" not in warnings[0]
    else:
        assert warnings == []
    assert at.query_params["pts"] == link


def test_a_broken_link_says_which_point(warm_engine):
    at = open_page(PAGES[0], data="draw", pts="1_0_0~x_1_1")
    assert_clean(at)
    assert "Drawn point 2" in at.info[0].value
