"""explorer.export: storyboards, animations, images made by kaleido with Debian's Chromium
(one at a time, each caller its own) and file names."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.colors import sample_colorscale

from explorer import export
from explorer.text import number
from explorer.numbers.grid import make_grid
from figure_helpers import check_figure
from export_helpers import NO_BROWSER_MESSAGE, assert_self_contained, png_size, svg_root


@pytest.fixture(scope="module")
def grid(moons_fit):
    return make_grid(moons_fit)


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
        # on gamma / vmax, the bar's labels in gamma
        assert (lo, hi) == (-1.0, 1.0)
        # (on two lines: the title sits over the bar)
        assert axis.colorbar.title.text.replace("<br>", " ") == \
            f"leaf value γ (max |γ| = {number(vmax, 3)})"
        # the leaf boxes are filled on that range: a leaf's colour is its value's colour
        scale = [list(stop) for stop in axis.colorscale]
        labels = [a for a in layout.annotations if (a.name or "").startswith("label:")]
        assert {a.xref for a in labels} == {f"x{k}" for k in range(2, len(rounds) + 1)}
        for label in labels:
            m = rounds[int(label.xref[1:] or 1) - 1]  # panel k shows rounds[k - 1]
            value = moons_fit.tree(m)["value"][int(label.name.split(":")[1])]
            box, = [s for s in layout.shapes if s.type == "rect" and s.layer == "below"
                    and s.xref == label.xref and s.x0 < label.x < s.x1 and s.y0 < label.y < s.y1]
            assert box.fillcolor == sample_colorscale(scale, [(value / vmax - lo) / (hi - lo)])[0]
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


@pytest.mark.browser  # kaleido renders with Chromium
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


@pytest.mark.browser  # kaleido renders with Chromium
def test_concurrent_exports_each_get_their_own_image():
    """Kaleido's shared server hands concurrent callers each other's images; ours must not."""
    n = 16
    results, errors = {}, []
    barrier = threading.Barrier(n)

    def export_one(i):
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


@pytest.mark.browser  # kaleido renders with Chromium
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


@pytest.mark.parametrize("view", list(export.VIEWS))
def test_storyboards_of_a_regression(sine, plane, view):
    for tr, grid in (sine, plane):
        board = export.storyboard(tr, view, [0, 1, 12], grid, target_name="target")
        check_figure(board)
        assert len([a for a in board.layout.annotations if a.text.startswith("round")]) == 3


HINT_WORDS = re.compile(r"click|hover|tap\b|drag|go there|marked", re.IGNORECASE)


def test_every_views_title_loses_its_interface_hints(warm_engine):
    """No Chromium: each view's slide title, for the fits whose titles carry the most
    hints (exact leaves, many leaves; three classes; histogram trees)."""
    from explorer import fit
    from explorer.data import make_toy, split
    for data, options in (("moons", dict(leaf="exact", max_depth=5)), ("iris", {}),
                          ("moons", dict(split="histogram", max_bins=16))):
        train, valid = split(make_toy(data, n=120), 0.2, 0)
        trace = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, n_rounds=4,
                    **options)
        grid = make_grid(trace, resolution=40)
        for view in export.ALL_VIEWS:
            for m in (0, 3):
                fig = export.view_figure(trace, view, m, grid, data_label="moons, 96 points",
                                         classes=train.classes or None)
                title = fig.layout.title
                assert not HINT_WORDS.search(title.text), (view, title.text)
                assert title.text.strip() and not title.text.startswith("(")
                assert title.subtitle.text.endswith(f"round {m}")
                assert title.subtitle.text.startswith("moons, 96 points · ")
    assert export.clean_title("Loss and accuracy by round<br>(round 40 marked;<br>click a "
                              "point to go there)") == "Loss and accuracy by round"


@pytest.mark.browser  # kaleido renders with Chromium: one browser, every view, both shapes
def test_every_view_exports_as_png_and_svg_in_both_aspects(moons_fit, grid):
    """Every view as PNG in 16:9 and SVG in 4:3, and one view in the other two (about
    1 s a rendering on a busy 2-core machine: 22 of them, not 40)."""
    plan = [(view, "16:9", "png") for view in export.ALL_VIEWS]
    plan += [(view, "4:3", "svg") for view in export.ALL_VIEWS]
    plan += [("curves", "4:3", "png"), ("curves", "16:9", "svg")]
    for view, aspect, fmt in plan:
        w, h = export.ASPECTS[aspect]
        fig = export.view_figure(moons_fit, view, 2, grid, aspect=aspect,
                                 data_label="moons, 160 training points")
        assert (fig.layout.width, fig.layout.height) == (w, h)
        assert not HINT_WORDS.search(fig.layout.title.text)
        image = export.to_image(fig, fmt)
        if fmt == "png":
            width, height = png_size(image)
            assert width == export.MIN_WIDTH and abs(height / width - h / w) < 0.01, view
            continue
        svg = image.decode("utf-8")
        texts = " ".join(re.findall(r'<text[^>]*class="gtitle[^"]*"[^>]*>(.*?)</text>',
                                    svg, flags=re.S))
        texts = re.sub(r"<[^>]+>", " ", texts)
        assert "round 2" in texts and not HINT_WORDS.search(texts), (view, aspect, texts)
