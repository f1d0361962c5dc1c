"""Drawing points by hand on the Model page, in a real browser: clicks on an empty plane
add points of the chosen class, a click on a point removes it, and the fit that follows
computes what a hand calculation of the same points gives."""

from __future__ import annotations

import math
import re

import pytest

from test_browser import (CHARTS_DRAWN, READY, button, caption_text, no_exception, open_app, query,
                          wait_ready)

pytestmark = pytest.mark.browser

PLANE = ".explorer-chart[data-view=model] .nsewdrag"
# where to click, as fractions of the plot area (x from the left, y from the top): the
# four points of class 1 on the right half of the plane, the two of class 0 on the left
CLASS_1 = [(0.70, 0.30), (0.78, 0.62), (0.84, 0.45), (0.66, 0.72)]
CLASS_0 = [(0.22, 0.40), (0.30, 0.66)]


def drawn_count(page) -> int:
    return len([item for item in query(page).get("pts", "").split("~") if item])


def click_plane(page, fx: float, fy: float, expect: int) -> None:
    """Click the plane at a fraction of its plot area; wait for the app to hold ``expect``
    drawn points and to finish its run."""
    box = page.locator(PLANE).bounding_box()
    page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    page.wait_for_function(
        """n => new URLSearchParams(location.search).get('pts')?.split('~')
                 .filter(s => s).length === n || (n === 0 && !location.search.includes('pts'))""",
        arg=expect)
    page.wait_for_selector(READY, state="attached")
    page.wait_for_function(f"{CHARTS_DRAWN} >= 1")


def choose_class(page, c: int) -> None:
    page.locator(".st-key-draw_class").get_by_text(f"class {c}", exact=True).click()
    page.wait_for_selector(READY, state="attached")


def tex(page) -> list[str]:
    """The TeX source of every formula on the page (KaTeX keeps it in its MathML)."""
    return page.locator("annotation[encoding='application/x-tex']").all_text_contents()


def shown_gamma(page) -> float:
    """The leaf value the Tree page shows: the last number of the formula for gamma."""
    formula = next(t for t in tex(page) if r"\gamma =" in t and r"\nu" not in t)
    return float(formula.replace(r"\end{gathered}", "").rsplit("=", 1)[1].strip())


def test_drawing_six_points_fits_what_a_hand_calculation_gives(app_server, browser):
    page = open_app(browser, app_server, "/?data=draw", charts=1)
    no_exception(page)
    assert "at least 2 of each class" in page.locator("[data-testid=stAlert]").inner_text()
    for k, (fx, fy) in enumerate(CLASS_1, 1):
        click_plane(page, fx, fy, k)
    choose_class(page, 0)
    for k, (fx, fy) in enumerate(CLASS_0, len(CLASS_1) + 1):
        click_plane(page, fx, fy, k)
    wait_ready(page, 2)  # six points: the fit, its probability map and residual map
    no_exception(page)
    labels = [item.split("_")[0] for item in query(page)["pts"].split("~")]
    assert labels == ["1"] * 4 + ["0"] * 2
    assert "drawn points: 6 training points" in caption_text(page)

    # f0 = log(N+ / N-), as the Model page states it at round 0
    n_pos, n_neg = 4, 2
    engine_f0 = float(re.search(r"engine's f₀ = (-?[\d.]+)", caption_text(page)).group(1))
    assert round(engine_f0, 10) == round(math.log(n_pos / n_neg), 10)

    # round 1's leaves, by hand: every point starts at p = N+/N; the tree parts the
    # classes, so each leaf is one class's points: sum(y - p) / sum(p (1 - p))
    p = n_pos / (n_pos + n_neg)
    by_hand = {1: n_pos * (1 - p) / (n_pos * p * (1 - p)),
               0: n_neg * (0 - p) / (n_neg * p * (1 - p))}
    link = page.url.split("?", 1)[1]
    for sample, label in ((0, 1), (4, 0)):  # sample i is the i-th point drawn
        page.goto(f"{app_server.url}/tree?{link}&round=1&sample={sample}")
        wait_ready(page, 1)
        no_exception(page)
        assert shown_gamma(page) == pytest.approx(by_hand[label], abs=5e-7)
    page.close()


def test_a_click_on_a_point_removes_it_and_undo_brings_it_back(app_server, browser):
    pts = "~".join(f"{c}_{x}_{y}" for c, x, y in ((1, 1, 1), (1, 1.5, -0.5), (0, -1, 0.5),
                                                    (0, -1.5, -1)))
    page = open_app(browser, app_server, f"/?data=draw&pts={pts}", charts=2)
    click_plane(page, 0.5, 0.15, 5)  # an empty place: a fifth point, of class 1
    assert query(page)["pts"].split("~")[-1].startswith("1_")
    click_plane(page, 0.5, 0.15, 4)  # the same place: that point is removed
    assert query(page)["pts"] == pts
    button(page, "draw_undo").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('pts')"
                           ".split('~').length === 5")
    button(page, "draw_clear").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).get('pts')")
    wait_ready(page, 1)  # the empty plane again
    no_exception(page)
    page.close()
