"""The figures, the app-side sums and the state: pure functions, tested without Streamlit."""

from __future__ import annotations

import base64
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer import figures, fit
from explorer.figures import theme
from explorer.numbers.grid import boundary_lines, make_grid, tree_on_grid
from explorer.numbers import summaries
from explorer.data import make_toy
from explorer.state import FIELDS, State


# --- helpers ---------------------------------------------------------------------------


def _decode(value):
    """plotly 7 writes arrays as {'dtype', 'bdata', 'shape'}; give them back as numpy."""
    raw = base64.b64decode(value["bdata"])
    arr = np.frombuffer(raw, dtype=np.dtype(value["dtype"]))
    if "shape" in value:
        shape = value["shape"]
        shape = [int(k) for k in shape.split(",")] if isinstance(shape, str) else shape
        arr = arr.reshape(shape)
    return arr


def numbers_in(obj):
    """Every number anywhere in a figure dict (typed arrays decoded)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            yield from _decode(obj).astype(float).ravel()
            return
        for v in obj.values():
            yield from numbers_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from numbers_in(v)
    elif isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fiub":
            yield from obj.astype(float).ravel()
        else:
            for v in obj.ravel():
                yield from numbers_in(v)
    elif isinstance(obj, (bool, np.bool_)):
        return
    elif isinstance(obj, (int, float, np.integer, np.floating)):
        yield float(obj)


def check_figure(fig):
    """A valid plotly figure with no NaN or inf anywhere in it."""
    assert isinstance(fig, go.Figure)
    as_dict = fig.to_dict()
    go.Figure(as_dict)  # validates every property again
    values = np.fromiter(numbers_in(as_dict), dtype=float)
    assert np.isfinite(values).all(), "NaN or inf reached a figure"
    fig.to_json()  # serialisable
    return as_dict


def trace_array(fig, index, name):
    value = fig.to_dict()["data"][index][name]
    return _decode(value) if isinstance(value, dict) and "bdata" in value else np.asarray(value)


@pytest.fixture(scope="module")
def grid(moons_fit):
    return make_grid(moons_fit, resolution=40)


@pytest.fixture(scope="module")
def exp_fit(warm_engine):
    ds = make_toy("circles", n=200, noise=0.1, seed=3)
    return fit(ds.X, ds.y, loss="exponential", n_rounds=8, learning_rate=0.5, max_leaves=5)


# --- every figure at every kind of round -------------------------------------------------


@pytest.mark.parametrize("m", [0, 1, 5, 12])
def test_every_view_is_a_finite_valid_figure(moons_fit, grid, m):
    tr = moons_fit
    leaf = summaries.resolve_leaf(tr, m, -1, 3)[0] if m else None
    figs = [
        figures.probability_map(tr, m, grid, show_valid=True, sample=3),
        figures.residual_map(tr, m, grid, sample=3),
        figures.tree_regions(tr, m, grid, leaf=leaf, sample=3),
        figures.update_panels(tr, m, grid),
        figures.curves(tr, m),
        figures.tree_diagram(tr, m, leaf=leaf),
        figures.sample_trajectory(tr, 3, m),
    ]
    for fig in figs:
        check_figure(fig)


def test_exponential_loss_and_best_first_trees(exp_fit):
    tr = exp_fit
    grid = make_grid(tr, resolution=30)
    for m in (0, 1, tr.n_rounds):
        for fig in (figures.probability_map(tr, m, grid), figures.residual_map(tr, m, grid),
                    figures.tree_regions(tr, m, grid), figures.update_panels(tr, m, grid),
                    figures.tree_diagram(tr, m), figures.curves(tr, m)):
            check_figure(fig)
    assert "σ(2F" in figures.probability_map(tr, 2, grid).layout.title.text
    # best-first trees have at most max_leaves leaves, all drawn on the plane
    assert len(summaries.leaves_of(tr, 3)) <= 5


def test_extreme_scores_never_give_nan(warm_engine):
    """A large learning rate on separable data drives |F| far out; charts stay finite."""
    ds = make_toy("linear", n=100, noise=0.0, seed=0)
    tr = fit(ds.X, ds.y, n_rounds=60, learning_rate=10.0, max_depth=2)
    grid = make_grid(tr, resolution=30)
    assert np.abs(tr.raw).max() > 30
    for m in (1, 30, 60):
        for fig in (figures.probability_map(tr, m, grid), figures.residual_map(tr, m, grid),
                    figures.update_panels(tr, m, grid), figures.tree_regions(tr, m, grid),
                    figures.tree_diagram(tr, m), figures.curves(tr, m),
                    figures.sample_trajectory(tr, 0, m)):
            check_figure(fig)


def test_boundary_lines_follow_the_sign_changes():
    xs, ys = np.linspace(0, 1, 11), np.linspace(0, 2, 21)
    gx, gy = np.meshgrid(xs, ys)
    F = np.where((gx > 0.42) & (gy < 1.5), 1.0, -1.0)
    px, py = boundary_lines(xs, ys, F)
    assert len(px) == len(py) and len(px) % 3 == 0
    segments = [(px[k], py[k], px[k + 1], py[k + 1]) for k in range(0, len(px), 3)]
    assert all(px[k + 2] is None and py[k + 2] is None for k in range(0, len(px), 3))
    # one vertical run between x = 0.4 and 0.5, one horizontal between y = 1.4 and 1.5
    assert (0.45, -0.05, 0.45, 1.45) in [tuple(round(v, 10) for v in s) for s in segments]
    assert (0.45, 1.45, 1.05, 1.45) in [tuple(round(v, 10) for v in s) for s in segments]
    assert len(segments) == 2
    assert boundary_lines(xs, ys, np.ones_like(F)) == ([], [])


def test_finite_guard():
    a = theme.finite([np.nan, np.inf, -np.inf, 1.0, 1e300])
    assert np.isfinite(a).all() and a[0] == 0 and a[1] == theme.BIG and a[2] == -theme.BIG
    assert theme.num(float("nan")) == "0"


# --- what each view shows -------------------------------------------------------------


def test_probability_map_shows_p_of_round_m_and_clickable_points(moons_fit, grid):
    tr, m = moons_fit, 4
    fig = figures.probability_map(tr, m, grid, show_valid=True, sample=7)
    z = trace_array(fig, 0, "z")
    assert z.min() >= 0 and z.max() <= 1
    np.testing.assert_allclose(z, tr.link(grid.F[m].astype(float)), atol=1e-6)
    assert fig.data[1].name == "boundary p = 0.5" and fig.data[1].mode == "lines"
    points = [t for t in fig.data if t.type in ("scatter", "scattergl") and t.mode == "markers"
              and t.customdata is not None]
    assert all(t.type == "scatter" for t in points)  # few points: SVG, many: WebGL
    # training points carry their index; together they are every training point once
    train_idx = np.concatenate([np.asarray(t.customdata)[:, 0] for t in points
                                if "validation" not in t.name])
    assert sorted(train_idx.astype(int)) == list(range(len(tr.y)))
    valid = [t for t in points if "validation" in t.name]
    assert sum(len(t.x) for t in valid) == len(tr.y_valid)
    assert any(t.name == "sample #7" for t in fig.data)
    assert fig.layout.yaxis.scaleanchor == "x"  # comparable ranges: equal aspect


def test_many_points_are_drawn_with_webgl(warm_engine):
    ds = make_toy("moons", n=theme.GL_POINTS + 50)
    tr = fit(ds.X, ds.y, n_rounds=2)
    grid = make_grid(tr, resolution=20)
    for fig in (figures.probability_map(tr, 1, grid), figures.residual_map(tr, 1, grid),
                figures.tree_regions(tr, 1, grid)):
        kinds = {t.type for t in fig.data if t.type.startswith("scatter")
                 and t.mode == "markers" and t.customdata is not None
                 and len(t.x) > 1 and t.name != "leaf value γ"}
        assert kinds == {"scattergl"}, kinds


def test_residual_map_colours_and_sizes_by_y_minus_p(moons_fit, grid):
    tr, m = moons_fit, 3
    fig = figures.residual_map(tr, m, grid)
    scatter = fig.data[1]
    r = np.asarray(scatter.marker.color)
    np.testing.assert_allclose(r, tr.y - tr.proba(m), atol=1e-12)
    size = np.asarray(scatter.marker.size)
    assert np.all(np.diff(size[np.argsort(np.abs(r))]) >= -1e-12)  # bigger |r|, bigger point
    assert scatter.marker.cmid == 0 and scatter.marker.cmin == -1 and scatter.marker.cmax == 1


def test_tree_regions_label_every_leaf_with_its_newton_value(moons_fit, grid):
    tr, m = moons_fit, 2
    leaf = int(summaries.leaves_of(tr, m)[0])
    fig = figures.tree_regions(tr, m, grid, leaf=leaf)
    labels = fig.data[-1]
    nodes = np.asarray(labels.customdata)[:, 0].astype(int)
    boxes = tr.regions(m, grid.lo, grid.hi)
    visible = [int(b["node"]) for b in boxes if b["x1"] > b["x0"] and b["y1"] > b["y0"]]
    assert sorted(nodes) == sorted(visible)
    gammas = np.asarray(labels.customdata)[:, 1]
    np.testing.assert_allclose(gammas, tr.tree(m)["value"][nodes])
    texts = [a.text for a in fig.layout.annotations]
    assert all(t.startswith("γ = ") for t in texts)
    # the selected leaf gets a thick outline on top
    assert fig.layout.shapes[-1].line.width == 4


def test_update_panels_add_up(moons_fit, grid):
    tr, m = moons_fit, 6
    fig = figures.update_panels(tr, m, grid)
    heat = [k for k, t in enumerate(fig.data) if t.type == "heatmap"]
    before, step, after = (trace_array(fig, k, "z") for k in heat)
    np.testing.assert_allclose(before + step, after, atol=1e-5)
    exact = tree_on_grid(tr, m, grid)
    np.testing.assert_allclose(step, exact)
    assert set(np.unique(np.round(exact / tr.learning_rate, 12))) <= set(
        np.round(tr.tree(m)["value"], 12))


def test_curves_mark_the_round_and_carry_rounds(moons_fit):
    tr, m = moons_fit, 5
    fig = figures.curves(tr, m)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert {t.name for t in lines} == {"train", "validation"}
    np.testing.assert_allclose(lines[0].y, tr.train_loss)
    assert list(lines[0].customdata) == list(range(tr.n_rounds + 1))
    marks = [t for t in fig.data if t.mode == "markers"]
    assert all(list(t.x) == [m] for t in marks)
    assert all(s.x0 == m for s in fig.layout.shapes)


def test_tree_diagram_shows_split_n_sums_improvement_and_values(moons_fit):
    tr, m = moons_fit, 3
    tree = tr.tree(m)
    fig = figures.tree_diagram(tr, m, feature_names=("a", "b"))
    text = " ".join(a.text for a in fig.layout.annotations)
    for k in range(len(tree)):
        assert f"n = {int(tree['n'][k])}" in text
    for k in np.flatnonzero(tree["left"] < 0):
        assert f"leaf {k}" in text
        assert theme.signed(tree["value"][k], 4) in text
    root = tree[0]
    assert f"{'ab'[root['feature']]} ≤ {theme.num(root['threshold'], 4)}" in text
    assert "improvement" in text and "Σr" in text and "Σh" in text


def test_round_zero_has_no_tree(moons_fit, grid):
    for fig in (figures.tree_regions(moons_fit, 0, grid), figures.tree_diagram(moons_fit, 0),
                figures.update_panels(moons_fit, 0, grid)):
        assert "Round 0" in fig.layout.annotations[0].text


def test_upload_text_is_escaped_in_figures(moons_fit, grid):
    nasty = ("<b onmouseover=alert(1)>x</b>", "<a href='javascript:alert(1)'>y</a>")
    classes = ("<script>", "&lt;ok")
    for fig in (figures.probability_map(moons_fit, 2, grid, feature_names=nasty,
                                        classes=classes),
                figures.tree_diagram(moons_fit, 2, feature_names=nasty),
                figures.tree_regions(moons_fit, 2, grid, feature_names=nasty, classes=classes)):
        js = fig.to_json()
        assert "<script>" not in js and "<b onmouseover" not in js and "<a href" not in js
        assert "&lt;script&gt;" in js or "&lt;b onmouseover" in js


def test_uncomparable_feature_ranges_drop_the_equal_aspect(warm_engine):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 1, 200), rng.uniform(0, 1000, 200)])
    y = (X[:, 0] > 0.5).astype(float)
    tr = fit(X, y, n_rounds=3)
    grid = make_grid(tr, resolution=20)
    assert not grid.equal_aspect
    fig = figures.probability_map(tr, 1, grid)
    assert fig.layout.yaxis.scaleanchor is None


# --- the numbers the pages print ------------------------------------------------------


def test_f0_summary_both_forms_agree(moons_fit):
    f = summaries.f0_summary(moons_fit)
    assert f["n_pos"] + f["n_neg"] == len(moons_fit.y)
    assert math.isclose(f["from_counts"], math.log(f["n_pos"] / f["n_neg"]))
    assert math.isclose(f["from_counts"], f["from_pm"], rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(f["f0"], f["from_counts"], rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(f["p0"], f["pbar"], rel_tol=1e-12)


def test_f0_summary_exponential_halves(exp_fit):
    f = summaries.f0_summary(exp_fit)
    assert f["half"]
    assert math.isclose(f["f0"], 0.5 * math.log(f["n_pos"] / f["n_neg"]), abs_tol=1e-12)
    assert math.isclose(f["from_pm"], f["from_counts"], abs_tol=1e-12)


def test_leaf_summary_is_the_newton_step(moons_fit):
    tr = moons_fit
    for m in (1, 6, 12):
        for leaf in summaries.leaves_of(tr, m):
            L = summaries.leaf_summary(tr, m, int(leaf))
            assert math.isclose(L["ratio"], L["gamma"], rel_tol=1e-9, abs_tol=1e-12)
            assert math.isclose(L["step"], tr.learning_rate * L["gamma"])
            members = L["members"]
            assert len(members) == L["n"]
            r, h = tr.residual(m - 1)[members], tr.hessian(m - 1)[members]
            assert math.isclose(r.sum(), L["sum_r"], rel_tol=1e-9, abs_tol=1e-9)
            assert math.isclose(h.sum(), L["sum_h"], rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("kwargs, rule, closed", [
    ({}, "newton", True), ({"leaf": "mean"}, "mean", True), ({"leaf": "exact"}, "exact", False),
    ({"leaf": "line_search"}, "line_search", False),
    ({"split": "hessian"}, "second_order", True)])
def test_leaf_formula_matches_the_recorded_value(warm_engine, kwargs, rule, closed):
    ds = make_toy("moons", n=200, seed=2)
    tr = fit(ds.X, ds.y, n_rounds=3, **kwargs)
    for leaf in summaries.leaves_of(tr, 2):
        f = summaries.leaf_formula(tr, 2, int(leaf))
        assert f["rule"] == rule
        if closed:
            assert f["denominator"] is not None
            assert math.isclose(f["numerator"] / f["denominator"], f["value"], rel_tol=1e-6,
                                abs_tol=1e-9)
        else:
            assert f["denominator"] is None


def test_resolve_leaf_follows_the_sample_unless_a_leaf_is_chosen(moons_fit):
    tr = moons_fit
    leaf, followed = summaries.resolve_leaf(tr, 4, -1, 10)
    assert followed and leaf == tr.leaf[4, 10]
    chosen = int(summaries.leaves_of(tr, 4)[-1])
    assert summaries.resolve_leaf(tr, 4, chosen, 10) == (chosen, False)
    assert summaries.resolve_leaf(tr, 4, 0, 10)[1]  # the root is no leaf: follow the sample


def test_ledger_adds_up(moons_fit):
    tr = moons_fit
    for i in (0, 17, len(tr.y) - 1):
        L = summaries.ledger(tr, i)
        np.testing.assert_allclose(L["F"][0] + np.cumsum(L["update"][1:]), L["F"][1:],
                                   atol=1e-12)
        np.testing.assert_allclose(L["F"][1:], L["F"][:-1] + L["update"][1:], atol=0)
        np.testing.assert_allclose(L["residual"][1:], [tr.residual(m - 1)[i]
                                                       for m in range(1, tr.n_rounds + 1)])
        assert list(L["leaf"][1:]) == [int(tr.leaf[m, i]) for m in range(1, tr.n_rounds + 1)]
        np.testing.assert_allclose(L["gamma"][1:], [tr.tree(m)["value"][tr.leaf[m, i]]
                                                    for m in range(1, tr.n_rounds + 1)])
        assert L["in_bag"] is not None and L["in_bag"].dtype == bool


def test_node_table_rows(moons_fit):
    rows = summaries.node_table(moons_fit, 2, ("u", "v"))
    assert len(rows) == len(moons_fit.tree(2))
    assert rows[0]["kind"] == "split" and rows[0]["split"].startswith(("u ≤", "v ≤"))
    assert all(r["value γ"] is not None for r in rows if r["kind"] == "leaf")


# --- the state and its URL ------------------------------------------------------------


def test_state_defaults_give_an_empty_query():
    assert State.from_mapping({}) == State()
    assert State().to_query() == {}


def test_state_round_trips_through_the_query():
    s = State(data="circles", n=250, noise=0.1, lr=0.3, loss="exponential", leaves=8,
              subsample=0.7, rounds=40, round=12, sample=5, leaf=3, showvalid=True)
    q = s.to_query()
    assert q["data"] == "circles" and q["round"] == "12" and q["lr"] == "0.3"
    assert State.from_mapping(q) == s


def test_state_refuses_bad_values_and_clamps_the_round():
    s = State.from_mapping({"data": "<script>", "n": "1e9", "lr": "nan", "rounds": "20",
                            "round": "75", "leaves": "7", "showvalid": "maybe",
                            "depth": ["2", "4"]})
    assert s.data == "moons" and s.n == 400 and s.lr == 0.1 and s.leaves == 0
    assert s.rounds == 20 and s.round == 20 and s.showvalid is False and s.depth == 4
    assert s.with_round(-3).round == 0 and s.with_round(99).round == 20


def test_fields_declare_widget_ranges_containing_their_defaults():
    for f in FIELDS:
        assert f.parse(f.default) == f.default
        assert f.parse(f.format(f.default)) == f.default


def test_fit_params_reach_the_engine(warm_engine):
    s = State(loss="exponential", rounds=5, lr=0.2, depth=2, leaves=4, minleaf=3,
              subsample=0.5, seed=7)
    p = s.fit_params()
    assert p == dict(loss="exponential", n_rounds=5, learning_rate=0.2, max_depth=2,
                     max_leaves=4, min_samples_leaf=3, subsample=0.5, random_state=7)
    ds = make_toy(**s.toy_params())
    tr = fit(ds.X, ds.y, **p)
    assert tr.params["max_leaves"] == 4 and tr.n_rounds == 5
    assert "exponential" in s.slug() and s.slug().endswith("_m0")
