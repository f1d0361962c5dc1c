"""The Compare page: every ready-made pair fits both sides on the same data."""

import numpy as np
import pytest
from test_app import assert_clean, charts, new_app  # noqa: F401  (fixtures via conftest)

from explorer.data import DataError, flip_labels, make_toy
from explorer.state import COMPARISONS, State


def open_compare(pair="lr", **query):
    at = new_app(**query)
    at.switch_page("pages/compare.py")
    at.run()
    if pair != "lr":
        at.selectbox(key="pair").set_value(pair).run()
    return at


@pytest.mark.parametrize("pair", list(COMPARISONS))
def test_every_pair_draws_two_maps_and_the_curves(warm_engine, pair):
    at = open_compare(pair=pair, round=7)
    assert_clean(at)
    assert not at.error
    specs = charts(at)
    titles = [spec["layout"]["title"]["text"] for spec in specs]
    assert len(specs) == 3 and "Loss against the round" in titles[-1]
    assert "round 7" in titles[-1]


def test_pairs_change_only_what_they_name():
    state = State(lr=0.3, depth=2)
    (_, a), (_, b), flip = replace_pair(state, "depth")
    assert (a.depth, b.depth, a.lr, b.lr, flip) == (1, 3, 0.3, 0.3, 0.0)
    (name_a, a), (name_b, b), flip = replace_pair(state, "outliers")
    assert (a.loss, b.loss, flip) == ("log-loss", "exponential", 0.1)
    assert (name_a, name_b) == ("log-loss", "exponential loss")


def replace_pair(state, pair):
    from dataclasses import replace

    return replace(state, pair=pair).compared()


def test_the_outlier_pair_says_labels_are_flipped_and_fits_the_flipped_data(warm_engine):
    at = open_compare(pair="outliers", round=20)
    assert_clean(at)
    assert any("labels are flipped" in c.value for c in at.caption)
    specs = charts(at)
    legend = " ".join(trace.get("name", "") for trace in specs[-1]["data"])
    assert "exponential loss" in legend and "log-loss" in legend


def test_flip_labels_flips_the_share_asked_and_only_labels():
    ds = make_toy("moons", n=200, seed=1)
    flipped = flip_labels(ds, 0.1, seed=3)
    assert np.sum(flipped.y != ds.y) == 20
    assert np.array_equal(flipped.X, ds.X)
    assert np.array_equal(flip_labels(ds, 0.1, seed=3).y, flipped.y)
    with pytest.raises(DataError):
        flip_labels(ds, 0.7)
