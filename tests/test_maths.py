"""The figures of the mathematics pages: pure functions, finite numbers, the marks they promise."""

from __future__ import annotations

import json

import pytest

from explorer import figures, fit
from explorer.numbers import leaves, splits
from explorer.numbers import summaries
from explorer.data import make_toy
from figure_helpers import finite_json


@pytest.fixture(scope="module")
def moons(warm_engine):
    ds = make_toy("moons", n=200, noise=0.3, seed=1)
    return fit(ds.X, ds.y, n_rounds=6, max_depth=3)


@pytest.fixture(scope="module")
def hessian(warm_engine):
    ds = make_toy("moons", n=200, noise=0.3, seed=1)
    return fit(ds.X, ds.y, n_rounds=6, max_depth=2, split="hessian", reg_lambda=0.5)


def test_leaf_loss_marks_newton_and_exact(moons):
    for m in (1, 6):
        for node in summaries.leaves_of(moons, m):
            story = leaves.leaf_story(moons, m, int(node))
            fig = finite_json(figures.leaf_loss(story, m, int(node)))
            names = " ".join(t.get("name", "") for t in fig["data"])
            assert "Newton" in names and "Taylor" in names
            if story["pure"]:
                assert "exact" not in names and "no finite minimiser" in fig["layout"]["title"]["text"]
            else:
                assert "exact minimiser" in names
                star = [t for t in fig["data"] if t.get("name") == "exact minimiser γ*"][0]
                assert star["x"][0] == pytest.approx(story["exact"])


def test_leaf_loss_round_zero_is_a_message(moons):
    fig = finite_json(figures.leaf_loss(None, 0, 0))
    assert "Round 0" in fig["layout"]["annotations"][0]["text"]


def test_split_scan_both_rules_and_chosen_split(moons, hessian):
    for trace in (moons, hessian):
        fig = finite_json(figures.split_scan(splits.scan(trace, 1, 0), 1, 0,
                                             feature_names=("a<b>", "c")))
        assert len(fig["layout"]["shapes"]) == 2  # the root's split, in both rows
        assert "a&lt;b&gt;" in json.dumps(fig) and "a<b>" not in json.dumps(fig)
        names = {t.get("name") for t in fig["data"]}
        assert {"squared-error reduction", "second-order gain"} <= names
    leaf = int(summaries.leaves_of(moons, 1)[0])
    fig = finite_json(figures.split_scan(splits.scan(moons, 1, leaf), 1, leaf))
    assert not fig["layout"].get("shapes")

