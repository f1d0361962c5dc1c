"""Issue 29, items 11, 12 and 13: Compare's flipped point is ringed on both maps; Slides
with 3+ classes (the class picker applies or is hidden, the download names the data's
own size, round 0 is neutral); the Model page's two maps come out the same size.

Issue 44 (what the pages say is true, second pass): the second-order improvement's
relation to the Splits page's gain, exact leaves with no finite minimiser, the `/model`
alias, exported file names, Compare's caption."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from apptest_helpers import (assert_clean, chart_payloads, charts, open_page, page_text,
                              unescape)
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


# Issue 44, item 2 ------------------------------------------------------------------


def _line_minimum_in_plain_python(y, raw, t):
    """losses.line_minimum along a leaf, written from REFERENCE.md's formulas in plain
    Python floats (a second reading, not the engine's kernels): (value, rule)."""
    for _ in range(50):
        num = den = 0.0
        for yi, f in zip(y.tolist(), (raw + 0.0).tolist()):
            f += t
            if f > -37.0:
                e = math.exp(-f)
                r = -(((1.0 - yi) - yi * e) / (1.0 + e))
            else:
                r = -(math.exp(f) - yi)
            p = yi - r
            num += r
            den += p * (1.0 - p)
        if abs(den) < 1e-150:
            return t, "floor"
        step = num / den
        t += step
        if abs(step) <= 1e-12 * max(1.0, abs(t)):
            return t, "converged"
    return t, "steps"


@pytest.fixture(scope="module")
def exact_fit():
    train, _ = split(make_toy("moons", n=400, noise=0.25, seed=0), 0.2, 0)
    return fit(train.X, train.y, n_rounds=12, leaf="exact")


def test_each_exact_leaf_says_which_rule_ended_its_newton_iterations(exact_fit):
    """Item 2: the rule exact_stop names is the one that ended the engine's iterations,
    at the engine's value; all three occur in this fit."""
    from explorer.numbers import summaries
    seen = set()
    for m in range(1, 13):
        tree = exact_fit.tree(m)
        for node in summaries.leaves_of(exact_fit, m):
            stop = summaries.exact_stop(exact_fit, m, int(node))
            inside = exact_fit.leaf[m] == node
            start = float(tree["sum_r"][node]) / float(tree["sum_h"][node])
            value, rule = _line_minimum_in_plain_python(
                exact_fit.y[inside], exact_fit.raw[m - 1][inside], start)
            assert stop["same"] and stop["value"] == float(tree["value"][node])
            assert (stop["rule"], stop["value"]) == (rule, pytest.approx(value, rel=1e-12))
            seen.add(rule)
    assert seen == {"converged", "steps", "floor"}


def test_an_exact_leaf_with_no_minimiser_is_not_called_an_argmin():
    """Item 2: /leaf_maths?leafrule=exact&round=10&leaf=7 shows leaf 7 (sample 0's, pure:
    the page opens on a typical leaf unless one is chosen), whose iterations stopped when
    Σh fell below its floor: the page says so, and calls 20.283 no argmin."""
    at = open_page("pages/leaf_maths.py", leafrule="exact", round=10, leaf=7)
    assert_clean(at)
    text = page_text(at)
    assert "Leaf 7 of tree 10" in text and "20.283" in text
    assert "over the leaf = 20.283" not in text  # "argmin_γ ... over the leaf = 20.283"
    used = next(unescape(m.value) for m in at.markdown
                if m.value.startswith("**The value the fit uses**"))
    assert "argmin_γ" not in used and "not an argmin" in used, used
    assert "after 19 steps" in used and "hessian sum Σh fell below its floor 1e-150" in used


def test_the_tree_page_marks_the_leaves_that_stopped_short(exact_fit):
    """Item 2: on /tree?leafrule=exact&round=10 the leaves whose Newton iterations
    stopped short (50 steps, or Σh under its floor) carry a mark on the plane and in the
    diagram, and their hover says where and why; the converged leaf has none."""
    at = open_page("pages/tree.py", leafrule="exact", round=10)
    assert_clean(at)
    figs = charts(at)
    assert "argmin_γ" not in json.dumps(figs, ensure_ascii=False)
    plane = next(f for f in figs if "on the plane" in f["layout"]["title"]["text"])
    labels = {a["name"].split(":")[1]: a for a in plane["layout"]["annotations"]
              if str(a.get("name", "")).startswith("label:")}
    diagram = next(f for f in figs if "go left = yes" in f["layout"]["title"]["text"])
    leaf_notes = [a["text"] for a in diagram["layout"]["annotations"] if "<b>γ" in a["text"]]
    marked = {"2", "4", "5", "7", "10"}  # pure leaves: 50 steps (2, 5) or Σh's floor
    for node, note in labels.items():
        assert note["text"].endswith("†") == (node in marked), (node, note["text"])
        if node in marked:  # the hover's lines read as one sentence
            hover = note["hovertext"].replace("<br>", " ")
            assert "not an argmin" in hover
            assert ("limit of 50 steps" in hover) == (node in ("2", "5")), hover
    assert sum(t.endswith("†") for t in leaf_notes) == len(marked), leaf_notes
    hovers = [h.replace("<br>", " ") for t in diagram["data"]
              for h in (t.get("hovertext") or [])]
    assert sum("not an argmin" in h for h in hovers) == len(marked)


# Issue 44, item 5 ------------------------------------------------------------------


def test_exported_file_names_state_the_datas_own_size(tmp_path):
    """Item 5: `python -m explorer export --dataset iris --interactive --page tree` names
    iris's own 150 flowers, in the file's name and in the names the lesson gives its
    images; the app's toolbar names come from the same State.slug; moons keeps its n."""
    from explorer.__main__ import export, parser
    from explorer.figures import pages
    from explorer.state import State
    args = parser().parse_args(["export", "--dataset", "iris", "--interactive", "--page",
                                "tree", "--rounds", "0,1", "--out", str(tmp_path)])
    written = export(args, log=lambda *_: None)
    assert written and all("_iris150_" in p.name for p in written), written
    html = written[0].read_text(encoding="utf-8")
    assert "_iris150_" in html and "iris400" not in html
    assert all("_iris150_" in n
               for n in pages.image_names(State(data="iris", n=400), "tree", 3))
    assert State(data="moons", n=250).slug().startswith("moons250_")


def test_the_toolbars_file_name_at_each_round_is_that_rounds_slug():
    from explorer.figures import pages
    from explorer.state import State
    for state in (State(), State(data="iris", n=400, round=7, split="histogram"),
                  State(data="upload", leafrule="exact", split="hessian", rounds=12)):
        names = pages.image_names(state, "update", 12)
        assert names == [f"boosting_update_{state.with_round(m).slug()}" for m in range(13)]


# Issue 44, item 6 ------------------------------------------------------------------


@pytest.mark.parametrize("query", [dict(pair="depth", round=10), dict(pair="outliers"),
                                   dict(pair="outlier"), dict(pair="split"),
                                   dict(pair="leafrule"), dict(pair="lr", split="hessian")],
                         ids=lambda q: "-".join(map(str, q.values())))
def test_compares_caption_names_what_both_sides_share(query):
    """Item 6: the line under Compare's title names the settings the two fits share
    (the flipped labels too) and none that only one side has; each side's title names
    what differs."""
    from explorer.app.component import fit_of
    from explorer.settings import Settings
    at = open_page("pages/compare.py", **query)
    assert_clean(at)
    caption = unescape(at.caption[0].value)
    sides = [unescape(m.value).strip("*") for m in at.markdown
             if m.value.startswith("**") and "Round" not in m.value]
    assert len(sides) == 2, sides
    # the two fits on screen, as the charts were given them
    traces = [fit_of(p["step"]["record"]).trace for p in chart_payloads(at)[:2]]
    assert traces[0] is not traces[1]
    # each fit's own settings line, cut into its settings (no cut inside brackets)
    a, b = (re.split(r", (?![^()]*\))", Settings.of(t.params).caption("").split(" · ", 1)[1])
            for t in traces)
    for part in a + b:
        assert (part in caption) == (part in a and part in b), (part, caption)
    assert "both sides" in caption
    if query["pair"] == "depth":
        assert "depth" not in caption and sides == ["depth 1", "depth 3"]
    if query["pair"].startswith("outlier"):
        assert "log-loss" not in caption and "exponential" not in caption
        assert "flipped" in caption and sides == ["log-loss", "exponential loss"]
