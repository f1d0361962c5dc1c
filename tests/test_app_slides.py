"""AppTest over the Slides page: its downloads return the files, follow the view and the
rounds, and say so when there is no browser to render images."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from apptest_helpers import (ROUNDS, SLIDES, assert_clean, chart_payloads, open_page,
                             slides_registered, storyboard)
from explorer.process import ROOT
from export_helpers import assert_self_contained, png_size, svg_root


@pytest.fixture
def deferred(monkeypatch):
    """Record the manager of every deferred download, so a test can run what a click runs."""
    managers, names = {}, {}
    original = MediaFileManager.add_deferred

    def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        file_id = original(self, data_callable, mimetype, coordinates, file_name, **kwargs)
        managers[file_id], names[file_id] = self, file_name
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)

    def download(button) -> bytes:
        """What the browser gets when the button is clicked: the callable's file."""
        file_id = button.proto.deferred_file_id
        assert file_id, f"{button.label}: not built on click"
        manager = managers[file_id]
        url = manager.execute_deferred(file_id)
        return manager.read_file(Path(url).stem).content

    download.name = lambda button: names[button.proto.deferred_file_id]  # the file's name
    return download


@pytest.fixture
def slides_app(tmp_path, warm_engine):
    """AppTest of the router on the Slides page.

    Until app.py registers the page, the same router with the page added runs from a
    temporary folder whose pages/ is the project's.
    """
    if slides_registered():
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    else:
        source = (ROOT / "app.py").read_text().replace(
            "PAGES = [", 'PAGES = [\n    st.Page("pages/slides.py", title="Slides", '
                         'url_path="slides"),', 1)
        (tmp_path / "app.py").write_text(source)
        (tmp_path / "pages").symlink_to(ROOT / "pages")
        at = AppTest.from_file(str(tmp_path / "app.py"), default_timeout=180)
    at.query_params["rounds"] = "20"
    at.run()
    at.switch_page(SLIDES)
    at.run()
    return at


@pytest.mark.browser  # kaleido renders with Chromium
def test_slides_page_downloads_return_the_files(slides_app, deferred):
    at = slides_app
    assert_clean(at)
    buttons = {b.label: b for b in at.get("download_button")}
    assert list(buttons) == ["Storyboard PNG", "Storyboard SVG", "Animation HTML",
                             "Slide PNG", "Slide SVG"]
    spec = _shown(at, "storyboard")
    assert '"round 0"' in spec and '"round 20"' in spec
    for label in ("Storyboard PNG", "Storyboard SVG", "Animation HTML"):
        at.download_button(key={"Storyboard PNG": "slides_png", "Storyboard SVG": "slides_svg",
                                "Animation HTML": "slides_html"}[label]).click().run()
        assert_clean(at)
    buttons = {b.label: b for b in at.get("download_button")}
    png = deferred(buttons["Storyboard PNG"])
    assert png_size(png)[0] >= 1920
    svg_root(deferred(buttons["Storyboard SVG"]))
    html = deferred(buttons["Animation HTML"]).decode("utf-8")
    assert_self_contained(html)
    assert html.count('"name":"') >= 21  # rounds 0..20


@pytest.mark.browser  # kaleido renders with Chromium
def test_slides_page_follows_the_view_and_rounds(slides_app, deferred):
    at = slides_app
    at.radio(key="slides_view").set_value("tree").run()
    at.text_input(key="slides_rounds").set_value("1, 3, 99").run()
    assert_clean(at)
    spec = _shown(at, "storyboard")
    assert "Tree m on the plane at rounds 1, 3" in spec
    assert any("99" in c.value for c in at.caption)  # beyond the fit: left out, and said
    svg = deferred({b.label: b for b in at.get("download_button")}["Storyboard SVG"])
    assert b"round 3" in svg
    at.text_input(key="slides_rounds").set_value("1, two").run()
    assert not at.exception
    assert at.error and "two" in at.error[0].value


@pytest.mark.browser  # kaleido renders with Chromium
def test_slides_page_makes_any_view_a_slide_at_any_round_and_aspect(slides_app, deferred):
    """Every view of the command line's --view is listed; the slide is the command line's
    (export.view_figure, the same arguments), PNG at least 1920 px wide in the aspect
    chosen, SVG, and no interface hint in its title."""
    import re

    import plotly.io as pio

    from explorer import export
    at = slides_app
    choice = at.selectbox(key="slide_view")
    assert list(choice.options) == (
        [export.VIEWS[v][1] for v in export.VIEWS] + [export.CHARTS[v][0] for v in export.CHARTS]
        + list(export.COMPARE_VIEWS.values()) + list(export.SWEEP_VIEWS.values()))
    for view, m, aspect in (("curves", 7, "16:9"), ("leaf", 3, "4:3"), ("diagram", 2, "16:9")):
        choice.set_value(view).run()
        at.number_input(key="slide_round").set_value(m).run()
        at.radio(key="slide_aspect").set_value(aspect).run()
        assert_clean(at)
        buttons = {b.label: b for b in at.get("download_button")}
        png = deferred(buttons["Slide PNG"])
        width, height = png_size(png)
        w, h = export.ASPECTS[aspect]
        assert width >= 1920 and abs(width / height - w / h) < 0.01, (view, width, height)
        svg = deferred(buttons["Slide SVG"])
        svg_root(svg)
        text = " ".join(re.sub(r"<[^>]+>", " ", t) for t in re.findall(
            rb"<text[^>]*>(.*?)</text>", svg, flags=re.S) for t in [t.decode("utf-8")])
        assert f"round {m}" in text, (view, text[:300])
        assert not re.search(r"click|hover|tap a", text, flags=re.I), (view, text[:300])
        # the page's preview is the slide itself: its size is the aspect's
        preview = json.loads(_shown(at, "slide"))["layout"]
        assert (preview["width"], preview["height"]) == (w, h), (view, aspect)


def _shown(at, which: str) -> str:
    """The figure JSON of the page's slide (its chart component's), or its storyboard."""
    return storyboard(at) if which == "storyboard" else next(
        p["figure"] for p in chart_payloads(at) if p["view"].endswith("-slide"))


def _svg_text(svg: bytes) -> str:
    """The words of an SVG file's text elements."""
    import re
    return " ".join(re.sub(r"<[^>]+>", " ", t.decode("utf-8")) for t in re.findall(
        rb"<text[^>]*>(.*?)</text>", svg, flags=re.S))


@pytest.mark.browser  # kaleido renders with Chromium
def test_slides_page_makes_the_compare_and_sweep_pages_views_slides(slides_app, deferred):
    """The Compare page's two sides and curves (the State's pair) and the Sweep page's grid
    (its ready sweep when none is set) as slides: the command line's figures
    (export.compare_figure, export.sweep_figure), at the round and aspect chosen, PNG and
    SVG, no hint in the title, named by the file rule with the pair or the swept keys."""
    import re

    from explorer import export
    from explorer.state import COMPARISONS
    at = slides_app
    (_, (a_name, _), (b_name, _), _) = COMPARISONS["lr"]  # the State's default pair
    for view, m, aspect, title, file_view in (
            ("compare-b", 3, "16:9", f"{b_name}: ", "compare-lr-b"),
            ("compare-curves", 5, "4:3", "Mean log-loss by round", "compare-lr-curves"),
            ("sweep-maps", 4, "16:9", "learning rate, round 4", "sweep-lr-maps")):
        at.selectbox(key="slide_view").set_value(view).run()
        at.number_input(key="slide_round").set_value(m).run()
        at.radio(key="slide_aspect").set_value(aspect).run()
        assert_clean(at)
        preview = json.loads(_shown(at, "slide"))["layout"]
        assert preview["title"]["text"].startswith(title), (view, preview["title"]["text"])
        assert (preview["width"], preview["height"]) == export.ASPECTS[aspect]
        assert f"round {m}" in preview["title"]["text"] + preview["title"]["subtitle"]["text"]
        buttons = {b.label: b for b in at.get("download_button")}
        name = deferred.name(buttons["Slide PNG"])
        assert f"{file_view}_" in name and name.endswith(f"_m{m}.png"), name
        width, height = png_size(deferred(buttons["Slide PNG"]))
        w, h = export.ASPECTS[aspect]
        assert width >= 1920 and abs(width / height - w / h) < 0.01, (view, width, height)
        text = _svg_text(deferred(buttons["Slide SVG"]))
        assert not re.search(r"click|hover|tap a", text, flags=re.I), (view, text[:300])
        if view == "compare-curves":  # both fits, by their names, in the legend
            assert a_name in text and b_name in text
            assert "both sides" in preview["title"]["subtitle"]["text"]
        if view == "sweep-maps":  # every cell of the ready sweep, and the page says which
            assert all(f"ν = {v}" in text for v in ("0.05", "0.1", "0.2", "0.5", "1"))
            assert any("No sweep is set" in c.value for c in at.caption)
    at.selectbox(key="slide_view").set_value("sweep-heat").run()
    assert_clean(at)
    assert at.info and "two swept settings" in at.info[-1].value
    assert not any(b.label.startswith("Slide") for b in at.get("download_button"))


def test_slides_page_takes_the_states_sweep_and_pair(deferred):
    """The State's sweep (two settings: the heat map) and pair name the slides and their
    files."""
    from explorer.state import COMPARISONS
    at = open_page(SLIDES, sweep="lr:0.1,1", sweep2="depth:1,2", pair="outlier", rounds=8,
                   n=120)
    assert_clean(at)
    at.selectbox(key="slide_view").set_value("sweep-heat").run()
    assert_clean(at)
    assert any("`lr:0.1,1` and `depth:1,2`" in c.value for c in at.caption)
    spec = json.loads(_shown(at, "slide"))
    assert spec["layout"]["title"]["text"].startswith("Validation loss at round")
    assert [t["type"] for t in spec["data"]] == ["heatmap", "heatmap"]
    assert len(spec["data"][0]["z"]) == 2 and len(spec["data"][0]["z"][0]) == 2
    names = [deferred.name(b) for b in at.get("download_button")]
    assert any("sweep-lr-depth-heat_" in n for n in names), names
    at.selectbox(key="slide_view").set_value("compare-a").run()
    assert_clean(at)
    (_, (a_name, _), _, _) = COMPARISONS["outlier"]
    title = json.loads(_shown(at, "slide"))["layout"]["title"]["text"]
    assert title.startswith(f"{a_name}: ") and "click" not in title.lower()
    assert "flipped point #" in _shown(at, "slide")  # ringed, as on Compare
    names = [deferred.name(b) for b in at.get("download_button")]
    assert any("compare-outlier-a_" in n for n in names), names


def test_slides_page_without_a_browser_says_so(slides_app, deferred, monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-chromium-here"))
    at = slides_app
    at.run()
    assert not at.exception
    assert at.warning and "no Chromium found" in at.warning[0].value
    buttons = {b.label: b for b in at.get("download_button")}
    assert buttons["Storyboard PNG"].proto.disabled and buttons["Storyboard SVG"].proto.disabled
    assert not buttons["Animation HTML"].proto.disabled
    assert_self_contained(deferred(buttons["Animation HTML"]).decode("utf-8"))




def test_the_slides_storyboard_shows_one_class_on_request():
    at = open_page("pages/slides.py", data="blobs", rounds=ROUNDS, n=120)
    assert_clean(at)
    assert "boundaries between classes" in storyboard(at)
    at.radio(key="slides_view").set_value("residuals").run()
    first = storyboard(at)
    assert "y<sub>k</sub> − p<sub>k</sub>" in json.loads(first)["layout"]["coloraxis"][
        "colorbar"]["title"]["text"]
    at.selectbox(key="cls").set_value(1).run()
    assert_clean(at)
    assert storyboard(at) != first  # class 1's residuals, not class 0's
