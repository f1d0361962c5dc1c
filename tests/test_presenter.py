"""Presenter mode (?present=1) and the chart toolbar's image downloads: AppTest for what the
script draws, Playwright (Debian's /usr/bin/chromium) for what a projector would show."""

from __future__ import annotations

import io
import json
import os
import shutil

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT
from explorer import figures
from explorer.figures import theme
from explorer.state import BY_KEY, State

APP = str(ROOT / "app.py")
TIMEOUT = 180
READY = "[data-testid=stApp][data-test-script-state=notRunning]"


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """AppTest runs the app in this process: compile numba once first."""


def run_app(page: str | None = None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = str(value)
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def payloads(at: AppTest) -> list[dict]:
    found = [json.loads(c.proto.json) for c in at.get("bidi_component")
             if c.proto.component_name == "explorer_chart"]
    return [p for p in found if "figure" in p]


def hides_controls(at: AppTest) -> bool:
    return any("stSidebar" in h.proto.body and "display: none" in h.proto.body
               for h in at.get("html"))


def test_present_is_a_url_field_that_round_trips():
    f = BY_KEY["present"]
    assert f.kind is bool and f.default is False
    assert State.from_mapping({"present": "1"}).present is True
    s = State(present=True)
    assert s.to_query() == {"present": "true"} and State.from_mapping(s.to_query()) == s
    assert "present" not in State().to_query()  # off by default: links stay short


@pytest.mark.parametrize("flag", ["1", "true"])
def test_present_hides_the_controls_and_enlarges_the_charts(flag):
    normal = run_app()
    shown = run_app(present=flag)
    assert not hides_controls(normal) and hides_controls(shown)
    keys = {b.key for b in shown.button}
    # a minimal stepper and a way out
    assert {"prev", "next", "present_exit"} <= keys and not {"first", "last"} & keys
    assert {"first", "last"} <= {b.key for b in normal.button}
    assert shown.toggle(key="present").value is True  # the sidebar toggle says so
    before, after = payloads(normal), payloads(shown)
    assert len(before) == len(after) >= 2
    for a, b in zip(before, after):
        fa, fb = json.loads(a["figure"]), json.loads(b["figure"])
        assert fb["layout"]["font"]["size"] >= 1.3 * fa["layout"]["font"]["size"]
        assert fb["layout"]["title"]["font"]["size"] >= 1.15 * fa["layout"]["title"]["font"]["size"]
        # the light projector/print theme: dark axis lines on white
        axis = fb["layout"]["template"]["layout"]["xaxis"]
        assert axis["linecolor"] == figures.PRINT_TEMPLATE.layout.xaxis.linecolor
        assert fb["layout"]["template"]["layout"]["paper_bgcolor"] == "white"


def test_exit_button_leaves_presenter_mode():
    at = run_app(present=1)
    at.button(key="present_exit").click().run()
    assert not at.exception
    assert not hides_controls(at) and at.toggle(key="present").value is False
    assert "first" in {b.key for b in at.button}
    assert json.loads(payloads(at)[0]["figure"])["layout"]["font"]["size"] == theme.FONT["size"]


def test_sidebar_toggle_enters_presenter_mode():
    at = run_app()
    at.toggle(key="present").set_value(True).run()
    assert not at.exception and hides_controls(at)


@pytest.mark.parametrize("page", [None, "pages/tree.py", "pages/sample.py", "pages/curves.py"])
def test_toolbar_images_are_1920_wide_and_named_by_the_slug(page):
    at = run_app(page, round=3, rounds=20)
    slug = State.from_mapping({"round": 3, "rounds": 20}).slug()
    found = payloads(at)
    assert found
    for p in found:
        opts = p["config"]["toImageButtonOptions"]
        assert opts["width"] * opts["scale"] >= 1920 and opts["height"] > 0
        assert opts["format"] == "png"
        assert opts["filename"] == f"boosting_{p['view']}_{slug}"
        assert "moons400" in opts["filename"] and opts["filename"].endswith("_m3")


def test_toolbar_format_svg_from_the_sidebar():
    at = run_app(present=1)
    at.radio(key="imgfmt").set_value("SVG").run()
    assert not at.exception
    for p in payloads(at):
        opts = p["config"]["toImageButtonOptions"]
        assert opts["format"] == "svg" and opts["width"] * opts["scale"] >= 1920


def test_presented_is_pure_and_scales_markers(moons_fit):
    from explorer.numbers.grid import make_grid
    grid = make_grid(moons_fit, resolution=40)
    fig = figures.residual_map(moons_fit, 2, grid)
    big = figures.presented(fig, scale=1.5)
    assert fig.layout.font.size == theme.FONT["size"]  # the input is left as it was
    points = [t for t in fig.data if t.mode == "markers"][0]
    bigger = [t for t in big.data if t.mode == "markers"][0]
    assert max(bigger.marker.size) == pytest.approx(1.5 * max(points.marker.size), rel=1e-4)
    assert big.layout.font.size == pytest.approx(1.5 * fig.layout.font.size)
    # the legend below the plot moves down with the larger axis title
    assert fig.layout.legend.y < 0
    assert big.layout.legend.y == pytest.approx(1.5 * fig.layout.legend.y)


# --- in a real browser ---------------------------------------------------------------------


def test_browser_presenter_mode_has_charts_and_no_controls(app_server, browser, tmp_path):
    from PIL import Image, ImageStat
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.set_default_timeout(120_000)
    page.goto(app_server.url + "/model?present=1&round=5")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_function("[...document.querySelectorAll('.explorer-chart, "
                           "[data-testid=stPlotlyChart]')].filter(c => "
                           "c.querySelector('.main-svg')).length >= 2")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=stException]").count() == 0
    # no controls: the sidebar (and its widgets) are hidden, the exit button is there
    assert not page.locator("[data-testid=stSidebar]").is_visible()
    assert page.locator(".st-key-n, .st-key-lr, .st-key-depth").filter(
        has=page.locator(":visible")).count() == 0
    assert page.locator(".st-key-present_exit button:visible").count() == 1
    assert page.locator(".st-key-first button:visible").count() == 0
    # larger type in the drawn charts than the screen's 15 px
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector("
                         "'.main-svg .xtick text')).fontSize)")
    assert size >= 20
    shot = tmp_path / "presenter.png"
    page.screenshot(path=str(shot))
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("L")
    assert image.size == (1600, 900)
    assert ImageStat.Stat(image).stddev[0] > 20  # not blank
    if os.environ.get("PRESENTER_SHOT"):  # keep the screenshot to look at
        shutil.copyfile(shot, os.environ["PRESENTER_SHOT"])
    page.close()
