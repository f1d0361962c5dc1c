"""explorer.export.interactive: a page as one HTML file that steps offline. Its structure
(plotly.js and the app's modules inline, the record, each chart the page describes with
its bindings, the two lines about the app), its size (the default fit under 8 MB; a
refusal that names the setting to reduce above the cap), the command line, and the
Streamlit side (the page's button, its download and embed code)."""

from __future__ import annotations

import base64
import json
import re
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest

from explorer import __main__ as cli, fit
from explorer.data import make_toy, split
from explorer.export import interactive
from explorer.figures import bindings, pages
from explorer.numbers.grid import make_grid
from explorer.numbers.record import unpack
from explorer.state import State
from export_helpers import assert_self_contained
from test_bindings import canonical

HOSTILE = '</script><img src=x onerror="alert(1)"> & co'


def lesson(name="moons", rounds=8, **settings):
    """(trace, grid, state, names) of a toy set, as the command line makes them."""
    state = State.from_mapping(dict(data=name, n=200, rounds=rounds, **settings))
    train, valid = split(make_toy(name, n=state.n, noise=state.noise, seed=state.dseed),
                         state.valid, state.dseed)
    trace = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, **state.fit_params())
    names = dict(feature_names=train.feature_names, classes=train.classes or ("0", "1"),
                 target_name=train.target_name)
    return trace, make_grid(trace), state, names


def data_of(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>',
                      text, re.S)
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def moons(warm_engine):
    return lesson("moons", sample=4)


def test_the_modules_become_one_classic_script_that_parses():
    script = interactive.inline_modules()
    assert not re.search(r"^\s*(import|export)\b", script, re.M)
    for path in interactive.MODULES:
        assert f'__modules["{path.name}"] = {{' in script
    # the arithmetic is the app's own record.js, its lines unchanged but its exports
    record = interactive.MODULES[0].read_text().splitlines()
    assert all(line in script for line in record if not line.startswith("export "))
    checked = subprocess.run(["node", "--check", "--input-type=commonjs"], input=script,
                             text=True, capture_output=True)
    assert checked.returncode == 0, checked.stderr


def test_an_export_form_the_file_cannot_inline_is_refused(tmp_path):
    odd = tmp_path / "odd.js"
    odd.write_text("const a = 1;\nexport { a };\n")
    with pytest.raises(ValueError, match="odd.js"):
        interactive.inline_modules([odd])


@pytest.mark.parametrize("page", pages.PAGES)
def test_the_file_holds_everything_and_fetches_nothing(moons, page):
    trace, grid, state, names = moons
    text = interactive.lesson_html(trace, grid, state, names, page=page,
                                   data_label="moons, 160 training points",
                                   app_url="https://class.example")
    assert_self_contained(text)
    data = data_of(text)
    described = pages.describe(page, trace, grid, state, names, key=data["key"])
    assert [c["view"] for c in data["charts"]] == [c.view for c in described.charts]
    assert data["rounds"] == trace.n_rounds
    record, = data["records"]  # one fit, one record
    header, _ = unpack(base64.b64decode(record))
    assert header["rounds"] == trace.n_rounds and header["key"] == data["key"]
    assert {chart["record"] for chart in data["charts"]} == {data["key"]}
    for chart in data["charts"]:
        assert f'data-slot="{chart["view"]}"' in text
        assert len(chart["filenames"]) == trace.n_rounds + 1
    # one line lists what is left out, one links to the app at the same settings
    assert text.count('class="left-out"') == 1 and text.count('class="needs-app"') == 1
    left_out = re.search(r'class="left-out">(.*?)</p>', text).group(1)
    assert all(panel in left_out.replace("&#x27;", "'") for panel in described.panels)
    link = re.search(r'class="needs-app">.*?href="([^"]+)" target="_blank"', text).group(1)
    url = urlsplit(link.replace("&amp;", "&"))
    assert url.netloc == "class.example" and url.path == pages.PATHS[page]
    assert State.from_query({k: v[0] for k, v in parse_qs(url.query).items()}) == state


def test_each_chart_of_the_file_is_the_pages_figure_at_every_round(moons):
    """The file's parts, applied in Python (bindings.figure_at, what bindings.js does),
    give the figure the page's description draws at each round."""
    trace, grid, state, names = moons
    data = data_of(interactive.lesson_html(trace, grid, state, names, page="tree"))
    described = pages.describe("tree", trace, grid, state, names, key=data["key"])
    for chart, sent in zip(described.charts, data["charts"]):
        step = sent["step"]
        zero = None if step["zero"] is None else json.loads(step["zero"])
        for m in range(trace.n_rounds + 1):
            mine = bindings.figure_at(sent["figure"], step["bindings"],
                                      base64.b64decode(step["tables"]), zero, trace, grid, m)
            assert canonical(mine) == canonical(json.loads(chart.at(m).to_json())), (
                chart.view, m)


def test_presenter_mode_sends_the_projectors_charts(moons):
    trace, grid, state, names = moons
    shown = data_of(interactive.lesson_html(trace, grid, state, names, page="curves"))
    presented = data_of(interactive.lesson_html(
        trace, grid, State.from_mapping({**state.to_query(), "present": "1"}), names,
        page="curves"))
    assert presented["present"] and not shown["present"]
    chart = pages.describe("curves", trace, grid, state, names,
                           key=presented["key"]).charts[0]
    at = presented["charts"][0]["step"]["at"]
    assert canonical(presented["charts"][0]["figure"]) == canonical(
        json.loads(chart.at(at, present=True).to_json()))


def test_user_text_is_escaped_in_the_page_and_in_its_data(warm_engine):
    trace, grid, state, names = lesson("moons", rounds=3)
    names = dict(names, feature_names=(HOSTILE, "b"))
    text = interactive.lesson_html(trace, grid, state, names, page="model",
                                   data_label=HOSTILE)
    body = text[text.index("</head>"):]
    assert "<img" not in body and HOSTILE not in body
    assert body.lower().count("</script>") == 2  # the data's and the modules' ends
    assert "&lt;/script&gt;&lt;img" in body  # the caption, as text
    # the chart's axis title has the name, escaped for plotly.js's label text
    figures = json.dumps([c["figure"] for c in data_of(text)["charts"]])
    assert "&lt;/script&gt;&lt;img" in figures


def test_the_app_link_takes_only_http_addresses(moons):
    trace, grid, state, names = moons
    for bad in ("javascript:alert(1)", "file:///etc", "localhost:8501"):
        with pytest.raises(ValueError, match="--app-url"):
            interactive.lesson_html(trace, grid, state, names, app_url=bad)
    assert interactive.app_link(state, "tree", "https://class.example/explorer/") \
        .startswith("https://class.example/explorer/tree?")


def test_the_embed_code_names_the_file_relatively():
    code = interactive.embed_code("/home/t/lessons/boosting_tree-lesson.html")
    assert 'src="boosting_tree-lesson.html"' in code and code.startswith("<iframe")
    assert "&quot;" in interactive.embed_code('a"b.html')


# --- size -------------------------------------------------------------------------------


def test_the_default_fit_stays_under_8_mb_on_every_page(tmp_path, warm_engine):
    assert cli.main(["export", "--interactive", "--out", str(tmp_path)]) == 0
    for page in pages.PAGES[1:]:
        assert cli.main(["export", "--interactive", "--page", page,
                         "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*-lesson_*.html"))
    assert len(files) == len(pages.PAGES)
    for path in files:
        assert path.stat().st_size <= interactive.DEFAULT_BUDGET, (path.name,
                                                                    path.stat().st_size)
    assert not list(tmp_path.glob("*.png")), "--interactive alone writes the lesson only"


def test_above_the_cap_the_export_names_the_setting_to_reduce(monkeypatch, warm_engine):
    # a cap a little above a 4-round file, so that the test stays quick
    trace, grid, state, names = lesson("moons", rounds=4)
    small = len(interactive.lesson_html(trace, grid, state, names, page="tree"))
    monkeypatch.setattr(interactive, "MAX_BYTES", small + 400_000)
    long = lesson("moons", rounds=150, depth=2)
    with pytest.raises(interactive.LessonTooLarge, match="--n-rounds") as error:
        interactive.lesson_html(*long, page="tree")
    assert error.value.setting == "--n-rounds" and "rounds" in str(error.value)
    deep = lesson("moons", rounds=60, depth=8)
    with pytest.raises(interactive.LessonTooLarge, match="--max-depth"):
        interactive.lesson_html(*deep, page="tree")


def test_a_chart_past_the_browsers_budget_is_refused_by_name(monkeypatch, moons):
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", 1000)
    with pytest.raises(interactive.LessonTooLarge, match="regions chart passes what a browser steps"):
        interactive.lesson_html(*moons, page="tree")


def test_the_command_line_says_why_and_exits_1(tmp_path, monkeypatch, capsys, warm_engine):
    monkeypatch.setattr(interactive, "MAX_BYTES", 4 * 2**20)  # below plotly.js alone
    status = cli.main(["export", "--interactive", "--n-rounds", "5", "--out", str(tmp_path)])
    assert status == 1
    assert re.search(r"too large: .* Reduce .*: --[a-z-]+ ", capsys.readouterr().err)
    status = cli.main(["export", "--interactive", "--app-url", "ftp://x", "--n-rounds", "3",
                       "--out", str(tmp_path)])
    assert status == 1 and "--app-url" in capsys.readouterr().err


def test_the_command_line_options_reach_the_file(tmp_path, warm_engine):
    assert cli.main(["export", "--interactive", "--dataset", "iris", "--page", "sample",
                     "--sample", "7", "--class", "2", "--present", "--n-rounds", "6",
                     "--app-url", "https://t.example", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*sample-lesson*.html")
    text = path.read_text()
    data = data_of(text)
    assert data["present"] and data["rounds"] == 6
    link = re.search(r'class="needs-app">.*?href="([^"]+)" target="_blank"', text).group(1)
    query = parse_qs(urlsplit(link.replace("&amp;", "&")).query)
    assert query["data"] == ["iris"] and query["sample"] == ["7"] and query["cls"] == ["2"]
    assert link.startswith("https://t.example/sample?")


@pytest.mark.parametrize("options, fit_params", [
    (["--split", "histogram", "--max-bins", "16", "--max-leaves", "8"],
     dict(split="histogram", max_bins=16, max_leaves=8, reg_lambda=0.0)),
    (["--split", "hessian", "--reg-lambda", "2", "--gamma", "0.1",
      "--min-child-weight", "0.5"],
     dict(split="hessian", reg_lambda=2.0, gamma=0.1, min_child_weight=0.5)),
    (["--leaf-rule", "line-search", "--subsample", "0.5"],
     dict(leaf="line_search", subsample=0.5)),
])
def test_every_fit_setting_of_the_app_has_an_option(tmp_path, warm_engine, options,
                                                     fit_params):
    """The file is fitted as the app is at its link's settings, and is named for its rules."""
    assert cli.main(["export", "--interactive", "--n-rounds", "3", *options,
                     "--app-url", "https://t.example", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*model-lesson*.html")
    link = re.search(r'class="needs-app">.*?href="([^"]+)"', path.read_text()).group(1)
    state = State.from_query(parse_qs(urlsplit(link.replace("&amp;", "&")).query))
    params = state.fit_params()
    assert {name: params.get(name) for name in fit_params} == fit_params
    rule = fit_params.get("split", fit_params.get("leaf")).replace("_", "-")
    assert rule in path.name


def test_an_option_the_split_rule_does_not_use_is_refused(tmp_path, capsys):
    status = cli.main(["export", "--interactive", "--split", "hessian", "--subsample", "0.5",
                       "--out", str(tmp_path)])
    assert status == 1
    assert "--subsample: not used by --split hessian" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


# --- the app's side ---------------------------------------------------------------------


def assert_lesson_file_offered(at, page: str) -> None:
    """A click on the page's "Lesson file" button makes the file of ``page``: its download
    (its size in MB) and an iframe snippet naming it."""
    (button,) = [b for b in at.button if b.label.startswith("Lesson file")]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    (download,) = [d for d in at.get("download_button") if "Download" in d.proto.label]
    assert download.proto.label.endswith("MB)")
    codes = [c.value for c in at.code]
    assert any(c.startswith("<iframe") and f"{page}-lesson" in c for c in codes), codes


def test_the_page_makes_the_file_and_offers_it_with_its_embed_code(warm_engine):
    from apptest_helpers import PAGES, open_page
    at = open_page(PAGES[1], rounds="5", round="2")
    assert_lesson_file_offered(at, "tree")


def test_the_slides_page_makes_the_lesson_file_of_a_chosen_page(warm_engine):
    from apptest_helpers import SLIDES, open_page
    at = open_page(SLIDES, rounds="4")
    (choice,) = [s for s in at.selectbox if s.label == "Page of the lesson file"]
    choice.set_value("sample").run()
    assert_lesson_file_offered(at, "sample")


def test_the_lesson_file_and_the_animation_are_written_side_by_side(tmp_path, warm_engine):
    assert cli.main(["export", "--interactive", "--formats", "html", "--n-rounds", "3",
                     "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any("model-lesson" in n for n in names), names
    assert any("model-animation" in n for n in names), names


def test_a_file_made_without_the_apps_address_has_no_link_and_says_so(moons, tmp_path,
                                                                     warm_engine):
    """Issue 45, item 5: no --app-url, no link (never localhost, which a student's computer
    does not serve); the file says why. The app's own button passes its address."""
    trace, grid, state, names = moons
    text = interactive.lesson_html(trace, grid, state, names, page="curves")
    line = re.search(r'class="needs-app">(.*?)</p>', text).group(1)
    assert "href" not in line and "--app-url" in line and "no link" in line
    assert "localhost" not in text and "127.0.0.1" not in text
    assert interactive.app_link(state, "curves", None) is None
    assert cli.main(["export", "--interactive", "--n-rounds", "3", "--page", "curves",
                     "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*curves-lesson*.html")
    line = re.search(r'class="needs-app">(.*?)</p>', path.read_text()).group(1)
    assert "href" not in line and "--app-url" in line


def test_an_uploads_file_says_the_app_needs_the_file_again(moons):
    trace, grid, state, names = moons
    text = interactive.lesson_html(trace, grid, State.from_mapping(
        {**state.to_query(), "data": "upload"}), names, page="curves",
        app_url="https://class.example")
    assert "upload the same file there" in re.search(r'class="needs-app">(.*?)</p>',
                                                     text).group(1)
    assert "upload the same file" not in interactive.lesson_html(
        trace, grid, state, names, page="curves", app_url="https://class.example")


def test_a_sweeps_file_holds_each_cells_record_and_steps_each_chart_with_its_own():
    from explorer import dataset, fit
    from explorer.numbers.grid import make_grid
    from explorer.sweep import plan
    state = State.from_query(dict(sweep="lr:0.1,1", sweep2="depth:1,2", rounds=8, n=120))
    made = dataset.make(state)
    sweep = plan(state)
    fits = []
    for cell in sweep.cells:
        trace = fit(made.train.X, made.train.y, X_valid=made.valid.X, y_valid=made.valid.y,
                    **cell.state.fit_params())
        fits.append((trace, make_grid(trace, resolution=20), f"cell-{cell.row}-{cell.col}"))
    described = pages.describe_sweep(sweep.axes, sweep.cells, fits, state, key="lesson")
    text = interactive.lesson_html(fits[0][0], fits[0][1], state, {}, page="sweep",
                                   described=described)
    assert_self_contained(text)
    data = data_of(text)
    keys = [unpack(base64.b64decode(r))[0]["key"] for r in data["records"]]
    assert sorted(keys) == sorted(f[2] for f in fits)  # only the records the charts use
    views = {c["view"]: c["record"] for c in data["charts"]}
    assert views == {**{f"sweep_{c.row}_{c.col}": f"cell-{c.row}-{c.col}" for c in sweep.cells},
                     "sweep_curves": "cell-0-0", "sweep_heat": "cell-0-0"}
