"""The command line (python -m explorer export): the files it writes, and what it says
about bad input or a missing browser."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from explorer import __main__ as cli
from explorer.process import ROOT
from export_helpers import (NO_BROWSER_MESSAGE, assert_self_contained, png_size, svg_root,
                            tracebacks)

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
    assert not tracebacks(done.stderr), done.stderr
    return out, done


@pytest.mark.browser  # kaleido renders with Chromium
def test_cli_writes_each_round_the_storyboard_and_the_animation(cli_files):
    out, _ = cli_files
    files = sorted(p.name for p in out.iterdir())
    stem = "boosting_model_circles240_log-loss_M15_lr0.3_d2_s0.8"
    expected = [f"{stem}_m{m}.{ext}" for m in CLI_ROUNDS for ext in ("png", "svg")]
    board = "boosting_model-storyboard_circles240_log-loss_M15_lr0.3_d2_s0.8_m0-1-10"
    expected += [f"{board}.png", f"{board}.svg",
                 "boosting_model-animation_circles240_log-loss_M15_lr0.3_d2_s0.8_all-rounds.html"]
    assert files == sorted(expected)


@pytest.mark.browser  # kaleido renders with Chromium
def test_cli_pngs_are_at_least_1920_wide(cli_files):
    out, _ = cli_files
    pngs = list(out.glob("*.png"))
    assert len(pngs) == len(CLI_ROUNDS) + 1
    for path in pngs:
        width, height = png_size(path.read_bytes())
        assert width >= 1920 and height > 500, (path.name, width, height)
        assert path.stat().st_size > 20_000  # a real picture, not an empty canvas


@pytest.mark.browser  # kaleido renders with Chromium
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


@pytest.mark.browser  # kaleido renders with Chromium
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
    (["--dataset", "blobs", "--loss", "exponential"], "only suitable for two classes"),
    (["--dataset", "blobs", "--n", "60", "--n-rounds", "2", "--class", "3"], "classes 0..2"),
    (["--n", "60", "--n-rounds", "2", "--class", "1"], "three classes or more"),
])
def test_cli_bad_input_says_what_is_wrong(capsys, tmp_path, warm_engine, argv, message):
    formats = [] if "--formats" in argv else ["--formats", "svg"]
    status, err = run_main(capsys, *argv, *formats, "--out", str(tmp_path / "out"))
    assert status in (1, 2), err
    assert message in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


@pytest.mark.browser  # kaleido renders with Chromium
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


def test_cli_three_classes_tree_of_one_class(capsys, tmp_path, warm_engine):
    out = tmp_path / "out"
    status, err = run_main(capsys, "--dataset", "blobs", "--n", "120", "--n-rounds", "4",
                           "--view", "tree", "--class", "2", "--formats", "html",
                           "--out", str(out))
    assert status == 0, err
    (page,) = out.iterdir()
    text = page.read_text()
    assert "Tree (1, 2), of class 2" in text and "Tree (4, 2), of class 2" in text


def test_cli_without_a_browser_says_so(tmp_path):
    env = dict(os.environ, BROWSER_PATH=str(tmp_path / "no-chromium-here"))
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "export", "--n-rounds", "5", "--rounds", "1",
         "--formats", "png", "--out", str(tmp_path / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1
    assert NO_BROWSER_MESSAGE in done.stderr
    assert "Traceback" not in done.stderr


def test_a_sweep_from_the_command_line_writes_its_lesson_file_and_names_what_it_left(
        tmp_path, capsys):
    status = cli.main(["export", "--sweep", "learning-rate=0.1,1,7", "--sweep2",
                       "max-depth=1,2", "--n-rounds", "8", "--n", "120", "--interactive",
                       "--page", "sweep", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "left out: learning rate: '7' is not a value it takes here" in err
    lesson, = tmp_path.glob("*sweep-lr-depth-lesson*.html")
    text = lesson.read_text(encoding="utf-8")
    assert_self_contained(text)
    for view in ("sweep_0_0", "sweep_0_1", "sweep_1_0", "sweep_1_1", "sweep_curves",
                 "sweep_heat"):
        assert f'data-slot="{view}"' in text


@pytest.mark.parametrize("argv, said", [
    (["--sweep", "depth=1,2"], "a sweep is OPTION=V,V with OPTION one of"),
    (["--sweep", "learning-rate"], "a sweep is OPTION=V,V"),
])
def test_a_bad_sweep_option_is_refused_with_the_names_it_takes(argv, said, capsys):
    with pytest.raises(SystemExit):
        cli.main(["export", *argv])
    assert said in capsys.readouterr().err


def test_the_sweep_page_needs_a_sweep(tmp_path, capsys):
    assert cli.main(["export", "--interactive", "--page", "sweep", "--out",
                     str(tmp_path)]) == 1
    assert "--page sweep needs --sweep" in capsys.readouterr().err


@pytest.mark.browser  # kaleido renders with Chromium
def test_a_sweeps_images_are_16_9_slides_of_every_view(tmp_path):
    status = subprocess.run(
        [sys.executable, "-m", "explorer", "export", "--sweep", "learning-rate=0.1,1",
         "--sweep2", "max-depth=1,2", "--n-rounds", "8", "--n", "120", "--rounds", "5",
         "--formats", "png,svg", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert status.returncode == 0, status.stderr
    for view in ("maps", "curves", "heat"):
        png, = tmp_path.glob(f"*sweep-lr-depth-{view}_*_m5.png")
        width, height = png_size(png.read_bytes())
        assert width >= 1920 and abs(width / height - 16 / 9) < 0.01
        svg, = tmp_path.glob(f"*sweep-lr-depth-{view}_*_m5.svg")
        assert svg_root(svg.read_bytes()) is not None


@pytest.mark.browser  # kaleido renders with Chromium
def test_compare_from_the_command_line_writes_the_slides_pages_figures(tmp_path, capsys):
    """--compare PAIR: both sides' models and the two fits' curves at each round, the
    Slides page's figures (export.compare_figure), 4:3 as asked, named with the pair."""
    from explorer.state import COMPARISONS
    status = cli.main(["export", "--compare", "outlier", "--n-rounds", "6", "--n", "120",
                       "--rounds", "4", "--aspect", "4:3", "--out", str(tmp_path)])
    assert status == 0, capsys.readouterr().err
    _, (a_name, _), (b_name, _), _ = COMPARISONS["outlier"]
    for m in (4,):
        for view, said in (("a", f"{a_name}:"), ("b", f"{b_name}:"), ("curves", "both sides")):
            png, = tmp_path.glob(f"*compare-outlier-{view}_*_m{m}.png")
            width, height = png_size(png.read_bytes())
            assert width >= 1920 and abs(width / height - 4 / 3) < 0.01, (view, width, height)
            svg, = tmp_path.glob(f"*compare-outlier-{view}_*_m{m}.svg")
            text = " ".join(re.sub(r"<[^>]+>", "", t) for t in re.findall(
                r"<text[^>]*>(.*?)</text>", svg.read_text(encoding="utf-8"), flags=re.S))
            assert said in text and f"round {m}" in text, (view, text[:300])
            assert not re.search(r"click|hover|tap a", text, flags=re.I), (view, text[:300])
    assert len(list(tmp_path.iterdir())) == 6


@pytest.mark.parametrize("argv, said", [
    (["--compare", "outlier", "--dataset", "sine"], "a regression compares lr, depth, leafrule"),
    (["--compare", "lr", "--sweep", "learning-rate=0.1,1"], "--compare writes the comparison"),
    (["--compare", "lr", "--interactive"], "--compare writes the comparison"),
])
def test_compare_refuses_what_it_cannot_write(argv, said, tmp_path, capsys):
    assert cli.main(["export", *argv, "--n-rounds", "3", "--out", str(tmp_path)]) == 1
    assert said in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_the_help_names_every_pair(capsys):
    """--help is formatted with %: a pair's text ("10% of labels flipped") must not break it."""
    from explorer.state import COMPARISONS
    with pytest.raises(SystemExit) as done:
        cli.main(["export", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(key in text for key in COMPARISONS) and "10% of labels flipped" in text
