"""Issue 29, items 11, 12 and 13: Compare's flipped point is ringed on both maps; Slides
with 3+ classes (the class picker applies or is hidden, the download names the data's
own size, round 0 is neutral); the Model page's two maps come out the same size.

Issue 44 (what the pages say is true, second pass): the second-order improvement's
relation to the Splits page's gain, exact leaves with no finite minimiser, the `/model`
alias, exported file names, Compare's caption."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from apptest_helpers import assert_clean, charts, open_page
from explorer import fit
from explorer.data import make_toy, split
from explorer.figures import residual_map
from explorer.figures.classes import NEUTRAL, class_map
from explorer.numbers.grid import make_grid


@pytest.fixture(autouse=True)
def _warm(warm_engine):
    """AppTest runs the app in this process: compile numba once first."""


@pytest.fixture(scope="module")
def iris():
    train, _ = split(make_toy("iris", n=150, noise=0.2, seed=0), 0.2, seed=0)
    trace = fit(train.X, train.y, n_rounds=3)
    return trace, make_grid(trace)


def test_the_class_map_at_an_even_round_0_is_neutral(iris):
    trace, grid = iris
    p0 = trace.proba(0)[0]
    heat = class_map(trace, 0, grid).data[0]
    if np.allclose(p0, 1 / 3):  # p = (1/3, 1/3, 1/3): no class is the most probable
        assert [c[1] for c in heat.colorscale] == [NEUTRAL, NEUTRAL]
        assert "no class" in heat.text[0][0]
    heat1 = class_map(trace, 1, grid).data[0]
    assert len({c[1] for c in heat1.colorscale}) > 2  # after a round: the classes' tints


def _plot_area(fig):
    lay = fig.layout
    return lay.height - lay.margin.t - lay.margin.b, lay.margin.l + lay.margin.r


def test_the_model_pages_two_maps_have_one_size(iris):
    trace, grid = iris
    model = class_map(trace, 2, grid, sample=0)
    residuals = residual_map(trace, 2, grid, sample=0, k=0)
    (h_model, side_model), (h_res, _) = _plot_area(model), _plot_area(residuals)
    assert abs(h_model - h_res) < 1  # however many legend rows each has below it
    assert len(model.data) > len(residuals.data)  # the model's legend is the longer one
    assert side_model >= 90  # the class map keeps a colour bar's room beside it


def test_compare_rings_the_flipped_point_on_both_maps():
    at = open_page("pages/compare.py", lesson="outlier", round=5)
    assert_clean(at)
    rings = [[t for t in c["data"] if str(t.get("name", "")).startswith("flipped point #")]
             for c in charts(at)]
    with_ring = [r for r in rings if r]
    assert len(with_ring) == 2, rings
    names = {r[0]["name"] for r in with_ring}
    assert len(names) == 1
    text = " ".join(c.value for c in at.caption)
    assert "e^(−ỹF)" in text and "e^(−yF)" not in text
    i = int(names.pop().split("#")[1])
    # the ring sits on that training point, the deepest inside its class
    ring = with_ring[0][0]
    assert i >= 0 and len(ring["x"]) == 1


def test_slides_with_three_classes_hide_the_picker_on_the_class_map():
    at = open_page("pages/slides.py", data="iris", round=3)
    assert_clean(at)
    keys = [s.key for s in at.selectbox]
    assert "cls" not in keys  # the class map shows every class: no picker
    assert any("turn on p_k" in c.value for c in at.caption)
    at.radio(key="slides_view").set_value("residuals").run()
    assert_clean(at)
    assert "cls" in [s.key for s in at.selectbox]  # the residuals are one class's


def test_the_slides_download_names_the_datas_own_size(monkeypatch):
    names = []
    original = MediaFileManager.add_deferred

    def add_deferred(self, data, mimetype, coordinates, file_name=None, **kwargs):
        names.append(file_name)
        return original(self, data, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    at = open_page("pages/slides.py", data="iris")
    assert_clean(at)
    assert names and all("iris150" in n and "iris400" not in n for n in names), names


# Issue 44, item 1 ------------------------------------------------------------------

# the relation a caption states between the improvement and the gain, in the words an
# older caption used or in symbols, as Python over `gain` and `gamma`
_WORDED = {"twice the Splits page's gain, plus γ": "2 * gain + gamma"}


def _printed_relation(text: str) -> str:
    said = re.search(r"− G²/\(H \+ λ\) = ([0-9·()+ gainγ−]+?)[:,.]", text)
    if said:
        return said.group(1).replace("·", " * ").replace("γ", "gamma").replace("−", "-")
    worded = [expr for words, expr in _WORDED.items() if words in text]
    assert worded, f"no relation between the improvement and the gain in {text!r}"
    return worded[0]


@pytest.mark.parametrize("gamma", [0, 1])
def test_the_printed_improvement_is_the_printed_relation_of_the_printed_gain(gamma):
    """Item 1: the Splits page prints the Tree page's improvement, the relation, the
    gain and γ; the relation evaluated on those printed numbers gives the improvement."""
    at = open_page("pages/splits.py", split="hessian", gamma=gamma, round=1)
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    printed = re.search(r"improvement, (-?[0-9.]+): (.*?) For this split that is "
                        r"(-?[0-9.]+) on this page's second-order gain", text)
    assert printed, text
    improvement, relation, gain = float(printed[1]), printed[2], float(printed[3])
    shown_gamma = float(re.search(r"γ = ([0-9.]+) here", text)[1])
    assert shown_gamma == gamma
    expr = _printed_relation(relation)
    value = eval(expr, {}, {"gain": gain, "gamma": shown_gamma})  # the page's own formula
    assert value == pytest.approx(improvement, abs=2e-3), (expr, gain, improvement)
