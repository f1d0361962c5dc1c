"""Exports for slides: the command line's files, storyboards, animations, images made by
kaleido with Debian's Chromium (one at a time, each caller its own), file names, the
Slides page under AppTest, and one download in a real browser."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.colors import sample_colorscale
from plotly.offline import get_plotlyjs
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from conftest import ROOT
from explorer import __main__ as cli
from explorer import export
from explorer.numbers.grid import make_grid

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_ROOT = "{http://www.w3.org/2000/svg}svg"
NO_BROWSER_MESSAGE = "no Chromium found: install Debian's chromium (apt-get install chromium)"


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == PNG_SIGNATURE, data[:8]
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_root(data: bytes) -> ET.Element:
    root = ET.fromstring(data)
    assert root.tag == SVG_ROOT, root.tag
    return root


def assert_self_contained(html: str) -> None:
    """plotly.js inline, and no script (or anything else) loaded from elsewhere."""
    assert get_plotlyjs() in html, "the plotly.js bundle is not inline"
    tags = re.findall(r"<script\b[^>]*>", html, flags=re.IGNORECASE)
    assert tags, "no script at all"
    for tag in tags:
        assert not re.search(r"\bsrc\s*=", tag, flags=re.IGNORECASE), tag
    assert not re.search(r"""<script[^>]*src\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"""<link[^>]*href\s*=\s*["']?\s*(https?:)?//""", html, re.I)


@pytest.fixture(scope="module")
def grid(moons_fit):
    return make_grid(moons_fit)


# --- the command line -------------------------------------------------------------------

CLI_ROUNDS = (0, 1, 10)


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """Run ``python -m explorer export`` once, as a user would, with every format."""
    out = tmp_path_factory.mktemp("slides")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "export", "--dataset", "circles", "--n", "240",
         "--n-rounds", "15", "--learning-rate", "0.3", "--max-depth", "2", "--subsample",
         "0.8", "--rounds", ",".join(map(str, CLI_ROUNDS)), "--view", "model",
         "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    print(f"\nCLI export of 3 rounds x (png, svg) + storyboard + animation: "
          f"{time.perf_counter() - start:.1f} s (one process, Chromium started once)")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return out, done


def test_cli_writes_each_round_the_storyboard_and_the_animation(cli_files):
    out, _ = cli_files
    files = sorted(p.name for p in out.iterdir())
    stem = "boosting_model_circles240_log-loss_M15_lr0.3_d2_s0.8"
    expected = [f"{stem}_m{m}.{ext}" for m in CLI_ROUNDS for ext in ("png", "svg")]
    board = "boosting_model-storyboard_circles240_log-loss_M15_lr0.3_d2_s0.8_m0-1-10"
    expected += [f"{board}.png", f"{board}.svg",
                 "boosting_model-animation_circles240_log-loss_M15_lr0.3_d2_s0.8_all-rounds.html"]
    assert files == sorted(expected)


def test_cli_pngs_are_at_least_1920_wide(cli_files):
    out, _ = cli_files
    pngs = list(out.glob("*.png"))
    assert len(pngs) == len(CLI_ROUNDS) + 1
    for path in pngs:
        width, height = png_size(path.read_bytes())
        assert width >= 1920 and height > 500, (path.name, width, height)
        assert path.stat().st_size > 20_000  # a real picture, not an empty canvas


def test_cli_svgs_parse_as_svg(cli_files):
    out, _ = cli_files
    svgs = list(out.glob("*.svg"))
    assert len(svgs) == len(CLI_ROUNDS) + 1
    for path in svgs:
        root = svg_root(path.read_bytes())
        assert float(root.get("width")) >= 1920
        text = path.read_text()
        # vector: the title is text in the file and the points are paths, not a WebGL
        # bitmap (plotly draws a heatmap as an image in any case)
        assert re.search(r"round \d+|Model after round", text), path.name
        assert text.count('class="point') > 100, path.name


def test_cli_html_animation_is_self_contained(cli_files):
    out, _ = cli_files
    (path,) = out.glob("*.html")
    html = path.read_text(encoding="utf-8")
    assert_self_contained(html)
    assert "Plotly.addFrames" in html and "Play" in html
    # 16 frames (rounds 0..15), each named by its round
    assert all(f'"name":"{m}"' in html for m in range(16))


def run_main(capsys, *argv) -> tuple[int, str]:
    try:
        status = cli.main(["export", *argv])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    err = capsys.readouterr().err
    return status, err


@pytest.mark.parametrize("argv, message", [
    (["--dataset", "nope"], "invalid choice: 'nope'"),
    (["--rounds", "0,x"], "'x' is not one"),
    (["--n-rounds", "12", "--rounds", "0,13"], "Round 13 is beyond the last round, 12"),
    (["--width", "1280"], "at least 1920"),
    (["--formats", "png,gif"], "png, svg, html"),
    (["--n-rounds", "0"], "--n-rounds must be in"),
    (["--learning-rate", "-1"], "--learning-rate must be in"),
    (["--n", "3"], "number of points"),
    (["--csv", "/nonexistent/points.csv"], "could not be opened"),
    (["--features", "a,b"], "--csv"),
])
def test_cli_bad_input_says_what_is_wrong(capsys, tmp_path, warm_engine, argv, message):
    formats = [] if "--formats" in argv else ["--formats", "svg"]
    status, err = run_main(capsys, *argv, *formats, "--out", str(tmp_path / "out"))
    assert status in (1, 2), err
    assert message in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_cli_with_a_csv_file(capsys, tmp_path, warm_engine):
    rows = [f"{(i * 37) % 100 / 10},{(i * 53) % 100 / 10},"
            f"{'yes' if ((i * 37) % 100) + ((i * 53) % 100) > 100 else 'no'},{i}"
            for i in range(120)]
    csv = tmp_path / "My Points (v2).csv"
    csv.write_text("width,height,label,id\n" + "\n".join(rows) + "\n")
    out = tmp_path / "out"
    status, err = run_main(capsys, "--csv", str(csv), "--features", "width,height",
                           "--target", "label", "--n-rounds", "8", "--view", "tree",
                           "--rounds", "1,8", "--formats", "svg", "--out", str(out))
    assert status == 0, err
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "boosting_tree-storyboard_My-Points-v2_log-loss_M8_lr0.1_d3_m1-8.svg",
        "boosting_tree_My-Points-v2_log-loss_M8_lr0.1_d3_m1.svg",
        "boosting_tree_My-Points-v2_log-loss_M8_lr0.1_d3_m8.svg"]
    assert "width" in (out / names[1]).read_text()  # the feature names label the axes


def test_cli_regression_toy_set_and_csv(capsys, tmp_path, warm_engine):
    out = tmp_path / "out"
    status, err = run_main(capsys, "--dataset", "sine", "--n-rounds", "6", "--rounds", "0,6",
                           "--formats", "html", "--out", str(out))
    assert status == 0, err
    (page,) = out.iterdir()
    assert page.name == "boosting_model-animation_sine400_squared-error_M6_lr0.1_d3_all-rounds.html"
    assert '"type":"bar"' in page.read_text()  # the residual bars of the staircase
    csv = tmp_path / "houses.csv"
    csv.write_text("size,price\n" + "".join(f"{i},{100 + 3 * i + (i * 7) % 5}\n"
                                             for i in range(40)))
    status, err = run_main(capsys, "--csv", str(csv), "--task", "regression", "--features",
                           "size", "--target", "price", "--n-rounds", "4", "--formats", "html",
                           "--view", "tree", "--out", str(out))
    assert status == 0, err
    assert any("houses" in p.name and "squared-error" in p.name for p in out.iterdir())
    status, err = run_main(capsys, "--dataset", "sine", "--task", "regression",
                           "--out", str(out))
    assert status == 1 and "a toy set decides them" in err


def test_cli_without_a_browser_says_so(tmp_path):
    env = dict(os.environ, BROWSER_PATH=str(tmp_path / "no-chromium-here"))
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "export", "--n-rounds", "5", "--rounds", "1",
         "--formats", "png", "--out", str(tmp_path / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1
    assert NO_BROWSER_MESSAGE in done.stderr
    assert "Traceback" not in done.stderr


# --- storyboards and animations ---------------------------------------------------------


def coloured(trace) -> dict | None:
    """The part of a trace that carries a colour scale (the trace or its marker), if any."""
    if trace.type in ("heatmap", "contour") and trace.coloraxis:
        return trace
    marker = getattr(trace, "marker", None)
    if marker is not None and marker.coloraxis:
        return marker
    return None


@pytest.mark.parametrize("view", list(export.VIEWS))
def test_storyboard_has_one_titled_panel_per_round_and_one_colour_scale(moons_fit, grid, view):
    rounds = [0, 1, 2, 5, 12]
    fig = export.storyboard(moons_fit, view, rounds, grid, feature_names=("a", "b"))
    layout = fig.layout
    xaxes = sorted(k for k in layout.to_plotly_json() if re.fullmatch(r"xaxis\d*", k))
    assert len(xaxes) == len(rounds)
    titles = [a.text for a in layout.annotations if re.fullmatch(r"round \d+", a.text or "")]
    assert titles == [f"round {m}" for m in rounds]
    assert "rounds 0, 1, 2, 5, 12" in layout.title.text
    # every panel's traces sit on their own axes, in the order of the rounds
    used = {t.xaxis for t in fig.data}
    assert used <= {"x"} | {f"x{k}" for k in range(2, len(rounds) + 1)}
    # one shared colour scale: every coloured trace on layout.coloraxis, none with its own
    scaled = [c for c in map(coloured, fig.data) if c is not None]
    assert scaled, "no coloured trace"
    assert all(c.coloraxis == "coloraxis" for c in scaled)
    for t in fig.data:
        assert getattr(t, "colorscale", None) is None
        assert getattr(getattr(t, "marker", None), "colorscale", None) is None
        assert getattr(t, "showscale", None) in (None, False)
    axis = layout.coloraxis
    assert axis.colorscale and axis.colorbar is not None
    lo, hi = axis.cmin, axis.cmax
    if view == "model":
        assert (lo, hi) == (0.0, 1.0)
    elif view == "tree":
        # the largest |leaf value| over the panels' trees: one colour, one value, everywhere
        vmax = max(float(np.abs(moons_fit.tree(m)["value"]).max()) for m in rounds if m > 0)
        assert hi == pytest.approx(vmax) and lo == pytest.approx(-vmax)
        # the leaf boxes are filled on that range: a leaf's colour is its value's colour
        labels = [t for t in fig.data if t.name == "leaf value γ"]
        assert len(labels) == len(rounds) - 1  # round 0 has no tree
        for panel, label in zip(rounds[1:], labels):
            boxes = [s for s in layout.shapes if s.type == "rect" and s.layer == "below"
                     and s.xref == label.xaxis]
            assert len(boxes) == len(label.marker.color) > 1
            scale = [list(stop) for stop in axis.colorscale]
            for box, value in zip(boxes, label.marker.color):
                assert box.fillcolor == sample_colorscale(scale, [(value - lo) / (hi - lo)])[0]
    else:
        assert (lo, hi) == (-1.0, 1.0)  # log-loss residuals y - p lie in (-1, 1)
    # a legend once, not once per panel
    names = [t.name for t in fig.data if t.showlegend is not False and t.name]
    assert len(names) == len(set(names))


def test_storyboard_colour_range_spans_every_panel(warm_engine):
    """Exponential loss: each round's residual scale differs; the storyboard takes the widest."""
    from explorer import fit
    from explorer.data import make_toy
    ds = make_toy("xor", n=200, noise=0.2, seed=3)
    trace = fit(ds.X, ds.y, loss="exponential", n_rounds=30, learning_rate=0.5)
    rounds = [0, 3, 30]
    scales = [figures_scale(trace, m) for m in rounds]
    fig = export.storyboard(trace, "residuals", rounds)
    assert len(set(np.round(scales, 9))) > 1, "the rounds' own scales should differ"
    assert fig.layout.coloraxis.cmax == pytest.approx(max(scales))
    assert fig.layout.coloraxis.cmin == pytest.approx(-max(scales))


def figures_scale(trace, m):
    from explorer import figures
    return figures.residual_scale(trace, trace.residual(m))


def test_storyboard_rejects_rounds_outside_the_fit(moons_fit, grid):
    with pytest.raises(ValueError, match="Round 13 is not in 0..12"):
        export.storyboard(moons_fit, "model", [0, 13], grid)
    with pytest.raises(ValueError, match="view must be one of"):
        export.storyboard(moons_fit, "pie", [0], grid)


@pytest.mark.parametrize("view", ["model", "residuals"])
def test_animation_has_one_frame_per_round_a_slider_and_play(moons_fit, grid, view):
    rounds = [0, 1, 2, 5, 12]
    fig = export.animation(moons_fit, view, rounds, grid)
    assert [f.name for f in fig.frames] == [str(m) for m in rounds]
    (slider,) = fig.layout.sliders
    assert [s.label for s in slider.steps] == [str(m) for m in rounds]
    assert [list(s.args[0]) for s in slider.steps] == [[str(m)] for m in rounds]
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert any("Play" in label for label in labels) and any("Pause" in label for label in labels)
    # each frame names its round in the title
    assert all(f"round {m}" in f.layout.title.text for m, f in zip(rounds, fig.frames))
    # frames carry what changes (the map, the residuals), not what never does: the
    # points' positions are in the figure once
    assert fig.data[-1].x is not None
    assert all(f.data[-1].x is None for f in fig.frames)


def test_animation_defaults_to_every_round_and_skips_round_0_for_trees(moons_fit, grid):
    fig = export.animation(moons_fit, "model", None, grid)
    assert [f.name for f in fig.frames] == [str(m) for m in range(moons_fit.n_rounds + 1)]
    tree = export.animation(moons_fit, "tree", [0, 1, 4], grid)
    assert [f.name for f in tree.frames] == ["1", "4"]
    assert export.animation_rounds(500)[:10] == list(range(10))
    assert len(export.animation_rounds(500)) <= export.ANIMATION_FRAMES
    assert export.animation_rounds(500)[-1] == 500


def test_animation_html_is_self_contained(moons_fit, grid):
    html = export.animation_html(moons_fit, "tree", [1, 2, 3], grid)
    assert_self_contained(html)
    assert html.count('"name":"') >= 3


# --- images ------------------------------------------------------------------------------


def test_to_image_png_and_svg_sizes(moons_fit, grid):
    fig = export.view_figure(moons_fit, "model", 3, grid)
    start = time.perf_counter()
    png = export.to_image(fig, "png")
    first = time.perf_counter() - start
    start = time.perf_counter()
    wide = export.to_image(fig, "png", width=2400)
    again = time.perf_counter() - start
    print(f"\nPNG of one view: {first:.2f} s (first, may start Chromium), then {again:.2f} s")
    assert png_size(png)[0] == 1920
    assert png_size(wide)[0] == 2400
    root = svg_root(export.to_image(fig, "svg"))
    assert float(root.get("width")) == pytest.approx(1920, abs=1)
    board = export.storyboard(moons_fit, "model", [0, 1, 2, 5, 10, 12], grid)
    start = time.perf_counter()
    assert png_size(export.to_image(board, "png"))[0] == 1920
    print(f"storyboard PNG (6 panels): {time.perf_counter() - start:.2f} s")


def test_to_image_rejects_other_formats_and_small_widths():
    fig = go.Figure()
    with pytest.raises(ValueError, match="png or svg"):
        export.to_image(fig, "gif")
    with pytest.raises(ValueError, match="at least 1920"):
        export.to_image(fig, "png", width=800)


def test_concurrent_exports_each_get_their_own_image():
    """Kaleido's shared server hands concurrent callers each other's images; ours must not."""
    n = 16
    results, errors = {}, []
    barrier = threading.Barrier(n)

    def export_one(i):  # not `export`: that is the module under test
        fig = go.Figure(go.Bar(x=["a", "b"], y=[i, n - i]),
                        layout=dict(title=dict(text=f"thread-{i:02d}-marker"), width=500,
                                    height=300))
        barrier.wait()  # all at once
        try:
            results[i] = export.to_image(fig, "svg").decode("utf-8")
        except Exception as error:  # noqa: BLE001  (reported below)
            errors.append(error)

    threads = [threading.Thread(target=export_one, args=(i,)) for i in range(n)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    took = time.perf_counter() - start
    print(f"\n{n} concurrent SVG exports: {took:.2f} s in all ({took / n:.2f} s each, serialised)")
    assert not errors, errors
    assert sorted(results) == list(range(n))
    for i, svg in results.items():
        assert f"thread-{i:02d}-marker" in svg
        others = set(re.findall(r"thread-\d\d-marker", svg)) - {f"thread-{i:02d}-marker"}
        assert not others, (i, others)


def test_no_browser_gives_a_clear_error(monkeypatch, tmp_path):
    export.shutdown()  # the next image must look for a browser again
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-chromium-here"))
    assert export.find_browser() is None
    with pytest.raises(export.ExportError) as caught:
        export.to_image(go.Figure(), "png")
    assert NO_BROWSER_MESSAGE in str(caught.value)
    assert isinstance(caught.value, RuntimeError)
    monkeypatch.delenv("BROWSER_PATH")
    assert png_size(export.to_image(go.Figure(), "png"))[0] == 1920  # and it recovers


# --- names and rounds --------------------------------------------------------------------

PARAMS = dict(loss="log_loss", n_rounds=100, learning_rate=0.1, max_depth=3, max_leaves=None,
              min_samples_leaf=1, subsample=1.0, random_state=0)


def test_export_name_says_what_the_file_is():
    assert export.export_name("moons400", PARAMS, "model", 10, "png") == \
        "boosting_model_moons400_log-loss_M100_lr0.1_d3_m10.png"
    assert export.export_name("moons400", dict(PARAMS, max_leaves=8, subsample=0.5), "tree",
                               [0, 1, 2, 5, 10, 50], "SVG") == \
        "boosting_tree_moons400_log-loss_M100_lr0.1_d3_L8_s0.5_m0-1-2-5-10-50.svg"
    assert export.export_name("x", PARAMS, "model", None, "html").endswith("_all-rounds.html")
    assert export.export_name("x", PARAMS, "model", list(range(0, 100, 5)), "png").endswith(
        "_m0-to-95-20rounds.png")


@pytest.mark.parametrize("dataset", ["../../etc/passwd", "my data (1).csv", "é€ü:*?<>|", ".",
                                     "a" * 500, "CON"])
def test_export_name_is_safe_for_any_file_system(dataset):
    name = export.export_name(dataset, PARAMS, "model", 3, "png")
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name), name
    assert not name.startswith(".") and "/" not in name and ".." not in name
    assert len(name) <= 150
    assert name.startswith("boosting_model_") and name.endswith("_m3.png")


def test_parse_rounds():
    assert export.parse_rounds("0, 1,2 ;5 10 50") == [0, 1, 2, 5, 10, 50]
    assert export.parse_rounds("3,3,1") == [3, 1]
    for bad in ("", "1,-2", "1.5", "one"):
        with pytest.raises(ValueError):
            export.parse_rounds(bad)
    with pytest.raises(ValueError, match="beyond the last round, 9"):
        export.parse_rounds("0,10", 9)
    assert export.storyboard_rounds(100) == [0, 1, 2, 5, 10, 50]
    assert export.storyboard_rounds(30) == [0, 1, 2, 5, 10, 30]
    assert export.storyboard_rounds(1) == [0, 1]


# --- the Slides page (AppTest) -----------------------------------------------------------

SLIDES = "pages/slides.py"


def slides_registered() -> bool:
    return SLIDES in (ROOT / "app.py").read_text()


@pytest.fixture
def deferred(monkeypatch):
    """Record the manager of every deferred download, so a test can run what a click runs."""
    managers = {}
    original = MediaFileManager.add_deferred

    def add_deferred(self, *args, **kwargs):
        file_id = original(self, *args, **kwargs)
        managers[file_id] = self
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)

    def download(button) -> bytes:
        """What the browser gets when the button is clicked: the callable's file."""
        file_id = button.proto.deferred_file_id
        assert file_id, f"{button.label}: not built on click"
        manager = managers[file_id]
        url = manager.execute_deferred(file_id)
        return manager.read_file(Path(url).stem).content

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


def assert_clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_slides_page_downloads_return_the_files(slides_app, deferred):
    at = slides_app
    assert_clean(at)
    buttons = {b.label: b for b in at.get("download_button")}
    assert list(buttons) == ["Storyboard PNG", "Storyboard SVG", "Animation HTML"]
    (chart,) = at.get("plotly_chart")
    assert '"round 0"' in chart.proto.spec and '"round 20"' in chart.proto.spec
    for label in buttons:
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


def test_slides_page_follows_the_view_and_rounds(slides_app, deferred):
    at = slides_app
    at.radio(key="slides_view").set_value("tree").run()
    at.text_input(key="slides_rounds").set_value("1, 3, 99").run()
    assert_clean(at)
    spec = at.get("plotly_chart")[0].proto.spec
    assert "Tree m on the plane at rounds 1, 3" in spec
    assert any("99" in c.value for c in at.caption)  # beyond the fit: left out, and said
    svg = deferred({b.label: b for b in at.get("download_button")}["Storyboard SVG"])
    assert b"round 3" in svg
    at.text_input(key="slides_rounds").set_value("1, two").run()
    assert not at.exception
    assert at.error and "two" in at.error[0].value


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


# --- one download in a real browser ------------------------------------------------------


def test_browser_downloads_a_chart_image(app_server, browser, tmp_path):
    """Slides' PNG button once app.py registers the page; until then a chart's toolbar."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    page.set_default_timeout(120_000)
    ready = "[data-testid=stApp][data-test-script-state=notRunning]"
    if slides_registered():
        page.goto(app_server.url + "/slides?rounds=20")
        page.wait_for_selector(ready, state="attached")
        page.wait_for_selector("[data-testid=stPlotlyChart] .main-svg")
        button = page.locator(".st-key-slides_png button:visible")
    else:
        page.goto(app_server.url + "/model?round=3")
        page.wait_for_selector(ready, state="attached")
        page.wait_for_selector("[data-testid=stPlotlyChart] .main-svg")
        chart = page.locator("[data-testid=stPlotlyChart]").first
        chart.hover()
        button = chart.locator(".modebar-btn[data-title='Download plot as a png'], "
                               ".modebar-btn[data-title^='Download plot']").first
    with page.expect_download(timeout=120_000) as info:
        button.click()
    download = info.value
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    data = path.read_bytes()
    assert path.suffix == ".png" and path.name.startswith("boosting_")
    width, _ = png_size(data)
    if slides_registered():
        assert width >= 1920
    assert page.locator("[data-testid=stException]").count() == 0
    page.close()
