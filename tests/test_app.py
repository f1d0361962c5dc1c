"""Streamlit AppTest over the explorer's pages: defaults, changed parameters, rounds 0, 1
and last, links (query parameters), good and bad uploads, regressions, per-session
limits, presenter mode with the chart toolbar's image downloads, and three classes or more
on every page (a toy set and an upload, each class shown). No exception may reach a
page."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from apptest_helpers import (APP, GOOD_CSV, LEAF, PAGES, ROUNDS, SPLITS_PAGE, THREE_CSV,
                             TIMEOUT, assert_clean, chart_payloads, chart_text, charts, new_app,
                             open_clean, open_page, orders, page_text, round_of, storyboard,
                             unescape, upload)
from explorer import dataset, figures
from explorer.dataset import MAX_POINT_ROUNDS
from explorer.figures import theme
from explorer.figures.presenter import PRESENT_SCALE
from explorer.process import ROOT
from explorer.state import State
from explorer.text import number
from fit_data import random_csv


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """Every test here runs the app in this process: compile numba once first."""


# --- defaults -------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_with_defaults(page):
    at = open_page(page)
    assert_clean(at)
    assert round_of(at) == 0
    assert "Round 0" in page_text(at)
    if page == "pages/tree.py":
        # round 0 has no tree: the page says so and shows f0 instead
        assert at.info and "no tree" in at.info[0].value
        assert any("N_+" in x.value for x in at.latex)
    else:
        assert charts(at), "no chart on the page"
    for spec in charts(at):
        assert spec["layout"]["uirevision"]


# each page once: the Model page is registered twice, at / and as the /model alias
REGISTERED = list(dict.fromkeys(
    re.findall(r'st\.Page\("(pages/[\w-]+\.py)"', (ROOT / "app.py").read_text())))


def test_the_router_registers_the_explorer_pages():
    assert set(PAGES) <= set(REGISTERED) and REGISTERED[0] == PAGES[0]


@pytest.mark.parametrize("page", REGISTERED)
def test_every_registered_page_opens_without_an_exception(page):
    """Every page app.py registers (other issues' pages too) runs through the same
    router and context, with defaults and at a later round."""
    at = open_page(page)
    assert_clean(at)
    at = open_page(page, round=5, rounds=20)
    assert_clean(at)


def test_default_model_page_content():
    at = open_page(PAGES[0])
    specs = charts(at)
    titles = [s["layout"]["title"]["text"] for s in specs]
    assert any(t.startswith("Model after round 0") for t in titles)
    assert any(t.startswith("Residuals after round 0") for t in titles)
    text = page_text(at)
    assert "moons" in text and "log-loss, M = 100" in text
    assert any("\\log\\frac{N_+}{N_-}" in x.value for x in at.latex)  # f0 at round 0
    assert [m.label for m in at.metric] == ["Train loss", "Validation loss", "Train accuracy",
                                            "Validation accuracy", "Best round"]
    # the chart toolbar saves an image named after the data, parameters and round
    config = chart_payloads(at)[0]["config"]
    assert config["displaylogo"] is False
    assert config["toImageButtonOptions"]["filename"].startswith("boosting_model_moons400")
    assert config["toImageButtonOptions"]["filename"].endswith("_m0")


# --- stepping -------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_stepping_to_rounds_last_0_and_1(page):
    at = open_page(page, rounds=25)
    at.button(key="last").click().run()
    assert_clean(at)
    assert round_of(at) == 25
    assert "Round 25" in page_text(at)
    assert charts(at)
    text = chart_text(at)
    assert "round 25" in text or "Tree 25" in text or "round 25" in text.lower()
    at.button(key="first").click().run()
    assert_clean(at)
    assert round_of(at) == 0
    at.button(key="next").click().run()
    assert_clean(at)
    assert round_of(at) == 1
    assert charts(at)
    if page == "pages/tree.py":
        assert "Tree 1" in chart_text(at) and "The update at round 1" in chart_text(at)
        assert any("\\gamma" in x.value for x in at.latex)
    if page == "pages/model.py":
        assert "Model after round 1" in chart_text(at)
    at.button(key="prev").click().run()
    assert round_of(at) == 0
    at.button(key="prev").click().run()  # stays at 0
    assert round_of(at) == 0
    at.slider(key="round").set_value(13).run()
    assert_clean(at)
    assert round_of(at) == 13 and "Round 13" in page_text(at)


def test_next_stops_at_the_last_round():
    at = open_page(PAGES[3], rounds=3, round=3)
    at.button(key="next").click().run()
    assert round_of(at) == 3
    assert_clean(at)


def test_play_and_pause_toggle():
    at = open_page(PAGES[0], rounds=10)
    assert at.button(key="play").label == "Play"
    at.button(key="play").click().run()
    assert_clean(at)
    assert at.button(key="play").label == "Pause"
    at.button(key="play").click().run()
    assert at.button(key="play").label == "Play"
    # play from the last round restarts at 0
    at.button(key="last").click().run()
    at.button(key="play").click().run()
    assert round_of(at) == 0
    at.button(key="play").click().run()


# --- parameters -----------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_changed_parameters(page):
    at = open_page(page)
    at.selectbox(key="data").set_value("circles")
    at.slider(key="n").set_value(600)
    at.slider(key="noise").set_value(0.1)
    at.slider(key="balance").set_value(0.3)
    at.number_input(key="dseed").set_value(4)
    at.slider(key="valid").set_value(0.0)
    at.radio(key="loss").set_value("exponential")
    at.slider(key="rounds").set_value(30)
    at.slider(key="lr").set_value(0.3)
    at.slider(key="depth").set_value(2)
    at.select_slider(key="leaves").set_value(3)
    at.slider(key="minleaf").set_value(5)
    at.slider(key="subsample").set_value(0.7)
    at.number_input(key="seed").set_value(3)
    at.run()
    assert_clean(at)
    text = page_text(at)
    assert "circles: 600 training points" in text
    assert "exponential, M = 30, ν = 0.3, depth ≤ 2, ≤ 3 leaves, min 5 per leaf, " \
           "subsample 0.7" in text and "seed 3" in text
    at.button(key="last").click().run()
    assert_clean(at)
    assert round_of(at) == 30
    if page != "pages/sample.py":
        at.button(key="prev").click().run()
        assert_clean(at)
    if page == "pages/model.py":
        assert [m.value for m in at.metric][1] == "–"  # no validation set
        assert at.toggle(key="showvalid").disabled
    if page == "pages/tree.py":
        assert "e^{-\\tilde y_i" in " ".join(x.value for x in at.latex)


def test_fewer_rounds_clamp_the_round():
    at = open_page(PAGES[0])
    at.slider(key="round").set_value(80).run()
    assert round_of(at) == 80
    at.slider(key="rounds").set_value(20).run()
    assert_clean(at)
    assert round_of(at) == 20


def test_validation_toggle():
    at = open_page(PAGES[0], round=5)
    n_traces = len(charts(at)[0]["data"])
    at.toggle(key="showvalid").set_value(True).run()
    assert_clean(at)
    spec = charts(at)[0]
    assert len(spec["data"]) == n_traces + 2
    assert any("validation" in t.get("name", "") for t in spec["data"])


def test_sample_page_picks_a_sample_and_shows_its_ledger():
    at = open_page(PAGES[2], round=4)
    at.number_input(key="_w_sample").set_value(21).run()
    assert_clean(at)
    assert "The ledger of sample #21" in page_text(at)
    assert "sample #21" in chart_text(at)
    table = at.dataframe[0].value
    assert len(table) == 101 and list(table["round m"][:3]) == [0, 1, 2]
    assert "F_{4} = F_{3} + \\nu\\gamma" in " ".join(x.value for x in at.latex)


@pytest.mark.parametrize("query, shown", [
    ({"leafrule": "mean"}, "\\frac{1}{n}"),
    ({"leafrule": "exact"}, "\\gamma = "),
    ({"leafrule": "line-search"}, "\\gamma = "),
    ({"split": "hessian"}, "H + \\lambda"),
])
def test_tree_page_explains_each_leaf_rule(query, shown):
    at = open_page(PAGES[1], round=2, **query)
    assert_clean(at)
    assert shown in " ".join(x.value for x in at.latex)


def test_tree_page_leaf_choice():
    at = open_page(PAGES[1], round=3)
    options = at.selectbox(key="_w_leaf").options
    assert options[0] == "the selected sample's leaf" and len(options) > 2
    at.selectbox(key="_w_leaf").set_value(at.selectbox(key="_w_leaf").options[2]).run()
    assert_clean(at)
    assert "(the chosen leaf)" in page_text(at)


def test_a_leafs_points_are_sent_only_while_their_table_is_open():
    """The table of the leaf's points comes with a rerun only while it is open (hundreds of
    rows at n = 2,500), and it stays open as the round changes."""
    at = open_page(PAGES[1], round=3)
    points = [d for d in at.dataframe if "sample" in d.value.columns]
    assert points == []
    at.session_state["leaf_points"] = True  # as a click on the expander sets it
    at.run()
    labels = []
    for m in (3, 4):
        labels.append([e.label for e in at.expander])  # a new label: a new, closed expander
        (table,) = [d.value for d in at.dataframe if "sample" in d.value.columns]
        count = int(re.search(r"The (\d+) points of leaf", page_text(at)).group(1))
        assert len(table) == count and f"p at round {m - 1}" in table.columns
        assert f"Σ r = {number(table['r'].sum())}" in page_text(at)
        at.button(key="next").click().run()
    assert all("The leaf's points and their sums" in round_labels for round_labels in labels)
    assert_clean(at)


# --- links (query parameters) ---------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_a_link_reproduces_the_view(page):
    at = open_page(page, data="xor", n=300, rounds=40, lr=0.2, depth=2, round=12, sample=9,
                   loss="exponential")
    assert_clean(at)
    assert round_of(at) == 12
    assert at.selectbox(key="data").value == "xor"
    assert at.radio(key="loss").value == "exponential"
    text = page_text(at)
    assert "xor: 240 training points" in text and "M = 40, ν = 0.2, depth ≤ 2" in text
    if page in ("pages/model.py", "pages/sample.py", "pages/tree.py"):
        assert "sample #9" in chart_text(at)


def test_a_link_beyond_the_last_round_is_clamped():
    at = open_page(PAGES[0], rounds=10, round=50)
    assert_clean(at)
    assert round_of(at) == 10


def test_a_link_with_impossible_values_falls_back_to_defaults():
    at = open_page(PAGES[0], rounds=100000, lr=-1, depth="abc", data="nope", sample=10**9,
                   leaf="x", round="-3")
    assert_clean(at)
    assert at.slider(key="rounds").value == 100
    assert at.selectbox(key="data").value == "moons"
    assert round_of(at) == 0


# --- uploads --------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_a_good_upload(page):
    at = upload(open_page(page), GOOD_CSV, "people.csv")
    assert_clean(at)
    # the first numeric columns by default, skipping the id column
    assert (at.selectbox(key="up_x").value, at.selectbox(key="up_y").value) == (
        "height (cm)", "weight")
    at.selectbox(key="up_x").set_value("height (cm)")
    at.selectbox(key="up_y").set_value("weight")
    at.selectbox(key="up_label").set_value("label").run()
    assert_clean(at)
    text = page_text(at)
    assert "upload people" in text
    at.button(key="last").click().run()
    assert_clean(at)
    assert round_of(at) == 100
    if page != "pages/tree.py":
        assert charts(at)
    assert "height (cm)" in chart_text(at) or page == "pages/curves.py"


def test_upload_with_a_text_feature_chosen_gives_a_message():
    at = upload(open_page(PAGES[0]), GOOD_CSV)
    at.selectbox(key="up_label").set_value("colour").run()
    assert_clean(at)  # colour has two classes: fine
    at.selectbox(key="up_y").set_value("id")  # weight is a feature by default: free it
    at.selectbox(key="up_label").set_value("weight").run()
    assert_clean(at, errors_allowed=True)
    assert at.error and "classes" in at.error[0].value
    assert not chart_payloads(at)


BAD_FILES = {
    "binary": bytes(range(256)) * 10,
    "empty": b"",
    "one class": b"a,b,label\n" + b"".join(b"%d,%d,yes\n" % (i, i * 2) for i in range(20)),
    "too few rows": b"a,b,label\n1,2,0\n3,4,1\n",
    "missing values": b"a,b,label\n" + b"".join(
        b"%s,%d,%d\n" % (b"" if i == 5 else b"%d" % i, i, i % 2) for i in range(20)),
    "no numbers": b"a,b,label\n" + b"".join(b"x%d,y%d,%d\n" % (i, i, i % 2)
                                           for i in range(20)),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_a_bad_upload_gives_a_message_not_a_traceback(kind):
    at = upload(open_page(PAGES[0]), BAD_FILES[kind], f"{kind}.csv")
    assert_clean(at, errors_allowed=True)
    assert at.error, "a bad upload must be explained with st.error"
    assert "Traceback" not in at.error[0].value
    assert not chart_payloads(at)


def test_an_upload_link_says_the_server_does_not_have_its_file():
    at = open_page(PAGES[1], data="upload")
    assert_clean(at, errors_allowed=True)
    assert at.error and unescape(at.error[0].value) == dataset.LOST_FILE
    assert not at.get("plotly_chart") and not chart_payloads(at)  # no toy set instead


def test_choosing_upload_in_the_sidebar_asks_for_a_file():
    at = open_page(PAGES[1])
    at.selectbox(key="data").set_value("upload").run()
    assert_clean(at, errors_allowed=True)
    assert at.error and "Upload a CSV file" in at.error[0].value


def test_upload_text_is_never_rendered_as_markup():
    nasty = (b"<img src=x onerror=alert(1)>,**bold** [a](http://x),label\n" + b"".join(
        b"%d,%d,%s\n" % (i, (i * 7) % 11, b"<b>yes</b>" if i % 2 else b"[no](javascript:x)")
        for i in range(30)))
    at = upload(open_page(PAGES[2], round=3), nasty, "<i>evil</i>.csv")
    assert_clean(at)
    for element in list(at.markdown) + list(at.caption) + list(at.error):
        value = element.value
        assert "<img" not in value.replace("\\<img", ""), value
        assert "](" not in value.replace("\\]\\(", ""), value
        assert "<i>" not in value.replace("\\<i\\>", ""), value
    spec = chart_text(at)
    assert "<img" not in spec and "&lt;img src=x onerror=alert(1)&gt;" in spec


# --- regression -----------------------------------------------------------------------

ALL_PAGES = ["pages/model.py", "pages/tree.py", "pages/sample.py", "pages/curves.py",
             "pages/slides.py", "pages/leaf_maths.py", "pages/splits.py", "pages/compare.py"]


@pytest.mark.parametrize("page", ALL_PAGES)
@pytest.mark.parametrize("data", ["steps", "plane"])
def test_every_page_shows_a_regression(page, data):
    for m in (0, 1, 100):
        at = open_page(page, data=data, round=m)
        assert_clean(at)
        text = page_text(at)
        assert "squared-error" in text
        assert "accuracy" not in " ".join(str(x.label) for x in at.metric).lower()
        if page == "pages/model.py":
            spec = charts(at)[0]
            kind = "bar" if data == "steps" else "heatmap"
            assert kind in [t["type"] for t in spec["data"]]
            assert len(charts(at)) == (1 if data == "steps" else 2)
            if m == 0:
                assert r"\frac{1}{N}\sum_i y_i" in text


def test_a_regression_round_step_and_leaf_formula():
    at = open_page("pages/tree.py", data="sine", round=1)
    assert_clean(at)
    text = page_text(at)
    assert r"\gamma = \frac{1}{n}\sum" in text and "Newton step Σr / Σh is this same mean" in text
    at.button(key="next").click().run()
    assert_clean(at)
    assert at.slider(key="round").value == 2


REGRESSION_CSV = ("size,rooms,price\n" + "".join(
    f"{30 + (i * 7) % 90},{1 + i % 5},{1000 + 12 * ((30 + (i * 7) % 90)) + 50 * (i % 5)}\n"
    for i in range(80))).encode()


def test_a_regression_upload_with_one_or_two_inputs():
    at = open_page("pages/model.py")
    at.selectbox(key="data").set_value("upload").run()
    at.radio(key="task").set_value("regression").run()
    at.file_uploader(key="upload_file").set_value(("houses.csv", REGRESSION_CSV,
                                                   "text/csv")).run()
    assert_clean(at)
    assert at.selectbox(key="up_label").value == "price"
    assert "heatmap" in [t["type"] for t in charts(at)[0]["data"]]
    at.selectbox(key="up_y").set_value("(none: one input)").run()
    assert_clean(at)
    spec = charts(at)[0]
    assert "bar" in [t["type"] for t in spec["data"]] and "price" in spec["layout"]["yaxis"][
        "title"]["text"]
    # a text target is refused with a message, not a traceback
    at.selectbox(key="up_label").set_value("rooms").run()
    at.selectbox(key="up_x").set_value("size").run()
    assert_clean(at)
    bad = b"x,label\n" + b"".join(b"%d,%s\n" % (i, b"a" if i % 2 else b"b") for i in range(20))
    at.file_uploader(key="upload_file").set_value(("bad.csv", bad, "text/csv")).run()
    assert_clean(at, errors_allowed=True)
    assert at.error and "Traceback" not in at.error[0].value
    assert not chart_payloads(at)


# --- per-session limits ---------------------------------------------------------------


def test_too_many_point_rounds_fit_fewer_points_and_say_so(warm_engine):
    n, rounds = 5000, 500
    assert n * rounds > MAX_POINT_ROUNDS
    at = new_app(n=n, rounds=rounds).run()
    assert_clean(at)
    used = MAX_POINT_ROUNDS // rounds
    note = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert f"Using {used:,} points, not {n:,}" in note and "point-rounds" in note
    assert chart_payloads(at)
    assert f"{round(used * 0.8)} training points" in note


def test_within_the_limit_the_page_fits(warm_engine):
    at = new_app(n=2000, rounds=200).run()
    assert_clean(at)
    assert not at.error


# --- presenter mode and the toolbar's images ---------------------------------------


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


def hides_controls(at: AppTest) -> bool:
    return any("stSidebar" in h.proto.body and "display: none" in h.proto.body
               for h in at.get("html"))


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
    before, after = chart_payloads(normal), chart_payloads(shown)
    assert len(before) == len(after) >= 2
    for a, b in zip(before, after):
        fa, fb = json.loads(a["figure"]), json.loads(b["figure"])
        assert fb["layout"]["font"]["size"] >= PRESENT_SCALE * fa["layout"]["font"]["size"]
        # titles at least the projector's 18 px (issue 45), never smaller than the screen's
        title = fb["layout"]["title"]["font"]["size"]
        assert title >= 18 and title >= fa["layout"]["title"]["font"]["size"]
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
    assert json.loads(chart_payloads(at)[0]["figure"])["layout"]["font"]["size"] == theme.FONT["size"]


def test_sidebar_toggle_enters_presenter_mode():
    at = run_app()
    at.toggle(key="present").set_value(True).run()
    assert not at.exception and hides_controls(at)


@pytest.mark.parametrize("page", [None, "pages/tree.py", "pages/sample.py", "pages/curves.py"])
def test_toolbar_images_are_1920_wide_and_named_by_the_slug(page):
    at = run_app(page, round=3, rounds=20)
    slug = State.from_mapping({"round": 3, "rounds": 20}).slug()
    found = chart_payloads(at)
    assert found
    for p in found:
        opts = p["config"]["toImageButtonOptions"]
        assert opts["width"] * opts["scale"] >= 1920 and opts["height"] > 0
        assert opts["format"] == "png"
        # a chart that follows the round names each round's file (the browser sets it)
        name = p["step"]["filenames"][3] if p["step"] else opts["filename"]
        assert name == f"boosting_{p['view']}_{slug}"
        assert "moons400" in name and name.endswith("_m3")


def test_toolbar_format_svg_from_the_sidebar():
    at = run_app(present=1)
    at.radio(key="imgfmt").set_value("SVG").run()
    assert not at.exception
    for p in chart_payloads(at):
        opts = p["config"]["toImageButtonOptions"]
        assert opts["format"] == "svg" and opts["width"] * opts["scale"] >= 1920




def test_a_large_upload_fits_a_sample_and_says_how_many(warm_engine):
    at = upload(open_page(PAGES[0]), random_csv(40_000), "big.csv")
    assert_clean(at)
    used = MAX_POINT_ROUNDS // 100  # the default 100 rounds
    note = unescape(" ".join(c.value for c in at.caption))
    assert f"Using {used:,} of 40,000 points (random sample, seed 0)" in note
    assert at.slider(key="points").value == used
    assert chart_payloads(at)
    # fewer points on request; the link holds the choice
    asked = MAX_POINT_ROUNDS // 300  # within the budget at 100 rounds, not at 500
    at.slider(key="points").set_value(asked).run()
    assert_clean(at)
    assert f"Using {asked:,} of 40,000 points" in unescape(" ".join(c.value for c in at.caption))
    assert at.query_params["points"] == str(asked)
    # more rounds: the sample shrinks within the budget, and the page says why
    at.slider(key="rounds").set_value(500).run()
    note = unescape(" ".join(c.value for c in at.caption))
    assert f"Using {MAX_POINT_ROUNDS // 500:,} of 40,000 points" in note
    assert "point-rounds" in note


HAND_WORKED = b"x1,x2,label\n0,0,0\n1,0,1\n0,1,1\n1,1,0\n"  # XOR, four points


@pytest.mark.parametrize("m", [0, 1, 100])
def test_a_hand_worked_table_of_four_points_shows_on_every_page(m):
    """Uploaded once at round m, then every page in turn, as a student moves through them
    (an upload per page cost three runs more each: 93 runs against 30)."""
    at = upload(new_app(round=m).run(), HAND_WORKED, "xor.csv")
    for page in PAGES + ["pages/slides.py", "pages/leaf_maths.py", "pages/splits.py",
                         "pages/compare.py"]:
        if page != PAGES[0]:
            at.switch_page(page)
            at.run()
        assert_clean(at)
        captions = unescape(" ".join(c.value for c in at.caption))
        assert "4 training points" in captions, page
        assert "No validation split below 20 points" in captions, page


def test_charts_follow_the_round_with_the_same_bytes_at_every_round():
    """A chart that follows the round is sent as a template and its step, the same at
    every round (a rerun at rest re-sends it as a reference); the figure the browser
    draws at the round (its bindings applied) names that round."""
    payloads = []
    for m in (4, 5):
        at = open_page("pages/tree.py", round=m, dseed=3)
        assert_clean(at)
        payloads.append(chart_payloads(at))
        assert all(p["step"] for p in payloads[-1])
        assert all(f"Tree {m}" in fig["layout"]["title"]["text"] for fig in charts(at)
                   if "Tree " in fig["layout"]["title"]["text"])
    assert payloads[0] == payloads[1]


def test_a_components_place_changes_with_its_data_alone():
    """loader.js drops data older than what an element took (assets.py's _in_order): a
    rerun at rest sends each element's place unchanged, the same bytes; a new setting
    gives every changed chart a later place in the same session."""
    at = open_page("pages/tree.py", round=4, dseed=3)
    first = orders(at)
    assert first and len({session for session, _ in first.values()}) == 1
    at.run()
    assert orders(at) == first
    at.slider(key="lr").set_value(0.3).run()
    assert_clean(at)
    later = orders(at)
    changed = [k for k in later if k in first and later[k] != first[k]]
    assert changed, "no element's data changed with the learning rate"
    assert all(later[k][0] == first[k][0] for k in later if k in first)
    assert min(later[k][1] for k in changed) > max(order for _, order in first.values())


def test_a_chart_beyond_the_tables_budget_steps_through_the_server(monkeypatch):
    from explorer.figures import bindings
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", 100)
    at = open_page("pages/tree.py", round=3, dseed=11)
    assert_clean(at)
    found = chart_payloads(at)
    assert found and not any(p["step"] for p in found)
    assert "steps through the server" in page_text(at)
    assert any("Tree 3" in fig["layout"]["title"]["text"] for fig in charts(at))


@pytest.mark.parametrize("page", [LEAF, SPLITS_PAGE])
def test_round_zero_says_there_is_no_tree(page):
    at = open_clean(page)
    assert round_of(at) == 0
    assert "Round 0 has no tree" in " ".join(i.value for i in at.info)


def test_incompatible_settings_give_a_message():
    at = open_page(LEAF, split="hessian", loss="exponential")
    assert not at.exception
    assert at.error and "log" in at.error[0].value
    at = open_page(SPLITS_PAGE, split="hessian", loss="exponential")
    assert not at.exception and at.error


@pytest.mark.parametrize("page", REGISTERED)
@pytest.mark.parametrize("m", [0, 1, ROUNDS])
def test_every_page_opens_with_three_classes(page, m):
    at = open_page(page, data="blobs", rounds=ROUNDS, round=m, n=120)
    assert_clean(at)
    if page == "pages/slides.py":  # no round bar: the storyboard of chosen rounds
        assert "class 2" in storyboard(at)
    elif page == "pages/lessons.py":  # no round bar: the lessons' links
        assert any("?lesson=" in c.value for c in at.code)
    else:
        assert round_of(at) == m


def test_the_model_page_maps_the_most_probable_class_and_one_class_on_request():
    at = open_page(PAGES[0], data="iris", rounds=ROUNDS, round=ROUNDS)
    assert_clean(at)
    figs = charts(at)
    assert "the most probable class" in figs[0]["layout"]["title"]["text"]
    # a legend entry may be wrapped to the narrowest chart (figures/layout.py)
    names = {(t.get("name") or "").replace("<br>", " ") for t in figs[0]["data"]}
    assert {"class setosa", "class versicolor", "class virginica"} <= names
    assert "boundaries between classes" in names
    assert "Residuals of class setosa" in figs[1]["layout"]["title"]["text"]
    at.selectbox(key="cls").set_value(2).run()
    at.toggle(key="pk").set_value(True).run()
    assert_clean(at)
    figs = charts(at)
    assert "p of class virginica" in figs[0]["layout"]["title"]["text"]
    assert "Residuals of class virginica" in figs[1]["layout"]["title"]["text"]
    assert at.query_params["cls"] == "2" and at.query_params["pk"] == "true"  # in the link


def test_the_tree_page_shows_tree_m_k_with_the_factor():
    at = open_page("pages/tree.py", data="spiral", rounds=ROUNDS, round=2, cls=1, n=150)
    assert_clean(at)
    assert "Tree (2, 1)" in chart_text(at)
    text = page_text(at)
    assert r"\frac{K - 1}{K}" in text and r"\frac{2}{3}\cdot" in text
    assert "Friedman" in text


def test_curves_show_the_multinomial_log_loss_and_accuracy():
    at = open_page("pages/curves.py", data="blobs", rounds=ROUNDS, round=ROUNDS, n=120)
    assert_clean(at)
    assert "multinomial log-loss" in chart_text(at)
    assert "softmax" in page_text(at)  # f0: softmax(f0) gives back the class shares


def test_a_three_class_upload_opens_every_page():
    at = open_page(PAGES[0], rounds=ROUNDS)
    upload(at, THREE_CSV)
    assert_clean(at)
    assert "class cat" in chart_text(at)
    for page in REGISTERED[1:]:
        at.switch_page(page).run()
        assert_clean(at)


def test_exponential_loss_with_three_classes_is_a_clear_message():
    at = open_page(PAGES[0], data="blobs", loss="exponential", rounds=ROUNDS)
    assert not at.exception
    assert at.error and "exponential" in at.error[0].value and "two classes" in at.error[0].value


def test_the_sample_page_follows_the_sample_through_each_class_tree():
    at = open_page("pages/sample.py", data="blobs", rounds=ROUNDS, round=2, sample=5, n=120)
    assert_clean(at)
    assert "p of class 2" in chart_text(at) and "F of class 0" in chart_text(at)
    block = at.dataframe[0].value
    assert list(block["class k"]) == ["0", "1", "2"]
    assert "leaf" in block.columns and (block["leaf"] >= 0).all()
    assert r"\operatorname{softmax}" in page_text(at)


def test_three_trees_a_round_count_three_times_against_the_budget():
    n, rounds = 5000, 200  # within the budget for two classes, not for three
    assert n * rounds <= MAX_POINT_ROUNDS < 3 * n * rounds
    at = open_page(PAGES[0], data="blobs", n=n, rounds=rounds)
    assert_clean(at)
    used = MAX_POINT_ROUNDS // (3 * rounds)
    note = unescape(" ".join(c.value for c in at.caption))
    assert f"Using {used:,} points, not {n:,}" in note and "× 3 trees" in note


def test_a_ten_class_upload_opens_every_class():
    rows = "".join(f"{i % 17},{(i * 7) % 23},{'abcdefghij'[i % 10]}\n" for i in range(300))
    at = open_page(PAGES[0], rounds=50)
    upload(at, ("x1,x2,label\n" + rows).encode())
    assert_clean(at)
    assert "class a" in chart_text(at) and "class j" in chart_text(at)
