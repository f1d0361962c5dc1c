"""AppTest with three classes or more: every page opens with a 3-class toy set and a
3-class upload at rounds 0, 1 and M without an exception, and shows every class: the class
map and p_k on request, residuals, tree, leaf and splits of one class with the (K - 1)/K
factor, a sample in each class's tree, curves, Compare, and Slides' storyboards."""

from __future__ import annotations

import pytest

import json
import re

from apptest_helpers import (PAGES, assert_clean, chart_text, charts, open_page, page_text,
                             round_of, unescape, upload)
from explorer.process import ROOT

REGISTERED = re.findall(r'st\.Page\("(pages/[\w-]+\.py)"', (ROOT / "app.py").read_text())
ROUNDS = 6
THREE_CSV = ("x1,x2,species\n" + "".join(
    f"{(i * 37) % 50 / 10},{(i * 11) % 30 / 10 + 2 * (i % 3)},{('emu', 'cat', 'dog')[i % 3]}\n"
    for i in range(90))).encode("utf-8")


def storyboard(at) -> str:
    """The Slides page's storyboard figure, as JSON text."""
    return at.get("plotly_chart")[0].proto.spec


@pytest.fixture(autouse=True, scope="module")
def _warm(warm_engine):
    """The app runs in this process: compile the K-class kernels once first."""
    from explorer.boosting import warmup_multiclass
    warmup_multiclass()


@pytest.mark.parametrize("page", REGISTERED)
@pytest.mark.parametrize("m", [0, 1, ROUNDS])
def test_every_page_opens_with_three_classes(page, m):
    at = open_page(page, data="blobs", rounds=ROUNDS, round=m, n=120)
    assert_clean(at)
    if page == "pages/slides.py":  # no round bar: the storyboard of chosen rounds
        assert "class 2" in storyboard(at)
    else:
        assert round_of(at) == m


def test_the_model_page_maps_the_most_probable_class_and_one_class_on_request():
    at = open_page(PAGES[0], data="iris", rounds=ROUNDS, round=ROUNDS)
    assert_clean(at)
    figs = charts(at)
    assert "the most probable class" in figs[0]["layout"]["title"]["text"]
    names = {t.get("name") for t in figs[0]["data"]}
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


def test_the_leaf_maths_page_checks_a_three_class_fit_against_scikit_learn():
    at = open_page("pages/leaf_maths.py", data="blobs", rounds=ROUNDS, round=2, cls=2, n=120)
    assert_clean(at)
    assert "Leaf" in page_text(at) and "tree (2, 2)" in page_text(at)
    assert "2/3 · Σr / Σh" in page_text(at)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    values = {m.label: m.value for m in at.metric}
    assert values["Largest |ΔF|, training points"] == "0.00e+00"
    assert values["Largest |ΔF|, grid over the plane"] == "0.00e+00"


def test_the_compare_page_sets_two_three_class_fits_side_by_side():
    at = open_page("pages/compare.py", data="spiral", rounds=ROUNDS, round=3, n=150)
    assert_clean(at)
    figs = charts(at)
    assert sum("the most probable class" in f["layout"]["title"]["text"] for f in figs) == 2
    at.selectbox(key="pair").set_value("leafrule").run()
    assert not at.exception  # mean leaves are for two classes: a message, not a crash
    assert at.error and "leave leaf='newton'" in unescape(at.error[0].value)


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


def test_three_trees_a_round_count_three_times_against_the_budget():
    from explorer.dataset import MAX_POINT_ROUNDS
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
