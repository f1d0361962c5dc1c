"""The Splits page's histogram views in Chromium: drawn without an exception, and no chart
text on other text or cut off (tests/chart_text.js), for two classes, iris and the sine
regression, at rounds 1 and 10, in a laptop window and in presenter mode."""

from __future__ import annotations

import pytest

import chart_text as ct

pytestmark = pytest.mark.browser

# data -> (its round in a laptop window, its round in presenter mode on a wider one)
CASES = {"moons": (1, 10), "iris": (10, 1), "sine": (1, 10)}
VIEWS = {"chart_histogram_split", "chart_histogram_growth", "chart_histogram_leaves"}


def test_the_histogram_views_text_neither_overlaps_nor_is_cut_off(app_server, browser):
    """Each data set opened once at 1,280 px; then the window widened, presenter mode
    switched on with its toggle and the other round reached with the round bar."""
    problems = []
    for data, (laptop, presenting) in CASES.items():
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.set_default_timeout(120_000)
        sent = ct.frames_sent(page)
        try:
            page.goto(f"{app_server.url}/splits?data={data}&split=histogram&rounds=10"
                      f"&round={laptop}")
            ct.settle(page, 3)
            problems += _problems(page, f"{data} round {laptop} at 1280 px")
            page.set_viewport_size({"width": 1600, "height": 1000})
            page.get_by_text("Presenter mode", exact=True).click()
            page.wait_for_function("() => /[?&]present=(1|true)/.test(location.search)")
            ct.settle(page, 3)
            ct.step(page, sent, "/splits", presenting)
            problems += _problems(page, f"{data} round {presenting}, presenter mode, 1600 px")
        finally:
            page.close()
    assert not problems, "\n".join(problems)


def _problems(page, where: str) -> list[str]:
    assert page.locator("[data-testid=stException]").count() == 0, where
    found = ct.problems(page)
    names = {chart["chart"] for chart in found}
    assert VIEWS <= names, (where, names)
    return [f"{where}: {line}" for line in ct.summary(found)]


def test_the_tree_page_draws_31_leaves_with_no_text_on_other_text(app_server, browser):
    """HistGradientBoosting's default of 31 leaves (2,500 points) on the Tree page: the
    diagram, the plane and the update, with no chart text overlapping or cut off; at
    1,280 px, then in presenter mode (its toggle) in a window widened to 1,600 px."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(120_000)
    problems = []
    try:
        page.goto(f"{app_server.url}/tree?split=histogram&n=2500&rounds=10&round=10")
        for where in ("1280 px", "presenter mode, 1600 px"):
            if "presenter" in where:
                page.set_viewport_size({"width": 1600, "height": 1000})
                page.get_by_text("Presenter mode", exact=True).click()
                page.wait_for_function("() => /[?&]present=(1|true)/.test(location.search)")
            ct.settle(page, 3)
            assert page.locator("[data-testid=stException]").count() == 0, where
            found = ct.problems(page)
            assert len(found) >= 3 and "31 leaves" in page.inner_text("[data-testid=stMain]")
            problems += [f"{where}: {line}" for line in ct.summary(found)]
    finally:
        page.close()
    assert not problems, "\n".join(problems)
