"""Drawn data in the app (AppTest): the empty plane, every page once the points fit, clear
and undo, and the link's limit. The clicks themselves are in test_browser_drawing.py."""

from __future__ import annotations

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


def test_beyond_the_link_limit_the_page_says_so(warm_engine):
    many = "~".join(f"{k % 2}_{k / 100:g}_{(k % 7) / 3:.2f}" for k in range(drawn.LINK_POINTS + 1))
    at = open_page(PAGES[0], data="draw", pts=many)
    assert_clean(at)
    assert "pts" not in at.query_params
    assert f"these {drawn.LINK_POINTS + 1} are not in it" in page_text(at)


def test_a_broken_link_says_which_point(warm_engine):
    at = open_page(PAGES[0], data="draw", pts="1_0_0~x_1_1")
    assert_clean(at)
    assert "Drawn point 2" in at.info[0].value
