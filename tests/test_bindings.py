"""explorer.figures.bindings: a chart's template, bindings and per-round tables give the
server's own figure at every round, for every kind of data and view, as the browser
gets it (the template as plotly's JSON, the tables as bytes)."""

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest
from sklearn.datasets import load_iris, make_moons

import explorer
from explorer import figures
from explorer.figures import bindings
from explorer.figures.panels import plain
from explorer.numbers.grid import make_grid
from explorer.numbers.record import unpack

M = 12  # rounds: every one of them is checked


def _problem(name):
    rng = np.random.RandomState(0)
    if name == "iris":
        d = load_iris()
        return d.data[:, 2:], d.target, {}
    if name == "sine":
        X = rng.uniform(0, 6, (150, 1))
        return X, np.sin(X[:, 0]) + rng.normal(0, 0.2, 150), dict(loss="squared_error")
    if name == "plane":
        X = rng.uniform(0, 6, (150, 2))
        return X, np.sin(X[:, 0]) + X[:, 1], dict(loss="squared_error")
    X, y = make_moons(200, noise=0.3, random_state=0)
    return X, y, dict(moons={}, exponential=dict(loss="exponential"),
                      hessian=dict(split="hessian"),
                      histogram=dict(split="histogram", max_bins=16, max_leaves=8),
                      subsample=dict(subsample=0.5, max_leaves=6, max_depth=None))[name]


@pytest.fixture(scope="module", params=["moons", "iris", "sine", "plane", "exponential",
                                        "hessian", "subsample", "histogram"])
def fitted(request, warm_engine):
    X, y, options = _problem(request.param)
    trace = explorer.fit(X, y, n_rounds=M, **options)
    return request.param, trace, make_grid(trace, resolution=24)


def canonical(node):
    """A figure's JSON with every array as a list of floats (plotly's typed arrays
    decoded), so that two figures compare value by value."""
    if isinstance(node, dict) and "bdata" in node:
        a = np.frombuffer(base64.b64decode(node["bdata"]), np.dtype(node["dtype"]))
        return canonical(bindings._typed(node).tolist() if node.get("shape") else a.tolist())
    if isinstance(node, np.ndarray):
        return canonical(node.tolist())
    if isinstance(node, dict):
        return {k: canonical(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [canonical(v) for v in node]
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return float(node)
    return node


def served(draw, before, after, kwargs, m):
    """The server's figure: validated, as plotly's JSON."""
    return json.loads(draw(*before, m, *after, **kwargs).to_json())


def views(name, trace, grid):
    """(draw, before, after, kwargs) of each view this fit has."""
    out = [(figures.model_view, (trace,), (grid,), dict(sample=3)),
           (figures.curves, (trace,), (), {}),
           (figures.tree_diagram, (trace,), (), dict(leaf=-1, sample=5)),
           (figures.update_panels, (trace,), (grid,), {}),
           (figures.sample_trajectory, (trace, 7), (), {}),
           (figures.leaf_loss_of, (trace,), (), dict(leaf=-1, sample=4)),
           (figures.sweep_curves, (trace, trace), (),
            dict(labels=["a", "b"], colors=["#000000", "#ff0000"]))]
    if not grid.is_line:
        out += [(figures.residual_map, (trace,), (grid,), dict(sample=3)),
                (figures.tree_regions, (trace,), (grid,), dict(leaf=-1, sample=5))]
    if trace.is_multiclass:
        out += [(figures.model_view, (trace,), (grid,), dict(k=2)),
                (figures.residual_map, (trace,), (grid,), dict(k=1)),
                (figures.tree_regions, (trace,), (grid,), dict(k=2, leaf=3, sample=0)),
                (figures.leaf_loss_of, (trace,), (), dict(k=1, leaf=2, sample=9))]
    return out


def test_the_bindings_give_the_servers_figure_at_every_round(fitted):
    name, trace, grid = fitted
    for draw, before, after, kwargs in views(name, trace, grid):
        bound = bindings.bind(draw, trace, grid, before, after, kwargs)
        # as the browser gets them: the template as plotly's JSON, round 0 too
        template = served(draw, before, after, kwargs, bound.at)
        zero = None if bound.zero is None else served(draw, before, after, kwargs, 0)
        for m in range(M + 1):
            mine = bindings.figure_at(template, bound.bindings, bound.tables, zero, trace,
                                      grid, m)
            assert canonical(mine) == canonical(served(draw, before, after, kwargs, m)), (
                name, draw.__name__, m)


def test_big_arrays_come_from_the_terms_and_small_ones_from_tables(fitted):
    """The maps and the points' values are computed in the browser, not shipped per round."""
    name, trace, grid = fitted
    model = bindings.bind(figures.model_view, trace, grid, after=(grid,))
    terms = {b["term"][0] for b in model.bindings if "term" in b}
    terms |= {p["term"][0] for b in model.bindings for p in b.get("columns") or [] if p}
    expected = {"moons": {"gp", "pp"}, "exponential": {"gp", "pp"}, "hessian": {"gp", "pp"},
                "histogram": {"gp", "pp"},
                "subsample": {"gp", "pp"}, "iris": {"gshade", "gtop", "pp"},
                "sine": {"gF", "pF"}, "plane": {"gF", "pF"}}[name]
    assert expected <= terms
    header, arrays = unpack(model.tables)
    cells = grid.F[0].size
    assert all(a.size < cells for a in arrays.values()), "a map went into the tables"


def test_a_property_that_never_changes_is_not_bound(fitted):
    name, trace, grid = fitted
    bound = bindings.bind(figures.curves, trace, grid)
    paths = [b["path"] for b in bound.bindings]
    assert ["layout", "title", "text"] in paths  # it names the round
    assert not any(p[0] == "data" for p in paths)  # the curves themselves are the same


def test_tables_store_each_distinct_value_once(fitted):
    name, trace, grid = fitted
    bound = bindings.bind(figures.curves, trace, grid)
    header, _ = unpack(bound.tables)
    for table in header["tables"]:
        values = [json.dumps(v, sort_keys=True) for v in table["values"]]
        assert len(set(values)) == len(values)
        assert len(table["rounds"]) == M + 1 - header["first"]


def test_beyond_the_budget_the_chart_steps_through_the_server(fitted, monkeypatch):
    name, trace, grid = fitted
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", 100)
    with pytest.raises(bindings.TooLarge):
        bindings.bind(figures.tree_diagram, trace, grid)
    monkeypatch.setattr(bindings, "MAX_ROUNDS", M - 1)
    with pytest.raises(bindings.TooLarge):
        bindings.bind(figures.curves, trace, grid)


def test_a_chart_far_past_the_budget_is_refused_before_every_round_is_drawn(monkeypatch,
                                                                          warm_engine):
    X, y, _ = _problem("moons")
    trace = explorer.fit(X, y, n_rounds=40, max_depth=3)
    grid = make_grid(trace, resolution=20)
    drawn = []

    def counted(trace, m, *args, **kwargs):
        drawn.append(m)
        return figures.tree_diagram(trace, m, *args, **kwargs)

    full = len(bindings.bind(counted, trace, grid).tables)
    assert len(drawn) >= trace.n_rounds + 1
    drawn.clear()  # a budget a third of the tables: refused after the probe's rounds
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", full // 3)
    with pytest.raises(bindings.TooLarge, match="foreseen from its first"):
        bindings.bind(counted, trace, grid)
    assert len(drawn) == bindings.PROBE + 2
    drawn.clear()  # within twice the budget: every round is drawn, and the tables counted
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", int(full * 0.6))
    with pytest.raises(bindings.TooLarge, match=r"its tables of (more than )?\d"):
        bindings.bind(counted, trace, grid)
    assert len(drawn) > trace.n_rounds


def test_plain_figures_are_the_validated_ones(fitted):
    """panels.plain draws the same figure, unvalidated: the tables hold what plotly gets."""
    name, trace, grid = fitted
    with plain():
        spec = figures.model_view(trace, 3, grid)
    assert isinstance(spec, dict)
    assert canonical(json.loads(go.Figure(spec).to_json())) == canonical(
        served(figures.model_view, (trace,), (grid,), {}, 3))


def test_presenter_mode_is_bound_too(warm_engine):
    from explorer.figures import presented
    X, y, _ = _problem("moons")
    trace = explorer.fit(X, y, n_rounds=4)
    grid = make_grid(trace, resolution=16)
    bound = bindings.bind(figures.tree_regions, trace, grid, after=(grid,), present=True)
    template = json.loads(presented(figures.tree_regions(trace, bound.at, grid)).to_json())
    for m in range(1, 5):
        mine = bindings.figure_at(template, bound.bindings, bound.tables, None, trace, grid, m)
        want = json.loads(presented(figures.tree_regions(trace, m, grid)).to_json())
        assert canonical(mine) == canonical(want)


def test_no_annotation_turns_its_arrow_on_or_off_between_rounds(fitted):
    """plotly.js recomputes every trace of a chart when an annotation's showarrow changes
    (a change of its text or place only redraws the annotation): a chart whose traces stay
    the same must keep each annotation's showarrow at every round (the Tree page's leaf
    labels: leaf_labels.arrow)."""
    name, trace, grid = fitted
    for draw, before, after, kwargs in views(name, trace, grid):
        figs = bindings.draw_rounds(draw, before, after, kwargs, range(1, M + 1))
        for i in range(min(len(f["layout"].get("annotations", ())) for f in figs)):
            arrows = {f["layout"]["annotations"][i].get("showarrow", True) for f in figs}
            assert len(arrows) == 1, (name, draw.__name__, i)


def _diff_round_by_round(figs, rounds):
    """bindings._changes as it was: every leaf compared with _same, round by round."""
    out = []

    def diff(values, path):
        first = values[0]
        if all(isinstance(v, dict) and v.keys() == first.keys() for v in values):
            for key in first:
                diff([v[key] for v in values], path + [key])
            return
        if all(isinstance(v, list) and len(v) == len(first)
               and all(isinstance(x, dict) for x in v) for v in values) and first:
            for i in range(len(first)):
                diff([v[i] for v in values], path + [i])
            return
        if not all(bindings._same(first, v) for v in values[1:]):
            out.append((path, values))

    diff([figs[m] for m in rounds], [])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_fast_comparisons_find_what_comparing_every_round_finds(seed, warm_engine):
    """The diff's shortcuts (C loops, an array compared with every round at once, round 0
    added to the changes over rounds 1..M) find the same paths, with the same values, as
    comparing each leaf with _same round by round, on random fits."""
    rng = np.random.RandomState(seed)
    X, y, options = _problem(["moons", "iris", "sine", "plane"][seed])
    options = dict(options, max_depth=int(rng.randint(1, 5)),
                   learning_rate=float(rng.uniform(0.05, 1)),
                   subsample=float(rng.choice([1.0, 0.6])))
    trace = explorer.fit(X, y, n_rounds=int(rng.randint(3, 15)), **options)
    grid = make_grid(trace, resolution=int(rng.randint(8, 30)))
    rounds = list(range(trace.n_rounds + 1))
    joined = 0  # views whose round 0 follows the bindings
    for draw, before, after, kwargs in views(None, trace, grid):
        figs = bindings.draw_rounds(draw, before, after, kwargs, rounds)
        for some in (rounds[1:], [1, 0], rounds):
            assert bindings._changes(figs, some) == _diff_round_by_round(figs, some), (
                draw.__name__, some)
        paths = bindings._changes(figs, rounds[1:])
        covered = all(any(bindings._under(p, q) for q, _ in paths)
                      for p, _ in bindings._changes(figs, [1, 0]))
        if covered:
            assert bindings._with_round_zero(figs, paths) == _diff_round_by_round(figs, rounds)
            joined += 1
    assert joined


def test_an_array_that_differs_at_any_round_is_bound():
    """The one-pass comparison of an array with every round: a change at the last round,
    -0 against 0 (equal) and NaN (never equal), as np.array_equal has them."""
    same = [np.arange(6.0) for _ in range(5)]
    assert bindings._all_same(same)
    assert not bindings._all_same(same[:4] + [np.arange(6.0) + (np.arange(6) == 5)])
    assert bindings._all_same([np.zeros(3), -np.zeros(3), np.zeros(3), -np.zeros(3)])
    nan = np.array([1.0, np.nan])
    assert not bindings._all_same([nan, nan, nan])
    assert not bindings._all_same([np.zeros(3, "f4"), np.zeros(3, "f4"), np.zeros(3, "f8")])


def test_a_kept_boundary_is_the_boundary_of_its_grid(warm_engine):
    """panels' boundaries kept by the cells' sides of 0: the same lines as boundary_lines for
    every round, float32 or float64, and lists of the figure's own."""
    from explorer.figures import panels
    from explorer.numbers.grid import boundary_lines
    X, y, _ = _problem("moons")
    trace = explorer.fit(X, y, n_rounds=6)
    for resolution in (12, 13):
        grid = make_grid(trace, resolution=resolution)
        for m in range(7):
            for F in (grid.F[m], grid.F[m].astype(np.float64)):
                want = boundary_lines(grid.xs, grid.ys, F)
                got = panels.boundary_trace(grid, F)
                assert (got["x"], got["y"]) == want
                got["x"].append(99.0)
                assert panels.boundary_trace(grid, F)["x"] == want[0]


def test_the_rounds_of_a_large_array_are_compared_a_few_at_a_time(monkeypatch):
    monkeypatch.setattr(bindings, "_STACKED_BYTES", 100)  # 2 rounds of 6 float64 at once
    same = [np.arange(6.0) for _ in range(9)]
    assert bindings._all_same(same)
    for last in range(2, 9):
        changed = list(same)
        changed[last] = np.arange(6.0) + 1
        assert not bindings._all_same(changed), last


def test_binding_gives_the_garbage_collector_back(monkeypatch, warm_engine):
    """bind pauses the cyclic collector while it works, and starts it again even when the
    chart is refused (and leaves it off where it was off)."""
    import gc
    X, y, _ = _problem("moons")
    trace = explorer.fit(X, y, n_rounds=3)
    grid = make_grid(trace, resolution=8)
    seen = []

    def watched(trace, m, *args, **kwargs):
        seen.append(gc.isenabled())
        return figures.curves(trace, m, *args, **kwargs)

    assert gc.isenabled()
    bindings.bind(watched, trace, grid)
    assert gc.isenabled() and seen and not any(seen)
    monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", 10)
    with pytest.raises(bindings.TooLarge):
        bindings.bind(watched, trace, grid)
    assert gc.isenabled()
    gc.disable()
    try:
        monkeypatch.setattr(bindings, "MAX_TABLE_BYTES", 8 * 2**20)
        bindings.bind(watched, trace, grid)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_kept_grid_probabilities_are_the_computed_ones(monkeypatch, warm_engine):
    """terms keeps each round's p on the grid by its link and F: the same numbers as
    computed afresh, a new array each time, for another link other numbers, and no more
    bytes than its budget."""
    from explorer.numbers import terms
    X, y, _ = _problem("iris")
    trace = explorer.fit(X, y, n_rounds=4)
    grid = make_grid(trace, resolution=10)
    for m in range(5):
        for F in (grid.F[m], grid.F[m][::-1].copy()):
            first = terms.grid_probabilities(trace, F)
            again = terms.grid_probabilities(trace, F)
            assert np.array_equal(first, terms._probabilities(trace, F)) and first.dtype.kind == "f"
            assert np.array_equal(first, again) and first is not again
            first[...] = -1
            assert np.array_equal(terms.grid_probabilities(trace, F), again)
    moons = explorer.fit(*_problem("moons")[:2], n_rounds=2)
    F = np.zeros_like(grid.F[1][..., 0])
    assert np.array_equal(terms.grid_probabilities(moons, F), np.full(F.shape, 0.5))
    monkeypatch.setattr(terms, "_KEPT_BYTES", 3 * grid.F[0].size * 8)
    for m in range(5):
        terms.grid_probabilities(trace, grid.F[m] + 7)  # not kept yet
    assert terms._kept[0] == sum(P.nbytes for P in terms._KEPT.values()) <= terms._KEPT_BYTES
