"""The lesson file in Chromium, opened from disk (file://) with every network request
blocked: it steps through every round, and at each round each chart plotly.js is given
(data and layout) equals the figure the page's description draws in Python for that
round; the round bar's keys and Play work; nothing is fetched."""

from __future__ import annotations

import json

import pytest

from explorer.export import interactive
from explorer.figures import pages
from chart_text import CAMERA
from test_bindings import canonical
from test_browser_bindings import DRAWN
from test_interactive import data_of, lesson

pytestmark = pytest.mark.browser

ROUNDS = 12  # every one of them is stepped and checked

CASES = [("moons", "tree", {}), ("moons", "model", {}), ("moons", "sample", {}),
         ("moons", "curves", {}), ("moons", "tree", {"present": True}),  # presenter mode
         ("iris", "model", {}), ("iris", "tree", {"cls": 2}), ("iris", "model", {"pk": True}),
         ("sine", "model", {}), ("sine", "tree", {})]


def open_offline(browser, path):
    """The file in a fresh context whose network is off: (page, what it tried to fetch)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tried = []

    def refuse(route):  # the file itself is read from disk; anything else is refused
        if route.request.url.startswith("file:"):
            route.continue_()
            return
        tried.append(route.request.url)
        route.abort()
    context.route("**/*", refuse)
    context.set_offline(True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script("window.__explorerTest = true")  # keep each figure as built
    page.goto(path.as_uri())
    page.wait_for_function("document.documentElement.dataset.ready === 'true'")
    return page, tried, errors


def camera(page, m: int) -> None:
    """The lesson file's camera gives the app's clean title (explorer/browser/camera.js):
    the hints of the screen's title left out, the file named for the round on screen."""
    from explorer.figures.hints import clean_title
    with page.expect_download() as info:
        shot = page.evaluate(CAMERA)
        assert shot is not None, "no camera of its own in the Curves chart's toolbar"
    assert info.value.suggested_filename == f"{shot['filename']}.{shot['format']}", shot
    assert shot["cameras"] == 1, shot  # plotly.js's own is gone
    assert "click" in shot["screen"] and f"round {m}" in shot["screen"], shot
    assert shot["title"] == clean_title(shot["screen"]) == "Loss and accuracy by round", shot
    assert shot["filename"].startswith("boosting_curves_") and shot["filename"].endswith(
        f"_m{m}"), shot


def drawn_at(page, m: int) -> list[dict]:
    page.wait_for_function("m => document.documentElement.dataset.drawn === String(m)", arg=m)
    return json.loads(page.evaluate(DRAWN))


@pytest.mark.parametrize("name, view, settings", CASES,
                         ids=["-".join([n, v, *s]) for n, v, s in CASES])
def test_the_file_steps_every_round_to_the_pythons_figures(private_browser, tmp_path,
                                                           warm_engine, name, view, settings):
    trace, grid, state, names = lesson(name, rounds=ROUNDS, sample=3, **settings)
    text = interactive.lesson_html(trace, grid, state, names, page=view)
    path = tmp_path / f"{name}-{view}.html"
    path.write_text(text, encoding="utf-8")
    described = pages.describe(view, trace, grid, state, names, key=data_of(text)["key"])
    page, tried, errors = open_offline(private_browser, path)
    for m in range(trace.n_rounds + 1):
        if m:
            page.keyboard.press("PageDown")
        mine = drawn_at(page, m)
        assert [c["view"] for c in mine] == [c.view for c in described.charts]
        for chart, drawn in zip(described.charts, mine):
            want = json.loads(chart.at(m, present=state.present).to_json())
            assert canonical(drawn["data"]) == canonical(want["data"]), (name, chart.view, m)
            assert canonical(drawn["layout"]) == canonical(want["layout"]), (
                name, chart.view, m)
    assert page.evaluate("location.search") == f"?round={trace.n_rounds}"  # the link's round
    if view == "curves":  # the toolbar's image, at the last round (no page load of its own)
        camera(page, trace.n_rounds)
    assert not errors and not tried, (errors, tried)
    page.context.close()


def test_the_round_bar_keys_buttons_and_play(private_browser, tmp_path, warm_engine):
    trace, grid, state, names = lesson("moons", rounds=ROUNDS)
    path = tmp_path / "tree.html"
    path.write_text(interactive.lesson_html(trace, grid, state, names, page="tree"))
    page, tried, errors = open_offline(private_browser, path)
    bar = ".explorer-stepper"
    shown = f"() => document.querySelector('{bar}').dataset.round"
    drawn_at(page, 0)
    page.keyboard.press("End")
    drawn_at(page, ROUNDS)
    page.keyboard.press("PageUp")
    drawn_at(page, ROUNDS - 1)
    page.keyboard.press("Home")
    drawn_at(page, 0)
    page.click(f"{bar} [data-go=next]")
    drawn_at(page, 1)
    page.click(f"{bar} [data-go=last]")
    drawn_at(page, ROUNDS)
    page.click(f"{bar} [data-go=first]")
    drawn_at(page, 0)
    page.click(f"{bar} [data-go=play]")  # to the last round, then it stops
    page.wait_for_function(f"() => ({shown})() === '{ROUNDS}'")
    page.wait_for_function(f"() => document.querySelector('{bar} [data-go=play]')"
                           ".getAttribute('aria-label') === 'Play'")
    assert page.inner_text(f"{bar} .explorer-round") == f"Round {ROUNDS} / {ROUNDS}"
    # a link naming a round opens there
    page.goto(path.as_uri() + "?round=5")
    page.wait_for_function("document.documentElement.dataset.ready === 'true'")
    drawn_at(page, 5)
    titles = page.evaluate("() => [...document.querySelectorAll('.gtitle')]"
                           ".map(t => t.textContent).join(' ')")
    assert "Tree 5" in titles
    assert not errors and not tried, (errors, tried)
    page.context.close()
