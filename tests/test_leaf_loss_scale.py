"""Issue 29, item 7: the leaf's loss curve shows its true values: the exponential loss,
which spans many decades over the γ range, goes on a log axis instead of being clipped at
1e6; no NaN or inf reaches the figure."""

from __future__ import annotations

import json
import math

import numpy as np

from explorer import fit
from explorer.data import make_toy, split
from explorer.figures.maths import leaf_loss_of
from explorer.numbers import leaves
from explorer.numbers.summaries import resolve_leaf


def _moons(**params):
    train, _ = split(make_toy("moons", n=400, noise=0.25, seed=0), 0.2, 0)
    return fit(train.X, train.y, n_rounds=10, **params)


def _loss_curve(fig):
    return np.asarray(fig.data[0].y, dtype=float)


def test_the_exponential_loss_curve_is_drawn_as_it_is_on_a_log_axis():
    t = _moons(loss="exponential")
    seen_big = False
    for node in np.flatnonzero(t.tree(1)["left"] < 0):
        story = leaves.leaf_story(t, 1, node)
        fig = leaf_loss_of(t, 1, leaf=int(node))
        y = _loss_curve(fig)
        assert np.all(np.isfinite(y))
        assert np.allclose(y, story["loss"], rtol=1e-12)  # the true values, not clipped
        if story["loss"].max() > 1e6:
            seen_big = True
            assert fig.layout.yaxis.type == "log"
            lo, hi = fig.layout.yaxis.range
            assert lo <= math.log10(y.min()) and hi >= math.log10(y.max())
        json.dumps(fig.to_plotly_json(), allow_nan=False, default=str)  # no NaN/inf
    assert seen_big  # the case of the issue: 98·e²⁰ ≈ 4.7e10


def test_a_log_loss_curve_stays_linear():
    t = _moons()
    node = resolve_leaf(t, 1, -1, 0)[0]
    fig = leaf_loss_of(t, 1, leaf=node)
    assert fig.layout.yaxis.type in (None, "linear")
