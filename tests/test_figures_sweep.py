"""The Sweep page's figures (explorer/figures/sweep.py): every number finite, user text
escaped, each fit's best round marked where best_round says, one colour scale."""

import json

import numpy as np
import pytest

import explorer
from explorer.best_round import best_round
from explorer.figures.sweep import (colours, sweep_curves, sweep_grid, sweep_heat, sweep_map,
                                    value_range)
from explorer.numbers.grid import make_grid
from figure_helpers import finite_json, numbers_in


@pytest.fixture(scope="module")
def fits(warm_engine):
    from explorer.data import make_toy
    moons = make_toy("moons", n=200, noise=0.3, seed=1)
    X, y = moons.X, moons.y
    out = []
    for lr in (0.1, 1.0):
        trace = explorer.fit(X[:150], y[:150], X_valid=X[150:], y_valid=y[150:],
                             n_rounds=12, learning_rate=lr, max_depth=3)
        out.append((trace, make_grid(trace, resolution=20)))
    return out


def test_curves_mark_each_fits_best_round_and_escape_labels(fits):
    traces = [t for t, _ in fits]
    fig = finite_json(sweep_curves(*traces, 5, labels=["<i>a</i>", "b"], colors=colours(2)))
    assert "<i>" not in json.dumps(fig)
    marks = [t for t in fig["data"] if t.get("mode") == "markers"]
    assert [(m["x"][0], m["y"][0]) for m in marks] == [
        (best_round(t).round, best_round(t).valid) for t in traces]
    assert fig["layout"]["shapes"][0]["x0"] == 5  # the round on screen, ruled
    log = finite_json(sweep_curves(*traces, 5, labels=["a", "b"], colors=colours(2), log=True))
    assert log["layout"]["yaxis"]["type"] == "log"


def test_a_cell_is_its_map_on_the_one_scale(fits):
    trace, grid = fits[0]
    fig = finite_json(sweep_map(trace, 4, grid, label="ν = <0.1>"))
    heat = fig["data"][0]
    assert (heat["zmin"], heat["zmax"], heat["showscale"]) == (0.0, 1.0, False)
    p = trace.link(grid.F[4].astype(np.float64))
    assert np.allclose(np.array(list(numbers_in(heat["z"]))).reshape(p.shape), p, atol=1e-6)
    assert fig["layout"]["title"]["text"] == "ν = &lt;0.1&gt;"
    assert f"{trace.valid_loss[4]:.4f}" in fig["layout"]["title"]["subtitle"]["text"]


def test_the_heat_map_outlines_the_best_cell(fits):
    traces = [t for t, _ in fits]
    fig = finite_json(sweep_heat(*traces, 6, grid_of=[(0, 0), (0, 1)], across=["a", "b"],
                                 down=["c"], across_name="x", down_name="y"))
    best = min(range(2), key=lambda i: best_round(traces[i]).valid)
    rect = fig["layout"]["shapes"][0]
    assert (rect["x0"] + 0.5, rect["y0"] + 0.5) == (best, 0)
    assert fig["data"][0]["z"] == [[float(t.valid_loss[6]) for t in traces]]


def test_the_grid_places_every_cell(fits):
    cells = [(0, i, f"cell {i}", t, g) for i, (t, g) in enumerate(fits)]
    fig = finite_json(sweep_grid(cells, 3, rows=1, columns=2))
    assert {t["xaxis"] for t in fig["data"]} == {"x", "x2"}
    assert [n["text"].split("<br>")[0] for n in fig["layout"]["annotations"]] == \
        ["cell 0", "cell 1"]


def test_one_range_for_every_regression_cell():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, (80, 1))
    traces, grids = [], []
    for lr in (0.1, 1.0):
        t = explorer.fit(X, np.sin(X[:, 0]), n_rounds=5, learning_rate=lr,
                         loss="squared_error")
        traces.append(t)
        grids.append(make_grid(t))
    lo, hi = value_range(traces, grids)
    assert all(lo <= g.F.min() and g.F.max() <= hi for g in grids)
