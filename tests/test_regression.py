"""Regression in the explorer: the line grid, the one- and two-input views, and the app's
pages on the toy sets and on uploads (AppTest). The numbers are checked against the
trace itself: the chart must draw what the engine fitted."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import export, figures, fit
from explorer.numbers.grid import LINE_RESOLUTION, make_grid, tree_leaf_of, tree_on_grid
from explorer.numbers import summaries
from explorer.data import make_toy, split
from explorer.state import State

from test_app import assert_clean, chart_payloads, charts, open_page, page_text, upload
from test_figures import check_figure, trace_array

ALL_PAGES = ["pages/model.py", "pages/tree.py", "pages/sample.py", "pages/curves.py",
             "pages/slides.py", "pages/leaf_maths.py", "pages/splits.py", "pages/compare.py"]


def _fit(name, **options):
    train, valid = split(make_toy(name, n=150, noise=0.2, seed=2), 0.2, 2)
    params = dict(loss="squared_error", n_rounds=12, learning_rate=0.3, max_depth=2)
    params.update(options)
    tr = fit(train.X, train.y, X_valid=valid.X, y_valid=valid.y, **params)
    return tr, make_grid(tr)


@pytest.fixture(scope="module")
def sine(warm_engine):
    return _fit("sine")


@pytest.fixture(scope="module")
def plane(warm_engine):
    return _fit("plane", subsample=0.7)


# --- the grid and the figures ------------------------------------------------------------


def test_a_one_input_grid_is_a_line_of_the_staged_predictions(sine):
    tr, grid = sine
    assert grid.is_line and grid.F.shape == (tr.n_rounds + 1, LINE_RESOLUTION)
    assert grid.lo[0] < tr.X.min() and grid.hi[0] > tr.X.max()
    expected = tr.staged_decision_function(grid.xs[:, None])
    np.testing.assert_allclose(grid.F, expected.astype(np.float32))
    for m in (1, 7):
        np.testing.assert_allclose(tree_on_grid(tr, m, grid),
                                   expected[m] - expected[m - 1], atol=1e-6)


@pytest.mark.parametrize("m", [0, 1, 12])
def test_the_staircase_draws_F_m_and_the_residual_bars(sine, m):
    tr, grid = sine
    fig = figures.model_view(tr, m, grid, feature_names=("<b>x</b>",), target_name="y",
                             show_valid=True, sample=4)
    spec = check_figure(fig)
    kinds = [t["type"] for t in spec["data"]]
    bars = kinds.index("bar")
    base = trace_array(fig, bars, "base").astype(float)  # plotly keeps "base" as objects
    np.testing.assert_allclose(base, tr.raw[m], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(trace_array(fig, bars, "y"), tr.y - tr.raw[m], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(trace_array(fig, bars, "customdata"), np.arange(len(tr.y)))
    line = [k for k, t in enumerate(spec["data"]) if t.get("mode") == "lines"][0]
    np.testing.assert_allclose(trace_array(fig, line, "y"), grid.F[m])
    # one y range for every round, holding the targets and F at every round
    lo, hi = spec["layout"]["yaxis"]["range"]
    assert lo < min(tr.y.min(), grid.F.min()) and hi > max(tr.y.max(), grid.F.max())
    assert lo == figures.model_view(tr, 0, grid).layout.yaxis.range[0]
    assert spec["layout"]["xaxis"]["title"]["text"] == "&lt;b&gt;x&lt;/b&gt;"
    assert any(t.get("name") == "validation points" for t in spec["data"])


def test_the_surface_draws_F_m_on_the_plane_with_the_points_on_one_scale(plane):
    tr, grid = plane
    fig = figures.model_view(tr, 5, grid, feature_names=("a", "b"), sample=2,
                             target_name="<img src=x>")
    spec = check_figure(fig)
    assert "<img" not in fig.to_json() and "&lt;img src=x&gt;" in spec["data"][1]["name"]
    heat = spec["data"][0]
    assert heat["type"] == "heatmap"
    np.testing.assert_allclose(trace_array(fig, 0, "z"), grid.F[5])
    points = spec["data"][1]["marker"]
    assert (points["cmin"], points["cmax"]) == (heat["zmin"], heat["zmax"])
    assert heat["zmin"] < tr.y.min() and heat["zmax"] > tr.y.max()
    custom = trace_array(fig, 1, "customdata")
    np.testing.assert_array_equal(custom[:, 0], np.arange(len(tr.y)))
    np.testing.assert_allclose(custom[:, 2], tr.raw[5], rtol=1e-6, atol=1e-6)


def test_tree_m_on_a_line_shows_each_leaf_value_over_its_interval(sine):
    tr, grid = sine
    m = 3
    tree = tr.tree(m)
    leaf = int(tr.leaf[m, 0])
    fig = figures.tree_regions(tr, m, grid, feature_names=("x",), leaf=leaf, sample=0)
    spec = check_figure(fig)
    steps = [t for t in spec["data"] if t.get("name", "").startswith(f"tree {m}")][0]
    ys = [v for v in steps["y"] if v is not None]
    xs = [v for v in steps["x"] if v is not None]
    # every leaf's step sits at its value, and the steps tile the line without gaps
    leaves = summaries.leaves_of(tr, m)
    assert sorted(set(ys)) == sorted(set(float(tree["value"][k]) for k in leaves))
    assert xs[0] == grid.lo[0] and xs[-1] == grid.hi[0]
    inside = tree_leaf_of(tree, np.array([[x] for x in xs[::2]]) + 1e-9)
    np.testing.assert_allclose([float(tree["value"][k]) for k in inside], ys[::2])
    # the residuals it fits are r at F_(m-1); the selected leaf is shaded
    points = [k for k, t in enumerate(spec["data"]) if t.get("name", "").startswith("r =")][0]
    np.testing.assert_allclose(trace_array(fig, points, "y"), tr.residual(m - 1), rtol=1e-5,
                               atol=1e-6)
    assert len(spec["layout"]["shapes"]) == 1
    marks = [t for t in spec["data"] if t.get("name") == "leaf value γ"][0]
    assert sorted(int(k) for k in np.asarray(trace_array(fig, spec["data"].index(marks),
                                                         "customdata"))[:, 0]) == list(leaves)


def test_the_other_views_on_a_line(sine):
    tr, grid = sine
    update = check_figure(figures.update_panels(tr, 4, grid, feature_names=("x",)))
    F0, step, F1 = (np.asarray(t["y"] if isinstance(t["y"], list) else
                               trace_array(figures.update_panels(tr, 4, grid), k, "y"))
                    for k, t in enumerate(update["data"]))
    np.testing.assert_allclose(F0 + step, F1, atol=1e-5)
    residuals = figures.residual_map(tr, 4, grid, feature_names=("x",), sample=1)
    check_figure(residuals)
    np.testing.assert_allclose(trace_array(residuals, 0, "y"), tr.y - tr.raw[4], rtol=1e-5,
                               atol=1e-5)
    curves = check_figure(figures.curves(tr, 4))
    assert "xaxis2" not in curves["layout"] and curves["layout"]["xaxis"]["domain"] == [0, 1]
    assert "½(y − F)²" in figures.curves(tr, 4).to_json()
    path = check_figure(figures.sample_trajectory(tr, 3, 4))
    assert path["data"][1]["y"] == [tr.y[3], tr.y[3]]


@pytest.mark.parametrize("view", list(export.VIEWS))
def test_storyboards_of_a_regression(sine, plane, view):
    for tr, grid in (sine, plane):
        board = export.storyboard(tr, view, [0, 1, 12], grid, target_name="target")
        check_figure(board)
        assert len([a for a in board.layout.annotations if a.text.startswith("round")]) == 3


def test_regression_f0_is_the_mean_and_the_ledger_has_no_probability(sine):
    tr, _ = sine
    f = summaries.f0_summary(tr)
    assert f["mean"] == pytest.approx(tr.y.mean(), abs=1e-12)
    assert f["f0"] == pytest.approx(f["mean"], abs=1e-12)
    ledger = summaries.ledger(tr, 5)
    assert ledger["p"] is None
    np.testing.assert_allclose(ledger["F"][1:], ledger["F"][:-1] + ledger["update"][1:],
                               atol=1e-12)


def test_a_regression_link_fixes_the_task_split_and_pair():
    s = State.from_mapping({"data": "sine", "task": "classification", "split": "hessian",
                            "pair": "outliers"})
    assert s.is_regression and not s.is_hessian and s.pair == "lr"
    assert s.fit_params()["loss"] == "squared_error"
    assert s.loss_name == "squared-error" and "squared-error" in s.slug()
    upload_state = State.from_mapping({"data": "upload", "task": "regression"})
    assert upload_state.is_regression
    assert not State.from_mapping({"data": "moons", "task": "regression"}).is_regression
    assert "newton" not in State().slug()
    assert "_mean" in State(leafrule="mean").slug()
    assert "hessian_lam2" in State(split="hessian", lam=2.0).slug()


# --- the app -----------------------------------------------------------------------------


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


def test_compare_on_a_regression_offers_its_pairs_and_says_when_sides_agree():
    at = open_page("pages/compare.py", data="sine", round=5, pair="outliers")
    assert_clean(at)
    assert list(at.selectbox(key="pair").options) == [
        "learning rate 1.0 against 0.1", "depth 1 against depth 3",
        "Newton leaves against mean leaves"]
    at.selectbox(key="pair").set_value("leafrule").run()
    assert_clean(at)
    assert "the two sides are the same fit" in page_text(at)
    a, b = charts(at)[:2]
    assert a["data"] == b["data"]  # Newton and mean leaves: one fit, drawn twice


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


def test_the_agreement_panel_checks_a_regression_against_scikit_learns_regressor():
    at = open_page("pages/leaf_maths.py", data="steps", round=2, rounds=6)
    at.button(key="agree_run").click().run()
    assert_clean(at)
    value = [m.value for m in at.metric if m.label.startswith("Largest |ΔF|, training")][0]
    assert float(value) < 1e-9
    assert "scikit" in page_text(at)
